// Package plot draws a drawing on a sheet of paper with one renderer
// (tdewolff/canvas) for PNG and PDF, so that the pictures agree: [PNG]
// rasterises what [PDF] writes as vectors. The layout is the SVG
// export's (see drawing.NewSheet): on a paper, at a scale, or at the
// drawing's own size. Layers that are off or frozen are left out;
// strokes are the layers' lineweights on paper (0.25 mm by default),
// curves are flattened to within 0.01 mm of paper, text is set in the Go
// font at its height, and fills (arrowheads, solid hatches) use the
// even-odd rule. [RenderLayout] plots a paper-space layout 1:1 on its
// paper, each viewport's window on model space cut to its frame
// ([LayoutPNG], [LayoutPDF]). [View] draws a window of the drawing, or of
// a layout, as a picture of a given size in pixels, with entities
// highlighted.
package plot

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"slices"
	"sync"

	"github.com/tdewolff/canvas"
	"github.com/tdewolff/canvas/renderers/pdf"
	"github.com/tdewolff/canvas/renderers/rasterizer"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// defaultDPI is the PNG resolution unless asked otherwise.
const defaultDPI = 96

// fitPixels is the longer side of a PNG of a drawing without a sheet or
// a scale, at the default resolution.
const fitPixels = 1600

// flatness is how far, in paper millimetres, a flattened curve may stray.
const flatness = 0.01

// defaultStroke is the stroke of a layer of default lineweight, in paper
// millimetres.
const defaultStroke = 0.25

// pageColor is the page's colour: the background, and what masks (a
// wipeout's area) are filled with.
var pageColor = canvas.White

var (
	fontOnce sync.Once
	fontFams []*canvas.FontFamily
	fontErr  error
)

// families are the bundled typefaces (DejaVu Sans and the Go fonts), by
// drawing.Typeface, loaded once.
func families() ([]*canvas.FontFamily, error) {
	fontOnce.Do(func() {
		for f := range drawing.Typeface(drawing.NumTypefaces) {
			fam := canvas.NewFontFamily("bundled")
			if err := fam.LoadFont(drawing.TypefaceTTF(f), 0, canvas.FontRegular); err != nil {
				fontErr = fmt.Errorf("load the bundled fonts: %w", err)
				return
			}
			fontFams = append(fontFams, fam)
		}
	})
	return fontFams, fontErr
}

// Render draws the document on a canvas the size of its sheet, in paper
// millimetres, expanding inserts within budget (nil: no limit; see
// svg.WriteWith).
func Render(d *drawing.Document, opts *enginev1.ExportOptions, budget *drawing.Budget) (*canvas.Canvas, drawing.Sheet, error) {
	fams, err := families()
	if err != nil {
		return nil, drawing.Sheet{}, err
	}
	visible := func(e *drawing.Entity) bool { // model space, on a layer shown
		l := d.Layer(e.Layer)
		return e.Layout == "" && l != nil && l.On && !l.Frozen
	}
	var ext geom.Box
	var shown []*drawing.Entity
	for _, e := range d.Entities() {
		if visible(e) {
			ext.AddBox(e.Geom.Bounds())
			shown = append(shown, e)
		}
	}
	if err := budget.Afford(drawing.CostOf(shown)); err != nil {
		return nil, drawing.Sheet{}, err
	}
	sheet := drawing.NewSheet(ext, d.Units, opts.GetPaper(), opts.GetScale())
	if !sheet.Fixed {
		// At the drawing's own size the paper can be tiny or huge: draw it
		// fitted to a picture of fitPixels at the default resolution.
		long := math.Max(sheet.Width, sheet.Height)
		k := fitPixels / (float64(defaultDPI) / 25.4) / long
		sheet.Width, sheet.Height, sheet.Factor = sheet.Width*k, sheet.Height*k, sheet.Factor*k
		sheet.Offset = sheet.Offset.Mul(k)
	}
	c := newPage(sheet.Width, sheet.Height)
	ctx := canvas.NewContext(c)
	setup(ctx)
	p := &painter{ctx: ctx, sheet: sheet, fams: fams, d: d, budget: budget}
	if err := p.entities(shown); err != nil {
		return nil, drawing.Sheet{}, err
	}
	return c, sheet, nil
}

// entities draws es in their order, as a CAD program draws: a wipeout
// hides what was drawn before it, whatever its layer. Strokes are the
// layers' lineweights, times the painter's weight when it has one.
func (p *painter) entities(es []*drawing.Entity) error {
	for _, e := range es {
		if err := p.entity(e, p.width(e)); err != nil {
			return err
		}
	}
	return nil
}

// width is the stroke e is drawn with, in paper millimetres: its
// layer's lineweight (defaultStroke when by default), times the
// painter's weight when it has one.
func (p *painter) width(e *drawing.Entity) float64 {
	width := defaultStroke
	if l := p.d.Layer(e.Layer); l != nil && l.Lineweight > 0 {
		width = float64(l.Lineweight) / 100
	}
	if p.weight > 0 {
		width *= p.weight
	}
	return width
}

