package drawing

import (
	"errors"
	"math"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Tolerance is a geometric tolerance's feature control frame (DXF's
// TOLERANCE): its Text as DXF has it (rows separated by "^J",
// compartments by "%%v", GD&T symbols as {\Fgdt;x}, x a letter of the
// gdt font), framed with its first row's left edge centred on P, along
// Rotation degrees, its text Height tall, in the dimension style Style.
type Tolerance struct {
	Text     string
	P        geom.Vec
	Height   float64
	Rotation float64 // degrees, in [0, 360)
	Style    string
}

// GDT symbols: the letters of AutoCAD's gdt font, by the characteristic
// or modifier they stand for, and the Unicode character drawn for each
// (the engine's font has no gdt).
var gdtSymbols = []struct {
	letter byte
	name   string
	glyph  string
}{
	{'a', "angularity", "∠"},
	{'b', "perpendicularity", "⊥"},
	{'c', "flatness", "⏥"},
	{'d', "surface_profile", "⌓"},
	{'e', "circularity", "○"},
	{'f', "parallelism", "∥"},
	{'g', "cylindricity", "⌭"},
	{'h', "circular_runout", "↗"},
	{'i', "symmetry", "⌯"},
	{'j', "position", "⌖"},
	{'k', "line_profile", "⌒"},
	{'l', "lmc", "Ⓛ"},
	{'m', "mmc", "Ⓜ"},
	{'n', "diameter", "⌀"},
	{'p', "projected", "Ⓟ"},
	{'r', "concentricity", "◎"},
	{'s', "rfs", "Ⓢ"},
	{'t', "total_runout", "⌰"},
	{'u', "straightness", "⏤"},
}

// GDTSymbol is the text of a TOLERANCE that draws the GD&T symbol named
// (position, flatness, perpendicularity, diameter, mmc… as gdtSymbols
// names them: {\Fgdt;j} for position), or false for a name it does not
// know.
func GDTSymbol(name string) (string, bool) {
	for _, s := range gdtSymbols {
		if strings.EqualFold(name, s.name) {
			return `{\Fgdt;` + string(s.letter) + "}", true
		}
	}
	return "", false
}

// NewTolerance makes a feature control frame at p of the rows given,
// each its compartments' texts (the characteristic's symbol, see
// GDTSymbol, the tolerance, then the datums; empty ones are left out of
// the frame), its text height tall along rotation degrees, in the
// dimension style named.
func NewTolerance(p geom.Vec, height, rotation float64, style string, rows ...[]string) (Tolerance, error) {
	if !(height > 0) {
		return Tolerance{}, errors.New("a tolerance needs a positive text height")
	}
	var lines []string
	for _, r := range rows {
		lines = append(lines, strings.Join(r, "%%v"))
	}
	g := Tolerance{Text: strings.Join(lines, "^J"), P: p, Height: height, Rotation: geom.NormDeg(rotation), Style: style}
	if len(g.rows()) == 0 {
		return Tolerance{}, errors.New("a tolerance needs a compartment with text")
	}
	return g, nil
}

// Kind implements [Geometry].
func (Tolerance) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_TOLERANCE }

// rows are the frame's rows, each its compartments' texts as drawn
// (symbols as Unicode characters, formatting left out, empty
// compartments and rows dropped).
func (g Tolerance) rows() [][]string {
	var out [][]string
	for _, line := range splitFold(g.Text, "^J") {
		var row []string
		for _, c := range splitFold(line, "%%v") {
			if s := strings.TrimSpace(toleranceText(c)); s != "" {
				row = append(row, s)
			}
		}
		if len(row) > 0 {
			out = append(out, row)
		}
	}
	return out
}

// splitFold splits s at each sep, in any case.
func splitFold(s, sep string) []string {
	var out []string
	for {
		i := strings.Index(strings.ToLower(s), strings.ToLower(sep))
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i])
		s = s[i+len(sep):]
	}
}

