package engine_test

import (
	"math"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// measured is what the dimension h measures now.
func (f *fixture) measured(h string) float64 {
	f.t.Helper()
	return f.get(h)["dimension"].(obj)["measurement"].(float64)
}

// anchor is a dimension anchor on an entity's snap, the candidate nearest
// (x, y).
func anchor(h, snap string, x, y float64) obj {
	return obj{"handle": h, "snap": snap, "x": x, "y": y}
}

// TestDrivingDimensionLinear: a driving horizontal dimension on the
// rectangle's bottom sizes it, shows its constraint's value, follows
// constraint_set_value, refuses deletion while it drives, and is an
// ordinary dimension once its constraint is deleted.
func TestDrivingDimensionLinear(t *testing.T) {
	f := newFixture(t)
	s := f.sloppyRectangle(true)
	// Drop the width constraint (10): the dimension drives it instead.
	f.ok(enginev1.ToolConstraintDelete, obj{"constraint_id": 10})
	dim := f.ok(enginev1.ToolDimensionCreateLinear, obj{
		"p1": anchor(s[0], "end", 0, 0), "p2": anchor(s[0], "end", 120, 0), "angle": 0, "offset": -10,
		"driving": true, "value": 140,
	})
	if dim["constraint_id"] != 12.0 || !closeTo(dim["measurement"].(float64), 140) || dim["text"] != "140" {
		t.Errorf("driving dimension_create_linear = %s, want constraint 12, measuring 140", js(dim))
	}
	f.corners(s, 140, 80)
	list := f.ok(enginev1.ToolConstraintList, obj{"handle": s[0]})["constraints"].([]any)
	last := list[len(list)-1].(obj)
	if last["kind"] != "distance_x" || last["value"] != 140.0 || js(last["refs"]) != js([]obj{ref(s[0], "start"), ref(s[0], "end")}) || last["dimension"] != dim["handle"] {
		t.Errorf("the driving dimension's constraint = %s, want distance_x 140 from the bottom's start to its end, shown by %v", js(last), dim["handle"])
	}
	if res := f.ok(enginev1.ToolSketchSolve, obj{"dry_run": true}); res["status"] != "solved" || res["dof"] != 0.0 {
		t.Errorf("sketch_solve = %s, want solved, 0 dof", js(res))
	}

	// constraint_set_value moves the geometry; the dimension follows.
	h := dim["handle"].(string)
	f.ok(enginev1.ToolConstraintSetValue, obj{"constraint_id": 12, "value": 100})
	f.corners(s, 100, 80)
	if got := f.measured(h); !closeTo(got, 100) {
		t.Errorf("the dimension measures %v after the value became 100, want 100", got)
	}

	// Deleting a driving dimension is refused, as for every constrained
	// entity; deleting its constraint leaves an ordinary dimension.
	f.fail(enginev1.ToolEntityDelete, obj{"handle": h}, enginev1.ErrorKind_ERROR_KIND_REFUSED)
	res := f.ok(enginev1.ToolConstraintDelete, obj{"constraint_id": 12})
	if res["status"] != "under_constrained" || res["dof"] != 1.0 {
		t.Errorf("constraint_delete of the driving one = %s, want under_constrained, 1 dof", js(res))
	}
	f.ok(enginev1.ToolEntityMove, obj{"handle": s[1], "dx": 10, "dy": 0})
	if got := f.measured(h); !closeTo(got, 110) {
		t.Errorf("the ordinary dimension measures %v after the right side moved 10, want 110 (it follows)", got)
	}
	f.ok(enginev1.ToolEntityDelete, obj{"handle": h})
	if list := f.ok(enginev1.ToolConstraintList, obj{})["constraints"].([]any); len(list) != 10 {
		t.Errorf("%d constraints after the ordinary dimension was deleted, want 10", len(list))
	}
}

// TestDrivingDimensionUndo: one document_undo takes back the driving
// dimension, its constraint and what its value moved.
func TestDrivingDimensionUndo(t *testing.T) {
	f := newFixture(t)
	s := f.sloppyRectangle(true)
	f.ok(enginev1.ToolConstraintDelete, obj{"constraint_id": 11})
	f.corners(s, 120, 80)
	before := f.info()
	dim := f.ok(enginev1.ToolDimensionCreateAligned, obj{"p1": anchor(s[1], "end", 120, 0), "p2": anchor(s[1], "end", 120, 80), "driving": true, "value": 50})
	f.corners(s, 120, 50)
	if got := f.info(); got.Revision != before.Revision+1 {
		t.Errorf("revision %d after a driving dimension, want %d (one)", got.Revision, before.Revision+1)
	}
	f.ok(enginev1.ToolDocumentUndo, obj{})
	f.corners(s, 120, 80)
	if got := f.info(); got.ContentHash != before.ContentHash {
		t.Errorf("document_undo left the document unlike before the driving dimension")
	}
	if list := f.ok(enginev1.ToolConstraintList, obj{})["constraints"].([]any); len(list) != 10 {
		t.Errorf("%d constraints after the undo, want 10", len(list))
	}
	f.fail(enginev1.ToolEntityGet, obj{"handle": dim["handle"]}, enginev1.ErrorKind_ERROR_KIND_FAILED)
}

// TestDrivingDimensionKinds makes each kind of dimension driving, with a
// value, and checks the geometry it moves against the value.
func TestDrivingDimensionKinds(t *testing.T) {
	line := func(f *fixture, x1, y1, x2, y2 float64) string {
		return f.handle(enginev1.ToolEntityCreateLine, obj{"x1": x1, "y1": y1, "x2": x2, "y2": y2})
	}
	t.Run("aligned", func(t *testing.T) {
		f := newFixture(t)
		l := line(f, 0, 0, 30, 40) // 50 long
		f.constrain("fixed", nil, ref(l, "start"))
		dim := f.ok(enginev1.ToolDimensionCreateAligned, obj{"p1": anchor(l, "end", 0, 0), "p2": anchor(l, "end", 30, 40), "driving": true, "value": 100})
		if _, b := f.ends(l); !closePt(b, [2]float64{60, 80}) {
			t.Errorf("the line ends at %v, want (60, 80): 100 long, its direction kept", b)
		}
		if !closeTo(dim["measurement"].(float64), 100) || dim["constraint_id"] == nil {
			t.Errorf("dimension = %s, want measuring 100 with a constraint", js(dim))
		}
	})
	t.Run("linear vertical, no value", func(t *testing.T) {
		f := newFixture(t)
		l := line(f, 5, 0, 5, -30) // drawn downwards
		dim := f.ok(enginev1.ToolDimensionCreateLinear, obj{"p1": anchor(l, "end", 5, 0), "p2": anchor(l, "end", 5, -30), "angle": 90, "driving": true})
		id := dim["constraint_id"]
		c := f.ok(enginev1.ToolConstraintList, obj{})["constraints"].([]any)[0].(obj)
		if c["constraint_id"] != id || c["kind"] != "distance_y" || c["value"] != 30.0 || js(c["refs"]) != js([]obj{ref(l, "end"), ref(l, "start")}) {
			t.Errorf("constraint = %s, want distance_y 30 from the lower end up", js(c))
		}
		f.ok(enginev1.ToolConstraintSetValue, obj{"constraint_id": id, "value": 45})
		a, b := f.ends(l)
		if !closeTo(a[1]-b[1], 45) {
			t.Errorf("the line runs %v → %v, want 45 high", a, b)
		}
		if got := f.measured(dim["handle"].(string)); !closeTo(got, 45) {
			t.Errorf("the dimension measures %v, want 45", got)
		}
	})
	t.Run("radial", func(t *testing.T) {
		f := newFixture(t)
		c := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 10, "cy": 10, "radius": 5})
		dim := f.ok(enginev1.ToolDimensionCreateRadial, obj{"handle": c, "driving": true, "value": 8})
		if g := f.get(c); g["radius"] != 8.0 || !closePt(pt(g["center"]), [2]float64{10, 10}) {
			t.Errorf("the circle is %s, want radius 8 about (10, 10)", js(g))
		}
		if dim["text"] != "R8" || dim["constraint_id"] == nil {
			t.Errorf("dimension = %s, want R8 with a constraint", js(dim))
		}
	})
	t.Run("diametric", func(t *testing.T) {
		f := newFixture(t)
		a := f.handle(enginev1.ToolEntityCreateArc, obj{"cx": 0, "cy": 0, "radius": 5, "start_angle": 0, "end_angle": 90})
		f.ok(enginev1.ToolDimensionCreateDiametric, obj{"handle": a, "driving": true, "value": 30})
		if g := f.get(a); !closeTo(g["radius"].(float64), 15) {
			t.Errorf("the arc is %s, want radius 15", js(g))
		}
		c := f.ok(enginev1.ToolConstraintList, obj{})["constraints"].([]any)[0].(obj)
		if c["kind"] != "diameter" || c["value"] != 30.0 {
			t.Errorf("constraint = %s, want diameter 30", js(c))
		}
	})
	t.Run("angular", func(t *testing.T) {
		f := newFixture(t)
		l1 := line(f, 0, 0, 50, 0)
		l2 := line(f, 0, 0, 40, 30)
		f.constrain("fixed", nil, ref(l1))
		f.constrain("coincident", nil, ref(l1, "start"), ref(l2, "start"))
		f.constrain("distance", 50, ref(l2))
		dim := f.ok(enginev1.ToolDimensionCreateAngular, obj{"line1": l1, "line2": l2, "driving": true, "value": 60})
		if !closeTo(dim["measurement"].(float64), 60) {
			t.Errorf("dimension = %s, want measuring 60°", js(dim))
		}
		if _, b := f.ends(l2); !closePt(b, [2]float64{25, 25 * math.Sqrt(3)}) {
			t.Errorf("the second line ends at %v, want (25, 43.3): 50 long at 60°", b)
		}
		if res := f.ok(enginev1.ToolSketchSolve, obj{"dry_run": true}); res["status"] != "solved" {
			t.Errorf("sketch_solve = %s, want solved", js(res))
		}
	})
}

