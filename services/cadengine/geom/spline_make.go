package geom

import (
	"errors"
	"fmt"
)

// ---- splines from control points ----

// ClampedUniformKnots is the knot vector of a clamped spline of the given
// degree over n control points with uniform inner knots (n ≥ degree+1):
// degree+1 zeros, the inner knots 1 … n−degree−1, and degree+1 copies of
// n−degree. The curve starts at the first control point and ends at the
// last.
func ClampedUniformKnots(n, degree int) []float64 {
	out := make([]float64, 0, n+degree+1)
	for i := 0; i <= degree; i++ {
		out = append(out, 0)
	}
	for i := 1; i < n-degree; i++ {
		out = append(out, float64(i))
	}
	for i := 0; i <= degree; i++ {
		out = append(out, float64(n-degree))
	}
	return out
}

// SplineFromControl is the spline of the given degree over the control
// points and weights (nil: non-rational): with knots when they are given,
// else clamped with uniform knots ([ClampedUniformKnots]). When closed
// (and no knots are given) it is the periodic spline of the control
// points instead: the first degree control points (and their weights)
// repeated after the last, over uniform knots, so that the curve closes
// on itself with its derivatives continuous; it needs at least degree+1
// control points of its own. Errors say what to change.
func SplineFromControl(control []Vec, degree int, weights, knots []float64, closed bool) (Spline, error) {
	if degree < 1 || degree > maxSplineDegree {
		return Spline{}, fmt.Errorf("degree %d: it must be 1 to %d", degree, maxSplineDegree)
	}
	if len(control) < degree+1 {
		return Spline{}, fmt.Errorf("a spline of degree %d needs at least %d control points, not %d", degree, degree+1, len(control))
	}
	if weights != nil && len(weights) != len(control) {
		return Spline{}, fmt.Errorf("give one weight per control point (%d), not %d", len(control), len(weights))
	}
	if knots != nil && closed {
		return Spline{}, errors.New("give knots or closed, not both: a closed spline's knots are made uniform")
	}
	if closed {
		ctrl := append(append([]Vec(nil), control...), control[:degree]...)
		var w []float64
		if weights != nil {
			w = append(append([]float64(nil), weights...), weights[:degree]...)
		}
		k := make([]float64, len(ctrl)+degree+1)
		for i := range k {
			k[i] = float64(i)
		}
		s, err := NewSpline(degree, k, ctrl, w)
		if err != nil {
			return Spline{}, err
		}
		s.Closed = true
		return s, nil
	}
	if knots == nil {
		knots = ClampedUniformKnots(len(control), degree)
	} else if len(knots) != len(control)+degree+1 {
		return Spline{}, fmt.Errorf("give %d knots (control points + degree + 1), not %d", len(control)+degree+1, len(knots))
	}
	return NewSpline(degree, knots, control, weights)
}
