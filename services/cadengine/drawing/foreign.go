package drawing

import (
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Foreign is an entity of a DXF type the engine does not model (3D
// solids, meshes, MLINE, proxies…), preserved as its file had it so that
// nothing is lost (DESIGN §10): its DXF type and its group codes, which a
// DXF export writes back. What can be derived of it is kept beside them,
// in world coordinates: the outline it draws (its corners or vertices
// joined, when its codes say them), the areas it fills (a 2D polyline's
// band, where it has widths) and the points that bound it. It moves,
// turns, scales and mirrors like any entity: the outline, the areas and
// the points follow, and Place, the transform applied since it was read,
// says how the codes must be written.
//
// Drawn, when set, is what the program that wrote it drew in the block
// it names (an ordinate or arc-length dimension's, a table's), or else
// the lines and texts its proxy graphics draw: it is drawn instead of
// the outline (which repeats it from the entity's codes or its proxy
// graphics, without their texts) and bounds it too. It moves, turns and
// scales with the entity; a reflection forgets it (its text would read
// backwards).
type Foreign struct {
	Type    string
	Pairs   []Pair         // as read, without the codes every entity has (handle, layer, colour…)
	Outline []geom.Segment // what it draws
	Fills   [][]geom.Vec   // what it fills: closed outlines, filled by the non-zero rule (nil for none)
	Points  []geom.Vec     // what bounds it, the outline's ends and the fills' corners included
	Place   geom.Xform
	Drawn   *Picture
}

// Pair is one DXF group code and its value, as written in the file.
type Pair struct {
	Code  int32
	Value string
}

// NewForeign is a foreign entity as read, placed where it was.
func NewForeign(typ string, pairs []Pair, outline []geom.Segment, points []geom.Vec) Foreign {
	return Foreign{Type: typ, Pairs: pairs, Outline: outline, Points: points, Place: geom.Identity()}
}

// Kind implements [Geometry].
func (Foreign) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_FOREIGN }

// Prims implements [Geometry]: the outline.
func (g Foreign) Prims() []any {
	out := make([]any, len(g.Outline))
	for i, s := range g.Outline {
		out[i] = s
	}
	return out
}

// Picture implements [Pictured]: the areas filled, and what its writer
// drew or else the outline. AutoCAD draws a table or a dimension from
// the block it names (its proxy graphics are for programs that cannot),
// and so does ezdxf.
func (g Foreign) Picture() Picture {
	p := Picture{Fills: g.Fills, NonZero: true}
	if g.Drawn == nil {
		p.Strokes = g.Prims()
		return p
	}
	p.add(*g.Drawn)
	return p
}

// Bounds implements [Geometry]: the box of the points and of what its
// writer drew; empty for an entity that has none (an ACIS solid's shape
// is not in its codes).
func (g Foreign) Bounds() geom.Box {
	var b geom.Box
	for _, p := range g.Points {
		b.AddPoint(p)
	}
	if g.Drawn != nil {
		b.AddBox(g.Drawn.Bounds())
	}
	return b
}

// Finite implements [Geometry].
func (g Foreign) Finite() bool {
	for _, p := range g.Points {
		if !p.Finite() {
			return false
		}
	}
	for _, f := range g.Fills {
		for _, p := range f {
			if !p.Finite() {
				return false
			}
		}
	}
	return g.Drawn == nil || g.Drawn.finite()
}

// Transformed implements [Geometry].
func (g Foreign) Transformed(x geom.Xform) Geometry {
	out := Foreign{Type: g.Type, Pairs: g.Pairs, Place: g.Place.Then(x)}
	out.Outline = make([]geom.Segment, len(g.Outline))
	for i, s := range g.Outline {
		out.Outline[i] = geom.Segment{A: x.Point(s.A), B: x.Point(s.B)}
	}
	out.Points = make([]geom.Vec, len(g.Points))
	for i, p := range g.Points {
		out.Points[i] = x.Point(p)
	}
	out.Fills = mappedFills(g.Fills, x.Point)
	out.Drawn = g.Drawn.placed(x.Affine())
	return out
}

// mappedFills are the fills with every corner mapped by f (nil for nil).
func mappedFills(fills [][]geom.Vec, f func(geom.Vec) geom.Vec) [][]geom.Vec {
	if fills == nil {
		return nil
	}
	out := make([][]geom.Vec, len(fills))
	for i, fl := range fills {
		out[i] = make([]geom.Vec, len(fl))
		for j, p := range fl {
			out[i][j] = f(p)
		}
	}
	return out
}

// encodeTo writes: type, n pairs (code as 4 bytes, value), m outline
// segments, k points, then Place's parts (move, scale, angle, mirror);
// then, for one that fills areas, 'F', their count and each area's
// corners (count, then x y each); then what its writer drew, tagged 'P',
// when it has that. One with neither encodes as it always did.
func (g Foreign) encodeTo(w *encoder) {
	w.string(g.Type)
	w.uvarint(uint64(len(g.Pairs)))
	for _, p := range g.Pairs {
		w.int32(p.Code)
		w.string(p.Value)
	}
	w.uvarint(uint64(len(g.Outline)))
	for _, s := range g.Outline {
		w.vec(s.A)
		w.vec(s.B)
	}
	w.vecs(g.Points)
	move, scale, angle, mirror := g.Place.Parts()
	w.vec(move)
	w.float(scale)
	w.float(angle)
	w.bool(mirror)
	if g.Fills != nil {
		w.byte(foreignFills)
		w.uvarint(uint64(len(g.Fills)))
		for _, f := range g.Fills {
			w.vecs(f)
		}
	}
	g.Drawn.encodeDrawn(w)
}

// foreignFills tags the areas a preserved entity fills in its encoding,
// before what its writer drew (see drawnTag).
const foreignFills = 'F'

func decodeForeign(r *decoder) Foreign {
	g := Foreign{Type: r.string()}
	n := r.uvarint()
	if n > uint64(len(r.b)/5) { // a pair takes at least 5 bytes
		r.fail("foreign entity")
		return g
	}
	g.Pairs = make([]Pair, n)
	for i := range g.Pairs {
		g.Pairs[i] = Pair{Code: r.int32(), Value: r.string()}
	}
	if n = r.uvarint(); n > uint64(len(r.b)/32) {
		r.fail("foreign entity")
		return g
	}
	g.Outline = make([]geom.Segment, n)
	for i := range g.Outline {
		a := r.vec()
		g.Outline[i] = geom.Segment{A: a, B: r.vec()}
	}
	g.Points = r.vecs("foreign entity")
	move := r.vec()
	scale := r.float()
	angle := r.float()
	g.Place = geom.Similarity(move, scale, angle, r.byte() == 1)
	if len(r.b) > 0 && r.b[0] == foreignFills {
		r.byte()
		if n = r.uvarint(); n > uint64(len(r.b)) { // an area takes at least a byte
			r.fail("foreign entity")
			return g
		}
		g.Fills = make([][]geom.Vec, n)
		for i := range g.Fills {
			g.Fills[i] = r.vecs("foreign entity")
		}
	}
	g.Drawn = decodeDrawn(r)
	return g
}

func (g Foreign) fill(w *wire) {
	w.pb.DxfType = new(g.Type)
	if b := g.Bounds(); b.NonEmpty {
		w.pb.Extents = &enginev1.Extents{MinX: b.Min.X, MinY: b.Min.Y, MaxX: b.Max.X, MaxY: b.Max.Y}
	}
}

// Affined implements [Geometry]: its outline and points mapped, its Place
// the nearest similarity (its codes cannot say more: a preserved entity
// in an unevenly scaled insert is drawn and bounded as it should be, but
// written back, if it is exploded, as the nearest similarity places it).
func (g Foreign) Affined(m geom.Affine) Geometry {
	out := Foreign{Type: g.Type, Pairs: g.Pairs, Place: g.Place.Then(m.Nearest(geom.Vec{}))}
	out.Outline = make([]geom.Segment, len(g.Outline))
	for i, s := range g.Outline {
		out.Outline[i] = geom.Segment{A: m.Point(s.A), B: m.Point(s.B)}
	}
	out.Points = affined(g.Points, m)
	out.Fills = mappedFills(g.Fills, m.Point)
	out.Drawn = g.Drawn.placed(m)
	return out
}
