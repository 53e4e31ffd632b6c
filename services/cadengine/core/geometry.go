package core

import (
	"math"
)

// Tolerance is the engine's geometric tolerance. Two lengths a and b are
// equal when |a-b| <= Tolerance * max(1, |a|, |b|): absolute for values up
// to 1 document unit, relative beyond. Two points are equal when their
// distance is at most Tolerance * max(1, the largest |coordinate| of
// either). Angles are compared as the arc length they span on the curve at
// hand, so the same rule applies. Intersections, tangency, "on the entity"
// tests and de-duplication of candidate points all use it.
const Tolerance = 1e-9

// eq reports whether two lengths are equal within Tolerance.
func eq(a, b float64) bool {
	return math.Abs(a-b) <= Tolerance*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// tolAt is the absolute tolerance for lengths of magnitude around m.
func tolAt(m float64) float64 { return Tolerance * math.Max(1, math.Abs(m)) }

// vec is a point or a vector in world coordinates.
type vec struct{ X, Y float64 }

func (a vec) add(b vec) vec           { return vec{a.X + b.X, a.Y + b.Y} }
func (a vec) sub(b vec) vec           { return vec{a.X - b.X, a.Y - b.Y} }
func (a vec) mul(s float64) vec       { return vec{a.X * s, a.Y * s} }
func (a vec) dot(b vec) float64       { return a.X*b.X + a.Y*b.Y }
func (a vec) cross(b vec) float64     { return a.X*b.Y - a.Y*b.X }
func (a vec) len() float64            { return math.Hypot(a.X, a.Y) }
func (a vec) dist(b vec) float64      { return math.Hypot(a.X-b.X, a.Y-b.Y) }
func (a vec) perp() vec               { return vec{-a.Y, a.X} } // rotated 90° counter-clockwise
func (a vec) angle() float64          { return math.Atan2(a.Y, a.X) }
func (a vec) mid(b vec) vec           { return vec{(a.X + b.X) / 2, (a.Y + b.Y) / 2} }
func (a vec) finite() bool            { return isFinite(a.X) && isFinite(a.Y) }
func (a vec) mag() float64            { return math.Max(math.Abs(a.X), math.Abs(a.Y)) }
func polar(c vec, r, rad float64) vec { return vec{c.X + r*math.Cos(rad), c.Y + r*math.Sin(rad)} }

// same reports whether two points are equal within Tolerance.
func (a vec) same(b vec) bool {
	return a.dist(b) <= tolAt(math.Max(a.mag(), b.mag()))
}

func (a vec) unit() vec {
	l := a.len()
	if l == 0 {
		return vec{}
	}
	return vec{a.X / l, a.Y / l}
}

func isFinite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// Angles: entities keep degrees (the wire unit); the math below works in
// radians.

func rad(deg float64) float64 { return deg * math.Pi / 180 }
func deg(r float64) float64   { return r * 180 / math.Pi }

// normDeg maps an angle in degrees to [0, 360).
func normDeg(a float64) float64 {
	a = math.Mod(a, 360)
	if a < 0 {
		a += 360
	}
	if a >= 360 {
		a = 0
	}
	return a
}

// normRad maps an angle in radians to [0, 2π).
func normRad(a float64) float64 {
	a = math.Mod(a, 2*math.Pi)
	if a < 0 {
		a += 2 * math.Pi
	}
	if a >= 2*math.Pi {
		a = 0
	}
	return a
}

// sinCosDeg is sin and cos of an angle in degrees, exact at multiples of 90°
// so that quarter turns keep integer coordinates integer.
func sinCosDeg(a float64) (sin, cos float64) {
	n := normDeg(a)
	switch n {
	case 0:
		return 0, 1
	case 90:
		return 1, 0
	case 180:
		return 0, -1
	case 270:
		return -1, 0
	}
	return math.Sincos(rad(n))
}

// sweepDeg is the counter-clockwise sweep from start to end in degrees, in
// [0, 360).
func sweepDeg(start, end float64) float64 { return normDeg(end - start) }

// box is an axis-aligned bounding box; the zero value is empty.
type box struct {
	min, max vec
	ok       bool
}

func (b *box) addPoint(p vec) {
	if !b.ok {
		b.min, b.max, b.ok = p, p, true
		return
	}
	b.min.X = math.Min(b.min.X, p.X)
	b.min.Y = math.Min(b.min.Y, p.Y)
	b.max.X = math.Max(b.max.X, p.X)
	b.max.Y = math.Max(b.max.Y, p.Y)
}

func (b *box) addBox(o box) {
	if o.ok {
		b.addPoint(o.min)
		b.addPoint(o.max)
	}
}

// inside reports whether b lies inside w (boundary included, within
// Tolerance).
func (b box) inside(w box) bool {
	if !b.ok || !w.ok {
		return false
	}
	return b.min.X >= w.min.X-tolAt(w.min.X) && b.min.Y >= w.min.Y-tolAt(w.min.Y) &&
		b.max.X <= w.max.X+tolAt(w.max.X) && b.max.Y <= w.max.Y+tolAt(w.max.Y)
}

// overlaps reports whether b and w share a point.
func (b box) overlaps(w box) bool {
	if !b.ok || !w.ok {
		return false
	}
	return b.min.X <= w.max.X+tolAt(w.max.X) && b.max.X >= w.min.X-tolAt(w.min.X) &&
		b.min.Y <= w.max.Y+tolAt(w.max.Y) && b.max.Y >= w.min.Y-tolAt(w.min.Y)
}

func (b box) contains(p vec) bool { return box{min: p, max: p, ok: true}.inside(b) }

func (b box) corners() [4]vec {
	return [4]vec{b.min, {b.max.X, b.min.Y}, b.max, {b.min.X, b.max.Y}}
}

// ---- transforms ----

// xform is a similarity transform: a move, a rotation, a uniform scale or a
// reflection, each about a base point. Points go through the matrix; angles
// are mapped exactly in degrees (θ+rot, or 2·axis-θ for a reflection) so
// that rotating by 90° keeps 0° arcs at exactly 90°.
type xform struct {
	m      [2][2]float64
	t      vec
	scale  float64 // the length factor
	rot    float64 // degrees added to directions (no reflection)
	mirror bool
	axis   float64 // degrees, the reflection axis direction
}

func translate(d vec) xform {
	return xform{m: [2][2]float64{{1, 0}, {0, 1}}, t: d, scale: 1}
}

func rotateAbout(base vec, angle float64) xform {
	s, c := sinCosDeg(angle)
	x := xform{m: [2][2]float64{{c, -s}, {s, c}}, scale: 1, rot: angle}
	x.t = base.sub(x.linear(base))
	return x
}

func scaleAbout(base vec, f float64) xform {
	x := xform{m: [2][2]float64{{f, 0}, {0, f}}, scale: f}
	x.t = base.sub(base.mul(f))
	return x
}

func mirrorAbout(p, q vec) xform {
	axis := deg(q.sub(p).angle())
	s2, c2 := sinCosDeg(2 * axis)
	x := xform{m: [2][2]float64{{c2, s2}, {s2, -c2}}, scale: 1, mirror: true, axis: axis}
	x.t = p.sub(x.linear(p))
	return x
}

func (x xform) linear(p vec) vec {
	return vec{x.m[0][0]*p.X + x.m[0][1]*p.Y, x.m[1][0]*p.X + x.m[1][1]*p.Y}
}

func (x xform) point(p vec) vec { return x.linear(p).add(x.t) }

// direction maps a direction in degrees.
func (x xform) direction(a float64) float64 {
	if x.mirror {
		return normDeg(2*x.axis - a)
	}
	return normDeg(a + x.rot)
}
