package geom

import (
	"math"
	"sort"
)

// ---- ellipses: intersections with curves, tangents ----
//
// An ellipse meets a circle or another ellipse in up to four points, the
// roots of a quartic that is badly conditioned when solved in closed form.
// The engine solves numerically instead: it walks one ellipse by its
// parameter t and looks for the zeros of the other curve's implicit
// function along it,
//
//	circle (c, r):  f(t) = |p(t) - c|² - r²
//	ellipse E:      f(t) = |U(p(t))|² - 1, U mapping E onto the unit circle
//
// sampled densely (720 samples a turn); the critical points of f, found
// by bisection on f′, are added to the samples, so that two crossings
// closer than a sample step still show as two sign changes and a touching
// point as an extremum. Every sign change is refined by bisection to the
// last bit of t, and every extremum that changes no sign is a candidate
// tangency. Each candidate counts only if it lies on the other curve (and
// its sweep) within Tolerance: a crossing always does; a tangency does
// when the curves touch within Tolerance.

// samplesPerTurn is the sampling density of the root search.
const samplesPerTurn = 720

// paramRoots finds, on [t0, t0+span], the parameters where f changes sign
// (roots) and the critical points of f where it does not (touches, the
// candidate tangencies). df is f′. When periodic (span is a whole turn of
// a closed curve) the end is the start, and f and f′ are taken to have
// the same values there, so that a root at t0 shows on one side of it.
func paramRoots(f, df func(float64) float64, t0, span float64, periodic bool) (roots, touches []float64) {
	n := max(32, int(math.Ceil(samplesPerTurn*span/(2*math.Pi))))
	ts := make([]float64, n+1)
	for i := range ts {
		ts[i] = t0 + span*float64(i)/float64(n)
	}
	at := func(g func(float64) float64, i int) float64 {
		if periodic && i == n {
			return g(ts[0])
		}
		return g(ts[i])
	}
	// Critical points, where f′ vanishes at a sample or changes sign
	// between two.
	var crit []float64
	prev := at(df, 0)
	if prev == 0 {
		crit = append(crit, ts[0])
	}
	for i := 1; i <= n; i++ {
		cur := at(df, i)
		if prev != 0 && cur != 0 && (prev < 0) != (cur < 0) {
			crit = append(crit, bisect(df, ts[i-1], ts[i], prev))
		} else if cur == 0 && i < n {
			crit = append(crit, ts[i])
		}
		prev = cur
	}
	isCrit := make(map[float64]bool, len(crit))
	for _, c := range crit {
		isCrit[c] = true
	}
	all := append(ts, crit...)
	sort.Float64s(all)
	fs := make([]float64, len(all))
	for i, t := range all {
		fs[i] = f(t)
		if periodic && t == ts[n] {
			fs[i] = f(ts[0])
		}
	}
	changed := make([]bool, len(all)) // a root lies in [all[i-1], all[i]]
	for i := range all {
		switch {
		case fs[i] == 0 && !(periodic && all[i] == ts[n]):
			roots = append(roots, all[i])
		case i > 0 && fs[i-1] != 0 && (fs[i-1] < 0) != (fs[i] < 0):
			roots = append(roots, bisect(f, all[i-1], all[i], fs[i-1]))
			changed[i] = true
		}
	}
	for i, t := range all {
		if !isCrit[t] || fs[i] == 0 || changed[i] || i+1 < len(all) && changed[i+1] {
			continue
		}
		touches = append(touches, t)
	}
	return roots, touches
}

// bisect narrows a sign change of f on [lo, hi] (f(lo) = flo) to the last
// bit and returns its middle.
func bisect(f func(float64) float64, lo, hi, flo float64) float64 {
	for k := 0; k < 200; k++ {
		m := lo + (hi-lo)/2
		if m <= lo || m >= hi {
			break
		}
		fm := f(m)
		if fm == 0 {
			return m
		}
		if (fm < 0) == (flo < 0) {
			lo, flo = m, fm
		} else {
			hi = m
		}
	}
	return lo + (hi-lo)/2
}

// span is the parameter interval of the arc: its start and sweep.
func (e EllipseArc) span() (float64, float64) {
	if e.Full() {
		return 0, 2 * math.Pi
	}
	return e.Start, e.Sweep
}

// onArc reports whether p lies on the circular arc within Tolerance.
func onArc(a Arc, p Vec) bool {
	d := p.Sub(a.C)
	if d.Len() == 0 {
		return a.R <= Tol(0, p.Mag())
	}
	return a.C.Add(d.Unit().Mul(a.R)).SameIn(p, a.R) && a.Has(d.Angle())
}

// onEllipse reports whether p lies on the elliptical arc within Tolerance.
func onEllipse(e EllipseArc, p Vec) bool { return e.Closest(p).SameIn(p, e.Major.Len()) }

// intersectArcEllipse intersects a circular arc and an elliptical arc.
func intersectArcEllipse(a Arc, e EllipseArc) ([]Vec, error) {
	if !a.Bounds().Overlaps(e.Bounds()) {
		return nil, nil
	}
	f := func(t float64) float64 { d := e.At(t).Sub(a.C); return d.Dot(d) - a.R*a.R }
	df := func(t float64) float64 { return 2 * e.At(t).Sub(a.C).Dot(e.tangent(t)) }
	on := func(p Vec) bool { return onArc(a, p) }
	return ellipseMeets(e, f, df, on, func(p Vec) bool {
		return math.Abs(p.Dist(a.C)-a.R) <= Tol(a.R, p.Mag()) && a.Has(p.Sub(a.C).Angle())
	})
}

