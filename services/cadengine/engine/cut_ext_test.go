package engine_test

import (
	"math"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

func TestTrimTool(t *testing.T) {
	t.Run("overhang at a plate edge", func(t *testing.T) {
		f := newFixture(t)
		_, right, _, _ := plate(f)
		// A line from inside the plate across its right edge.
		l := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0 + 50, "y1": Y0 + 30, "x2": X0 + 130, "y2": Y0 + 30})
		r := f.ok(enginev1.ToolEntityTrim, obj{"handle": l, "pick_x": X0 + 120, "pick_y": Y0 + 30, "edges": []any{right}})
		if hs := handlesOf(r, "handles"); len(hs) != 1 || hs[0] != l {
			t.Errorf("handles = %v, want the line only", hs)
		}
		if e := pt(f.get(l)["end"]); !within(e[0], X0+100, 1e-6) || !within(e[1], Y0+30, 1e-6) {
			t.Errorf("trimmed line ends at %v, want at the edge (100, 30)", e)
		}
	})
	t.Run("middle of a line, every entity an edge", func(t *testing.T) {
		f := newFixture(t)
		l := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0, "y1": Y0, "x2": X0 + 100, "y2": Y0})
		f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0 + 30, "y1": Y0 - 10, "x2": X0 + 30, "y2": Y0 + 10})
		f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": X0 + 80, "cy": Y0, "radius": 10})
		n := f.info().EntityCount
		r := f.ok(enginev1.ToolEntityTrim, obj{"handle": l, "pick_x": X0 + 50, "pick_y": Y0})
		hs := handlesOf(r, "handles")
		if len(hs) != 2 || hs[0] != l || f.info().EntityCount != n+1 {
			t.Fatalf("handles = %v, want the line and a new piece", hs)
		}
		if e := pt(f.get(l)["end"]); !within(e[0], X0+30, 1e-6) {
			t.Errorf("first piece ends at %v, want x = 30", e)
		}
		if s := pt(f.get(hs[1])["start"]); !within(s[0], X0+70, 1e-6) {
			t.Errorf("second piece starts at %v, want x = 70 on the circle", s)
		}
	})
	t.Run("circle becomes an arc", func(t *testing.T) {
		f := newFixture(t)
		ci := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": X0, "cy": Y0, "radius": 10})
		f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0 - 20, "y1": Y0 + 6, "x2": X0 + 20, "y2": Y0 + 6})
		f.ok(enginev1.ToolEntityTrim, obj{"handle": ci, "pick_x": X0, "pick_y": Y0 + 10})
		a := f.get(ci)
		if a["type"] != "arc" {
			t.Fatalf("trimmed circle = %v, want an arc", a["type"])
		}
		// The bottom is kept: from the right crossing clockwise round.
		s, e := a["start_angle"].(float64), a["end_angle"].(float64)
		want := math.Asin(0.6) * 180 / math.Pi
		if !within(e, want, 1e-6) || !within(s, 180-want, 1e-6) {
			t.Errorf("arc %v..%v, want %v..%v", s, e, 180-want, want)
		}
	})
	t.Run("spline as the cutting edge", func(t *testing.T) {
		f := importDXF(t, newEngine(t, nil), "spline", quarterCircle)
		edge := f.entities()[0]["handle"].(string)
		l := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 20, "y2": 20})
		f.ok(enginev1.ToolEntityTrim, obj{"handle": l, "pick_x": 15, "pick_y": 15, "edges": []any{edge}})
		// The spline is the quarter circle of radius 10, drawn within 1e-6 of its size.
		r := 10 / math.Sqrt2
		if e := pt(f.get(l)["end"]); math.Hypot(e[0]-r, e[1]-r) > 1e-4 {
			t.Errorf("line trimmed at the spline ends at %v, want (%v, %v)", e, r, r)
		}
	})
	t.Run("nothing crosses", func(t *testing.T) {
		f := newFixture(t)
		l := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0, "y1": Y0, "x2": X0 + 100, "y2": Y0})
		e := f.fail(enginev1.ToolEntityTrim, obj{"handle": l, "pick_x": X0 + 50, "pick_y": Y0}, enginev1.ErrorKind_ERROR_KIND_FAILED)
		if !strings.Contains(e.GetMessage(), "no cutting edge") {
			t.Errorf("message %q", e.GetMessage())
		}
	})
}

