package geom

import (
	"errors"
	"math"
)

// ---- fillets and chamfers ----
//
// A fillet joins two curves (segments and circular arcs, a circle being a
// full arc) with an arc of a given radius tangent to both; a chamfer joins
// two segments with a straight cut. Each curve is taken as its carrier —
// the infinite line or the whole circle — so that a corner whose curves do
// not reach each other is extended to the fillet, as AutoCAD's FILLET
// does. Picks (points on the parts to keep) choose among the solutions.
// The computations run relative to the first curve's first point, so that
// a figure far from the origin (survey coordinates) loses no precision.

// Typed failures of a fillet or chamfer: their messages say what to change.
var (
	// ErrParallel is for two lines that never meet.
	ErrParallel = errors.New("the lines are parallel: no fillet or chamfer joins them")
	// ErrTooLarge is for a radius or distance past the end of a curve's
	// kept part (the corner would eat it).
	ErrTooLarge = errors.New("radius too large for these segments: the corner would pass the far end of a kept part")
	// ErrChamferTooLarge is ErrTooLarge (it matches it under errors.Is)
	// in a chamfer's words.
	ErrChamferTooLarge error = chamferTooLarge{}
	// ErrNoFillet is for curves no arc of the radius touches on the picked
	// sides (circles too far apart for it, say).
	ErrNoFillet = errors.New("no arc of this radius touches both entities on the picked sides: try a larger radius or other picks")
	// ErrNotFilletable is for a primitive other than a segment or a
	// circular arc.
	ErrNotFilletable = errors.New("only lines, arcs, circles and polyline segments can be filleted")
)

// Corner is a fillet or chamfer of two curves. T1 and T2 are where it
// meets the first and second curve (the same point for a sharp corner).
// Arc is the fillet arc (R = 0 for a chamfer or a sharp corner). Keep1 and
// Keep2 are the curves trimmed or extended to T1 and T2 (a Segment or an
// Arc), nil for a full circle, which is never trimmed.
type Corner struct {
	T1, T2       Vec
	Arc          Arc
	Keep1, Keep2 any
}

// carrier is the infinite line (p, unit d) or the whole circle (c, r)
// that a curve lies on.
type carrier struct {
	line bool
	p, d Vec
	c    Vec
	r    float64
}

func carrierOf(prim any) (carrier, error) {
	switch s := prim.(type) {
	case Segment:
		if s.A == s.B {
			return carrier{}, errors.New("a segment of zero length has no direction to fillet")
		}
		return carrier{line: true, p: s.A, d: s.B.Sub(s.A).Unit()}, nil
	case Arc:
		return carrier{c: s.C, r: s.R}, nil
	}
	return carrier{}, ErrNotFilletable
}

// side is positive on one side of the carrier and negative on the other:
// left of a line, outside a circle.
func (k carrier) side(x Vec) float64 {
	if k.line {
		return k.d.cross(x.Sub(k.p))
	}
	return x.Dist(k.c) - k.r
}

// foot is the carrier's point nearest x.
func (k carrier) foot(x Vec) Vec {
	if k.line {
		return k.p.Add(k.d.Mul(x.Sub(k.p).Dot(k.d)))
	}
	return k.c.Add(x.Sub(k.c).Unit().Mul(k.r))
}

// touch is where a circle of radius r centred at x touches the carrier:
// the foot, or for a circle inside the fillet's (x nearer r − R than
// R ± r from the centre) the carrier's point opposite it.
func (k carrier) touch(x Vec, r float64) Vec {
	f := k.foot(x)
	if k.line || r <= k.r {
		return f
	}
	far := k.c.Sub(f.Sub(k.c))
	if math.Abs(far.Dist(x)-r) < math.Abs(f.Dist(x)-r) {
		return far
	}
	return f
}

// offsets appends to dst the carriers at distance r from k on either
// side (at most two: a caller's array of two holds them without an
// allocation).
func (k carrier) offsets(dst []carrier, r float64) []carrier {
	if k.line {
		n := k.d.Perp().Mul(r)
		return append(dst, carrier{line: true, p: k.p.Add(n), d: k.d}, carrier{line: true, p: k.p.Sub(n), d: k.d})
	}
	dst = append(dst, carrier{c: k.c, r: k.r + r})
	if d := math.Abs(k.r - r); d > 0 {
		dst = append(dst, carrier{c: k.c, r: d})
	}
	return dst
}

