package engine_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store/sqlite"
)

// ref is a constraint ref: a handle and, optionally, a point.
func ref(h string, point ...string) obj {
	if len(point) == 0 {
		return obj{"handle": h}
	}
	return obj{"handle": h, "point": point[0]}
}

// constrain adds a constraint that must hold and returns its result.
func (f *fixture) constrain(kind string, value any, refs ...obj) obj {
	f.t.Helper()
	args := obj{"kind": kind, "refs": refs}
	if value != nil {
		args["value"] = value
	}
	return f.ok(enginev1.ToolConstraintAdd, args)
}

// ends are a line's start and end.
func (f *fixture) ends(h string) (a, b [2]float64) {
	f.t.Helper()
	g := f.get(h)
	return pt(g["start"]), pt(g["end"])
}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-9 }

func closePt(a, b [2]float64) bool { return closeTo(a[0], b[0]) && closeTo(a[1], b[1]) }

// sloppyRectangle draws four lines that nearly make a 120 × 80
// rectangle and constrains them into one: the bottom-left corner fixed
// at the origin (1), corners coincident (2–5), bottom and top horizontal
// (6, 7), right and left vertical (8, 9), the width (10) and, with
// height, the height (11). It returns the lines bottom, right, top, left.
func (f *fixture) sloppyRectangle(height bool) [4]string {
	f.t.Helper()
	line := func(x1, y1, x2, y2 float64) string {
		return f.handle(enginev1.ToolEntityCreateLine, obj{"x1": x1, "y1": y1, "x2": x2, "y2": y2})
	}
	s := [4]string{line(0, 0, 119.7, 0.4), line(120.2, 0.3, 119.8, 80.6), line(120.1, 79.9, 0.2, 80.3), line(-0.3, 80.2, 0.1, 0.2)}
	f.constrain("fixed", nil, ref(s[0], "start"))
	for i := range s {
		f.constrain("coincident", nil, ref(s[i], "end"), ref(s[(i+1)%4], "start"))
	}
	f.constrain("horizontal", nil, ref(s[0]))
	f.constrain("horizontal", nil, ref(s[2]))
	f.constrain("vertical", nil, ref(s[1]))
	f.constrain("vertical", nil, ref(s[3]))
	f.constrain("distance_x", 120, ref(s[0]))
	if height {
		f.constrain("distance_y", 80, ref(s[1], "start"), ref(s[1], "end"))
	}
	return s
}

// corners checks the rectangle's lines run round the rectangle from
// (0, 0) w wide and h high, each end on the next line's start (closed).
func (f *fixture) corners(s [4]string, w, h float64) {
	f.t.Helper()
	want := [5][2]float64{{0, 0}, {w, 0}, {w, h}, {0, h}, {0, 0}}
	for i, l := range s {
		a, b := f.ends(l)
		if !closePt(a, want[i]) || !closePt(b, want[i+1]) {
			f.t.Errorf("side %d (%s) runs %v → %v, want %v → %v", i, l, a, b, want[i], want[i+1])
		}
	}
}

func TestConstraintSloppyRectangle(t *testing.T) {
	f := newFixture(t)
	s := f.sloppyRectangle(false)
	drawn := f.info()
	res := f.ok(enginev1.ToolSketchSolve, obj{"dry_run": true})
	if res["status"] != "under_constrained" || res["dof"] != 1.0 || res["moved"] != nil {
		t.Errorf("sketch_solve before the height = %s, want under_constrained, 1 dof, nothing moved", js(res))
	}
	if got := f.info(); got.Revision != drawn.Revision || got.ContentHash != drawn.ContentHash {
		t.Errorf("a dry sketch_solve changed the document: revision %d → %d", drawn.Revision, got.Revision)
	}
	res = f.constrain("distance_y", 80, ref(s[1], "start"), ref(s[1], "end"))
	if res["status"] != "solved" || res["dof"] != 0.0 || res["constraint_id"] != 11.0 {
		t.Errorf("the height = %s, want constraint 11 solved, 0 dof", js(res))
	}
	f.corners(s, 120, 80)

	// The driving value changes: the rectangle resizes in one revision,
	// closed, the left side where it was.
	before, left := f.info().Revision, f.get(s[3])["fingerprint"]
	res = f.ok(enginev1.ToolConstraintSetValue, obj{"constraint_id": 10, "value": 150})
	if res["status"] != "solved" || js(res["moved"]) != js([]any{s[0], s[1], s[2]}) {
		t.Errorf("constraint_set_value = %s, want solved, bottom, right and top moved", js(res))
	}
	f.corners(s, 150, 80)
	if got := f.info().Revision; got != before+1 {
		t.Errorf("revision %d after the width changed, want %d (one)", got, before+1)
	}
	if got := f.get(s[3])["fingerprint"]; got != left {
		t.Errorf("the left side changed: %v, was %v", got, left)
	}
	list := f.ok(enginev1.ToolConstraintList, obj{"handle": s[3]})
	var ids []float64
	for _, c := range list["constraints"].([]any) {
		ids = append(ids, c.(obj)["constraint_id"].(float64))
	}
	if !slices.Equal(ids, []float64{4, 5, 9}) {
		t.Errorf("constraint_list of the left side = %v, want 4, 5, 9", ids)
	}
}

