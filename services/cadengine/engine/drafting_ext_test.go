package engine_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/dxftest"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
)

// deBoor is the point at u of the B-spline of the degree, knots and
// control points (and weights, if any): Cox–de Boor's recursion for the
// basis functions, written here apart from the engine's own evaluation.
func deBoor(degree int, knots []float64, ctrl [][2]float64, weights []float64, u float64) [2]float64 {
	n := len(ctrl)
	var basis func(i, p int) float64
	basis = func(i, p int) float64 {
		if p == 0 {
			last := u == knots[n] && knots[i] < knots[i+1] && knots[i+1] == knots[n]
			if (knots[i] <= u && u < knots[i+1]) || last {
				return 1
			}
			return 0
		}
		v := 0.0
		if d := knots[i+p] - knots[i]; d != 0 {
			v += (u - knots[i]) / d * basis(i, p-1)
		}
		if d := knots[i+p+1] - knots[i+1]; d != 0 {
			v += (knots[i+p+1] - u) / d * basis(i+1, p-1)
		}
		return v
	}
	var x, y, w float64
	for i := 0; i < n; i++ {
		b := basis(i, degree)
		if weights != nil {
			b *= weights[i]
		}
		x, y, w = x+b*ctrl[i][0], y+b*ctrl[i][1], w+b
	}
	return [2]float64{x / w, y / w}
}

// splineOf reads an entity's spline: degree, knots, control points and
// weights (nil when none).
func splineOf(t *testing.T, e obj) (int, []float64, [][2]float64, []float64) {
	t.Helper()
	s, ok := e["spline"].(obj)
	if !ok {
		t.Fatalf("entity %s has no spline", js(e))
	}
	var knots, weights []float64
	for _, k := range s["knots"].([]any) {
		knots = append(knots, k.(float64))
	}
	if w, ok := s["weights"].([]any); ok {
		for _, v := range w {
			weights = append(weights, v.(float64))
		}
	}
	var ctrl [][2]float64
	for _, p := range s["control_points"].([]any) {
		ctrl = append(ctrl, pt(p))
	}
	return int(s["degree"].(float64)), knots, ctrl, weights
}

func dist(a, b [2]float64) float64 { return math.Hypot(a[0]-b[0], a[1]-b[1]) }

