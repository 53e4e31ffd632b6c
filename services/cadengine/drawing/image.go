package drawing

import (
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Raster is where a raster's pixels go, as DXF places an IMAGE or a
// WIPEOUT, and the part of it that shows.
type Raster struct {
	// P is the insertion point: the outer corner of the bottom-left
	// pixel.
	P geom.Vec
	// U and V are a pixel's bottom edge (along a row) and left edge (up
	// a column), in world units.
	U, V geom.Vec
	// Size is the raster's size in pixels: X across, Y up.
	Size geom.Vec
	// Clip is the boundary in pixels, as DXF has it: from the raster's
	// top-left corner, x along U, y against V, a pixel's centre at whole
	// numbers. Two points are a rectangle's opposite corners, more a
	// polygon; fewer, the whole raster.
	Clip []geom.Vec
}

// Boundary is the raster's boundary in world coordinates, in order round
// it, as ezdxf's ImageBase.boundary_path_wcs places it (without the first
// point repeated at the end).
func (r Raster) Boundary() []geom.Vec {
	path := r.Clip
	if len(path) < 2 {
		path = []geom.Vec{geom.Pt(-0.5, -0.5), geom.Pt(r.Size.X-0.5, r.Size.Y-0.5)}
	}
	if len(path) == 2 {
		p0, p1 := path[0], path[1]
		path = []geom.Vec{p0, geom.Pt(p1.X, p0.Y), p1, geom.Pt(p0.X, p1.Y)}
	}
	origin := r.P.Add(r.U.Mul(0.5)).Sub(r.V.Mul(0.5))
	out := make([]geom.Vec, len(path))
	for i, q := range path {
		out[i] = origin.Add(r.U.Mul(q.X)).Add(r.V.Mul(r.Size.Y - q.Y))
	}
	if n := len(out); n > 3 && out[n-1].Same(out[0]) {
		out = out[:n-1] // a polygon closed by its first point again
	}
	return out
}

// outline is the boundary's closed outline.
func (r Raster) outline() []any { return outline(r.Boundary(), ^0) }

// Finite reports whether every number of the raster is.
func (r Raster) Finite() bool {
	return r.P.Finite() && r.U.Finite() && r.V.Finite() && r.Size.Finite() && allFinite(r.Clip)
}

// Transformed is the raster moved, turned, scaled or mirrored: its
// pixels' edges are mapped; the boundary in pixels stays.
func (r Raster) Transformed(x geom.Xform) Raster {
	return Raster{P: x.Point(r.P), U: x.Linear(r.U), V: x.Linear(r.V), Size: r.Size, Clip: r.Clip}
}

// Affined is the raster under an affine map, exactly: its pixels become
// parallelograms.
func (r Raster) Affined(m geom.Affine) Raster {
	return Raster{P: m.Point(r.P), U: m.Linear(r.U), V: m.Linear(r.V), Size: r.Size, Clip: r.Clip}
}

// encodeTo writes: x y ux uy vx vy width height, n (uvarint), n × (x y)
// of the clip boundary.
func (r Raster) encodeTo(w *encoder) {
	w.vec(r.P)
	w.vec(r.U)
	w.vec(r.V)
	w.vec(r.Size)
	w.uvarint(uint64(len(r.Clip)))
	for _, q := range r.Clip {
		w.vec(q)
	}
}

func decodeRaster(r *decoder) Raster {
	g := Raster{P: r.vec(), U: r.vec(), V: r.vec(), Size: r.vec()}
	n := r.uvarint()
	if n > uint64(len(r.b)/16) {
		r.fail("clip boundary")
		return g
	}
	if n > 0 {
		g.Clip = make([]geom.Vec, n)
		for i := range g.Clip {
			g.Clip[i] = r.vec()
		}
	}
	return g
}

func (r Raster) fill(w *wire) {
	w.pb.Corners = pbPoints(r.Boundary())
	w.pb.Insertion, w.pb.PixelU, w.pb.PixelV, w.pb.ImageSize = pbPoint(r.P), pbPoint(r.U), pbPoint(r.V), pbPoint(r.Size)
	if len(r.Clip) > 0 {
		w.pb.ClipBoundary = pbPoints(r.Clip)
	}
}

// Image is a reference to a raster image (DXF's IMAGE): the picture in
// File, its pixels placed by Raster. The engine does not load the
// picture: it draws the boundary, as a CAD program draws an image whose
// file it cannot find.
type Image struct {
	Raster
	File string
}

// Kind implements [Geometry].
func (Image) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_IMAGE }

// Prims implements [Geometry]: the boundary.
func (g Image) Prims() []any { return g.outline() }

// Bounds implements [Geometry]: the boundary's box (ezdxf.bbox's).
func (g Image) Bounds() geom.Box { return boxOf(g.Boundary()) }

// Transformed implements [Geometry].
func (g Image) Transformed(x geom.Xform) Geometry {
	return Image{Raster: g.Raster.Transformed(x), File: g.File}
}

// Affined implements [Geometry].
func (g Image) Affined(m geom.Affine) Geometry {
	return Image{Raster: g.Raster.Affined(m), File: g.File}
}

// encodeTo writes: file (string), then the raster (see Raster.encodeTo).
func (g Image) encodeTo(w *encoder) {
	w.string(g.File)
	g.Raster.encodeTo(w)
}

func decodeImage(r *decoder) Image {
	f := r.string()
	return Image{File: f, Raster: decodeRaster(r)}
}

func (g Image) fill(w *wire) {
	g.Raster.fill(w)
	w.pb.FileName = new(g.File)
}
