package engine_test

import (
	"context"
	"math"
	"regexp"
	"sort"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
)

func TestEntityGetShapes(t *testing.T) {
	f := newFixture(t)
	f.ok(enginev1.ToolLayerCreate, obj{"name": "A", "color": 2})
	tests := []struct {
		tool string
		args obj
		want obj // fields of entity_get to compare (numbers, strings, bools)
		pts  map[string][2]float64
	}{
		{enginev1.ToolEntityCreatePoint, obj{"x": 1, "y": 2}, obj{"type": "point", "layer": "0", "color": 256.0, "linetype": "ByLayer"},
			map[string][2]float64{"location": {1, 2}}},
		{enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 3, "y2": 4, "layer": "A", "color": 1, "linetype": "dashed"},
			obj{"type": "line", "layer": "A", "color": 1.0, "linetype": "DASHED", "length": 5.0},
			map[string][2]float64{"start": {0, 0}, "end": {3, 4}}},
		{enginev1.ToolEntityCreateCircle, obj{"cx": 1, "cy": 1, "radius": 2}, obj{"type": "circle", "radius": 2.0},
			map[string][2]float64{"center": {1, 1}}},
		{enginev1.ToolEntityCreateArc, obj{"cx": 0, "cy": 0, "radius": 2, "start_angle": -90, "end_angle": 450},
			obj{"type": "arc", "radius": 2.0, "start_angle": 270.0, "end_angle": 90.0, "length": 2 * math.Pi},
			map[string][2]float64{"center": {0, 0}}},
		{enginev1.ToolEntityCreateText, obj{"text": "Hello", "x": 5, "y": 6, "rotation": -30},
			obj{"type": "text", "text": "Hello", "height": 2.5, "rotation": 330.0},
			map[string][2]float64{"insertion": {5, 6}}},
		{enginev1.ToolEntityCreateEllipse, obj{"cx": 0, "cy": 0, "major_x": 0, "major_y": 3, "ratio": 0.5},
			obj{"type": "ellipse", "ratio": 0.5, "start_angle": 0.0, "end_angle": 360.0},
			map[string][2]float64{"center": {0, 0}, "major_axis": {0, 3}}},
	}
	for _, tt := range tests {
		h := f.handle(tt.tool, tt.args)
		got := f.get(h)
		if got["handle"] != h || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(got["fingerprint"].(string)) {
			t.Errorf("%s: entity_get = %v, want handle %s and a fingerprint", tt.tool, got, h)
		}
		for k, v := range tt.want {
			g, w := got[k], v
			if gf, ok := g.(float64); ok {
				if wf, ok := w.(float64); ok && near(gf, wf) {
					continue
				}
			}
			if g != w {
				t.Errorf("%s: %s = %v, want %v", tt.tool, k, g, w)
			}
		}
		for k, p := range tt.pts {
			if got[k] == nil || !nearPt(pt(got[k]), p) {
				t.Errorf("%s: %s = %v, want %v", tt.tool, k, got[k], p)
			}
		}
	}

	// Polylines: bulges, closed, length; rectangles are normalised.
	h := f.handle(enginev1.ToolEntityCreatePolyline, obj{"points": []any{obj{"x": 0, "y": 0, "bulge": 1}, obj{"x": 2, "y": 0}, obj{"x": 2, "y": 2, "bulge": 0.5}}, "closed": false})
	got := f.get(h)
	pts := got["points"].([]any)
	if len(pts) != 3 || pts[0].(map[string]any)["bulge"] != 1.0 || pts[2].(map[string]any)["bulge"] != nil || got["closed"] != false || !near(got["length"].(float64), math.Pi+2) {
		t.Errorf("open polyline = %v, want the last bulge ignored (length 2) and the first kept", got)
	}
	h = f.handle(enginev1.ToolEntityCreateRectangle, obj{"x1": 4, "y1": 3, "x2": 0, "y2": 0})
	got = f.get(h)
	want := [][2]float64{{0, 0}, {4, 0}, {4, 3}, {0, 3}}
	for i, p := range got["points"].([]any) {
		if !nearPt(pt(p), want[i]) {
			t.Errorf("rectangle vertex %d = %v, want %v", i, p, want[i])
		}
	}
	if got["closed"] != true || !near(got["length"].(float64), 14) {
		t.Errorf("rectangle = %v, want closed, length 14", got)
	}
}

