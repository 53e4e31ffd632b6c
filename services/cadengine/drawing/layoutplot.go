package drawing

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// A layout plotted (DESIGN §12): its paper 1:1, its own entities as they
// are, and each viewport's window on model space carried onto the paper
// at the viewport's scale (see [ViewportSheet]), clipped to its frame by
// the renderer. Every backend (the SVG export, the PNG and PDF plots)
// draws from one [LayoutPlot], so they agree.

// plotCheckEvery is how many entities PlotLayout carries onto the paper
// between looks at the call's context.
const plotCheckEvery = 1024

// NoPlotLayer is the layer nothing on it is plotted from, as in AutoCAD
// (its definition points layer): a viewport put on it plots without its
// frame.
const NoPlotLayer = "Defpoints"

// ErrNoLayout is a layout the document does not have.
var ErrNoLayout = errors.New("the document has no layout")

// LayoutNames says which layouts the document has, for a message: "its
// layouts are A3, Detail" or "it has none".
func (d *Document) LayoutNames() string {
	var names []string
	if t := d.Layouts(); t != nil {
		for _, x := range t.List {
			names = append(names, x.Name)
		}
	}
	if len(names) == 0 {
		return "it has none"
	}
	return "its layouts are " + strings.Join(names, ", ")
}

// LayoutPlot is what a layout plots, in paper millimetres (x right, y
// up from the paper's lower-left corner).
type LayoutPlot struct {
	Layout Layout
	// Views are the windows on model space, in the layout's order: what
	// each shows is drawn first, clipped to its frame.
	Views []ViewPlot
	// Paper are the layout's own entities shown, drawn over the views:
	// the viewports' frames among them (see [Viewport.Picture]).
	Paper []*Entity
}

// ViewPlot is one viewport's window on model space.
type ViewPlot struct {
	Handle uint64
	// Frame is the window on the paper, what its contents are clipped
	// to.
	Frame geom.Box
	// Sheet maps model space to the paper (see [ViewportSheet]).
	Sheet Sheet
	// Entities are the model-space entities it shows, carried onto the
	// paper by Sheet, in drawing order; only those that reach the frame.
	Entities []*Entity
}

// Cost is the cost of drawing the plot (see [CostOf]).
func (p LayoutPlot) Cost() int64 {
	n := CostOf(p.Paper)
	for _, v := range p.Views {
		n = addSat(n, CostOf(v.Entities))
	}
	return n
}

// plotted reports whether an entity on layer l plots: a layer the
// document has, on, thawed, and not the no-plot layer.
func plotted(l *Layer) bool {
	return l != nil && l.On && !l.Frozen && !strings.EqualFold(l.Name, NoPlotLayer)
}

// PlotLayout is what the layout named name (ignoring case) plots: model
// space through each viewport that is on (id 2 and up, status above 0,
// with a scale), less the layers the viewport freezes, and the layout's
// own entities; entities on layers that are off, frozen or
// [NoPlotLayer] are left out everywhere. A layout the document does not
// have fails with [ErrNoLayout]. The plot's cost is afforded from budget
// (nil: no limit).
func (d *Document) PlotLayout(name string, budget *Budget) (LayoutPlot, error) {
	l, ok := d.Layout(name)
	if !ok {
		return LayoutPlot{}, fmt.Errorf("%w %q (%s)", ErrNoLayout, name, d.LayoutNames())
	}
	out := LayoutPlot{Layout: l}
	var model []*Entity
	for _, e := range d.Entities() {
		switch {
		case !plotted(d.Layer(e.Layer)):
		case e.Layout == "":
			model = append(model, e)
		case strings.EqualFold(e.Layout, l.Name):
			out.Paper = append(out.Paper, e)
			if v, ok := e.Geom.(Viewport); ok && !v.Paper() && v.Status > 0 && v.Scale() > 0 {
				out.Views = append(out.Views, ViewPlot{Handle: e.Handle, Frame: v.Bounds(), Sheet: ViewportSheet(v)})
			}
		}
	}
	// What each window shows, chosen by bounds, then afforded, then
	// carried onto the paper.
	for i := range out.Views {
		vp := &out.Views[i]
		var frozen []string
		for _, e := range out.Paper {
			if e.Handle == vp.Handle {
				frozen = e.Geom.(Viewport).Frozen
			}
		}
		for _, e := range model {
			if slices.ContainsFunc(frozen, func(f string) bool { return strings.EqualFold(f, e.Layer) }) {
				continue
			}
			b := e.Geom.Bounds()
			if b.NonEmpty && !(geom.Box{Min: vp.Sheet.Paper(b.Min), Max: vp.Sheet.Paper(b.Max), NonEmpty: true}).Overlaps(vp.Frame) {
				continue // nowhere near the window (an unbounded one, a construction line, is kept)
			}
			vp.Entities = append(vp.Entities, e)
		}
	}
	if err := budget.Afford(out.Cost()); err != nil {
		return LayoutPlot{}, err
	}
	n := 0
	for i := range out.Views {
		vp := &out.Views[i]
		x := vp.Sheet.Xform()
		for j, e := range vp.Entities {
			if n++; n%plotCheckEvery == 0 {
				if err := budget.Err(); err != nil {
					return LayoutPlot{}, err
				}
			}
			c := *e
			c.Geom = onPaper(e.Geom, x)
			vp.Entities[j] = &c
		}
	}
	return out, nil
}

// onPaper is model geometry g carried onto the paper by x. A dimension
// is carried as it is drawn in model space, so that it shows what it
// measures there, not its length on the paper.
func onPaper(g Geometry, x geom.Xform) Geometry {
	if d, ok := g.(Dimension); ok && d.Drawn == nil {
		d.Drawn = new(d.Picture())
		g = d
	}
	return g.Transformed(x)
}

// PaperPatternUnit is the length on paper, in millimetres, of one unit
// of the document's linetype patterns: acad.lin's inch for a drawing in
// inches or feet, else acadiso.lin's millimetre (see [Document.Linetype]).
func (d *Document) PaperPatternUnit() float64 {
	if d.Units == enginev1.Units_UNITS_IN || d.Units == enginev1.Units_UNITS_FT {
		return 25.4
	}
	return 1
}

// DashedOnPaper is [Document.Dashed] for an entity already on the paper
// (a layout's own, or model space carried there by a viewport): its
// pattern is laid out in paper millimetres, each length the linetype's
// times the linetype scales (see [Document.Pattern]) whatever the
// viewport's scale, as AutoCAD plots with PSLTSCALE 1.
func (d *Document) DashedOnPaper(e *Entity, finest float64, budget *Budget) (Picture, bool, error) {
	return d.dashedBy(e, d.PaperPatternUnit(), finest, budget)
}