// TestCreateSpline: a spline through fit points passes through each (the
// curve evaluated here at its knots, by Cox–de Boor, meets every fit
// point in order); one from control points is clamped with uniform knots,
// starting and ending on its end control points; knots and weights are
// taken as given; wrong arguments are invalid with their path.
func TestCreateSpline(t *testing.T) {
	f := newFixture(t)
	fit := [][2]float64{{0, 0}, {10, 8}, {25, -3}, {40, 5}, {52, 0}}
	var pts []any
	for _, p := range fit {
		pts = append(pts, obj{"x": p[0], "y": p[1]})
	}
	h := f.handle(enginev1.ToolEntityCreateSpline, obj{"fit_points": pts})
	e := f.get(h)
	if e["type"] != "spline" {
		t.Fatalf("entity = %s, want a spline", js(e))
	}
	degree, knots, ctrl, w := splineOf(t, e)
	if degree != 3 || w != nil {
		t.Errorf("degree %d, weights %v; want a cubic without weights", degree, w)
	}
	var distinct []float64
	for i, k := range knots {
		if i == 0 || k != knots[i-1] {
			distinct = append(distinct, k)
		}
	}
	if len(distinct) != len(fit) {
		t.Fatalf("knots %v: %d distinct values, want one per fit point (%d)", knots, len(distinct), len(fit))
	}
	for i, u := range distinct {
		if got := deBoor(degree, knots, ctrl, nil, u); dist(got, fit[i]) > 1e-9*52 {
			t.Errorf("curve at knot %g = %v, want fit point %d %v", u, got, i, fit[i])
		}
	}
	if got := e["spline"].(obj)["fit_points"].([]any); len(got) != len(fit) {
		t.Errorf("fit points kept: %s, want the %d given", js(got), len(fit))
	}

	// A closed curve through fit points returns to its start.
	hc := f.handle(enginev1.ToolEntityCreateSpline, obj{"fit_points": pts[:4], "closed": true})
	dc, kc, cc, _ := splineOf(t, f.get(hc))
	if a, b := deBoor(dc, kc, cc, nil, kc[dc]), deBoor(dc, kc, cc, nil, kc[len(cc)]); dist(a, fit[0]) > 1e-9*40 || dist(b, fit[0]) > 1e-9*40 {
		t.Errorf("closed spline runs from %v to %v, want from and to %v", a, b, fit[0])
	}

	// From control points: clamped, uniform.
	hp := f.handle(enginev1.ToolEntityCreateSpline, obj{"control_points": pts})
	degree, knots, ctrl, _ = splineOf(t, f.get(hp))
	if want := []float64{0, 0, 0, 0, 1, 2, 2, 2, 2}; js(knots) != js(want) || degree != 3 {
		t.Errorf("degree %d knots %v, want 3 and %v", degree, knots, want)
	}
	if a, b := deBoor(3, knots, ctrl, nil, 0), deBoor(3, knots, ctrl, nil, 2); dist(a, fit[0]) > 1e-12 || dist(b, fit[4]) > 1e-9*52 {
		t.Errorf("clamped spline runs from %v to %v, want %v to %v", a, b, fit[0], fit[4])
	}

	// Given knots and weights: the rational quarter circle.
	hq := f.handle(enginev1.ToolEntityCreateSpline, obj{
		"control_points": []any{obj{"x": 10, "y": 0}, obj{"x": 10, "y": 10}, obj{"x": 0, "y": 10}},
		"degree":         2, "weights": []any{1, math.Sqrt2 / 2, 1}, "knots": []any{0, 0, 0, 5, 5, 5},
	})
	eq := f.get(hq)
	degree, knots, ctrl, w = splineOf(t, eq)
	for _, u := range []float64{0.5, 2, 3.7} {
		if r := math.Hypot(deBoor(degree, knots, ctrl, w, u)[0], deBoor(degree, knots, ctrl, w, u)[1]); math.Abs(r-10) > 1e-9 {
			t.Errorf("quarter circle at %g is %v from the centre, want 10", u, r)
		}
	}
	if !near(eq["length"].(float64), 5*math.Pi) {
		t.Errorf("quarter circle length = %v, want 5π", eq["length"])
	}

	for _, tc := range []struct {
		name string
		args obj
		path string
	}{
		{"neither", obj{}, "/fit_points"},
		{"both", obj{"fit_points": pts, "control_points": pts}, "/control_points"},
		{"degree with fit points", obj{"fit_points": pts, "degree": 2}, "/degree"},
		{"one fit point", obj{"fit_points": pts[:1]}, "/fit_points"},
		{"too few control points", obj{"control_points": pts[:3]}, "/control_points"},
		{"knots count", obj{"control_points": pts, "knots": []any{0, 1}}, "/knots"},
		{"knots and closed", obj{"control_points": pts, "closed": true, "knots": []any{0, 0, 0, 0, 1, 2, 2, 2, 2}}, "/knots"},
		{"knots decreasing", obj{"control_points": pts, "knots": []any{0, 0, 0, 0, 3, 2, 2, 2, 2}}, "/control_points"},
		{"weights count", obj{"control_points": pts, "weights": []any{1, 1}}, "/weights"},
		{"weight 0", obj{"control_points": pts, "weights": []any{1, 0, 1, 1, 1}}, "/control_points"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if te := f.fail(enginev1.ToolEntityCreateSpline, tc.args, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS); te.GetPath() != tc.path {
				t.Errorf("path = %q, want %q (%v)", te.GetPath(), tc.path, te)
			}
		})
	}
}

// TestCreateSplineDXF: a created spline exported to DXF and imported back
// is the same spline (control points, knots, fit points); ezdxf reads it
// as a SPLINE.
func TestCreateSplineDXF(t *testing.T) {
	f := newFixture(t)
	pts := []any{obj{"x": 0, "y": 0}, obj{"x": 5, "y": 5}, obj{"x": 10, "y": 0}, obj{"x": 15, "y": 4}}
	var want []string
	for _, args := range []obj{
		{"fit_points": pts},
		{"fit_points": pts, "closed": true},
		{"control_points": pts, "closed": true},
		{"control_points": pts, "degree": 2, "weights": []any{1, 2, 1, 1}},
	} {
		want = append(want, js(f.get(f.handle(enginev1.ToolEntityCreateSpline, args))["spline"]))
	}
	dxf := exportOf(t, f, "dxf")
	if !strings.Contains(dxf, "\nSPLINE\n") {
		t.Fatal("the DXF export has no SPLINE")
	}
	back := importDXF(t, f.e, "back", dxf)
	var got []string
	for _, e := range back.entities() {
		got = append(got, js(e["spline"]))
	}
	if js(got) != js(want) {
		t.Errorf("read back %v, want the splines %v", got, want)
	}
	if got := ezdxftest.Audit(t, dxf); got != nil && got["SPLINE"] != len(want) {
		t.Errorf("ezdxf reads %v, want %d SPLINEs", got, len(want))
	}
}