func TestConstraintOverConstrained(t *testing.T) {
	f := newFixture(t)
	s := f.sloppyRectangle(true)
	before := f.info()
	// The top's run is the width the other way: -120, not -100.
	te := f.fail(enginev1.ToolConstraintAdd, obj{"kind": "distance_x", "refs": []obj{ref(s[2])}, "value": -100}, enginev1.ErrorKind_ERROR_KIND_OVER_CONSTRAINED)
	if want := []int32{2, 3, 4, 5, 8, 9, 10, 12}; !slices.Equal(te.Conflicting, want) {
		t.Errorf("conflicting = %v, want %v (the corners, the verticals, the width and the new one)", te.Conflicting, want)
	}
	after := f.info()
	if after.Revision != before.Revision || after.ContentHash != before.ContentHash {
		t.Errorf("a refused constraint changed the document: revision %d → %d, hash %s → %s", before.Revision, after.Revision, before.ContentHash, after.ContentHash)
	}
	f.corners(s, 120, 80)

	// A circle cannot have two radii.
	c := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 4})
	r := f.constrain("radius", 5, ref(c))["constraint_id"].(float64)
	te = f.fail(enginev1.ToolConstraintAdd, obj{"kind": "diameter", "refs": []obj{ref(c)}, "value": 12}, enginev1.ErrorKind_ERROR_KIND_OVER_CONSTRAINED)
	if !slices.Equal(te.Conflicting, []int32{int32(r), int32(r) + 1}) {
		t.Errorf("conflicting = %v, want [%v %v]", te.Conflicting, r, r+1)
	}
	if g := f.get(c); g["radius"] != 5.0 {
		t.Errorf("radius %v, want 5", g["radius"])
	}
	// Nor can a driving value break its sketch.
	f.fail(enginev1.ToolConstraintSetValue, obj{"constraint_id": r, "value": -1}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
}

func TestConstraintUnderConstrained(t *testing.T) {
	f := newFixture(t)
	l := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 1})
	res := f.constrain("horizontal", nil, ref(l))
	if res["status"] != "under_constrained" || res["dof"] != 3.0 {
		t.Errorf("a horizontal line = %s, want under_constrained with 3 dof", js(res))
	}
	a, b := f.ends(l)
	if !closeTo(a[1], b[1]) || !closeTo(a[1], 0.5) {
		t.Errorf("the line runs %v → %v: want it level, at the least move (y = 0.5)", a, b)
	}
	c := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 4})
	res = f.constrain("radius", 5, ref(c))
	if res["status"] != "under_constrained" || res["dof"] != 2.0 {
		t.Errorf("a circle of fixed radius = %s, want its sketch under_constrained with 2 dof", js(res))
	}
	if res = f.ok(enginev1.ToolSketchSolve, obj{"dry_run": true}); res["dof"] != 5.0 {
		t.Errorf("sketch_solve = %s, want the document's 3 + 2 dof", js(res))
	}
}

