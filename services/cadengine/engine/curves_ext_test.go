package engine_test

import (
	"math"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// xy reads the {x, y} of an exact-point result.
func xy(res obj) [2]float64 { return [2]float64{res["x"].(float64), res["y"].(float64)} }

func TestEllipseExactPoints(t *testing.T) {
	f := newFixture(t)
	// E: x²/4 + y² = 1, and the circle x² + y² = 2 through its crossings
	// (±√(4/3), ±√(2/3)).
	e := f.handle(enginev1.ToolEntityCreateEllipse, obj{"cx": 0, "cy": 0, "major_x": 2, "major_y": 0, "ratio": 0.5})
	c := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": math.Sqrt2})
	x, y := math.Sqrt(4.0/3), math.Sqrt(2.0/3)
	res := f.ok(enginev1.ToolPointIntersection, obj{"handle1": e, "handle2": c, "ref_x": -5, "ref_y": -5})
	if res["count"] != 4.0 || !nearPt(xy(res), [2]float64{-x, -y}) {
		t.Errorf("ellipse × circle nearest (-5, -5) = %v, want (%v, %v) of 4", res, -x, -y)
	}
	// An arc over the first quadrant meets it once.
	a := f.handle(enginev1.ToolEntityCreateArc, obj{"cx": 0, "cy": 0, "radius": math.Sqrt2, "start_angle": 0, "end_angle": 90})
	res = f.ok(enginev1.ToolPointIntersection, obj{"handle1": a, "handle2": e})
	if res["count"] != 1.0 || !nearPt(xy(res), [2]float64{x, y}) {
		t.Errorf("arc × ellipse = %v, want only (%v, %v)", res, x, y)
	}
	// The same ellipse turned a quarter: x² = y² = 4/5.
	e2 := f.handle(enginev1.ToolEntityCreateEllipse, obj{"cx": 0, "cy": 0, "major_x": 0, "major_y": 2, "ratio": 0.5})
	q := 2 / math.Sqrt(5)
	res = f.ok(enginev1.ToolPointIntersection, obj{"handle1": e, "handle2": e2, "ref_x": 1, "ref_y": -1})
	if res["count"] != 4.0 || !nearPt(xy(res), [2]float64{q, -q}) {
		t.Errorf("ellipse × ellipse nearest (1, -1) = %v, want (%v, %v) of 4", res, q, -q)
	}
	// A bulged polyline piece is an arc: the half circle of radius √2
	// over the x axis, from (√2, 0) to (-√2, 0).
	pl := f.handle(enginev1.ToolEntityCreatePolyline, obj{"points": []any{obj{"x": math.Sqrt2, "y": 0, "bulge": 1}, obj{"x": -math.Sqrt2, "y": 0}}})
	res = f.ok(enginev1.ToolPointIntersection, obj{"handle1": e, "handle2": pl})
	if res["count"] != 2.0 || !near(xy(res)[1], y) {
		t.Errorf("ellipse × bulged polyline = %v, want the 2 upper crossings", res)
	}
	far := f.handle(enginev1.ToolEntityCreateEllipse, obj{"cx": 10, "cy": 0, "major_x": 2, "major_y": 0, "ratio": 0.5})
	f.fail(enginev1.ToolPointIntersection, obj{"handle1": e, "handle2": far}, kindFailed)
	twin := f.handle(enginev1.ToolEntityCopy, obj{"handle": e, "dx": 0, "dy": 0})
	if err := f.fail(enginev1.ToolPointIntersection, obj{"handle1": e, "handle2": twin}, kindFailed); !strings.Contains(err.GetMessage(), "overlap") {
		t.Errorf("ellipse × its copy = %v, want an overlap", err)
	}

	// Tangents from (4, 0) touch E at (1, ±√3/2): the tangent at (x0, y0)
	// is x·x0/4 + y·y0 = 1.
	res = f.ok(enginev1.ToolPointTangent, obj{"handle": e, "from_x": 4, "from_y": 0})
	if res["count"] != 2.0 || !nearPt(xy(res), [2]float64{1, math.Sqrt(3) / 2}) {
		t.Errorf("tangent from (4, 0) = %v, want (1, √3/2) first of 2", res)
	}
	res = f.ok(enginev1.ToolPointTangent, obj{"handle": e, "from_x": 4, "from_y": 0, "ref_x": 0, "ref_y": -9})
	if !nearPt(xy(res), [2]float64{1, -math.Sqrt(3) / 2}) {
		t.Errorf("tangent from (4, 0) nearest (0, -9) = %v, want (1, -√3/2)", res)
	}
	half := f.handle(enginev1.ToolEntityCreateEllipse, obj{"cx": 0, "cy": 0, "major_x": 2, "major_y": 0, "ratio": 0.5, "start_angle": 180, "end_angle": 360})
	res = f.ok(enginev1.ToolPointTangent, obj{"handle": half, "from_x": 4, "from_y": 0})
	if res["count"] != 1.0 || !nearPt(xy(res), [2]float64{1, -math.Sqrt(3) / 2}) {
		t.Errorf("tangent to the lower half from (4, 0) = %v, want only (1, -√3/2)", res)
	}
	f.fail(enginev1.ToolPointTangent, obj{"handle": e, "from_x": 0.5, "from_y": 0}, kindFailed)
}

func TestOffsetTools(t *testing.T) {
	f := newFixture(t)
	// A rounded rectangle 10 × 6, corners of radius 1, counter-clockwise:
	// offset outwards (right of travel) by 0.5 it is 11 × 7 with corners
	// of radius 1.5.
	b := math.Tan(math.Pi / 8)
	rr := f.handle(enginev1.ToolEntityCreatePolyline, obj{"closed": true, "points": []any{
		obj{"x": 1, "y": 0}, obj{"x": 9, "y": 0, "bulge": b}, obj{"x": 10, "y": 1}, obj{"x": 10, "y": 5, "bulge": b},
		obj{"x": 9, "y": 6}, obj{"x": 1, "y": 6, "bulge": b}, obj{"x": 0, "y": 5}, obj{"x": 0, "y": 1, "bulge": b},
	}})
	out := f.handle(enginev1.ToolEntityOffset, obj{"handle": rr, "distance": -0.5})
	m := f.ok(enginev1.ToolAnalysisMeasureEntity, obj{"handle": out})
	if wantA, wantP := 11*7-(4-math.Pi)*1.5*1.5, 2*8+2*4+2*math.Pi*1.5; !near(m["area"].(float64), wantA) || !near(m["perimeter"].(float64), wantP) {
		t.Errorf("rounded rectangle offset outwards: area %v, perimeter %v; want %v, %v", m["area"], m["perimeter"], wantA, wantP)
	}
	in := f.handle(enginev1.ToolEntityOffset, obj{"handle": rr, "distance": 0.5})
	m = f.ok(enginev1.ToolAnalysisMeasureEntity, obj{"handle": in})
	if wantA := 9*5 - (4-math.Pi)*0.25; !near(m["area"].(float64), wantA) {
		t.Errorf("rounded rectangle offset inwards: area %v, want %v", m["area"], wantA)
	}
	if err := f.fail(enginev1.ToolEntityOffset, obj{"handle": rr, "distance": 1}, kindFailed); !strings.Contains(err.GetMessage(), "collapses the arc") {
		t.Errorf("offsetting inwards by the corner radius = %v, want the arc to collapse", err)
	}

	// An ellipse offset is a closed polyline of arcs: x²/4 + y² = 1 by
	// 0.5 outwards has length L + π and area A + 0.5·L + π/4.
	e := f.handle(enginev1.ToolEntityCreateEllipse, obj{"cx": 0, "cy": 0, "major_x": 2, "major_y": 0, "ratio": 0.5, "layer": "0", "color": 3})
	L := f.ok(enginev1.ToolAnalysisMeasureEntity, obj{"handle": e})["perimeter"].(float64)
	oe := f.handle(enginev1.ToolEntityOffset, obj{"handle": e, "distance": 0.5})
	g := f.get(oe)
	if g["type"] != "polyline" || g["closed"] != true || g["color"] != 3.0 {
		t.Errorf("ellipse offset = %s, want a closed polyline in the ellipse's colour", js(g))
	}
	m = f.ok(enginev1.ToolAnalysisMeasureEntity, obj{"handle": oe})
	if got, want := m["perimeter"].(float64), L+math.Pi; math.Abs(got-want) > 1e-6 {
		t.Errorf("ellipse offset perimeter = %v, want %v", got, want)
	}
	if got, want := m["area"].(float64), math.Pi*2*1+0.5*L+math.Pi/4; math.Abs(got-want) > 1e-6 {
		t.Errorf("ellipse offset area = %v, want %v", got, want)
	}
	// Inwards past b²/a = 0.5 the offset would cusp.
	if err := f.fail(enginev1.ToolEntityOffset, obj{"handle": e, "distance": -0.5}, kindFailed); !strings.Contains(err.GetMessage(), "radius of curvature") {
		t.Errorf("ellipse offset inwards by 0.5 = %v, want the radius of curvature named", err)
	}
	arc := f.handle(enginev1.ToolEntityCreateEllipse, obj{"cx": 0, "cy": 0, "major_x": 2, "major_y": 0, "ratio": 0.5, "start_angle": 90, "end_angle": 180})
	oa := f.get(f.handle(enginev1.ToolEntityOffset, obj{"handle": arc, "distance": 1}))
	pts := oa["points"].([]any)
	if oa["closed"] != false || !nearPt(pt(pts[0]), [2]float64{0, 2}) || !nearPt(pt(pts[len(pts)-1]), [2]float64{-3, 0}) {
		t.Errorf("elliptical arc offset runs %v to %v (closed %v), want (0, 2) to (-3, 0), open", pts[0], pts[len(pts)-1], oa["closed"])
	}
}

func TestEditGeometryTextAndEllipse(t *testing.T) {
	f := newFixture(t)
	txt := f.handle(enginev1.ToolEntityCreateText, obj{"text": "A", "x": 0, "y": 0})
	f.ok(enginev1.ToolEntityEditGeometry, obj{"handle": txt, "insertion": obj{"x": 3, "y": 4}})
	if g := f.get(txt); !nearPt(pt(g["insertion"]), [2]float64{3, 4}) {
		t.Errorf("text insertion after edit = %v, want (3, 4)", g["insertion"])
	}
	f.ok(enginev1.ToolEntityEditGeometry, obj{"handle": txt, "start": obj{"x": 5, "y": 6}})
	if g := f.get(txt); !nearPt(pt(g["insertion"]), [2]float64{5, 6}) {
		t.Errorf("text insertion after an edit of start = %v, want (5, 6)", g["insertion"])
	}
	if err := f.fail(enginev1.ToolEntityEditGeometry, obj{"handle": txt, "start": obj{"x": 1, "y": 1}, "insertion": obj{"x": 2, "y": 2}}, kindInvalid); err.GetPath() != "/start" {
		t.Errorf("start and insertion together: path %q, want /start", err.GetPath())
	}

	e := f.handle(enginev1.ToolEntityCreateEllipse, obj{"cx": 1, "cy": 1, "major_x": 2, "major_y": 0, "ratio": 0.5, "start_angle": 0, "end_angle": 90})
	f.ok(enginev1.ToolEntityEditGeometry, obj{"handle": e, "major_axis": obj{"x": 0, "y": 3}, "ratio": 0.25})
	g := f.get(e)
	if !nearPt(pt(g["major_axis"]), [2]float64{0, 3}) || g["ratio"] != 0.25 || g["start_angle"] != 0.0 || g["end_angle"] != 90.0 || !nearPt(pt(g["center"]), [2]float64{1, 1}) {
		t.Errorf("ellipse after edit = %s, want major axis (0, 3), ratio 0.25, the same angles and centre", js(g))
	}
	if res := f.ok(enginev1.ToolPointFromSnap, obj{"handle": e, "snap": "end"}); !nearPt(xy(res), [2]float64{1, 4}) {
		t.Errorf("ellipse start after edit = %v, want (1, 4) at the new major axis' end", res)
	}
	if err := f.fail(enginev1.ToolEntityEditGeometry, obj{"handle": e, "major_axis": obj{"x": 0, "y": 0}}, kindInvalid); err.GetPath() != "/major_axis" {
		t.Errorf("zero major axis: path %q, want /major_axis", err.GetPath())
	}
	f.fail(enginev1.ToolEntityEditGeometry, obj{"handle": e, "ratio": 1.5}, kindInvalid)
	f.fail(enginev1.ToolEntityEditGeometry, obj{"handle": e, "insertion": obj{"x": 0, "y": 0}}, kindInvalid)
	c := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 1})
	if err := f.fail(enginev1.ToolEntityEditGeometry, obj{"handle": c, "ratio": 0.5}, kindInvalid); err.GetPath() != "/ratio" {
		t.Errorf("ratio of a circle: path %q, want /ratio", err.GetPath())
	}
}

func TestCreateToolsTakeLinetype(t *testing.T) {
	f := newFixture(t)
	for tool, args := range map[string]obj{
		enginev1.ToolEntityCreatePoint:     {"x": 0, "y": 0},
		enginev1.ToolEntityCreateRectangle: {"x1": 0, "y1": 0, "x2": 1, "y2": 1},
		enginev1.ToolEntityCreateText:      {"text": "a", "x": 0, "y": 0},
		enginev1.ToolEntityCreateEllipse:   {"cx": 0, "cy": 0, "major_x": 2, "major_y": 0, "ratio": 0.5},
	} {
		args["linetype"] = "dashdot"
		if lt := f.get(f.handle(tool, args))["linetype"]; lt != "DASHDOT" {
			t.Errorf("%s with linetype dashdot: linetype %v, want DASHDOT", tool, lt)
		}
		args["linetype"] = "squiggly"
		if err := f.fail(tool, args, kindInvalid); err.GetPath() != "/linetype" {
			t.Errorf("%s with an unknown linetype: path %q, want /linetype", tool, err.GetPath())
		}
	}
}
