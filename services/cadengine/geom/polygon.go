package geom

import (
	"math"
	"sort"
)

// Polygon is a closed polygon given by its corners, in order; the last
// corner joins the first. Selection by polygon ([Polygon.Encloses],
// [Polygon.Crosses]) and areas measured from picked corners work on it.
type Polygon []Vec

// Side says where a point lies with respect to a polygon.
type Side int8

// The sides of a polygon.
const (
	Outside Side = iota
	OnEdge
	Inside
)

// Edges are the polygon's sides, the closing one last; zero-length ones
// are left out.
func (p Polygon) Edges() []Segment {
	out := make([]Segment, 0, len(p))
	for i := range p {
		a, b := p[i], p[(i+1)%len(p)]
		if a != b {
			out = append(out, Segment{a, b})
		}
	}
	return out
}

// Bounds is the polygon's bounding box.
func (p Polygon) Bounds() Box {
	var b Box
	for _, v := range p {
		b.AddPoint(v)
	}
	return b
}

// Perimeter is the length of the polygon's sides, the closing one
// included.
func (p Polygon) Perimeter() float64 {
	l := 0.0
	for _, e := range p.Edges() {
		l += e.Length()
	}
	return l
}

// Area is the area the polygon encloses: the shoelace sum for a simple
// one; for one that crosses itself, the area of the points it winds
// around (as [Polyline.Area]), so that a bow-tie's lobes add up.
func (p Polygon) Area() float64 {
	return p.polyline().Area()
}

// polyline is the polygon as a closed polyline of straight sides.
func (p Polygon) polyline() Polyline {
	v := make([]Vertex, len(p))
	for i, q := range p {
		v[i].P = q
	}
	return Polyline{V: v, Closed: true}
}

// SignedArea is the shoelace sum of the polygon's area, taken relative
// to its first point (so that a figure far from the origin keeps its
// precision): positive when it winds counter-clockwise.
func (p Polygon) SignedArea() float64 {
	return p.polyline().signedArea()
}

// SelfIntersects reports whether two sides that do not follow each other
// cross or touch, or two that do overlap.
func (p Polygon) SelfIntersects() bool {
	return p.polyline().SelfIntersects()
}

// tol is how near a point must be to a side to be on it: Tolerance of
// the polygon's size, never finer than the rounding of its coordinates.
func (p Polygon) tol() float64 {
	b := p.Bounds()
	return Tol(b.Max.Sub(b.Min).Len(), math.Max(b.Min.Mag(), b.Max.Mag()))
}

// Where says whether q is inside the polygon, outside it, or on one of
// its sides (within the polygon's tolerance). Inside is by the even-odd
// rule, counting the sides a ray from q towards +X crosses; a side is
// taken as closed at its lower end and open at its upper one, so that a
// ray through a corner or along a horizontal side counts right.
func (p Polygon) Where(q Vec) Side {
	if len(p) == 0 {
		return Outside
	}
	tol := p.tol()
	in := false
	for i := range p {
		a, b := p[i], p[(i+1)%len(p)]
		if c, _ := (Segment{a, b}).Closest(q); c.Dist(q) <= tol {
			return OnEdge
		}
		if (a.Y > q.Y) != (b.Y > q.Y) {
			// The x where the side meets the ray's line.
			x := a.X + (q.Y-a.Y)*(b.X-a.X)/(b.Y-a.Y)
			if x > q.X {
				in = !in
			}
		}
	}
	if in {
		return Inside
	}
	return Outside
}

// Crosses reports whether the primitive (a [Segment], [Arc] or
// [EllipseArc]) meets one of the polygon's sides: crosses it, touches it
// or runs along it.
func (p Polygon) Crosses(prim any) bool {
	for _, e := range p.Edges() {
		pts, err := Intersect(prim, e)
		if err != nil || len(pts) > 0 {
			return true
		}
	}
	return false
}

// Touches reports whether any point of the primitive is inside the
// polygon or on its sides: what a crossing selection takes.
func (p Polygon) Touches(prim any) bool {
	first, ok := primAt(prim, 0)
	if !ok {
		return false
	}
	// A curve that meets no side lies wholly on one side of them, as its
	// first point does.
	return p.Where(first) != Outside || p.Crosses(prim)
}

// Encloses reports whether every point of the primitive is inside the
// polygon or on its sides: what a window selection takes. The primitive
// is cut where it meets the sides, and each piece between two cuts lies
// on one side of them, as its middle does.
func (p Polygon) Encloses(prim any) bool {
	ts := []float64{0, 1}
	for _, e := range p.Edges() {
		pts, err := Intersect(prim, e)
		if err != nil {
			// A segment along the side: the side's ends bound the part
			// of the primitive it overlaps.
			pts = []Vec{e.A, e.B}
		}
		for _, q := range pts {
			if t, ok := primParam(prim, q); ok {
				ts = append(ts, t)
			}
		}
	}
	sort.Float64s(ts)
	for i, t := range ts {
		q, ok := primAt(prim, t)
		if !ok || p.Where(q) == Outside {
			return false
		}
		if i+1 < len(ts) && ts[i+1] > t {
			if m, _ := primAt(prim, (t+ts[i+1])/2); p.Where(m) == Outside {
				return false
			}
		}
	}
	return true
}

// primAt is the point of a primitive at t in [0, 1] along its
// parameter (a segment's from A to B, an arc's and an elliptical arc's
// from Start through Sweep).
func primAt(prim any, t float64) (Vec, bool) {
	switch s := prim.(type) {
	case Segment:
		return s.A.Add(s.B.Sub(s.A).Mul(t)), true
	case Arc:
		return s.At(s.Start + t*s.Sweep), true
	case EllipseArc:
		return s.At(s.Start + t*s.Sweep), true
	}
	return Vec{}, false
}

// primParam is the parameter in [0, 1] of a point on a primitive (see
// primAt): of its nearest point for a segment, of its direction from the
// centre for an arc (in the ellipse's own frame for an elliptical one).
func primParam(prim any, q Vec) (float64, bool) {
	switch s := prim.(type) {
	case Segment:
		_, t := s.Closest(q)
		return t, true
	case Arc:
		return sweepParam(q.Sub(s.C).Angle(), s.Start, s.Sweep), true
	case EllipseArc:
		return sweepParam(s.toUnit(q).Angle(), s.Start, s.Sweep), true
	}
	return 0, false
}

// sweepParam is where the angle a (radians) lies on a sweep from start,
// as a fraction of it, clamped to [0, 1] (a direction just outside the
// sweep, by rounding, is at its nearer end).
func sweepParam(a, start, sweep float64) float64 {
	if sweep <= 0 {
		return 0
	}
	d := NormRad(a - start)
	if d > sweep {
		// Past the end: nearer the end, or (wrapping) nearer the start.
		if d-sweep < 2*math.Pi-d {
			return 1
		}
		return 0
	}
	return d / sweep
}