// TestCreateAnnotationShapes: leaders (with their note), construction
// lines and rays, revision clouds, wipeouts and solids are made as
// entity_get shows them.
func TestCreateAnnotationShapes(t *testing.T) {
	f := newFixture(t)
	r := f.ok(enginev1.ToolEntityCreateLeader, obj{"points": []any{obj{"x": 0, "y": 0}, obj{"x": 10, "y": 10}, obj{"x": 20, "y": 10}}, "text": "M8 x 1.25"})
	hs := r["handles"].([]any)
	if len(hs) != 2 || hs[0] != r["handle"] {
		t.Fatalf("leader result = %s, want the leader's and the note's handles", js(r))
	}
	l := f.get(r["handle"].(string))
	if l["type"] != "leader" || l["arrowhead"] != true || len(l["points"].([]any)) != 3 || l["arrow_size"] != 2.5 {
		t.Errorf("leader = %s, want 3 points, an arrowhead 2.5 long", js(l))
	}
	note := f.get(hs[1].(string))
	if note["type"] != "mtext" || note["text"] != "M8 x 1.25" || note["attachment"] != "middle_left" || note["insertion"].(obj)["x"].(float64) <= 20 {
		t.Errorf("note = %s, want multi-line text attached middle-left beyond (20, 10)", js(note))
	}
	if r := f.ok(enginev1.ToolEntityCreateLeader, obj{"points": []any{obj{"x": 0, "y": 0}, obj{"x": 3, "y": 4}}, "arrow": false}); len(r["handles"].([]any)) != 1 || f.get(r["handle"].(string))["arrowhead"] != false {
		t.Errorf("leader without text or arrow = %s", js(r))
	}

	x := f.get(f.handle(enginev1.ToolEntityCreateXline, obj{"x": 1, "y": 2, "angle": 30}))
	if d := pt(x["direction"]); x["type"] != "xline" || !nearPt(d, [2]float64{math.Sqrt(3) / 2, 0.5}) || !nearPt(pt(x["start"]), [2]float64{1, 2}) {
		t.Errorf("xline = %s, want through (1, 2) along 30°", js(x))
	}
	ray := f.get(f.handle(enginev1.ToolEntityCreateRay, obj{"x": 0, "y": 0, "angle": 90}))
	if d := pt(ray["direction"]); ray["type"] != "ray" || d != [2]float64{0, 1} {
		t.Errorf("ray = %s, want exactly along +Y", js(ray))
	}

	cloud := f.get(f.handle(enginev1.ToolEntityCreateRevcloud, obj{"points": []any{obj{"x": 0, "y": 0}, obj{"x": 40, "y": 0}, obj{"x": 40, "y": 20}, obj{"x": 0, "y": 20}}, "arc_length": 10}))
	if v := cloud["points"].([]any); cloud["type"] != "polyline" || cloud["closed"] != true || len(v) != 12 {
		t.Errorf("cloud = %s, want a closed polyline of 12 arcs", js(cloud))
	} else {
		for i, p := range v {
			if b, _ := p.(obj)["bulge"].(float64); !(b > 0) {
				t.Errorf("cloud vertex %d bulge %v, want outwards (positive round a counter-clockwise polygon)", i, b)
			}
		}
	}
	// Its extents stick out of the polygon's: the arcs bulge outwards.
	if bb := f.ok(enginev1.ToolAnalysisBoundingBox, obj{}); !(bb["max_y"].(float64) > 20) {
		t.Errorf("bounding box %v, want the cloud beyond y = 20", bb)
	}

	sq := []any{obj{"x": 0, "y": 0}, obj{"x": 4, "y": 0}, obj{"x": 4, "y": 3}, obj{"x": 0, "y": 3}}
	s := f.get(f.handle(enginev1.ToolEntityCreateSolid, obj{"points": sq}))
	if c := s["corners"].([]any); s["type"] != "solid" || len(c) != 4 || pt(c[2]) != [2]float64{4, 3} {
		t.Errorf("solid = %s, want the four corners in order", js(s))
	}
	wo := f.get(f.handle(enginev1.ToolEntityCreateWipeout, obj{"points": sq[:3]}))
	if c, _ := wo["corners"].([]any); wo["type"] != "wipeout" || len(c) != 3 || pt(c[1]) != [2]float64{4, 0} || pt(c[2]) != [2]float64{4, 3} {
		t.Errorf("wipeout = %s, want the triangle's corners", js(wo))
	}
	for _, tool := range []string{enginev1.ToolEntityCreateSolid, enginev1.ToolEntityCreateWipeout} {
		f.fail(tool, obj{"points": []any{obj{"x": 0, "y": 0}, obj{"x": 1, "y": 1}, obj{"x": 2, "y": 2}}}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
	}
	f.fail(enginev1.ToolEntityCreateRevcloud, obj{"points": sq, "arc_length": 1e-6}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
	if svg := exportOf(t, f, "svg"); !strings.Contains(svg, `data-type="leader"`) || !strings.Contains(svg, `data-type="solid"`) {
		t.Errorf("the SVG does not draw the leader and the solid:\n%.400s", svg)
	}
	want := map[string]int{"LEADER": 2, "MTEXT": 1, "XLINE": 1, "RAY": 1, "LWPOLYLINE": 1, "SOLID": 1, "WIPEOUT": 1}
	if got := ezdxftest.Audit(t, exportOf(t, f, "dxf")); got != nil && js(got) != js(want) {
		t.Errorf("ezdxf reads %v in the DXF export, want %v", got, want)
	}
}

// TestCreateTable: a table is a table entity whose cells keep their
// texts (entity_get shows its grid and cells), exported as an
// ACAD_TABLE (ezdxf audits it clean); its bounding box is its grid;
// exploding it gives its grid lines and texts, placed, and block_explode
// does the same; a cell outside the grid is invalid at its path.
func TestCreateTable(t *testing.T) {
	f := newFixture(t)
	r := f.ok(enginev1.ToolEntityCreateTable, obj{"x": 100, "y": 50, "rows": 2, "columns": 3, "row_height": 8, "column_width": 30,
		"cells": []any{obj{"row": 0, "column": 0, "text": "POS"}, obj{"row": 1, "column": 2, "text": "M8"}}})
	e := f.get(r["handle"].(string))
	if e["type"] != "table" || r["block"] != nil && r["block"] != "" {
		t.Fatalf("table = %s (%s), want a table entity", js(r), js(e))
	}
	tb, _ := e["table"].(map[string]any)
	wantTable := obj{"row_heights": []any{8.0, 8.0}, "column_widths": []any{30.0, 30.0, 30.0}, "cells": []any{
		obj{"row": 0.0, "column": 0.0, "text": "POS", "text_height": 4.0, "row_span": 1.0, "column_span": 1.0},
		obj{"row": 1.0, "column": 2.0, "text": "M8", "text_height": 4.0, "row_span": 1.0, "column_span": 1.0},
	}}
	if js(tb) != js(wantTable) || !nearPt(pt(e["insertion"]), [2]float64{100, 50}) {
		t.Errorf("entity_get = %s, want its top-left corner at (100, 50) and table %s", js(e), js(wantTable))
	}
	if got := ezdxftest.Audit(t, exportOf(t, f, "dxf")); got != nil && got["ACAD_TABLE"] != 1 {
		t.Errorf("ezdxf reads %v in the DXF export, want the table's ACAD_TABLE", got)
	}
	if svg := exportOf(t, f, "svg"); !strings.Contains(svg, ">POS<") || !strings.Contains(svg, ">M8<") {
		t.Error("the SVG export does not draw the cells' texts")
	}
	if r12 := exportWith(t, f, "dxf", r12); strings.Contains(r12, "ACAD_TABLE") || !strings.Contains(r12, "\nM8\n") {
		t.Error("the R12 export has an ACAD_TABLE, or not the table's texts")
	}
	bb := f.ok(enginev1.ToolAnalysisBoundingBox, obj{})
	if !near(bb["min_x"].(float64), 100) || !near(bb["max_x"].(float64), 190) || !near(bb["min_y"].(float64), 34) || !near(bb["max_y"].(float64), 50) {
		t.Errorf("bounding box %v, want (100, 34) to (190, 50)", bb)
	}
	x := f.ok(enginev1.ToolEntityExplode, obj{"handle": r["handle"]})
	if x["count"] != 3.0+4+2 {
		t.Fatalf("exploded table = %s, want 3 + 4 lines and 2 texts", js(x))
	}
	var texts []obj
	for _, h := range x["handles"].([]any) {
		if e := f.get(h.(string)); e["type"] == "text" {
			texts = append(texts, e)
		}
	}
	if len(texts) != 2 || texts[1]["text"] != "M8" || !nearPt(pt(texts[1]["insertion"]), [2]float64{175, 38}) {
		t.Errorf("texts = %s, want M8 centred in the cell (1, 2) at (175, 38)", js(texts))
	}
	r2 := f.ok(enginev1.ToolEntityCreateTable, obj{"x": 0, "y": 0, "rows": 1, "columns": 1, "row_height": 5, "column_width": 5, "cells": []any{obj{"row": 0, "column": 0, "text": "A"}}})
	if x2 := f.ok(enginev1.ToolBlockExplode, obj{"handle": r2["handle"]}); x2["count"] != 2.0+2+1 {
		t.Errorf("block_explode of a table = %s, want its 2 + 2 lines and its text", js(x2))
	}
	te := f.fail(enginev1.ToolEntityCreateTable, obj{"x": 0, "y": 0, "rows": 2, "columns": 2, "row_height": 5, "column_width": 5, "cells": []any{obj{"row": 0, "column": 0, "text": "a"}, obj{"row": 2, "column": 0, "text": "b"}}}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
	if te.GetPath() != "/cells/1/row" {
		t.Errorf("error path = %q, want /cells/1/row", te.GetPath())
	}
}

// TestExplode: a polyline becomes its lines and arcs (the bulge's arc
// with its centre and radius), on its layer; a dimension its lines, arrow
// solids and text; a hatch its boundary; a circle cannot be exploded.
func TestExplode(t *testing.T) {
	f := newFixture(t)
	f.ok(enginev1.ToolLayerCreate, obj{"name": "A", "color": 3})
	pl := f.handle(enginev1.ToolEntityCreatePolyline, obj{"layer": "A", "points": []any{obj{"x": 0, "y": 0}, obj{"x": 10, "y": 0, "bulge": 1}, obj{"x": 10, "y": 10}, obj{"x": 0, "y": 10}}})
	r := f.ok(enginev1.ToolEntityExplode, obj{"handle": pl})
	hs := r["handles"].([]any)
	if r["count"] != 3.0 || r["handle"] != pl {
		t.Fatalf("explode = %s, want 3 pieces", js(r))
	}
	arc := f.get(hs[1].(string))
	if arc["type"] != "arc" || arc["layer"] != "A" || !nearPt(pt(arc["center"]), [2]float64{10, 5}) || !near(arc["radius"].(float64), 5) || !near(arc["start_angle"].(float64), 270) || !near(arc["end_angle"].(float64), 90) {
		t.Errorf("second piece = %s, want the half circle about (10, 5) from 270° to 90° on layer A", js(arc))
	}
	if l := f.get(hs[2].(string)); l["type"] != "line" || !nearPt(pt(l["start"]), [2]float64{10, 10}) || !nearPt(pt(l["end"]), [2]float64{0, 10}) {
		t.Errorf("third piece = %s, want the line (10, 10) to (0, 10)", js(l))
	}
	if f.call(enginev1.ToolEntityGet, obj{"handle": pl}).Ok {
		t.Error("the polyline is still there")
	}

	d := f.handle(enginev1.ToolDimensionCreateAligned, obj{"p1": obj{"x": 0, "y": -20}, "p2": obj{"x": 30, "y": -20}, "offset": 5})
	types := map[any]int{}
	for _, h := range f.ok(enginev1.ToolEntityExplode, obj{"handle": d})["handles"].([]any) {
		e := f.get(h.(string))
		types[e["type"]]++
		if e["type"] == "text" && e["text"] != "30" {
			t.Errorf("dimension text = %v, want 30", e["text"])
		}
	}
	if types["line"] < 3 || types["solid"] != 2 || types["text"] != 1 {
		t.Errorf("exploded dimension has %v, want dimension and extension lines, two arrowheads and its text", types)
	}

	c := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 50, "cy": 50, "radius": 4})
	hatch := f.handle(enginev1.ToolHatchCreate, obj{"boundaries": []any{c}, "pattern": "SOLID"})
	hx := f.ok(enginev1.ToolEntityExplode, obj{"handle": hatch})
	if hx["count"] != 1.0 {
		t.Fatalf("exploded hatch = %s, want its one loop", js(hx))
	}
	if b := f.get(hx["handles"].([]any)[0].(string)); b["type"] != "polyline" || b["closed"] != true || !near(f.ok(enginev1.ToolAnalysisMeasureEntity, obj{"handle": b["handle"]})["area"].(float64), 16*math.Pi) {
		t.Errorf("hatch boundary = %s, want the closed polyline round the circle", js(b))
	}
	f.fail(enginev1.ToolEntityExplode, obj{"handle": c}, enginev1.ErrorKind_ERROR_KIND_FAILED)
}

// TestStretch: of a rectangle crossing the window only the corners
// inside move; a line wholly inside moves; a circle whose centre is
// outside stays; a line with one end inside keeps the other; the result
// lists exactly what changed.
func TestStretch(t *testing.T) {
	f := newFixture(t)
	rect := f.handle(enginev1.ToolEntityCreateRectangle, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 5})
	inside := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 9, "y1": 1, "x2": 11, "y2": 2})
	half := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 5, "y1": 8, "x2": 10, "y2": 8})
	circle := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 6, "cy": 2, "radius": 3})
	r := f.ok(enginev1.ToolEntityStretch, obj{"x1": 8, "y1": -1, "x2": 12, "y2": 9, "dx": 5, "dy": 0})
	if js(r["handles"]) != js([]any{rect, inside, half}) {
		t.Errorf("stretched %s, want %s", js(r["handles"]), js([]any{rect, inside, half}))
	}
	var xs []float64
	for _, p := range f.get(rect)["points"].([]any) {
		xs = append(xs, pt(p)[0])
	}
	if js(xs) != js([]float64{0, 15, 15, 0}) {
		t.Errorf("rectangle corners x = %v, want [0 15 15 0]", xs)
	}
	if l := f.get(inside); pt(l["start"]) != [2]float64{14, 1} || pt(l["end"]) != [2]float64{16, 2} {
		t.Errorf("line inside = %s, want moved by (5, 0)", js(l))
	}
	if l := f.get(half); pt(l["start"]) != [2]float64{5, 8} || pt(l["end"]) != [2]float64{15, 8} {
		t.Errorf("line half inside = %s, want (5, 8) to (15, 8)", js(l))
	}
	if c := f.get(circle); pt(c["center"]) != [2]float64{6, 2} {
		t.Errorf("circle = %s, want unmoved", js(c))
	}
	f.fail(enginev1.ToolEntityStretch, obj{"x1": 1, "y1": 1, "x2": 1, "y2": 5, "dx": 1, "dy": 0}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)

	// A half circle whose end (25, 0) is stretched to (30, 0) stays a half
	// circle, now over the chord from (15, 0) to (30, 0).
	arc := f.handle(enginev1.ToolEntityCreateArc, obj{"cx": 20, "cy": 0, "radius": 5, "start_angle": 0, "end_angle": 180})
	f.ok(enginev1.ToolEntityStretch, obj{"x1": 24, "y1": -1, "x2": 26, "y2": 1, "dx": 5, "dy": 0})
	if a := f.get(arc); !nearPt(pt(a["center"]), [2]float64{22.5, 0}) || !near(a["radius"].(float64), 7.5) || !near(a["start_angle"].(float64), 0) || !near(a["end_angle"].(float64), 180) {
		t.Errorf("stretched arc = %s, want the half circle about (22.5, 0) of radius 7.5", js(a))
	}
}

