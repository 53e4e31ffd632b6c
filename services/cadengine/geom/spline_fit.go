package geom

import (
	"errors"
	"fmt"
	"math"
)

// ---- splines through fit points ----

// SplineThrough is the cubic spline through the fit points, as CAD
// programs make a SPLINE from fit points: a clamped cubic B-spline whose
// knots are the fit points' cumulative chord lengths (chord-length
// parameterisation, each fit point at its knot), found by solving the
// tridiagonal system of the interpolation conditions exactly (Gaussian
// elimination with partial pivoting).
//
// An end tangent (DXF group codes 12 and 13) fixes the curve's direction
// at that end; only its direction counts: the derivative there is the
// unit vector, which in the [0, 1] parameterisation is the convention of
// scaling it by the total chord length. A nil or zero tangent leaves that
// end natural: the second derivative there is 0, as AutoCAD and BricsCAD
// do. A closed set of fit points (the last the same as the first) without
// tangents gives a curve that closes smoothly, the periodic spline through
// them (the same first and second derivatives at both ends); with one
// tangent, that tangent serves at both ends.
//
// Consecutive fit points that are the same count once. Two distinct fit
// points give a straight line (still cubic); fewer, or non-finite points
// or tangents, are an error.
func SplineThrough(fit []Vec, startTangent, endTangent *Vec) (Spline, error) {
	q, err := distinctFitPoints(fit)
	if err != nil {
		return Spline{}, err
	}
	d0, err := tangentDirection("start", startTangent)
	if err != nil {
		return Spline{}, err
	}
	d1, err := tangentDirection("end", endTangent)
	if err != nil {
		return Spline{}, err
	}
	n := len(q) - 1
	knots := make([]float64, 0, n+7)
	knots = append(knots, 0, 0, 0, 0)
	l := 0.0
	for i := 1; i <= n; i++ {
		l += q[i].Dist(q[i-1])
		knots = append(knots, l)
	}
	if !IsFinite(l) {
		return Spline{}, errTooFar
	}
	knots = append(knots, l, l, l)
	closed := n >= 3 && q[n] == q[0]
	switch {
	case closed && d0 == nil && d1 == nil:
		d, ok := periodicTangent(q, knots)
		if ok {
			d0, d1 = &d, &d
		}
	case closed && d0 == nil:
		d0 = d1
	case closed && d1 == nil:
		d1 = d0
	}
	ctrl, err := fitControl(q, knots, d0, d1)
	if err != nil {
		return Spline{}, err
	}
	s, err := NewSpline(3, knots, ctrl, nil)
	if err != nil {
		return Spline{}, fmt.Errorf("the spline through the fit points: %w", err)
	}
	s.Closed = closed
	return s, nil
}

// distinctFitPoints is the fit points without consecutive repeats (points
// the same within the figure's tolerance; see [Vec.SameIn]), the last
// made exactly the first when they are the same.
func distinctFitPoints(fit []Vec) ([]Vec, error) {
	var box Box
	for i, p := range fit {
		if !p.Finite() {
			return nil, fmt.Errorf("fit point %d is (%g, %g): coordinates must be finite", i, p.X, p.Y)
		}
		box.AddPoint(p)
	}
	size := math.Max(box.Max.X-box.Min.X, box.Max.Y-box.Min.Y)
	if !IsFinite(size) {
		return nil, errTooFar
	}
	var q []Vec
	for _, p := range fit {
		if len(q) == 0 || !q[len(q)-1].SameIn(p, size) {
			q = append(q, p)
		}
	}
	if len(q) < 2 {
		return nil, fmt.Errorf("a spline through fit points needs at least 2 distinct fit points, not %d", len(q))
	}
	if n := len(q) - 1; n >= 2 && q[n].SameIn(q[0], size) {
		q[n] = q[0]
	}
	return q, nil
}

// tangentDirection is the unit vector along an end tangent, nil for none.
func tangentDirection(end string, t *Vec) (*Vec, error) {
	if t == nil {
		return nil, nil
	}
	if !t.Finite() {
		return nil, fmt.Errorf("the %s tangent is (%g, %g): it must be finite", end, t.X, t.Y)
	}
	if u := t.Unit(); u != (Vec{}) && u.Finite() {
		return &u, nil
	}
	return nil, nil
}

// fitControl is the control points of the clamped cubic with the given
// knots through the fit points q (q[i] at knots[i+3]): P0 = q0 and
// PN = qn, and for P1 … PN-1 one equation each, a tridiagonal system:
//
//	start:  P1 = P0 + a/3·d0, or C″(start) = 0: P1 = (b·P0 + a·P2)/(a+b)
//	q_k:    N_k(ū_k)·P_k + N_k+1(ū_k)·P_k+1 + N_k+2(ū_k)·P_k+2 = q_k
//	end:    PN-1 = PN − c/3·d1, or C″(end) = 0: PN-1 = (d·PN + c·PN-2)/(c+d)
//
// a, b, c, d being the knot spans of P1−P0, P2−P1, PN−PN-1 and PN-1−PN-2
// (the NURBS Book's end derivatives, (3.9) and (3.10)).
func fitControl(q []Vec, u []float64, d0, d1 *Vec) ([]Vec, error) {
	const p = 3
	n := len(q) - 1
	m := len(u) - 1
	sub, diag, sup := make([]float64, n), make([]float64, n+1), make([]float64, n)
	rhs := make([]Vec, n+1)
	a, b := u[p+1]-u[1], u[p+2]-u[2]
	c, d := u[m-1]-u[m-p-1], u[m-2]-u[m-p-2]
	diag[0] = 1
	if d0 != nil {
		rhs[0] = q[0].Add(d0.Mul(a / p))
	} else {
		sup[0] = -a / (a + b)
		rhs[0] = q[0].Mul(b / (a + b))
	}
	for k := 1; k < n; k++ {
		nb := basisFuns(u, p, k+p, u[k+p])
		sub[k-1], diag[k], sup[k] = nb[0], nb[1], nb[2]
		rhs[k] = q[k]
	}
	diag[n] = 1
	if d1 != nil {
		rhs[n] = q[n].Sub(d1.Mul(c / p))
	} else {
		sub[n-1] = -c / (c + d)
		rhs[n] = q[n].Mul(d / (c + d))
	}
	if err := solveTridiagonal(sub, diag, sup, rhs); err != nil {
		return nil, err
	}
	ctrl := make([]Vec, 0, n+3)
	ctrl = append(ctrl, q[0])
	ctrl = append(ctrl, rhs...)
	return append(ctrl, q[n]), nil
}

