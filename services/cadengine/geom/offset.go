package geom

import (
	"fmt"
	"math"
)

// ---- offsets of polylines and ellipses ----
//
// Sides: a positive distance is to the left of the direction of travel,
// as for lines (for a counter-clockwise closed polyline, inwards); for an
// ellipse, whose offset has no direction of travel to speak of, positive
// is away from the centre, as for circles.

// offPiece is one piece of a polyline being offset: a straight piece from
// a to b, or an arc about c of radius r from a to b, counter-clockwise
// when ccw.
type offPiece struct {
	a, b  Vec
	isArc bool
	c     Vec
	r     float64
	ccw   bool
	theta float64 // the arc's included angle before trimming (> 0)
	a0    float64 // the direction of its untrimmed start, signed by its turn
	dir   Vec     // a straight piece's direction before offsetting
	seg   int     // the vertex the original piece starts at
	join  *Vertex // a round join from b to the next piece's a, if any
}

// OffsetPolyline offsets a polyline, bulges included. Each piece moves
// sideways by d: a straight piece along its normal, a bulge arc by
// changing its radius by d (shrinking when the arc turns towards the
// offset side: a counter-clockwise arc offset to the left) and keeping
// its included angle. Consecutive offset pieces are then joined (see
// joinPieces): tangent pieces stay joined end to end, straight pieces
// are mitred, an arc and its neighbour are trimmed to where they cross on
// the inside of a turn and get a round corner of radius |d| on the
// outside — so a tangent-continuous closed shape (a rounded rectangle,
// a slot) offsets to the same shape with its radii changed by d.
// Trimmed pieces keep their direction. It fails when an arc collapses
// (its radius would reach 0), when a piece would reverse or vanish (it is
// shorter than the offset eats away), or when the polyline doubles back
// on itself. An offset that comes apart into several pieces (a closed
// concave polyline offset inwards by more than half a neck) is
// ErrOffsetSplits, and one that would cross itself ErrOffsetCrosses:
// OffsetPieces returns the pieces.
func OffsetPolyline(g Polyline, d float64) (Polyline, error) {
	ps, err := OffsetPieces(g, d)
	if err != nil {
		return Polyline{}, err
	}
	if len(ps) > 1 {
		return Polyline{}, &OffsetError{Err: ErrOffsetSplits, Pieces: len(ps)}
	}
	return ps[0], nil
}

// rawOffset is the offset of every piece, joined to its neighbours, before
// any crossing of pieces that are not neighbours is resolved.
func rawOffset(g Polyline, d float64) (Polyline, error) {
	n := len(g.V)
	count := n - 1
	if g.Closed {
		count = n
	}
	var pieces []*offPiece
	for i := 0; i < count; i++ {
		a, b := g.V[i], g.V[(i+1)%n]
		if a.P.Same(b.P) {
			continue
		}
		p := &offPiece{seg: i}
		if a.Bulge == 0 {
			dir := b.P.Sub(a.P).Unit()
			nv := dir.Perp().Mul(d)
			p.a, p.b, p.dir = a.P.Add(nv), b.P.Add(nv), dir
		} else {
			ar := BulgeArc(a.P, b.P, a.Bulge)
			p.isArc, p.c, p.ccw, p.theta = true, ar.C, a.Bulge > 0, 4*math.Atan(math.Abs(a.Bulge))
			p.r = ar.R + d
			if p.ccw {
				p.r = ar.R - d
			}
			if p.r <= TolAt(ar.R) {
				return Polyline{}, fmt.Errorf("offsetting by %g collapses the arc from vertex %d (radius %g): use a distance under %g on that side", d, i, ar.R, ar.R)
			}
			k := p.r / ar.R
			p.a, p.b = ar.C.Add(a.P.Sub(ar.C).Mul(k)), ar.C.Add(b.P.Sub(ar.C).Mul(k))
			p.a0 = a.P.Sub(ar.C).Angle()
			if !p.ccw {
				p.a0 = -p.a0
			}
		}
		pieces = append(pieces, p)
	}
	if len(pieces) == 0 || g.Closed && len(pieces) < 2 {
		return Polyline{}, fmt.Errorf("the polyline has no length to offset")
	}
	joins := len(pieces) - 1
	if g.Closed {
		joins = len(pieces)
	}
	for k := 0; k < joins; k++ {
		p, q := pieces[k], pieces[(k+1)%len(pieces)]
		if err := joinPieces(p, q, g.V[q.seg].P, d); err != nil {
			return Polyline{}, err
		}
	}
	var out []Vertex
	for _, p := range pieces {
		v := Vertex{P: p.a}
		if p.isArc {
			sweep, ok := p.trimmedSweep()
			if !ok {
				return Polyline{}, fmt.Errorf("offsetting by %g eats up the arc from vertex %d of the polyline; use a smaller distance", d, p.seg)
			}
			v.Bulge = math.Tan(sweep / 4)
			if !p.ccw {
				v.Bulge = -v.Bulge
			}
		} else if p.b.Sub(p.a).Dot(p.dir) <= 0 {
			return Polyline{}, fmt.Errorf("offsetting by %g reverses the piece from vertex %d of the polyline; use a smaller distance", d, p.seg)
		}
		out = append(out, v)
		if p.join != nil {
			out = append(out, *p.join)
		}
	}
	if !g.Closed {
		out = append(out, Vertex{P: pieces[len(pieces)-1].b})
	}
	return Polyline{V: out, Closed: g.Closed}, nil
}

