package drawing

import (
	"math"
	"slices"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Viewport is a window on a paper-space layout (DXF's VIEWPORT): a
// rectangle W wide and H tall about C on the paper, showing model space
// about the model point View, ViewHeight model units tall (so at the
// scale H / ViewHeight). ID is its number in the layout: 1 is the
// layout's own view of the paper (what a CAD program shows of the
// sheet), not a window, and is not drawn; Status 0 is off (not drawn),
// -1 on but off screen. Frozen are the layers it does not show; Locked
// keeps its view (no zoom or pan changes its scale). Flags are its DXF
// status flags (code 90) but the lock bit, as read, written back.
//
// It lives on a layout (its entity's Layout): it is drawn as its frame
// there, never in model space.
type Viewport struct {
	C          geom.Vec
	W, H       float64
	View       geom.Vec
	ViewHeight float64
	ID         int32
	Status     int32
	Frozen     []string
	Locked     bool
	Flags      int32
}

// ViewportLocked is the bit of a VIEWPORT's status flags (DXF code 90)
// that locks its view.
const ViewportLocked = 1 << 14

// NewViewport makes a window on a layout: x, y the lower-left corner of
// its frame on the paper, w, h its size, view the model point at its
// centre and scale the paper units per model unit (2 for 2:1, 0.02 for
// 1:50). The id is the layout's next (see [NextViewportID]).
func NewViewport(x, y, w, h float64, view geom.Vec, scale float64, id int32) Viewport {
	return Viewport{C: geom.Pt(x+w/2, y+h/2), W: w, H: h, View: view, ViewHeight: h / scale, ID: id, Status: 1}
}

// NextViewportID is the id a new window on a layout takes: one more
// than the largest of those there, and at least 2 (1 is the layout's
// own view).
func NextViewportID(es []*Entity, layout string) int32 {
	id := int32(1)
	for _, e := range es {
		if v, ok := e.Geom.(Viewport); ok && e.Layout == layout {
			id = max(id, v.ID)
		}
	}
	return id + 1
}

// Kind implements [Geometry].
func (Viewport) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_VIEWPORT }

// Paper reports whether the viewport is the layout's own view of the
// paper (id 1), not a window on model space.
func (g Viewport) Paper() bool { return g.ID == 1 }

// Scale is the paper units per model unit (0 when the view has no
// height).
func (g Viewport) Scale() float64 {
	if !(g.ViewHeight > 0) {
		return 0
	}
	return g.H / g.ViewHeight
}

// corners are the frame's corners, counter-clockwise from the lower
// left.
func (g Viewport) corners() []geom.Vec {
	w, h := g.W/2, g.H/2
	return []geom.Vec{g.C.Add(geom.Pt(-w, -h)), g.C.Add(geom.Pt(w, -h)), g.C.Add(geom.Pt(w, h)), g.C.Add(geom.Pt(-w, h))}
}

// Prims implements [Geometry]: its frame.
func (g Viewport) Prims() []any { return outline(g.corners(), ^0) }

// Picture implements [Pictured]: its frame, as ezdxf draws it; nothing
// for the layout's own view (id 1) or one that is off (status 0 or
// below), which ezdxf does not draw either.
func (g Viewport) Picture() Picture {
	if g.ID < 2 || g.Status < 1 {
		return Picture{}
	}
	return Picture{Strokes: g.Prims()}
}

// Bounds implements [Geometry]: its frame on the paper.
func (g Viewport) Bounds() geom.Box { return boxOf(g.corners()) }

// Finite implements [Geometry].
func (g Viewport) Finite() bool {
	return g.C.Finite() && g.View.Finite() && geom.IsFinite(g.W) && geom.IsFinite(g.H) && geom.IsFinite(g.ViewHeight)
}

// Transformed implements [Geometry]: the frame's centre mapped and its
// size scaled (a frame stays upright: a turn moves it, as AutoCAD turns
// a viewport, and a quarter turn swaps its sides); its view is kept at
// its scale, so it shows as much more of the model as it grew.
func (g Viewport) Transformed(x geom.Xform) Geometry {
	out := g
	out.C = x.Point(g.C)
	out.W, out.H, out.ViewHeight = g.W*x.Scale, g.H*x.Scale, g.ViewHeight*x.Scale
	if _, _, a, _ := x.Parts(); math.Abs(math.Mod(math.Abs(a), 180)-90) < 45 {
		out.W, out.H = out.H, out.W
		if s := g.Scale(); s > 0 {
			out.ViewHeight = out.H / s
		}
	}
	out.Frozen = slices.Clone(g.Frozen)
	return out
}

// Affined implements [Geometry]: as the nearest similarity at its
// centre.
func (g Viewport) Affined(m geom.Affine) Geometry { return g.Transformed(m.Nearest(g.C)) }

// encodeTo writes: c, w, h, view, view height, id, status, flags (each
// as a float), locked (byte), n (uvarint) and n frozen layer names.
func (g Viewport) encodeTo(w *encoder) {
	w.vec(g.C)
	w.float(g.W)
	w.float(g.H)
	w.vec(g.View)
	w.float(g.ViewHeight)
	w.float(float64(g.ID))
	w.float(float64(g.Status))
	w.float(float64(g.Flags))
	w.bool(g.Locked)
	w.uvarint(uint64(len(g.Frozen)))
	for _, l := range g.Frozen {
		w.string(l)
	}
}

func decodeViewport(r *decoder) Viewport {
	g := Viewport{C: r.vec(), W: r.float(), H: r.float(), View: r.vec(), ViewHeight: r.float()}
	g.ID, g.Status, g.Flags = int32(r.float()), int32(r.float()), int32(r.float())
	g.Locked = r.byte() == 1
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail("viewport")
		return g
	}
	for range n {
		g.Frozen = append(g.Frozen, r.string())
	}
	return g
}

func (g Viewport) fill(w *wire) {
	pb := &w.pb
	pb.Center, pb.ViewCenter = w.point(g.C), w.point(g.View)
	pb.Width, pb.Height, pb.ViewHeight, pb.Scale = w.num(g.W), w.num(g.H), w.num(g.ViewHeight), w.num(g.Scale())
	pb.ViewportId, pb.ViewportStatus, pb.Locked = new(g.ID), new(g.Status), new(g.Locked)
	pb.FrozenLayers = slices.Clone(g.Frozen)
}
