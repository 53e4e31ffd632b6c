package drawing

import (
	"errors"
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
// width and the text centred in it; rows are twice the text height
// tall, the first centred on P, the next below it. A compartment of one
// character (a symbol) is square; another is its text's width and a
// text height more.
func (g Tolerance) layout() (boxes [][4]float64, texts []string) {
	hr := 2 * g.Height
	for i, row := range g.rows() {
		x, y := 0.0, -hr/2-float64(i)*hr
		for _, s := range row {
			w := hr
			if len([]rune(s)) > 1 {
				w = max(hr, drawnWidth(s, g.Height)+g.Height)
			}
			boxes = append(boxes, [4]float64{x, y, w, hr})
			texts = append(texts, s)
			x += w
		}
	}
	return boxes, texts
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
// centred in its own.
func (g Tolerance) Picture() Picture {
	boxes, texts := g.layout()
	p := Picture{Strokes: g.Prims()}
	for i, b := range boxes {
		c := g.frame(b[0]+b[2]/2, b[1]+b[3]/2)
		p.Texts = append(p.Texts, Text{Text: texts[i], P: c, Height: g.Height, Rotation: g.Rotation, Align: Align{H: AlignCenter, V: AlignMiddle}})
	}
	return p
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