// TestConstraintTangentCorner rounds a corner with an arc drawn roughly:
// tangent to the bottom (fixed) and to a vertical side, its ends on both.
func TestConstraintTangentCorner(t *testing.T) {
	f := newFixture(t)
	bottom := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 50, "y2": 0})
	side := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 60.4, "y1": 10.5, "x2": 60, "y2": 50})
	arc := f.handle(enginev1.ToolEntityCreateArc, obj{"cx": 49, "cy": 11, "radius": 9.5, "start_angle": 265, "end_angle": 5})
	f.constrain("fixed", nil, ref(bottom))
	f.constrain("fixed", nil, ref(side, "end"))
	f.constrain("vertical", nil, ref(side))
	f.constrain("coincident", nil, ref(bottom, "end"), ref(arc, "start"))
	f.constrain("coincident", nil, ref(arc, "end"), ref(side, "start"))
	f.constrain("tangent", nil, ref(bottom), ref(arc))
	res := f.constrain("tangent", nil, ref(arc), ref(side))
	if res["status"] != "solved" || res["dof"] != 0.0 {
		t.Errorf("the corner = %s, want solved, 0 dof", js(res))
	}
	g := f.get(arc)
	if !closePt(pt(g["center"]), [2]float64{50, 10}) || !closeTo(g["radius"].(float64), 10) ||
		!closeTo(g["start_angle"].(float64), 270) || !closeTo(math.Mod(g["end_angle"].(float64)+180, 360), 180) {
		t.Errorf("arc = %s, want center (50, 10), radius 10, from 270° to 0°", js(g))
	}
	if a, b := f.ends(side); !closePt(a, [2]float64{60, 10}) || !closePt(b, [2]float64{60, 50}) {
		t.Errorf("side runs %v → %v, want (60, 10) → (60, 50)", a, b)
	}
}

