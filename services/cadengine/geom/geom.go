// Package geom is the engine's plane geometry, standard library only:
// points and vectors ([Vec]), bounding boxes ([Box]), similarity
// transforms ([Xform]), the primitive curves every entity is made of
// ([Segment], [Arc], [EllipseArc]) and polylines of straight and bulged
// pieces ([Polyline]), with their lengths, areas, extents, intersections
// ([Intersect]), tangents and offsets ([OffsetPolyline], [OffsetEllipse]).
// Lengths and points compare within [Tolerance].
//
// Angles of entities are degrees (the wire unit, see [NormDeg] and
// [SinCosDeg]); the primitives work in radians.
package geom

import (
	"math"
)

// Tolerance is the engine's geometric tolerance. Two lengths a and b are
// equal when |a-b| <= Tolerance * max(1, |a|, |b|): absolute for values up
// to 1 document unit, relative beyond. Two points are equal when their
// distance is at most Tolerance (see [Vec.Same]); where the points belong
// to a figure — the intersections of two curves, the ends of a piece — the
// figure's size sets the scale instead (see [Tol]), never where the figure
// sits: a drawing placed at national-grid coordinates (1e6–1e7) keeps
// points a millimetre apart distinct. Below that, the rounding of the
// coordinates themselves sets a floor ([RoundingFloor]). Angles are
// compared as the arc length they span on the curve at hand, so the same
// rule applies. Intersections, tangency, "on the entity" tests and
// de-duplication of candidate points all use it.
const Tolerance = 1e-9

