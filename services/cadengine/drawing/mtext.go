package drawing

import (
	"slices"
	"strings"
	"unicode/utf8"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// MText is multi-line text: paragraphs separated by "\n", each wrapped at
// Width (0: not wrapped), laid out in a box whose Attach point (1–9: top,
// middle, bottom × left, centre, right, as DXF's MTEXT 71) is P, turned
// by Rotation degrees. Lines are Spacing × 5/3 × Height apart (AutoCAD's
// "at least" spacing; a line of Markup taller than Height, its tallest
// run's: see baselines), and within the box they are aligned by the
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
	// Markup is its text with its inline formatting (MTEXT's codes for
	// fonts, heights, width factors, slants, tracking, colours, lines,
	// stacks and paragraphs; see MarkupText), "" when it has none. It
	// reads as Text (MarkupText(Markup) == Text): Text is what tools,
	// search and the wire see, and a tool that gives it a new Text drops
	// its Markup (see WithText).
	Markup string
}

// FullMarkup is its Markup, or its Text as markup (see PlainMarkup)
// when it has none.
func (g MText) FullMarkup() string {
	if g.Markup != "" {
		return g.Markup
	}
	return PlainMarkup(g.Text)
}

// WithText is the text with s for its text: its markup dropped unless s
// is its text.
func (g MText) WithText(s string) MText {
	if s != g.Text {
		g.Text, g.Markup = s, ""
	}
	return g
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

// A measure says how wide a run of characters is set in a format: to
// the pen's next position (its advance), and to its last character's
// ink (where a line ends); estimated, as ezdxf estimates it for extents,
// or as the engine draws it.
type measure func(s string, f format) (advance, ink float64)

// estimated is ezdxf's estimate without fonts (see textCharWidth).
func estimated(s string, f format) (advance, ink float64) {
	w := float64(utf8.RuneCountInString(s)) * textCharWidth * f.height
	return w, w
}

// drawn is how the engine draws it: in the Go font face of its font, at
// its width factor (see drawnWidthIn and inkWidthIn).
func drawn(s string, f format) (advance, ink float64) {
	face := TypefaceOf(f.font)
	return drawnWidthIn(face, s, f.height) * f.width, inkWidthIn(face, s, f.height) * f.width
}

// A line is one line of an MText as it is laid out: its runs, the
// paragraph it is part of, and how tall it is (its tallest run's
// height, or an empty line's paragraph's end's: how far its baseline is
// below its top, and what the pitch to the next line is in proportion
// to).
type line struct {
	runs   []run
	para   int
	height float64
}

// String is the line's plain text.
func (l line) String() string {
	var b strings.Builder
	for _, r := range l.runs {
		b.WriteString(r.text)
	}
	return b.String()
}

// Lines are the text's lines after breaking and wrapping, as ezdxf
// estimates them.
func (g MText) Lines() []string {
	var out []string
	for _, l := range g.lines(estimated) {
		out = append(out, l.String())
	}
	return out
}

// lines are the text's lines after breaking and wrapping at Width, as
// wide as width measures them.
func (g MText) lines(width measure) []line { return g.wrap(g.paragraphs(), width) }

// wrap lays paragraphs out in lines, the first paragraph numbered 0.
func (g MText) wrap(paras []paragraph, width measure) []line {
	var out []line
	for i, p := range paras {
		out = append(out, g.wrapParagraph(p, i, width)...)
	}
	return out
}

// wrapParagraph lays the paragraph i out in lines: all of it, when it
// fits in Width; else its words (runs between breaking spaces, which
// may be in several formats), as many on each line as fit, one space
// (the first of those between them) apart.
func (g MText) wrapParagraph(p paragraph, i int, width measure) []line {
	whole := g.line(p.runs, i, p.end)
	if g.fits(whole, width) {
		return []line{whole}
	}
	var words [][]run
	var gaps []run // gaps[k] is the space before words[k]
	var word []run
	var gap run
	for _, r := range p.runs {
		if !r.space {
			word = append(word, r)
			continue
		}
		if len(word) > 0 {
			words, gaps, word, gap = append(words, word), append(gaps, gap), nil, run{}
		}
		if gap.text == "" {
			gap = run{text: " ", f: r.f, space: true}
		}
	}
	if len(word) > 0 {
		words, gaps = append(words, word), append(gaps, gap)
	}
	if len(words) == 0 {
		return []line{whole}
	}
	var out []line
	for len(words) > 0 {
		n := g.fitting(words, gaps, i, p.end, width)
		out = append(out, g.line(joinWords(words[:n], gaps), i, p.end))
		words, gaps = words[n:], gaps[n:]
	}
	return out
}

// fitting is how many of words, from the first, fit on a line (one at
// least; gaps[k] is the space before words[k]): found by doubling the
// count, then halving the step, as a line grows wider with each word.
// A line of k words costs k log k measures, not the k² of trying each
// word in turn.
func (g MText) fitting(words [][]run, gaps []run, i int, end format, width measure) int {
	fits := func(n int) bool { return g.fits(g.line(joinWords(words[:n], gaps), i, end), width) }
	lo, hi := 1, 2 // lo words fit (or lo is 1); hi do not, or are more than there are
	for hi <= len(words) && fits(hi) {
		lo, hi = hi, 2*hi
	}
	hi = min(hi, len(words)+1)
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// joinWords is the runs of words on one line, each after its gap
// (gaps[k] before words[k]; the first's left out).
func joinWords(words [][]run, gaps []run) []run {
	out := slices.Clone(words[0])
	for k := 1; k < len(words); k++ {
		out = append(append(out, gaps[k]), words[k]...)
	}
	return out
}

// line is a line of runs of the paragraph i, which ends in the format
// end.
func (g MText) line(runs []run, i int, end format) line {
	h := 0.0
	for _, r := range runs {
		if !r.space {
			h = max(h, r.cellHeight())
		}
	}
	if h == 0 {
		h = end.height
	}
	return line{runs: runs, para: i, height: h}
}

// cellHeight is how tall a run stands on its baseline: its capitals,
// or a stack's two parts (as ezdxf stacks them: 1.2 times their heights
// over each other, their heights alone diagonally).
func (r run) cellHeight() float64 {
	switch {
	case r.stack == nil || r.stack.kind == 0:
		return r.f.height
	case r.stack.kind == '#':
		return 2 * r.f.height
	}
	return 2.4 * r.f.height
}

// fits says whether the line fits in Width (it always does in text
// without one).
func (g MText) fits(l line, width measure) bool {
	return !(g.Width > 0) || l.width(width) <= g.Width
}

// groups are the runs as they are set: characters in the same format
// together (spaces too), each stack alone.
func groups(runs []run) []run {
	var out []run
	var b strings.Builder
	for i := 0; i < len(runs); {
		g, j := runs[i], i+1
		g.space = false
		for g.stack == nil && j < len(runs) && runs[j].stack == nil && runs[j].f == g.f {
			j++
		}
		if j > i+1 {
			b.Reset()
			for _, r := range runs[i:j] {
				b.WriteString(r.text)
			}
			g.text = b.String()
		}
		out, i = append(out, g), j
	}
	return out
}

// width is how wide the line is set: the advances of its groups but
// the last, and the last's ink.
func (l line) width(m measure) float64 {
	w := 0.0
	gs := groups(l.runs)
	for i, r := range gs {
		adv, ink := r.width(m)
		if i == len(gs)-1 {
			return w + ink
		}
		w += adv
	}
	return w
}

// width is how wide a group of runs is set: a stack as wide as its
// wider part (diagonally, both), characters as m measures them, their
// advances spread by the tracking.
func (r run) width(m measure) (advance, ink float64) {
	if r.stack != nil && r.stack.kind != 0 {
		t, _ := m(r.stack.top, r.f)
		b, _ := m(r.stack.bottom, r.f)
		if r.stack.kind == '#' {
			return t + b, t + b
		}
		return max(t, b), max(t, b)
	}
	advance, ink = m(r.text, r.f)
	if r.f.tracking != 1 {
		extra := advance * (r.f.tracking - 1)
		advance, ink = advance+extra, ink+extra
	}
	return advance, ink
}

// baselines are how far below the top of their box the lines' baselines
// are: a line's top is its height times Spacing × 5/3 below the one
// before's top (AutoCAD's and ezdxf's 3-on-5 spacing), its baseline its
// height below its top.
func (g MText) baselines(lines []line) []float64 {
	out := make([]float64, len(lines))
	top := 0.0
	for i, l := range lines {
		out[i] = top + l.height
		top += g.lead(l)
	}
	return out
}

// lead is how far below the line's top the next line's top is.
func (g MText) lead(l line) float64 { return g.Spacing * 5 / 3 * l.height }

// linesHeight is how tall the lines stand: from the top of the first to
// the descent of the last below its baseline.
func (g MText) linesHeight(lines []line) float64 {
	n := len(lines)
	if n == 0 {
		return 0
	}
	return g.baselines(lines)[n-1] + textDescender*lines[n-1].height
}

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
func (g MText) box(width measure) (x0, y0, w, h float64, lines []line) {
	lines = g.lines(width)
	if n := len(lines); n > 1 && strings.TrimSpace(lines[n-1].String()) == "" {
		lines = lines[:n-1]
	}
	w = g.Width
	if !(w > 0) {
		for _, l := range lines {
			w = max(w, l.width(width))
		}
	}
	h = g.linesHeight(lines)
	x0, y0 = g.corner(w, h)
	return x0, y0, w, h, lines
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

// Picture implements [Pictured]: its lines wrapped and aligned as the
// engine draws them (in the Go font faces of their formats, at their
// width factors; see drawn), a Text for each group of characters in
// one format, a stack's parts and its bar, and the under, over and
// strike lines; behind them its background mask, and around them its
// frame, if it has them.
func (g MText) Picture() Picture {
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
			g.paint(&p, c.lines, false, x0+c.x, y0+h-c.h, cw, c.h)
		}
		return p
	}
	x0, y0, w, h, lines := g.box(drawn)
	g.paint(&p, lines, true, x0, y0, w, h)
	return p
}

// paint adds to p the lines of a box (left x0, bottom y0, w wide, h
// tall, in the text's own frame), from its top down, each aligned as its
// paragraph says (own; else as the attachment says), and its
// background and frame if it has them.
func (g MText) paint(p *Picture, lines []line, own bool, x0, y0, w, h float64) {
	for i, y := range g.baselines(lines) {
		l := lines[i]
		para := -1
		if own {
			para = l.para
		}
		x := x0 + (w-l.width(drawn))*float64(g.column(para))/2
		gs := groups(l.runs)
		for _, r := range gs {
			adv, ink := r.width(drawn)
			if r.text != "" && (len(gs) == 1 || strings.TrimSpace(r.text) != "") {
				// A cell shorter than its line sits on the baseline, in
				// the middle or at the top, as its \A says.
				g.paintRun(p, r, x, y0+h-y+(l.height-r.cellHeight())*float64(r.f.valign)/2, ink)
			}
			x += adv
		}
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

// paintRun adds to p a group of runs whose cell's bottom left is (x, y)
// in the text's own frame: its characters, or a stack's parts and bar,
// and its lines, ink long.
func (g MText) paintRun(p *Picture, r run, x, y, ink float64) {
	if r.stack != nil && r.stack.kind != 0 {
		g.paintStack(p, r, x, y)
		return
	}
	g.paintChars(p, r.text, r.f, x, y)
	h := r.f.height
	for _, s := range []struct {
		bit uint8
		dy  float64
	}{{strokeUnder, -h / 5}, {strokeStrike, h / 2}, {strokeOver, h + h/5}} {
		if r.f.strokes&s.bit != 0 {
			p.Strokes = append(p.Strokes, g.segment(x, y+s.dy, x+ink, y+s.dy))
		}
	}
}

// paintChars adds to p the characters s in the format f, on the
// baseline from (x, y): one Text, or one for each character when its
// tracking spreads them.
func (g MText) paintChars(p *Picture, s string, f format, x, y float64) {
	if f.tracking == 1 {
		p.Texts = append(p.Texts, Text{Text: s, P: g.frame(x, y), Height: f.height, Rotation: g.Rotation, Style: g.styleOf(f)})
		return
	}
	for _, c := range s {
		p.Texts = append(p.Texts, Text{Text: string(c), P: g.frame(x, y), Height: f.height, Rotation: g.Rotation, Style: g.styleOf(f)})
		adv, _ := drawn(string(c), f)
		x += adv * f.tracking
	}
}

// paintStack adds to p a stack whose cell's bottom left is (x, y), as
// ezdxf sets one: over each other, each part centred in the cell's
// width, the top one's capitals at the cell's top, the bottom one on
// its bottom, a bar ('/') across the middle; diagonally ('#'), the top
// part at the left top, the bottom one at the right bottom, a slanted
// bar between them.
func (g MText) paintStack(p *Picture, r run, x, y float64) {
	st, f, h := r.stack, r.f, r.cellHeight()
	w, _ := r.width(drawn)
	tw, _ := drawn(st.top, f)
	bw, _ := drawn(st.bottom, f)
	if st.kind == '#' {
		g.paintChars(p, st.top, f, x, y+h-f.height)
		g.paintChars(p, st.bottom, f, x+w-bw, y)
		cx, cy, d := x+tw, y+h-f.height, min(w, h)/2
		p.Strokes = append(p.Strokes, g.segment(cx-d, cy-d, cx+d, cy+d))
		return
	}
	g.paintChars(p, st.top, f, x+(w-tw)/2, y+h-f.height)
	g.paintChars(p, st.bottom, f, x+(w-bw)/2, y)
	if st.kind == '/' {
		p.Strokes = append(p.Strokes, g.segment(x, y+h/2, x+w, y+h/2))
	}
}

// segment is the segment from (x1, y1) to (x2, y2) of the text's own
// frame, in the world.
func (g MText) segment(x1, y1, x2, y2 float64) geom.Segment {
	return geom.Segment{A: g.frame(x1, y1), B: g.frame(x2, y2)}
}

// styleOf is the text's style with the font, width factor and slant of
// the format f where they are not its own.
func (g MText) styleOf(f format) TextStyle {
	s, base := g.Style, g.baseFormat()
	if f.font != base.font {
		s.Font = f.font
	}
	if f.width != base.width {
		s.Width = f.width
	}
	if f.oblique != base.oblique {
		s.Oblique = f.oblique
	}
	return s
}

// Prims implements [Geometry]: text has no curves.
func (MText) Prims() []any { return nil }

// Bounds implements [Geometry]: the box's corners (a background mask
// is not counted, as ezdxf does not count it).
// Its markup is not read: ezdxf's estimate is of the plain text.
func (g MText) Bounds() geom.Box {
	g.Markup = ""
	x0, y0, w, h, _ := g.box(estimated)
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
	out.Markup = scaleMarkup(g.Markup, x.Scale)
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
	if g.Markup != "" {
		w.byte(mtextMarkup)
		w.string(g.Markup)
	}
}

// mtextMarkup tags an MText's markup in its encoding, after its
// paragraph alignments, so that one without encodes as it always did.
const mtextMarkup = 'K'

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
	if len(r.b) > 0 && r.b[0] == mtextMarkup {
		r.byte()
		g.Markup = r.string()
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