// carriersMeet appends to dst where two carriers cross (touching ones
// once; at most two points), tol being the figure's tolerance.
func carriersMeet(dst []Vec, a, b carrier, tol float64) []Vec {
	switch {
	case a.line && b.line:
		den := a.d.cross(b.d)
		if math.Abs(den) <= Tolerance {
			return dst
		}
		u := b.p.Sub(a.p).cross(b.d) / den
		return append(dst, a.p.Add(a.d.Mul(u)))
	case a.line:
		return lineMeetsCircle(dst, a, b, tol)
	case b.line:
		return lineMeetsCircle(dst, b, a, tol)
	}
	d := a.c.Dist(b.c)
	if d <= tol {
		return dst
	}
	u := b.c.Sub(a.c).Mul(1 / d)
	x := (d*d + a.r*a.r - b.r*b.r) / (2 * d)
	h2 := a.r*a.r - x*x
	if h2 < -2*tol*a.r {
		return dst
	}
	m := a.c.Add(u.Mul(x))
	if h2 <= 2*tol*a.r {
		return append(dst, m)
	}
	h := math.Sqrt(h2)
	return append(dst, m.Add(u.Perp().Mul(h)), m.Sub(u.Perp().Mul(h)))
}

func lineMeetsCircle(dst []Vec, l, c carrier, tol float64) []Vec {
	w := c.c.Sub(l.p)
	u0 := w.Dot(l.d)
	h := l.d.cross(w)
	f := l.p.Add(l.d.Mul(u0))
	switch {
	case math.Abs(math.Abs(h)-c.r) <= tol:
		return append(dst, f)
	case math.Abs(h) > c.r:
		return dst
	}
	half := math.Sqrt((c.r - h) * (c.r + h))
	return append(dst, f.Sub(l.d.Mul(half)), f.Add(l.d.Mul(half)))
}

// figure is the size of two curves and the pick points, for tolerances.
func figure(p, q any) float64 {
	b := PrimBounds([]any{p, q})
	return math.Max(b.Max.X-b.Min.X, b.Max.Y-b.Min.Y)
}

// origin is a point of the figure that the computations run relative to.
func origin(p any) Vec {
	switch s := p.(type) {
	case Segment:
		return s.A
	case Arc:
		return s.C
	}
	return Vec{}
}

func shifted(p any, o Vec) any {
	switch s := p.(type) {
	case Segment:
		return Segment{s.A.Sub(o), s.B.Sub(o)}
	case Arc:
		s.C = s.C.Sub(o)
		return s
	}
	return p
}

func unshifted(p any, o Vec) any {
	if p == nil {
		return nil
	}
	return shifted(p, o.Mul(-1))
}

// DefaultPick is where a fillet or chamfer takes the pick on p when none
// is given: its midpoint, or for a full circle its point nearest q's
// midpoint.
func DefaultPick(p, q any) Vec {
	switch s := p.(type) {
	case Segment:
		return s.A.Mid(s.B)
	case Arc:
		if s.Full() {
			return s.Closest(DefaultPick(q, nil))
		}
		return s.At(s.Start + s.Sweep/2)
	}
	return Vec{}
}

// Fillet joins p and q (each a Segment or an Arc) with an arc of radius r
// tangent to both, on the parts of them that pick1 and pick2 lie on
// (AutoCAD's convention: the fillet's centre is on the side of each curve
// where the other's pick is, and of the arcs that are, the one touching
// nearest the picks). Radius 0 is the sharp corner: where the carriers
// meet nearest the picks. Keep1 and Keep2 are p and q trimmed or extended
// to the tangent points.
func Fillet(p, q any, r float64, pick1, pick2 Vec) (Corner, error) {
	o := origin(p)
	c, err := fillet(shifted(p, o), shifted(q, o), r, pick1.Sub(o), pick2.Sub(o), figure(p, q), math.Max(o.Mag(), 1))
	if err != nil {
		return Corner{}, err
	}
	c.T1, c.T2 = c.T1.Add(o), c.T2.Add(o)
	c.Arc.C = c.Arc.C.Add(o)
	c.Keep1, c.Keep2 = unshifted(c.Keep1, o), unshifted(c.Keep2, o)
	return c, nil
}