// joinPieces joins p's end to q's start; corner is the original vertex
// between them. Pieces that still meet (they were tangent) stay as they
// are. Two straight pieces meet where their lines cross (a mitre). Where
// an arc is involved, the turn at the corner decides: offset towards the
// inside of the turn the pieces overlap and are trimmed to where they
// cross; towards the outside they leave a gap, closed by a round corner
// about the original vertex of radius |d| (extending an arc to meet a
// line can wander far from the corner).
func joinPieces(p, q *offPiece, corner Vec, d float64) error {
	if p.b.Same(q.a) {
		m := p.b.Mid(q.a)
		p.b, q.a = m, m
		return nil
	}
	tp, tq := p.tangentAt(p.b), q.tangentAt(q.a)
	turn := tp.cross(tq)
	parallel := math.Abs(turn) <= Tolerance
	if parallel && tp.Dot(tq) < 0 {
		return fmt.Errorf("the polyline doubles back on itself at vertex %d, so its offset has no corner there", q.seg)
	}
	if !p.isArc && !q.isArc {
		x, ok := lineJoin(Segment{p.a, p.b}, Segment{q.a, q.b})
		if !ok {
			x = p.b.Mid(q.a) // parallel within Tolerance: meet half-way
		}
		p.b, q.a = x, x
		return nil
	}
	if turn*d < 0 || parallel {
		phi := math.Atan2(p.b.Sub(corner).cross(q.a.Sub(corner)), p.b.Sub(corner).Dot(q.a.Sub(corner)))
		p.join = &Vertex{P: p.b, Bulge: math.Tan(phi / 4)}
		return nil
	}
	var cands []Vec
	if p.isArc && q.isArc {
		cands, _ = intersectArcs(Arc{C: p.c, R: p.r, Sweep: 2 * math.Pi}, Arc{C: q.c, R: q.r, Sweep: 2 * math.Pi})
	} else {
		line, circ := p, q
		if p.isArc {
			line, circ = q, p
		}
		s := Segment{line.a, line.b}
		for _, u := range lineCircle(s, circ.c, circ.r) {
			cands = append(cands, s.A.Add(s.B.Sub(s.A).Mul(u)))
		}
	}
	if len(cands) == 0 {
		return fmt.Errorf("offsetting by %g eats up the pieces around vertex %d of the polyline; use a smaller distance", d, q.seg)
	}
	best, bd := cands[0], math.Inf(1)
	for _, x := range cands {
		if dd := x.Dist(p.b) + x.Dist(q.a); dd < bd {
			best, bd = x, dd
		}
	}
	p.b, q.a = best, best
	return nil
}

// tangentAt is the unit direction of travel of the piece at x, a point of
// it.
func (p *offPiece) tangentAt(x Vec) Vec {
	if !p.isArc {
		return p.dir
	}
	t := x.Sub(p.c).Perp().Unit()
	if !p.ccw {
		t = t.Mul(-1)
	}
	return t
}

// trimmedSweep is the included angle of an offset arc between its
// trimmed ends, in its direction of travel; false when the trimming
// reversed or emptied it. Each end's angle is measured from the untrimmed
// start in the direction of travel and taken within half a turn of the
// untrimmed arc's middle, so that an end trimmed back past the other one
// counts as such.
func (p *offPiece) trimmedSweep() (float64, bool) {
	sign := 1.0
	if !p.ccw {
		sign = -1
	}
	u := func(x Vec) float64 {
		v := NormRad(sign*x.Sub(p.c).Angle()-p.a0-p.theta/2+math.Pi) - math.Pi
		return v + p.theta/2
	}
	sweep := u(p.b) - u(p.a)
	if sweep <= TolAt(p.r)/p.r {
		return 0, false
	}
	return sweep, true
}

// lineJoin is the intersection of the infinite lines through two segments;
// false when they are parallel.
func lineJoin(s, t Segment) (Vec, bool) {
	d1, d2 := s.B.Sub(s.A), t.B.Sub(t.A)
	den := d1.cross(d2)
	if Eq(den/(d1.Len()*d2.Len()), 0) {
		return Vec{}, false
	}
	u := t.A.Sub(s.A).cross(d2) / den
	return s.A.Add(d1.Mul(u)), true
}

