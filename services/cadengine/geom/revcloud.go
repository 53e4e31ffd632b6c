package geom

import (
	"errors"
	"fmt"
	"math"
)

// ---- revision clouds ----

// RevcloudBulge is the bulge of every arc of a revision cloud: arcs of
// 120° (tan 30°), which bulge a little more than a third of their chord
// (b·chord/2) out of the polygon, as AutoCAD's clouds look.
var RevcloudBulge = math.Tan(math.Pi / 6)

// MaxRevcloudArcs is the most arcs a revision cloud may have.
const MaxRevcloudArcs = 100000

// Revcloud is the revision cloud along the polygon p (its corners, at
// least three, closing by itself): a closed polyline whose vertices are
// the corners and points spaced evenly along each edge, each edge cut
// into round(length/arcLength) pieces (at least one), every piece an arc
// of bulge RevcloudBulge that lies outside the polygon (to the right of
// the edges of a counter-clockwise polygon, to their left otherwise).
// Consecutive corners that are the same count once. A polygon without
// area, a non-finite point or arc length, or a cloud of more than
// MaxRevcloudArcs arcs is an error.
func Revcloud(p []Vec, arcLength float64) (Polyline, error) {
	var q []Vec
	for _, v := range p {
		if !v.Finite() {
			return Polyline{}, errors.New("the points must be finite")
		}
		if len(q) == 0 || !q[len(q)-1].Same(v) {
			q = append(q, v)
		}
	}
	if len(q) > 1 && q[0].Same(q[len(q)-1]) {
		q = q[:len(q)-1]
	}
	if len(q) < 3 {
		return Polyline{}, errors.New("a revision cloud needs at least three distinct corners")
	}
	area := polygonArea(q)
	size := boxOfPoints(q)
	if math.Abs(area) <= Tolerance*size*size {
		return Polyline{}, errors.New("the corners of a revision cloud must enclose an area")
	}
	if !(arcLength > 0) || !IsFinite(arcLength) {
		return Polyline{}, fmt.Errorf("arc length %g: it must be a positive number", arcLength)
	}
	b := RevcloudBulge
	if area < 0 {
		b = -b // clockwise: the outside is to the left
	}
	total := 0.0
	for i := range q {
		total += math.Max(1, math.Round(q[i].Dist(q[(i+1)%len(q)])/arcLength))
	}
	if total > MaxRevcloudArcs {
		return Polyline{}, fmt.Errorf("an arc length of %g makes %g arcs, more than %d: give a longer one", arcLength, total, MaxRevcloudArcs)
	}
	out := make([]Vertex, 0, int(total))
	for i, a := range q {
		c := q[(i+1)%len(q)]
		n := int(math.Max(1, math.Round(a.Dist(c)/arcLength)))
		for k := 0; k < n; k++ {
			out = append(out, Vertex{P: lerp(a, c, float64(k)/float64(n)), Bulge: b})
		}
	}
	return Polyline{V: out, Closed: true}, nil
}

// boxOfPoints is the larger side of the points' extents.
func boxOfPoints(p []Vec) float64 {
	var b Box
	for _, v := range p {
		b.AddPoint(v)
	}
	return math.Max(b.Max.X-b.Min.X, b.Max.Y-b.Min.Y)
}
