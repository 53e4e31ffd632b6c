package geom

import (
	"container/heap"
	"fmt"
	"math"
	"sort"
)

// ---- splines ----

// Spline is a plane NURBS curve, as a DXF SPLINE holds one: a B-spline of
// the given degree over its knot vector, rational when it has weights.
// Its points are C(t) = Σ Nᵢ(t)·wᵢ·Pᵢ / Σ Nᵢ(t)·wᵢ for t in its
// [Spline.Domain], Nᵢ being the B-spline basis functions of the knots.
//
// A valid spline (see [Spline.Validate], which [NewSpline] applies) has
// degree 1 to 25, at least degree+1 control points, len(Control)+Degree+1
// finite non-decreasing knots spanning a non-empty domain, no knot inside
// the domain repeated more than Degree times (so the curve is connected),
// finite control points and, when Weights is not nil, one positive finite
// weight per control point. Methods assume a valid spline and may panic on
// another. Every method does work linear in the number of knots (times a
// power of the degree), and bounded.
type Spline struct {
	Degree  int
	Knots   []float64
	Control []Vec
	Weights []float64 // nil for a non-rational spline, all weights 1
	Closed  bool      // the curve is closed (DXF code 70 bit 1); informational
}

// maxSplineDegree is the highest degree a Spline may have: order 26, the
// highest AutoCAD offers.
const maxSplineDegree = 25

// NewSpline is the spline of the given degree, knots, control points and
// weights (nil for a non-rational spline), or an error that says what to
// change when they do not make a valid spline (see [Spline.Validate]). It
// copies its arguments.
func NewSpline(degree int, knots []float64, control []Vec, weights []float64) (Spline, error) {
	s := Spline{
		Degree:  degree,
		Knots:   append([]float64(nil), knots...),
		Control: append([]Vec(nil), control...),
	}
	if weights != nil {
		s.Weights = append([]float64{}, weights...)
	}
	if err := s.Validate(); err != nil {
		return Spline{}, err
	}
	return s, nil
}

// Validate reports why s is not a valid spline (see [Spline]), or nil.
func (s Spline) Validate() error {
	p, n := s.Degree, len(s.Control)
	switch {
	case p < 1:
		return fmt.Errorf("a spline's degree must be at least 1, not %d", p)
	case p > maxSplineDegree:
		return fmt.Errorf("a spline's degree must be at most %d, not %d", maxSplineDegree, p)
	case n < p+1:
		return fmt.Errorf("a degree-%d spline needs at least %d control points, not %d", p, p+1, n)
	case len(s.Knots) != n+p+1:
		return fmt.Errorf("a degree-%d spline with %d control points needs %d knots, not %d", p, n, n+p+1, len(s.Knots))
	case s.Weights != nil && len(s.Weights) != n:
		return fmt.Errorf("a spline with %d control points needs %d weights (or none), not %d", n, n, len(s.Weights))
	}
	for i, c := range s.Control {
		if !c.Finite() {
			return fmt.Errorf("control point %d is (%g, %g): coordinates must be finite", i, c.X, c.Y)
		}
	}
	for i, w := range s.Weights {
		if !(w > 0) || math.IsInf(w, 0) {
			return fmt.Errorf("weight %d is %g: weights must be positive and finite", i, w)
		}
	}
	u := s.Knots
	for i, k := range u {
		switch {
		case !IsFinite(k):
			return fmt.Errorf("knot %d is %g: knots must be finite", i, k)
		case i > 0 && k < u[i-1]:
			return fmt.Errorf("knot %d (%g) is less than knot %d (%g): knots must not decrease", i, k, i-1, u[i-1])
		}
	}
	if u[p] == u[n] {
		return fmt.Errorf("knots %d to %d are all %g: the spline's parameter range is empty; they must increase somewhere", p, n, u[p])
	}
	for i := p + 1; i < n; {
		j := i
		for j+1 < n && u[j+1] == u[i] {
			j++
		}
		if m := j - i + 1; u[i] > u[p] && u[i] < u[n] && m > p {
			return fmt.Errorf("knot %g is repeated %d times inside the parameter range, which breaks a degree-%d spline in two; repeat it at most %d times", u[i], m, p, p)
		}
		i = j + 1
	}
	return nil
}

// Domain is the parameter range of the curve: knots[Degree] to
// knots[len(Control)].
func (s Spline) Domain() (t0, t1 float64) { return s.Knots[s.Degree], s.Knots[len(s.Control)] }

