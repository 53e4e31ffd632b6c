package viewer_test

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"
)

var latencyModes = flag.Bool("viewer.latency", false, "TestViewerRedrawLatency: measure full and incremental redraws on a small and a large document, 100 changes each")

// measureJS is the in-page measurement (testdata/measure.js).
func measureJS(t testing.TB) string {
	data, err := os.ReadFile("testdata/measure.js")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// grid is n short lines, for a document of some size.
func grid(n int) []map[string]any {
	var out []map[string]any
	for i := range n {
		x, y := float64(i%50)*4, float64(i/50)*4
		out = append(out, map[string]any{"type": "line", "x1": x, "y1": y, "x2": x + 3, "y2": y + 2})
	}
	return out
}

// redrawLatencies opens the viewer on a document of lines entities plus
// one circle, and has another client move the circle changes times; it
// returns the times from each change's result to the paint that shows it,
// measured in the browser.
func redrawLatencies(t *testing.T, lines, changes int, mode string) []float64 {
	t.Helper()
	s := startStack(t)
	a := dialAgent(t, s)
	doc := a.createDocument(fmt.Sprintf("latency-%d", lines))
	if lines > 0 {
		var res struct{ OK bool }
		a.call("tools.call", map[string]any{"document_id": doc, "tool": "entity_batch_create", "args": map[string]any{"entities": grid(lines)}}, &res)
	}
	h := a.createHandles(doc, circle(-20, -20, 5))
	p := openPage(t, s, "/viewer/?document="+doc)
	p.waitForWithin("the document drawn", fmt.Sprintf(`document.querySelectorAll("[data-handle]").length === %d`, lines+1), 30*time.Second)
	ms := evalWithin[[]float64](p, fmt.Sprintf("(%s)(%q, %q, %d, %q)", measureJS(t), doc, h[0], changes, mode), 5*time.Minute)
	if len(ms) != changes {
		t.Fatalf("measured %d changes, want %d", len(ms), changes)
	}
	redraws := eval[[]struct {
		Mode                      string
		Changed                   int
		FetchMs, ApplyMs, PaintMs float64
	}](p, `cadViewer.redraws.slice(1)`)
	var fetch, apply, paint, changed float64
	for _, r := range redraws {
		if r.Mode != mode {
			t.Errorf("a redraw in mode %q was %q", mode, r.Mode)
			break
		}
		fetch, apply, paint, changed = fetch+r.FetchMs, apply+r.ApplyMs, paint+r.PaintMs, changed+float64(r.Changed)
	}
	if n := float64(len(redraws)); n > 0 {
		t.Logf("%d redraws, on average: fetch (document.get, document.export) %.1f ms, parse and apply %.1f ms, to the paint %.1f ms; %.1f elements replaced", len(redraws), fetch/n, apply/n, paint/n, changed/n)
	}
	return ms
}

// percentile is the p-th percentile (0–100) of ms, nearest rank.
func percentile(ms []float64, p float64) float64 {
	s := slices.Clone(ms)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[max(0, min(len(s)-1, i))]
}

// TestViewerRedrawLatency: every one of 100 changes another client makes is
// drawn, and the time from its tools.call result to the paint is measured
// in the browser and logged (p50, p90, max; not asserted: the machine's
// load would decide it). With -viewer.latency it compares full and
// incremental redraws on a small and a large document.
func TestViewerRedrawLatency(t *testing.T) {
	needBrowser(t)
	type config struct {
		lines int
		mode  string
	}
	configs := []config{{200, "incremental"}}
	if *latencyModes {
		configs = []config{{10, "full"}, {10, "incremental"}, {2000, "full"}, {2000, "incremental"}, {10000, "full"}, {10000, "incremental"}}
	}
	for _, c := range configs {
		t.Run(fmt.Sprintf("%d-%s", c.lines+1, c.mode), func(t *testing.T) {
			start := time.Now()
			ms := redrawLatencies(t, c.lines, 100, c.mode)
			p50, p90, worst := percentile(ms, 50), percentile(ms, 90), percentile(ms, 100)
			t.Logf("%d entities, %s redraws: from the change's result to the paint p50 %.1f ms, p90 %.1f ms, max %.1f ms over %d changes (%v in all)",
				c.lines+1, c.mode, p50, p90, worst, len(ms), time.Since(start).Round(time.Millisecond))
		})
	}
}
