package dxf

import (
	"path"
	"strconv"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// IMAGE, read into a native drawing.Image and written back as one, with
// the objects it needs in 2018: an IMAGEDEF per file (in the dictionary
// ACAD_IMAGE_DICT), an IMAGEDEF_REACTOR per image, and RASTERVARIABLES.
// Its file name is its IMAGEDEF's (code 1), which the OBJECTS section
// says after the entities (see File.resolveObjects). R12 has no IMAGE:
// its writer draws the boundary as a closed polyline.

// raster reads what an IMAGE and a WIPEOUT share: insertion point 10, a
// pixel's vectors 11 and 12, the size in pixels 13/23, and the boundary
// in pixels 14/24 (fewer than two points: the whole raster, as ezdxf
// reads it; a polygon closed as ezdxf and AutoCAD close it). One whose
// pixels leave the plan is kept out.
func (r dxfRecord) raster() (drawing.Raster, string, error) {
	v, err := r.values(31, 32)
	if err != nil {
		return drawing.Raster{}, "", err
	}
	if v[31] != 0 || v[32] != 0 {
		return drawing.Raster{}, "3D (its pixels leave the plan)", nil
	}
	g, err := r.rasterPlan()
	return g, "", err
}

// rasterPlan is raster's reading of the codes in plan, z left out.
func (r dxfRecord) rasterPlan() (drawing.Raster, error) {
	v, err := r.values(10, 20, 11, 21, 12, 22, 13, 23)
	if err != nil {
		return drawing.Raster{}, err
	}
	g := drawing.Raster{P: geom.Pt(v[10], v[20]), U: geom.Pt(v[11], v[21]), V: geom.Pt(v[12], v[22]), Size: geom.Pt(v[13], v[23])}
	for i, p := range r.pairs {
		if p.code == 14 {
			q := pairPoint(r.pairs, i)
			g.Clip = append(g.Clip, geom.Pt(q[0], q[1]))
		}
	}
	switch n := len(g.Clip); {
	case n < 2:
		g.Clip = []geom.Vec{geom.Pt(-0.5, -0.5), geom.Pt(g.Size.X-0.5, g.Size.Y-0.5)}
	case n > 2 && g.Clip[n-1] != g.Clip[0]:
		g.Clip = append(g.Clip, g.Clip[0])
	}
	return g, nil
}

// image reads an IMAGE; its file name comes later, from its IMAGEDEF.
func (r dxfRecord) image() (drawing.Geometry, string, error) {
	g, why, err := r.raster()
	if err != nil || why != "" {
		return nil, why, err
	}
	return drawing.Image{Raster: g}, "", nil
}

// imageDefOf is the handle of the IMAGEDEF an IMAGE names (340), as the
// OBJECTS section's handles are kept.
func imageDefOf(r dxfRecord) string {
	for _, p := range r.pairs {
		if p.code == 340 {
			return objectHandle(p.value)
		}
	}
	return ""
}

// objectHandle is a handle as the reader keys objects by: upper case,
// without spaces.
func objectHandle(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }

// image writes an IMAGE: in 2018 with its IMAGEDEF (one per file name)
// and its own IMAGEDEF_REACTOR, which objects writes; in R12, which has
// no IMAGE, its boundary as a closed polyline.
func (w *dxfWriter) image(e *drawing.Entity, g drawing.Image) {
	if !w.v2018 {
		w.polyline(e, vertices(g.Boundary()), nil, true)
		return
	}
	def := w.imageDef(g)
	reactor := w.handle()
	w.reactors = append(w.reactors, imageReactor{handle: reactor, image: e.Handle, def: def.handle})
	def.reactors = append(def.reactors, reactor)
	w.common("IMAGE", e.Handle, e)
	w.sub("AcDbRasterImage")
	w.raster(g.Raster, def.handle, reactor)
}

// vertices are points as the vertices of a polyline without bulges.
func vertices(p []geom.Vec) []geom.Vertex {
	out := make([]geom.Vertex, len(p))
	for i, q := range p {
		out[i] = geom.Vertex{P: q}
	}
	return out
}

// raster writes the codes an IMAGE and a WIPEOUT share, after their
// subclass marker: the pixels' placement, the definition and reactor
// (0 for a wipeout, which has neither), the display flags (shown, and
// clipped by its boundary), and the boundary.
func (w *dxfWriter) raster(g drawing.Raster, def, reactor uint64) {
	w.int(90, 0)
	w.Point(10, g.P)
	w.Point(11, g.U)
	w.Point(12, g.V)
	w.float(13, g.Size.X)
	w.float(23, g.Size.Y)
	w.pairHandle(340, def)
	w.int(70, 7)
	w.int(280, 1)
	w.int(281, 50)
	w.int(282, 50)
	w.int(283, 0)
	w.pairHandle(360, reactor)
	clip := g.Clip
	if len(clip) < 2 {
		clip = []geom.Vec{geom.Pt(-0.5, -0.5), geom.Pt(g.Size.X-0.5, g.Size.Y-0.5)}
	}
	if len(clip) == 2 {
		w.int(71, 1) // a rectangle
	} else {
		w.int(71, 2) // a polygon
	}
	w.int(91, len(clip))
	for _, q := range clip {
		w.float(14, q.X)
		w.float(24, q.Y)
	}
	w.int(290, 0)
}

// outImageDef is an IMAGEDEF the writer writes: its handle, its file and
// size, and the reactors of the images that use it.
type outImageDef struct {
	handle   uint64
	file     string
	size     geom.Vec
	reactors []uint64
}

// imageReactor is an IMAGEDEF_REACTOR the writer writes: its handle, its
// image's and that image's definition's.
type imageReactor struct {
	handle, image, def uint64
}

// imageDef is the definition the writer writes for the image's file,
// made at its first image.
func (w *dxfWriter) imageDef(g drawing.Image) *outImageDef {
	for _, d := range w.imageDefs {
		if d.file == g.File {
			return d
		}
	}
	d := &outImageDef{handle: w.handle(), file: g.File, size: g.Size}
	w.imageDefs = append(w.imageDefs, d)
	return d
}

// imageObjects writes the objects the images written need: the
// dictionary of their definitions (handle dict, in the root dictionary as
// ACAD_IMAGE_DICT), the definitions, the reactors and RASTERVARIABLES
// (handle vars, ACAD_IMAGE_VARS).
func (w *dxfWriter) imageObjects(dict, vars uint64) {
	w.pair(0, "DICTIONARY")
	w.pairHandle(5, dict)
	w.pairHandle(330, hRootDict)
	w.pair(100, "AcDbDictionary")
	w.int(281, 1)
	used := map[string]bool{}
	for _, d := range w.imageDefs {
		w.pair(3, imageName(d.file, used))
		w.pairHandle(350, d.handle)
	}
	for _, d := range w.imageDefs {
		w.pair(0, "IMAGEDEF")
		w.pairHandle(5, d.handle)
		w.pair(102, "{ACAD_REACTORS")
		w.pairHandle(330, dict)
		for _, r := range d.reactors {
			w.pairHandle(330, r)
		}
		w.pair(102, "}")
		w.pairHandle(330, dict)
		w.pair(100, "AcDbRasterImageDef")
		w.int(90, 0)
		w.pair(1, d.file)
		w.float(10, d.size.X)
		w.float(20, d.size.Y)
		w.float(11, 1)
		w.float(21, 1)
		w.int(280, 1)
		w.int(281, 0)
	}
	for _, r := range w.reactors {
		w.pair(0, "IMAGEDEF_REACTOR")
		w.pairHandle(5, r.handle)
		w.pairHandle(330, r.image)
		w.pair(100, "AcDbRasterImageDefReactor")
		w.int(90, 2)
		w.pairHandle(330, r.image)
	}
	w.pair(0, "RASTERVARIABLES")
	w.pairHandle(5, vars)
	w.pairHandle(330, hRootDict)
	w.pair(100, "AcDbRasterVariables")
	w.int(90, 0)
	w.int(70, 0)
	w.int(71, 1)
	w.int(72, 3)
}

// imageName is the name a file's definition has in ACAD_IMAGE_DICT: its
// base name without extension (as AutoCAD names images), made unique
// among those used with a number.
func imageName(file string, used map[string]bool) string {
	base := path.Base(strings.ReplaceAll(file, `\`, "/"))
	base = strings.TrimSuffix(base, path.Ext(base))
	if base == "" || base == "." || base == "/" {
		base = "image"
	}
	name := base
	for i := 2; used[strings.ToUpper(name)]; i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	used[strings.ToUpper(name)] = true
	return name
}
