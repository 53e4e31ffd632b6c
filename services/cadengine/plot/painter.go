package plot

import (
	"image/color"
	"math"

	"github.com/tdewolff/canvas"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// painter draws entities on a canvas in paper millimetres.
type painter struct {
	ctx    *canvas.Context
	sheet  drawing.Sheet
	fams   []*canvas.FontFamily // by drawing.Typeface
	d      *drawing.Document
	budget *drawing.Budget // what inserts may expand to
	// emphasis, when set, is the colour everything is drawn in (a
	// highlight) instead of the entities' own.
	emphasis *color.RGBA
	// weight, when above 0, multiplies every stroke's width.
	weight float64
	// paper says the entities are on a layout's paper, where linetypes
	// are laid out in paper millimetres (see
	// drawing.Document.DashedOnPaper).
	paper bool
}

// color is what e is drawn in: its colour, or its layer's, or the
// painter's emphasis.
func (p *painter) color(e *drawing.Entity) color.RGBA {
	if p.emphasis != nil {
		return *p.emphasis
	}
	layer := int32(7)
	if l := p.d.Layer(e.Layer); l != nil {
		layer = l.Color
	}
	return rgb(colorOf(e.Color, layer))
}

// at maps a world point to paper.
func (p *painter) at(q geom.Vec) (float64, float64) {
	m := p.sheet.Paper(q)
	return m.X, m.Y
}

// stroke draws curve primitives.
func (p *painter) stroke(prims []any, c color.RGBA, width float64) {
	path := &canvas.Path{}
	for _, pr := range prims {
		pts := p.flatten(pr)
		for i, q := range pts {
			x, y := p.at(q)
			if i == 0 {
				path.MoveTo(x, y)
			} else {
				path.LineTo(x, y)
			}
		}
		if len(pts) == 1 {
			x, y := p.at(pts[0])
			path.LineTo(x, y)
		}
	}
	if path.Empty() {
		return
	}
	p.ctx.SetFillColor(canvas.Transparent)
	p.ctx.SetStrokeColor(c)
	p.ctx.SetStrokeWidth(width)
	p.ctx.DrawPath(0, 0, path)
}

// flatten is a primitive as points within flatness of paper.
func (p *painter) flatten(pr any) []geom.Vec {
	tol := flatness / p.sheet.Factor
	steps := func(r, sweep float64) int {
		if r <= tol {
			return 1
		}
		return min(4096, max(1, int(math.Ceil(sweep/(2*math.Acos(1-tol/r))))))
	}
	switch s := pr.(type) {
	case geom.Segment:
		return []geom.Vec{s.A, s.B}
	case geom.Arc:
		n := steps(s.R, s.Sweep)
		out := make([]geom.Vec, n+1)
		for i := range out {
			out[i] = s.At(s.Start + s.Sweep*float64(i)/float64(n))
		}
		return out
	case geom.EllipseArc:
		n := steps(s.Major.Len(), s.Sweep)
		out := make([]geom.Vec, n+1)
		for i := range out {
			out[i] = s.At(s.Start + s.Sweep*float64(i)/float64(n))
		}
		return out
	}
	return nil
}

// dots draws dots of radius r mm.
func (p *painter) dots(at []geom.Vec, c color.RGBA, r float64) {
	if len(at) == 0 {
		return
	}
	p.ctx.SetStrokeColor(canvas.Transparent)
	p.ctx.SetFillColor(c)
	for _, d := range at {
		x, y := p.at(d)
		p.ctx.DrawPath(x, y, canvas.Circle(r))
	}
}

// fill fills closed outlines together, by the even-odd rule or the
// non-zero one.
func (p *painter) fill(outlines [][]geom.Vec, nonZero bool, c color.RGBA) {
	p.ctx.SetFillColor(c)
	p.paint(outlines, nonZero)
}

// paint fills closed outlines in the context's fill (a colour or a
// gradient).
func (p *painter) paint(outlines [][]geom.Vec, nonZero bool) {
	path := &canvas.Path{}
	for _, f := range outlines {
		for i, q := range f {
			x, y := p.at(q)
			if i == 0 {
				path.MoveTo(x, y)
			} else {
				path.LineTo(x, y)
			}
		}
		path.Close()
	}
	if path.Empty() {
		return
	}
	p.ctx.SetStrokeColor(canvas.Transparent)
	if nonZero {
		p.ctx.SetFillRule(canvas.NonZero)
		defer p.ctx.SetFillRule(canvas.EvenOdd)
	}
	p.ctx.DrawPath(0, 0, path)
}

// shade fills closed outlines with a gradient, its points on paper
// (millimetres, as the canvas's coordinates; the PNG's rasteriser takes
// them to pixels, see watched).
func (p *painter) shade(outlines [][]geom.Vec, nonZero bool, s drawing.Shade) {
	fx, fy := p.at(s.From)
	var g canvas.Gradient
	if s.Radial {
		r := s.To.Sub(s.From).Len() * p.sheet.Factor
		rg := canvas.NewRadialGradient(canvas.Point{X: fx, Y: fy}, 0, canvas.Point{X: fx, Y: fy}, r)
		for _, st := range s.Stops {
			rg.Add(st.Offset, rgbOf(st.Color))
		}
		g = rg
	} else {
		tx, ty := p.at(s.To)
		lg := canvas.NewLinearGradient(canvas.Point{X: fx, Y: fy}, canvas.Point{X: tx, Y: ty})
		for _, st := range s.Stops {
			lg.Add(st.Offset, rgbOf(st.Color))
		}
		g = lg
	}
	p.ctx.SetFillGradient(g)
	p.paint(outlines, nonZero)
}

func rgbOf(c [3]uint8) color.RGBA { return color.RGBA{R: c[0], G: c[1], B: c[2], A: 0xff} }

// text sets a line of text at its insertion point as its alignment says,
// its capitals its height tall, as in the SVG export, in its typeface,
// scaled across by its width factor (or stretched between its two
// points), slanted by its oblique angle and mirrored as its generation
// flags say (see drawing.Text.Setting).
func (p *painter) text(t drawing.Text, c color.RGBA) {
	st := t.Setting()
	size := st.FaceSize() * p.sheet.Factor
	if size <= 0.05 {
		return // under a twentieth of a millimetre: nothing to read
	}
	face := p.fams[st.Typeface].Face(size/0.352778, c, canvas.FontRegular, canvas.FontNormal)
	x, y := p.at(st.Anchor)
	view := canvas.Identity.Translate(x, y).Rotate(st.Rotation)
	if st.MirrorX != 1 || st.MirrorY != 1 {
		view = view.Scale(st.MirrorX, st.MirrorY)
	}
	if st.Slant != 0 {
		view = view.Shear(st.Slant, 0)
	}
	if st.XScale != 1 {
		view = view.Scale(st.XScale, 1)
	}
	p.ctx.Push()
	p.ctx.ComposeView(view)
	// Set from its start, as far before the anchor as the bundled face's
	// measure says (to the right of its ink, not of its last advance).
	p.ctx.DrawText(-st.Lead*p.sheet.Factor, 0, canvas.NewTextLine(face, t.Text, canvas.Left))
	p.ctx.Pop()
}

// entity draws one entity with strokes width mm wide, inserts within the
// painter's budget.
func (p *painter) entity(e *drawing.Entity, width float64) error {
	c := p.color(e)
	dashed := p.d.Dashed
	if p.paper {
		dashed = p.d.DashedOnPaper
	}
	if pic, ok, err := dashed(e, width/p.sheet.Factor, p.budget); err != nil {
		return err
	} else if ok {
		p.stroke(pic.Strokes, c, width)
		p.dots(pic.Dots, c, width/2)
		return nil
	}
	switch g := e.Geom.(type) {
	case drawing.Point:
		x, y := p.at(g.P)
		p.ctx.SetStrokeColor(canvas.Transparent)
		p.ctx.SetFillColor(c)
		p.ctx.DrawPath(x, y, canvas.Circle(1.5*width))
	case drawing.Text:
		p.text(g, c)
	case drawing.Pictured:
		pic := g.Picture()
		for _, d := range pic.Backdrops {
			bc := pageColor
			if !d.Page {
				bc = color.RGBA{R: d.Color[0], G: d.Color[1], B: d.Color[2], A: 0xff}
			}
			p.fill([][]geom.Vec{d.Outline}, false, bc)
		}
		p.fill(pic.Masks, false, pageColor)
		p.stroke(pic.Strokes, c, width)
		if pic.Shade != nil && p.emphasis == nil {
			p.shade(pic.Fills, pic.NonZero, *pic.Shade)
		} else {
			p.fill(pic.Fills, pic.NonZero, c)
		}
		p.dots(pic.Dots, c, width)
		for _, t := range pic.Texts {
			p.text(t, c)
		}
	case drawing.XLine:
		// Across the sheet.
		var view geom.Box
		view.AddPoint(p.sheet.World(geom.Vec{}))
		view.AddPoint(p.sheet.World(geom.Pt(p.sheet.Width, p.sheet.Height)))
		if s, ok := g.Clip(view); ok {
			p.stroke([]any{s}, c, width)
		}
	case drawing.Insert:
		placed, err := p.budget.PlacedFor(g, e)
		if err != nil {
			return err
		}
		for _, q := range placed {
			// An entity of the block on a layer of its own is drawn
			// with that layer's lineweight (on layer 0, it is placed
			// on the insert's).
			if err := p.entity(q, p.width(q)); err != nil {
				return err
			}
		}
	default:
		p.stroke(e.Geom.Prims(), c, width)
	}
	return nil
}