// TestConstraintKinds checks each kind against geometry it must make.
func TestConstraintKinds(t *testing.T) {
	type geo struct{ f *fixture }
	line := func(f *fixture, x1, y1, x2, y2 float64) string {
		return f.handle(enginev1.ToolEntityCreateLine, obj{"x1": x1, "y1": y1, "x2": x2, "y2": y2})
	}
	circle := func(f *fixture, cx, cy, r float64) string {
		return f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": cx, "cy": cy, "radius": r})
	}
	dir := func(f *fixture, h string) [2]float64 {
		a, b := f.ends(h)
		d := [2]float64{b[0] - a[0], b[1] - a[1]}
		n := math.Hypot(d[0], d[1])
		return [2]float64{d[0] / n, d[1] / n}
	}
	length := func(f *fixture, h string) float64 {
		a, b := f.ends(h)
		return math.Hypot(b[0]-a[0], b[1]-a[1])
	}
	cases := []struct {
		kind string
		run  func(f *fixture) (ok bool, got any)
	}{
		{"parallel", func(f *fixture) (bool, any) {
			a, b := line(f, 0, 0, 10, 1), line(f, 0, 5, 10, 7)
			f.constrain("parallel", nil, ref(a), ref(b))
			da, db := dir(f, a), dir(f, b)
			return closeTo(da[0]*db[1]-da[1]*db[0], 0), [2]any{da, db}
		}},
		{"perpendicular", func(f *fixture) (bool, any) {
			a, b := line(f, 0, 0, 10, 1), line(f, 5, 0, 6, 9)
			f.constrain("perpendicular", nil, ref(a), ref(b))
			da, db := dir(f, a), dir(f, b)
			return closeTo(da[0]*db[0]+da[1]*db[1], 0), [2]any{da, db}
		}},
		{"equal lines", func(f *fixture) (bool, any) {
			a, b := line(f, 0, 0, 10, 0), line(f, 0, 5, 7, 5)
			f.constrain("equal", nil, ref(a), ref(b))
			return closeTo(length(f, a), length(f, b)), [2]float64{length(f, a), length(f, b)}
		}},
		{"equal circles, concentric", func(f *fixture) (bool, any) {
			a, b := circle(f, 0, 0, 3), circle(f, 1, 1, 5)
			f.constrain("equal", nil, ref(a), ref(b))
			f.constrain("concentric", nil, ref(a), ref(b))
			ga, gb := f.get(a), f.get(b)
			return closeTo(ga["radius"].(float64), gb["radius"].(float64)) && closePt(pt(ga["center"]), pt(gb["center"])), [2]any{ga, gb}
		}},
		{"point_on a line, a circle", func(f *fixture) (bool, any) {
			a, c := line(f, 0, 0, 10, 0), circle(f, 20, 0, 5)
			p := f.handle(enginev1.ToolEntityCreatePoint, obj{"x": 4, "y": 2})
			f.constrain("point_on", nil, ref(p), ref(a))
			b := line(f, 20, 0, 26, 1)
			f.constrain("point_on", nil, ref(b, "end"), ref(c))
			q := pt(f.get(p)["location"])
			s, d := f.ends(a)
			_, e := f.ends(b)
			cc := pt(f.get(c)["center"])
			u := [2]float64{d[0] - s[0], d[1] - s[1]}
			return closeTo((u[0]*(q[1]-s[1])-u[1]*(q[0]-s[0]))/math.Hypot(u[0], u[1]), 0) && closeTo(math.Hypot(e[0]-cc[0], e[1]-cc[1]), f.get(c)["radius"].(float64)), [2]any{q, e}
		}},
		{"midpoint", func(f *fixture) (bool, any) {
			a := line(f, 0, 0, 10, 0)
			p := f.handle(enginev1.ToolEntityCreatePoint, obj{"x": 4, "y": 2})
			f.constrain("midpoint", nil, ref(p), ref(a))
			s, e := f.ends(a)
			q := pt(f.get(p)["location"])
			return closePt(q, [2]float64{(s[0] + e[0]) / 2, (s[1] + e[1]) / 2}), q
		}},
		{"symmetric", func(f *fixture) (bool, any) {
			axis := line(f, 0, 0, 0, 10)
			f.constrain("fixed", nil, ref(axis))
			a := line(f, -3, 1, 4, 2)
			f.constrain("symmetric", nil, ref(a, "start"), ref(a, "end"), ref(axis))
			s, e := f.ends(a)
			return closeTo(s[0], -e[0]) && closeTo(s[1], e[1]), [2]any{s, e}
		}},
		{"distance, point to line", func(f *fixture) (bool, any) {
			a := line(f, 0, 0, 10, 0)
			f.constrain("fixed", nil, ref(a))
			p := f.handle(enginev1.ToolEntityCreatePoint, obj{"x": 4, "y": 2})
			f.constrain("distance", 7, ref(p), ref(a))
			q := pt(f.get(p)["location"])
			return closeTo(math.Abs(q[1]), 7), q
		}},
		{"distance between points, default value", func(f *fixture) (bool, any) {
			a := line(f, 0, 0, 3, 4)
			res := f.ok(enginev1.ToolConstraintAdd, obj{"kind": "distance", "refs": []obj{ref(a, "start"), ref(a, "end")}})
			list := f.ok(enginev1.ToolConstraintList, obj{"handle": a})["constraints"].([]any)
			v := list[0].(obj)["value"]
			return v == 5.0 && res["moved"] == nil, v
		}},
		{"angle", func(f *fixture) (bool, any) {
			a, b := line(f, 0, 0, 10, 0), line(f, 0, 0, 5, 6)
			f.constrain("fixed", nil, ref(a))
			f.constrain("angle", 30, ref(a), ref(b))
			d := dir(f, b)
			return closeTo(math.Atan2(d[1], d[0])*180/math.Pi, 30), d
		}},
		{"radius, diameter", func(f *fixture) (bool, any) {
			a, b := circle(f, 0, 0, 3), circle(f, 9, 0, 3)
			f.constrain("radius", 4.5, ref(a))
			f.constrain("diameter", 5, ref(b))
			return f.get(a)["radius"] == 4.5 && f.get(b)["radius"] == 2.5, [2]any{f.get(a)["radius"], f.get(b)["radius"]}
		}},
		{"polyline vertices", func(f *fixture) (bool, any) {
			p := f.handle(enginev1.ToolEntityCreatePolyline, obj{"points": []obj{{"x": 0, "y": 0}, {"x": 10, "y": 0.5}, {"x": 10.5, "y": 8}}})
			f.constrain("horizontal", nil, ref(p, "vertex:0"), ref(p, "vertex:1"))
			f.constrain("vertical", nil, ref(p, "vertex:1"), ref(p, "vertex:2"))
			pts := f.get(p)["points"].([]any)
			v0, v1, v2 := pt(pts[0]), pt(pts[1]), pt(pts[2])
			return closeTo(v0[1], v1[1]) && closeTo(v1[0], v2[0]), pts
		}},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			f := newFixture(t)
			if ok, got := c.run(f); !ok {
				t.Errorf("%s: geometry %s does not hold", c.kind, js(got))
			}
		})
	}
}

