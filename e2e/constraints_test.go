package e2e_test

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
)

// consAnswer is a tools.call answer with an over_constrained error's
// conflicting constraints.
type consAnswer struct {
	OK       bool            `json:"ok"`
	Revision int64           `json:"revision"`
	Result   json.RawMessage `json:"result"`
	Error    *struct {
		Kind        string  `json:"kind"`
		Message     string  `json:"message"`
		Conflicting []int32 `json:"conflicting"`
	} `json:"error"`
}

// TestConstraintsSketch drives constraints through the built gateway and
// engine: a sloppy rectangle drawn and made exact by constraints added in
// one cad.batch (its lines bound by name), its driving width changed by one
// call (the rectangle resizes, stays closed, one revision), a conflicting
// constraint refused over_constrained naming the conflict and changing
// nothing, and a side moved by entity_move re-solved with its rectangle.
func TestConstraintsSketch(t *testing.T) {
	gateway, _ := startServices(t)
	c := &httpClient{url: "http://" + gateway + "/rpc"}
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, 1, "document.create", map[string]any{"name": "sketch"}, &doc)
	id := 10
	tool := func(name string, args map[string]any) consAnswer {
		t.Helper()
		id++
		var a consAnswer
		mustCall(t, c, id, "tools.call", map[string]any{"document_id": doc.DocumentID, "tool": name, "args": args}, &a)
		return a
	}
	ok := func(name string, args map[string]any) (consAnswer, map[string]any) {
		t.Helper()
		a := tool(name, args)
		if !a.OK {
			t.Fatalf("%s(%v) = %+v, want ok", name, args, a.Error)
		}
		var res map[string]any
		if err := json.Unmarshal(a.Result, &res); err != nil {
			t.Fatal(err)
		}
		return a, res
	}
	type info struct {
		Revision    int64  `json:"revision"`
		ContentHash string `json:"content_hash"`
	}
	get := func() info {
		t.Helper()
		id++
		var i info
		mustCall(t, c, id, "document.get", map[string]any{"document_id": doc.DocumentID}, &i)
		return i
	}
	ends := func(h string) [4]float64 {
		t.Helper()
		_, g := ok("entity_get", map[string]any{"handle": h})
		s, e := g["start"].(map[string]any), g["end"].(map[string]any)
		return [4]float64{s["x"].(float64), s["y"].(float64), e["x"].(float64), e["y"].(float64)}
	}
	sides := []string{"bottom", "right", "top", "left"}
	var h [4]string
	corners := func(w, ht float64) {
		t.Helper()
		want := [5][2]float64{{0, 0}, {w, 0}, {w, ht}, {0, ht}, {0, 0}}
		for i := range h {
			got := ends(h[i])
			if math.Abs(got[0]-want[i][0]) > 1e-9 || math.Abs(got[1]-want[i][1]) > 1e-9 || math.Abs(got[2]-want[i+1][0]) > 1e-9 || math.Abs(got[3]-want[i+1][1]) > 1e-9 {
				t.Errorf("%s side runs %v, want %v → %v", sides[i], got, want[i], want[i+1])
			}
		}
	}

	// Drawn by hand, roughly.
	sloppy := [4][4]float64{{0, 0, 119.7, 0.4}, {120.2, 0.3, 119.8, 80.6}, {120.1, 79.9, 0.2, 80.3}, {-0.3, 80.2, 0.1, 0.2}}
	var steps []map[string]any
	for i, l := range sloppy {
		steps = append(steps, map[string]any{"tool": "entity_create_line", "args": map[string]any{"x1": l[0], "y1": l[1], "x2": l[2], "y2": l[3]}, "bind": sides[i]})
	}
	add := func(kind string, value any, refs ...map[string]any) {
		args := map[string]any{"kind": kind, "refs": refs}
		if value != nil {
			args["value"] = value
		}
		steps = append(steps, map[string]any{"tool": "constraint_add", "args": args})
	}
	at := func(side string, point ...string) map[string]any {
		r := map[string]any{"handle": "$" + side}
		if len(point) > 0 {
			r["point"] = point[0]
		}
		return r
	}
	add("fixed", nil, at("bottom", "start")) // 1
	for i := range sides {                   // 2–5
		add("coincident", nil, at(sides[i], "end"), at(sides[(i+1)%4], "start"))
	}
	add("horizontal", nil, at("bottom"))                          // 6
	add("horizontal", nil, at("top"))                             // 7
	add("vertical", nil, at("right"))                             // 8
	add("vertical", nil, at("left"))                              // 9
	add("distance_x", 120, at("bottom"))                          // 10: the width
	add("distance_y", 80, at("left", "end"), at("left", "start")) // 11: the height
	id++
	var batch struct {
		Status   string            `json:"status"`
		Bindings map[string]string `json:"bindings"`
		Results  []struct {
			Status string          `json:"status"`
			Result json.RawMessage `json:"result"`
		} `json:"results"`
	}
	mustCall(t, c, id, "cad.batch", map[string]any{"document_id": doc.DocumentID, "steps": steps, "on_error": "rollback"}, &batch)
	if batch.Status != "completed" {
		t.Fatalf("the sketch batch = %+v", batch)
	}
	for i, s := range sides {
		h[i] = batch.Bindings[s]
	}
	var last struct {
		ConstraintID int    `json:"constraint_id"`
		Status       string `json:"status"`
		DOF          int    `json:"dof"`
	}
	if err := json.Unmarshal(batch.Results[len(batch.Results)-1].Result, &last); err != nil || last.ConstraintID != 11 || last.Status != "solved" || last.DOF != 0 {
		t.Errorf("the last constraint = %s, want 11 solved with 0 dof", batch.Results[len(batch.Results)-1].Result)
	}
	corners(120, 80)

	// The driving width changes: one call, one revision, still closed.
	before := get()
	a, res := ok("constraint_set_value", map[string]any{"constraint_id": 10, "value": 150})
	if a.Revision != before.Revision+1 || res["status"] != "solved" {
		t.Errorf("constraint_set_value: revision %d (want %d), %v", a.Revision, before.Revision+1, res)
	}
	corners(150, 80)

	// The top cannot run 100 back while the bottom runs 150.
	resized := get()
	refused := tool("constraint_add", map[string]any{"kind": "distance_x", "refs": []any{map[string]any{"handle": h[2]}}, "value": -100})
	if refused.OK || refused.Error.Kind != "over_constrained" || !slices.Equal(refused.Error.Conflicting, []int32{2, 3, 4, 5, 8, 9, 10, 12}) {
		t.Errorf("conflicting constraint_add = %+v, want over_constrained naming 2–5, 8, 9, 10 and 12", refused.Error)
	}
	if now := get(); now != resized {
		t.Errorf("the refused constraint changed the document: %+v → %+v", resized, now)
	}

	// Without its height, the rectangle follows its top up.
	ok("constraint_delete", map[string]any{"constraint_id": 11})
	ok("entity_move", map[string]any{"handle": h[2], "dx": 0, "dy": 20})
	corners(150, 100)
	_, res = ok("sketch_solve", map[string]any{"dry_run": true})
	if res["status"] != "under_constrained" || res["dof"] != 1.0 || res["moved"] != nil {
		t.Errorf("sketch_solve = %v, want under_constrained, 1 dof, nothing to move", res)
	}
	// And a move that would tear the fixed corner away is refused.
	moved := get()
	refused = tool("entity_move", map[string]any{"handle": h[0], "dx": 5, "dy": 0})
	if refused.OK || refused.Error.Kind != "over_constrained" || !slices.Contains(refused.Error.Conflicting, 1) {
		t.Errorf("moving the fixed bottom = %+v, want over_constrained naming constraint 1", refused.Error)
	}
	if now := get(); now != moved {
		t.Errorf("the refused move changed the document: %+v → %+v", moved, now)
	}
}
