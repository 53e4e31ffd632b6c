package core

import (
	"math"
)

// ---- primitive curves ----
//
// Every curve entity decomposes into primitives: segments, circular arcs (a
// circle is an arc of sweep 2π) and elliptical arcs. Snaps, intersections,
// extents and crossing tests work on primitives.

// segment is a straight segment from a to b.
type segment struct{ a, b vec }

// arc is a circular arc counter-clockwise from start through sweep radians
// (0 < sweep <= 2π; 2π is a full circle). rev marks an arc that its owner
// runs clockwise (a polyline segment with a negative bulge), so that its
// natural first point is its end.
type arc struct {
	c            vec
	r            float64
	start, sweep float64
	rev          bool
}

// ellipseArc is an elliptical arc: the points c + major·cos t + minor·sin t
// for t from start through sweep radians counter-clockwise, minor being
// major turned 90° counter-clockwise and scaled by ratio.
type ellipseArc struct {
	c, major     vec
	ratio        float64
	start, sweep float64
}

func (s segment) length() float64 { return s.a.dist(s.b) }

func (s segment) bounds() box {
	var b box
	b.addPoint(s.a)
	b.addPoint(s.b)
	return b
}

// closest is the point of s nearest p and its parameter in [0, 1].
func (s segment) closest(p vec) (vec, float64) {
	d := s.b.sub(s.a)
	l2 := d.dot(d)
	if l2 == 0 {
		return s.a, 0
	}
	t := p.sub(s.a).dot(d) / l2
	t = math.Max(0, math.Min(1, t))
	return s.a.add(d.mul(t)), t
}

func (a arc) full() bool { return a.sweep >= 2*math.Pi }

func (a arc) at(t float64) vec { return polar(a.c, a.r, t) }

func (a arc) first() vec {
	if a.rev {
		return a.at(a.start + a.sweep)
	}
	return a.at(a.start)
}

func (a arc) last() vec {
	if a.rev {
		return a.at(a.start)
	}
	return a.at(a.start + a.sweep)
}

func (a arc) length() float64 { return a.r * a.sweep }

// has reports whether the direction t (radians) lies in the arc's sweep,
// within Tolerance measured along the arc.
func (a arc) has(t float64) bool {
	if a.full() {
		return true
	}
	d := normRad(t - a.start)
	tol := tolAt(a.r) / math.Max(a.r, Tolerance)
	return d <= a.sweep+tol || d >= 2*math.Pi-tol
}

// quadrants are the arc's points at 0°, 90°, 180° and 270° that lie on it.
func (a arc) quadrants() []vec {
	var out []vec
	for i := 0; i < 4; i++ {
		t := float64(i) * math.Pi / 2
		if a.has(t) {
			s, c := sinCosDeg(float64(i) * 90)
			out = append(out, vec{a.c.X + a.r*c, a.c.Y + a.r*s})
		}
	}
	return out
}

func (a arc) bounds() box {
	var b box
	if !a.full() {
		b.addPoint(a.at(a.start))
		b.addPoint(a.at(a.start + a.sweep))
	}
	for _, q := range a.quadrants() {
		b.addPoint(q)
	}
	return b
}

// closest is the point of a nearest p.
func (a arc) closest(p vec) vec {
	d := p.sub(a.c)
	if d.len() == 0 {
		return a.first()
	}
	t := d.angle()
	if a.has(t) {
		return a.at(t)
	}
	s, e := a.at(a.start), a.at(a.start+a.sweep)
	if p.dist(s) <= p.dist(e) {
		return s
	}
	return e
}

func (e ellipseArc) full() bool { return e.sweep >= 2*math.Pi }

func (e ellipseArc) minor() vec { return e.major.perp().mul(e.ratio) }

func (e ellipseArc) at(t float64) vec {
	s, c := math.Sincos(t)
	m := e.minor()
	return vec{e.c.X + e.major.X*c + m.X*s, e.c.Y + e.major.Y*c + m.Y*s}
}

