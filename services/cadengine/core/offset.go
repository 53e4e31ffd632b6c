package core

import (
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
	a, b  vec
	isArc bool
	c     vec
	r     float64
	ccw   bool
	theta float64 // the arc's included angle before trimming (> 0)
	a0    float64 // the direction of its untrimmed start, signed by its turn
	dir   vec     // a straight piece's direction before offsetting
	seg   int     // the vertex the original piece starts at
	join  *vertex // a round join from b to the next piece's a, if any
}

// offsetPolyline offsets a polyline, bulges included. Each piece moves
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
// on itself. Pieces that are not neighbours are not intersected: a large
// offset inside a concave polyline can cross itself.
func offsetPolyline(g polylineGeom, d float64) (geometry, error) {
	n := len(g.v)
	count := n - 1
	if g.closed {
		count = n
	}
	var pieces []*offPiece
	for i := 0; i < count; i++ {
		a, b := g.v[i], g.v[(i+1)%n]
		if a.p.same(b.p) {
			continue
		}
		p := &offPiece{seg: i}
		if a.bulge == 0 {
			dir := b.p.sub(a.p).unit()
			nv := dir.perp().mul(d)
			p.a, p.b, p.dir = a.p.add(nv), b.p.add(nv), dir
		} else {
			ar := bulgeArc(a.p, b.p, a.bulge)
			p.isArc, p.c, p.ccw, p.theta = true, ar.c, a.bulge > 0, 4*math.Atan(math.Abs(a.bulge))
			p.r = ar.r + d
			if p.ccw {
				p.r = ar.r - d
			}
			if p.r <= tolAt(ar.r) {
				return nil, failed("offsetting by %g collapses the arc from vertex %d (radius %g): use a distance under %g on that side", d, i, ar.r, ar.r)
			}
			k := p.r / ar.r
			p.a, p.b = ar.c.add(a.p.sub(ar.c).mul(k)), ar.c.add(b.p.sub(ar.c).mul(k))
			p.a0 = a.p.sub(ar.c).angle()
			if !p.ccw {
				p.a0 = -p.a0
			}
		}
		pieces = append(pieces, p)
	}
	if len(pieces) == 0 || g.closed && len(pieces) < 2 {
		return nil, failed("the polyline has no length to offset")
	}
	joins := len(pieces) - 1
	if g.closed {
		joins = len(pieces)
	}
	for k := 0; k < joins; k++ {
		p, q := pieces[k], pieces[(k+1)%len(pieces)]
		if err := joinPieces(p, q, g.v[q.seg].p, d); err != nil {
			return nil, err
		}
	}
	var out []vertex
	for _, p := range pieces {
		v := vertex{p: p.a}
		if p.isArc {
			sweep, ok := p.trimmedSweep()
			if !ok {
				return nil, failed("offsetting by %g eats up the arc from vertex %d of the polyline; use a smaller distance", d, p.seg)
			}
			v.bulge = math.Tan(sweep / 4)
			if !p.ccw {
				v.bulge = -v.bulge
			}
		} else if p.b.sub(p.a).dot(p.dir) <= 0 {
			return nil, failed("offsetting by %g reverses the piece from vertex %d of the polyline; use a smaller distance", d, p.seg)
		}
		out = append(out, v)
		if p.join != nil {
			out = append(out, *p.join)
		}
	}
	if !g.closed {
		out = append(out, vertex{p: pieces[len(pieces)-1].b})
	}
	return polylineGeom{v: out, closed: g.closed}, nil
}

// joinPieces joins p's end to q's start; corner is the original vertex
// between them. Pieces that still meet (they were tangent) stay as they
// are. Two straight pieces meet where their lines cross (a mitre). Where
// an arc is involved, the turn at the corner decides: offset towards the
// inside of the turn the pieces overlap and are trimmed to where they
// cross; towards the outside they leave a gap, closed by a round corner
// about the original vertex of radius |d| (extending an arc to meet a
// line can wander far from the corner).
func joinPieces(p, q *offPiece, corner vec, d float64) error {
	if p.b.same(q.a) {
		m := p.b.mid(q.a)
		p.b, q.a = m, m
		return nil
	}
	tp, tq := p.tangentAt(p.b), q.tangentAt(q.a)
	turn := tp.cross(tq)
	parallel := math.Abs(turn) <= Tolerance
	if parallel && tp.dot(tq) < 0 {
		return failed("the polyline doubles back on itself at vertex %d, so its offset has no corner there", q.seg)
	}
	if !p.isArc && !q.isArc {
		x, ok := lineJoin(segment{p.a, p.b}, segment{q.a, q.b})
		if !ok {
			x = p.b.mid(q.a) // parallel within Tolerance: meet half-way
		}
		p.b, q.a = x, x
		return nil
	}
	if turn*d < 0 || parallel {
		phi := math.Atan2(p.b.sub(corner).cross(q.a.sub(corner)), p.b.sub(corner).dot(q.a.sub(corner)))
		p.join = &vertex{p: p.b, bulge: math.Tan(phi / 4)}
		return nil
	}
	var cands []vec
	if p.isArc && q.isArc {
		cands, _ = intersectArcs(arc{c: p.c, r: p.r, sweep: 2 * math.Pi}, arc{c: q.c, r: q.r, sweep: 2 * math.Pi})
	} else {
		line, circ := p, q
		if p.isArc {
			line, circ = q, p
		}
		s := segment{line.a, line.b}
		for _, u := range lineCircle(s, circ.c, circ.r) {
			cands = append(cands, s.a.add(s.b.sub(s.a).mul(u)))
		}
	}
	if len(cands) == 0 {
		return failed("offsetting by %g eats up the pieces around vertex %d of the polyline; use a smaller distance", d, q.seg)
	}
	best, bd := cands[0], math.Inf(1)
	for _, x := range cands {
		if dd := x.dist(p.b) + x.dist(q.a); dd < bd {
			best, bd = x, dd
		}
	}
	p.b, q.a = best, best
	return nil
}

