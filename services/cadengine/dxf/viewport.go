package dxf

import (
	"math"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// VIEWPORT, read into a native drawing.Viewport on its layout and
// written back as one (R12 with its view in its ACAD MVIEW extended
// data, as R12 has it).

// viewport reads a paper-space VIEWPORT: its centre 10, size 40 × 41,
// status 68, id 69, view centre 12 and height 45, status flags 90 (the
// lock bit among them), frozen layers 331 (handles of LAYER entries);
// R12 has the view and the frozen layers (1003) in its ACAD MVIEW
// extended data. One in model space or a block is kept as the file had
// it.
func (r dxfRecord) viewport(c dxfCommon, f *File) (drawing.Geometry, string, error) {
	if f.inBlock != "" || !(c.paper || f.layout != "") {
		return nil, "a viewport outside a paper-space layout", nil
	}
	v, err := r.values(10, 20, 40, 41, 68, 69, 12, 22, 45, 51, 16, 26, 36)
	if err != nil {
		return nil, "", err
	}
	// The plan: a view direction along +Z (as a length, not a unit
	// vector: AutoCAD writes the distance to the target), untwisted.
	if plan := !r.has(16) || math.Abs(v[16]) <= 1e-9*v[36] && math.Abs(v[26]) <= 1e-9*v[36]; !plan || v[51] != 0 {
		return nil, "a view that is not the plan or is twisted", nil
	}
	g := drawing.Viewport{C: geom.Pt(v[10], v[20]), W: v[40], H: v[41], Status: int32(v[68]), ID: int32(v[69]), View: geom.Pt(v[12], v[22]), ViewHeight: v[45]}
	mview, xdata := false, false
	var reals []float64
	for _, p := range r.pairs {
		switch {
		case p.code == 90:
			n, err := p.int()
			if err != nil {
				return nil, "", err
			}
			g.Flags = int32(n) &^ drawing.ViewportLocked
			g.Locked = n&drawing.ViewportLocked != 0
		case p.code == 331 && !xdata:
			if name, ok := f.layerNamed(p.word()); ok {
				g.Frozen = append(g.Frozen, name)
			}
		case p.code == 1001:
			xdata = true
			mview = false
		case p.code == 1000 && strings.EqualFold(p.word(), "MVIEW"):
			mview = true
		case mview && p.code == 1040:
			x, err := p.float()
			if err != nil {
				return nil, "", err
			}
			reals = append(reals, x)
		case mview && p.code == 1003:
			g.Frozen = append(g.Frozen, f.holdable(decodeName(p.value), p.line))
		}
	}
	// R12's MVIEW data: twist, view height, view centre x and y, …
	if !r.has(45) && len(reals) >= 4 {
		if reals[0] != 0 {
			return nil, "a view that is twisted", nil
		}
		g.ViewHeight, g.View = reals[1], geom.Pt(reals[2], reals[3])
	}
	if !(g.W > 0 && g.H > 0) {
		return nil, "degenerate (no size)", nil
	}
	return g, "", nil
}

// layerNamed is the name of the layer whose LAYER entry has the handle
// h, as the engine holds it.
func (f *File) layerNamed(h string) (string, bool) {
	h = strings.ToUpper(h)
	for _, l := range f.layers {
		if l.handle == h {
			return f.holdable(l.name, l.line), true
		}
	}
	return "", false
}

// viewport writes a VIEWPORT on the layout, its frozen layers those of
// the document it names (2018; R12 names them all, in its MVIEW data,
// and has no lock).
func (w *dxfWriter) viewport(e *drawing.Entity, g drawing.Viewport) {
	if !w.v2018 {
		w.viewportR12(e, g)
		return
	}
	w.common("VIEWPORT", e.Handle, e)
	w.sub("AcDbViewport")
	w.Point(10, g.C)
	w.float(40, g.W)
	w.float(41, g.H)
	w.int(68, int(g.Status))
	w.int(69, int(g.ID))
	w.Point(12, g.View)
	w.Point(13, geom.Vec{})
	w.Point(14, geom.Pt(10, 10))
	w.Point(15, geom.Pt(10, 10))
	w.float(16, 0)
	w.float(26, 0)
	w.float(36, 1)
	w.float(17, 0)
	w.float(27, 0)
	w.float(37, 0)
	w.float(42, 50)
	w.float(43, 0)
	w.float(44, 0)
	w.float(45, g.ViewHeight)
	w.float(50, 0)
	w.float(51, 0)
	w.int(72, 1000)
	for _, l := range g.Frozen {
		if h, ok := w.layerHandles[l]; ok {
			w.pairHandle(331, h)
		}
	}
	flags := g.Flags
	if g.Locked {
		flags |= drawing.ViewportLocked
	}
	w.int(90, int(flags))
	w.pair(1, "")
	w.int(281, 0)
	w.int(71, 1)
	w.int(74, 0)
	w.Point(110, geom.Vec{})
	w.Point(111, geom.Pt(1, 0))
	w.Point(112, geom.Pt(0, 1))
	w.int(79, 0)
	w.float(146, 0)
	w.int(170, 0)
}

// viewportR12 writes an R12 VIEWPORT: its frame, status and id, its view
// in its ACAD MVIEW extended data (as ezdxf writes it: version 16,
// target, direction, twist, view height, view centre, lens, clip planes,
// modes, snap and grid, then the frozen layers' names).
func (w *dxfWriter) viewportR12(e *drawing.Entity, g drawing.Viewport) {
	w.common("VIEWPORT", e.Handle, e)
	w.Point(10, g.C)
	w.float(40, g.W)
	w.float(41, g.H)
	w.int(68, int(g.Status))
	w.int(69, int(g.ID))
	w.pair(1001, "ACAD")
	w.pair(1000, "MVIEW")
	w.pair(1002, "{")
	w.int(1070, 16)
	w.Point(1010, geom.Vec{})
	w.float(1010, 0)
	w.float(1020, 0)
	w.float(1030, 1)
	for _, v := range []float64{0, g.ViewHeight, g.View.X, g.View.Y, 50, 0, 0} {
		w.float(1040, v)
	}
	for _, v := range []int{0, 1000, 1, 0, 0, 0, 0, 0} {
		w.int(1070, v)
	}
	for _, v := range []float64{0, 0, 0, 10, 10, 10, 10} {
		w.float(1040, v)
	}
	w.int(1070, 0)
	w.pair(1002, "{")
	for _, l := range g.Frozen {
		w.pair(1003, l)
	}
	w.pair(1002, "}")
	w.pair(1002, "}")
}