// At is the point of the curve at t, clamped to the [Spline.Domain]
// (de Boor's algorithm; rational when the spline has weights). At of NaN
// is NaN.
func (s Spline) At(t float64) Vec {
	t = s.clamp(t)
	p, _ := s.eval(s.span(t), t)
	return p
}

// Derivative is the first derivative dC/dt at t, clamped to the
// [Spline.Domain]: exact, the quotient rule included for a rational
// spline. At a knot where the derivative jumps (a corner) it is the one
// just after the knot; at the end of the domain, the one just before.
func (s Spline) Derivative(t float64) Vec {
	t = s.clamp(t)
	_, d := s.eval(s.span(t), t)
	return d
}

func (s Spline) clamp(t float64) float64 {
	t0, t1 := s.Domain()
	return math.Min(math.Max(t, t0), t1)
}

// span is the index k of the non-empty knot span [u_k, u_k+1) that holds
// t, Degree <= k < len(Control); the last non-empty span for the end of
// the domain.
func (s Spline) span(t float64) int {
	p, n, u := s.Degree, len(s.Control), s.Knots
	if t >= u[n] {
		return p - 1 + sort.Search(n-p, func(i int) bool { return u[p+i] >= u[n] })
	}
	return max(p, p-1+sort.Search(n-p, func(i int) bool { return u[p+i] > t }))
}

// spans are the indices of the non-empty knot spans of the domain, in order.
func (s Spline) spans() []int {
	var out []int
	for k := s.Degree; k < len(s.Control); k++ {
		if s.Knots[k] < s.Knots[k+1] {
			out = append(out, k)
		}
	}
	return out
}

// wpt is a control point with its weight.
type wpt struct {
	p Vec
	w float64
}

func (s Spline) wpt(i int) wpt {
	if s.Weights == nil {
		return wpt{s.Control[i], 1}
	}
	return wpt{s.Control[i], s.Weights[i]}
}

// mix is the point at t (0 to 1) of the rational segment from a to b: the
// homogeneous points a·wa and b·wb mixed, kept as a point and a weight.
// The point is a convex combination of a and b, so it never overflows, and
// the weight lies between theirs.
func mix(a, b wpt, t float64) wpt {
	if a.w == b.w {
		return wpt{lerp(a.p, b.p, t), a.w}
	}
	w := (1-t)*a.w + t*b.w
	l := t
	if w > 0 {
		l = t * b.w / w
	}
	return wpt{lerp(a.p, b.p, l), w}
}

func lerp(a, b Vec, t float64) Vec {
	return Vec{(1-t)*a.X + t*b.X, (1-t)*a.Y + t*b.Y}
}

// eval is the point at t and the derivative there, on the knot span k
// (u_k <= t <= u_k+1). De Boor's algorithm runs on the span's Degree+1
// weighted control points; its last level mixes two points q₀, q₁ of
// weights v₀, v₁ into the point, of weight w, and the derivative is
// p/(u_k+1 − u_k) · (v₀·v₁/w²) · (q₁ − q₀) (the blossom's derivative,
// with the quotient rule for the weights).
func (s Spline) eval(k int, t float64) (Vec, Vec) {
	p, u := s.Degree, s.Knots
	var buf [maxSplineDegree + 1]wpt
	d := buf[:p+1]
	for j := range d {
		d[j] = s.wpt(k - p + j)
	}
	for r := 1; r < p; r++ {
		for j := p; j >= r; j-- {
			i := k - p + j
			d[j] = mix(d[j-1], d[j], (t-u[i])/(u[i+p+1-r]-u[i]))
		}
	}
	h := u[k+1] - u[k]
	c := mix(d[p-1], d[p], (t-u[k])/h)
	f := float64(p) / h * (d[p-1].w / c.w) * (d[p].w / c.w)
	return c.p, d[p].p.Sub(d[p-1].p).Mul(f)
}

// Reversed is the same curve run the other way: Reversed().At(-t) is
// At(t), its domain the negated [Spline.Domain] (negating the knots is
// exact).
func (s Spline) Reversed() Spline {
	m, n := len(s.Knots), len(s.Control)
	out := Spline{Degree: s.Degree, Knots: make([]float64, m), Control: make([]Vec, n), Closed: s.Closed}
	for i, k := range s.Knots {
		out.Knots[m-1-i] = -k
	}
	for i, c := range s.Control {
		out.Control[n-1-i] = c
	}
	if s.Weights != nil {
		out.Weights = make([]float64, n)
		for i, w := range s.Weights {
			out.Weights[n-1-i] = w
		}
	}
	return out
}