// TestConstraintEdits checks that constraints hold through other tools'
// edits: a moved side re-solved with its rectangle in the same revision,
// an edit that moves a fixed corner refused and changing nothing, and a
// constrained entity's deletion refused until its constraints go.
func TestConstraintEdits(t *testing.T) {
	f := newFixture(t)
	s := f.sloppyRectangle(false)
	// Moved sideways, the top would pull the left side off the fixed
	// corner.
	te := f.fail(enginev1.ToolEntityMove, obj{"handle": s[2], "dx": 3, "dy": 10}, enginev1.ErrorKind_ERROR_KIND_OVER_CONSTRAINED)
	if want := []int32{1, 4, 5, 9}; !slices.Equal(te.Conflicting, want) {
		t.Errorf("moving the top sideways: conflicting %v, want %v", te.Conflicting, want)
	}
	before := f.info().Revision
	top, _ := f.ends(s[2]) // the height is free: where the first solve left it
	f.ok(enginev1.ToolEntityMove, obj{"handle": s[2], "dx": 0, "dy": 10})
	f.corners(s, 120, top[1]+10)
	if got := f.info().Revision; got != before+1 {
		t.Errorf("revision %d after the move, want %d", got, before+1)
	}

	moved := f.info()
	te = f.fail(enginev1.ToolEntityMove, obj{"handle": s[0], "dx": 0, "dy": 5}, enginev1.ErrorKind_ERROR_KIND_OVER_CONSTRAINED)
	if !slices.Equal(te.Conflicting, []int32{1}) {
		t.Errorf("moving the fixed corner: conflicting %v, want the fixed constraint 1 alone", te.Conflicting)
	}
	if got := f.info(); got.Revision != moved.Revision || got.ContentHash != moved.ContentHash {
		t.Errorf("a refused edit changed the document")
	}

	te = f.fail(enginev1.ToolEntityDelete, obj{"handle": s[3]}, enginev1.ErrorKind_ERROR_KIND_REFUSED)
	if !f.has(s[3]) {
		t.Fatalf("refused delete (%s) removed the side", te.Message)
	}
	for _, id := range []int{4, 5, 9} {
		f.ok(enginev1.ToolConstraintDelete, obj{"constraint_id": id})
	}
	f.ok(enginev1.ToolEntityDelete, obj{"handle": s[3]})
	res := f.ok(enginev1.ToolSketchSolve, obj{})
	if res["status"] != "under_constrained" {
		t.Errorf("without its left side the rectangle = %s, want under_constrained", js(res))
	}
}

func TestConstraintUndo(t *testing.T) {
	f := newFixture(t)
	l := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 1})
	before, fp := f.info(), f.get(l)["fingerprint"]
	f.constrain("horizontal", nil, ref(l))
	if f.get(l)["fingerprint"] == fp {
		t.Fatal("horizontal did not move the line")
	}
	f.ok(enginev1.ToolDocumentUndo, obj{})
	after := f.info()
	if after.ContentHash != before.ContentHash || f.get(l)["fingerprint"] != fp {
		t.Errorf("after document_undo: hash %s (want %s), line %v (want %v)", after.ContentHash, before.ContentHash, f.get(l)["fingerprint"], fp)
	}
	if list := f.ok(enginev1.ToolConstraintList, obj{}); list["constraints"] != nil {
		t.Errorf("constraint_list after the undo = %s, want none", js(list))
	}
	f.ok(enginev1.ToolDocumentRedo, obj{})
	if list := f.ok(enginev1.ToolConstraintList, obj{}); len(list["constraints"].([]any)) != 1 {
		t.Errorf("constraint_list after the redo = %s, want the horizontal", js(list))
	}
}