func TestHandlesNeverReused(t *testing.T) {
	f := newFixture(t)
	a := f.handle(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0})
	if a != "100" {
		t.Errorf("first handle = %s, want 100", a)
	}
	f.ok(enginev1.ToolEntityDelete, obj{"handle": a})
	b := f.handle(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0})
	if b == a {
		t.Errorf("handle %s reused after delete", a)
	}
	// A failed batch consumes handles too, and they are not given back.
	f.fail(enginev1.ToolEntityBatchCreate, obj{"entities": []any{obj{"type": "point", "x": 0, "y": 0}, obj{"type": "point", "x": 0, "y": 0, "layer": "nope"}}}, kindFailed)
	c := f.handle(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0})
	if c != "103" {
		t.Errorf("handle after a batch that failed on its second entity = %s, want 103 (102 was used)", c)
	}
	f.fail(enginev1.ToolEntityGet, obj{"handle": a}, kindFailed)
}

func TestEntityListFiltersAndPaging(t *testing.T) {
	f := newFixture(t)
	f.ok(enginev1.ToolLayerCreate, obj{"name": "B"})
	var ents []any
	for i := 0; i < 25; i++ {
		ents = append(ents, obj{"type": "point", "x": i, "y": 0})
		ents = append(ents, obj{"type": "circle", "cx": i, "cy": 10, "radius": 0.5, "layer": "B"})
	}
	f.ok(enginev1.ToolEntityBatchCreate, obj{"entities": ents})

	var seen []string
	tok := ""
	for pages := 0; pages < 10; pages++ {
		args := obj{"page_size": 20, "types": []any{"circle"}}
		if tok != "" {
			args["page_token"] = tok
		}
		res := f.ok(enginev1.ToolEntityList, args)
		if res["total"] != 25.0 {
			t.Fatalf("total = %v, want 25", res["total"])
		}
		for _, e := range res["entities"].([]any) {
			m := e.(map[string]any)
			if m["type"] != "circle" || m["layer"] != "B" {
				t.Fatalf("listed %v, want only circles on B", m)
			}
			seen = append(seen, m["handle"].(string))
		}
		tok, _ = res["next_page_token"].(string)
		if tok == "" {
			break
		}
	}
	if len(seen) != 25 || !sort.SliceIsSorted(seen, func(i, j int) bool {
		return len(seen[i]) < len(seen[j]) || len(seen[i]) == len(seen[j]) && seen[i] < seen[j]
	}) {
		t.Errorf("paged circles = %v, want 25 in handle order", seen)
	}
	res := f.ok(enginev1.ToolEntityList, obj{"layers": []any{"0"}, "window": obj{"min_x": -0.5, "min_y": -1, "max_x": 4.5, "max_y": 1}})
	if res["total"] != 5.0 {
		t.Errorf("points in window = %v, want 5", res["total"])
	}
	f.fail(enginev1.ToolEntityList, obj{"page_token": "bogus"}, kindInvalid)
}

func TestSelectionWindow(t *testing.T) {
	f := newFixture(t)
	inside := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 1, "y1": 1, "x2": 2, "y2": 2})
	crossing := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 5, "y1": 5, "x2": 15, "y2": 5})
	around := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 5, "cy": 5, "radius": 20})                                   // encloses the window, touches nothing
	arcOut := f.handle(enginev1.ToolEntityCreateArc, obj{"cx": 0, "cy": 0, "radius": 5, "start_angle": 180, "end_angle": 270}) // its circle crosses, not the arc
	f.ok(enginev1.ToolLayerCreate, obj{"name": "hidden"})
	f.ok(enginev1.ToolEntityCreatePoint, obj{"x": 3, "y": 3, "layer": "hidden"})
	f.ok(enginev1.ToolLayerModify, obj{"name": "hidden", "on": false})

	res := f.ok(enginev1.ToolSelectionWindow, obj{"x1": 10, "y1": 10, "x2": 0, "y2": 0})
	if js(res["handles"]) != js([]any{inside}) {
		t.Errorf("window selection = %v, want [%s]", res["handles"], inside)
	}
	res = f.ok(enginev1.ToolSelectionWindow, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 10, "crossing": true})
	if js(res["handles"]) != js([]any{inside, crossing}) || res["count"] != 2.0 {
		t.Errorf("crossing selection = %v, want [%s %s] (not %s, %s)", res["handles"], inside, crossing, around, arcOut)
	}
}