// Transformed is the spline mapped by x: exact, since a NURBS curve maps
// under any affine map by mapping its control points.
func (s Spline) Transformed(x Xform) Spline { return s.mapped(x.Point) }

// Affine is the spline mapped by m, exactly (see [Spline.Transformed]).
// The result is valid when m's coefficients are finite and the mapped
// control points do not overflow.
func (s Spline) Affine(m Affine) Spline { return s.mapped(m.Point) }

func (s Spline) mapped(f func(Vec) Vec) Spline {
	out := Spline{Degree: s.Degree, Knots: append([]float64(nil), s.Knots...), Control: make([]Vec, len(s.Control)), Closed: s.Closed}
	for i, c := range s.Control {
		out.Control[i] = f(c)
	}
	if s.Weights != nil {
		out.Weights = append([]float64{}, s.Weights...)
	}
	return out
}

// ---- Bézier pieces: bounds and flattening ----

// bezier is a piece of a spline in Bézier form: Degree+1 weighted control
// points. The piece lies in the convex hull of its points (the weights are
// positive), which is what makes Bounds and Flatten exact.
type bezier struct {
	pts    []wpt
	k      int     // the knot span
	t0, t1 float64 // the parameters of the piece's ends
	depth  int     // halvings since the knot span
	next   int     // the next piece along the curve in Flatten, -1 for none
}

func (b bezier) first() Vec { return b.pts[0].p }
func (b bezier) last() Vec  { return b.pts[len(b.pts)-1].p }

// spanBezier is the knot span k in Bézier form. It inserts the span's end
// knots into the span's own Degree+1 control points (Boehm's algorithm)
// until each has multiplicity Degree: O(Degree²).
func (s Spline) spanBezier(k int) bezier {
	p := s.Degree
	q := make([]wpt, p+1)
	for j := range q {
		q[j] = s.wpt(k - p + j)
	}
	// kn holds u_k-p+1 … u_k+p: the span [a, b] is kn[p-1], kn[p]; control
	// point j is mixed with j-1 over kn[j-1] … kn[j+p-1].
	kn := append([]float64(nil), s.Knots[k-p+1:k+p+1]...)
	a, b := kn[p-1], kn[p]
	alpha := func(j int, x float64) float64 { return (x - kn[j-1]) / (kn[j+p-1] - kn[j-1]) }
	for i := 0; i < p && kn[0] != a; i++ {
		for j := 1; j <= p; j++ {
			q[j-1] = mix(q[j-1], q[j], alpha(j, a))
		}
		copy(kn, kn[1:p])
		kn[p-1] = a
	}
	for i := 0; i < p && kn[2*p-1] != b; i++ {
		for j := p; j >= 1; j-- {
			q[j] = mix(q[j-1], q[j], alpha(j, b))
		}
		copy(kn[p+1:], kn[p:2*p-1])
		kn[p] = b
	}
	return bezier{pts: q, k: k, t0: a, t1: b, next: -1}
}

// split halves b by de Casteljau's algorithm.
func (b bezier) split() (bezier, bezier) {
	n := len(b.pts)
	l, r := make([]wpt, n), make([]wpt, n)
	tmp := append([]wpt(nil), b.pts...)
	for lv := 0; lv < n; lv++ {
		l[lv], r[n-1-lv] = tmp[0], tmp[n-1-lv]
		for j := 0; j+1 < n-lv; j++ {
			tmp[j] = mix(tmp[j], tmp[j+1], 0.5)
		}
	}
	m := b.t0 + (b.t1-b.t0)/2
	return bezier{pts: l, k: b.k, t0: b.t0, t1: m, depth: b.depth + 1, next: -1},
		bezier{pts: r, k: b.k, t0: m, t1: b.t1, depth: b.depth + 1, next: -1}
}

// turn is the angle the legs of b's control polygon span: the tangent
// directions of the piece lie in the cone of its legs (for a rational
// piece too, the weights being positive).
func (b bezier) turn() float64 {
	var ref Vec
	lo, hi := 0.0, 0.0
	for i := 1; i < len(b.pts); i++ {
		d := b.pts[i].p.Sub(b.pts[i-1].p)
		switch {
		case d == Vec{}:
		case ref == Vec{}:
			ref = d
		default:
			a := math.Atan2(ref.cross(d), ref.Dot(d))
			lo, hi = math.Min(lo, a), math.Max(hi, a)
		}
	}
	return hi - lo
}