func fillet(p, q any, r float64, pick1, pick2 Vec, size, mag float64) (Corner, error) {
	k1, err := carrierOf(p)
	if err != nil {
		return Corner{}, err
	}
	k2, err := carrierOf(q)
	if err != nil {
		return Corner{}, err
	}
	size = math.Max(size, r)
	tol := Tol(size, mag)
	if k1.line && k2.line && math.Abs(k1.d.cross(k2.d)) <= Tolerance {
		return Corner{}, ErrParallel
	}
	if r == 0 {
		return sharpCorner(p, q, k1, k2, pick1, pick2, tol)
	}
	// The centre lies on an offset of each carrier; of the crossings,
	// those on the side of each carrier where the other curve's pick is,
	// and of those the one touching nearest the picks.
	var cands []Vec
	var off1, off2 [2]carrier
	var meet [2]Vec
	for _, a := range k1.offsets(off1[:0], r) {
		for _, b := range k2.offsets(off2[:0], r) {
			for _, x := range carriersMeet(meet[:0], a, b, tol) {
				cands = AppendUniqueIn(cands, x, size)
			}
		}
	}
	want1, want2 := k1.side(pick2), k2.side(pick1)
	best, bestScore := -1, math.Inf(1)
	for pass := 0; pass < 2 && best < 0; pass++ {
		for i, x := range cands {
			if pass == 0 && (!sameSide(k1.side(x), want1, tol) || !sameSide(k2.side(x), want2, tol)) {
				continue
			}
			score := k1.touch(x, r).Dist(pick1) + k2.touch(x, r).Dist(pick2)
			if score < bestScore {
				best, bestScore = i, score
			}
		}
	}
	if best < 0 {
		return Corner{}, ErrNoFillet
	}
	x := cands[best]
	t1, t2 := k1.touch(x, r), k2.touch(x, r)
	a1, a2 := t1.Sub(x).Angle(), t2.Sub(x).Angle()
	arc := Arc{C: x, R: r, Start: a1, Sweep: NormRad(a2 - a1)}
	tau1 := t1.Sub(x).Perp() // the arc's direction at t1, into the arc
	tau2 := t2.Sub(x).Perp().Mul(-1)
	if arc.Sweep > math.Pi {
		arc = Arc{C: x, R: r, Start: a2, Sweep: 2*math.Pi - arc.Sweep}
		tau1, tau2 = tau1.Mul(-1), tau2.Mul(-1)
	}
	c := Corner{T1: t1, T2: t2, Arc: arc}
	if c.Keep1, err = keepFrom(p, t1, tau1.Mul(-1), tol); err != nil {
		return Corner{}, err
	}
	if c.Keep2, err = keepFrom(q, t2, tau2.Mul(-1), tol); err != nil {
		return Corner{}, err
	}
	return c, nil
}

// sameSide reports whether s lies on the side want says; a want of about
// 0 (a pick on the carrier) allows either.
func sameSide(s, want, tol float64) bool {
	if math.Abs(want) <= tol {
		return true
	}
	return s*want > 0
}

// sharpCorner is a fillet of radius 0: both curves trimmed or extended to
// the point where their carriers meet nearest the picks.
func sharpCorner(p, q any, k1, k2 carrier, pick1, pick2 Vec, tol float64) (Corner, error) {
	cands := carriersMeet(nil, k1, k2, tol)
	if len(cands) == 0 {
		return Corner{}, errors.New("the entities never meet, even extended: no sharp corner joins them")
	}
	best, bestScore := Vec{}, math.Inf(1)
	for _, x := range cands {
		if s := x.Dist(pick1) + x.Dist(pick2); s < bestScore {
			best, bestScore = x, s
		}
	}
	c := Corner{T1: best, T2: best}
	var err error
	if c.Keep1, err = keepFrom(p, best, keepDir(p, best, pick1, tol), tol); err != nil {
		return Corner{}, err
	}
	if c.Keep2, err = keepFrom(q, best, keepDir(q, best, pick2, tol), tol); err != nil {
		return Corner{}, err
	}
	return c, nil
}

// keepDir is the direction from x, a point of p's carrier, along p
// towards the part of p to keep: the part pick lies on.
func keepDir(p any, x, pick Vec, tol float64) Vec {
	switch s := p.(type) {
	case Segment:
		d := s.B.Sub(s.A).Unit()
		if v := pick.Sub(x).Dot(d); math.Abs(v) > tol {
			return d.Mul(v)
		}
		far := s.A
		if s.B.Dist(x) > s.A.Dist(x) {
			far = s.B
		}
		return d.Mul(far.Sub(x).Dot(d))
	case Arc:
		tx := x.Sub(s.C).Angle()
		ccw := s.C.Sub(x).Perp().Mul(-1) // the circle's counter-clockwise direction at x
		if s.Full() {
			return ccw
		}
		if s.Has(tx) {
			// Inside the arc: keep the part the pick's angle is on.
			if NormRad(pick.Sub(s.C).Angle()-s.Start) >= NormRad(tx-s.Start) {
				return ccw
			}
			return ccw.Mul(-1)
		}
		// Outside: the arc lies ahead of x on the shorter way round.
		if NormRad(s.Start-tx) <= NormRad(tx-(s.Start+s.Sweep)) {
			return ccw
		}
		return ccw.Mul(-1)
	}
	return Vec{}
}

