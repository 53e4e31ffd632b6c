// Package plot draws a drawing on a sheet of paper with one renderer
// (tdewolff/canvas) for PNG and PDF, so that the pictures agree: [PNG]
// rasterises what [PDF] writes as vectors. The layout is the SVG
// export's (see drawing.NewSheet): on a paper, at a scale, or at the
// drawing's own size. Layers that are off or frozen are left out;
// strokes are the layers' lineweights on paper (0.25 mm by default),
// curves are flattened to within 0.01 mm of paper, text is set in the Go
// font at its height, and fills (arrowheads, solid hatches) use the
// even-odd rule.
package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"sync"

	"github.com/tdewolff/canvas"
	"github.com/tdewolff/canvas/renderers/pdf"
	"github.com/tdewolff/canvas/renderers/rasterizer"
	"golang.org/x/image/font/gofont/goregular"

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

var (
	fontOnce sync.Once
	fontFam  *canvas.FontFamily
	fontErr  error
)

// family is the embedded Go font, loaded once.
func family() (*canvas.FontFamily, error) {
	fontOnce.Do(func() {
		f := canvas.NewFontFamily("Go")
		if err := f.LoadFont(goregular.TTF, 0, canvas.FontRegular); err != nil {
			fontErr = fmt.Errorf("load the Go font: %w", err)
			return
		}
		fontFam = f
	})
	return fontFam, fontErr
}

// Render draws the document on a canvas the size of its sheet, in paper
// millimetres.
func Render(d *drawing.Document, opts *enginev1.ExportOptions) (*canvas.Canvas, drawing.Sheet, error) {
	fam, err := family()
	if err != nil {
		return nil, drawing.Sheet{}, err
	}
	visible := func(e *drawing.Entity) bool {
		l := d.Layer(e.Layer)
		return l != nil && l.On && !l.Frozen
	}
	var ext geom.Box
	ents := d.Entities()
	for _, e := range ents {
		if visible(e) {
			ext.AddBox(e.Geom.Bounds())
		}
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
	c := canvas.New(sheet.Width, sheet.Height)
	ctx := canvas.NewContext(c)
	ctx.SetFillColor(canvas.White)
	ctx.DrawPath(0, 0, canvas.Rectangle(sheet.Width, sheet.Height))
	ctx.SetStrokeCapper(canvas.RoundCap)
	ctx.SetStrokeJoiner(canvas.RoundJoin)
	ctx.SetFillRule(canvas.EvenOdd)
	p := &painter{ctx: ctx, sheet: sheet, fam: fam, d: d}
	byLayer := map[string][]*drawing.Entity{}
	for _, e := range ents {
		if visible(e) {
			byLayer[e.Layer] = append(byLayer[e.Layer], e)
		}
	}
	for _, l := range d.SortedLayers() {
		width := defaultStroke
		if l.Lineweight > 0 {
			width = float64(l.Lineweight) / 100
		}
		for _, e := range byLayer[l.Name] {
			p.entity(e, width)
		}
	}
	return c, sheet, nil
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

// PNG is the document rendered as a PNG at opts' resolution (96 dpi of
// paper by default).
func PNG(d *drawing.Document, opts *enginev1.ExportOptions) ([]byte, error) {
	c, _, err := Render(d, opts)
	if err != nil {
		return nil, err
	}
	dpi := float64(defaultDPI)
	if opts.GetDpi() > 0 {
		dpi = float64(opts.GetDpi())
	}
	img := rasterizer.Draw(c, canvas.DPI(dpi), canvas.DefaultColorSpace)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, fmt.Errorf("encode png: %w", err)
	}
	return b.Bytes(), nil
}

// PDF is the document plotted as a one-page PDF the size of its sheet.
func PDF(d *drawing.Document, opts *enginev1.ExportOptions) ([]byte, error) {
	c, sheet, err := Render(d, opts)
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
