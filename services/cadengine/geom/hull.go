package geom

import (
	"math"
	"slices"
)

// Convex hulls: what a block's extents are kept as, so that the extents of
// an insert cost the size of its block's hull and never the size of what
// the block expands to (a block of ten inserts of a block of ten inserts…
// draws 10^10 curves, but its hull is a handful of points).

// hullSteps is the number of pieces a full turn of an arc is bounded by:
// the polygon of tangents it makes lies outside the arc by at most
// r·(1/cos(π/hullSteps) − 1), under 2·10⁻⁵ of the radius.
const hullSteps = 512

// ConvexHull is the convex hull of pts, counter-clockwise from the
// lowest-leftmost point, without collinear points (Andrew's monotone
// chain). Fewer than three distinct points come back as they are, sorted
// and without repeats. pts is reordered.
func ConvexHull(pts []Vec) []Vec {
	slices.SortFunc(pts, func(a, b Vec) int {
		if a.X != b.X {
			if a.X < b.X {
				return -1
			}
			return 1
		}
		switch {
		case a.Y < b.Y:
			return -1
		case a.Y > b.Y:
			return 1
		}
		return 0
	})
	pts = slices.Compact(pts)
	if len(pts) < 3 {
		return slices.Clone(pts)
	}
	h := make([]Vec, 0, 2*len(pts))
	for _, p := range pts { // lower hull
		for len(h) >= 2 && h[len(h)-1].Sub(h[len(h)-2]).cross(p.Sub(h[len(h)-2])) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, p)
	}
	lower := len(h) + 1
	for i := len(pts) - 2; i >= 0; i-- { // upper hull
		p := pts[i]
		for len(h) >= lower && h[len(h)-1].Sub(h[len(h)-2]).cross(p.Sub(h[len(h)-2])) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, p)
	}
	return slices.Clip(h[:len(h)-1])
}

// HullPoints appends points whose convex hull contains the primitive p
// (a Segment, Arc or EllipseArc): a segment's ends, and for a curve its
// ends and the corners of a polygon of tangents around it (see
// hullSteps).
func HullPoints(dst []Vec, p any) []Vec {
	switch p := p.(type) {
	case Segment:
		return append(dst, p.A, p.B)
	case Arc:
		return appendArcHull(dst, p.Start, p.Sweep, func(t, k float64) Vec { return polar(p.C, p.R*k, t) })
	case EllipseArc:
		minor := p.minor()
		return appendArcHull(dst, p.Start, p.Sweep, func(t, k float64) Vec {
			s, c := math.Sincos(t)
			return p.C.Add(p.Major.Mul(c * k)).Add(minor.Mul(s * k))
		})
	}
	return dst
}

// appendArcHull appends the ends of the arc of parameters [start,
// start+sweep] of a circle (or an affine image of one) and the corners of
// the polygon of its tangents; at(t, k) is the point at parameter t,
// k times as far from the centre.
func appendArcHull(dst []Vec, start, sweep float64, at func(t, k float64) Vec) []Vec {
	sweep = math.Min(sweep, 2*math.Pi)
	n := max(1, int(math.Ceil(sweep/(2*math.Pi)*hullSteps)))
	step := sweep / float64(n)
	k := 1 / math.Cos(step/2) // a corner between two tangent points
	dst = append(dst, at(start, 1))
	for i := range n {
		dst = append(dst, at(start+(float64(i)+0.5)*step, k))
	}
	return append(dst, at(start+sweep, 1))
}
