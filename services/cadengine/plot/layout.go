package plot

import (
	"bytes"
	"fmt"
	"image"
	"math"

	"github.com/tdewolff/canvas"
	"github.com/tdewolff/canvas/renderers/pdf"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// LayoutDPI is a layout's PNG resolution unless asked otherwise: a sheet
// is plotted to be read, an A3 at 150 dpi is 2480 × 1754 pixels.
const LayoutDPI = 150

// RenderLayout plots the layout named name 1:1 on a canvas the size of
// its paper, in millimetres (see drawing.Document.PlotLayout): each
// viewport's window on model space clipped to its frame (see clipped),
// then the layout's own entities over them; linetypes laid out on paper
// (see drawing.Document.DashedOnPaper). A layout the document does not
// have fails with drawing.ErrNoLayout.
func RenderLayout(d *drawing.Document, name string, budget *drawing.Budget) (*canvas.Canvas, drawing.LayoutPlot, error) {
	fams, err := families()
	if err != nil {
		return nil, drawing.LayoutPlot{}, err
	}
	lp, err := d.PlotLayout(name, budget)
	if err != nil {
		return nil, drawing.LayoutPlot{}, err
	}
	w, h := lp.Layout.Width, lp.Layout.Height
	paper := drawing.Sheet{Width: w, Height: h, Factor: 1, Fixed: true}
	c := newPage(w, h)
	for _, v := range lp.Views {
		// Each window is drawn on a canvas of its own, then copied onto
		// the page through the clip of its frame.
		vc := canvas.New(w, h) // no page colour: the window is drawn over the page
		p := &painter{ctx: canvas.NewContext(vc), sheet: paper, fams: fams, d: d, budget: budget, paper: true}
		setup(p.ctx)
		if err := p.entities(v.Entities); err != nil {
			return nil, drawing.LayoutPlot{}, err
		}
		vc.RenderTo(clipped{Renderer: c, frame: v.Frame, budget: budget})
	}
	p := &painter{ctx: canvas.NewContext(c), sheet: paper, fams: fams, d: d, budget: budget, paper: true}
	setup(p.ctx)
	if err := p.entities(lp.Paper); err != nil {
		return nil, drawing.LayoutPlot{}, err
	}
	if err := budget.Err(); err != nil { // the windows were cut short
		return nil, drawing.LayoutPlot{}, err
	}
	return c, lp, nil
}

// newPage is a canvas of w × h millimetres filled with the page's colour.
func newPage(w, h float64) *canvas.Canvas {
	c := canvas.New(w, h)
	ctx := canvas.NewContext(c)
	ctx.SetFillColor(pageColor)
	ctx.DrawPath(0, 0, canvas.Rectangle(w, h))
	return c
}

// setup gives a context the strokes and fills entities are drawn with.
func setup(ctx *canvas.Context) {
	ctx.SetStrokeCapper(canvas.RoundCap)
	ctx.SetStrokeJoiner(canvas.RoundJoin)
	ctx.SetFillRule(canvas.EvenOdd)
}

// LayoutPNG is the layout plotted as a PNG at opts' resolution
// (LayoutDPI by default), within budget.
func LayoutPNG(d *drawing.Document, name string, opts *enginev1.ExportOptions, budget *drawing.Budget) ([]byte, error) {
	c, _, err := RenderLayout(d, name, budget)
	if err != nil {
		return nil, err
	}
	dpi := float64(LayoutDPI)
	if opts.GetDpi() > 0 {
		dpi = float64(opts.GetDpi())
	}
	res := canvas.DPI(dpi)
	w, h := math.Round(c.W*res.DPMM()), math.Round(c.H*res.DPMM())
	if !(w*h <= maxPixels) || w < 1 || h < 1 {
		return nil, fmt.Errorf("%w: the picture would be %.0f × %.0f pixels; at most %d in all (choose a lower dpi)", ErrTooManyPixels, w, h, maxPixels)
	}
	return rasterize(c, res, int(w), int(h), budget)
}

// LayoutPDF is the layout plotted as a one-page PDF the size of its
// paper (an A3 landscape page is 1190.55 × 841.89 points).
func LayoutPDF(d *drawing.Document, name string, budget *drawing.Budget) ([]byte, error) {
	c, lp, err := RenderLayout(d, name, budget)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	w := pdf.New(&b, lp.Layout.Width, lp.Layout.Height, nil)
	c.RenderTo(w)
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("write pdf: %w", err)
	}
	return b.Bytes(), nil
}

