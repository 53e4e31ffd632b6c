package engine_test

import (
	"math"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// X0, Y0 place the test figures at survey coordinates, where tolerances
// must follow the figure's size, not where it sits.
const X0, Y0 = 500000.0, 4200000.0

func within(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func handlesOf(r obj, key string) []string {
	var out []string
	for _, h := range r[key].([]any) {
		out = append(out, h.(string))
	}
	return out
}

// plate draws a 100 × 60 plate of four lines at survey coordinates and
// returns the bottom and right edges.
func plate(f *fixture) (bottom, right, top, left string) {
	line := func(x1, y1, x2, y2 float64) string {
		return f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0 + x1, "y1": Y0 + y1, "x2": X0 + x2, "y2": Y0 + y2})
	}
	return line(0, 0, 100, 0), line(100, 0, 100, 60), line(100, 60, 0, 60), line(0, 60, 0, 0)
}

func TestFilletPlateCorner(t *testing.T) {
	f := newFixture(t)
	bottom, right, _, _ := plate(f)
	r := f.ok(enginev1.ToolEntityFillet, obj{"handle1": bottom, "handle2": right, "radius": 10})
	hs := handlesOf(r, "handles")
	if len(hs) != 3 || hs[0] != r["handle"] || hs[1] != bottom || hs[2] != right {
		t.Fatalf("fillet handles = %v, want the arc, then the two lines", hs)
	}
	arc := f.get(r["handle"].(string))
	c := pt(arc["center"])
	if arc["type"] != "arc" || !within(c[0], X0+90, 1e-6) || !within(c[1], Y0+10, 1e-6) || !within(arc["radius"].(float64), 10, 1e-9) {
		t.Errorf("fillet arc = %v, want centre (90, 10) radius 10", arc)
	}
	if !within(arc["start_angle"].(float64), 270, 1e-6) || !within(arc["end_angle"].(float64), 0, 1e-6) && !within(arc["end_angle"].(float64), 360, 1e-6) {
		t.Errorf("fillet arc angles = %v..%v, want 270..0", arc["start_angle"], arc["end_angle"])
	}
	b, rt := f.get(bottom), f.get(right)
	if e := pt(b["end"]); !within(e[0], X0+90, 1e-6) || !within(e[1], Y0, 1e-6) || pt(b["start"]) != [2]float64{X0, Y0} {
		t.Errorf("bottom = %v..%v, want trimmed to (90, 0)", b["start"], b["end"])
	}
	if s := pt(rt["start"]); !within(s[0], X0+100, 1e-6) || !within(s[1], Y0+10, 1e-6) {
		t.Errorf("right = %v..%v, want trimmed to (100, 10)", rt["start"], rt["end"])
	}
}

