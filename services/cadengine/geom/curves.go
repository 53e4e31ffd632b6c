package geom

import (
	"math"
)

// ---- primitive curves ----
//
// Every curve entity decomposes into primitives: segments, circular arcs (a
// circle is an arc of sweep 2π) and elliptical arcs. Snaps, intersections,
// extents and crossing tests work on primitives.

// Segment is a straight segment from a to b.
type Segment struct{ A, B Vec }

// Arc is a circular arc counter-clockwise from start through sweep radians
// (0 < sweep <= 2π; 2π is a full circle). rev marks an arc that its owner
// runs clockwise (a polyline segment with a negative bulge), so that its
// natural first point is its end.
type Arc struct {
	C            Vec
	R            float64
	Start, Sweep float64
	Reversed     bool
}

// EllipseArc is an elliptical arc: the points c + major·cos t + minor·sin t
// for t from start through sweep radians counter-clockwise, minor being
// major turned 90° counter-clockwise and scaled by ratio.
type EllipseArc struct {
	C, Major     Vec
	Ratio        float64
	Start, Sweep float64
}

// Length is the segment's length.
func (s Segment) Length() float64 { return s.A.Dist(s.B) }

// Bounds is the segment's bounding box.
func (s Segment) Bounds() Box {
	var b Box
	b.AddPoint(s.A)
	b.AddPoint(s.B)
	return b
}

// Closest is the point of s nearest p and its parameter in [0, 1].
func (s Segment) Closest(p Vec) (Vec, float64) {
	d := s.B.Sub(s.A)
	l2 := d.Dot(d)
	if l2 == 0 {
		return s.A, 0
	}
	t := p.Sub(s.A).Dot(d) / l2
	t = math.Max(0, math.Min(1, t))
	return s.A.Add(d.Mul(t)), t
}

// Full reports whether the arc is a whole circle.
func (a Arc) Full() bool { return a.Sweep >= 2*math.Pi }

// At is the point of the arc's circle at angle t (radians).
func (a Arc) At(t float64) Vec { return polar(a.C, a.R, t) }

// First is the arc's natural first point: its start, or its end when Reversed.
func (a Arc) First() Vec {
	if a.Reversed {
		return a.At(a.Start + a.Sweep)
	}
	return a.At(a.Start)
}

// Last is the arc's natural last point (see First).
func (a Arc) Last() Vec {
	if a.Reversed {
		return a.At(a.Start)
	}
	return a.At(a.Start + a.Sweep)
}

// Length is the arc's length.
func (a Arc) Length() float64 { return a.R * a.Sweep }

// Has reports whether the direction t (radians) lies in the arc's sweep,
// within Tolerance measured along the arc.
func (a Arc) Has(t float64) bool {
	if a.Full() {
		return true
	}
	d := NormRad(t - a.Start)
	tol := Tol(a.R, a.C.Mag()) / a.R
	return d <= a.Sweep+tol || d >= 2*math.Pi-tol
}

// Quadrants are the arc's points at 0°, 90°, 180° and 270° that lie on it.
func (a Arc) Quadrants() []Vec {
	var out []Vec
	for i := 0; i < 4; i++ {
		t := float64(i) * math.Pi / 2
		if a.Has(t) {
			s, c := SinCosDeg(float64(i) * 90)
			out = append(out, Vec{a.C.X + a.R*c, a.C.Y + a.R*s})
		}
	}
	return out
}

// Bounds is the arc's tight bounding box.
func (a Arc) Bounds() Box {
	var b Box
	if !a.Full() {
		b.AddPoint(a.At(a.Start))
		b.AddPoint(a.At(a.Start + a.Sweep))
	}
	for _, q := range a.Quadrants() {
		b.AddPoint(q)
	}
	return b
}

// Closest is the point of a nearest p.
func (a Arc) Closest(p Vec) Vec {
	d := p.Sub(a.C)
	if d.Len() == 0 {
		return a.First()
	}
	t := d.Angle()
	if a.Has(t) {
		return a.At(t)
	}
	s, e := a.At(a.Start), a.At(a.Start+a.Sweep)
	if p.Dist(s) <= p.Dist(e) {
		return s
	}
	return e
}

// Full reports whether the arc is a whole ellipse.
func (e EllipseArc) Full() bool { return e.Sweep >= 2*math.Pi }

func (e EllipseArc) minor() Vec { return e.Major.Perp().Mul(e.Ratio) }

// At is the point of the ellipse at parameter t (radians from the major axis).
func (e EllipseArc) At(t float64) Vec {
	s, c := math.Sincos(t)
	m := e.minor()
	return Vec{e.C.X + e.Major.X*c + m.X*s, e.C.Y + e.Major.Y*c + m.Y*s}
}

// tangent is the derivative of at.
func (e EllipseArc) tangent(t float64) Vec {
	s, c := math.Sincos(t)
	m := e.minor()
	return Vec{-e.Major.X*s + m.X*c, -e.Major.Y*s + m.Y*c}
}

