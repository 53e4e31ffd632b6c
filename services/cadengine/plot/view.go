package plot

import (
	"errors"
	"image/color"
	"math"

	"github.com/tdewolff/canvas"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Sizes of a view's picture, in pixels.
const (
	// DefaultViewWidth is a view's width unless asked otherwise.
	DefaultViewWidth = 768
	// MaxViewSide is the most a view's width or height may be; more is
	// clamped to it.
	MaxViewSide = 2048
)

// viewMargin is the margin around a view of the extents, as a share of
// their larger side.
const viewMargin = 0.02

// highlightWeight is how much heavier a highlighted entity's strokes are.
const highlightWeight = 3

// HighlightColor is what highlighted entities are drawn in: orange, over
// everything else.
var HighlightColor = color.RGBA{R: 0xff, G: 0x80, B: 0x00, A: 0xff}

// ViewOptions say what a [View] shows.
type ViewOptions struct {
	// Layout is the paper-space layout shown; "" is model space.
	Layout string
	// Window is the part of the drawing shown; empty: the extents of
	// what is shown, with a small margin.
	Window geom.Box
	// Width and Height are the picture's size in pixels; 0 means
	// DefaultViewWidth for the width, and for the height what keeps the
	// window's proportions (a width of 0 with a height given, likewise).
	// Either is clamped to MaxViewSide.
	Width, Height int
	// Layers, when not nil, are the only layers shown, whether on or
	// not; nil: the layers that are on and thawed.
	Layers map[string]bool
	// Highlight are the handles of the entities drawn emphasised.
	Highlight map[uint64]bool
}

// ViewPicture is a view rendered.
type ViewPicture struct {
	PNG           []byte
	Width, Height int
	// Window is the part of the drawing shown: the one asked for, grown
	// about its centre to the picture's proportions.
	Window geom.Box
	// UnitsPerPixel is the scale, in document units per pixel.
	UnitsPerPixel float64
	// Entities counts the entities drawn; Highlighted those of them
	// highlighted.
	Entities, Highlighted int
	// Clamped says that a width or height asked for was more than
	// MaxViewSide.
	Clamped bool
}

// View draws a view of the document as a PNG with the renderer of [PNG]
// (lineweights as on paper at 96 dpi), expanding inserts within budget;
// rasterising stops when the budget's call ends. Highlighted entities
// are drawn last, in HighlightColor and heavier. A layout's view shows
// first what its viewports show of model space, as it is plotted (see
// RenderLayout; Layers and Highlight apply to the layout's own
// entities).
func View(d *drawing.Document, o ViewOptions, budget *drawing.Budget) (ViewPicture, error) {
	fams, err := families()
	if err != nil {
		return ViewPicture{}, err
	}
	shows := func(e *drawing.Entity) bool {
		if e.Layout != o.Layout {
			return false
		}
		if o.Layers != nil {
			return o.Layers[e.Layer]
		}
		l := d.Layer(e.Layer)
		return l != nil && l.On && !l.Frozen
	}
	var candidates []*drawing.Entity
	var ext geom.Box
	for _, e := range d.Entities() {
		if shows(e) {
			candidates = append(candidates, e)
			if !o.Window.NonEmpty {
				ext.AddBox(e.Geom.Bounds())
			}
		}
	}
	win := o.Window
	if !win.NonEmpty {
		win = withMargin(ext)
	}
	win = nonDegenerate(win)
	pic := ViewPicture{}
	pic.Width, pic.Height, pic.Clamped = viewSize(win, o.Width, o.Height)
	win = fitted(win, pic.Width, pic.Height)
	pic.Window = win
	pic.UnitsPerPixel = (win.Max.X - win.Min.X) / float64(pic.Width)

	var plain, lit []*drawing.Entity
	for _, e := range candidates {
		if !e.Geom.Bounds().Overlaps(win) {
			continue
		}
		if o.Highlight[e.Handle] {
			lit = append(lit, e)
		} else {
			plain = append(plain, e)
		}
	}
	pic.Entities, pic.Highlighted = len(plain)+len(lit), len(lit)
	if err := budget.Afford(drawing.CostOf(append(plain[:len(plain):len(plain)], lit...))); err != nil {
		return ViewPicture{}, err
	}

	// The picture is a sheet at 96 dpi whose paper is the window.
	res := canvas.DPI(defaultDPI)
	wmm, hmm := float64(pic.Width)/res.DPMM(), float64(pic.Height)/res.DPMM()
	sheet := drawing.Sheet{Width: wmm, Height: hmm, Factor: wmm / (win.Max.X - win.Min.X), Origin: win.Min, Fixed: true}
	c := newPage(wmm, hmm)
	ctx := canvas.NewContext(c)
	setup(ctx)
	if o.Layout != "" {
		// A layout's windows on model space first, as it is plotted.
		n, err := viewports(c, sheet, fams, d, o.Layout, win, budget)
		if err != nil {
			return ViewPicture{}, err
		}
		pic.Entities += n
	}
	p := &painter{ctx: ctx, sheet: sheet, fams: fams, d: d, budget: budget, paper: o.Layout != ""}
	if err := p.entities(plain); err != nil {
		return ViewPicture{}, err
	}
	hc := HighlightColor
	p.emphasis, p.weight = &hc, highlightWeight
	if err := p.entities(lit); err != nil {
		return ViewPicture{}, err
	}
	if pic.PNG, err = rasterize(c, res, pic.Width, pic.Height, budget); err != nil {
		return ViewPicture{}, err
	}
	return pic, nil
}

// viewports draws on c what the layout's viewports show of model space
// within win (see drawing.Document.PlotLayout), each clipped to its
// frame, and says how many entities that is. A layout the table does
// not have (only entities name it) has none.
func viewports(c *canvas.Canvas, sheet drawing.Sheet, fams []*canvas.FontFamily, d *drawing.Document, layout string, win geom.Box, budget *drawing.Budget) (int, error) {
	lp, err := d.PlotLayout(layout, budget)
	if errors.Is(err, drawing.ErrNoLayout) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, v := range lp.Views {
		if !v.Frame.Overlaps(win) {
			continue
		}
		vc := canvas.New(c.W, c.H)
		p := &painter{ctx: canvas.NewContext(vc), sheet: sheet, fams: fams, d: d, budget: budget, paper: true}
		setup(p.ctx)
		if err := p.entities(v.Entities); err != nil {
			return 0, err
		}
		vc.RenderTo(clipped{Renderer: c, frame: geom.Box{Min: sheet.Paper(v.Frame.Min), Max: sheet.Paper(v.Frame.Max), NonEmpty: true}, budget: budget})
		n += len(v.Entities)
	}
	return n, nil
}

// withMargin is b grown by viewMargin of its larger side on every side;
// a square of 100 units at the origin when b is empty.
func withMargin(b geom.Box) geom.Box {
	if !b.NonEmpty {
		return geom.Box{Min: geom.Pt(0, 0), Max: geom.Pt(100, 100), NonEmpty: true}
	}
	m := math.Max(b.Max.X-b.Min.X, b.Max.Y-b.Min.Y) * viewMargin
	return geom.Box{Min: b.Min.Sub(geom.Pt(m, m)), Max: b.Max.Add(geom.Pt(m, m)), NonEmpty: true}
}

// nonDegenerate is b with both sides longer than 0: a side of 0 takes
// the other's length (1 unit when both are 0), about the same centre.
func nonDegenerate(b geom.Box) geom.Box {
	w, h := b.Max.X-b.Min.X, b.Max.Y-b.Min.Y
	floor := 1e-9 * math.Max(1, math.Max(b.Min.Mag(), b.Max.Mag()))
	if w > floor && h > floor {
		return b
	}
	side := math.Max(math.Max(w, h), 1)
	return grown(b, math.Max(w, side), math.Max(h, side))
}

// grown is a box of w × h about b's centre.
func grown(b geom.Box, w, h float64) geom.Box {
	c := b.Min.Add(b.Max).Mul(0.5)
	half := geom.Pt(w/2, h/2)
	return geom.Box{Min: c.Sub(half), Max: c.Add(half), NonEmpty: true}
}

// viewSize is the picture's size for a window: the width asked for
// (DefaultViewWidth by default) and the height asked for, or the side
// not asked for from the window's proportions; each at most MaxViewSide
// (clamped reports a side asked for above it) and at least 1.
func viewSize(win geom.Box, width, height int) (w, h int, clamped bool) {
	if width > MaxViewSide {
		width, clamped = MaxViewSide, true
	}
	if height > MaxViewSide {
		height, clamped = MaxViewSide, true
	}
	aspect := (win.Max.Y - win.Min.Y) / (win.Max.X - win.Min.X) // height per width
	switch {
	case width > 0 && height > 0:
		w, h = width, height
	case height > 0:
		w, h = int(math.Round(float64(height)/aspect)), height
	default:
		if width <= 0 {
			width = DefaultViewWidth
		}
		w, h = width, int(math.Round(float64(width)*aspect))
	}
	return min(max(w, 1), MaxViewSide), min(max(h, 1), MaxViewSide), clamped
}

// fitted is win grown about its centre to the proportions of a picture
// of w × h pixels.
func fitted(win geom.Box, w, h int) geom.Box {
	ww, wh := win.Max.X-win.Min.X, win.Max.Y-win.Min.Y
	upp := math.Max(ww/float64(w), wh/float64(h)) // units per pixel
	return grown(win, upp*float64(w), upp*float64(h))
}