func TestFilletOptions(t *testing.T) {
	t.Run("no trim", func(t *testing.T) {
		f := newFixture(t)
		bottom, right, _, _ := plate(f)
		before := f.get(bottom)["fingerprint"]
		r := f.ok(enginev1.ToolEntityFillet, obj{"handle1": bottom, "handle2": right, "radius": 10, "trim": false})
		if hs := handlesOf(r, "handles"); len(hs) != 1 || f.get(bottom)["fingerprint"] != before {
			t.Errorf("fillet without trim changed %v", hs)
		}
	})
	t.Run("radius 0 extends to a sharp corner", func(t *testing.T) {
		f := newFixture(t)
		a := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0, "y1": Y0, "x2": X0 + 80, "y2": Y0})
		b := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0 + 100, "y1": Y0 + 20, "x2": X0 + 100, "y2": Y0 + 60})
		n := f.info().EntityCount
		f.ok(enginev1.ToolEntityFillet, obj{"handle1": a, "handle2": b, "radius": 0})
		if e := pt(f.get(a)["end"]); !within(e[0], X0+100, 1e-6) || f.info().EntityCount != n {
			t.Errorf("sharp corner: first line ends at %v, entities %d → %d", e, n, f.info().EntityCount)
		}
		if s := pt(f.get(b)["start"]); !within(s[1], Y0, 1e-6) {
			t.Errorf("sharp corner: second line starts at %v, want y = 0", s)
		}
	})
	t.Run("circle stays whole", func(t *testing.T) {
		f := newFixture(t)
		l := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0 - 100, "y1": Y0, "x2": X0 + 100, "y2": Y0})
		ci := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": X0, "cy": Y0 + 30, "radius": 20})
		before := f.get(ci)["fingerprint"]
		r := f.ok(enginev1.ToolEntityFillet, obj{"handle1": l, "handle2": ci, "radius": 10, "pick1_x": X0 - 50, "pick1_y": Y0})
		arc := f.get(r["handle"].(string))
		c := pt(arc["center"])
		// Tangent to the line (10 above it) and to the circle from outside (30 from its centre).
		if !within(c[1]-Y0, 10, 1e-6) || !within(math.Hypot(c[0]-X0, c[1]-Y0-30), 30, 1e-6) {
			t.Errorf("fillet centre %v, want 10 from the line and 30 from the circle's centre", c)
		}
		if f.get(ci)["fingerprint"] != before {
			t.Errorf("the circle changed")
		}
		if hs := handlesOf(r, "handles"); len(hs) != 2 || hs[1] != l {
			t.Errorf("handles = %v, want the arc and the line only", hs)
		}
	})
	t.Run("polyline corners", func(t *testing.T) {
		f := newFixture(t)
		pl := f.handle(enginev1.ToolEntityCreateRectangle, obj{"x1": X0, "y1": Y0, "x2": X0 + 100, "y2": Y0 + 60})
		r := f.ok(enginev1.ToolEntityFillet, obj{"handle1": pl, "handle2": pl, "radius": 10, "all": true})
		if r["corners"] != 4.0 || r["handle"] != pl {
			t.Errorf("fillet all = %v, want 4 corners of %s", r, pl)
		}
		m := f.ok(enginev1.ToolAnalysisMeasureEntity, obj{"handle": pl})
		if want := 6000 - (4-math.Pi)*100; !within(m["area"].(float64), want, 1e-6) {
			t.Errorf("rounded plate area = %v, want %v", m["area"], want)
		}
		pl2 := f.handle(enginev1.ToolEntityCreateRectangle, obj{"x1": X0, "y1": Y0, "x2": X0 + 100, "y2": Y0 + 60})
		f.ok(enginev1.ToolEntityChamfer, obj{"handle1": pl2, "handle2": pl2, "distance1": 10, "distance2": 4, "vertex": 1})
		if m := f.ok(enginev1.ToolAnalysisMeasureEntity, obj{"handle": pl2}); !within(m["area"].(float64), 6000-20, 1e-6) {
			t.Errorf("chamfered plate area = %v, want 5980", m["area"])
		}
	})
}

