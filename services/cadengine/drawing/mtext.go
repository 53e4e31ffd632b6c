package drawing

import (
	"strings"
	"unicode/utf8"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// MText is multi-line text: paragraphs separated by "\n", each wrapped at
// Width (0: not wrapped), laid out in a box whose Attach point (1–9: top,
// middle, bottom × left, centre, right, as DXF's MTEXT 71) is P, turned
// by Rotation degrees. Lines are Spacing × 5/3 × Height apart (AutoCAD's
// "at least" spacing), and within the box they are aligned by the
// attachment's column (left, centre, right).
type MText struct {
	Text     string
	P        geom.Vec
	Height   float64
	Width    float64
	Rotation float64 // degrees, in [0, 360)
	Attach   uint8   // 1..9
	Spacing  float64
	Style    TextStyle // its style: the width factor, slant and font of every line
	// Background is its background mask, drawn behind it; the zero
	// Background is none.
	Background Background
	// Columns are its columns, nil when it has none (it is then one
	// column Width wide, as tall as its text).
	Columns *Columns
	// Aligns are its paragraphs' own alignments (MTEXT's \pq codes), a
	// byte for each paragraph in order: ParaLeft, ParaCenter or
	// ParaRight sets the paragraph so; ParaAttached, and a paragraph
	// past the end, follows the attachment's column. "" for most text.
	// Text in columns follows the attachment's column.
	Aligns string
}

// A paragraph's own alignment, in MText.Aligns (a justified paragraph
// is set left: only its wrapped lines would be stretched).
const (
	ParaAttached = ' '
	ParaLeft     = 'l'
	ParaCenter   = 'c'
	ParaRight    = 'r'
)

// column is the paragraph i's column: 0, 1, 2 for left, centre, right
// (i < 0: no paragraph of its own, the attachment's).
func (g MText) column(i int) int {
	if i >= 0 && i < len(g.Aligns) {
		switch g.Aligns[i] {
		case ParaLeft:
			return 0
		case ParaCenter:
			return 1
		case ParaRight:
			return 2
		}
	}
	return int(g.attach()-1) % 3
}

// Kind implements [Geometry].
func (MText) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_MTEXT }

// A measure says how wide a line of text is at a height: estimated, as
// ezdxf estimates it for extents, or as the engine draws it.
type measure func(s string, height float64) float64

// estimated is ezdxf's estimate without fonts (see textCharWidth).
func estimated(s string, height float64) float64 {
	return float64(utf8.RuneCountInString(s)) * textCharWidth * height
}

// Lines are the text's lines after breaking and wrapping, as ezdxf
// estimates them.
func (g MText) Lines() []string { l, _ := g.lines(estimated); return l }

// lines are the text's lines after breaking and wrapping at Width, as
// wide as width measures them, and the paragraph of each.
func (g MText) lines(width measure) (out []string, paras []int) {
	fits := func(s string) bool { return !(g.Width > 0) || width(s, g.Height) <= g.Width }
	for i, para := range strings.Split(strings.ReplaceAll(g.Text, ColumnBreak, "\n"), "\n") {
		for len(paras) < len(out) {
			paras = append(paras, i-1)
		}
		if fits(para) {
			out = append(out, para)
			continue
		}
		line := ""
		for _, w := range strings.Fields(para) {
			switch {
			case line == "":
				line = w
			case fits(line + " " + w):
				line += " " + w
			default:
				out = append(out, line)
				line = w
			}
		}
		out = append(out, line)
	}
	for len(paras) < len(out) {
		paras = append(paras, strings.Count(g.Text, "\n"))
	}
	return out, paras
}

// pitch is the distance between baselines.
func (g MText) pitch() float64 { return g.Spacing * 5 / 3 * g.Height }

// box is the text's box in its own frame (x along the rotation, y up),
// with the attachment point at the origin: its left, bottom, width and
// height; and the lines, as wide as width measures them (with
// estimated, it is ezdxf's estimate, its MTextPrimitive with the font
// estimate of [Text]): Width wide, or as wide as the longest line when
// the text is not wrapped, from the cap top of the
// first line to the descent of the last below its baseline (a blank
// last line, as a text ending in a line break has, is not a line). Text
// without a width is not wrapped, as DXF has it (ezdxf's estimate puts
// each of its words on a line of its own).
func (g MText) box(width measure) (x0, y0, w, h float64, lines []string, paras []int) {
	lines, paras = g.lines(width)
	if n := len(lines); n > 1 && strings.TrimSpace(lines[n-1]) == "" {
		lines = lines[:n-1]
	}
	w = g.Width
	if !(w > 0) {
		for _, l := range lines {
			w = max(w, width(l, g.Height))
		}
	}
	h = float64(len(lines)-1)*g.pitch() + (1+textDescender)*g.Height
	x0, y0 = g.corner(w, h)
	return x0, y0, w, h, lines, paras
}

// corner is the left bottom corner of a box w wide and h tall whose
// attachment point is at the origin.
func (g MText) corner(w, h float64) (x0, y0 float64) {
	col, row := int(g.attach()-1)%3, int(g.attach()-1)/3
	return -w * float64(col) / 2, -h * float64(2-row) / 2
}

func (g MText) attach() uint8 {
	if g.Attach < 1 || g.Attach > 9 {
		return 1
	}
	return g.Attach
}

// frame maps a point of the text's own frame to the world.
func (g MText) frame(x, y float64) geom.Vec {
	s, c := geom.SinCosDeg(g.Rotation)
	return g.P.Add(geom.Pt(c*x-s*y, s*x+c*y))
}

