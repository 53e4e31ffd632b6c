package engine_test

import (
	"math"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// TestHatchEdit: the pattern, scale and angle change, the loops stay;
// what is not a hatch, an unknown pattern and a scale too fine to draw
// are refused.
func TestHatchEdit(t *testing.T) {
	f := newFixture(t)
	c := f.handle("entity_create_circle", obj{"cx": 0, "cy": 0, "radius": 5})
	h := f.handle("hatch_create", obj{"boundaries": []any{c}, "pattern": "ANSI31"})
	before := f.get(h)["hatch"].(obj)
	f.ok("hatch_edit", obj{"handle": h, "pattern": "net", "scale": 2, "angle": -30})
	after := f.get(h)["hatch"].(obj)
	if after["pattern"] != "NET" || after["scale"] != 2.0 || after["angle"] != 330.0 || js(after["loops"]) != js(before["loops"]) {
		t.Errorf("after hatch_edit: %s, want NET at scale 2 and 330°, the loops of %s", js(after), js(before))
	}
	f.ok("hatch_edit", obj{"handle": h, "angle": 15})
	if after := f.get(h)["hatch"].(obj); after["pattern"] != "NET" || after["scale"] != 2.0 || after["angle"] != 15.0 {
		t.Errorf("an edit of the angle alone: %s", js(after))
	}
	f.fail("hatch_edit", obj{"handle": c, "scale": 2}, enginev1.ErrorKind_ERROR_KIND_FAILED)
	if e := f.fail("hatch_edit", obj{"handle": h, "pattern": "BRICKS"}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS); e.GetPath() != "/pattern" {
		t.Errorf("unknown pattern: %v, want /pattern", e)
	}
	if e := f.fail("hatch_edit", obj{"handle": h, "scale": 1e-12}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS); e.GetPath() != "/scale" {
		t.Errorf("a scale too fine: %v, want /scale", e)
	}
}

// TestHatchAddBoundary: a circle inside the hatch becomes an island (the
// area drops by its own), a circle crossing the boundary is refused and
// changes nothing.
func TestHatchAddBoundary(t *testing.T) {
	f := newFixture(t)
	outer := f.handle("entity_create_circle", obj{"cx": 0, "cy": 0, "radius": 5})
	inner := f.handle("entity_create_circle", obj{"cx": 1, "cy": 1, "radius": 1})
	crossing := f.handle("entity_create_circle", obj{"cx": 5, "cy": 0, "radius": 1})
	line := f.handle("entity_create_line", obj{"x1": 0, "y1": 0, "x2": 1, "y2": 0})
	h := f.handle("hatch_create", obj{"boundaries": []any{outer}})
	r := f.ok("hatch_add_boundary", obj{"handle": h, "boundaries": []any{inner}})
	if want := 24 * math.Pi; r["loops"] != 2.0 || math.Abs(r["area"].(float64)-want) > 1e-9 {
		t.Errorf("hatch_add_boundary = %s, want 2 loops and area 24π = %v", js(r), want)
	}
	before := f.info()
	f.fail("hatch_add_boundary", obj{"handle": h, "boundaries": []any{crossing}}, enginev1.ErrorKind_ERROR_KIND_FAILED)
	if e := f.fail("hatch_add_boundary", obj{"handle": h, "boundaries": []any{line}}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS); e.GetPath() != "/boundaries/0" {
		t.Errorf("an open boundary: %v, want /boundaries/0", e)
	}
	if after := f.info(); after.ContentHash != before.ContentHash {
		t.Error("a refused hatch_add_boundary changed the document")
	}
}

// dims reads the dimensions of a dimension_auto result: measurement, p1,
// offset and angle of each.
func dims(f *fixture, r obj) []obj {
	var out []obj
	for _, h := range r["handles"].([]any) {
		out = append(out, f.get(h.(string))["dimension"].(obj))
	}
	return out
}

// TestDimensionAuto: a 40 × 20 plate with a hole at (10, 10) gets a chain
// 10, 30 along x below it and 10, 10 along y left of it, each bound to
// its points (the plate moves, they follow); a baseline measures from
// the first station, each line 2 text heights further out.
func TestDimensionAuto(t *testing.T) {
	f := newFixture(t)
	plate := f.handle("entity_create_rectangle", obj{"x1": 0, "y1": 0, "x2": 40, "y2": 20})
	hole := f.handle("entity_create_circle", obj{"cx": 10, "cy": 10, "radius": 3})
	r := f.ok("dimension_auto", obj{"handles": []any{plate, hole}})
	type want struct{ m, x1, y1, offset, angle float64 }
	check := func(what string, got []obj, wants []want) {
		t.Helper()
		if len(got) != len(wants) {
			t.Fatalf("%s: %d dimensions, want %d", what, len(got), len(wants))
		}
		for i, w := range wants {
			g := got[i]
			p := g["p1"].(obj)
			if g["measurement"] != w.m || p["x"] != w.x1 || p["y"] != w.y1 || g["offset"] != w.offset || g["angle"] != w.angle || len(g["bindings"].([]any)) != 2 {
				t.Errorf("%s %d: %s, want %+v, bound at both ends", what, i, js(g), w)
			}
		}
	}
	// ISO-25: text 2.5, so 10 out by default; the lines at y = -10 and x = -10.
	check("chain", dims(f, r), []want{{10, 0, 0, -10, 0}, {30, 10, 10, -20, 0}, {10, 0, 0, 10, 90}, {10, 10, 10, 20, 90}})

	r = f.ok("dimension_auto", obj{"handles": []any{plate, hole}, "run": "baseline", "direction": "horizontal", "offset": 4})
	check("baseline", dims(f, r), []want{{10, 0, 0, -4, 0}, {40, 0, 0, -9, 0}})

	f.ok("entity_move", obj{"handle": hole, "dx": 5, "dy": 0})
	if d := dims(f, r); d[0]["measurement"] != 15.0 {
		t.Errorf("after the hole moved 5 along x: %s, want 15", js(d[0]))
	}
	dot := f.handle("entity_create_point", obj{"x": 3, "y": 3})
	f.fail("dimension_auto", obj{"handles": []any{dot}}, enginev1.ErrorKind_ERROR_KIND_FAILED)
}