func TestMeasure(t *testing.T) {
	f := newFixture(t)
	res := f.ok(enginev1.ToolAnalysisMeasureDistance, obj{"x1": 1, "y1": 1, "x2": -2, "y2": -3})
	if !near(res["distance"].(float64), 5) || res["dx"] != -3.0 || res["dy"] != -4.0 || !near(res["angle"].(float64), 180+53.13010235415598) {
		t.Errorf("measure distance = %v", res)
	}
	circle := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 2})
	arc := f.handle(enginev1.ToolEntityCreateArc, obj{"cx": 0, "cy": 0, "radius": 2, "start_angle": 0, "end_angle": 90})
	slot := f.handle(enginev1.ToolEntityCreatePolyline, obj{"closed": true, "points": []any{
		obj{"x": 0, "y": 0}, obj{"x": 4, "y": 0, "bulge": 1}, obj{"x": 4, "y": 2}, obj{"x": 0, "y": 2, "bulge": 1},
	}})
	ell := f.handle(enginev1.ToolEntityCreateEllipse, obj{"cx": 0, "cy": 0, "major_x": 2, "major_y": 0, "ratio": 0.5})
	pnt := f.handle(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0})
	tests := []struct {
		h    string
		want obj
	}{
		{circle, obj{"area": 4 * math.Pi, "perimeter": 4 * math.Pi}},
		{arc, obj{"length": math.Pi}},
		{slot, obj{"area": 8 + math.Pi, "perimeter": 8 + 2*math.Pi}},
		{ell, obj{"area": 2 * math.Pi, "perimeter": 9.688448220547675}},
	}
	for _, tt := range tests {
		got := f.ok(enginev1.ToolAnalysisMeasureEntity, obj{"handle": tt.h})
		if len(got) != len(tt.want) {
			t.Errorf("measure %s = %v, want %v", tt.h, got, tt.want)
		}
		for k, v := range tt.want {
			if g, _ := got[k].(float64); !near(g, v.(float64)) {
				t.Errorf("measure %s: %s = %v, want %v", tt.h, k, got[k], v)
			}
		}
	}
	f.fail(enginev1.ToolAnalysisMeasureEntity, obj{"handle": pnt}, kindFailed)

	bb := f.ok(enginev1.ToolAnalysisBoundingBox, obj{"handles": []any{arc, slot}})
	if !near(bb["min_x"].(float64), -1) || bb["min_y"] != 0.0 || !near(bb["max_x"].(float64), 5) || !near(bb["max_y"].(float64), 2) || bb["count"] != 2.0 {
		t.Errorf("bounding box of arc and slot = %v, want (-1,0)-(5,2)", bb)
	}
	bb = f.ok(enginev1.ToolAnalysisBoundingBox, obj{})
	if bb["count"] != 5.0 || !near(bb["width"].(float64), 7) {
		t.Errorf("bounding box of all = %v, want 5 entities, width 7", bb)
	}
}

