package drawing

import (
	"crypto/sha256"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// ShapeKey is what makes two entities the same thing drawn twice: the
// SHA-256 of the canonical encoding of their type, layer, layout and
// geometry, the geometry of a line or an open polyline taken from its
// lesser end (a line drawn back the same way is the same line), and not
// their handles, colours or linetypes. Entities of equal keys lie one on
// the other.
func (e *Entity) ShapeKey() [32]byte {
	c := *e
	c.Color, c.Linetype, c.LinetypeScale = 0, "", 0
	c.Geom = forward(e.Geom)
	w := encoders.Get().(*encoder)
	defer putEncoder(w)
	c.encodeTo(w)
	return sha256.Sum256(w.b)
}

// forward is g drawn from its lesser end (by x, then y) when it is a line
// or an open polyline without widths; g itself otherwise.
func forward(g Geometry) Geometry {
	switch g := g.(type) {
	case Line:
		if less(g.B, g.A) {
			return Line{A: g.B, B: g.A}
		}
	case Polyline:
		n := len(g.V)
		if g.Closed || g.Widths != nil || n < 2 || !less(g.V[n-1].P, g.V[0].P) {
			return g
		}
		v := make([]geom.Vertex, n)
		for i := range g.V {
			v[i].P = g.V[n-1-i].P
			if i < n-1 {
				// The piece from v[i] is the piece into g.V[n-1-i],
				// run backwards.
				v[i].Bulge = -g.V[n-2-i].Bulge
			}
		}
		return Polyline{Polyline: geom.Polyline{V: v}}
	}
	return g
}

func less(a, b geom.Vec) bool { return a.X < b.X || a.X == b.X && a.Y < b.Y }

// Box is the text's estimated box (see [Entity.Bounds] of text): its
// corners counter-clockwise from the start of its bottom edge, turned
// with the text.
func (g Text) Box() geom.Polygon {
	c := g.corners()
	return geom.Polygon(c[:])
}
