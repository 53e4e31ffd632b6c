package engine_test

import (
	"math"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// The three places an independent geometry oracle found the engine wrong,
// as a user meets them through the tools.

func TestSurveyScaleIntersectionTool(t *testing.T) {
	f := newFixture(t)
	line := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": -127778.47038126354, "y1": -4121950.6985063474, "x2": -127778.31738520652, "y2": -4121950.756666172})
	circle := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": -127778.41940293532, "cy": -4121950.7720430885, "radius": 0.05064624390285421})
	res := f.ok(enginev1.ToolPointIntersection, obj{"handle1": line, "handle2": circle})
	if res["count"] != 2.0 {
		t.Errorf("point_intersection(survey line, circle) count = %v, want 2 (the points are 3.0 mm apart)", res["count"])
	}
}

func TestBowTieMeasure(t *testing.T) {
	f := newFixture(t)
	h := f.handle(enginev1.ToolEntityCreatePolyline, obj{"closed": true, "points": []any{
		obj{"x": -1437.8130547602368, "y": 2616.1315091421075},
		obj{"x": -399.47484838959986, "y": 3368.7753736222794},
		obj{"x": -399.47484838959986, "y": 2616.1315091421075},
		obj{"x": -1437.8130547602368, "y": 3368.7753736222794},
	}})
	res := f.ok(enginev1.ToolAnalysisMeasureEntity, obj{"handle": h})
	if a := res["area"].(float64); math.Abs(a-390749.44) > 0.01 {
		t.Errorf("analysis_measure_entity(bow-tie) area = %v, want 390749.44 (the area it encloses)", a)
	}
}

func TestOffsetThatSplitsTool(t *testing.T) {
	f := newFixture(t)
	var pts []any
	for _, p := range [][2]float64{{0, 0}, {10, 0}, {10, 4}, {14, 4}, {14, 0}, {24, 0}, {24, 10}, {14, 10}, {14, 6}, {10, 6}, {10, 10}, {0, 10}} {
		pts = append(pts, obj{"x": p[0], "y": p[1]})
	}
	h := f.handle(enginev1.ToolEntityCreatePolyline, obj{"closed": true, "points": pts})
	before := f.info().EntityCount
	res := f.ok(enginev1.ToolEntityOffset, obj{"handle": h, "distance": 1.5})
	hs := res["handles"].([]any)
	if len(hs) != 2 || res["handle"] != hs[0] {
		t.Fatalf("entity_offset(H, 1.5) = %v, want two handles, the first also as handle", res)
	}
	for _, x := range hs {
		m := f.ok(enginev1.ToolAnalysisMeasureEntity, obj{"handle": x})
		if a := m["area"].(float64); math.Abs(a-49) > 1e-9 {
			t.Errorf("piece %v area = %v, want 49", x, a)
		}
	}
	if got := f.info().EntityCount; got != before+2 {
		t.Errorf("entity count after the offset = %d, want %d", got, before+2)
	}
	// An open polyline whose offset would cross itself fails.
	open := f.handle(enginev1.ToolEntityCreatePolyline, obj{"points": []any{obj{"x": 0, "y": 0}, obj{"x": 10, "y": 0}, obj{"x": 10, "y": 1}, obj{"x": 0, "y": 1}}})
	f.fail(enginev1.ToolEntityOffset, obj{"handle": open, "distance": 0.8}, kindFailed)
}