// TestDrivingDimensionRefusals: a driving dimension needs its points on
// entities, a value needs driving, and one that cannot hold changes
// nothing.
func TestDrivingDimensionRefusals(t *testing.T) {
	f := newFixture(t)
	s := f.sloppyRectangle(true)
	before := f.info()
	e := f.fail(enginev1.ToolDimensionCreateAligned, obj{"p1": anchor(s[0], "end", 0, 0), "p2": obj{"x": 50, "y": 50}, "driving": true}, kindInvalid)
	if e.GetPath() != "/p2" {
		t.Errorf("a free point: error at %q, want /p2", e.GetPath())
	}
	e = f.fail(enginev1.ToolDimensionCreateAligned, obj{"p1": anchor(s[0], "end", 0, 0), "p2": anchor(s[0], "end", 120, 0), "value": 3}, kindInvalid)
	if e.GetPath() != "/value" {
		t.Errorf("a value without driving: error at %q, want /value", e.GetPath())
	}
	e = f.fail(enginev1.ToolDimensionCreateAngular, obj{"center": anchor(s[0], "end", 0, 0), "p1": obj{"x": 1, "y": 0}, "p2": obj{"x": 0, "y": 1}, "driving": true}, kindInvalid)
	if e.GetPath() != "/line1" {
		t.Errorf("an angle by points: error at %q, want /line1", e.GetPath())
	}
	// The width is already 120 by constraint 10: 130 cannot hold.
	e = f.fail(enginev1.ToolDimensionCreateLinear, obj{"p1": anchor(s[0], "end", 0, 0), "p2": anchor(s[0], "end", 120, 0), "angle": 0, "driving": true, "value": 130}, enginev1.ErrorKind_ERROR_KIND_OVER_CONSTRAINED)
	if len(e.GetConflicting()) == 0 {
		t.Errorf("over_constrained names no constraints")
	}
	if got := f.info(); got.Revision != before.Revision || got.ContentHash != before.ContentHash {
		t.Errorf("a refused driving dimension changed the document")
	}
}
