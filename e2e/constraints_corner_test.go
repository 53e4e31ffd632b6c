package e2e_test

import (
	"math"
	"testing"
)

// TestConstraintsTangentCorner rounds a corner through the built gateway
// and engine: an arc drawn roughly between a fixed bottom and a loose
// vertical side, made tangent to both with its ends on them, comes out
// centred at (50, 10) with radius 10, and the side moves onto it.
func TestConstraintsTangentCorner(t *testing.T) {
	gateway, _ := startServices(t)
	d := &drafter{t: t, c: &httpClient{url: "http://" + gateway + "/rpc"}}
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, d.c, 1, "document.create", map[string]any{"name": "corner"}, &doc)
	d.doc, d.id = doc.DocumentID, 1

	bottom := d.ok("entity_create_line", map[string]any{"x1": 0, "y1": 0, "x2": 50, "y2": 0})["handle"]
	side := d.ok("entity_create_line", map[string]any{"x1": 60.4, "y1": 10.5, "x2": 60, "y2": 50})["handle"]
	arc := d.ok("entity_create_arc", map[string]any{"cx": 49, "cy": 11, "radius": 9.5, "start_angle": 265, "end_angle": 5})["handle"]
	ref := func(h any, point ...string) map[string]any {
		r := map[string]any{"handle": h}
		if len(point) > 0 {
			r["point"] = point[0]
		}
		return r
	}
	constrain := func(kind string, refs ...map[string]any) map[string]any {
		return d.ok("constraint_add", map[string]any{"kind": kind, "refs": refs})
	}
	constrain("fixed", ref(bottom))
	constrain("fixed", ref(side, "end"))
	constrain("vertical", ref(side))
	constrain("coincident", ref(bottom, "end"), ref(arc, "start"))
	constrain("coincident", ref(arc, "end"), ref(side, "start"))
	constrain("tangent", ref(bottom), ref(arc))
	if res := constrain("tangent", ref(arc), ref(side)); res["status"] != "solved" || res["dof"] != 0.0 {
		t.Errorf("the corner = %v, want solved with 0 dof", res)
	}
	g := d.ok("entity_get", map[string]any{"handle": arc})
	c := g["center"].(map[string]any)
	if near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }; !near(c["x"].(float64), 50) || !near(c["y"].(float64), 10) || !near(g["radius"].(float64), 10) {
		t.Errorf("arc = %v, want centre (50, 10), radius 10", g)
	}
	s := d.ok("entity_get", map[string]any{"handle": side})["start"].(map[string]any)
	if math.Abs(s["x"].(float64)-60) > 1e-9 || math.Abs(s["y"].(float64)-10) > 1e-9 {
		t.Errorf("the side starts at %v, want (60, 10): on the arc's end", s)
	}
}