// Picture implements [Pictured]: one Text per line, in the text's
// style, wrapped and aligned as the engine draws them (in the Go font
// face of its style, at its width factor; see drawnWidth); behind them
// its background mask, and around them its frame, if it has them.
func (g MText) Picture() Picture {
	face, wf := TypefaceOf(g.Style.Font), g.Style.WidthFactor()
	drawn := func(s string, height float64) float64 { return inkWidthIn(face, s, height) * wf }
	var p Picture
	if g.Columns != nil {
		// Each column as the text without columns draws, its box at the
		// top of the whole box: its background and frame its own.
		cols, cw, w, h := g.columnLayout(drawn)
		x0, y0 := g.corner(w, h)
		for _, c := range cols {
			if c.h == 0 && len(c.lines) == 0 {
				continue
			}
			g.paint(&p, c.lines, nil, x0+c.x, y0+h-c.h, cw, c.h, drawn)
		}
		return p
	}
	x0, y0, w, h, lines, paras := g.box(drawn)
	g.paint(&p, lines, paras, x0, y0, w, h, drawn)
	return p
}

// paint adds to p the lines of a box (left x0, bottom y0, w wide, h
// tall, in the text's own frame), from its top down, each aligned as its
// paragraph (paras, the paragraph of each line; nil: the attachment)
// says, and its background and frame if it has them.
func (g MText) paint(p *Picture, lines []string, paras []int, x0, y0, w, h float64, drawn measure) {
	for i, l := range lines {
		if l == "" {
			continue
		}
		para := -1
		if i < len(paras) {
			para = paras[i]
		}
		x := x0 + (w-drawn(l, g.Height))*float64(g.column(para))/2
		y := y0 + h - g.Height - float64(i)*g.pitch()
		p.Texts = append(p.Texts, Text{Text: l, P: g.frame(x, y), Height: g.Height, Rotation: g.Rotation, Style: g.Style})
	}
	if bg := g.Background; bg.On() || bg.Framed() {
		d := g.backdrop(x0, y0, w, h)
		if bg.On() {
			p.Backdrops = append(p.Backdrops, d)
		}
		if bg.Framed() {
			for i, q := range d.Outline {
				p.Strokes = append(p.Strokes, geom.Segment{A: q, B: d.Outline[(i+1)%len(d.Outline)]})
			}
		}
	}
}

// Prims implements [Geometry]: text has no curves.
func (MText) Prims() []any { return nil }

// Bounds implements [Geometry]: the box's corners (a background mask
// is not counted, as ezdxf does not count it).
func (g MText) Bounds() geom.Box {
	x0, y0, w, h, _, _ := g.box(estimated)
	if g.Columns != nil {
		_, _, w, h = g.columnLayout(estimated)
		x0, y0 = g.corner(w, h)
	}
	var b geom.Box
	for _, c := range [][2]float64{{x0, y0}, {x0 + w, y0}, {x0 + w, y0 + h}, {x0, y0 + h}} {
		b.AddPoint(g.frame(c[0], c[1]))
	}
	return b
}

// Finite implements [Geometry].
func (g MText) Finite() bool {
	return g.P.Finite() && geom.IsFinite(g.Height) && geom.IsFinite(g.Width) && geom.IsFinite(g.Spacing)
}

// Transformed moves the attachment point and scales the sizes; like
// [Text.Transformed], a reflection keeps the text readable.
func (g MText) Transformed(x geom.Xform) Geometry {
	out := g
	out.P, out.Height, out.Width = x.Point(g.P), g.Height*x.Scale, g.Width*x.Scale
	out.Columns = g.Columns.scaled(x.Scale)
	if !x.Mirror {
		out.Rotation = x.Direction(g.Rotation)
	}
	return out
}

func (g MText) encodeTo(w *encoder) {
	w.string(g.Text)
	w.vec(g.P)
	w.float(g.Height)
	w.float(g.Width)
	w.float(g.Rotation)
	w.byte(g.Attach)
	w.float(g.Spacing)
	if g.Style != (TextStyle{}) {
		w.byte(textStyle)
		g.Style.encodeTo(w)
	}
	if g.Background != (Background{}) {
		w.byte(mtextBackground)
		g.Background.encodeTo(w)
	}
	if g.Columns != nil {
		w.byte(mtextColumns)
		g.Columns.encodeTo(w)
	}
	if g.Aligns != "" {
		w.byte(mtextAligns)
		w.string(g.Aligns)
	}
}

// mtextAligns tags an MText's paragraph alignments in its encoding,
// after its background.
const mtextAligns = 'P'

func decodeMText(r *decoder) MText {
	t := r.string()
	p := r.vec()
	h := r.float()
	wd := r.float()
	rot := r.float()
	a := r.byte()
	g := MText{Text: t, P: p, Height: h, Width: wd, Rotation: rot, Attach: a, Spacing: r.float()}
	if len(r.b) > 0 && r.b[0] == textStyle {
		r.byte()
		g.Style = decodeTextStyle(r)
	}
	if len(r.b) > 0 && r.b[0] == mtextBackground {
		r.byte()
		g.Background = decodeBackground(r)
	}
	if len(r.b) > 0 && r.b[0] == mtextColumns {
		r.byte()
		g.Columns = decodeColumns(r)
	}
	if len(r.b) > 0 && r.b[0] == mtextAligns {
		r.byte()
		g.Aligns = r.string()
	}
	return g
}

func (g MText) fill(w *wire) {
	pb := &w.pb
	pb.Text, pb.Insertion = new(g.Text), w.point(g.P)
	pb.Height, pb.Rotation, pb.Width = w.num(g.Height), w.num(g.Rotation), w.num(g.Width)
	pb.Attachment = new(enginev1.TextAttachment(g.attach()))
	pb.LineSpacing = w.num(g.Spacing)
}
