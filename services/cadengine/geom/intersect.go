package geom

import (
	"errors"
	"math"
	"sort"
)

// ---- intersections ----

// ErrOverlap reports curves that share a stretch: infinitely many
// intersections.
var ErrOverlap = errors.New("the entities overlap along a stretch, so they have infinitely many intersections")

// ErrUnsupportedPair reports a pair of primitives without an intersection
// routine.
var ErrUnsupportedPair = errors.New("unsupported primitive pair")

func intersectSegments(s, t Segment) ([]Vec, error) {
	d1, d2 := s.B.Sub(s.A), t.B.Sub(t.A)
	den := d1.cross(d2)
	scale := math.Max(d1.Len(), d2.Len())
	if math.Abs(den) <= Tolerance*scale*scale {
		// Parallel. Collinear when t.a lies on the line of s.
		if math.Abs(t.A.Sub(s.A).cross(d1)) > TolAt(s.A.Sub(t.A).Mag())*math.Max(d1.Len(), 1) {
			return nil, nil
		}
		var pts []Vec
		for _, p := range []Vec{s.A, s.B} {
			if onSegment(t, p) {
				pts = AppendUnique(pts, p)
			}
		}
		for _, p := range []Vec{t.A, t.B} {
			if onSegment(s, p) {
				pts = AppendUnique(pts, p)
			}
		}
		if len(pts) > 1 {
			return nil, ErrOverlap
		}
		return pts, nil
	}
	w := t.A.Sub(s.A)
	u := w.cross(d2) / den
	v := w.cross(d1) / den
	tol := Tol(scale, math.Max(s.A.Mag(), t.A.Mag()))
	tu := tol / d1.Len()
	tv := tol / d2.Len()
	if u < -tu || u > 1+tu || v < -tv || v > 1+tv {
		return nil, nil
	}
	return []Vec{s.A.Add(d1.Mul(u))}, nil
}

func onSegment(s Segment, p Vec) bool {
	q, _ := s.Closest(p)
	return q.Same(p)
}

// lineCircle returns the parameters u along s (the infinite line) where it
// meets the circle (c, r). It works relative to s.A, so that a figure far
// from the origin loses no precision to where it sits.
func lineCircle(s Segment, c Vec, r float64) []float64 {
	d := s.B.Sub(s.A)
	l := d.Len()
	if l == 0 {
		return nil
	}
	// Project the centre: foot at parameter u0, distance h from the line.
	w := c.Sub(s.A)
	u0 := w.Dot(d) / (l * l)
	h := math.Abs(d.cross(w)) / l
	switch {
	case math.Abs(h-r) <= Tol(r, math.Max(s.A.Mag(), c.Mag())):
		return []float64{u0}
	case h > r:
		return nil
	}
	half := math.Sqrt((r-h)*(r+h)) / l
	return []float64{u0 - half, u0 + half}
}

func intersectSegmentArc(s Segment, a Arc) []Vec {
	var out []Vec
	size := math.Max(s.Length(), a.R)
	tol := Tol(size, math.Max(s.A.Mag(), a.C.Mag())) / s.Length()
	for _, u := range lineCircle(s, a.C, a.R) {
		if u < -tol || u > 1+tol {
			continue
		}
		p := s.A.Add(s.B.Sub(s.A).Mul(u))
		if a.Has(p.Sub(a.C).Angle()) {
			out = AppendUniqueIn(out, p, size)
		}
	}
	return out
}

func intersectArcs(a, b Arc) ([]Vec, error) {
	d := a.C.Dist(b.C)
	size := math.Max(a.R, b.R)
	tol := Tol(size, math.Max(a.C.Mag(), b.C.Mag()))
	near := func(x, y float64) bool { return math.Abs(x-y) <= tol }
	if d <= tol && near(a.R, b.R) {
		return coincidentArcs(a, b)
	}
	if d == 0 {
		return nil, nil // concentric, different radii
	}
	var pts []Vec
	u := b.C.Sub(a.C).Mul(1 / d)
	switch {
	case near(d, a.R+b.R):
		pts = []Vec{a.C.Add(u.Mul(a.R))}
	case near(d, math.Abs(a.R-b.R)):
		if a.R >= b.R {
			pts = []Vec{a.C.Add(u.Mul(a.R))}
		} else {
			pts = []Vec{a.C.Sub(u.Mul(a.R))}
		}
	case d > a.R+b.R || d < math.Abs(a.R-b.R):
		return nil, nil
	default:
		x := (d*d + a.R*a.R - b.R*b.R) / (2 * d)
		h := math.Sqrt(math.Max(0, a.R*a.R-x*x))
		m := a.C.Add(u.Mul(x))
		pts = []Vec{m.Add(u.Perp().Mul(h)), m.Sub(u.Perp().Mul(h))}
	}
	var out []Vec
	for _, p := range pts {
		if a.Has(p.Sub(a.C).Angle()) && b.Has(p.Sub(b.C).Angle()) {
			out = AppendUniqueIn(out, p, math.Max(a.R, b.R))
		}
	}
	return out, nil
}

