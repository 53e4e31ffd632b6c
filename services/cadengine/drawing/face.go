package drawing

import (
	"math"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Face is a 3D face (DXF's 3DFACE) of three or four corners, in order
// round it, each at its elevation Z: drawn as its plan outline, without
// the edges Hidden marks (bit i for the edge from corner i to the next).
// A transform of the plan moves and turns the corners; a scale scales
// their elevations too.
type Face struct {
	P      []geom.Vec
	Z      []float64
	Hidden int32
}

// Kind implements [Geometry].
func (Face) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_FACE }

// Prims implements [Geometry]: the edges shown.
func (g Face) Prims() []any { return outline(g.P, ^g.Hidden) }

// Bounds implements [Geometry]: the corners' plan.
func (g Face) Bounds() geom.Box { return boxOf(g.P) }

// Finite implements [Geometry].
func (g Face) Finite() bool {
	for _, z := range g.Z {
		if !geom.IsFinite(z) {
			return false
		}
	}
	return allFinite(g.P)
}

// Transformed implements [Geometry].
func (g Face) Transformed(x geom.Xform) Geometry {
	out := Face{P: mapped(g.P, x), Z: make([]float64, len(g.Z)), Hidden: g.Hidden}
	for i, z := range g.Z {
		out.Z[i] = z * x.Scale
	}
	return out
}

// encodeTo writes: hidden (4 bytes), n (uvarint), n × (x y z).
func (g Face) encodeTo(w *encoder) {
	w.int32(g.Hidden)
	w.uvarint(uint64(len(g.P)))
	for i, p := range g.P {
		w.vec(p)
		w.float(g.Z[i])
	}
}

func decodeFace(r *decoder) Face {
	g := Face{Hidden: r.int32()}
	n := r.uvarint()
	if n < 3 || n > 4 {
		r.fail("corners")
		return g
	}
	g.P, g.Z = make([]geom.Vec, n), make([]float64, n)
	for i := range g.P {
		g.P[i] = r.vec()
		g.Z[i] = r.float()
	}
	return g
}

func (g Face) fill(w *wire) {
	w.pb.Corners, w.pb.Elevations = pbPoints(g.P), g.Z
	if g.Hidden != 0 {
		w.pb.HiddenEdges = &g.Hidden
	}
}

// Affined implements [Geometry]: the corners' plan mapped, their
// elevations scaled as areas are, by the square root of the map's
// determinant.
func (g Face) Affined(m geom.Affine) Geometry {
	out := Face{P: affined(g.P, m), Z: make([]float64, len(g.Z)), Hidden: g.Hidden}
	k := math.Sqrt(math.Abs(m.Det()))
	for i, z := range g.Z {
		out.Z[i] = z * k
	}
	return out
}