func TestExtendTool(t *testing.T) {
	f := newFixture(t)
	ci := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": X0 + 100, "cy": Y0, "radius": 10})
	l := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0, "y1": Y0, "x2": X0 + 50, "y2": Y0})
	r := f.ok(enginev1.ToolEntityExtend, obj{"handle": l, "pick_x": X0 + 49, "pick_y": Y0})
	if r["handle"] != l {
		t.Errorf("extend = %v", r)
	}
	if e := pt(f.get(l)["end"]); !within(e[0], X0+90, 1e-6) {
		t.Errorf("extended line ends at %v, want at the circle, x = 90", e)
	}
	e := f.fail(enginev1.ToolEntityExtend, obj{"handle": l, "pick_x": X0, "pick_y": Y0, "boundaries": []any{ci}}, enginev1.ErrorKind_ERROR_KIND_FAILED)
	if !strings.Contains(e.GetMessage(), "no boundary") {
		t.Errorf("message %q", e.GetMessage())
	}
	f.fail(enginev1.ToolEntityExtend, obj{"handle": ci, "pick_x": X0, "pick_y": Y0}, enginev1.ErrorKind_ERROR_KIND_FAILED)
}

func TestBreakTool(t *testing.T) {
	f := newFixture(t)
	l := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0, "y1": Y0, "x2": X0 + 100, "y2": Y0})
	r := f.ok(enginev1.ToolEntityBreak, obj{"handle": l, "x1": X0 + 40, "y1": Y0 + 1})
	hs := handlesOf(r, "handles")
	if len(hs) != 2 || !within(f.get(hs[0])["length"].(float64), 40, 1e-6) || !within(f.get(hs[1])["length"].(float64), 60, 1e-6) {
		t.Errorf("break at 40 = %v", hs)
	}
	ci := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": X0, "cy": Y0, "radius": 10})
	f.ok(enginev1.ToolEntityBreak, obj{"handle": ci, "x1": X0 + 10, "y1": Y0, "x2": X0, "y2": Y0 + 10})
	a := f.get(ci)
	if a["type"] != "arc" || !within(a["start_angle"].(float64), 90, 1e-6) || !within(a["end_angle"].(float64), 0, 1e-6) {
		t.Errorf("circle broken from 0° to 90° = %v %v..%v, want the arc 90..0", a["type"], a["start_angle"], a["end_angle"])
	}
	f.fail(enginev1.ToolEntityBreak, obj{"handle": ci, "x1": X0 + 10, "y1": Y0, "x2": X0}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
}

