package drawing

import (
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Solid is a filled shape of three or four corners, in order round it
// (DXF's SOLID and TRACE, which list them 1, 2, 4, 3: see the dxf
// package). Trace says it was read as a TRACE, which DXF writes back as
// one.
type Solid struct {
	P     []geom.Vec
	Trace bool
}

// Kind implements [Geometry].
func (Solid) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_SOLID }

// Prims implements [Geometry]: its outline.
func (g Solid) Prims() []any { return outline(g.P, ^0) }

// outline is the closed polygon of corners, the edges whose bit in hidden
// (bit i: the edge from corner i to the next) is clear.
func outline(p []geom.Vec, shown int32) []any {
	var out []any
	for i := range p {
		if shown&(1<<i) != 0 {
			if a, b := p[i], p[(i+1)%len(p)]; !a.Same(b) {
				out = append(out, geom.Segment{A: a, B: b})
			}
		}
	}
	return out
}

// Picture implements [Pictured]: the shape filled, and its outline.
func (g Solid) Picture() Picture {
	return Picture{Strokes: g.Prims(), Fills: [][]geom.Vec{g.P}}
}

// Bounds implements [Geometry].
func (g Solid) Bounds() geom.Box { return boxOf(g.P) }

func boxOf(p []geom.Vec) geom.Box {
	var b geom.Box
	for _, q := range p {
		b.AddPoint(q)
	}
	return b
}

// Finite implements [Geometry].
func (g Solid) Finite() bool { return allFinite(g.P) }

func allFinite(p []geom.Vec) bool {
	for _, q := range p {
		if !q.Finite() {
			return false
		}
	}
	return true
}

// Transformed implements [Geometry].
func (g Solid) Transformed(x geom.Xform) Geometry {
	return Solid{P: mapped(g.P, x), Trace: g.Trace}
}

func mapped(p []geom.Vec, x geom.Xform) []geom.Vec {
	out := make([]geom.Vec, len(p))
	for i, q := range p {
		out[i] = x.Point(q)
	}
	return out
}

// encodeTo writes: trace (byte), n (uvarint), n corners.
func (g Solid) encodeTo(w *encoder) {
	w.bool(g.Trace)
	w.uvarint(uint64(len(g.P)))
	for _, p := range g.P {
		w.vec(p)
	}
}

func decodeSolid(r *decoder) Solid {
	g := Solid{Trace: r.byte() == 1}
	g.P = decodeCorners(r)
	return g
}

// decodeCorners reads 3 or 4 corners, a uvarint count first.
func decodeCorners(r *decoder) []geom.Vec {
	n := r.uvarint()
	if n < 3 || n > 4 {
		r.fail("corners")
		return nil
	}
	p := make([]geom.Vec, n)
	for i := range p {
		p[i] = r.vec()
	}
	return p
}

func (g Solid) fill(w *wire) {
	w.pb.Corners = pbPoints(g.P)
	if g.Trace {
		w.pb.DxfType = new("TRACE")
	}
}

func pbPoints(p []geom.Vec) []*enginev1.Point {
	out := make([]*enginev1.Point, len(p))
	for i, q := range p {
		out[i] = pbPoint(q)
	}
	return out
}

// Affined implements [Geometry]: the corners mapped.
func (g Solid) Affined(m geom.Affine) Geometry { return Solid{P: affined(g.P, m), Trace: g.Trace} }

func affined(p []geom.Vec, m geom.Affine) []geom.Vec {
	out := make([]geom.Vec, len(p))
	for i, q := range p {
		out[i] = m.Point(q)
	}
	return out
}
