package drawing

import (
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Wipeout is an area that hides what is drawn before it (DXF's
// WIPEOUT): its boundary, placed as an image's is (Raster), drawn filled
// in the page's colour and without a frame, as ezdxf's drawing add-on
// draws it. Frame is the drawing's setting of wipeout frames (DXF's
// WIPEOUTVARIABLES, one for a whole file), kept by each wipeout so that
// it is written back.
type Wipeout struct {
	Raster
	Frame bool
}

// NewWipeout is a wipeout of the polygon p (at least three corners), as
// ezdxf's Wipeout.set_masking_area places one: one pixel the size of the
// polygon's box, its boundary in that pixel's coordinates, closed by its
// first point again.
func NewWipeout(p []geom.Vec) Wipeout {
	b := boxOf(p)
	size := b.Max.Sub(b.Min)
	w, h := size.X, size.Y
	if w == 0 {
		w = 1
	}
	if h == 0 {
		h = 1
	}
	g := Wipeout{Raster: Raster{P: b.Min, U: geom.Pt(size.X, 0), V: geom.Pt(0, size.Y), Size: geom.Pt(1, 1)}}
	for _, q := range p {
		d := q.Sub(b.Min)
		g.Clip = append(g.Clip, geom.Pt(d.X/w-0.5, 0.5-d.Y/h))
	}
	if n := len(g.Clip); n > 2 && g.Clip[n-1] != g.Clip[0] {
		g.Clip = append(g.Clip, g.Clip[0]) // closed, as AutoCAD needs
	}
	return g
}

// Kind implements [Geometry].
func (Wipeout) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_WIPEOUT }

// Prims implements [Geometry]: the boundary (for snaps, selection and
// intersections; it is not drawn, see Picture).
func (g Wipeout) Prims() []any { return g.outline() }

// Picture implements [Pictured]: the area masked, no strokes.
func (g Wipeout) Picture() Picture { return Picture{Masks: [][]geom.Vec{g.Boundary()}} }

// Bounds implements [Geometry]: the boundary's box (ezdxf.bbox's).
func (g Wipeout) Bounds() geom.Box { return boxOf(g.Boundary()) }

// Transformed implements [Geometry].
func (g Wipeout) Transformed(x geom.Xform) Geometry {
	return Wipeout{Raster: g.Raster.Transformed(x), Frame: g.Frame}
}

// Affined implements [Geometry].
func (g Wipeout) Affined(m geom.Affine) Geometry {
	return Wipeout{Raster: g.Raster.Affined(m), Frame: g.Frame}
}

// encodeTo writes: frame (byte), then the raster (see Raster.encodeTo).
func (g Wipeout) encodeTo(w *encoder) {
	w.bool(g.Frame)
	g.Raster.encodeTo(w)
}

func decodeWipeout(r *decoder) Wipeout {
	frame := r.byte() == 1
	return Wipeout{Frame: frame, Raster: decodeRaster(r)}
}

func (g Wipeout) fill(w *wire) {
	g.Raster.fill(w)
	if g.Frame {
		w.pb.WipeoutFrame = new(true)
	}
}