func TestConstraintInvalidRefs(t *testing.T) {
	f := newFixture(t)
	l := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 1})
	c := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 4})
	txt := f.handle(enginev1.ToolEntityCreateText, obj{"text": "A", "x": 0, "y": 0})
	for _, tc := range []struct {
		args obj
		path string
	}{
		{obj{"kind": "horizontal", "refs": []obj{ref(c)}}, "/refs/0"},
		{obj{"kind": "radius", "refs": []obj{ref(l)}, "value": 3}, "/refs/0"},
		{obj{"kind": "coincident", "refs": []obj{ref(l, "start"), ref(txt)}}, "/refs/1"},
		{obj{"kind": "coincident", "refs": []obj{ref(l, "start"), ref(c, "vertex:2")}}, "/refs/1"},
		{obj{"kind": "parallel", "refs": []obj{ref(l)}}, "/refs"},
		{obj{"kind": "horizontal", "refs": []obj{ref(l)}, "value": 3}, "/value"},
	} {
		te := f.fail(enginev1.ToolConstraintAdd, tc.args, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
		if te.GetPath() != tc.path {
			t.Errorf("constraint_add(%s) path %q (%s), want %q", js(tc.args), te.GetPath(), te.Message, tc.path)
		}
	}
	f.fail(enginev1.ToolConstraintDelete, obj{"constraint_id": 7}, enginev1.ErrorKind_ERROR_KIND_FAILED)
	if f.info().Revision != 3 {
		t.Errorf("refused constraints changed the revision: %d, want 3", f.info().Revision)
	}

	// An edit that takes away a vertex a constraint holds fails, naming
	// the constraint, and changes nothing.
	p := f.handle(enginev1.ToolEntityCreatePolyline, obj{"points": []obj{{"x": 0, "y": 0}, {"x": 10, "y": 0.5}, {"x": 10.5, "y": 8}}})
	id := f.constrain("vertical", nil, ref(p, "vertex:1"), ref(p, "vertex:2"))["constraint_id"]
	before := f.info()
	te := f.fail(enginev1.ToolEntityEditGeometry, obj{"handle": p, "points": []obj{{"x": 0, "y": 0}, {"x": 10, "y": 0}}}, enginev1.ErrorKind_ERROR_KIND_FAILED)
	if !strings.Contains(te.Message, fmt.Sprintf("constraint %v", id)) {
		t.Errorf("the edit's error %q does not name constraint %v", te.Message, id)
	}
	if got := f.info(); got.ContentHash != before.ContentHash || got.Revision != before.Revision {
		t.Errorf("the failed edit changed the document")
	}
}

// TestConstraintsSurviveReopen checks the constraints are stored with the
// document: after the engine reopens its SQLite store they are listed as
// they were, the content hash is the same, and the driving width still
// drives the rectangle.
func TestConstraintsSurviveReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cad.db")
	st, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(st, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	info, err := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, e: e, doc: info.DocumentId}
	s := f.sloppyRectangle(true)
	want, list := f.info(), js(f.ok(enginev1.ToolConstraintList, obj{}))
	e.Close()
	st.Close()

	st, err = sqlite.Open(path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer st.Close()
	f = &fixture{t: t, e: newEngine(t, st), doc: info.DocumentId}
	if got := f.info(); got.ContentHash != want.ContentHash || got.Revision != want.Revision {
		t.Errorf("after reopen: hash %s revision %d, want %s %d", got.ContentHash, got.Revision, want.ContentHash, want.Revision)
	}
	if got := js(f.ok(enginev1.ToolConstraintList, obj{})); got != list {
		t.Errorf("constraint_list after reopen:\n%s\nwant\n%s", got, list)
	}
	f.ok(enginev1.ToolConstraintSetValue, obj{"constraint_id": 10, "value": 90})
	f.corners(s, 90, 80)
}