// Has reports whether parameter t lies on the arc's sweep, within Tolerance along the curve.
func (e EllipseArc) Has(t float64) bool {
	if e.Full() {
		return true
	}
	d := NormRad(t - e.Start)
	a := e.Major.Len()
	tol := Tol(a, e.C.Mag()) / a
	return d <= e.Sweep+tol || d >= 2*math.Pi-tol
}

// speed is |at'(t)|.
func (e EllipseArc) speed(t float64) float64 { return e.tangent(t).Len() }

// arcLength is the length of the ellipse from parameter t0 to t1 (t1 >= t0).
func (e EllipseArc) arcLength(t0, t1 float64) float64 {
	return integrate(e.speed, t0, t1)
}

// Length is the arc's length.
func (e EllipseArc) Length() float64 {
	if e.Full() {
		return ellipsePerimeter(e.Major.Len(), e.Major.Len()*e.Ratio)
	}
	return e.arcLength(e.Start, e.Start+e.Sweep)
}

// ParamAtLength is the parameter at arc length l from start.
func (e EllipseArc) ParamAtLength(l float64) float64 {
	lo, hi := e.Start, e.Start+e.Sweep
	for i := 0; i < 100 && hi-lo > 1e-15; i++ {
		m := (lo + hi) / 2
		if e.arcLength(e.Start, m) < l {
			lo = m
		} else {
			hi = m
		}
	}
	return (lo + hi) / 2
}

// Bounds is the arc's tight bounding box.
func (e EllipseArc) Bounds() Box {
	var b Box
	if !e.Full() {
		b.AddPoint(e.At(e.Start))
		b.AddPoint(e.At(e.Start + e.Sweep))
	}
	m := e.minor()
	for _, t := range []float64{math.Atan2(m.X, e.Major.X), math.Atan2(m.Y, e.Major.Y)} {
		for _, u := range []float64{t, t + math.Pi} {
			if e.Has(u) {
				b.AddPoint(e.At(u))
			}
		}
	}
	return b
}

// Quadrants are the ends of the axes that lie on the arc.
func (e EllipseArc) Quadrants() []Vec {
	var out []Vec
	for i := 0; i < 4; i++ {
		t := float64(i) * math.Pi / 2
		if e.Has(t) {
			s, c := SinCosDeg(float64(i) * 90)
			m := e.minor()
			out = append(out, Vec{e.C.X + e.Major.X*c + m.X*s, e.C.Y + e.Major.Y*c + m.Y*s})
		}
	}
	return out
}

// Feet are the parameters where the ellipse's tangent is perpendicular to
// the direction from p: the critical points of the distance to p.
func (e EllipseArc) Feet(p Vec) []float64 {
	f := func(t float64) float64 { return e.At(t).Sub(p).Dot(e.tangent(t)) }
	const n = 256
	t0, span := e.Start, e.Sweep
	if e.Full() {
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
		if i == n && e.Full() {
			// The same point as the first sample: the same value, so that
			// a root at t0 shows as a sign change on one side of it.
			ft = f(t0)
		}
		if ft == 0 && !(i == n && e.Full()) {
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

// Closest is the point of the arc nearest p.
func (e EllipseArc) Closest(p Vec) Vec {
	var cands []Vec
	for _, t := range e.Feet(p) {
		cands = append(cands, e.At(t))
	}
	if !e.Full() {
		cands = append(cands, e.At(e.Start), e.At(e.Start+e.Sweep))
	}
	best, _ := NearestTo(cands, p)
	return best
}

// toUnit maps a point into the ellipse's own frame, where it is the unit
// circle and the parameter t is the polar angle.
func (e EllipseArc) toUnit(p Vec) Vec {
	a := e.Major.Len()
	u := e.Major.Mul(1 / a)
	d := p.Sub(e.C)
	return Vec{d.Dot(u) / a, d.Dot(u.Perp()) / (a * e.Ratio)}
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

// BulgeArc is the arc of a polyline segment from p to q with bulge b != 0.
func BulgeArc(p, q Vec, b float64) Arc {
	d := q.Sub(p)
	c := p.Mid(q).Add(d.Perp().Mul((1 - b*b) / (4 * b)))
	theta := 4 * math.Atan(b) // signed included angle
	r := c.Dist(p)
	if b > 0 {
		return Arc{C: c, R: r, Start: p.Sub(c).Angle(), Sweep: theta}
	}
	return Arc{C: c, R: r, Start: q.Sub(c).Angle(), Sweep: -theta, Reversed: true}
}

// bulgeSegmentArea is the signed area between the chord p→q and its bulge
// arc: positive for positive bulges, which lie to the right of the chord.
func bulgeSegmentArea(p, q Vec, b float64) float64 {
	if b == 0 {
		return 0
	}
	theta := 4 * math.Atan(math.Abs(b))
	c := p.Dist(q)
	r := c / (2 * math.Sin(theta/2))
	a := r * r / 2 * (theta - math.Sin(theta))
	if b < 0 {
		return -a
	}
	return a
}