// coincidentArcs intersects two arcs of the same circle: their shared end
// points, or errOverlap when they share a stretch.
func coincidentArcs(a, b Arc) ([]Vec, error) {
	if a.Full() || b.Full() {
		return nil, ErrOverlap
	}
	bounds := []float64{0, NormRad(a.Sweep), NormRad(b.Start - a.Start), NormRad(b.Start + b.Sweep - a.Start)}
	sort.Float64s(bounds)
	bounds = append(bounds, 2*math.Pi)
	for i := 0; i+1 < len(bounds); i++ {
		if bounds[i+1]-bounds[i] <= Tolerance {
			continue
		}
		m := a.Start + (bounds[i]+bounds[i+1])/2
		if a.Has(m) && b.Has(m) && !sameAngleAsEnd(a, m) && !sameAngleAsEnd(b, m) {
			return nil, ErrOverlap
		}
	}
	var out []Vec
	for _, p := range []Vec{a.At(a.Start), a.At(a.Start + a.Sweep)} {
		if b.Has(p.Sub(b.C).Angle()) {
			out = AppendUnique(out, p)
		}
	}
	for _, p := range []Vec{b.At(b.Start), b.At(b.Start + b.Sweep)} {
		if a.Has(p.Sub(a.C).Angle()) {
			out = AppendUnique(out, p)
		}
	}
	return out, nil
}

func sameAngleAsEnd(a Arc, t float64) bool {
	return a.At(t).Same(a.At(a.Start)) || a.At(t).Same(a.At(a.Start+a.Sweep))
}

func intersectSegmentEllipse(s Segment, e EllipseArc) []Vec {
	us := Segment{e.toUnit(s.A), e.toUnit(s.B)}
	var out []Vec
	tol := Tolerance * math.Max(1, e.Major.Len()) / math.Max(s.Length(), Tolerance)
	for _, u := range lineCircle(us, Vec{}, 1) {
		if u < -tol || u > 1+tol {
			continue
		}
		t := us.A.Add(us.B.Sub(us.A).Mul(u)).Angle()
		if e.Has(t) {
			out = AppendUnique(out, e.At(t))
		}
	}
	return out
}

// Intersect intersects two primitives (segment, arc or ellipseArc): in
// closed form, except where an ellipse meets an arc or another ellipse
// (numerically, see ellipseMeets).
func Intersect(p, q any) ([]Vec, error) {
	switch a := p.(type) {
	case Segment:
		switch b := q.(type) {
		case Segment:
			return intersectSegments(a, b)
		case Arc:
			return intersectSegmentArc(a, b), nil
		case EllipseArc:
			return intersectSegmentEllipse(a, b), nil
		}
	case Arc:
		switch b := q.(type) {
		case Segment:
			return intersectSegmentArc(b, a), nil
		case Arc:
			return intersectArcs(a, b)
		case EllipseArc:
			return intersectArcEllipse(a, b)
		}
	case EllipseArc:
		switch b := q.(type) {
		case Segment:
			return intersectSegmentEllipse(b, a), nil
		case Arc:
			return intersectArcEllipse(b, a)
		case EllipseArc:
			return intersectEllipses(a, b)
		}
	}
	return nil, ErrUnsupportedPair
}

// ---- tangents ----

// TangentPoints are the points where lines from p touch the circle (c, r):
// none when p is inside, p itself when on it.
func TangentPoints(c Vec, r float64, p Vec) []Vec {
	d := p.Dist(c)
	switch {
	case Eq(d, r):
		return []Vec{p}
	case d < r:
		return nil
	}
	phi := p.Sub(c).Angle()
	alpha := math.Acos(r / d)
	return []Vec{polar(c, r, phi+alpha), polar(c, r, phi-alpha)}
}

// ---- helpers ----

// AppendUnique appends p to pts unless a point the same within Tolerance is there.
func AppendUnique(pts []Vec, p Vec) []Vec { return AppendUniqueIn(pts, p, 1) }

// AppendUniqueIn appends p to pts unless a point the same as p in a figure
// of the given size is there (see [Vec.SameIn]).
func AppendUniqueIn(pts []Vec, p Vec, size float64) []Vec {
	for _, q := range pts {
		if q.SameIn(p, size) {
			return pts
		}
	}
	return append(pts, p)
}

// NearestTo is the candidate nearest ref (the first on ties) and its index.
func NearestTo(cands []Vec, ref Vec) (Vec, int) {
	best, bi := Vec{}, -1
	bd := math.Inf(1)
	for i, c := range cands {
		if d := c.Dist(ref); d < bd-TolAt(bd) || bi < 0 {
			best, bi, bd = c, i, d
		}
	}
	return best, bi
}

// PrimCrossesBox reports whether a primitive has a point inside w.
func PrimCrossesBox(p any, w Box, first Vec) bool {
	if w.contains(first) {
		return true
	}
	c := w.corners()
	for i := 0; i < 4; i++ {
		pts, err := Intersect(p, Segment{c[i], c[(i+1)%4]})
		if err != nil || len(pts) > 0 {
			return true
		}
	}
	return false
}
