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
//
// A multileader (DXF's MULTILEADER, Multi) has more: its further leader
// lines (More, each like V, with an arrowhead of its own) and the text it
// carries (Text, nil for none); Style is then its multileader style's
// name.
type Leader struct {
	V      []geom.Vec
	Arrow  bool
	Curved bool
	Size   float64
	Style  string
	Multi  bool
	More   [][]geom.Vec
	Text   *MText
}

// Lines are the leader's lines, V first.
func (g Leader) Lines() [][]geom.Vec { return append([][]geom.Vec{g.V}, g.More...) }

// Kind implements [Geometry].
func (Leader) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_LEADER }

// Path is the leader's line: its segments, or, when Curved, the spline
// through its vertices that leaves the first along the first segment and
// arrives at the last along the last, as ezdxf renders a spline leader
// (its arrowhead, which points along the first segment, then lies on the
// curve; segments, if the spline cannot be made).
func (g Leader) Path() []any {
	var out []any
	for _, v := range g.Lines() {
		out = append(out, path(v, g.Curved)...)
	}
	return out
}

// path is one leader line through v.
func path(v []geom.Vec, curved bool) []any {
	if curved && len(v) > 2 {
		start, end := v[1].Sub(v[0]), v[len(v)-1].Sub(v[len(v)-2])
		if s, err := geom.SplineThroughCAD(v, &start, &end); err == nil {
			return Spline{Spline: s}.Prims()
		}
	}
	var out []any
	for i := 1; i < len(v); i++ {
		out = append(out, geom.Segment{A: v[i-1], B: v[i]})
	}
	return out
}

// Prims implements [Geometry]: the line (the arrowhead is drawn filled,
// see Picture).
func (g Leader) Prims() []any { return g.Path() }

// arrowhead is the closed filled arrow at the first vertex of v,
// pointing along the first segment: Size long, a third of it wide; nil
// when there is none.
func (g Leader) arrowhead(v []geom.Vec) []geom.Vec {
	if !g.Arrow || len(v) < 2 || !(g.Size > 0) {
		return nil
	}
	d := v[0].Sub(v[1])
	if d.Len() == 0 {
		return nil
	}
	u := d.Unit()
	base := v[0].Sub(u.Mul(g.Size))
	n := u.Perp().Mul(g.Size / 6)
	return []geom.Vec{v[0], base.Add(n), base.Sub(n)}
}

// Picture implements [Pictured]: the lines, the arrowheads and the text.
func (g Leader) Picture() Picture {
	p := g.lines()
	if g.Text != nil {
		p.add(g.Text.Picture())
	}
	return p
}

// lines is the picture of the lines and arrowheads.
func (g Leader) lines() Picture {
	p := Picture{Strokes: g.Path()}
	for _, v := range g.Lines() {
		if a := g.arrowhead(v); a != nil {
			p.Fills = append(p.Fills, a)
		}
	}
	return p
}

// Bounds implements [Geometry]: the lines, arrowheads and the text's box
// (as [MText.Bounds] estimates it, as ezdxf does).
func (g Leader) Bounds() geom.Box {
	b := g.lines().Bounds()
	if g.Text != nil {
		b.AddBox(g.Text.Bounds())
	}
	return b
}

// Finite implements [Geometry].
func (g Leader) Finite() bool {
	for _, v := range g.More {
		if !allFinite(v) {
			return false
		}
	}
	return allFinite(g.V) && geom.IsFinite(g.Size) && (g.Text == nil || g.Text.Finite())
}

// Transformed implements [Geometry].
func (g Leader) Transformed(x geom.Xform) Geometry {
	out := g
	out.V, out.Size = mapped(g.V, x), g.Size*x.Scale
	out.More = nil
	for _, v := range g.More {
		out.More = append(out.More, mapped(v, x))
	}
	if g.Text != nil {
		t := g.Text.Transformed(x).(MText)
		out.Text = &t
	}
	return out
}

// encodeTo writes: style (string), arrow, curved (bytes), size, n
// (uvarint), n vertices; then for a multileader 'M', the number of
// further lines (uvarint) and each (n, n vertices), and its text: 0, or
// 1 and the text as an mtext's encoding.
func (g Leader) encodeTo(w *encoder) {
	w.string(g.Style)
	w.bool(g.Arrow)
	w.bool(g.Curved)
	w.float(g.Size)
	w.uvarint(uint64(len(g.V)))
	for _, p := range g.V {
		w.vec(p)
	}
	if !g.Multi {
		return
	}
	w.byte('M')
	w.uvarint(uint64(len(g.More)))
	for _, v := range g.More {
		w.vecs(v)
	}
	w.bool(g.Text != nil)
	if g.Text != nil {
		g.Text.encodeTo(w)
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
	if len(r.b) == 0 || r.b[0] != 'M' {
		return g
	}
	r.byte()
	g.Multi = true
	m := r.uvarint()
	if m > uint64(len(r.b)/16) {
		r.fail("leader")
		return g
	}
	for range m {
		v := r.vecs("leader")
		if len(v) < 2 {
			r.fail("leader")
			return g
		}
		g.More = append(g.More, v)
	}
	if r.byte() == 1 {
		t := decodeMText(r)
		g.Text = &t
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
	for _, v := range g.More {
		pb.LeaderLines = append(pb.LeaderLines, &enginev1.LeaderLine{Points: pbPoints(v)})
	}
	if g.Multi {
		pb.DxfType = new("MULTILEADER")
	}
	if t := g.Text; t != nil {
		pb.Text, pb.Insertion = new(t.Text), w.point(t.P)
		pb.Height, pb.Rotation, pb.Width = w.num(t.Height), w.num(t.Rotation), w.num(t.Width)
		pb.Attachment = new(enginev1.TextAttachment(t.attach()))
	}
}

// Affined implements [Geometry]: the vertices mapped, the arrowhead
// scaled by the square root of the map's determinant.
func (g Leader) Affined(m geom.Affine) Geometry {
	out := g
	out.V, out.Size = affined(g.V, m), g.Size*math.Sqrt(math.Abs(m.Det()))
	out.More = nil
	for _, v := range g.More {
		out.More = append(out.More, affined(v, m))
	}
	if g.Text != nil {
		t := g.Text.Affined(m).(MText)
		out.Text = &t
	}
	return out
}