// TestArrayRectangular: copies sit at their row and column offsets,
// turned by the angle (here exactly 90°: columns up, rows left), the
// original being item (0, 0).
func TestArrayRectangular(t *testing.T) {
	f := newFixture(t)
	c := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 1, "cy": 2, "radius": 0.5})
	r := f.ok(enginev1.ToolEntityArrayRectangular, obj{"handles": []any{c}, "rows": 2, "columns": 3, "row_spacing": 10, "column_spacing": 20, "angle": 90})
	hs := r["handles"].([]any)
	if r["count"] != 5.0 || len(hs) != 5 {
		t.Fatalf("array = %s, want 5 copies", js(r))
	}
	want := [][2]float64{{1, 22}, {1, 42}, {-9, 2}, {-9, 22}, {-9, 42}}
	for i, h := range hs {
		if got := pt(f.get(h.(string))["center"]); got != want[i] {
			t.Errorf("copy %d at %v, want exactly %v", i, got, want[i])
		}
	}
	f.fail(enginev1.ToolEntityArrayRectangular, obj{"handles": []any{c}, "rows": 1, "columns": 1, "row_spacing": 1, "column_spacing": 1}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
	f.fail(enginev1.ToolEntityArrayRectangular, obj{"handles": []any{c}, "rows": 1, "columns": 3, "row_spacing": 1, "column_spacing": 0}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
}

// TestArrayPolar: a full circle spaces items 360/count apart, exactly at
// multiples of 90°; a smaller fill spaces them fill/(count−1) apart; copies
// turn with the array unless rotate is false.
func TestArrayPolar(t *testing.T) {
	f := newFixture(t)
	p := f.handle(enginev1.ToolEntityCreatePoint, obj{"x": 15, "y": 5})
	r := f.ok(enginev1.ToolEntityArrayPolar, obj{"handles": []any{p}, "cx": 5, "cy": 5, "count": 4})
	want := [][2]float64{{5, 15}, {-5, 5}, {5, -5}}
	for i, h := range r["handles"].([]any) {
		if got := pt(f.get(h.(string))["location"]); got != want[i] {
			t.Errorf("copy %d at %v, want exactly %v", i, got, want[i])
		}
	}
	r = f.ok(enginev1.ToolEntityArrayPolar, obj{"handles": []any{p}, "cx": 5, "cy": 5, "count": 6})
	for i, h := range r["handles"].([]any) {
		a := float64(i+1) * math.Pi / 3
		if got := pt(f.get(h.(string))["location"]); !nearPt(got, [2]float64{5 + 10*math.Cos(a), 5 + 10*math.Sin(a)}) {
			t.Errorf("copy %d at %v, want at %g°", i, got, float64(i+1)*60)
		}
	}
	l := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 10, "y1": 0, "x2": 20, "y2": 0})
	r = f.ok(enginev1.ToolEntityArrayPolar, obj{"handles": []any{l}, "cx": 0, "cy": 0, "count": 3, "fill_angle": 90})
	hs := r["handles"].([]any)
	if got := f.get(hs[0].(string)); !nearPt(pt(got["start"]), [2]float64{10 / math.Sqrt2, 10 / math.Sqrt2}) {
		t.Errorf("first copy = %s, want at 45°", js(got))
	}
	if got := f.get(hs[1].(string)); pt(got["start"]) != [2]float64{0, 10} || pt(got["end"]) != [2]float64{0, 20} {
		t.Errorf("last copy = %s, want exactly at 90°", js(got))
	}
	r = f.ok(enginev1.ToolEntityArrayPolar, obj{"handles": []any{l}, "cx": 0, "cy": 0, "count": 2, "fill_angle": 180, "rotate": false})
	if got := f.get(r["handles"].([]any)[0].(string)); pt(got["start"]) != [2]float64{-20, 0} || pt(got["end"]) != [2]float64{-10, 0} {
		t.Errorf("unturned copy = %s, want the line moved (its middle to the 180° point), still along +X", js(got))
	}
	f.fail(enginev1.ToolEntityArrayPolar, obj{"handles": []any{l}, "cx": 0, "cy": 0, "count": 3, "fill_angle": 0}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
}

