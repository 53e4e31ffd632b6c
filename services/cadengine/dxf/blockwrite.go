package dxf

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// The BLOCKS section: the drawing's blocks, and the anonymous blocks that
// hold what a dimension draws (*D, which every DIMENSION names) and, in
// R12, which has no HATCH, what a hatch draws (*X, placed by an INSERT,
// as R12 itself stored hatches).

// outBlock is one block to write.
type outBlock struct {
	name   string
	record uint64 // its BLOCK_RECORD (2018)
	flags  int    // 1: anonymous
	base   geom.Vec
	body   func(w *dxfWriter)
}

// The anonymous blocks of an entity are named by its kind and handle:
// *D for a dimension's graphics, *T for a table's (2018), *X for an R12
// hatch's, *U for a
// preserved entity turned, scaled or mirrored since it was read. A name
// the drawing's own blocks (read from a file) already use takes a suffix
// (see plan); the writer keeps the names by entity (dxfWriter.anon).
func dimensionBlock(h uint64) string { return "*D" + strconv.FormatUint(h, 10) }
func hatchBlock(h uint64) string     { return "*X" + strconv.FormatUint(h, 10) }
func foreignBlock(h uint64) string   { return "*U" + strconv.FormatUint(h, 10) }
func tableBlock(h uint64) string     { return "*T" + strconv.FormatUint(h, 10) }

// plan lists the blocks to write: the drawing's, by name, each entity
// written under a fresh handle; then one for each dimension (and, in R12,
// each hatch), and one for each preserved entity that has turned, scaled
// or mirrored since it was read (written as read in it, the block placed
// by an insert that does what was done to it).
func (w *dxfWriter) plan(d *drawing.Document, ents []*drawing.Entity) []outBlock {
	var out []outBlock
	taken := map[string]bool{}
	for _, b := range d.Blocks() {
		taken[strings.ToUpper(b.Name)] = true
	}
	w.anon = map[uint64]string{}
	name := func(h uint64, base string) string {
		n := base
		for i := 1; taken[strings.ToUpper(n)]; i++ {
			n = base + "_" + strconv.Itoa(i)
		}
		taken[strings.ToUpper(n)] = true
		w.anon[h] = n
		return n
	}
	for _, b := range d.Blocks() {
		b := b
		flags := 0
		if strings.HasPrefix(b.Name, "*") {
			flags = 1 // an anonymous block read from a file
		}
		out = append(out, outBlock{name: b.Name, record: b.Handle, flags: flags, base: b.Base, body: func(w *dxfWriter) {
			for _, e := range b.Entities {
				c := *e
				c.Handle = w.handle()
				w.Entity(&c)
			}
		}})
	}
	for _, e := range ents {
		switch g := e.Geom.(type) {
		case drawing.Dimension:
			out = append(out, outBlock{name: name(e.Handle, dimensionBlock(e.Handle)), flags: 1, body: func(w *dxfWriter) { w.picture(g.Picture()) }})
		case drawing.Table:
			if w.v2018 {
				out = append(out, outBlock{name: name(e.Handle, tableBlock(e.Handle)), flags: 1, body: func(w *dxfWriter) { w.picture(g.Picture()) }})
			}
		case drawing.Hatch:
			if !w.v2018 {
				out = append(out, outBlock{name: name(e.Handle, hatchBlock(e.Handle)), flags: 1, body: func(w *dxfWriter) { w.picture(g.Picture()) }})
			}
		case drawing.Insert:
			if _, _, _, _, ok := insertParts(g); g.Outer != nil && !ok {
				// Sheared: no INSERT can place the block so; its
				// entities as placed go in a block of their own.
				out = append(out, outBlock{name: name(e.Handle, foreignBlock(e.Handle)), flags: 1, body: func(w *dxfWriter) {
					for _, p := range g.PlacedFor(e) {
						p.Handle, p.Layout = w.handle(), ""
						w.Entity(p)
					}
				}})
			}
		case drawing.Foreign:
			if !g.Place.IsTranslation() && w.writes(g) {
				out = append(out, outBlock{name: name(e.Handle, foreignBlock(e.Handle)), flags: 1, body: func(w *dxfWriter) {
					read := g
					read.Place = geom.Identity()
					c := *e
					c.Layout = ""
					w.foreign(w.handle(), &c, read)
				}})
			}
		}
	}
	if w.v2018 {
		for i := range out {
			if out[i].record == 0 {
				out[i].record = w.handle()
			}
		}
	}
	return out
}

// blocks writes the BLOCKS section (2018: after *Model_Space and
// *Paper_Space, which the caller writes first through pre).
func (w *dxfWriter) blocks(bs []outBlock, pre ...outBlock) {
	w.section("BLOCKS")
	for _, b := range append(pre, bs...) {
		owner := w.owner
		w.owner = b.record
		w.pair(0, "BLOCK")
		w.pairHandle(5, w.handle())
		if w.v2018 {
			w.pairHandle(330, b.record)
			w.pair(100, "AcDbEntity")
		}
		w.pair(8, "0")
		w.sub("AcDbBlockBegin")
		w.pair(2, b.name)
		w.int(70, b.flags)
		w.Point(10, b.base)
		w.pair(3, b.name)
		w.pair(1, "")
		if b.body != nil {
			b.body(w)
		}
		w.pair(0, "ENDBLK")
		w.pairHandle(5, w.handle())
		if w.v2018 {
			w.pairHandle(330, b.record)
			w.pair(100, "AcDbEntity")
		}
		w.pair(8, "0")
		w.sub("AcDbBlockEnd")
		w.owner = owner
	}
	w.end()
}