// TestConstraintsInBatches checks constraints in batches: a checkpoint
// rolled back takes its constraints and their moves back, and a batch
// whose later step cannot hold the constraints rolls back whole under
// on_error rollback.
func TestConstraintsInBatches(t *testing.T) {
	f := newFixture(t)
	l := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 1})
	f.constrain("fixed", nil, ref(l, "start"))
	before := f.info()
	resp := f.batch(f.batchReq(
		st(enginev1.ToolTransactionBegin, obj{}),
		st(enginev1.ToolConstraintAdd, obj{"kind": "horizontal", "refs": []any{ref(l)}}),
		st(enginev1.ToolEntityMove, obj{"handle": l, "dx": 0, "dy": 0}),
		st(enginev1.ToolTransactionRollback, obj{}),
	))
	if resp.Status != enginev1.BatchStatus_BATCH_STATUS_COMPLETED {
		t.Fatalf("batch = %v", resp)
	}
	if got := f.info(); got.ContentHash != before.ContentHash {
		t.Errorf("after the rollback: hash %s, want %s", got.ContentHash, before.ContentHash)
	}
	req := f.batchReq(
		st(enginev1.ToolConstraintAdd, obj{"kind": "horizontal", "refs": []any{ref(l)}}),
		st(enginev1.ToolEntityRotate, obj{"handle": l, "base_x": 0, "base_y": 0, "angle": 30}),
	)
	req.OnError = enginev1.OnError_ON_ERROR_ROLLBACK.Enum()
	resp = f.batch(req)
	if resp.Status != enginev1.BatchStatus_BATCH_STATUS_ROLLED_BACK || resp.Results[1].Error.GetKind() != enginev1.ErrorKind_ERROR_KIND_OVER_CONSTRAINED {
		t.Fatalf("rotating a horizontal line = %v, want rolled back over_constrained", resp)
	}
	if got := f.info(); got.ContentHash != before.ContentHash || got.Revision != before.Revision {
		t.Errorf("after the rolled-back batch: %v, want %v", got, before)
	}
}

// BenchmarkConstraintSetValue changes one rectangle's driving width in a
// document of 100 constrained rectangles (1,100 constraints): only that
// rectangle's sketch is built and solved, then written back and committed
// (a tools.call on the memory store).
func BenchmarkConstraintSetValue(b *testing.B) {
	f := newFixture(b)
	for range 100 {
		f.sloppyRectangle(true)
	}
	b.ResetTimer()
	for i := range b.N {
		f.ok(enginev1.ToolConstraintSetValue, obj{"constraint_id": 10, "value": 100 + float64(i%50)})
	}
}

// BenchmarkMoveUnconstrained is entity_move of a free line in that
// document: what the constraints cost an edit they do not hold.
func BenchmarkMoveUnconstrained(b *testing.B) {
	f := newFixture(b)
	for range 100 {
		f.sloppyRectangle(true)
	}
	l := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 1})
	b.ResetTimer()
	for range b.N {
		f.ok(enginev1.ToolEntityMove, obj{"handle": l, "dx": 1, "dy": 0})
	}
}

// TestConstraintDryRun checks a batch's dry run previews what its
// constraint steps would move, the document as it is, and changes nothing.
func TestConstraintDryRun(t *testing.T) {
	f := newFixture(t)
	s := f.sloppyRectangle(true)
	c := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 4})
	before := f.info()
	req := f.batchReq(
		st(enginev1.ToolConstraintSetValue, obj{"constraint_id": 10, "value": 150}),
		st(enginev1.ToolConstraintAdd, obj{"kind": "radius", "refs": []any{ref(c)}, "value": 5}),
		st(enginev1.ToolConstraintAdd, obj{"kind": "radius", "refs": []any{ref(c)}}),
	)
	req.DryRun = proto.Bool(true)
	resp := f.batch(req)
	if resp.Status != enginev1.BatchStatus_BATCH_STATUS_VALIDATED {
		t.Fatalf("dry run = %v", resp)
	}
	steps := resp.Preview.Steps
	if want := []string{s[0], s[1], s[2]}; !slices.Equal(steps[0].Moves, want) {
		t.Errorf("the width's preview moves %v, want %v", steps[0].Moves, want)
	}
	if !slices.Equal(steps[1].Moves, []string{c}) || steps[2].Moves != nil {
		t.Errorf("the radii's previews move %v and %v, want the circle and nothing (it is 4 already)", steps[1].Moves, steps[2].Moves)
	}
	if got := f.info(); got.Revision != before.Revision || got.ContentHash != before.ContentHash {
		t.Errorf("the dry run changed the document")
	}
}