// Eq reports whether two lengths are equal within Tolerance.
func Eq(a, b float64) bool {
	return math.Abs(a-b) <= Tolerance*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// TolAt is the absolute tolerance for lengths of magnitude around m: use
// it for lengths and sizes, not for coordinates (see [Tol]).
func TolAt(m float64) float64 { return Tolerance * math.Max(1, math.Abs(m)) }

// roundingUlps is how many units in the last place of a coordinate the
// computations of the engine may be off by: the floor of every tolerance.
const roundingUlps = 64

// RoundingFloor is the smallest distance that can be told apart at
// coordinates of magnitude m: roundingUlps units in the last place of m.
func RoundingFloor(m float64) float64 {
	return roundingUlps * math.Abs(m) * 0x1p-52
}

// Tol is the tolerance for points of a figure of the given size placed at
// coordinates of magnitude mag: Tolerance relative to the size, but never
// finer than the rounding of the coordinates (RoundingFloor of the larger
// of mag and size). [Vec.Same] is Tol(1, …): absolute Tolerance.
func Tol(size, mag float64) float64 {
	size = math.Abs(size)
	return math.Max(Tolerance*size, RoundingFloor(math.Max(math.Abs(mag), size)))
}

// Vec is a point or a vector in world coordinates.
type Vec struct{ X, Y float64 }

// Pt is the point (or vector) (x, y).
func Pt(x, y float64) Vec { return Vec{x, y} }

// Add is a + b.
func (a Vec) Add(b Vec) Vec { return Vec{a.X + b.X, a.Y + b.Y} }

// Sub is a - b.
func (a Vec) Sub(b Vec) Vec { return Vec{a.X - b.X, a.Y - b.Y} }

// Mul is a scaled by s.
func (a Vec) Mul(s float64) Vec { return Vec{a.X * s, a.Y * s} }

// Dot is the dot product a · b.
func (a Vec) Dot(b Vec) float64 { return a.X*b.X + a.Y*b.Y }

func (a Vec) cross(b Vec) float64 { return a.X*b.Y - a.Y*b.X }

// Len is the length of a.
func (a Vec) Len() float64 { return math.Hypot(a.X, a.Y) }

// Dist is the distance from a to b.
func (a Vec) Dist(b Vec) float64 { return math.Hypot(a.X-b.X, a.Y-b.Y) }

// Perp is a rotated 90° counter-clockwise.
func (a Vec) Perp() Vec { return Vec{-a.Y, a.X} }

// Angle is the direction of a in radians, in (-π, π].
func (a Vec) Angle() float64 { return math.Atan2(a.Y, a.X) }

// Mid is the midpoint of a and b.
func (a Vec) Mid(b Vec) Vec { return Vec{(a.X + b.X) / 2, (a.Y + b.Y) / 2} }

// Finite reports whether both coordinates are finite.
func (a Vec) Finite() bool { return IsFinite(a.X) && IsFinite(a.Y) }

// Mag is the largest absolute coordinate of a.
func (a Vec) Mag() float64 { return math.Max(math.Abs(a.X), math.Abs(a.Y)) }

func polar(c Vec, r, rad float64) Vec { return Vec{c.X + r*math.Cos(rad), c.Y + r*math.Sin(rad)} }

// Same reports whether two points are equal within Tolerance, or within
// the rounding of their coordinates where that is coarser (see [Tol]).
func (a Vec) Same(b Vec) bool {
	dx, dy := math.Abs(a.X-b.X), math.Abs(a.Y-b.Y)
	// The tolerance is at most the larger of Tolerance and the rounding
	// floor of the coordinates' magnitudes summed (at least the largest,
	// as a sum of magnitudes rounds), so a difference past both is apart
	// without working it out: the common answer, cheaply.
	if far := RoundingFloor(math.Abs(a.X) + math.Abs(a.Y) + math.Abs(b.X) + math.Abs(b.Y) + 1); dx > Tolerance && dx > far || dy > Tolerance && dy > far {
		return false
	}
	tol := Tol(1, math.Max(a.Mag(), b.Mag()))
	if dx > tol || dy > tol {
		// The distance is at least either difference (as Hypot rounds it
		// too): points apart, the common answer, without the square root.
		return false
	}
	return a.Dist(b) <= tol
}

// SameIn reports whether two points of a figure of the given size are
// equal (see [Tol]).
func (a Vec) SameIn(b Vec, size float64) bool {
	return a.Dist(b) <= Tol(size, math.Max(a.Mag(), b.Mag()))
}

// Unit is a scaled to length 1, or the zero vector when a is zero.
func (a Vec) Unit() Vec {
	l := a.Len()
	if l == 0 {
		return Vec{}
	}
	return Vec{a.X / l, a.Y / l}
}

// IsFinite reports whether f is neither NaN nor infinite.
func IsFinite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// Angles: entities keep degrees (the wire unit); the math below works in
// radians.

// Rad converts degrees to radians.
func Rad(deg float64) float64 { return deg * math.Pi / 180 }

// Deg converts radians to degrees.
func Deg(r float64) float64 { return r * 180 / math.Pi }

// NormDeg maps an angle in degrees to [0, 360).
func NormDeg(a float64) float64 {
	a = math.Mod(a, 360)
	if a < 0 {
		a += 360
	}
	if a >= 360 {
		a = 0
	}
	return a
}

// NormRad maps an angle in radians to [0, 2π).
func NormRad(a float64) float64 {
	a = math.Mod(a, 2*math.Pi)
	if a < 0 {
		a += 2 * math.Pi
	}
	if a >= 2*math.Pi {
		a = 0
	}
	return a
}

// SinCosDeg is sin and cos of an angle in degrees, exact at multiples of 90°
// so that quarter turns keep integer coordinates integer.
func SinCosDeg(a float64) (sin, cos float64) {
	n := NormDeg(a)
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
	return math.Sincos(Rad(n))
}

// SweepDeg is the counter-clockwise sweep from start to end in degrees, in
// [0, 360).
func SweepDeg(start, end float64) float64 { return NormDeg(end - start) }

// Box is an axis-aligned bounding box; the zero value is empty.
type Box struct {
	Min, Max Vec
	NonEmpty bool
}

// AddPoint grows b to hold p.
func (b *Box) AddPoint(p Vec) {
	if !b.NonEmpty {
		b.Min, b.Max, b.NonEmpty = p, p, true
		return
	}
	b.Min.X = math.Min(b.Min.X, p.X)
	b.Min.Y = math.Min(b.Min.Y, p.Y)
	b.Max.X = math.Max(b.Max.X, p.X)
	b.Max.Y = math.Max(b.Max.Y, p.Y)
}

// AddBox grows b to hold o.
func (b *Box) AddBox(o Box) {
	if o.NonEmpty {
		b.AddPoint(o.Min)
		b.AddPoint(o.Max)
	}
}

// Inside reports whether b lies inside w (boundary included, within
// Tolerance).
func (b Box) Inside(w Box) bool {
	if !b.NonEmpty || !w.NonEmpty {
		return false
	}
	t := w.tol()
	return b.Min.X >= w.Min.X-t && b.Min.Y >= w.Min.Y-t && b.Max.X <= w.Max.X+t && b.Max.Y <= w.Max.Y+t
}

// Overlaps reports whether b and w share a point.
func (b Box) Overlaps(w Box) bool {
	if !b.NonEmpty || !w.NonEmpty {
		return false
	}
	t := w.tol()
	return b.Min.X <= w.Max.X+t && b.Max.X >= w.Min.X-t && b.Min.Y <= w.Max.Y+t && b.Max.Y >= w.Min.Y-t
}

// tol is the tolerance of the box's edges: by its size, with the rounding
// floor of where it sits (see Tol).
func (b Box) tol() float64 {
	return Tol(math.Max(b.Max.X-b.Min.X, b.Max.Y-b.Min.Y), math.Max(b.Min.Mag(), b.Max.Mag()))
}

func (b Box) contains(p Vec) bool { return Box{Min: p, Max: p, NonEmpty: true}.Inside(b) }

func (b Box) corners() [4]Vec {
	return [4]Vec{b.Min, {b.Max.X, b.Min.Y}, b.Max, {b.Min.X, b.Max.Y}}
}

// ---- transforms ----

// Xform is a similarity transform: a move, a rotation, a uniform scale or a
// reflection, each about a base point. Points go through the matrix; angles
// are mapped exactly in degrees (θ+rot, or 2·axis-θ for a reflection) so
// that rotating by 90° keeps 0° arcs at exactly 90°.
type Xform struct {
	m      [2][2]float64
	t      Vec
	Scale  float64 // the length factor
	rot    float64 // degrees added to directions (no reflection)
	Mirror bool
	axis   float64 // degrees, the reflection axis direction
}

// Translate is the move by d.
func Translate(d Vec) Xform {
	return Xform{m: [2][2]float64{{1, 0}, {0, 1}}, t: d, Scale: 1}
}

// RotateAbout is the rotation by angle degrees counter-clockwise about base.
func RotateAbout(base Vec, angle float64) Xform {
	s, c := SinCosDeg(angle)
	x := Xform{m: [2][2]float64{{c, -s}, {s, c}}, Scale: 1, rot: angle}
	x.t = base.Sub(x.Linear(base))
	return x
}

// ScaleAbout is the uniform scaling by f about base.
func ScaleAbout(base Vec, f float64) Xform {
	x := Xform{m: [2][2]float64{{f, 0}, {0, f}}, Scale: f}
	x.t = base.Sub(base.Mul(f))
	return x
}

// MirrorAbout is the reflection in the line through p and q.
func MirrorAbout(p, q Vec) Xform {
	axis := Deg(q.Sub(p).Angle())
	s2, c2 := SinCosDeg(2 * axis)
	x := Xform{m: [2][2]float64{{c2, s2}, {s2, -c2}}, Scale: 1, Mirror: true, axis: axis}
	x.t = p.Sub(x.Linear(p))
	return x
}

// Linear maps a vector: the transform without its translation.
func (x Xform) Linear(p Vec) Vec {
	return Vec{x.m[0][0]*p.X + x.m[0][1]*p.Y, x.m[1][0]*p.X + x.m[1][1]*p.Y}
}

// Point maps a point.
func (x Xform) Point(p Vec) Vec { return x.Linear(p).Add(x.t) }

// Direction maps a direction in degrees.
func (x Xform) Direction(a float64) float64 {
	if x.Mirror {
		return NormDeg(2*x.axis - a)
	}
	return NormDeg(a + x.rot)
}

// Then is the transform that applies x, then y.
func (x Xform) Then(y Xform) Xform {
	var m [2][2]float64
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			m[i][j] = y.m[i][0]*x.m[0][j] + y.m[i][1]*x.m[1][j]
		}
	}
	out := Xform{m: m, t: y.Point(x.t), Scale: x.Scale * y.Scale, Mirror: x.Mirror != y.Mirror}
	switch {
	case !x.Mirror && !y.Mirror:
		out.rot = x.rot + y.rot
	case x.Mirror && !y.Mirror:
		// Rot(r)·Ref(a) = Ref(a + r/2).
		out.axis = x.axis + y.rot/2
	case !x.Mirror && y.Mirror:
		// Ref(a)·Rot(r) = Ref(a - r/2).
		out.axis = y.axis - x.rot/2
	default:
		// Ref(b)·Ref(a) = Rot(2(b - a)).
		out.rot = 2 * (y.axis - x.axis)
	}
	return out
}

