package drawing

import (
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// XLine is a construction line through P along Dir (a unit vector),
// endless both ways, or, when Ray, from P on (DXF's XLINE and RAY). It
// bounds nothing (extents leave it out, as ezdxf's do); renderers draw it
// across the view they draw ([XLine.Clip]).
type XLine struct {
	P, Dir geom.Vec
	Ray    bool
}

// Kind implements [Geometry].
func (g XLine) Kind() enginev1.EntityType {
	if g.Ray {
		return enginev1.EntityType_ENTITY_TYPE_RAY
	}
	return enginev1.EntityType_ENTITY_TYPE_XLINE
}

// Prims implements [Geometry]: none (it has no ends to draw between;
// see Clip).
func (XLine) Prims() []any { return nil }

// Bounds implements [Geometry]: empty.
func (XLine) Bounds() geom.Box { return geom.Box{} }

// Clip is the part of the line inside the box, if any.
func (g XLine) Clip(b geom.Box) (geom.Segment, bool) {
	return geom.ClipLine(g.P, g.Dir, g.Ray, b)
}

// Finite implements [Geometry].
func (g XLine) Finite() bool { return g.P.Finite() && g.Dir.Finite() }

// Transformed implements [Geometry].
func (g XLine) Transformed(x geom.Xform) Geometry {
	return XLine{P: x.Point(g.P), Dir: x.Linear(g.Dir).Unit(), Ray: g.Ray}
}

// encodeTo writes: x y dx dy (the same for both kinds).
func (g XLine) encodeTo(w *encoder) {
	w.vec(g.P)
	w.vec(g.Dir)
}

func decodeXLine(r *decoder, ray bool) XLine {
	p := r.vec()
	return XLine{P: p, Dir: r.vec(), Ray: ray}
}

func (g XLine) fill(w *wire) {
	w.pb.Start, w.pb.Direction = w.point(g.P), w.point(g.Dir)
}

// Affined implements [Geometry].
func (g XLine) Affined(m geom.Affine) Geometry {
	return XLine{P: m.Point(g.P), Dir: m.Linear(g.Dir).Unit(), Ray: g.Ray}
}