// intersectEllipses intersects two elliptical arcs.
func intersectEllipses(e1, e2 EllipseArc) ([]Vec, error) {
	if !e1.Bounds().Overlaps(e2.Bounds()) {
		return nil, nil
	}
	a2 := e2.Major.Len()
	u := e2.Major.Mul(1 / a2)
	b2 := a2 * e2.Ratio
	lin := func(v Vec) Vec { return Vec{v.Dot(u) / a2, v.Dot(u.Perp()) / b2} }
	f := func(t float64) float64 { q := e2.toUnit(e1.At(t)); return q.Dot(q) - 1 }
	df := func(t float64) float64 { return 2 * e2.toUnit(e1.At(t)).Dot(lin(e1.tangent(t))) }
	on := func(p Vec) bool { return onEllipse(e2, p) }
	return ellipseMeets(e1, f, df, on, func(p Vec) bool {
		q := e2.toUnit(p)
		return math.Abs(q.Len()-1)*a2 <= Tol(a2, p.Mag()) && e2.Has(q.Angle())
	})
}

// ellipseMeets finds the points of e where f, the other curve's implicit
// function along e, vanishes and that lie on the other curve (on); near
// is a cheap on for the overlap test: three consecutive samples of e on
// the other curve mean the curves share a stretch.
func ellipseMeets(e EllipseArc, f, df func(float64) float64, on, near func(Vec) bool) ([]Vec, error) {
	t0, span := e.span()
	run, last := 0, Vec{}
	for i := 0; i <= samplesPerTurn; i++ {
		p := e.At(t0 + span*float64(i)/samplesPerTurn)
		switch {
		case !near(p):
			run = 0
		case run == 0 || p.Dist(last) > Tol(0, p.Mag()):
			// Samples closer than Tolerance (a tiny arc) show no stretch.
			if run, last = run+1, p; run >= 3 {
				return nil, ErrOverlap
			}
		}
	}
	roots, touches := paramRoots(f, df, t0, span, e.Full())
	var out []Vec
	for _, t := range contacts(e, roots, touches, on) {
		out = AppendUnique(out, e.At(t))
	}
	// An end of e on the other curve, which rounding may leave just
	// outside the sign change.
	if !e.Full() {
		for _, t := range []float64{e.Start, e.Start + e.Sweep} {
			if p := e.At(t); on(p) {
				out = AppendUnique(out, p)
			}
		}
	}
	return out, nil
}

// contacts turns the candidate parameters of ellipseMeets into one
// parameter per point where the curves meet. Candidates whose points are
// not on the other curve go. Where the curves touch, they stay within
// Tolerance of each other along a short stretch, over which rounding can
// make f change sign any number of times: consecutive candidates with the
// curve on the other between them (at the middle) are one contact, stood
// for by a critical point of f among them (the touching point) or else
// by their middle one.
func contacts(e EllipseArc, roots, touches []float64, on func(Vec) bool) []float64 {
	isTouch := make(map[float64]bool, len(touches))
	for _, t := range touches {
		isTouch[t] = true
	}
	var ts []float64
	for _, t := range append(roots, touches...) {
		if on(e.At(t)) {
			ts = append(ts, t)
		}
	}
	sort.Float64s(ts)
	var groups [][]float64
	for i, t := range ts {
		if i > 0 {
			g := groups[len(groups)-1]
			if prev := g[len(g)-1]; t == prev || on(e.At(prev+(t-prev)/2)) {
				groups[len(groups)-1] = append(g, t)
				continue
			}
		}
		groups = append(groups, []float64{t})
	}
	if n := len(groups); n > 1 && e.Full() {
		// Around the ends of a closed curve's parameter range.
		first, last := groups[0], groups[n-1]
		if on(e.At((last[len(last)-1] + first[0] + 2*math.Pi) / 2)) {
			groups[0] = append(last, first...)
			groups = groups[:n-1]
		}
	}
	out := make([]float64, 0, len(groups))
	for _, g := range groups {
		pick := g[len(g)/2]
		for _, t := range g {
			if isTouch[t] {
				pick = t
				break
			}
		}
		out = append(out, pick)
	}
	return out
}

// TangentsFrom are the points where lines from p touch the elliptical arc:
// p itself when it lies on it, none from inside. Tangency is affine: in
// the ellipse's own frame, where it is the unit circle, the tangent points
// are those of the circle, and they map back exactly.
func (e EllipseArc) TangentsFrom(p Vec) []Vec {
	u := e.toUnit(p)
	t := u.Angle()
	if q := e.At(t); q.Same(p) {
		if e.Has(t) {
			return []Vec{p}
		}
		return nil
	}
	d := u.Len()
	if d < 1 {
		return nil
	}
	alpha := math.Acos(1 / d)
	var out []Vec
	for _, s := range []float64{t + alpha, t - alpha} {
		if e.Has(s) {
			out = append(out, e.At(s))
		}
	}
	return out
}