// TestBatchModify: one call moves and re-layers many entities; a
// dimension bound to a moved line moves with it once; an unknown layer or
// a locked one changes nothing.
func TestBatchModify(t *testing.T) {
	f := newFixture(t)
	f.ok(enginev1.ToolLayerCreate, obj{"name": "B"})
	a := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 0})
	b := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 1})
	r := f.ok(enginev1.ToolEntityBatchModify, obj{"handles": []any{b, a}, "dx": 2, "dy": 3, "layer": "B", "color": 1, "linetype": "dashed"})
	if js(r["handles"]) != js([]any{b, a}) || r["count"] != 2.0 {
		t.Errorf("result = %s, want both, in the order given", js(r))
	}
	if e := f.get(a); pt(e["start"]) != [2]float64{2, 3} || e["layer"] != "B" || e["color"] != 1.0 || e["linetype"] != "DASHED" {
		t.Errorf("line = %s, want moved, on B, red, DASHED", js(e))
	}
	if e := f.get(b); pt(e["center"]) != [2]float64{2, 3} || e["layer"] != "B" {
		t.Errorf("circle = %s, want moved to (2, 3) on B", js(e))
	}
	// A dimension bound to a line, moved with it, moves once: it follows
	// the line, and is moved as it then is.
	l := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 0})
	d := f.handle(enginev1.ToolDimensionCreateAligned, obj{"p1": obj{"handle": l, "x": 0, "y": 0}, "p2": obj{"handle": l, "x": 10, "y": 0}})
	f.ok(enginev1.ToolEntityBatchModify, obj{"handles": []any{l, d}, "dx": 5})
	if dim := f.get(d)["dimension"].(obj); pt(dim["p1"]) != [2]float64{5, 0} || pt(dim["p2"]) != [2]float64{15, 0} {
		t.Errorf("bound dimension = %s, want from (5, 0) to (15, 0) with its line", js(dim))
	}
	f.ok(enginev1.ToolEntityStretch, obj{"x1": -100, "y1": -100, "x2": 100, "y2": 100, "dx": 0, "dy": 2})
	if dim := f.get(d)["dimension"].(obj); pt(dim["p1"]) != [2]float64{5, 2} {
		t.Errorf("bound dimension stretched with its line = %s, want from (5, 2)", js(dim))
	}

	rev, start := f.info().Revision, pt(f.get(a)["start"])
	f.fail(enginev1.ToolEntityBatchModify, obj{"handles": []any{a}, "layer": "NOPE"}, enginev1.ErrorKind_ERROR_KIND_FAILED)
	f.fail(enginev1.ToolEntityBatchModify, obj{"handles": []any{a}}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
	if got := f.info().Revision; got != rev || pt(f.get(a)["start"]) != start {
		t.Errorf("revision %d after failed batch modifies, want %d, nothing changed", got, rev)
	}
	f.ok(enginev1.ToolLayerCreate, obj{"name": "L"})
	c := f.handle(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0, "layer": "L"})
	f.ok(enginev1.ToolLayerLock, obj{"name": "L"})
	rev, start = f.info().Revision, pt(f.get(a)["start"])
	f.fail(enginev1.ToolEntityBatchModify, obj{"handles": []any{a, c}, "dx": 1}, enginev1.ErrorKind_ERROR_KIND_REFUSED)
	if f.info().Revision != rev || pt(f.get(a)["start"]) != start {
		t.Error("a refused batch modify changed the document")
	}
}