func TestModifyTools(t *testing.T) {
	f := newFixture(t)
	line := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 2, "y2": 0})
	geom := func(h string) [2][2]float64 {
		g := f.get(h)
		return [2][2]float64{pt(g["start"]), pt(g["end"])}
	}
	expect := func(name, h string, a, b [2]float64) {
		t.Helper()
		g := geom(h)
		if !nearPt(g[0], a) || !nearPt(g[1], b) {
			t.Errorf("%s: line = %v, want %v %v", name, g, a, b)
		}
	}
	f.ok(enginev1.ToolEntityMove, obj{"handle": line, "dx": 1, "dy": 1})
	expect("move", line, [2]float64{1, 1}, [2]float64{3, 1})
	f.ok(enginev1.ToolEntityRotate, obj{"handle": line, "base_x": 1, "base_y": 1, "angle": 90})
	expect("rotate", line, [2]float64{1, 1}, [2]float64{1, 3})
	f.ok(enginev1.ToolEntityScale, obj{"handle": line, "base_x": 1, "base_y": 1, "factor": 0.5})
	expect("scale", line, [2]float64{1, 1}, [2]float64{1, 2})
	f.ok(enginev1.ToolEntityMirror, obj{"handle": line, "x1": 0, "y1": 0, "x2": 1, "y2": 1})
	expect("mirror", line, [2]float64{1, 1}, [2]float64{2, 1})
	cp := f.handle(enginev1.ToolEntityCopy, obj{"handle": line, "dx": 0, "dy": 5})
	expect("copy", cp, [2]float64{1, 6}, [2]float64{2, 6})
	expect("copy keeps the original", line, [2]float64{1, 1}, [2]float64{2, 1})
	mc := f.handle(enginev1.ToolEntityMirror, obj{"handle": line, "x1": 0, "y1": 0, "x2": 0, "y2": 1, "copy": true})
	expect("mirror copy", mc, [2]float64{-1, 1}, [2]float64{-2, 1})
	off := f.handle(enginev1.ToolEntityOffset, obj{"handle": line, "distance": 2})
	expect("offset left", off, [2]float64{1, 3}, [2]float64{2, 3})
	f.ok(enginev1.ToolEntityEditGeometry, obj{"handle": line, "end": obj{"x": 9, "y": 1}})
	expect("edit end", line, [2]float64{1, 1}, [2]float64{9, 1})
	f.ok(enginev1.ToolEntitySetProperties, obj{"handle": line, "color": 5, "linetype": "center"})
	if g := f.get(line); g["color"] != 5.0 || g["linetype"] != "CENTER" {
		t.Errorf("set_properties: %v", g)
	}
	f.fail(enginev1.ToolEntitySetProperties, obj{"handle": line, "layer": "missing"}, kindFailed)

	circle := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 2})
	oc := f.handle(enginev1.ToolEntityOffset, obj{"handle": circle, "distance": 1})
	if r := f.get(oc)["radius"]; r != 3.0 {
		t.Errorf("circle offset +1 radius = %v, want 3 (outside)", r)
	}
	f.fail(enginev1.ToolEntityOffset, obj{"handle": circle, "distance": -2}, kindFailed)
	arc := f.handle(enginev1.ToolEntityCreateArc, obj{"cx": 0, "cy": 0, "radius": 2, "start_angle": 0, "end_angle": 90})
	oa := f.handle(enginev1.ToolEntityOffset, obj{"handle": arc, "distance": -0.5})
	if g := f.get(oa); g["radius"] != 1.5 || g["start_angle"] != 0.0 || g["end_angle"] != 90.0 {
		t.Errorf("arc offset -0.5 = %v, want radius 1.5 same angles", g)
	}
	sq := f.handle(enginev1.ToolEntityCreateRectangle, obj{"x1": 0, "y1": 0, "x2": 4, "y2": 4})
	os := f.handle(enginev1.ToolEntityOffset, obj{"handle": sq, "distance": -1})
	if a := f.ok(enginev1.ToolAnalysisMeasureEntity, obj{"handle": os})["area"]; !near(a.(float64), 36) {
		t.Errorf("square offset outwards area = %v, want 36", a)
	}
	// A bulge of 0.5 from (0,0) to (1,0): an arc of radius 0.625 bowing
	// down, turning counter-clockwise, so its left is towards its centre.
	bulged := f.handle(enginev1.ToolEntityCreatePolyline, obj{"points": []any{obj{"x": 0, "y": 0, "bulge": 0.5}, obj{"x": 1, "y": 0}}})
	if e := f.fail(enginev1.ToolEntityOffset, obj{"handle": bulged, "distance": 1}, kindFailed); !strings.Contains(e.GetMessage(), "collapses") {
		t.Errorf("bulged offset past the centre = %q, want the arc to collapse", e.GetMessage())
	}
	ob := f.handle(enginev1.ToolEntityOffset, obj{"handle": bulged, "distance": -0.375})
	pts := f.get(ob)["points"].([]any)
	if len(pts) != 2 || !nearPt(pt(pts[0]), [2]float64{-0.3, -0.225}) || !nearPt(pt(pts[1]), [2]float64{1.3, -0.225}) || !near(pts[0].(obj)["bulge"].(float64), 0.5) {
		t.Errorf("bulged offset outwards = %s, want the arc of radius 1 about (0.5, 0.375) from (-0.3, -0.225) to (1.3, -0.225), bulge 0.5", js(pts))
	}
	f.fail(enginev1.ToolEntityOffset, obj{"handle": line, "distance": 0}, kindInvalid)

	// Delete many: all or nothing.
	before := f.info().EntityCount
	f.fail(enginev1.ToolEntityDeleteMany, obj{"handles": []any{line, "FFFFF"}}, kindFailed)
	if f.info().EntityCount != before {
		t.Fatal("a failed delete_many deleted something")
	}
	res := f.ok(enginev1.ToolEntityDeleteMany, obj{"handles": []any{circle, line, line}})
	if res["count"] != 2.0 || js(res["handles"]) != js([]any{line, circle}) {
		t.Errorf("delete_many = %v, want [%s %s]", res, line, circle)
	}
	res = f.ok(enginev1.ToolEntityDeleteMany, obj{"layers": []any{"0"}})
	if int64(res["count"].(float64)) != before-2 || f.info().EntityCount != 0 {
		t.Errorf("delete_many by layer = %v, %d left", res, f.info().EntityCount)
	}
}