// Identity is the transform that changes nothing.
func Identity() Xform { return Translate(Vec{}) }

// Parts are the parts of a similarity, which applied in turn make it:
// scale by scale about the origin, then turn by angle degrees about it
// (or, when mirror, reflect in the line through it at angle degrees),
// then move by move. [Similarity] puts them back together.
func (x Xform) Parts() (move Vec, scale, angle float64, mirror bool) {
	if x.Mirror {
		return x.t, x.Scale, x.axis, true
	}
	return x.t, x.Scale, x.rot, false
}

// Similarity is the transform of the given parts (see [Xform.Parts]).
func Similarity(move Vec, scale, angle float64, mirror bool) Xform {
	turn := RotateAbout(Vec{}, angle)
	if mirror {
		s2, c2 := SinCosDeg(2 * angle)
		turn = Xform{m: [2][2]float64{{c2, s2}, {s2, -c2}}, Scale: 1, Mirror: true, axis: angle}
	}
	return ScaleAbout(Vec{}, scale).Then(turn).Then(Translate(move))
}

// IsTranslation reports whether x only moves: no turn, scale or
// reflection.
func (x Xform) IsTranslation() bool {
	return x.m == [2][2]float64{{1, 0}, {0, 1}} && !x.Mirror
}

// Move is where x takes the origin: its translation.
func (x Xform) Move() Vec { return x.t }