// tangentAt is the unit direction of travel of the piece at x, a point of
// it.
func (p *offPiece) tangentAt(x vec) vec {
	if !p.isArc {
		return p.dir
	}
	t := x.sub(p.c).perp().unit()
	if !p.ccw {
		t = t.mul(-1)
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
	u := func(x vec) float64 {
		v := normRad(sign*x.sub(p.c).angle()-p.a0-p.theta/2+math.Pi) - math.Pi
		return v + p.theta/2
	}
	sweep := u(p.b) - u(p.a)
	if sweep <= tolAt(p.r)/p.r {
		return 0, false
	}
	return sweep, true
}

// lineJoin is the intersection of the infinite lines through two segments;
// false when they are parallel.
func lineJoin(s, t segment) (vec, bool) {
	d1, d2 := s.b.sub(s.a), t.b.sub(t.a)
	den := d1.cross(d2)
	if eq(den/(d1.len()*d2.len()), 0) {
		return vec{}, false
	}
	u := t.a.sub(s.a).cross(d2) / den
	return s.a.add(d1.mul(u)), true
}

// ---- ellipses ----

// offsetEllipse approximates the offset of an ellipse or elliptical arc by
// d (positive away from the centre). The offset of an ellipse is not an
// ellipse (nor any conic), so the result is a polyline of circular arcs —
// closed for a full ellipse, open for an arc, running the same way — each
// through three points of the true offset curve p(t) + d·n(t), split until
// it stays within Tolerance × 1000 (relative beyond 1 document unit) of
// that curve. An inward offset fails once it reaches the smallest radius
// of curvature on the arc's sweep (b²/a at the ends of the major axis),
// where the offset curve would form cusps and cross itself.
func offsetEllipse(g ellipseGeom, d float64) (geometry, error) {
	e := g.arc()
	a := e.major.len()
	if d < 0 {
		if rho := e.minCurvatureRadius(); -d >= rho-tolAt(rho) {
			return nil, failed("offsetting the ellipse inwards by %g reaches its smallest radius of curvature (%g), where its offset would cross itself", -d, rho)
		}
	}
	curve := func(t float64) vec {
		tg := e.tangent(t)
		return e.at(t).add(vec{tg.Y, -tg.X}.mul(d / tg.len()))
	}
	tol := 1e3 * tolAt(a+math.Abs(d))
	t0, span := e.span()
	pieces := max(8, int(math.Ceil(8*span/(2*math.Pi))))
	var out []vertex
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
			return failed("the offset of the ellipse cannot be approximated within %g", tol)
		}
		out = append(out, vertex{p: p, bulge: b})
		return nil
	}
	for i := 0; i < pieces; i++ {
		if err := fit(t0+span*float64(i)/float64(pieces), t0+span*float64(i+1)/float64(pieces), 0); err != nil {
			return nil, err
		}
	}
	if !e.full() {
		out = append(out, vertex{p: curve(t0 + span)})
	}
	pg := newPolylineGeom(out, e.full())
	if !pg.finite() {
		return nil, failed("the offset of the ellipse overflows")
	}
	return pg, nil
}

// minCurvatureRadius is the smallest radius of curvature on the arc's
// sweep. ρ(t) = (a² sin² t + b² cos² t)^(3/2) / (ab) is smallest at the
// ends of the major axis (t = 0, π) and grows towards the minor axis, so
// the smallest on a sweep is at one of those or at an end.
func (e ellipseArc) minCurvatureRadius() float64 {
	a := e.major.len()
	b := a * e.ratio
	rho := func(t float64) float64 {
		s, c := math.Sincos(t)
		return math.Pow(a*a*s*s+b*b*c*c, 1.5) / (a * b)
	}
	if e.full() || e.has(0) || e.has(math.Pi) {
		return b * b / a
	}
	return math.Min(rho(e.start), rho(e.start+e.sweep))
}

// bulgeThrough is the bulge of the circular arc from p through m to q:
// the arc's included angle is twice the supplement of the angle p-m-q, and
// it turns counter-clockwise (positive bulge) when m lies to the right of
// the chord p→q.
func bulgeThrough(p, m, q vec) float64 {
	u, v := p.sub(m), q.sub(m)
	phi := math.Atan2(math.Abs(u.cross(v)), u.dot(v))
	b := math.Tan((math.Pi - phi) / 2)
	if q.sub(p).cross(m.sub(p)) > 0 {
		b = -b
	}
	return b
}

// distToBulge is the distance from x to the circle (or, for a bulge of
// about 0, the line) of the polyline piece from p to q with bulge b.
func distToBulge(p, q vec, b float64, x vec) float64 {
	if math.Abs(b) < 1e-9 {
		s := segment{p, q}
		c, _ := s.closest(x)
		return c.dist(x)
	}
	ar := bulgeArc(p, q, b)
	return math.Abs(x.dist(ar.c) - ar.r)
}