func (b bezier) hull() Box {
	var h Box
	for _, q := range b.pts {
		h.AddPoint(q.p)
	}
	return h
}

// flatness is how far b strays from its chord at most: the largest
// distance of a control point from the chord.
func (b bezier) flatness() float64 {
	chord := Segment{b.first(), b.last()}
	e := 0.0
	for _, q := range b.pts[1 : len(b.pts)-1] {
		c, _ := chord.Closest(q.p)
		e = math.Max(e, c.Dist(q.p))
	}
	return e
}

func (s Spline) beziers() []bezier {
	var out []bezier
	for _, k := range s.spans() {
		out = append(out, s.spanBezier(k))
	}
	return out
}

// controlBox is the box of the control points, which holds the curve.
func (s Spline) controlBox() Box {
	var b Box
	for _, c := range s.Control {
		b.AddPoint(c)
	}
	return b
}

// boundsRel is how far, relative to the size of the control points, a
// side of [Spline.Bounds] may stand off the curve.
const boundsRel = 1e-12

// Bounds is the curve's bounding box. It holds the whole curve, and each
// side lies within 1e-12 of the control points' extent (or the rounding
// of the coordinates, if coarser) of the curve's extreme: the Bézier
// pieces of the knot spans are halved (de Casteljau) wherever the convex
// hull of a piece's control points reaches beyond the box of the curve
// points found so far, until it reaches no further than that.
func (s Spline) Bounds() Box {
	ctl := s.controlBox()
	tol := math.Max(boundsRel*math.Max(ctl.Max.X-ctl.Min.X, ctl.Max.Y-ctl.Min.Y), RoundingFloor(math.Max(ctl.Min.Mag(), ctl.Max.Mag())))
	stack := s.beziers()
	var box Box
	for _, b := range stack {
		box.AddPoint(b.first())
		box.AddPoint(b.last())
	}
	budget := 1<<16 + 64*len(stack)
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		h := b.hull()
		out := math.Max(math.Max(box.Min.X-h.Min.X, h.Max.X-box.Max.X), math.Max(box.Min.Y-h.Min.Y, h.Max.Y-box.Max.Y))
		switch {
		case !(out > 0):
		case out <= tol || budget <= 0 || b.depth >= 64:
			box.AddBox(h)
		default:
			budget--
			l, r := b.split()
			box.AddPoint(r.first())
			stack = append(stack, l, r)
		}
	}
	return box
}

// maxFlattenPoints bounds the points of [Spline.Flatten].
const maxFlattenPoints = 1 << 16

// Flatten is points along the curve whose polyline stays within tol of
// it, both ways: every point of the curve is within tol of the polyline
// and every point of the polyline within tol of the curve. The points
// include the start, the end and the point at every distinct knot inside
// the domain. The Bézier pieces of the knot spans are halved, the worst
// first, until the control points of each lie within tol of its chord;
// but there are never more than 1<<16 points (or one per distinct knot,
// when there are more knots): when tol cannot be met within that, the
// polyline is as close as the halvings so far made it. A tol below the
// rounding of the coordinates (0, negative or NaN included) counts as
// that rounding.
func (s Spline) Flatten(tol float64) []Vec {
	ctl := s.controlBox()
	if floor := RoundingFloor(math.Max(ctl.Min.Mag(), ctl.Max.Mag())); !(tol > floor) {
		tol = floor
	}
	pieces := s.beziers()
	for i := range pieces[:len(pieces)-1] {
		pieces[i].next = i + 1
	}
	limit := max(maxFlattenPoints, len(pieces)+1)
	var h worstFirst
	for i, b := range pieces {
		if e := b.flatness(); e > tol {
			h = append(h, flatItem{i, e})
		}
	}
	heap.Init(&h)
	for h.Len() > 0 && len(pieces)+1 < limit {
		i := heap.Pop(&h).(flatItem).i
		l, r := pieces[i].split()
		j := len(pieces)
		l.next, r.next = j, pieces[i].next
		pieces[i] = l
		pieces = append(pieces, r)
		for _, k := range []int{i, j} {
			if e := pieces[k].flatness(); e > tol {
				heap.Push(&h, flatItem{k, e})
			}
		}
	}
	out := make([]Vec, 0, len(pieces)+1)
	out = append(out, pieces[0].first())
	for i := 0; i >= 0; i = pieces[i].next {
		out = append(out, pieces[i].last())
	}
	return out
}

// flatItem is a piece of Flatten still too far from its chord.
type flatItem struct {
	i   int
	err float64
}

