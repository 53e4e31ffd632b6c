package geom

import "math"

// PrimDistance is how far p is from the primitive (a [Segment], [Arc] or
// [EllipseArc]): from its nearest point; +Inf for anything else.
func PrimDistance(prim any, p Vec) float64 {
	switch q := prim.(type) {
	case Segment:
		c, _ := q.Closest(p)
		return c.Dist(p)
	case Arc:
		return q.Closest(p).Dist(p)
	case EllipseArc:
		return q.Closest(p).Dist(p)
	}
	return math.Inf(1)
}
