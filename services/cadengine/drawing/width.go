package drawing

import (
	"math"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Polylines with widths: drawn as filled outlines, bounded by them.

// Picture implements [Pictured]. A polyline without widths is its
// pieces, as lines. One with widths is the filled outlines of its pieces
// that have a width, as ezdxf's drawing add-on draws them (see
// geom.Polyline.Bands: runs of straight pieces mitred, each bulged piece
// an annular sector), filled by the non-zero rule since they may
// overlap; its pieces without width are lines, as a CAD program draws
// them.
func (g Polyline) Picture() Picture {
	if g.Widths == nil {
		return Picture{Strokes: g.Prims()}
	}
	p := Picture{Fills: g.Bands(g.Widths, g.bandTol()), NonZero: true}
	n := len(g.V)
	count := n - 1
	if g.Closed {
		count = n
	}
	for i := range count {
		a, b := g.V[i], g.V[(i+1)%n]
		if g.Widths[i].Zero() && a.P != b.P {
			p.Strokes = append(p.Strokes, geom.Piece{A: a.P, B: b.P, Bulge: a.Bulge}.Prim())
		}
	}
	return p
}

// bandTol is how near the outlines of a polyline with widths follow its
// bulges: as near as a solid hatch's picture follows its loops.
func (g Polyline) bandTol() float64 { return 1e-4 * math.Max(boxSize(g.Polyline.Bounds()), 1e-9) }

// Bounds implements [Geometry]: the pieces' extents, and those of the
// outlines a polyline with widths is drawn as (as ezdxf's extents have
// them).
func (g Polyline) Bounds() geom.Box {
	b := g.Polyline.Bounds()
	if g.Widths == nil {
		return b
	}
	for _, f := range g.Bands(g.Widths, g.bandTol()) {
		for _, q := range f {
			b.AddPoint(q)
		}
	}
	return b
}

// Finite implements [Geometry]: every vertex, bulge and width is finite.
func (g Polyline) Finite() bool {
	for _, w := range g.Widths {
		if !geom.IsFinite(w.Start) || !geom.IsFinite(w.End) {
			return false
		}
	}
	return g.Polyline.Finite()
}