// worstFirst is a heap of flatItems, the farthest first.
type worstFirst []flatItem

func (h worstFirst) Len() int           { return len(h) }
func (h worstFirst) Less(i, j int) bool { return h[i].err > h[j].err }
func (h worstFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstFirst) Push(x any)        { *h = append(*h, x.(flatItem)) }
func (h *worstFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// ---- length and closest points ----

// speedIntegral is the 8-point Gauss–Legendre integral of |C′| from a to
// b within the knot span k.
func (s Spline) speedIntegral(k int, a, b float64) float64 {
	// The rule's nodes on [-1, 1], in pairs ±x, and their weights.
	gauss8 := [4]struct{ x, w float64 }{
		{0.1834346424956498049394761, 0.3626837833783619829651504},
		{0.5255324099163289858177390, 0.3137066458778872873379622},
		{0.7966664774136267395915539, 0.2223810344533744705443560},
		{0.9602898564975362316835609, 0.1012285362903762591525314},
	}
	m, h := a+(b-a)/2, (b-a)/2
	sum := 0.0
	for _, g := range gauss8 {
		_, d1 := s.eval(k, m-h*g.x)
		_, d2 := s.eval(k, m+h*g.x)
		sum += g.w * (d1.Len() + d2.Len())
	}
	return sum * h
}

// lengthRel is the relative accuracy Length asks of each piece.
const lengthRel = 1e-12

// Length is the curve's length: adaptive 8-point Gauss–Legendre quadrature
// of |C′(t)| on each knot span, each piece halved until the halves agree
// with the whole to 1e-12 relative, or to 1e-13 of the span's length
// (where the curve has a cusp), or to the rounding of the parameter (an
// ulp of the knots relative to the span's width, when the knots are large
// numbers for the span); accurate to about 1e-12 relative in all, and
// bounded in work.
func (s Spline) Length() float64 {
	total := 0.0
	spans := s.spans()
	budget := 1<<14 + 4*len(spans)
	for _, k := range spans {
		a, b := s.Knots[k], s.Knots[k+1]
		whole := s.speedIntegral(k, a, b)
		if !IsFinite(whole) {
			return whole // the derivative overflows
		}
		noise := RoundingFloor(math.Max(math.Abs(a), math.Abs(b))) / (b - a)
		total += s.lengthOn(k, a, b, whole, whole*math.Max(1e-13, noise), 0, &budget)
	}
	return total
}

func (s Spline) lengthOn(k int, a, b, whole, floor float64, depth int, budget *int) float64 {
	m := a + (b-a)/2
	l, r := s.speedIntegral(k, a, m), s.speedIntegral(k, m, b)
	if math.Abs(l+r-whole) <= math.Max(lengthRel*(l+r), floor) || depth >= 50 || *budget <= 0 {
		return l + r
	}
	*budget--
	return s.lengthOn(k, a, m, l, floor, depth+1, budget) + s.lengthOn(k, m, b, r, floor, depth+1, budget)
}

// Closest is the point q of the curve nearest p and its parameter t: the
// global nearest, not a local one. A branch and bound over the Bézier
// pieces of the knot spans drops each piece whose control points' box
// lies farther from p than the nearest curve point found so far, and
// halves each piece whose tangent directions (the legs of its control
// polygon) turn by more than 30°. On the pieces left it samples
// 2·(Degree+1) parameters, and where (C(t) − p)·C′(t), the derivative of
// half the squared distance, goes from negative to positive between two
// samples it finds the root by bracketed secant steps (Illinois' false
// position), to the last bits of t. On a piece that turns so little, that
// is the one foot of p, when p is on the curve.
func (s Spline) Closest(p Vec) (t float64, q Vec) {
	best := math.Inf(1)
	try := func(k int, x float64) {
		c, _ := s.eval(k, x)
		if d := c.Dist(p); d < best || math.IsInf(best, 1) || math.IsNaN(best) {
			best, t, q = d, x, c
		}
	}
	stack := s.beziers()
	for _, b := range stack {
		try(b.k, b.t0)
		try(b.k, b.t1)
	}
	budget := 1<<16 + 64*len(stack)
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if boxDist(b.hull(), p) > best {
			continue
		}
		if b.turn() > math.Pi/6 && b.depth < 60 && budget > 0 {
			budget--
			l, r := b.split()
			try(r.k, r.t0)
			stack = append(stack, l, r)
			continue
		}
		s.feet(b, p, try)
	}
	return t, q
}