// tangent is the derivative of at.
func (e ellipseArc) tangent(t float64) vec {
	s, c := math.Sincos(t)
	m := e.minor()
	return vec{-e.major.X*s + m.X*c, -e.major.Y*s + m.Y*c}
}

func (e ellipseArc) has(t float64) bool {
	if e.full() {
		return true
	}
	d := normRad(t - e.start)
	a := e.major.len()
	tol := tolAt(a) / math.Max(a, Tolerance)
	return d <= e.sweep+tol || d >= 2*math.Pi-tol
}

// speed is |at'(t)|.
func (e ellipseArc) speed(t float64) float64 { return e.tangent(t).len() }

// arcLength is the length of the ellipse from parameter t0 to t1 (t1 >= t0).
func (e ellipseArc) arcLength(t0, t1 float64) float64 {
	return integrate(e.speed, t0, t1)
}

func (e ellipseArc) length() float64 {
	if e.full() {
		return ellipsePerimeter(e.major.len(), e.major.len()*e.ratio)
	}
	return e.arcLength(e.start, e.start+e.sweep)
}

// paramAtLength is the parameter at arc length l from start.
func (e ellipseArc) paramAtLength(l float64) float64 {
	lo, hi := e.start, e.start+e.sweep
	for i := 0; i < 100 && hi-lo > 1e-15; i++ {
		m := (lo + hi) / 2
		if e.arcLength(e.start, m) < l {
			lo = m
		} else {
			hi = m
		}
	}
	return (lo + hi) / 2
}

func (e ellipseArc) bounds() box {
	var b box
	if !e.full() {
		b.addPoint(e.at(e.start))
		b.addPoint(e.at(e.start + e.sweep))
	}
	m := e.minor()
	for _, t := range []float64{math.Atan2(m.X, e.major.X), math.Atan2(m.Y, e.major.Y)} {
		for _, u := range []float64{t, t + math.Pi} {
			if e.has(u) {
				b.addPoint(e.at(u))
			}
		}
	}
	return b
}

// quadrants are the ends of the axes that lie on the arc.
func (e ellipseArc) quadrants() []vec {
	var out []vec
	for i := 0; i < 4; i++ {
		t := float64(i) * math.Pi / 2
		if e.has(t) {
			s, c := sinCosDeg(float64(i) * 90)
			m := e.minor()
			out = append(out, vec{e.c.X + e.major.X*c + m.X*s, e.c.Y + e.major.Y*c + m.Y*s})
		}
	}
	return out
}

// feet are the parameters where the ellipse's tangent is perpendicular to
// the direction from p: the critical points of the distance to p.
func (e ellipseArc) feet(p vec) []float64 {
	f := func(t float64) float64 { return e.at(t).sub(p).dot(e.tangent(t)) }
	const n = 256
	t0, span := e.start, e.sweep
	if e.full() {
		t0, span = 0, 2*math.Pi
	}
	var roots []float64
	prevT, prevF := t0, f(t0)
	if prevF == 0 {
		roots = append(roots, prevT)
	}
	for i := 1; i <= n; i++ {
		t := t0 + span*float64(i)/n
		ft := f(t)
		if i == n && e.full() {
			// The same point as the first sample: the same value, so that
			// a root at t0 shows as a sign change on one side of it.
			ft = f(t0)
		}
		if ft == 0 && !(i == n && e.full()) {
			roots = append(roots, t)
		} else if prevF != 0 && (prevF < 0) != (ft < 0) {
			lo, hi, flo := prevT, t, prevF
			for k := 0; k < 200 && hi-lo > 1e-16*math.Max(1, math.Abs(hi)); k++ {
				m := (lo + hi) / 2
				fm := f(m)
				if (fm < 0) == (flo < 0) {
					lo, flo = m, fm
				} else {
					hi = m
				}
			}
			roots = append(roots, (lo+hi)/2)
		}
		prevT, prevF = t, ft
	}
	return roots
}

