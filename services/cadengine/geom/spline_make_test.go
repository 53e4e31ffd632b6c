package geom

import (
	"math"
	"testing"
)

// TestSplineFromControl: a clamped spline starts and ends on its end
// control points; one of degree 1 is the polygon through its control
// points (each at its knot); a quadratic over three points is the Bézier
// curve (1−t)²P0 + 2t(1−t)P1 + t²P2; a closed one returns to its start
// with the same direction; a rational quadratic with weight √½ in the
// middle is the quarter circle.
func TestSplineFromControl(t *testing.T) {
	ctrl := []Vec{Pt(0, 0), Pt(10, 20), Pt(30, 20), Pt(40, 0), Pt(60, 10)}
	s, err := SplineFromControl(ctrl, 3, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0, 0, 0, 0, 1, 2, 2, 2, 2}; len(s.Knots) != len(want) {
		t.Fatalf("knots = %v, want %v", s.Knots, want)
	} else {
		for i := range want {
			if s.Knots[i] != want[i] {
				t.Fatalf("knots = %v, want %v", s.Knots, want)
			}
		}
	}
	t0, t1 := s.Domain()
	if s.At(t0) != ctrl[0] || s.At(t1).Dist(ctrl[4]) > 1e-12*60 {
		t.Errorf("ends = %v, %v; want %v, %v", s.At(t0), s.At(t1), ctrl[0], ctrl[4])
	}

	lin, err := SplineFromControl(ctrl, 1, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range ctrl {
		if q := lin.At(float64(i)); q.Dist(p) > 1e-12*60 {
			t.Errorf("degree 1 at %d = %v, want %v", i, q, p)
		}
	}
	if q := lin.At(1.5); q.Dist(Pt(20, 20)) > 1e-12*60 {
		t.Errorf("degree 1 at 1.5 = %v, want (20, 20)", q)
	}

	bez, err := SplineFromControl(ctrl[:3], 2, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []float64{0, 0.25, 0.5, 0.9, 1} {
		want := ctrl[0].Mul((1 - u) * (1 - u)).Add(ctrl[1].Mul(2 * u * (1 - u))).Add(ctrl[2].Mul(u * u))
		if q := bez.At(u); q.Dist(want) > 1e-12*30 {
			t.Errorf("Bézier at %g = %v, want %v", u, q, want)
		}
	}

	closed, err := SplineFromControl(ctrl, 3, nil, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	c0, c1 := closed.Domain()
	if a, b := closed.At(c0), closed.At(c1); a.Dist(b) > 1e-12*60 {
		t.Errorf("closed spline runs from %v to %v, want back to its start", a, b)
	}
	if a, b := closed.Derivative(c0).Unit(), closed.Derivative(c1).Unit(); a.Dist(b) > 1e-9 {
		t.Errorf("closed spline leaves along %v and comes back along %v", a, b)
	}

	arc, err := SplineFromControl([]Vec{Pt(10, 0), Pt(10, 10), Pt(0, 10)}, 2, []float64{1, math.Sqrt2 / 2, 1}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []float64{0.1, 0.3, 0.5, 0.77} {
		if r := arc.At(u).Len(); math.Abs(r-10) > 1e-12*10 {
			t.Errorf("rational quarter circle at %g is %v from the centre, want 10", u, r)
		}
	}

	for _, bad := range []struct {
		name   string
		ctrl   []Vec
		degree int
		w, k   []float64
		closed bool
	}{
		{"too few points", ctrl[:3], 3, nil, nil, false},
		{"weights", ctrl, 3, []float64{1, 2}, nil, false},
		{"knots count", ctrl, 3, nil, []float64{0, 1, 2}, false},
		{"knots decreasing", ctrl, 3, nil, []float64{0, 0, 0, 0, 2, 1, 3, 3, 3}, false},
		{"knots and closed", ctrl, 3, nil, []float64{0, 0, 0, 0, 1, 2, 2, 2, 2}, true},
		{"degree 0", ctrl, 0, nil, nil, false},
	} {
		if _, err := SplineFromControl(bad.ctrl, bad.degree, bad.w, bad.k, bad.closed); err == nil {
			t.Errorf("%s: nil error, want one", bad.name)
		}
	}
}
