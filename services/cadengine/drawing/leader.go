package drawing

import (
	"math"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Leader is a leader line (DXF's LEADER): through its vertices V, first
// the point it points at, straight or, when Curved, the cubic spline
// through them; with a closed filled arrowhead Size long at the first
// vertex when Arrow. Style is its dimension style's name, as its file had
// it; its text, if any, is an entity of its own (multi-line text).
type Leader struct {
	V      []geom.Vec
	Arrow  bool
	Curved bool
	Size   float64
	Style  string
}

// Kind implements [Geometry].
func (Leader) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_LEADER }

// Path is the leader's line: its segments, or the spline through its
// vertices when Curved (segments, if the spline cannot be made).
func (g Leader) Path() []any {
	if g.Curved && len(g.V) > 2 {
		if s, err := geom.SplineThroughCAD(g.V, nil, nil); err == nil {
			return Spline{Spline: s}.Prims()
		}
	}
	var out []any
	for i := 1; i < len(g.V); i++ {
		out = append(out, geom.Segment{A: g.V[i-1], B: g.V[i]})
	}
	return out
}

// Prims implements [Geometry]: the line (the arrowhead is drawn filled,
// see Picture).
func (g Leader) Prims() []any { return g.Path() }

// arrowhead is the closed filled arrow at the first vertex, pointing
// along the first segment: Size long, a third of it wide; nil when there
// is none.
func (g Leader) arrowhead() []geom.Vec {
	if !g.Arrow || len(g.V) < 2 || !(g.Size > 0) {
		return nil
	}
	d := g.V[0].Sub(g.V[1])
	if d.Len() == 0 {
		return nil
	}
	u := d.Unit()
	base := g.V[0].Sub(u.Mul(g.Size))
	n := u.Perp().Mul(g.Size / 6)
	return []geom.Vec{g.V[0], base.Add(n), base.Sub(n)}
}

// Picture implements [Pictured]: the line and the arrowhead.
func (g Leader) Picture() Picture {
	p := Picture{Strokes: g.Path()}
	if a := g.arrowhead(); a != nil {
		p.Fills = [][]geom.Vec{a}
	}
	return p
}

// Bounds implements [Geometry].
func (g Leader) Bounds() geom.Box { return g.Picture().Bounds() }

// Finite implements [Geometry].
func (g Leader) Finite() bool { return allFinite(g.V) && geom.IsFinite(g.Size) }

// Transformed implements [Geometry].
func (g Leader) Transformed(x geom.Xform) Geometry {
	out := g
	out.V, out.Size = mapped(g.V, x), g.Size*x.Scale
	return out
}

// encodeTo writes: style (string), arrow, curved (bytes), size, n
// (uvarint), n vertices.
func (g Leader) encodeTo(w *encoder) {
	w.string(g.Style)
	w.bool(g.Arrow)
	w.bool(g.Curved)
	w.float(g.Size)
	w.uvarint(uint64(len(g.V)))
	for _, p := range g.V {
		w.vec(p)
	}
}

func decodeLeader(r *decoder) Leader {
	g := Leader{Style: r.string(), Arrow: r.byte() == 1, Curved: r.byte() == 1, Size: r.float()}
	n := r.uvarint()
	if n < 2 || n > uint64(len(r.b)/16) {
		r.fail("leader")
		return g
	}
	g.V = make([]geom.Vec, n)
	for i := range g.V {
		g.V[i] = r.vec()
	}
	return g
}

func (g Leader) fill(w *wire) {
	pb := &w.pb
	pb.Points = make([]*enginev1.Vertex, len(g.V))
	for i, p := range g.V {
		pb.Points[i] = &enginev1.Vertex{X: p.X, Y: p.Y}
	}
	pb.Arrowhead, pb.Curved, pb.ArrowSize, pb.DimStyle = new(g.Arrow), new(g.Curved), w.num(g.Size), new(g.Style)
}

// Affined implements [Geometry]: the vertices mapped, the arrowhead
// scaled by the square root of the map's determinant.
func (g Leader) Affined(m geom.Affine) Geometry {
	out := g
	out.V, out.Size = affined(g.V, m), g.Size*math.Sqrt(math.Abs(m.Det()))
	return out
}