func TestFingerprintAndContentHashThroughTools(t *testing.T) {
	f := newFixture(t)
	h := f.handle(enginev1.ToolEntityCreateArc, obj{"cx": 1, "cy": 1, "radius": 2, "start_angle": 10, "end_angle": 100})
	fp0, hash0 := f.get(h)["fingerprint"], f.info().ContentHash
	f.ok(enginev1.ToolEntityMove, obj{"handle": h, "dx": 3, "dy": -1})
	if f.get(h)["fingerprint"] == fp0 || f.info().ContentHash == hash0 {
		t.Fatal("moving an entity kept its fingerprint or the content hash")
	}
	f.ok(enginev1.ToolEntityMove, obj{"handle": h, "dx": -3, "dy": 1})
	if f.get(h)["fingerprint"] != fp0 || f.info().ContentHash != hash0 {
		t.Error("moving back did not restore the fingerprint and content hash")
	}
	f.ok(enginev1.ToolEntitySetProperties, obj{"handle": h, "color": 256})
	if f.get(h)["fingerprint"] != fp0 {
		t.Error("setting the colour it already had changed the fingerprint")
	}
	f.ok(enginev1.ToolLayerCreate, obj{"name": "x"})
	if f.info().ContentHash == hash0 {
		t.Error("creating a layer kept the content hash")
	}
	f.ok(enginev1.ToolLayerDelete, obj{"name": "x"})
	if f.info().ContentHash != hash0 {
		t.Error("deleting the new layer did not restore the content hash")
	}
	f.ok(enginev1.ToolLayerSetCurrent, obj{"name": "0"})
	if f.info().ContentHash != hash0 {
		t.Error("re-setting the current layer changed the content hash")
	}
}

func TestExactPointTools(t *testing.T) {
	f := newFixture(t)
	l1 := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": -5, "y1": 0, "x2": 5, "y2": 0})
	c1 := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 2})
	a1 := f.handle(enginev1.ToolEntityCreateArc, obj{"cx": 0, "cy": 0, "radius": 3, "start_angle": 0, "end_angle": 90})
	l2 := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 1, "x2": 4, "y2": 5})

	res := f.ok(enginev1.ToolPointIntersection, obj{"handle1": l1, "handle2": c1, "ref_x": -10, "ref_y": 0})
	if res["count"] != 2.0 || !nearPt([2]float64{res["x"].(float64), res["y"].(float64)}, [2]float64{-2, 0}) {
		t.Errorf("line × circle nearest (-10,0) = %v, want (-2,0) of 2", res)
	}
	res = f.ok(enginev1.ToolPointIntersection, obj{"handle1": l1, "handle2": a1})
	if res["count"] != 1.0 || !nearPt([2]float64{res["x"].(float64), res["y"].(float64)}, [2]float64{3, 0}) {
		t.Errorf("line × arc = %v, want only (3,0): (-3,0) is outside the sweep", res)
	}
	f.fail(enginev1.ToolPointIntersection, obj{"handle1": l2, "handle2": l1}, kindFailed) // segments do not reach
	res = f.ok(enginev1.ToolPointFromSnap, obj{"handle": a1, "snap": "mid"})
	if s := 3 / math.Sqrt2; !nearPt([2]float64{res["x"].(float64), res["y"].(float64)}, [2]float64{s, s}) {
		t.Errorf("arc mid = %v", res)
	}
	res = f.ok(enginev1.ToolPointFromSnap, obj{"handle": l2, "snap": "end", "ref_x": 5, "ref_y": 5})
	if res["x"] != 4.0 || res["y"] != 5.0 {
		t.Errorf("end nearest (5,5) = %v, want (4,5)", res)
	}
	f.fail(enginev1.ToolPointFromSnap, obj{"handle": c1, "snap": "end"}, kindFailed)
	res = f.ok(enginev1.ToolPointTangent, obj{"handle": c1, "from_x": 4, "from_y": 0, "ref_x": 0, "ref_y": -5})
	if res["count"] != 2.0 || !nearPt([2]float64{res["x"].(float64), res["y"].(float64)}, [2]float64{1, -math.Sqrt(3)}) {
		t.Errorf("tangent from (4,0) nearest (0,-5) = %v, want (1,-√3)", res)
	}
	f.fail(enginev1.ToolPointTangent, obj{"handle": c1, "from_x": 1, "from_y": 0}, kindFailed)
	f.fail(enginev1.ToolPointTangent, obj{"handle": l1, "from_x": 9, "from_y": 9}, kindFailed)
	res = f.ok(enginev1.ToolPointTangent, obj{"handle": a1, "from_x": 6, "from_y": 0})
	if res["count"] != 1.0 {
		t.Errorf("tangents to the quarter arc from (6,0) = %v, want 1 (the other is outside the sweep)", res)
	}
}