// ---- ellipses ----

// OffsetEllipse approximates the offset of an ellipse or elliptical arc by
// d (positive away from the centre). The offset of an ellipse is not an
// ellipse (nor any conic), so the result is a polyline of circular arcs —
// closed for a full ellipse, open for an arc, running the same way — each
// through three points of the true offset curve p(t) + d·n(t), split until
// it stays within Tolerance × 1000 (relative beyond 1 document unit) of
// that curve. An inward offset fails once it reaches the smallest radius
// of curvature on the arc's sweep (b²/a at the ends of the major axis),
// where the offset curve would form cusps and cross itself.
func OffsetEllipse(e EllipseArc, d float64) (Polyline, error) {
	a := e.Major.Len()
	if d < 0 {
		if rho := e.minCurvatureRadius(); -d >= rho-TolAt(rho) {
			return Polyline{}, fmt.Errorf("offsetting the ellipse inwards by %g reaches its smallest radius of curvature (%g), where its offset would cross itself", -d, rho)
		}
	}
	curve := func(t float64) Vec {
		tg := e.tangent(t)
		return e.At(t).Add(Vec{tg.Y, -tg.X}.Mul(d / tg.Len()))
	}
	tol := 1e3 * TolAt(a+math.Abs(d))
	t0, span := e.span()
	pieces := max(8, int(math.Ceil(8*span/(2*math.Pi))))
	var out []Vertex
	var fit func(lo, hi float64, depth int) error
	fit = func(lo, hi float64, depth int) error {
		p, q := curve(lo), curve(hi)
		m := curve(lo + (hi-lo)/2)
		b := bulgeThrough(p, m, q)
		worst := 0.0
		for _, f := range []float64{0.125, 0.25, 0.375, 0.625, 0.75, 0.875} {
			worst = math.Max(worst, distToBulge(p, q, b, curve(lo+(hi-lo)*f)))
		}
		if worst > tol && depth < 40 && len(out) < 100000 {
			if err := fit(lo, lo+(hi-lo)/2, depth+1); err != nil {
				return err
			}
			return fit(lo+(hi-lo)/2, hi, depth+1)
		}
		if worst > tol {
			return fmt.Errorf("the offset of the ellipse cannot be approximated within %g", tol)
		}
		out = append(out, Vertex{P: p, Bulge: b})
		return nil
	}
	for i := 0; i < pieces; i++ {
		if err := fit(t0+span*float64(i)/float64(pieces), t0+span*float64(i+1)/float64(pieces), 0); err != nil {
			return Polyline{}, err
		}
	}
	if !e.Full() {
		out = append(out, Vertex{P: curve(t0 + span)})
	}
	pl := Polyline{V: out, Closed: e.Full()}
	if !pl.Finite() {
		return Polyline{}, fmt.Errorf("the offset of the ellipse overflows")
	}
	return pl, nil
}

// minCurvatureRadius is the smallest radius of curvature on the arc's
// sweep. ρ(t) = (a² sin² t + b² cos² t)^(3/2) / (ab) is smallest at the
// ends of the major axis (t = 0, π) and grows towards the minor axis, so
// the smallest on a sweep is at one of those or at an end.
func (e EllipseArc) minCurvatureRadius() float64 {
	a := e.Major.Len()
	b := a * e.Ratio
	rho := func(t float64) float64 {
		s, c := math.Sincos(t)
		return math.Pow(a*a*s*s+b*b*c*c, 1.5) / (a * b)
	}
	if e.Full() || e.Has(0) || e.Has(math.Pi) {
		return b * b / a
	}
	return math.Min(rho(e.Start), rho(e.Start+e.Sweep))
}

// bulgeThrough is the bulge of the circular arc from p through m to q:
// the arc's included angle is twice the supplement of the angle p-m-q, and
// it turns counter-clockwise (positive bulge) when m lies to the right of
// the chord p→q.
func bulgeThrough(p, m, q Vec) float64 {
	u, v := p.Sub(m), q.Sub(m)
	phi := math.Atan2(math.Abs(u.cross(v)), u.Dot(v))
	b := math.Tan((math.Pi - phi) / 2)
	if q.Sub(p).cross(m.Sub(p)) > 0 {
		b = -b
	}
	return b
}

// distToBulge is the distance from x to the circle (or, for a bulge of
// about 0, the line) of the polyline piece from p to q with bulge b.
func distToBulge(p, q Vec, b float64, x Vec) float64 {
	if math.Abs(b) < 1e-9 {
		s := Segment{p, q}
		c, _ := s.Closest(x)
		return c.Dist(x)
	}
	ar := BulgeArc(p, q, b)
	return math.Abs(x.Dist(ar.C) - ar.R)
}
