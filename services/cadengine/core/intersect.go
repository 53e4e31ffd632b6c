package core

import (
	"errors"
	"math"
	"sort"
)

// ---- intersections ----

// errOverlap reports curves that share a stretch: infinitely many
// intersections.
var errOverlap = errors.New("the entities overlap along a stretch, so they have infinitely many intersections")

// errUnsupportedPair reports a pair of primitives without an intersection
// routine.
var errUnsupportedPair = errors.New("unsupported primitive pair")

func intersectSegments(s, t segment) ([]vec, error) {
	d1, d2 := s.b.sub(s.a), t.b.sub(t.a)
	den := d1.cross(d2)
	scale := math.Max(d1.len(), d2.len())
	if math.Abs(den) <= Tolerance*scale*scale {
		// Parallel. Collinear when t.a lies on the line of s.
		if math.Abs(t.a.sub(s.a).cross(d1)) > tolAt(s.a.sub(t.a).mag())*math.Max(d1.len(), 1) {
			return nil, nil
		}
		var pts []vec
		for _, p := range []vec{s.a, s.b} {
			if onSegment(t, p) {
				pts = appendUnique(pts, p)
			}
		}
		for _, p := range []vec{t.a, t.b} {
			if onSegment(s, p) {
				pts = appendUnique(pts, p)
			}
		}
		if len(pts) > 1 {
			return nil, errOverlap
		}
		return pts, nil
	}
	w := t.a.sub(s.a)
	u := w.cross(d2) / den
	v := w.cross(d1) / den
	tu := tolAt(scale) / math.Max(d1.len(), Tolerance)
	tv := tolAt(scale) / math.Max(d2.len(), Tolerance)
	if u < -tu || u > 1+tu || v < -tv || v > 1+tv {
		return nil, nil
	}
	return []vec{s.a.add(d1.mul(u))}, nil
}

func onSegment(s segment, p vec) bool {
	q, _ := s.closest(p)
	return q.same(p)
}

// lineCircle returns the parameters u along s (the infinite line) where it
// meets the circle (c, r).
func lineCircle(s segment, c vec, r float64) []float64 {
	d := s.b.sub(s.a)
	l := d.len()
	if l == 0 {
		return nil
	}
	// Project the centre: foot at parameter u0, distance h from the line.
	u0 := c.sub(s.a).dot(d) / (l * l)
	foot := s.a.add(d.mul(u0))
	h := foot.dist(c)
	switch {
	case eq(h, r):
		return []float64{u0}
	case h > r:
		return nil
	}
	half := math.Sqrt(r*r-h*h) / l
	return []float64{u0 - half, u0 + half}
}

func intersectSegmentArc(s segment, a arc) []vec {
	var out []vec
	tol := tolAt(math.Max(s.length(), a.r)) / math.Max(s.length(), Tolerance)
	for _, u := range lineCircle(s, a.c, a.r) {
		if u < -tol || u > 1+tol {
			continue
		}
		p := s.a.add(s.b.sub(s.a).mul(u))
		if a.has(p.sub(a.c).angle()) {
			out = appendUnique(out, p)
		}
	}
	return out
}

func intersectArcs(a, b arc) ([]vec, error) {
	d := a.c.dist(b.c)
	if a.c.same(b.c) && eq(a.r, b.r) {
		return coincidentArcs(a, b)
	}
	if d == 0 {
		return nil, nil // concentric, different radii
	}
	var pts []vec
	u := b.c.sub(a.c).mul(1 / d)
	switch {
	case eq(d, a.r+b.r):
		pts = []vec{a.c.add(u.mul(a.r))}
	case eq(d, math.Abs(a.r-b.r)):
		if a.r >= b.r {
			pts = []vec{a.c.add(u.mul(a.r))}
		} else {
			pts = []vec{a.c.sub(u.mul(a.r))}
		}
	case d > a.r+b.r || d < math.Abs(a.r-b.r):
		return nil, nil
	default:
		x := (d*d + a.r*a.r - b.r*b.r) / (2 * d)
		h := math.Sqrt(math.Max(0, a.r*a.r-x*x))
		m := a.c.add(u.mul(x))
		pts = []vec{m.add(u.perp().mul(h)), m.sub(u.perp().mul(h))}
	}
	var out []vec
	for _, p := range pts {
		if a.has(p.sub(a.c).angle()) && b.has(p.sub(b.c).angle()) {
			out = appendUnique(out, p)
		}
	}
	return out, nil
}