// picture writes what an annotation draws as plain entities on layer 0,
// colour by block (so that they take the dimension's or insert's): LINE
// and ARC strokes, SOLID fills (as trapezoids), POINT dots, TEXT.
func (w *dxfWriter) picture(p drawing.Picture) {
	w.pictureAs(p, &drawing.Entity{Layer: "0", Color: 0, Linetype: "ByBlock"})
}

// pictureAs writes what p draws as entities in e's style, the first
// under e's handle when it has one.
func (w *dxfWriter) pictureAs(p drawing.Picture, e *drawing.Entity) {
	first := e.Handle
	put := func(g drawing.Geometry) {
		c := *e
		c.Handle, c.Geom = first, g
		if first == 0 {
			c.Handle = w.handle()
		}
		first = 0
		w.Entity(&c)
	}
	for _, s := range p.Strokes {
		switch s := s.(type) {
		case geom.Segment:
			if !s.A.Same(s.B) {
				put(drawing.Line{A: s.A, B: s.B})
			}
		case geom.Arc:
			if s.Full() {
				put(drawing.Circle{C: s.C, R: s.R})
			} else if a, err := drawing.NewArc(s.C, s.R, geom.Deg(s.Start), geom.Deg(s.Start+s.Sweep)); err == nil {
				put(a)
			}
		}
	}
	for _, q := range trapezoids(p.Fills) {
		h := first
		if first = 0; h == 0 {
			h = w.handle()
		}
		w.solid(h, e, q)
	}
	for _, d := range p.Dots {
		put(drawing.Point{P: d})
	}
	for _, t := range p.Texts {
		put(t)
	}
}

// solid writes a SOLID of 3 or 4 corners given in order around it (DXF
// takes the third and fourth crosswise).
func (w *dxfWriter) solid(h uint64, e *drawing.Entity, q []geom.Vec) {
	w.common("SOLID", h, e)
	w.sub("AcDbTrace")
	c := [4]geom.Vec{q[0], q[1], q[len(q)-1], q[len(q)-1]}
	if len(q) == 4 {
		c[2], c[3] = q[3], q[2]
	}
	for i, p := range c {
		w.Point(10+i, p)
	}
}

// trapezoids cuts the area the outlines fill (even-odd) into trapezoids
// and triangles, by horizontal slabs through every vertex: within a slab
// no edge starts or ends, so the edges crossing it pair up left to right.
// Outlines of 3 or 4 corners that are convex come back as they are.
func trapezoids(fills [][]geom.Vec) [][]geom.Vec {
	if len(fills) == 1 && len(fills[0]) <= 4 && convex(fills[0]) {
		return fills
	}
	type edge struct{ a, b geom.Vec }
	var edges []edge
	var ys []float64
	for _, f := range fills {
		for i := range f {
			a, b := f[i], f[(i+1)%len(f)]
			ys = append(ys, a.Y)
			if a.Y != b.Y {
				if a.Y > b.Y {
					a, b = b, a
				}
				edges = append(edges, edge{a, b})
			}
		}
	}
	sort.Float64s(ys)
	at := func(e edge, y float64) float64 { return e.a.X + (y-e.a.Y)*(e.b.X-e.a.X)/(e.b.Y-e.a.Y) }
	var out [][]geom.Vec
	for k := 0; k+1 < len(ys); k++ {
		y0, y1 := ys[k], ys[k+1]
		if y1 <= y0 {
			continue
		}
		mid := (y0 + y1) / 2
		var xs []edge
		for _, e := range edges {
			if e.a.Y <= mid && e.b.Y >= mid {
				xs = append(xs, e)
			}
		}
		sort.Slice(xs, func(i, j int) bool { return at(xs[i], mid) < at(xs[j], mid) })
		for i := 0; i+1 < len(xs); i += 2 {
			l, r := xs[i], xs[i+1]
			out = append(out, []geom.Vec{{X: at(l, y0), Y: y0}, {X: at(r, y0), Y: y0}, {X: at(r, y1), Y: y1}, {X: at(l, y1), Y: y1}})
		}
	}
	return out
}

// convex reports whether a small polygon turns one way only.
func convex(q []geom.Vec) bool {
	sign := 0.0
	for i := range q {
		a, b, c := q[i], q[(i+1)%len(q)], q[(i+2)%len(q)]
		cr := (b.X-a.X)*(c.Y-b.Y) - (b.Y-a.Y)*(c.X-b.X)
		if cr != 0 {
			if sign != 0 && math.Signbit(cr) != math.Signbit(sign) {
				return false
			}
			sign = cr
		}
	}
	return true
}
