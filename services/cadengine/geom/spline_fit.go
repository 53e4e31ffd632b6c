package geom

import (
	"errors"
	"fmt"
	"math"
)

// ---- splines through fit points ----

// SplineThrough is the cubic spline through the fit points with natural
// ends: a clamped cubic B-spline whose knots are the fit points'
// cumulative chord lengths (chord-length parameterisation, each fit point
// at its knot), found by solving the tridiagonal system of the
// interpolation conditions exactly (Gaussian elimination with partial
// pivoting). It is not the curve CAD programs draw of a DXF SPLINE's fit
// points, which estimate the end tangents instead: that is
// [SplineThroughCAD].
//
// An end tangent fixes the curve's direction at that end; only its
// direction counts: the derivative there is the unit vector, which in the
// [0, 1] parameterisation is the convention of scaling it by the total
// chord length. A nil or zero tangent leaves that end natural: the second
// derivative there is 0. A closed set of fit points (the last the same
// as the first) without tangents gives a curve that closes smoothly, the
// periodic spline through them (the same first and second derivatives at
// both ends); with one tangent, that tangent serves at both ends.
//
// Consecutive fit points that are the same count once. Two distinct fit
// points give a straight line (still cubic); fewer, or non-finite points
// or tangents, are an error.
func SplineThrough(fit []Vec, startTangent, endTangent *Vec) (Spline, error) {
	q, d0, d1, err := fitInput(fit, startTangent, endTangent)
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

// fitInput is what both ways of fitting a spline start from: the
// distinct fit points, and the end tangents' directions (nil where not
// given).
func fitInput(fit []Vec, startTangent, endTangent *Vec) (q []Vec, d0, d1 *Vec, err error) {
	if q, err = distinctFitPoints(fit); err != nil {
		return nil, nil, nil, err
	}
	if d0, err = tangentDirection("start", startTangent); err != nil {
		return nil, nil, nil, err
	}
	if d1, err = tangentDirection("end", endTangent); err != nil {
		return nil, nil, nil, err
	}
	return q, d0, d1, nil
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

// ---- splines through fit points, as CAD programs draw them ----

// SplineThroughCAD is the cubic spline a CAD program draws of a DXF
// SPLINE defined by fit points only, as ezdxf 0.18 makes it
// (fit_points_to_cad_cv, which with the file's end tangents gives
// BricsCAD's control points, and without them estimates the tangents as
// closely as it can): the global interpolation with end derivatives of
// the NURBS Book (9.2.2).
//
//   - The parameters are the fit points' cumulative chord lengths divided
//     by the total chord length L; the knots are 0, 0, 0, 0, the inner
//     parameters and 1, 1, 1, 1, so fit point k is at knot k+3.
//   - The derivative at each end is a tangent scaled to length L. When
//     startTangent and endTangent are both given (not nil, not zero) they
//     are those tangents: only their directions count. Otherwise both are
//     estimated, a single tangent ignored as ezdxf's SPLINE ignores it, by
//     ezdxf's "5-p" method: Akima's weighted mean of the chords next to
//     the end, the chords extended linearly past it.
//   - The control points, len(fit)+2 of them, solve the interpolation
//     conditions, a tridiagonal system, in time linear in len(fit).
//
// Where ezdxf fails, the curve is still made: consecutive fit points that
// are the same (see [Vec.SameIn]) count once (ezdxf's system is singular
// with them); two fit points without tangents give the straight line
// between them; where the three fit points at an end are in a line (ezdxf
// divides 0 by 0), Akima's weights count as equal. A closed set of fit
// points (the last the same as the first) is nothing special, as in
// ezdxf: each end gets its own tangent; the spline is marked Closed.
// Fewer than two distinct fit points, or non-finite points or tangents,
// are an error.
func SplineThroughCAD(fit []Vec, startTangent, endTangent *Vec) (Spline, error) {
	q, d0, d1, err := fitInput(fit, startTangent, endTangent)
	if err != nil {
		return Spline{}, err
	}
	n := len(q) - 1
	chord := make([]float64, n+1) // cumulative chord lengths
	for i := 1; i <= n; i++ {
		chord[i] = chord[i-1] + q[i].Dist(q[i-1])
	}
	total := chord[n]
	if !IsFinite(total) {
		return Spline{}, errTooFar
	}
	knots := make([]float64, 0, n+7)
	knots = append(knots, 0, 0, 0, 0)
	for i := 1; i < n; i++ {
		knots = append(knots, chord[i]/total)
	}
	knots = append(knots, 1, 1, 1, 1)
	var t0, t1 Vec
	if d0 != nil && d1 != nil {
		t0, t1 = *startTangent, *endTangent
	} else {
		t0, t1 = endTangents5p(q)
	}
	// ezdxf's Vec3.normalize(L): the derivative at each end.
	t0 = t0.Mul(total / t0.Len())
	t1 = t1.Mul(total / t1.Len())
	ctrl, err := cadControl(q, knots, t0, t1)
	if err != nil {
		return Spline{}, err
	}
	s, err := NewSpline(3, knots, ctrl, nil)
	if err != nil {
		return Spline{}, fmt.Errorf("the spline through the fit points: %w", err)
	}
	s.Closed = n >= 3 && q[n] == q[0]
	return s, nil
}

// cadControl is the n+3 control points P of the clamped cubic with the
// knots u through the fit points q (q[k] at u[k+3]) with the end
// derivatives t0 and t1: ezdxf's global_bspline_interpolation_end_tangents.
// Its rows, in ezdxf's order, make a tridiagonal system:
//
//	P0 = q0
//	P1 − P0 = t0 · u[4]/3                        (C′(0) = t0)
//	N_k(u_k+3)·P_k + N_k+1(…)·P_k+1 + N_k+2(…)·P_k+2 = q_k   (k = 1 … n−1)
//	P_n+2 − P_n+1 = t1 · (1 − u[n+2])/3          (C′(1) = t1)
//	P_n+2 = q_n
//
// (N_k+3 is 0 at u_k+3.) ezdxf solves it by LU decomposition with partial
// pivoting, dense below 15 rows and banded above; the tridiagonal
// elimination with partial pivoting here is the banded one, in linear
// time.
func cadControl(q []Vec, u []float64, t0, t1 Vec) ([]Vec, error) {
	const p = 3
	n := len(q) - 1
	size := n + 3
	sub, diag, sup := make([]float64, size-1), make([]float64, size), make([]float64, size-1)
	rhs := make([]Vec, size)
	diag[0], rhs[0] = 1, q[0]
	sub[0], diag[1], rhs[1] = -1, 1, t0.Mul(u[p+1]/p)
	for k := 1; k < n; k++ {
		nb := basisFuns(u, p, k+p, u[k+p])
		sub[k], diag[k+1], sup[k+1] = nb[0], nb[1], nb[2]
		rhs[k+1] = q[k]
	}
	diag[n+1], sup[n+1], rhs[n+1] = -1, 1, t1.Mul((1-u[n+2])/p)
	diag[n+2], rhs[n+2] = 1, q[n]
	if err := solveTridiagonal(sub, diag, sup, rhs); err != nil {
		return nil, err
	}
	return rhs, nil
}

// endTangents5p is ezdxf's "5-p" estimate of the tangents at the first
// and the last of the (distinct) fit points p: its
// tangents_5_point_interpolation, unnormalised, at the two ends. With the
// chords q_k = p_k − p_k−1 (k = 1 … m−1, m = len(p)), extended linearly
// past the ends (q_0 = 2q_1 − q_2, q_−1 = 2q_0 − q_1, q_m = 2q_m−1 −
// q_m−2, q_m+1 = 2q_m − q_m−1), the tangent at fit point k is Akima's
// (1−α)·q_k + α·q_k+1, α = |q_k−1 × q_k| / (|q_k−1 × q_k| + |q_k+1 × q_k+2|).
//
// At the ends the two weights are equal but for rounding, so α is ½ but
// for rounding; it is computed as ezdxf does (no fused multiply-adds), so
// that fit points nearly in a line, where the rounding decides, get
// ezdxf's tangent. Where both weights are 0 (the end's fit points in a
// line), ezdxf divides by zero; here α is ½, Akima's rule. Two fit points
// have no second chord: both tangents are the chord, where ezdxf fails.
// An estimate of length 0 (the end's three fit points in a line, the
// second chord three times the first) is replaced by the end's chord.
func endTangents5p(p []Vec) (start, end Vec) {
	m := len(p)
	chord := func(k int) Vec { return p[k].Sub(p[k-1]) }
	if m == 2 {
		return chord(1), chord(1)
	}
	q1, q2 := chord(1), chord(2)
	q0 := extrapolate(q1, q2)
	start = akima(extrapolate(q0, q1), q0, q1, q2)
	a, b := chord(m-2), chord(m-1)
	qm := extrapolate(b, a)
	end = akima(a, b, qm, extrapolate(qm, b))
	if l := start.Len(); !(l > 0) || !IsFinite(l) {
		start = q1
	}
	if l := end.Len(); !(l > 0) || !IsFinite(l) {
		end = b
	}
	return start, end
}

// The helpers of endTangents5p round each product, as Python does: an
// explicit float64 conversion keeps the compiler from fusing a multiply
// and an add.

// extrapolate is 2a − b.
func extrapolate(a, b Vec) Vec {
	return Vec{float64(2*a.X) - b.X, float64(2*a.Y) - b.Y}
}

// akima is (1−α)·b + α·c, α = |a × b| / (|a × b| + |c × d|), or ½ when
// that is not a number (both weights 0).
func akima(a, b, c, d Vec) Vec {
	v1, v2 := crossLen(a, b), crossLen(c, d)
	alpha := v1 / (v1 + v2)
	if !(alpha >= 0 && alpha <= 1) {
		alpha = 0.5
	}
	return Vec{
		float64((1-alpha)*b.X) + float64(alpha*c.X),
		float64((1-alpha)*b.Y) + float64(alpha*c.Y),
	}
}

// crossLen is |a × b| as ezdxf computes it: the length of the 3-D cross
// product, the square root of its z squared.
func crossLen(a, b Vec) float64 {
	z := float64(a.X*b.Y) - float64(a.Y*b.X)
	return math.Sqrt(float64(z * z))
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
