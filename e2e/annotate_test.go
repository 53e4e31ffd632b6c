package e2e_test

import (
	"math"
	"testing"
)

// TestAnnotate drives the hatch edits and dimension_auto through the
// built gateway and engine over HTTP: a plate hatched, a hole added to
// the hatch as an island, its pattern changed, and the plate dimensioned
// at once.
func TestAnnotate(t *testing.T) {
	gateway, _ := startServices(t)
	d := &drafter{t: t, c: &httpClient{url: "http://" + gateway + "/rpc"}}
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, d.c, 1, "document.create", map[string]any{"name": "annotate"}, &doc)
	d.doc, d.id = doc.DocumentID, 1

	plate := d.ok("entity_create_rectangle", map[string]any{"x1": 0, "y1": 0, "x2": 40, "y2": 20})["handle"]
	hole := d.ok("entity_create_circle", map[string]any{"cx": 10, "cy": 10, "radius": 3})["handle"]
	hatch := d.ok("hatch_create", map[string]any{"boundaries": []any{plate}, "pattern": "ANSI31"})["handle"]
	add := d.ok("hatch_add_boundary", map[string]any{"handle": hatch, "boundaries": []any{hole}})
	if want := 800 - 9*math.Pi; add["loops"] != 2.0 || math.Abs(add["area"].(float64)-want) > 1e-9 {
		t.Errorf("hatch_add_boundary = %v, want 2 loops and area 800 − 9π", add)
	}
	d.ok("hatch_edit", map[string]any{"handle": hatch, "pattern": "ANSI37", "scale": 2})
	if h := d.ok("entity_get", map[string]any{"handle": hatch})["hatch"].(map[string]any); h["pattern"] != "ANSI37" || h["scale"] != 2.0 {
		t.Errorf("the hatch after hatch_edit: %v", h)
	}
	dims := d.ok("dimension_auto", map[string]any{"handles": []any{plate, hole}})
	var got []float64
	for _, h := range strs(dims["handles"]) {
		got = append(got, d.ok("entity_get", map[string]any{"handle": h})["dimension"].(map[string]any)["measurement"].(float64))
	}
	if want := []float64{10, 30, 10, 10}; len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
		t.Errorf("dimension_auto measured %v, want %v (x: to the hole, to the far side; y: to the hole, to the top)", got, want)
	}
	if bad := d.call("hatch_edit", map[string]any{"handle": hole, "scale": 2}); bad.OK || bad.Error.Kind != "failed" {
		t.Errorf("hatch_edit of a circle = %+v, want failed", bad)
	}
}