// periodicTangent is the end derivative D at which the curve through the
// closed fit points q has the same second derivative at both ends. The
// mismatch of second derivatives is affine in D, coordinate by
// coordinate with one slope for both: two solves find it.
func periodicTangent(q []Vec, u []float64) (Vec, bool) {
	mismatch := func(d Vec) (Vec, bool) {
		ctrl, err := fitControl(q, u, &d, &d)
		if err != nil {
			return Vec{}, false
		}
		return endSecondDerivative(ctrl, u, false).Sub(endSecondDerivative(ctrl, u, true)), true
	}
	m0, ok0 := mismatch(Vec{})
	m1, ok1 := mismatch(Vec{1, 1})
	k := m1.X - m0.X
	if !ok0 || !ok1 || k == 0 || !IsFinite(k) {
		return Vec{}, false
	}
	d := Vec{-m0.X / k, -m0.Y / k}
	return d, d.Finite()
}

// endSecondDerivative is C″ at the start (or the end) of the clamped
// cubic with control points ctrl and knots u.
func endSecondDerivative(ctrl []Vec, u []float64, end bool) Vec {
	const p = 3
	if end {
		m, n := len(u)-1, len(ctrl)-1
		c, d := u[m-1]-u[m-p-1], u[m-2]-u[m-p-2]
		q1 := ctrl[n].Sub(ctrl[n-1]).Mul(p / c)
		q0 := ctrl[n-1].Sub(ctrl[n-2]).Mul(p / d)
		return q1.Sub(q0).Mul((p - 1) / (u[m-2] - u[m-p-1]))
	}
	a, b := u[p+1]-u[1], u[p+2]-u[2]
	q0 := ctrl[1].Sub(ctrl[0]).Mul(p / a)
	q1 := ctrl[2].Sub(ctrl[1]).Mul(p / b)
	return q1.Sub(q0).Mul((p - 1) / (u[p+1] - u[2]))
}

// basisFuns is the values at t of the p+1 B-spline basis functions of
// degree p over the knots u that can be non-zero on the knot span k
// (u_k <= t <= u_k+1): N_k-p … N_k, by the Cox–de Boor recurrence (the
// NURBS Book's A2.2). They are non-negative and sum to 1.
func basisFuns(u []float64, p, k int, t float64) []float64 {
	n := make([]float64, p+1)
	left, right := make([]float64, p+1), make([]float64, p+1)
	n[0] = 1
	for j := 1; j <= p; j++ {
		left[j], right[j] = t-u[k+1-j], u[k+j]-t
		saved := 0.0
		for r := 0; r < j; r++ {
			tmp := n[r] / (right[r+1] + left[j-r])
			n[r] = saved + right[r+1]*tmp
			saved = left[j-r] * tmp
		}
		n[j] = saved
	}
	return n
}

var errTooFar = errors.New("the fit points are too far apart: the distances between them overflow")

// errSingular reports a linear system without a unique solution.
var errSingular = errors.New("the interpolation conditions are singular")

// solveTridiagonal solves the tridiagonal system with sub-diagonal sub,
// diagonal diag and super-diagonal sup for the right-hand sides b, in
// place (b becomes the solution), by Gaussian elimination with partial
// pivoting (LAPACK's dgtsv): the row swaps fill in a second
// super-diagonal, which sub then holds. It overwrites its arguments.
func solveTridiagonal(sub, diag, sup []float64, b []Vec) error {
	n := len(diag)
	for i := 0; i < n-1; i++ {
		if math.Abs(diag[i]) >= math.Abs(sub[i]) {
			if diag[i] == 0 {
				return errSingular
			}
			f := sub[i] / diag[i]
			diag[i+1] -= f * sup[i]
			b[i+1] = b[i+1].Sub(b[i].Mul(f))
			sub[i] = 0
			continue
		}
		// Swap rows i and i+1, then eliminate.
		f := diag[i] / sub[i]
		diag[i] = sub[i]
		next := diag[i+1]
		diag[i+1] = sup[i] - f*next
		sub[i] = 0
		if i+1 < n-1 {
			sub[i] = sup[i+1]
			sup[i+1] = -f * sub[i]
		}
		sup[i] = next
		b[i], b[i+1] = b[i+1], b[i].Sub(b[i+1].Mul(f))
	}
	if diag[n-1] == 0 {
		return errSingular
	}
	for i := n - 1; i >= 0; i-- {
		r := b[i]
		if i+1 < n {
			r = r.Sub(b[i+1].Mul(sup[i]))
		}
		if i+2 < n {
			r = r.Sub(b[i+2].Mul(sub[i]))
		}
		b[i] = Vec{r.X / diag[i], r.Y / diag[i]}
	}
	return nil
}