// feet samples the piece b and tries the feet of p between its samples
// (see [Spline.Closest]).
func (s Spline) feet(b bezier, p Vec, try func(k int, t float64)) {
	g := func(x float64) float64 { c, d := s.eval(b.k, x); return c.Sub(p).Dot(d) }
	n := 2 * (s.Degree + 1)
	prevT, prevG := b.t0, g(b.t0)
	for i := 1; i <= n; i++ {
		x := b.t0 + (b.t1-b.t0)*float64(i)/float64(n)
		if i == n {
			x = b.t1
		}
		gx := g(x)
		try(b.k, x)
		if prevG < 0 && gx > 0 {
			try(b.k, falsePosition(g, prevT, x, prevG, gx))
		}
		prevT, prevG = x, gx
	}
}

// boxDist is the distance from p to the box b (0 inside).
func boxDist(b Box, p Vec) float64 {
	dx := math.Max(0, math.Max(b.Min.X-p.X, p.X-b.Max.X))
	dy := math.Max(0, math.Max(b.Min.Y-p.Y, p.Y-b.Max.Y))
	return math.Hypot(dx, dy)
}

// falsePosition narrows the root of f in [lo, hi] (f(lo) < 0 < f(hi)) by
// the Illinois variant of false position: secant steps that keep the
// root bracketed, halving the weight of an end that stays put twice so
// that both ends close in. It stops when f is 0, the bracket stops
// shrinking, or after 100 steps.
func falsePosition(f func(float64) float64, lo, hi, flo, fhi float64) float64 {
	side := 0
	for i := 0; i < 100; i++ {
		x := (lo*fhi - hi*flo) / (fhi - flo)
		if !(x > lo && x < hi) {
			x = lo + (hi-lo)/2
			if !(x > lo && x < hi) {
				break
			}
		}
		fx := f(x)
		switch {
		case fx == 0:
			return x
		case fx < 0:
			lo, flo = x, fx
			if side == -1 {
				fhi /= 2
			}
			side = -1
		default:
			hi, fhi = x, fx
			if side == 1 {
				flo /= 2
			}
			side = 1
		}
	}
	if math.Abs(flo) < math.Abs(fhi) {
		return lo
	}
	return hi
}

// ---- conics as splines ----

// Spline is the arc as an exact rational quadratic spline: one Bézier
// piece per quarter turn or less, the weight of each middle control point
// the cosine of half its piece's angle. Its knots are the angles where
// the pieces meet, so At(θ) is the arc's [Arc.At](θ) at each knot (and
// on the circle everywhere). A Reversed arc gives the [Spline.Reversed]
// spline, which runs from [Arc.First] to [Arc.Last]. The arc must have
// 0 < Sweep; a full circle gives a Closed spline.
func (a Arc) Spline() Spline {
	sweep := math.Min(a.Sweep, 2*math.Pi)
	n := 1
	if sweep > math.Pi/2 {
		n = int(math.Ceil(sweep / (math.Pi / 2)))
	}
	theta := sweep / float64(n)
	w := math.Cos(theta / 2)
	s := Spline{Degree: 2, Closed: a.Full()}
	s.Knots = append(s.Knots, a.Start, a.Start, a.Start)
	s.Control = append(s.Control, a.At(a.Start))
	s.Weights = append(s.Weights, 1)
	for i := 1; i <= n; i++ {
		end := a.Start + float64(i)*theta
		if i == n {
			end = a.Start + sweep
		}
		mid := end - theta/2
		s.Control = append(s.Control, polar(a.C, a.R/w, mid), a.At(end))
		s.Weights = append(s.Weights, w, 1)
		s.Knots = append(s.Knots, end, end)
	}
	s.Knots = append(s.Knots, s.Knots[len(s.Knots)-1])
	if a.Reversed {
		return s.Reversed()
	}
	return s
}

// Spline is the elliptical arc as an exact rational quadratic spline:
// the [Arc.Spline] of the unit circle over the same parameter range,
// mapped onto the ellipse by the affine map (x, y) → C + x·Major +
// y·minor. Its knots are ellipse parameters, so At(t) is the ellipse's
// [EllipseArc.At](t) at each knot (and on the ellipse everywhere).
func (e EllipseArc) Spline() Spline {
	m := e.minor()
	unit := Arc{R: 1, Start: e.Start, Sweep: e.Sweep}.Spline()
	return unit.Affine(Affine{A: e.Major.X, B: m.X, C: e.C.X, D: e.Major.Y, E: m.Y, F: e.C.Y})
}
