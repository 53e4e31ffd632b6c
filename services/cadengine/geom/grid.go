package geom

import "math"

// Grid files boxes by the square cells of side Cell they cover, so that
// the boxes near a box are found without looking at every one: a hash of
// cells, so the plane need not be bounded. A box over more than
// gridMaxCells cells is kept apart, in a list every query looks through
// (a border around a whole sheet), so a box costs at most that many
// cells.
type Grid struct {
	cell  float64
	cells map[[2]int64][]int32
	big   []int32
	boxes []Box
	seen  []uint32 // the query in which each box was last met
	query uint32
}

// gridMaxCells is the most cells a box is filed in.
const gridMaxCells = 64

// NewGrid is an empty grid of cells of side cell (made 1 when not
// positive and finite).
func NewGrid(cell float64) *Grid {
	if !(cell > 0) || math.IsInf(cell, 0) {
		cell = 1
	}
	return &Grid{cell: cell, cells: map[[2]int64][]int32{}}
}

// span is the range of cells b covers, and whether it is at most
// gridMaxCells of them.
func (g *Grid) span(b Box) (x0, y0, x1, y1 int64, small bool) {
	f := func(v float64) int64 { return int64(math.Floor(v / g.cell)) }
	lx, ly, hx, hy := b.Min.X/g.cell, b.Min.Y/g.cell, b.Max.X/g.cell, b.Max.Y/g.cell
	if (hx-lx+1)*(hy-ly+1) > gridMaxCells || !(math.Abs(lx) < 1<<52 && math.Abs(ly) < 1<<52 && math.Abs(hx) < 1<<52 && math.Abs(hy) < 1<<52) {
		return 0, 0, 0, 0, false
	}
	return f(b.Min.X), f(b.Min.Y), f(b.Max.X), f(b.Max.Y), true
}

// Add files b and returns its id: the number of boxes added before it.
func (g *Grid) Add(b Box) int {
	id := int32(len(g.boxes))
	g.boxes = append(g.boxes, b)
	g.seen = append(g.seen, 0)
	x0, y0, x1, y1, small := g.span(b)
	if !small {
		g.big = append(g.big, id)
		return int(id)
	}
	for x := x0; x <= x1; x++ {
		for y := y0; y <= y1; y++ {
			g.cells[[2]int64{x, y}] = append(g.cells[[2]int64{x, y}], id)
		}
	}
	return int(id)
}

// Box is the box filed under id.
func (g *Grid) Box(id int) Box { return g.boxes[id] }

// Len is how many boxes the grid holds.
func (g *Grid) Len() int { return len(g.boxes) }

// Near calls fn once for each box that overlaps b (touching counts), in
// no particular order, until fn returns false.
func (g *Grid) Near(b Box, fn func(id int) bool) {
	g.query++
	if g.query == 0 { // wrapped: forget every mark
		clear(g.seen)
		g.query = 1
	}
	visit := func(ids []int32) bool {
		for _, id := range ids {
			if g.seen[id] == g.query {
				continue
			}
			g.seen[id] = g.query
			if g.boxes[id].Overlaps(b) && !fn(int(id)) {
				return false
			}
		}
		return true
	}
	if !visit(g.big) {
		return
	}
	x0, y0, x1, y1, small := g.span(b)
	if !small {
		// A wide query looks through the cells there are, not those it
		// covers.
		for _, ids := range g.cells {
			if !visit(ids) {
				return
			}
		}
		return
	}
	for x := x0; x <= x1; x++ {
		for y := y0; y <= y1; y++ {
			if !visit(g.cells[[2]int64{x, y}]) {
				return
			}
		}
	}
}

// ConvexOverlap reports whether two convex polygons overlap by more than
// margin: along every axis that could separate them (each side's
// normal), their shadows overlap by more than margin. Polygons that only
// touch, or overlap by a sliver no wider than margin, do not.
func ConvexOverlap(a, b Polygon, margin float64) bool {
	for _, p := range [2]Polygon{a, b} {
		for _, e := range p.Edges() {
			n := e.B.Sub(e.A).Perp().Unit()
			alo, ahi := shadow(a, n)
			blo, bhi := shadow(b, n)
			if math.Min(ahi, bhi)-math.Max(alo, blo) <= margin {
				return false
			}
		}
	}
	return len(a) > 0 && len(b) > 0
}

// shadow is the extent of p's corners along the unit vector n.
func shadow(p Polygon, n Vec) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, q := range p {
		d := q.Dot(n)
		lo, hi = math.Min(lo, d), math.Max(hi, d)
	}
	return lo, hi
}