// coincidentArcs intersects two arcs of the same circle: their shared end
// points, or errOverlap when they share a stretch.
func coincidentArcs(a, b arc) ([]vec, error) {
	if a.full() || b.full() {
		return nil, errOverlap
	}
	bounds := []float64{0, normRad(a.sweep), normRad(b.start - a.start), normRad(b.start + b.sweep - a.start)}
	sort.Float64s(bounds)
	bounds = append(bounds, 2*math.Pi)
	for i := 0; i+1 < len(bounds); i++ {
		if bounds[i+1]-bounds[i] <= Tolerance {
			continue
		}
		m := a.start + (bounds[i]+bounds[i+1])/2
		if a.has(m) && b.has(m) && !sameAngleAsEnd(a, m) && !sameAngleAsEnd(b, m) {
			return nil, errOverlap
		}
	}
	var out []vec
	for _, p := range []vec{a.at(a.start), a.at(a.start + a.sweep)} {
		if b.has(p.sub(b.c).angle()) {
			out = appendUnique(out, p)
		}
	}
	for _, p := range []vec{b.at(b.start), b.at(b.start + b.sweep)} {
		if a.has(p.sub(a.c).angle()) {
			out = appendUnique(out, p)
		}
	}
	return out, nil
}

func sameAngleAsEnd(a arc, t float64) bool {
	return a.at(t).same(a.at(a.start)) || a.at(t).same(a.at(a.start+a.sweep))
}

func intersectSegmentEllipse(s segment, e ellipseArc) []vec {
	us := segment{e.toUnit(s.a), e.toUnit(s.b)}
	var out []vec
	tol := Tolerance * math.Max(1, e.major.len()) / math.Max(s.length(), Tolerance)
	for _, u := range lineCircle(us, vec{}, 1) {
		if u < -tol || u > 1+tol {
			continue
		}
		t := us.a.add(us.b.sub(us.a).mul(u)).angle()
		if e.has(t) {
			out = appendUnique(out, e.at(t))
		}
	}
	return out
}

// intersect intersects two primitives (segment, arc or ellipseArc): in
// closed form, except where an ellipse meets an arc or another ellipse
// (numerically, see ellipse.go).
func intersect(p, q any) ([]vec, error) {
	switch a := p.(type) {
	case segment:
		switch b := q.(type) {
		case segment:
			return intersectSegments(a, b)
		case arc:
			return intersectSegmentArc(a, b), nil
		case ellipseArc:
			return intersectSegmentEllipse(a, b), nil
		}
	case arc:
		switch b := q.(type) {
		case segment:
			return intersectSegmentArc(b, a), nil
		case arc:
			return intersectArcs(a, b)
		case ellipseArc:
			return intersectArcEllipse(a, b)
		}
	case ellipseArc:
		switch b := q.(type) {
		case segment:
			return intersectSegmentEllipse(b, a), nil
		case arc:
			return intersectArcEllipse(b, a)
		case ellipseArc:
			return intersectEllipses(a, b)
		}
	}
	return nil, errUnsupportedPair
}

// ---- tangents ----

// tangentPoints are the points where lines from p touch the circle (c, r):
// none when p is inside, p itself when on it.
func tangentPoints(c vec, r float64, p vec) []vec {
	d := p.dist(c)
	switch {
	case eq(d, r):
		return []vec{p}
	case d < r:
		return nil
	}
	phi := p.sub(c).angle()
	alpha := math.Acos(r / d)
	return []vec{polar(c, r, phi+alpha), polar(c, r, phi-alpha)}
}

// ---- helpers ----

func appendUnique(pts []vec, p vec) []vec {
	for _, q := range pts {
		if q.same(p) {
			return pts
		}
	}
	return append(pts, p)
}

// nearestTo is the candidate nearest ref (the first on ties) and its index.
func nearestTo(cands []vec, ref vec) (vec, int) {
	best, bi := vec{}, -1
	bd := math.Inf(1)
	for i, c := range cands {
		if d := c.dist(ref); d < bd-tolAt(bd) || bi < 0 {
			best, bi, bd = c, i, d
		}
	}
	return best, bi
}

// primCrossesBox reports whether a primitive has a point inside w.
func primCrossesBox(p any, w box, first vec) bool {
	if w.contains(first) {
		return true
	}
	c := w.corners()
	for i := 0; i < 4; i++ {
		pts, err := intersect(p, segment{c[i], c[(i+1)%4]})
		if err != nil || len(pts) > 0 {
			return true
		}
	}
	return false
}