func (e ellipseArc) closest(p vec) vec {
	var cands []vec
	for _, t := range e.feet(p) {
		cands = append(cands, e.at(t))
	}
	if !e.full() {
		cands = append(cands, e.at(e.start), e.at(e.start+e.sweep))
	}
	best, _ := nearestTo(cands, p)
	return best
}

// toUnit maps a point into the ellipse's own frame, where it is the unit
// circle and the parameter t is the polar angle.
func (e ellipseArc) toUnit(p vec) vec {
	a := e.major.len()
	u := e.major.mul(1 / a)
	d := p.sub(e.c)
	return vec{d.dot(u) / a, d.dot(u.perp()) / (a * e.ratio)}
}

// integrate is an adaptive Simpson integral of a smooth function.
func integrate(f func(float64) float64, a, b float64) float64 {
	if b <= a {
		return 0
	}
	// Split at quarter turns: ellipse speeds have their sharpest features at
	// the axis ends.
	const q = math.Pi / 2
	total := 0.0
	lo := a
	for lo < b {
		hi := math.Min(b, (math.Floor(lo/q)+1)*q)
		if hi <= lo {
			hi = b
		}
		fa, fm, fb := f(lo), f((lo+hi)/2), f(hi)
		whole := (hi - lo) / 6 * (fa + 4*fm + fb)
		total += simpson(f, lo, hi, fa, fm, fb, whole, 1e-13*math.Max(1, math.Abs(whole)), 48)
		lo = hi
	}
	return total
}

func simpson(f func(float64) float64, a, b, fa, fm, fb, whole, eps float64, depth int) float64 {
	m := (a + b) / 2
	lm, rm := (a+m)/2, (m+b)/2
	flm, frm := f(lm), f(rm)
	left := (m - a) / 6 * (fa + 4*flm + fm)
	right := (b - m) / 6 * (fm + 4*frm + fb)
	if depth <= 0 || math.Abs(left+right-whole) <= 15*eps {
		return left + right + (left+right-whole)/15
	}
	return simpson(f, a, m, fa, flm, fm, left, eps/2, depth-1) + simpson(f, m, b, fm, frm, fb, right, eps/2, depth-1)
}

// ellipsePerimeter is the exact perimeter of an ellipse with semi-axes a >=
// b, by the arithmetic-geometric mean (complete elliptic integral of the
// second kind).
func ellipsePerimeter(a, b float64) float64 {
	if b > a {
		a, b = b, a
	}
	if a == 0 {
		return 0
	}
	x, y := 1.0, b/a
	sum := 0.5 * (1 - y*y) // 2^-1 · c0², c0² = 1 - (b/a)²
	pow := 0.5
	for i := 0; i < 64 && math.Abs(x-y) > 1e-16; i++ {
		c := (x - y) / 2
		x, y = (x+y)/2, math.Sqrt(x*y)
		pow *= 2
		sum += pow * c * c
	}
	// E = K (1 - sum), K = π / (2 agm); perimeter = 4 a E.
	return 4 * a * (math.Pi / (2 * x)) * (1 - sum)
}

// ---- bulges ----

// bulgeArc is the arc of a polyline segment from p to q with bulge b != 0.
func bulgeArc(p, q vec, b float64) arc {
	d := q.sub(p)
	c := p.mid(q).add(d.perp().mul((1 - b*b) / (4 * b)))
	theta := 4 * math.Atan(b) // signed included angle
	r := c.dist(p)
	if b > 0 {
		return arc{c: c, r: r, start: p.sub(c).angle(), sweep: theta}
	}
	return arc{c: c, r: r, start: q.sub(c).angle(), sweep: -theta, rev: true}
}

// bulgeSegmentArea is the signed area between the chord p→q and its bulge
// arc: positive for positive bulges, which lie to the right of the chord.
func bulgeSegmentArea(p, q vec, b float64) float64 {
	if b == 0 {
		return 0
	}
	theta := 4 * math.Atan(math.Abs(b))
	c := p.dist(q)
	r := c / (2 * math.Sin(theta/2))
	a := r * r / 2 * (theta - math.Sin(theta))
	if b < 0 {
		return -a
	}
	return a
}
