package drawing

import "github.com/cadbridge/cadbridge/services/cadengine/geom"

// Expanding inserts: what a block draws, measured once, and its placement
// within a budget (see Budget).

// measure sets the block's cost and hull from its entities. The blocks
// its inserts name joined the document before it (a block can only
// insert blocks that exist), so they are measured already: this costs the
// block's own entities, never what they expand to.
func (b *Block) measure() {
	if b.measured {
		return
	}
	var pts []geom.Vec
	var n int64
	for _, e := range b.Entities {
		n = addSat(n, Cost(e.Geom))
		pts = hullPoints(pts, e.Geom)
		if _, ok := e.Geom.(Insert); !ok {
			b.leaves++
		}
	}
	b.cost, b.hull, b.measured = n, geom.ConvexHull(pts), true
}

// Cost is the number of primitives drawing the block makes (see [Cost]).
func (b *Block) Cost() int64 { return b.cost }

// hullPoints appends points whose convex hull holds everything g draws.
func hullPoints(dst []geom.Vec, g Geometry) []geom.Vec {
	switch g := g.(type) {
	case Insert:
		return g.hullPoints(dst)
	case Text:
		c := g.corners()
		return append(dst, c[:]...)
	case Foreign:
		return append(dst, g.Points...)
	case Hatch:
		// The pattern lies inside the loops.
		for _, l := range g.Loops {
			for _, p := range l.Prims() {
				dst = geom.HullPoints(dst, p)
			}
		}
		return dst
	case Pictured:
		pic := g.Picture()
		for _, p := range pic.Strokes {
			dst = geom.HullPoints(dst, p)
		}
		for _, f := range pic.Fills {
			dst = append(dst, f...)
		}
		dst = append(dst, pic.Dots...)
		for _, t := range pic.Texts {
			c := t.corners()
			dst = append(dst, c[:]...)
		}
		return dst
	}
	prims := g.Prims()
	if len(prims) == 0 {
		b := g.Bounds()
		if !b.NonEmpty { // an xline or a ray bounds nothing
			return dst
		}
		return append(dst, b.Min, b.Max, geom.Pt(b.Min.X, b.Max.Y), geom.Pt(b.Max.X, b.Min.Y))
	}
	for _, p := range prims {
		dst = geom.HullPoints(dst, p)
	}
	return dst
}

// hullPoints appends the block's hull and the insert's shown attribute
// values as the insert places them at the corner copies of its grid
// (whose hull holds every copy), or the insertion point when the block
// draws nothing.
func (g Insert) hullPoints(dst []geom.Vec) []geom.Vec {
	cols, rows := max(1, g.Cols)-1, max(1, g.Rows)-1
	corners := [...][2]int64{{0, 0}, {cols, 0}, {0, rows}, {cols, rows}}
	n := len(corners)
	if !g.Grid() {
		n = 1
	}
	shown := shownAttribs(g.Attribs)
	for _, cell := range corners[:n] {
		d := g.cellOffset(cell[0], cell[1])
		for _, t := range shown {
			for _, p := range t.corners() {
				dst = append(dst, p.Add(d))
			}
		}
	}
	if g.Def == nil || len(g.Def.hull) == 0 {
		return append(dst, g.P)
	}
	m := g.Placement()
	for _, cell := range corners[:n] {
		d := g.cellOffset(cell[0], cell[1])
		for _, p := range g.Def.hull {
			dst = append(dst, m.Point(p).Add(d))
		}
	}
	return dst
}

// PlacedFor is g.PlacedFor(e) (g is e's geometry) paid for from the
// budget before they are made: the placed entities that are not inserts
// (an insert is paid for when it is expanded in turn), and at least the
// call's context looked at.
func (b *Budget) PlacedFor(g Insert, e *Entity) ([]*Entity, error) {
	if g.Def != nil {
		if err := b.Spend(mulSat(g.Def.leaves, g.Cells())); err != nil {
			return nil, err
		}
	}
	return g.PlacedFor(e), nil
}