// TestExplodeImportedTable: an ACAD_TABLE read from a file (ezdxf's
// example, a preserved entity drawn from its block) explodes into the
// lines and texts its writer drew, and is gone.
func TestExplodeImportedTable(t *testing.T) {
	dir := dxftest.Corpus(t)
	if dir == "" {
		t.Skip("no DXF corpus")
	}
	data, err := os.ReadFile(filepath.Join(dir, "files", "mozman__ezdxf__examples_dxf__acad_table_with_blk_ref.dxf"))
	if err != nil {
		t.Fatal(err)
	}
	f := importDXF(t, newEngine(t, nil), "table", dxftest.Text(data))
	var table string
	for _, e := range f.entities() {
		if e["type"] == "foreign" && e["dxf_type"] == "ACAD_TABLE" {
			table = e["handle"].(string)
			break
		}
	}
	if table == "" {
		t.Fatal("the file has no ACAD_TABLE")
	}
	r := f.ok(enginev1.ToolEntityExplode, obj{"handle": table})
	types := map[any]int{}
	for _, h := range r["handles"].([]any) {
		types[f.get(h.(string))["type"]]++
	}
	if types["line"] == 0 || types["text"] == 0 {
		t.Errorf("exploded table gave %v, want its grid lines and cell texts", types)
	}
	if f.call(enginev1.ToolEntityGet, obj{"handle": table}).Ok {
		t.Error("the table is still there")
	}
}