func TestFilletFailures(t *testing.T) {
	f := newFixture(t)
	a := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0, "y1": Y0, "x2": X0 + 10, "y2": Y0})
	b := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0, "y1": Y0 + 5, "x2": X0 + 10, "y2": Y0 + 5})
	c := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0 + 10, "y1": Y0, "x2": X0 + 10, "y2": Y0 - 10})
	txt := f.handle(enginev1.ToolEntityCreateText, obj{"text": "x", "x": X0, "y": Y0})
	for _, tc := range []struct {
		name string
		tool string
		args obj
		kind enginev1.ErrorKind
		says string
	}{
		{"parallel", enginev1.ToolEntityFillet, obj{"handle1": a, "handle2": b, "radius": 1}, enginev1.ErrorKind_ERROR_KIND_FAILED, "parallel"},
		{"too large", enginev1.ToolEntityFillet, obj{"handle1": a, "handle2": c, "radius": 50}, enginev1.ErrorKind_ERROR_KIND_FAILED, "radius too large"},
		{"text", enginev1.ToolEntityFillet, obj{"handle1": a, "handle2": txt, "radius": 1}, enginev1.ErrorKind_ERROR_KIND_FAILED, "is a text"},
		{"half a pick", enginev1.ToolEntityFillet, obj{"handle1": a, "handle2": c, "radius": 1, "pick1_x": 3}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS, "go together"},
		{"same line", enginev1.ToolEntityFillet, obj{"handle1": a, "handle2": a, "radius": 1, "all": true}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS, "polyline's own corners"},
		{"negative radius", enginev1.ToolEntityFillet, obj{"handle1": a, "handle2": c, "radius": -1}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS, ""},
		{"chamfer an arc", enginev1.ToolEntityChamfer, obj{"handle1": a, "handle2": f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": X0, "cy": Y0, "radius": 3}), "distance1": 1}, enginev1.ErrorKind_ERROR_KIND_UNSUPPORTED, "not curves"},
		{"chamfer one distance 0", enginev1.ToolEntityChamfer, obj{"handle1": a, "handle2": c, "distance1": 1, "distance2": 0}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS, "both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rev := f.info().Revision
			e := f.fail(tc.tool, tc.args, tc.kind)
			if !strings.Contains(e.GetMessage(), tc.says) {
				t.Errorf("message %q, want it to say %q", e.GetMessage(), tc.says)
			}
			if f.info().Revision != rev {
				t.Errorf("a failed call changed the document")
			}
		})
	}
}

func TestChamferLines(t *testing.T) {
	f := newFixture(t)
	bottom, right, _, _ := plate(f)
	r := f.ok(enginev1.ToolEntityChamfer, obj{"handle1": bottom, "handle2": right, "distance1": 6, "distance2": 8})
	cut := f.get(r["handle"].(string))
	if cut["type"] != "line" || !within(cut["length"].(float64), 10, 1e-6) {
		t.Errorf("chamfer = %v, want a line of length 10", cut)
	}
	if e := pt(f.get(bottom)["end"]); !within(e[0], X0+94, 1e-6) {
		t.Errorf("bottom ends at %v, want x = 94", e)
	}
	if s := pt(f.get(right)["start"]); !within(s[1], Y0+8, 1e-6) {
		t.Errorf("right starts at %v, want y = 8", s)
	}
}

// TestCornersInBatch: a fillet takes $references and is one step of a
// batch like any other.
func TestCornersInBatch(t *testing.T) {
	f := newFixture(t)
	resp := f.batch(f.batchReq(
		st(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 50, "y2": 0}, "a"),
		st(enginev1.ToolEntityCreateLine, obj{"x1": 50, "y1": 0, "x2": 50, "y2": 50}, "b"),
		st(enginev1.ToolEntityFillet, obj{"handle1": "$a", "handle2": "$b", "radius": 5}, "f"),
		st(enginev1.ToolAnalysisMeasureEntity, obj{"handle": "$f"}),
	))
	if !resp.Ok || statuses(resp) != "oooo" {
		t.Fatalf("batch = %s %v", statuses(resp), resp.Results)
	}
	// The arc a quarter turn of radius 5: its length.
	if l := resultObj(resp.Results[3].ResultJson)["length"]; !within(l.(float64), 5*math.Pi/2, 1e-9) {
		t.Errorf("the bound fillet arc's length = %v, want %v", l, 5*math.Pi/2)
	}
}