// keepFrom is the curve p trimmed or extended so that it starts at t (on
// its carrier) and runs on in direction k; nil for a full circle, which a
// fillet leaves whole. It fails with ErrTooLarge when the curve's far end
// lies behind t.
func keepFrom(p any, t, k Vec, tol float64) (any, error) {
	switch s := p.(type) {
	case Segment:
		if s.B.Sub(t).Dot(k) >= s.A.Sub(t).Dot(k) {
			if s.B.Sub(t).Dot(k.Unit()) <= tol {
				return nil, ErrTooLarge
			}
			return Segment{t, s.B}, nil
		}
		if s.A.Sub(t).Dot(k.Unit()) <= tol {
			return nil, ErrTooLarge
		}
		return Segment{s.A, t}, nil
	case Arc:
		if s.Full() {
			return nil, nil
		}
		tt := t.Sub(s.C).Angle()
		end := s.Start + s.Sweep
		inside := s.Has(tt)
		arcTol := tol / s.R
		ccw := k.Dot(t.Sub(s.C).Perp()) > 0
		if ccw {
			// Keep from t counter-clockwise to the arc's end.
			if !inside && NormRad(s.Start-tt) > NormRad(tt-end) {
				return nil, ErrTooLarge
			}
			sw := NormRad(end - tt)
			if sw <= arcTol || sw >= 2*math.Pi-arcTol {
				return nil, ErrTooLarge
			}
			return Arc{C: s.C, R: s.R, Start: tt, Sweep: sw, Reversed: s.Reversed}, nil
		}
		if !inside && NormRad(tt-end) > NormRad(s.Start-tt) {
			return nil, ErrTooLarge
		}
		sw := NormRad(tt - s.Start)
		if sw <= arcTol || sw >= 2*math.Pi-arcTol {
			return nil, ErrTooLarge
		}
		return Arc{C: s.C, R: s.R, Start: s.Start, Sweep: sw, Reversed: s.Reversed}, nil
	}
	return nil, ErrNotFilletable
}

// Chamfer joins two segments with a straight cut from d1 along the first
// to d2 along the second, measured from where their lines meet, on the
// parts pick1 and pick2 lie on. d1 = d2 = 0 is the sharp corner (T1 = T2).
// Keep1 and Keep2 are the segments trimmed or extended to the cut.
func Chamfer(s, t Segment, d1, d2 float64, pick1, pick2 Vec) (Corner, error) {
	o := s.A
	size := figure(s, t)
	size = math.Max(size, math.Max(d1, d2))
	tol := Tol(size, math.Max(o.Mag(), 1))
	s, t = shifted(s, o).(Segment), shifted(t, o).(Segment)
	pick1, pick2 = pick1.Sub(o), pick2.Sub(o)
	k1, err := carrierOf(s)
	if err != nil {
		return Corner{}, err
	}
	k2, err := carrierOf(t)
	if err != nil {
		return Corner{}, err
	}
	x := carriersMeet(nil, k1, k2, tol)
	if len(x) == 0 || math.Abs(k1.d.cross(k2.d)) <= Tolerance {
		return Corner{}, ErrParallel
	}
	dir1, dir2 := keepDir(s, x[0], pick1, tol).Unit(), keepDir(t, x[0], pick2, tol).Unit()
	t1, t2 := x[0].Add(dir1.Mul(d1)), x[0].Add(dir2.Mul(d2))
	c := Corner{T1: t1.Add(o), T2: t2.Add(o)}
	if c.Keep1, err = keepFrom(s, t1, dir1, tol); err != nil {
		return Corner{}, chamferErr(err)
	}
	if c.Keep2, err = keepFrom(t, t2, dir2, tol); err != nil {
		return Corner{}, chamferErr(err)
	}
	c.Keep1, c.Keep2 = unshifted(c.Keep1, o), unshifted(c.Keep2, o)
	return c, nil
}

type chamferTooLarge struct{}

func (chamferTooLarge) Error() string {
	return "distances too large for these segments: the cut would pass the far end of a kept part"
}

// Is makes a chamfer's ErrChamferTooLarge match ErrTooLarge.
func (chamferTooLarge) Is(target error) bool { return target == ErrTooLarge }

