package engine_test

import (
	"math"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
)

// quarterCircle is a DXF SPLINE of the quarter circle of radius 10 about
// the origin, from (10, 0) to (0, 10), as the exact rational quadratic.
var quarterCircle = dxfFile("", "", "0\nSPLINE\n8\n0\n70\n12\n71\n2\n72\n6\n73\n3\n"+
	"40\n0\n40\n0\n40\n0\n40\n1\n40\n1\n40\n1\n"+
	"41\n1\n41\n0.7071067811865476\n41\n1\n"+
	"10\n10\n20\n0\n30\n0\n10\n10\n20\n10\n30\n0\n10\n0\n20\n10\n30\n0\n")

// TestSpline: a spline read from a file is a native entity, measured,
// bounded, snapped and moved exactly; offsetting it is unsupported, with
// the capability named; it draws and exports (a SPLINE in 2018, its
// polyline in R12).
func TestSpline(t *testing.T) {
	e := newEngine(t, nil)
	f := importDXF(t, e, "spline", quarterCircle)
	ents := f.entities()
	if len(ents) != 1 || ents[0]["type"] != "spline" {
		t.Fatalf("entities = %s, want one spline", js(ents))
	}
	s := ents[0]
	h := s["handle"].(string)
	if sp := s["spline"].(obj); sp["degree"] != 2.0 || len(sp["knots"].([]any)) != 6 || len(sp["weights"].([]any)) != 3 || !near(s["length"].(float64), 5*math.Pi) {
		t.Errorf("spline = %s, want degree 2, 6 knots, 3 weights, length 5π", js(s))
	}
	if m := f.ok(enginev1.ToolAnalysisMeasureEntity, obj{"handle": h}); !near(m["length"].(float64), 5*math.Pi) {
		t.Errorf("measure = %v, want length 5π", m)
	}
	bb := f.ok(enginev1.ToolAnalysisBoundingBox, nil)
	if math.Abs(bb["min_x"].(float64)) > 1e-9 || math.Abs(bb["max_x"].(float64)-10) > 1e-9 || math.Abs(bb["max_y"].(float64)-10) > 1e-9 {
		t.Errorf("bounding box = %v, want 0 to 10 each way", bb)
	}
	r := 10 / math.Sqrt2
	for _, tc := range []struct {
		args obj
		want [2]float64
		tol  float64
	}{
		{obj{"snap": "end", "ref_x": 11, "ref_y": 0}, [2]float64{10, 0}, 1e-12},
		{obj{"snap": "end", "ref_x": 0, "ref_y": 11}, [2]float64{0, 10}, 1e-12},
		{obj{"snap": "mid"}, [2]float64{r, r}, 1e-5},
		{obj{"snap": "near", "ref_x": 20, "ref_y": 20}, [2]float64{r, r}, 1e-9},
	} {
		tc.args["handle"] = h
		p := f.ok(enginev1.ToolPointFromSnap, tc.args)
		if math.Hypot(p["x"].(float64)-tc.want[0], p["y"].(float64)-tc.want[1]) > tc.tol {
			t.Errorf("snap %v = (%v, %v), want %v", tc.args["snap"], p["x"], p["y"], tc.want)
		}
	}
	te := f.fail(enginev1.ToolEntityOffset, obj{"handle": h, "distance": 1}, enginev1.ErrorKind_ERROR_KIND_UNSUPPORTED)
	if te.GetCapability() != "offset_spline" {
		t.Errorf("offset error = %v, want capability offset_spline", te)
	}
	f.ok(enginev1.ToolEntityMove, obj{"handle": h, "dx": 5, "dy": -5})
	moved := f.get(h)["spline"].(obj)["control_points"].([]any)
	if !nearPt(pt(moved[0]), [2]float64{15, -5}) || !nearPt(pt(moved[2]), [2]float64{5, 5}) {
		t.Errorf("moved control points = %s, want each moved by (5, -5)", js(moved))
	}
	if svg := exportOf(t, f, "svg"); !strings.Contains(svg, `data-type="spline"`) || !strings.Contains(svg, "<path") {
		t.Errorf("the SVG does not draw the spline:\n%.400s", svg)
	}
	if r12 := exportWith(t, f, "dxf", obj{"dxf_version": "r12"}); !strings.Contains(r12, "\nPOLYLINE\n") || strings.Contains(r12, "\nSPLINE\n") {
		t.Error("the R12 export does not write the spline as a polyline")
	}
	dxf := exportOf(t, f, "dxf")
	if got := ezdxftest.Audit(t, dxf); got != nil && got["SPLINE"] != 1 {
		t.Errorf("ezdxf reads %v in the 2018 export, want the spline", got)
	}
	back := importDXF(t, e, "back", dxf)
	if got := back.entities()[0]["spline"]; js(got) != js(f.get(h)["spline"]) {
		t.Errorf("spline after a round trip = %s, want %s", js(got), js(f.get(h)["spline"]))
	}
}