// clipped is a renderer that draws only what lies inside a frame (a
// viewport's, in the canvas's millimetres), for the PDF's vectors and the
// PNG's pixels alike: a path wholly inside passes as it is, one wholly
// outside is dropped, and one across the frame's edge is cut by it
// exactly (its stroke turned into the outline it paints, then
// intersected with the frame, as is its fill); text across the edge is
// cut as the outlines of its glyphs. It stops once the budget's call has
// ended (cutting can take long).
type clipped struct {
	canvas.Renderer
	frame  geom.Box
	budget *drawing.Budget
}

func (r clipped) rect() canvas.Rect {
	return canvas.Rect{X0: r.frame.Min.X, Y0: r.frame.Min.Y, X1: r.frame.Max.X, Y1: r.frame.Max.Y}
}

// where says whether a box (paper millimetres) lies inside the frame
// (1), outside it (-1) or across its edge (0).
func (r clipped) where(b canvas.Rect) int {
	f := r.rect()
	switch {
	case b.X0 >= f.X0 && b.X1 <= f.X1 && b.Y0 >= f.Y0 && b.Y1 <= f.Y1:
		return 1
	case b.X1 < f.X0 || b.X0 > f.X1 || b.Y1 < f.Y0 || b.Y0 > f.Y1:
		return -1
	}
	return 0
}

func (r clipped) RenderPath(path *canvas.Path, s canvas.Style, m canvas.Matrix) {
	if r.budget.Err() != nil {
		return
	}
	p := path.Transform(m)
	b := p.FastBounds()
	if s.HasStroke() {
		half := s.StrokeWidth / 2 * math.Sqrt(math.Abs(m.Det()))
		b = canvas.Rect{X0: b.X0 - half, Y0: b.Y0 - half, X1: b.X1 + half, Y1: b.Y1 + half}
	}
	switch r.where(b) {
	case 1:
		r.Renderer.RenderPath(path, s, m)
		return
	case -1:
		return
	}
	frame := r.rect().ToPath()
	if s.HasFill() {
		fill := p
		if s.FillRule == canvas.EvenOdd {
			fill = fill.Settle(canvas.EvenOdd)
		}
		fs := canvas.DefaultStyle
		fs.Fill, fs.FillRule = s.Fill, canvas.NonZero
		r.Renderer.RenderPath(fill.And(frame), fs, canvas.Identity)
	}
	if s.HasStroke() {
		w := s.StrokeWidth * math.Sqrt(math.Abs(m.Det()))
		outline := p.Stroke(w, s.StrokeCapper, s.StrokeJoiner, canvas.Tolerance)
		ss := canvas.DefaultStyle
		ss.Fill, ss.FillRule = s.Stroke, canvas.NonZero
		r.Renderer.RenderPath(outline.And(frame), ss, canvas.Identity)
	}
}

func (r clipped) RenderText(t *canvas.Text, m canvas.Matrix) {
	if r.budget.Err() != nil {
		return
	}
	switch r.where(t.Bounds().Transform(m)) {
	case 1:
		r.Renderer.RenderText(t, m)
	case 0:
		t.RenderAsPath(r, m, 0)
	}
}

func (r clipped) RenderImage(img image.Image, m canvas.Matrix) {
	if r.where(canvas.Rect{X0: 0, Y0: 0, X1: float64(img.Bounds().Dx()), Y1: float64(img.Bounds().Dy())}.Transform(m)) == 1 {
		r.Renderer.RenderImage(img, m)
	}
}
