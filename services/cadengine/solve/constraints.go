package solve

import (
	"math"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Constraint is one equation (or a few) over the parameters of a
// [System]: its residual, zero when the constraint holds, and the
// residual's analytic partial derivatives. The set is closed: the types
// of this file are all the kinds there are.
//
// Every residual is in drawing units (a length), angle-type ones
// included (see [Parallel]): the rows of one Jacobian are then
// comparable, which the rank test and the one tolerance of a solve rely
// on.
type Constraint interface {
	// Kind is the constraint's name as the document calls it (DESIGN
	// §14): "coincident", "tangent", "distance"…
	Kind() string
	// rows is how many equations the constraint is.
	rows() int
	// params appends the parameters the constraint reads to dst.
	params(dst []Param) []Param
	// eval writes the residuals into r (rows() of them) and, when
	// j.on, their partial derivatives into j.
	eval(x []float64, r []float64, j *jac)
}

// valued is a constraint with a driving value ([System.SetConstraintValue]).
type valued interface {
	Constraint
	withValue(v float64) Constraint
}

// configured is a constraint with a choice of branch (the side of a
// tangency) that the solver makes from the current geometry when the
// caller leaves it open.
type configured interface {
	Constraint
	resolve(x []float64) Constraint
}

// jac receives the nonzero partial derivatives of the constraints being
// evaluated, by row of the group and column of its free parameters, and
// carries the group's size.
type jac struct {
	size  float64 // the group's size, which angle residuals are scaled by (see lineAngle)
	on    bool    // whether to record derivatives
	col   []int32 // by Param: the parameter's column, or -1 when it is not solved for
	terms []term
	spans []int32 // where each constraint's terms start in terms, and the end
	row   int     // the first row of the constraint being evaluated
}

// term is one partial derivative; a row may have two for one column
// (a constraint reading a point twice): they add.
type term struct {
	row, col int32
	v        float64
}

// add records v as (a part of) ∂r[k]/∂p.
func (j *jac) add(k int, p Param, v float64) {
	if !j.on {
		return
	}
	if c := j.col[p]; c >= 0 {
		j.terms = append(j.terms, term{int32(j.row + k), c, v})
	}
}

// pt adds g to the derivatives of r[k] by the coordinates of p.
func (j *jac) pt(k int, p Point, g geom.Vec) {
	j.add(k, p.X, g.X)
	j.add(k, p.Y, g.Y)
}

func at(x []float64, p Point) geom.Vec { return geom.Vec{X: x[p.X], Y: x[p.Y]} }

func cross(a, b geom.Vec) float64 { return a.X*b.Y - a.Y*b.X }

// tiny is the length below which a direction is taken as undefined: a
// degenerate line or two coincident points get a fixed direction rather
// than a division by zero, so that the derivatives stay finite and the
// same bits come out every time.
const tiny = 1e-300

// length is |d| and its gradient d/|d| (the x axis when d is zero).
func length(d geom.Vec) (float64, geom.Vec) {
	n := d.Len()
	if n < tiny {
		return 0, geom.Vec{X: 1}
	}
	return n, d.Mul(1 / n)
}

// Coincident makes two points one.
type Coincident struct{ A, B Point }

func (Coincident) Kind() string                 { return "coincident" }
func (Coincident) rows() int                    { return 2 }
func (c Coincident) params(dst []Param) []Param { return append(dst, c.A.X, c.A.Y, c.B.X, c.B.Y) }
func (c Coincident) eval(x, r []float64, j *jac) {
	r[0] = x[c.B.X] - x[c.A.X]
	r[1] = x[c.B.Y] - x[c.A.Y]
	j.add(0, c.B.X, 1)
	j.add(0, c.A.X, -1)
	j.add(1, c.B.Y, 1)
	j.add(1, c.A.Y, -1)
}

// Concentric gives two circles or arcs one center.
type Concentric struct{ C1, C2 Circle }

func (Concentric) Kind() string { return "concentric" }
func (Concentric) rows() int    { return 2 }
func (c Concentric) params(dst []Param) []Param {
	return Coincident{c.C1.Center, c.C2.Center}.params(dst)
}
func (c Concentric) eval(x, r []float64, j *jac) {
	Coincident{c.C1.Center, c.C2.Center}.eval(x, r, j)
}

// Horizontal puts two points (a line's ends) at one y: B.y - A.y = 0.
type Horizontal struct{ A, B Point }

func (Horizontal) Kind() string                 { return "horizontal" }
func (Horizontal) rows() int                    { return 1 }
func (c Horizontal) params(dst []Param) []Param { return append(dst, c.A.Y, c.B.Y) }
func (c Horizontal) eval(x, r []float64, j *jac) {
	r[0] = x[c.B.Y] - x[c.A.Y]
	j.add(0, c.B.Y, 1)
	j.add(0, c.A.Y, -1)
}

// Vertical puts two points (a line's ends) at one x: B.x - A.x = 0.
type Vertical struct{ A, B Point }

func (Vertical) Kind() string                 { return "vertical" }
func (Vertical) rows() int                    { return 1 }
func (c Vertical) params(dst []Param) []Param { return append(dst, c.A.X, c.B.X) }
func (c Vertical) eval(x, r []float64, j *jac) {
	r[0] = x[c.B.X] - x[c.A.X]
	j.add(0, c.B.X, 1)
	j.add(0, c.A.X, -1)
}

// lineAngle is the residual of the angle-type constraints: the sine of
// (φ - θ), φ the angle from L1's direction to L2's and θ the wanted one,
// times the size of the group being solved (j.size),
//
//	r = size · (cross(d1,d2)·cos θ - dot(d1,d2)·sin θ) / (|d1||d2|).
//
// The sine alone is dimensionless, and the raw cross product is an area
// that grows with the square of the lines; scaled by the figure's size,
// the residual is how far (in drawing units) the figure's far side is
// off for that angle error, comparable with every other residual. A
// scale of the lines' own lengths would be that too, but would reward
// shrinking them: a solve could collapse a line to make an angle hold.
// The residual vanishes at φ = θ and at φ = θ + π: lines, not vectors (a
// parallel line may point either way).
func lineAngle(x, r []float64, j *jac, l1, l2 Line, sin, cos float64) {
	d1 := at(x, l1.B).Sub(at(x, l1.A))
	d2 := at(x, l2.B).Sub(at(x, l2.A))
	n1, u1 := length(d1)
	n2, u2 := length(d2)
	if n1 < tiny || n2 < tiny {
		r[0] = 0
		return
	}
	h := cross(d1, d2)*cos - d1.Dot(d2)*sin
	g := h / (n1 * n2)
	r[0] = j.size * g
	// ∂h/∂d1 = cos·(d2.y, -d2.x) - sin·d2, ∂h/∂d2 = cos·(-d1.y, d1.x) - sin·d1;
	// ∂g/∂d = ∂h/∂d / (n1 n2) - g·d/n².
	h1 := geom.Vec{X: d2.Y, Y: -d2.X}.Mul(cos).Sub(d2.Mul(sin))
	h2 := geom.Vec{X: -d1.Y, Y: d1.X}.Mul(cos).Sub(d1.Mul(sin))
	r1 := h1.Mul(1 / (n1 * n2)).Sub(u1.Mul(g / n1)).Mul(j.size)
	r2 := h2.Mul(1 / (n1 * n2)).Sub(u2.Mul(g / n2)).Mul(j.size)
	j.pt(0, l1.B, r1)
	j.pt(0, l1.A, r1.Mul(-1))
	j.pt(0, l2.B, r2)
	j.pt(0, l2.A, r2.Mul(-1))
}

func lineParams(dst []Param, ls ...Line) []Param {
	for _, l := range ls {
		dst = append(dst, l.A.X, l.A.Y, l.B.X, l.B.Y)
	}
	return dst
}

// Parallel makes two lines parallel (either way round); see [lineAngle]
// for the residual.
type Parallel struct{ L1, L2 Line }

func (Parallel) Kind() string                 { return "parallel" }
func (Parallel) rows() int                    { return 1 }
func (c Parallel) params(dst []Param) []Param { return lineParams(dst, c.L1, c.L2) }
func (c Parallel) eval(x, r []float64, j *jac) {
	lineAngle(x, r, j, c.L1, c.L2, 0, 1)
}

// Perpendicular makes two lines perpendicular.
type Perpendicular struct{ L1, L2 Line }

func (Perpendicular) Kind() string                 { return "perpendicular" }
func (Perpendicular) rows() int                    { return 1 }
func (c Perpendicular) params(dst []Param) []Param { return lineParams(dst, c.L1, c.L2) }
func (c Perpendicular) eval(x, r []float64, j *jac) {
	lineAngle(x, r, j, c.L1, c.L2, 1, 0)
}

// Angle sets the angle from L1's direction (A to B) to L2's,
// counter-clockwise, in radians; as lines, Value and Value + π are the
// same angle.
type Angle struct {
	L1, L2 Line
	Value  float64
}

func (Angle) Kind() string                     { return "angle" }
func (Angle) rows() int                        { return 1 }
func (c Angle) params(dst []Param) []Param     { return lineParams(dst, c.L1, c.L2) }
func (c Angle) withValue(v float64) Constraint { c.Value = v; return c }
func (c Angle) eval(x, r []float64, j *jac) {
	s, co := math.Sincos(c.Value)
	lineAngle(x, r, j, c.L1, c.L2, s, co)
}

// EqualLength gives two lines one length: |d1| - |d2|.
type EqualLength struct{ L1, L2 Line }

func (EqualLength) Kind() string                 { return "equal" }
func (EqualLength) rows() int                    { return 1 }
func (c EqualLength) params(dst []Param) []Param { return lineParams(dst, c.L1, c.L2) }
func (c EqualLength) eval(x, r []float64, j *jac) {
	n1, u1 := length(at(x, c.L1.B).Sub(at(x, c.L1.A)))
	n2, u2 := length(at(x, c.L2.B).Sub(at(x, c.L2.A)))
	r[0] = n1 - n2
	j.pt(0, c.L1.B, u1)
	j.pt(0, c.L1.A, u1.Mul(-1))
	j.pt(0, c.L2.B, u2.Mul(-1))
	j.pt(0, c.L2.A, u2)
}

// EqualRadius gives two circles or arcs one radius.
type EqualRadius struct{ C1, C2 Circle }

func (EqualRadius) Kind() string                 { return "equal" }
func (EqualRadius) rows() int                    { return 1 }
func (c EqualRadius) params(dst []Param) []Param { return append(dst, c.C1.R, c.C2.R) }
func (c EqualRadius) eval(x, r []float64, j *jac) {
	r[0] = x[c.C1.R] - x[c.C2.R]
	j.add(0, c.C1.R, 1)
	j.add(0, c.C2.R, -1)
}

// Fixed pins parameters at values: one row x[p] - v a parameter. For a
// point, Params is its x and y. Values left nil are the parameters'
// values when the constraint is added ([System.Add]).
type Fixed struct {
	Params []Param
	Values []float64
}

func (Fixed) Kind() string                 { return "fixed" }
func (c Fixed) rows() int                  { return len(c.Params) }
func (c Fixed) params(dst []Param) []Param { return append(dst, c.Params...) }
func (c Fixed) eval(x, r []float64, j *jac) {
	for k, p := range c.Params {
		r[k] = x[p] - c.Values[k]
		j.add(k, p, 1)
	}
}

// FixPoint is the [Fixed] constraint that pins p at its current place.
func FixPoint(p Point) Fixed { return Fixed{Params: []Param{p.X, p.Y}} }

// sideOf is the signed distance of p from the line through a and b
// (positive to the left of a→b) and its gradients by a, b and p.
func sideOf(a, b, p geom.Vec) (s float64, ga, gb, gp geom.Vec) {
	d := b.Sub(a)
	w := p.Sub(a)
	n, u := length(d)
	if n < tiny {
		// A line of no length has no side: the distance to its point.
		s, gp = length(w)
		return s, gp.Mul(-1), geom.Vec{}, gp
	}
	s = cross(d, w) / n
	gp = geom.Vec{X: -d.Y, Y: d.X}.Mul(1 / n)
	gd := geom.Vec{X: w.Y, Y: -w.X}.Mul(1 / n).Sub(u.Mul(s / n))
	return s, gd.Mul(-1).Sub(gp), gd, gp
}

// PointOnLine puts a point on a line's infinite extension: its signed
// distance from the line.
type PointOnLine struct {
	P Point
	L Line
}

func (PointOnLine) Kind() string { return "point_on" }
func (PointOnLine) rows() int    { return 1 }
func (c PointOnLine) params(dst []Param) []Param {
	return lineParams(append(dst, c.P.X, c.P.Y), c.L)
}
func (c PointOnLine) eval(x, r []float64, j *jac) {
	s, ga, gb, gp := sideOf(at(x, c.L.A), at(x, c.L.B), at(x, c.P))
	r[0] = s
	j.pt(0, c.L.A, ga)
	j.pt(0, c.L.B, gb)
	j.pt(0, c.P, gp)
}

// PointOnCircle puts a point on a circle (or an arc's circle):
// |P - center| - r. An [Arc] ties its ends to its circle with two of
// these.
type PointOnCircle struct {
	P Point
	C Circle
}

func (PointOnCircle) Kind() string { return "point_on" }
func (PointOnCircle) rows() int    { return 1 }
func (c PointOnCircle) params(dst []Param) []Param {
	return append(dst, c.P.X, c.P.Y, c.C.Center.X, c.C.Center.Y, c.C.R)
}
func (c PointOnCircle) eval(x, r []float64, j *jac) {
	n, u := length(at(x, c.P).Sub(at(x, c.C.Center)))
	r[0] = n - x[c.C.R]
	j.pt(0, c.P, u)
	j.pt(0, c.C.Center, u.Mul(-1))
	j.add(0, c.C.R, -1)
}

// Midpoint puts P at the middle of L: P - (A+B)/2.
type Midpoint struct {
	P Point
	L Line
}

func (Midpoint) Kind() string { return "midpoint" }
func (Midpoint) rows() int    { return 2 }
func (c Midpoint) params(dst []Param) []Param {
	return lineParams(append(dst, c.P.X, c.P.Y), c.L)
}
func (c Midpoint) eval(x, r []float64, j *jac) {
	r[0] = x[c.P.X] - (x[c.L.A.X]+x[c.L.B.X])/2
	r[1] = x[c.P.Y] - (x[c.L.A.Y]+x[c.L.B.Y])/2
	j.add(0, c.P.X, 1)
	j.add(0, c.L.A.X, -0.5)
	j.add(0, c.L.B.X, -0.5)
	j.add(1, c.P.Y, 1)
	j.add(1, c.L.A.Y, -0.5)
	j.add(1, c.L.B.Y, -0.5)
}

// Symmetric makes P and Q mirror images about L's infinite extension:
// their midpoint is on L (its signed distance from L) and P→Q is
// perpendicular to L (the length of P→Q along L's direction).
type Symmetric struct {
	P, Q Point
	L    Line
}

func (Symmetric) Kind() string { return "symmetric" }
func (Symmetric) rows() int    { return 2 }
func (c Symmetric) params(dst []Param) []Param {
	return lineParams(append(dst, c.P.X, c.P.Y, c.Q.X, c.Q.Y), c.L)
}
func (c Symmetric) eval(x, r []float64, j *jac) {
	a, b, p, q := at(x, c.L.A), at(x, c.L.B), at(x, c.P), at(x, c.Q)
	s, ga, gb, gm := sideOf(a, b, p.Mid(q))
	r[0] = s
	j.pt(0, c.L.A, ga)
	j.pt(0, c.L.B, gb)
	j.pt(0, c.P, gm.Mul(0.5))
	j.pt(0, c.Q, gm.Mul(0.5))
	d := b.Sub(a)
	e := q.Sub(p)
	n, u := length(d)
	t := e.Dot(u)
	r[1] = t
	// t = e·d/n: ∂t/∂e = u, ∂t/∂d = e/n - t·d/n².
	gd := geom.Vec{}
	if n >= tiny {
		gd = e.Mul(1 / n).Sub(u.Mul(t / n))
	}
	j.pt(1, c.Q, u)
	j.pt(1, c.P, u.Mul(-1))
	j.pt(1, c.L.B, gd)
	j.pt(1, c.L.A, gd.Mul(-1))
}

// Distance sets the distance between two points: |B - A| - Value.
type Distance struct {
	A, B  Point
	Value float64
}

func (Distance) Kind() string                     { return "distance" }
func (Distance) rows() int                        { return 1 }
func (c Distance) params(dst []Param) []Param     { return append(dst, c.A.X, c.A.Y, c.B.X, c.B.Y) }
func (c Distance) withValue(v float64) Constraint { c.Value = v; return c }
func (c Distance) eval(x, r []float64, j *jac) {
	n, u := length(at(x, c.B).Sub(at(x, c.A)))
	r[0] = n - c.Value
	j.pt(0, c.B, u)
	j.pt(0, c.A, u.Mul(-1))
}

// DistancePointLine sets the distance of a point from a line's infinite
// extension, on whichever side the point is: |s| - Value, s the signed
// distance.
type DistancePointLine struct {
	P     Point
	L     Line
	Value float64
}

func (DistancePointLine) Kind() string { return "distance" }
func (DistancePointLine) rows() int    { return 1 }
func (c DistancePointLine) params(dst []Param) []Param {
	return lineParams(append(dst, c.P.X, c.P.Y), c.L)
}
func (c DistancePointLine) withValue(v float64) Constraint { c.Value = v; return c }
func (c DistancePointLine) eval(x, r []float64, j *jac) {
	s, ga, gb, gp := sideOf(at(x, c.L.A), at(x, c.L.B), at(x, c.P))
	sign := 1.0
	if s < 0 {
		sign = -1
	}
	r[0] = sign*s - c.Value
	j.pt(0, c.L.A, ga.Mul(sign))
	j.pt(0, c.L.B, gb.Mul(sign))
	j.pt(0, c.P, gp.Mul(sign))
}

// DistanceX sets B.x - A.x (signed).
type DistanceX struct {
	A, B  Point
	Value float64
}

func (DistanceX) Kind() string                     { return "distance_x" }
func (DistanceX) rows() int                        { return 1 }
func (c DistanceX) params(dst []Param) []Param     { return append(dst, c.A.X, c.B.X) }
func (c DistanceX) withValue(v float64) Constraint { c.Value = v; return c }
func (c DistanceX) eval(x, r []float64, j *jac) {
	r[0] = x[c.B.X] - x[c.A.X] - c.Value
	j.add(0, c.B.X, 1)
	j.add(0, c.A.X, -1)
}

// DistanceY sets B.y - A.y (signed).
type DistanceY struct {
	A, B  Point
	Value float64
}

func (DistanceY) Kind() string                     { return "distance_y" }
func (DistanceY) rows() int                        { return 1 }
func (c DistanceY) params(dst []Param) []Param     { return append(dst, c.A.Y, c.B.Y) }
func (c DistanceY) withValue(v float64) Constraint { c.Value = v; return c }
func (c DistanceY) eval(x, r []float64, j *jac) {
	r[0] = x[c.B.Y] - x[c.A.Y] - c.Value
	j.add(0, c.B.Y, 1)
	j.add(0, c.A.Y, -1)
}

// Radius sets a circle's or an arc's radius.
type Radius struct {
	C     Circle
	Value float64
}

func (Radius) Kind() string                     { return "radius" }
func (Radius) rows() int                        { return 1 }
func (c Radius) params(dst []Param) []Param     { return append(dst, c.C.R) }
func (c Radius) withValue(v float64) Constraint { c.Value = v; return c }
func (c Radius) eval(x, r []float64, j *jac) {
	r[0] = x[c.C.R] - c.Value
	j.add(0, c.C.R, 1)
}

// Diameter sets a circle's or an arc's diameter: 2r - Value.
type Diameter struct {
	C     Circle
	Value float64
}

func (Diameter) Kind() string                     { return "diameter" }
func (Diameter) rows() int                        { return 1 }
func (c Diameter) params(dst []Param) []Param     { return append(dst, c.C.R) }
func (c Diameter) withValue(v float64) Constraint { c.Value = v; return c }
func (c Diameter) eval(x, r []float64, j *jac) {
	r[0] = 2*x[c.C.R] - c.Value
	j.add(0, c.C.R, 2)
}

// Side is the branch of a tangency.
type Side int8

const (
	// SideAuto lets [System.Add] choose the branch nearest the current
	// geometry, which it then keeps (read it back with
	// [System.Constraint]).
	SideAuto Side = iota
	// SideLeft: the circle's center is left of the line (A→B);
	// SideRight: right of it.
	SideLeft
	SideRight
	// SideExternal: two circles touch from outside; SideInternal1: C2
	// inside C1; SideInternal2: C1 inside C2.
	SideExternal
	SideInternal1
	SideInternal2
)

// TangentLine makes a line's infinite extension tangent to a circle or
// an arc's circle: the center's signed distance from the line is ±r.
//
// Where the line and the arc share an end (a fillet's corner), use
// [TangentAt] instead: with the shared point on both, this equation's
// derivative vanishes at the solution (tangency is a double root of
// "the line meets the circle"), which costs the rank one and convergence
// its speed.
type TangentLine struct {
	L    Line
	C    Circle
	Side Side // SideAuto, SideLeft or SideRight
}

func (TangentLine) Kind() string { return "tangent" }
func (TangentLine) rows() int    { return 1 }
func (c TangentLine) params(dst []Param) []Param {
	return lineParams(append(dst, c.C.Center.X, c.C.Center.Y, c.C.R), c.L)
}
func (c TangentLine) resolve(x []float64) Constraint {
	if c.Side == SideAuto {
		c.Side = SideLeft
		if s, _, _, _ := sideOf(at(x, c.L.A), at(x, c.L.B), at(x, c.C.Center)); s < 0 {
			c.Side = SideRight
		}
	}
	return c
}
func (c TangentLine) eval(x, r []float64, j *jac) {
	s, ga, gb, gc := sideOf(at(x, c.L.A), at(x, c.L.B), at(x, c.C.Center))
	sign := 1.0
	if c.Side == SideRight {
		sign = -1
	}
	r[0] = sign*s - x[c.C.R]
	j.pt(0, c.L.A, ga.Mul(sign))
	j.pt(0, c.L.B, gb.Mul(sign))
	j.pt(0, c.C.Center, gc.Mul(sign))
	j.add(0, c.C.R, -1)
}

// TangentCircles makes two circles (or arcs' circles) tangent: the
// distance of their centers is r1 + r2 (external) or |r1 - r2|
// (internal, with the sign of r1 - r2 chosen once).
type TangentCircles struct {
	C1, C2 Circle
	Side   Side // SideAuto, SideExternal, SideInternal1 or SideInternal2
}

func (TangentCircles) Kind() string { return "tangent" }
func (TangentCircles) rows() int    { return 1 }
func (c TangentCircles) params(dst []Param) []Param {
	return append(dst, c.C1.Center.X, c.C1.Center.Y, c.C1.R, c.C2.Center.X, c.C2.Center.Y, c.C2.R)
}
func (c TangentCircles) resolve(x []float64) Constraint {
	if c.Side == SideAuto {
		d := at(x, c.C2.Center).Dist(at(x, c.C1.Center))
		r1, r2 := x[c.C1.R], x[c.C2.R]
		c.Side = SideExternal
		if math.Abs(d-math.Abs(r1-r2)) < math.Abs(d-(r1+r2)) {
			c.Side = SideInternal1
			if r2 > r1 {
				c.Side = SideInternal2
			}
		}
	}
	return c
}
func (c TangentCircles) eval(x, r []float64, j *jac) {
	n, u := length(at(x, c.C2.Center).Sub(at(x, c.C1.Center)))
	k1, k2 := -1.0, -1.0 // r = n + k1·r1 + k2·r2
	switch c.Side {
	case SideInternal1:
		k1, k2 = -1, 1
	case SideInternal2:
		k1, k2 = 1, -1
	}
	r[0] = n + k1*x[c.C1.R] + k2*x[c.C2.R]
	j.pt(0, c.C2.Center, u)
	j.pt(0, c.C1.Center, u.Mul(-1))
	j.add(0, c.C1.R, k1)
	j.add(0, c.C2.R, k2)
}

// TangentAt makes a line tangent to a circle or an arc at a point P they
// share (held on both by other constraints: a fillet's corner): the
// radius to P is perpendicular to the line, the length of
// center→P along the line's direction. Unlike [TangentLine] its
// derivative does not vanish at the solution.
type TangentAt struct {
	L Line
	C Circle
	P Point
}

func (TangentAt) Kind() string { return "tangent" }
func (TangentAt) rows() int    { return 1 }
func (c TangentAt) params(dst []Param) []Param {
	return lineParams(append(dst, c.P.X, c.P.Y, c.C.Center.X, c.C.Center.Y), c.L)
}
func (c TangentAt) eval(x, r []float64, j *jac) {
	d := at(x, c.L.B).Sub(at(x, c.L.A))
	e := at(x, c.P).Sub(at(x, c.C.Center))
	n, u := length(d)
	t := e.Dot(u)
	r[0] = t
	gd := geom.Vec{}
	if n >= tiny {
		gd = e.Mul(1 / n).Sub(u.Mul(t / n))
	}
	j.pt(0, c.P, u)
	j.pt(0, c.C.Center, u.Mul(-1))
	j.pt(0, c.L.B, gd)
	j.pt(0, c.L.A, gd.Mul(-1))
}

// TangentCirclesAt makes two circles or arcs tangent at a point P they
// share (an arc joining another): the centers and P are on one line,
// the distance of C2's center from the line through P and C1's center.
type TangentCirclesAt struct {
	C1, C2 Circle
	P      Point
}

func (TangentCirclesAt) Kind() string { return "tangent" }
func (TangentCirclesAt) rows() int    { return 1 }
func (c TangentCirclesAt) params(dst []Param) []Param {
	return append(dst, c.P.X, c.P.Y, c.C1.Center.X, c.C1.Center.Y, c.C2.Center.X, c.C2.Center.Y)
}
func (c TangentCirclesAt) eval(x, r []float64, j *jac) {
	s, ga, gb, gp := sideOf(at(x, c.P), at(x, c.C1.Center), at(x, c.C2.Center))
	r[0] = s
	j.pt(0, c.P, ga)
	j.pt(0, c.C1.Center, gb)
	j.pt(0, c.C2.Center, gp)
}
