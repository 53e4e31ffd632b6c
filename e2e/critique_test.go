package e2e_test

import (
	"slices"
	"strings"
	"testing"
)

// TestDrawingCritique drives drawing_critique through the built gateway
// and engine over HTTP, on a plate drawn at survey coordinates: its
// corner left 0.05 open, an edge drawn twice (the second time backwards)
// and a label struck through by a line are found, with the handles they
// are about; every other edge meets its neighbours, so nothing else is;
// running each finding's fix as it stands repairs the gap and the
// duplicate, and the critique after finds neither, and a better score.
func TestDrawingCritique(t *testing.T) {
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
	type finding struct {
		code, severity string
		handles        []string
		fix            map[string]any
	}
	critique := func(args map[string]any) ([]finding, float64) {
		t.Helper()
		r := tool("drawing_critique", args)
		var out []finding
		list, _ := r["findings"].([]any) // absent when there are none
		for _, x := range list {
			m := x.(map[string]any)
			f := finding{code: m["code"].(string), severity: m["severity"].(string)}
			for _, h := range m["handles"].([]any) {
				f.handles = append(f.handles, h.(string))
			}
			if fx, ok := m["fix"].(map[string]any); ok {
				f.fix = fx
			}
			out = append(out, f)
		}
		return out, r["score"].(float64)
	}

	bottom := line(0, 0, 120, 0)
	right := line(120.05, 0, 120, 80) // 0.05 off the bottom edge's end
	line(120, 80, 0, 80)
	left := line(0, 80, 0, 0)
	again := line(0, 0, 0, 80) // the left edge, drawn back up
	label := tool("entity_create_text", map[string]any{"x": x0 + 40, "y": y0 + 40, "text": "PLATE", "height": 5})["handle"].(string)
	strike := line(30, 42, 80, 42)

	found, score := critique(map[string]any{})
	got := map[string][]string{}
	for _, f := range found {
		got[f.code] = append(got[f.code], strings.Join(f.handles, "+"))
	}
	want := map[string][]string{
		"duplicate":    {again + "+" + left},
		"gap":          {right + "+" + bottom},
		"text_overlap": {label + "+" + strike},
	}
	if len(got) != len(want) {
		t.Errorf("findings %v, want %v", got, want)
	}
	for code, w := range want {
		if !slices.Equal(got[code], w) {
			t.Errorf("%s findings %v, want %v", code, got[code], w)
		}
	}
	// Errors first: the duplicate, then the warnings by code.
	if len(found) != 3 || found[0].code != "duplicate" || found[0].severity != "error" || found[1].code != "gap" || found[2].code != "text_overlap" {
		t.Errorf("findings in the order %v, want duplicate, gap, text_overlap", found)
	}
	if score != 100-10-3-3 {
		t.Errorf("score %v, want 84", score)
	}

	for _, f := range found {
		if f.fix != nil {
			tool(f.fix["tool"].(string), f.fix["args"].(map[string]any))
		}
	}
	after, better := critique(map[string]any{})
	if len(after) != 1 || after[0].code != "text_overlap" || better != 97 {
		t.Errorf("after the fixes: %v, score %v; want the text overlap alone, 97", after, better)
	}
	r := tool("entity_get", map[string]any{"handle": right})["start"].(map[string]any)
	if r["x"] != x0+120 || r["y"] != y0 {
		t.Errorf("the right edge starts at %v after the fix, want the bottom edge's end", r)
	}
	if geo, _ := critique(map[string]any{"focus": []any{"geometry"}}); len(geo) != 0 {
		t.Errorf("focus geometry after the fixes: %v", geo)
	}
}