func chamferErr(err error) error {
	if errors.Is(err, ErrTooLarge) {
		return ErrChamferTooLarge
	}
	return err
}

// ---- polyline corners ----

// PolylineCorners rounds (radius r > 0) or cuts (chamfer: d1 along the
// piece into the corner, d2 along the piece out of it) the corners of g
// between two straight pieces: the corner at vertex (an index into g.V),
// or every corner when vertex < 0. A corner that does not fit its pieces
// (together with the corners at their other ends) fails for one vertex
// and is left as it is for all. A fillet becomes a bulge arc, a chamfer a
// straight piece. It returns the new polyline and how many corners
// changed.
func PolylineCorners(g Polyline, vertex int, chamfer bool, r, d1, d2 float64) (Polyline, int, error) {
	n := len(g.V)
	if vertex >= n {
		return Polyline{}, 0, errors.New("the polyline has no such vertex")
	}
	type corner struct {
		ok            bool
		in, out       float64 // distance from the vertex along each piece
		din, dout     Vec
		bulge         float64
		lenIn, lenOut float64
	}
	tooLarge := ErrTooLarge
	if chamfer {
		tooLarge = ErrChamferTooLarge
	}
	cs := make([]corner, n)
	size := g.Bounds()
	tol := Tol(math.Max(size.Max.X-size.Min.X, size.Max.Y-size.Min.Y), size.Max.Mag())
	var why error
	for i := 0; i < n; i++ {
		if vertex >= 0 && i != vertex {
			continue
		}
		if !g.Closed && (i == 0 || i == n-1) {
			why = errors.New("an end vertex of an open polyline has no corner")
			continue
		}
		prev, next := (i-1+n)%n, (i+1)%n
		if g.V[prev].Bulge != 0 || g.V[i].Bulge != 0 {
			why = errors.New("the corner joins an arc segment: only corners between two straight segments are filleted or chamfered")
			continue
		}
		a, b, c := g.V[prev].P, g.V[i].P, g.V[next].P
		lin, lout := b.Dist(a), c.Dist(b)
		if lin <= tol || lout <= tol {
			why = errors.New("the corner has a segment of zero length")
			continue
		}
		din, dout := b.Sub(a).Mul(1/lin), c.Sub(b).Mul(1/lout)
		theta := math.Atan2(din.cross(dout), din.Dot(dout)) // signed turn
		if math.Abs(theta)*math.Min(lin, lout) <= tol {
			why = errors.New("the segments at the corner are collinear: no corner to change")
			continue
		}
		k := corner{ok: true, din: din, dout: dout, lenIn: lin, lenOut: lout}
		if chamfer {
			k.in, k.out = d1, d2
		} else {
			k.in = r * math.Tan(math.Abs(theta)/2)
			k.out = k.in
			k.bulge = math.Tan(theta / 4)
		}
		cs[i] = k
	}
	// A piece must hold the corners at both its ends.
	for i := 0; i < n; i++ {
		if !cs[i].ok {
			continue
		}
		prev, next := (i-1+n)%n, (i+1)%n
		if cs[i].in+cs[prev].out > cs[i].lenIn+tol || cs[i].out+cs[next].in > cs[i].lenOut+tol {
			if vertex >= 0 {
				return Polyline{}, 0, tooLarge
			}
			cs[i].ok = false
		}
	}
	var out []Vertex
	count := 0
	for i := 0; i < n; i++ {
		k := cs[i]
		if !k.ok {
			out = append(out, g.V[i])
			continue
		}
		count++
		p := g.V[i].P
		out = append(out, Vertex{P: p.Sub(k.din.Mul(k.in)), Bulge: k.bulge}, Vertex{P: p.Add(k.dout.Mul(k.out)), Bulge: g.V[i].Bulge})
	}
	if count == 0 {
		if why == nil {
			why = tooLarge
		}
		return Polyline{}, 0, why
	}
	// Corners that met on a piece share its point: drop the repeats (the
	// point keeps the bulge of the piece that leaves it).
	fig := math.Max(size.Max.X-size.Min.X, size.Max.Y-size.Min.Y)
	clean := make([]Vertex, 0, len(out))
	for _, v := range out {
		if len(clean) > 0 && v.P.SameIn(clean[len(clean)-1].P, fig) {
			clean[len(clean)-1].Bulge = v.Bulge
			continue
		}
		clean = append(clean, v)
	}
	if g.Closed && len(clean) > 1 && clean[len(clean)-1].P.SameIn(clean[0].P, fig) {
		clean = clean[:len(clean)-1]
	}
	return Polyline{V: clean, Closed: g.Closed}, count, nil
}
