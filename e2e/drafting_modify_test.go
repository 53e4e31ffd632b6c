package e2e_test

import (
	"math"
	"testing"
)

// TestDraftingModify drives the modify group's corners and cuts through
// the built gateway and engine over HTTP: a plate drawn at survey
// coordinates has a corner filleted (the arc tangent to both edges, the
// edges trimmed to it), a rib line's overhang trimmed at the plate's edge,
// and the four edges joined into one closed polyline.
func TestDraftingModify(t *testing.T) {
	gateway, _ := startServices(t)
	c := &httpClient{url: "http://" + gateway + "/rpc"}
	const x0, y0 = 500000.0, 4200000.0

	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, 1, "document.create", map[string]any{"name": "plate"}, &doc)
	id := 10
	tool := func(name string, args map[string]any) map[string]any {
		t.Helper()
		id++
		var step struct {
			OK     bool           `json:"ok"`
			Result map[string]any `json:"result"`
			Error  map[string]any `json:"error"`
		}
		mustCall(t, c, id, "tools.call", map[string]any{"document_id": doc.DocumentID, "tool": name, "args": args}, &step)
		if !step.OK {
			t.Fatalf("%s(%v) failed: %v", name, args, step.Error)
		}
		return step.Result
	}
	line := func(x1, y1, x2, y2 float64) string {
		return tool("entity_create_line", map[string]any{"x1": x0 + x1, "y1": y0 + y1, "x2": x0 + x2, "y2": y0 + y2})["handle"].(string)
	}
	point := func(v any) (float64, float64) {
		m := v.(map[string]any)
		return m["x"].(float64), m["y"].(float64)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6 }

	bottom, right, top, left := line(0, 0, 120, 0), line(120, 0, 120, 80), line(120, 80, 0, 80), line(0, 80, 0, 0)

	// The bottom-right corner, radius 15.
	f := tool("entity_fillet", map[string]any{"handle1": bottom, "handle2": right, "radius": 15})
	arc := tool("entity_get", map[string]any{"handle": f["handle"]})
	cx, cy := point(arc["center"])
	if arc["type"] != "arc" || !near(cx, x0+105) || !near(cy, y0+15) || !near(arc["radius"].(float64), 15) {
		t.Fatalf("fillet arc = %v, want centre (105, 15) radius 15", arc)
	}
	// Tangent: the centre is the radius from each edge, and the edges end
	// where the arc does.
	if bx, by := point(tool("entity_get", map[string]any{"handle": bottom})["end"]); !near(bx, x0+105) || !near(by, y0) {
		t.Errorf("bottom edge ends at (%v, %v), want the tangent point (105, 0)", bx-x0, by-y0)
	}
	if rx, ry := point(tool("entity_get", map[string]any{"handle": right})["start"]); !near(rx, x0+120) || !near(ry, y0+15) {
		t.Errorf("right edge starts at (%v, %v), want the tangent point (120, 15)", rx-x0, ry-y0)
	}

	// A rib from inside the plate past its right edge: trim the overhang.
	rib := line(60, 40, 150, 40)
	tool("entity_trim", map[string]any{"handle": rib, "pick_x": x0 + 140, "pick_y": y0 + 40, "edges": []any{right}})
	if ex, _ := point(tool("entity_get", map[string]any{"handle": rib})["end"]); !near(ex, x0+120) {
		t.Errorf("rib ends at x = %v, want the plate's edge at 120", ex-x0)
	}
	tool("entity_delete", map[string]any{"handle": rib})

	// The edges and the arc join into one closed outline.
	j := tool("entity_join", map[string]any{"handles": []any{bottom, f["handle"], right, top, left}})
	if len(j["deleted"].([]any)) != 4 {
		t.Errorf("join deleted %v, want the four others", j["deleted"])
	}
	m := tool("analysis_measure_entity", map[string]any{"handle": bottom})
	if want := 120*80 - (1-math.Pi/4)*15*15; math.Abs(m["area"].(float64)-want) > 1e-6 {
		t.Errorf("outline area = %v, want %v", m["area"], want)
	}
}