// colorOf is an entity's ACI colour: its own, or its layer's.
func colorOf(c, layer int32) int32 {
	if c == 256 || c == 0 {
		return layer
	}
	return c
}

func rgb(aci int32) color.RGBA {
	r, g, b := drawing.ACIRGB(aci)
	return color.RGBA{R: r, G: g, B: b, A: 0xff}
}

// maxPixels is the most pixels a PNG may have (64 megapixels, 256 MiB of
// RGBA): a sheet and resolution that need more are refused.
const maxPixels = 1 << 26

// PNG is the document rendered as a PNG at opts' resolution (96 dpi of
// paper by default), within budget; rasterising also stops when the
// budget's call ends.
func PNG(d *drawing.Document, opts *enginev1.ExportOptions, budget *drawing.Budget) ([]byte, error) {
	c, _, err := Render(d, opts, budget)
	if err != nil {
		return nil, err
	}
	dpi := float64(defaultDPI)
	if opts.GetDpi() > 0 {
		dpi = float64(opts.GetDpi())
	}
	res := canvas.DPI(dpi)
	w, h := math.Round(c.W*res.DPMM()), math.Round(c.H*res.DPMM())
	if !(w*h <= maxPixels) || w < 1 || h < 1 {
		return nil, fmt.Errorf("%w: the picture would be %.0f × %.0f pixels; at most %d in all (choose a lower dpi or a smaller paper)", ErrTooManyPixels, w, h, maxPixels)
	}
	return rasterize(c, res, int(w), int(h), budget)
}

// rasterize draws c on a picture of w × h pixels at resolution res and
// encodes it as a PNG; it stops drawing when the budget's call ends.
func rasterize(c *canvas.Canvas, res canvas.Resolution, w, h int, budget *drawing.Budget) ([]byte, error) {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	ras := rasterizer.FromImage(img, res, canvas.DefaultColorSpace)
	c.RenderTo(watched{Renderer: ras, budget: budget, pixels: func(q canvas.Point) canvas.Point {
		return canvas.Point{X: q.X * res.DPMM(), Y: float64(h) - q.Y*res.DPMM()}
	}})
	ras.Close()
	if err := budget.Err(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, fmt.Errorf("encode png: %w", err)
	}
	return b.Bytes(), nil
}

// ErrTooManyPixels is a PNG larger than maxPixels.
var ErrTooManyPixels = errors.New("the PNG is too large")

// watched is a renderer that stops drawing once the budget's call has
// ended: rasterising a path can take long, and the canvas has no context
// of its own.
//
// It also takes gradients to pixels: the rasteriser asks a gradient for
// the colour of each pixel by its column and row, while the painter lays
// gradients out on paper (see painter.shade), which the PDF wants.
type watched struct {
	canvas.Renderer
	budget *drawing.Budget
	// pixels maps a point on paper to the picture's pixels; nil: as it is.
	pixels func(canvas.Point) canvas.Point
}

func (w watched) RenderPath(p *canvas.Path, s canvas.Style, m canvas.Matrix) {
	if w.budget.Err() != nil {
		return
	}
	if w.pixels != nil && s.Fill.IsGradient() {
		s.Fill.Gradient = inPixels(s.Fill.Gradient, w.pixels)
	}
	w.Renderer.RenderPath(p, s, m)
}

// inPixels is a gradient laid out on paper mapped to pixels (a radius by
// the scale of the map).
func inPixels(g canvas.Gradient, px func(canvas.Point) canvas.Point) canvas.Gradient {
	switch g := g.(type) {
	case *canvas.LinearGradient:
		out := canvas.NewLinearGradient(px(g.Start), px(g.End))
		out.Stops = slices.Clone(g.Stops)
		return out
	case *canvas.RadialGradient:
		k := px(canvas.Point{X: 1}).Sub(px(canvas.Point{})).Length()
		out := canvas.NewRadialGradient(px(g.C0), g.R0*k, px(g.C1), g.R1*k)
		out.Stops = slices.Clone(g.Stops)
		return out
	}
	return g
}

func (w watched) RenderText(t *canvas.Text, m canvas.Matrix) {
	if w.budget.Err() == nil {
		w.Renderer.RenderText(t, m)
	}
}

// PDF is the document plotted as a one-page PDF the size of its sheet.
func PDF(d *drawing.Document, opts *enginev1.ExportOptions, budget *drawing.Budget) ([]byte, error) {
	c, sheet, err := Render(d, opts, budget)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	w := pdf.New(&b, sheet.Width, sheet.Height, nil)
	c.RenderTo(w)
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("write pdf: %w", err)
	}
	return b.Bytes(), nil
}