func TestLayerTools(t *testing.T) {
	f := newFixture(t)
	f.ok(enginev1.ToolLayerCreate, obj{"name": "Walls", "color": 1, "linetype": "dashed", "lineweight": 50})
	f.fail(enginev1.ToolLayerCreate, obj{"name": "walls"}, kindRefused)
	f.fail(enginev1.ToolLayerCreate, obj{"name": "x", "lineweight": 7}, kindInvalid)
	e := f.fail(enginev1.ToolLayerLock, obj{"name": "walls"}, kindFailed)
	if !regexp.MustCompile(`Walls`).MatchString(e.GetMessage()) {
		t.Errorf("missing-layer message %q does not name the case variant", e.GetMessage())
	}
	f.ok(enginev1.ToolLayerSetCurrent, obj{"name": "Walls"})
	h := f.handle(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0})
	if f.get(h)["layer"] != "Walls" {
		t.Error("new entities do not go to the current layer")
	}
	f.fail(enginev1.ToolLayerModify, obj{"name": "Walls", "frozen": true}, kindRefused)
	f.fail(enginev1.ToolLayerDelete, obj{"name": "Walls"}, kindRefused)
	f.fail(enginev1.ToolLayerDelete, obj{"name": "0"}, kindRefused)
	f.ok(enginev1.ToolLayerSetCurrent, obj{"name": "0"})
	f.ok(enginev1.ToolLayerModify, obj{"name": "Walls", "frozen": true, "color": 3})
	f.fail(enginev1.ToolLayerSetCurrent, obj{"name": "Walls"}, kindRefused)
	res := f.ok(enginev1.ToolLayerList, nil)
	layers := res["layers"].([]any)
	walls := layers[1].(map[string]any)
	if res["current_layer"] != "0" || len(layers) != 2 || walls["color"] != 3.0 || walls["frozen"] != true || walls["linetype"] != "DASHED" || walls["lineweight"] != 50.0 || walls["entity_count"] != 1.0 {
		t.Errorf("layer_list = %v", res)
	}
	del := f.ok(enginev1.ToolLayerDelete, obj{"name": "Walls"})
	if del["deleted_entities"] != 1.0 || f.info().EntityCount != 0 {
		t.Errorf("layer_delete = %v", del)
	}
}

// TestArgsAsStruct: a caller of the contract before args_json gives
// arguments as a Struct; the engine takes them as it takes JSON, and the
// two forms of the same request are the same operation.
func TestArgsAsStruct(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	caller := engine.Caller{Principal: "tester"}
	args := obj{"x1": 0, "y1": 0, "x2": 3, "y2": 4, "linetype": "dashed"}
	viaStruct, err := f.e.CallTool(ctx, caller, &enginev1.CallToolRequest{
		DocumentId: &f.doc, Tool: enginev1.ToolEntityCreateLine, Args: mustStruct(t, args), OperationId: ptr("both-forms"),
	})
	if err != nil || !viaStruct.Ok {
		t.Fatalf("CallTool with Struct args = %v, %v", viaStruct, err)
	}
	// Keys in another order, and 3.0 for 3: the same request.
	viaJSON, err := f.e.CallTool(ctx, caller, &enginev1.CallToolRequest{
		DocumentId: &f.doc, Tool: enginev1.ToolEntityCreateLine, ArgsJson: []byte(`{"y2":4,"x2":3.0,"linetype":"dashed","x1":0,"y1":0}`), OperationId: ptr("both-forms"),
	})
	if err != nil || !viaJSON.Replayed || string(viaJSON.ResultJson) != string(viaStruct.ResultJson) {
		t.Errorf("the same call as JSON = %v, %v; want the Struct call replayed", viaJSON, err)
	}
	if got := f.get(resultObj(viaStruct.ResultJson)["handle"].(string))["linetype"]; got != "DASHED" {
		t.Errorf("line linetype = %v, want DASHED", got)
	}
}