// toleranceText is a compartment's text as drawn: {\Fgdt;x} the GD&T
// symbol x stands for, other font changes and braces left out, %%c a
// diameter sign.
func toleranceText(s string) string {
	var b strings.Builder
	gdt := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '{' || c == '}':
			gdt = false
		case c == '\\' && i+1 < len(s) && (s[i+1] == 'F' || s[i+1] == 'f'):
			end := strings.IndexByte(s[i:], ';')
			if end < 0 {
				return b.String()
			}
			font := strings.ToLower(s[i+2 : i+end])
			gdt = font == "gdt" || strings.HasPrefix(font, "gdt|") || strings.HasPrefix(font, "gdt.")
			i += end
		case strings.HasPrefix(strings.ToLower(s[i:]), "%%c"):
			b.WriteString("⌀")
			i += 2
		case gdt:
			b.WriteString(gdtGlyph(c))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// gdtGlyph is the character drawn for the gdt font's letter c (c
// itself when it stands for none).
func gdtGlyph(c byte) string {
	c |= 0x20
	for _, s := range gdtSymbols {
		if s.letter == c {
			return s.glyph
		}
	}
	return string(c)
}

// layout is the frame's compartments, in the frame's own coordinates
// (x along it from P, y up): for each, its box's lower-left corner,
// width and height, and the text centred in it; rows are twice the text
// height tall, the first centred on P, the next below it. A compartment
// of one symbol is square; another is as wide as its text (each symbol
// in it a text height) and a text height more.
func (g Tolerance) layout() (boxes [][4]float64, texts []string) {
	hr := 2 * g.Height
	for i, row := range g.rows() {
		x, y := 0.0, -hr/2-float64(i)*hr
		for _, s := range row {
			w := hr
			if len([]rune(s)) > 1 || gdtLetter(s) == 0 {
				w = max(hr, g.runsWidth(s)+g.Height)
			}
			boxes = append(boxes, [4]float64{x, y, w, hr})
			texts = append(texts, s)
			x += w
		}
	}
	return boxes, texts
}

// gdtLetter is the gdt font's letter of a string that is one GD&T
// symbol's character, or 0.
func gdtLetter(s string) byte {
	for _, x := range gdtSymbols {
		if x.glyph == s {
			return x.letter
		}
	}
	return 0
}

// runs splits a compartment's text into runs of plain text and single
// GD&T symbols.
func runs(s string) []string {
	var out []string
	text := ""
	for _, r := range s {
		if c := string(r); gdtLetter(c) != 0 {
			if text != "" {
				out, text = append(out, text), ""
			}
			out = append(out, c)
			continue
		}
		text += string(r)
	}
	if text != "" {
		out = append(out, text)
	}
	return out
}

// runsWidth is how wide a compartment's text is drawn: its plain text in
// the engine's font, each symbol a text height.
func (g Tolerance) runsWidth(s string) float64 {
	w := 0.0
	for _, r := range runs(s) {
		if gdtLetter(r) != 0 {
			w += g.Height
		} else {
			w += drawnWidth(r, g.Height)
		}
	}
	return w
}

// frame maps a point of the frame's own coordinates to the world.
func (g Tolerance) frame(x, y float64) geom.Vec {
	s, c := geom.SinCosDeg(g.Rotation)
	return g.P.Add(geom.Pt(c*x-s*y, s*x+c*y))
}

// Prims implements [Geometry]: the compartments' frames.
func (g Tolerance) Prims() []any {
	boxes, _ := g.layout()
	var out []any
	for _, b := range boxes {
		out = append(out, outline(g.box(b), ^0)...)
	}
	return out
}

// box is a compartment's corners in the world, counter-clockwise.
func (g Tolerance) box(b [4]float64) []geom.Vec {
	x, y, w, h := b[0], b[1], b[2], b[3]
	return []geom.Vec{g.frame(x, y), g.frame(x+w, y), g.frame(x+w, y+h), g.frame(x, y+h)}
}

// Picture implements [Pictured]: the compartments framed, each text
// centred in its own; the GD&T symbols drawn as strokes (the engine's
// font has none of them: see gdtStrokes), the plain text as text.
func (g Tolerance) Picture() Picture {
	boxes, texts := g.layout()
	p := Picture{Strokes: g.Prims()}
	h := g.Height
	for i, b := range boxes {
		x, y := b[0]+(b[2]-g.runsWidth(texts[i]))/2, b[1]+b[3]/2
		for _, r := range runs(texts[i]) {
			if c := gdtLetter(r); c != 0 {
				g.symbol(&p, c, x+h/2, y)
				x += h
				continue
			}
			p.Texts = append(p.Texts, Text{Text: r, P: g.frame(x, y), Height: h, Rotation: g.Rotation, Align: Align{H: AlignLeft, V: AlignMiddle}})
			x += drawnWidth(r, h)
		}
	}
	return p
}

// symbol draws the GD&T symbol of the gdt font's letter c centred at
// (x, y) of the frame, a text height tall: its strokes, and the letter
// of a modifier in its circle.
func (g Tolerance) symbol(p *Picture, c byte, x, y float64) {
	h := g.Height
	at := func(u, v float64) geom.Vec { return g.frame(x+u*h, y+v*h) }
	for _, s := range gdtStrokes(c) {
		switch s := s.(type) {
		case [2][2]float64:
			p.Strokes = append(p.Strokes, geom.Segment{A: at(s[0][0], s[0][1]), B: at(s[1][0], s[1][1])})
		case gdtArc:
			p.Strokes = append(p.Strokes, geom.Arc{C: at(s.x, s.y), R: s.r * h, Start: s.start + geom.Rad(g.Rotation), Sweep: s.sweep})
		}
	}
	if l := gdtModifier(c); l != "" {
		p.Texts = append(p.Texts, Text{Text: l, P: at(0, 0), Height: 0.55 * h, Rotation: g.Rotation, Align: Align{H: AlignCenter, V: AlignMiddle}})
	}
}

// gdtArc is an arc of a GD&T symbol, in text heights about the symbol's
// centre: centre, radius, start and sweep (radians).
type gdtArc struct{ x, y, r, start, sweep float64 }

// gdtModifier is the letter a modifier's symbol (Ⓜ, Ⓛ, Ⓢ, Ⓟ) circles,
// or "".
func gdtModifier(c byte) string {
	switch c {
	case 'm', 'l', 's', 'p':
		return strings.ToUpper(string(c))
	}
	return ""
}

// gdtStrokes are the strokes of the GD&T symbol of the gdt font's letter
// c, in text heights about its centre (segments as [2][2]float64 and
// arcs): as ISO 1101 draws them.
func gdtStrokes(c byte) []any {
	seg := func(x0, y0, x1, y1 float64) [2][2]float64 { return [2][2]float64{{x0, y0}, {x1, y1}} }
	circle := func(r float64) gdtArc { return gdtArc{r: r, sweep: 2 * math.Pi} }
	arrow := func(x0, y0, x1, y1 float64) []any {
		return []any{seg(x0, y0, x1, y1), seg(x1, y1, x1-0.3, y1-0.05), seg(x1, y1, x1-0.05, y1-0.3)}
	}
	switch c {
	case 'a': // angularity
		return []any{seg(0.5, -0.4, -0.5, -0.4), seg(-0.5, -0.4, 0.35, 0.4)}
	case 'b': // perpendicularity
		return []any{seg(-0.5, -0.4, 0.5, -0.4), seg(0, -0.4, 0, 0.5)}
	case 'c': // flatness
		return []any{seg(-0.5, -0.25, 0.25, -0.25), seg(0.25, -0.25, 0.5, 0.25), seg(0.5, 0.25, -0.25, 0.25), seg(-0.25, 0.25, -0.5, -0.25)}
	case 'd': // profile of a surface
		return []any{gdtArc{y: -0.25, r: 0.5, sweep: math.Pi}, seg(-0.5, -0.25, 0.5, -0.25)}
	case 'e': // circularity
		return []any{circle(0.45)}
	case 'f': // parallelism
		return []any{seg(-0.4, -0.45, -0.05, 0.45), seg(0.05, -0.45, 0.4, 0.45)}
	case 'g': // cylindricity
		return []any{circle(0.3), seg(-0.55, -0.45, -0.05, 0.45), seg(0.05, -0.45, 0.55, 0.45)}
	case 'h': // circular runout
		return arrow(-0.4, -0.4, 0.4, 0.4)
	case 'i': // symmetry
		return []any{seg(-0.3, 0.3, 0.3, 0.3), seg(-0.5, 0, 0.5, 0), seg(-0.3, -0.3, 0.3, -0.3)}
	case 'j': // position
		return []any{circle(0.3), seg(-0.5, 0, 0.5, 0), seg(0, -0.5, 0, 0.5)}
	case 'k': // profile of a line
		return []any{gdtArc{y: -0.25, r: 0.5, sweep: math.Pi}}
	case 'n': // diameter
		return []any{circle(0.35), seg(-0.45, -0.45, 0.45, 0.45)}
	case 'r': // concentricity
		return []any{circle(0.45), circle(0.22)}
	case 't': // total runout
		return append(append(arrow(-0.5, -0.4, 0.05, 0.4), arrow(-0.05, -0.4, 0.5, 0.4)...), seg(-0.5, -0.4, -0.05, -0.4))
	case 'u': // straightness
		return []any{seg(-0.5, 0, 0.5, 0)}
	case 'l', 'm', 'p', 's': // modifiers: a circled letter
		return []any{circle(0.5)}
	}
	return nil
}

// Bounds implements [Geometry]: the frames' corners.
func (g Tolerance) Bounds() geom.Box {
	boxes, _ := g.layout()
	var out geom.Box
	for _, b := range boxes {
		out.AddBox(boxOf(g.box(b)))
	}
	return out
}

// Finite implements [Geometry].
func (g Tolerance) Finite() bool { return g.P.Finite() && geom.IsFinite(g.Height) }

// Transformed implements [Geometry]: P mapped, the height scaled, turned
// with the map; like [Text.Transformed], a reflection keeps it readable.
func (g Tolerance) Transformed(x geom.Xform) Geometry {
	out := g
	out.P, out.Height = x.Point(g.P), g.Height*x.Scale
	if !x.Mirror {
		out.Rotation = x.Direction(g.Rotation)
	}
	return out
}

// Affined implements [Geometry]: as Text's.
func (g Tolerance) Affined(m geom.Affine) Geometry { return g.Transformed(m.Nearest(g.P)) }

// encodeTo writes: text, style (strings), p, height, rotation.
func (g Tolerance) encodeTo(w *encoder) {
	w.string(g.Text)
	w.string(g.Style)
	w.vec(g.P)
	w.float(g.Height)
	w.float(g.Rotation)
}

func decodeTolerance(r *decoder) Tolerance {
	g := Tolerance{Text: r.string(), Style: r.string(), P: r.vec()}
	g.Height, g.Rotation = r.float(), r.float()
	return g
}

func (g Tolerance) fill(w *wire) {
	pb := &w.pb
	pb.Text, pb.Insertion, pb.DimStyle = new(g.Text), w.point(g.P), new(g.Style)
	pb.Height, pb.Rotation = w.num(g.Height), w.num(g.Rotation)
	s, c := geom.SinCosDeg(g.Rotation)
	pb.Direction = w.point(geom.Pt(c, s))
}