func TestJoinTool(t *testing.T) {
	t.Run("plate into a closed polyline", func(t *testing.T) {
		f := newFixture(t)
		b, r, tp, l := plate(f)
		res := f.ok(enginev1.ToolEntityJoin, obj{"handles": []any{b, tp, l, r}})
		if res["handle"] != b || len(handlesOf(res, "deleted")) != 3 || f.info().EntityCount != 1 {
			t.Fatalf("join = %v, %d entities", res, f.info().EntityCount)
		}
		g := f.get(b)
		if g["type"] != "polyline" || g["closed"] != true {
			t.Errorf("joined = %v, want a closed polyline", g)
		}
		if m := f.ok(enginev1.ToolAnalysisMeasureEntity, obj{"handle": b}); !within(m["area"].(float64), 6000, 1e-6) {
			t.Errorf("joined plate area = %v, want 6000", m["area"])
		}
	})
	t.Run("collinear lines", func(t *testing.T) {
		f := newFixture(t)
		a := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0, "y1": Y0, "x2": X0 + 10, "y2": Y0})
		b := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0 + 30, "y1": Y0, "x2": X0 + 12, "y2": Y0})
		f.ok(enginev1.ToolEntityJoin, obj{"handles": []any{a, b}})
		if g := f.get(a); g["type"] != "line" || !within(g["length"].(float64), 30, 1e-6) {
			t.Errorf("joined = %v", g)
		}
	})
	t.Run("apart", func(t *testing.T) {
		f := newFixture(t)
		a := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0, "y1": Y0, "x2": X0 + 10, "y2": Y0})
		b := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0 + 30, "y1": Y0 + 5, "x2": X0 + 40, "y2": Y0 + 9})
		e := f.fail(enginev1.ToolEntityJoin, obj{"handles": []any{a, b}}, enginev1.ErrorKind_ERROR_KIND_FAILED)
		if !strings.Contains(e.GetMessage(), b) || !strings.Contains(e.GetMessage(), "do not connect") {
			t.Errorf("message %q, want it to name %s", e.GetMessage(), b)
		}
		if f.info().EntityCount != 2 {
			t.Errorf("a failed join deleted entities")
		}
	})
}

func TestCutsOnCurves(t *testing.T) {
	t.Run("ellipse trimmed", func(t *testing.T) {
		f := newFixture(t)
		el := f.handle(enginev1.ToolEntityCreateEllipse, obj{"cx": X0, "cy": Y0, "major_x": 20, "major_y": 0, "ratio": 0.5})
		f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0 + 10, "y1": Y0 - 20, "x2": X0 + 10, "y2": Y0 + 20})
		f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0 - 10, "y1": Y0 - 20, "x2": X0 - 10, "y2": Y0 + 20})
		f.ok(enginev1.ToolEntityTrim, obj{"handle": el, "pick_x": X0 + 20, "pick_y": Y0})
		g := f.get(el)
		// Parametric angles where x = 20 cos t = 10: ±60°; the part through
		// 0° is gone.
		if !within(g["start_angle"].(float64), 60, 1e-6) || !within(g["end_angle"].(float64), 300, 1e-6) {
			t.Errorf("trimmed ellipse = %v..%v, want 60..300", g["start_angle"], g["end_angle"])
		}
	})
	t.Run("arcs of one circle joined", func(t *testing.T) {
		f := newFixture(t)
		a := f.handle(enginev1.ToolEntityCreateArc, obj{"cx": X0, "cy": Y0, "radius": 5, "start_angle": 0, "end_angle": 90})
		b := f.handle(enginev1.ToolEntityCreateArc, obj{"cx": X0, "cy": Y0, "radius": 5, "start_angle": 120, "end_angle": 200})
		f.ok(enginev1.ToolEntityJoin, obj{"handles": []any{a, b}})
		if g := f.get(a); g["type"] != "arc" || !within(g["start_angle"].(float64), 0, 1e-9) || !within(g["end_angle"].(float64), 200, 1e-9) {
			t.Errorf("joined arcs = %v %v..%v, want 0..200", g["type"], g["start_angle"], g["end_angle"])
		}
	})
	t.Run("line and arc joined into a polyline", func(t *testing.T) {
		f := newFixture(t)
		l := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": X0 - 10, "y1": Y0 + 5, "x2": X0, "y2": Y0 + 5})
		a := f.handle(enginev1.ToolEntityCreateArc, obj{"cx": X0, "cy": Y0, "radius": 5, "start_angle": 90, "end_angle": 270})
		f.ok(enginev1.ToolEntityJoin, obj{"handles": []any{l, a}})
		g := f.get(l)
		if g["type"] != "polyline" || len(g["points"].([]any)) != 3 {
			t.Fatalf("joined = %v", g)
		}
		if m := f.ok(enginev1.ToolAnalysisMeasureEntity, obj{"handle": l}); !within(m["length"].(float64), 10+5*math.Pi, 1e-6) {
			t.Errorf("joined length = %v, want %v", m["length"], 10+5*math.Pi)
		}
	})
}