// TestFilletPolylineEnd: an open polyline's straight end segment and a
// line; the polyline's end vertex moves to the tangent point, its other
// vertices stay.
func TestFilletPolylineEnd(t *testing.T) {
	f := newFixture(t)
	pl := f.handle(enginev1.ToolEntityCreatePolyline, obj{"points": []any{
		obj{"x": X0, "y": Y0 + 50}, obj{"x": X0, "y": Y0}, obj{"x": X0 + 80, "y": Y0},
	}})
	l := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0 + 100, "y1": Y0 + 10, "x2": X0 + 100, "y2": Y0 + 60})
	r := f.ok(enginev1.ToolEntityFillet, obj{"handle1": pl, "handle2": l, "radius": 5})
	if hs := handlesOf(r, "handles"); len(hs) != 3 || hs[1] != pl || hs[2] != l {
		t.Fatalf("handles = %v", hs)
	}
	pts := f.get(pl)["points"].([]any)
	if len(pts) != 3 || pt(pts[1]) != [2]float64{X0, Y0} {
		t.Fatalf("polyline = %v, want three points, the corner kept", pts)
	}
	if e := pt(pts[2]); !within(e[0], X0+95, 1e-6) || !within(e[1], Y0, 1e-6) {
		t.Errorf("polyline end = %v, want the tangent point (95, 0)", e)
	}
	if s := pt(f.get(l)["start"]); !within(s[0], X0+100, 1e-6) || !within(s[1], Y0+5, 1e-6) {
		t.Errorf("line start = %v, want extended to (100, 5)", s)
	}
}

// TestFilletPolylineArcEnd: an open polyline ending in a half circle
// (about (50, 20), radius 20, bulging right) and a vertical line 10 to
// its right, picked on their lower parts; the fillet of radius 10 is 30
// from the circle's centre and 10 from the line, below the centre, and
// the polyline's arc is cut back to the tangent point (the half circle's
// upper part goes, the line's upper part too).
func TestFilletPolylineArcEnd(t *testing.T) {
	f := newFixture(t)
	pl := f.handle(enginev1.ToolEntityCreatePolyline, obj{"points": []any{
		obj{"x": X0, "y": Y0}, obj{"x": X0 + 50, "y": Y0, "bulge": 1}, obj{"x": X0 + 50, "y": Y0 + 40},
	}})
	l := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0 + 80, "y1": Y0 - 30, "x2": X0 + 80, "y2": Y0 + 60})
	r := f.ok(enginev1.ToolEntityFillet, obj{"handle1": pl, "handle2": l, "radius": 10,
		"pick1_x": X0 + 50 + 20*math.Cos(-math.Pi/4), "pick1_y": Y0 + 20 + 20*math.Sin(-math.Pi/4), "pick2_x": X0 + 80, "pick2_y": Y0 - 20})
	c := pt(f.get(r["handle"].(string))["center"])
	if !within(c[0], X0+70, 1e-6) || !within(math.Hypot(c[0]-X0-50, c[1]-Y0-20), 30, 1e-6) || c[1] > Y0 {
		t.Fatalf("fillet centre (%v, %v), want (70, 20 - sqrt(500))", c[0]-X0, c[1]-Y0)
	}
	pts := f.get(pl)["points"].([]any)
	end := pt(pts[2])
	tangent := [2]float64{X0 + 50 + 20*(c[0]-X0-50)/30, Y0 + 20 + 20*(c[1]-Y0-20)/30}
	if len(pts) != 3 || math.Hypot(end[0]-tangent[0], end[1]-tangent[1]) > 1e-6 {
		t.Errorf("polyline now ends at %v, want the tangent point %v", end, tangent)
	}
	// The arc from (50, 0) to the tangent point, on the same circle:
	// its bulge is tan(sweep/4) with sweep from -90° to the tangent's angle.
	sweep := math.Atan2(tangent[1]-Y0-20, tangent[0]-X0-50) + math.Pi/2
	if b := pts[1].(map[string]any)["bulge"].(float64); !within(b, math.Tan(sweep/4), 1e-9) {
		t.Errorf("bulge %v, want %v", b, math.Tan(sweep/4))
	}
	if e := pt(f.get(l)["end"]); !within(e[1], c[1], 1e-6) || pt(f.get(l)["start"])[1] != Y0-30 {
		t.Errorf("line now %v..%v, want its lower part up to the tangent point", f.get(l)["start"], e)
	}
}
