package drawing

import (
	"math"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// TextStyle is how a text's glyphs are set, as a DXF text style (its
// STYLE table entry) says: in which font, how wide and how slanted. The
// zero TextStyle is the engine's own: "Standard", in txt, upright, at
// width factor 1. A TEXT (or ATTRIB, ATTDEF) carries its own width and
// slant (DXF's 41 and 51, which a program copies from the style when it
// makes the text); an MTEXT takes its style's.
type TextStyle struct {
	Name    string  // the style's name; "" is Standard
	Font    string  // the font file as the file names it: "romans.shx", "arial.ttf"; "" is txt
	BigFont string  // the SHX big font for Asian characters, kept for export
	Width   float64 // the width factor: glyph advances × it; 0 is 1
	Oblique float64 // degrees the glyphs lean right from upright
	Fixed   float64 // the style's fixed height, 0 for none; kept for export
	// Mirror is DXF's text generation flags (TEXT's 71): MirrorBackward
	// draws the glyphs mirrored along the baseline, MirrorUpsideDown
	// across it, each about the text's alignment point.
	Mirror uint8
}

// The bits of TextStyle.Mirror.
const (
	MirrorBackward   = 2
	MirrorUpsideDown = 4
)

// mirrors are the factors the text is mirrored by along and across its
// baseline: 1, or -1 for a text drawn backwards or upside down.
func (s TextStyle) mirrors() (mx, my float64) {
	mx, my = 1, 1
	if s.Mirror&MirrorBackward != 0 {
		mx = -1
	}
	if s.Mirror&MirrorUpsideDown != 0 {
		my = -1
	}
	return mx, my
}

// WidthFactor is the style's width factor, 1 when unset.
func (s TextStyle) WidthFactor() float64 {
	if s.Width > 0 && geom.IsFinite(s.Width) {
		return s.Width
	}
	return 1
}

// Slant is how far a glyph's top moves right of its foot, per unit of
// height: the tangent of the oblique angle, which DXF keeps within ±85°
// (larger angles are clamped there).
func (s TextStyle) Slant() float64 {
	a := math.Remainder(s.Oblique, 360)
	if !geom.IsFinite(a) {
		return 0
	}
	return math.Tan(geom.Rad(max(-85, min(85, a))))
}

// encodeTo writes name, font, big font (strings), width, oblique, fixed
// height, mirror (1 byte).
func (s TextStyle) encodeTo(w *encoder) {
	w.string(s.Name)
	w.string(s.Font)
	w.string(s.BigFont)
	w.float(s.Width)
	w.float(s.Oblique)
	w.float(s.Fixed)
	w.byte(s.Mirror)
}

func decodeTextStyle(r *decoder) TextStyle {
	s := TextStyle{Name: r.string(), Font: r.string(), BigFont: r.string()}
	s.Width = r.float()
	s.Oblique = r.float()
	s.Fixed = r.float()
	if s.Mirror = r.byte(); s.Mirror&^(MirrorBackward|MirrorUpsideDown) != 0 {
		r.fail("text generation flags")
	}
	return s
}

// Typeface is one of the bundled fonts text is drawn in.
type Typeface uint8

// The bundled faces. An SHX font, the stroke font a CAD program draws
// txt, simplex or romans in, has no TrueType file of its own to set it
// in; it is drawn in DejaVu Sans, whose letters are about as wide as
// those stroke fonts' (wider than a TrueType sans face's), and which is
// the face ezdxf's drawing sets them in. A TrueType face is drawn in the
// Go face of about its widths.
const (
	TypefaceRegular  Typeface = iota // DejaVu Sans: for SHX fonts (txt, simplex, romans, isocp, gdt…) and text without a style
	TypefaceMono                     // Go Mono: for monotxt, courier, consolas…
	TypefaceBold                     // Go Bold: for arial bold and other bold faces
	TypefaceItalic                   // Go Italic: for italic.shx and italic faces
	TypefaceTrueType                 // Liberation Sans (Arial's metric twin): for the other TrueType and OpenType faces (arial, segoeui…)

	// NumTypefaces is how many bundled faces there are.
	NumTypefaces = int(TypefaceTrueType) + 1
)

// TypefaceOf is the bundled face a font file is drawn in: SHX and TrueType
// names alike, by what their names say (see docs/decisions.md): a
// monospaced font in Go Mono, a bold one in Go Bold, an italic one in Go
// Italic, every other TrueType or OpenType file (.ttf, .ttc, .otf: arial…)
// in Liberation Sans, and every other SHX font (txt, simplex, romans, isocp,
// gdt…, a name without an extension being one) in DejaVu Sans.
func TypefaceOf(font string) Typeface {
	f := strings.ToLower(strings.TrimSpace(font))
	if i := strings.LastIndexAny(f, `/\`); i >= 0 {
		f = f[i+1:]
	}
	trueType := strings.HasSuffix(f, ".ttf") || strings.HasSuffix(f, ".ttc") || strings.HasSuffix(f, ".otf")
	f = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(f, ".shx"), ".ttf"), ".ttc"), ".otf")
	for _, m := range [...]string{"mono", "cour", "consol", "lucon", "typewriter"} {
		if strings.Contains(f, m) {
			return TypefaceMono
		}
	}
	switch {
	case strings.Contains(f, "bold") || strings.HasSuffix(f, "bd") || strings.HasSuffix(f, "bi"):
		return TypefaceBold
	case strings.Contains(f, "italic") || italicFiles[f]:
		return TypefaceItalic
	case trueType:
		return TypefaceTrueType
	}
	return TypefaceRegular
}

// italicFiles are Windows's italic font files, by name.
var italicFiles = map[string]bool{"ariali": true, "timesi": true, "verdanai": true, "calibrii": true, "georgiai": true, "cambriai": true, "segoeuii": true, "tahomai": true}

// Setting is how a painter sets a line of text: its baseline through
// Anchor, which is the text's start, centre or end as H says
// (AlignLeft, AlignCenter, AlignRight), turned Rotation degrees, its
// capitals Height tall, its glyphs scaled across by XScale (the width
// factor, or a fitted text's stretch) and leaning right by Slant (the
// top's shift per unit of height), in the bundled Typeface, then
// mirrored about Anchor along the baseline (MirrorX -1: drawn backwards)
// and across it (MirrorY -1: upside down).
type Setting struct {
	Anchor   geom.Vec
	H        uint8
	Rotation float64
	Height   float64
	XScale   float64
	Slant    float64
	Typeface Typeface
	MirrorX  float64
	MirrorY  float64
	// Length is a text set between two points: its length along the
	// baseline, which XScale stretches it to in the bundled face (a
	// painter in another face stretches it there itself); 0 otherwise.
	Length float64
	// Lead is how far before Anchor along the baseline, before XScale,
	// the text starts when set in the bundled face: 0 for a text set
	// left, half its width or all of it for one centred or set right,
	// its width measured to the right of its last character's ink (see
	// inkWidthIn). A painter in another face aligns it by H itself.
	Lead float64
}

// Setting is how the text is drawn, in its face of the bundled fonts
// (see TypefaceOf): a text set at its point is anchored there as its
// alignment says; one set between two points centred between them,
// stretched (by the face's advances) to run from P to End.
func (g Text) Setting() Setting {
	st := Setting{Anchor: g.P, H: g.Align.H, Rotation: g.Rotation, Height: g.Height, XScale: g.Style.WidthFactor(), Slant: g.Style.Slant(), Typeface: TypefaceOf(g.Style.Font)}
	st.MirrorX, st.MirrorY = g.Style.mirrors()
	ink := 0.0 // measured only for a text that is not set left
	if g.Fit != FitNone || st.H != AlignLeft {
		ink = inkWidthIn(st.Typeface, g.Text, g.Height)
	}
	st.Lead = ink * float64(st.H) / 2
	if length, k, ok := g.fitted(ink * st.XScale); ok {
		// Centred between the points, as ezdxf sets it (a text drawn
		// backwards is mirrored about the middle).
		st.Anchor, st.H, st.Height, st.Length = g.P.Mid(g.End), AlignCenter, g.Height*k, length
		st.Rotation = geom.Deg(g.End.Sub(g.P).Angle())
		st.Lead = ink * k / 2
		if g.Fit == FitWidth {
			st.XScale *= length / (ink * st.XScale)
		}
		return st
	}
	if _, above := g.Shift(); above != 0 {
		s, c := geom.SinCosDeg(g.Rotation)
		st.Anchor = g.P.Add(geom.Pt(-s, c).Mul(above))
	}
	return st
}

// FontSize is the font size that draws the setting's capitals Height
// tall in a generic sans-serif family (see Text.FontSize), as SVG names.
func (st Setting) FontSize() float64 { return st.Height / capHeight }

// FaceSize is the font size that draws the setting's capitals Height tall
// in its bundled Typeface, as the PNG and PDF exports set it.
func (st Setting) FaceSize() float64 { return st.Height / capHeightOf(st.Typeface) }

// Plain reports whether the setting is upright, unmirrored, at width
// factor 1 in the regular face, as text without a style is drawn.
func (st Setting) Plain() bool {
	return st.XScale == 1 && st.Slant == 0 && st.Typeface == TypefaceRegular && st.MirrorX == 1 && st.MirrorY == 1
}
