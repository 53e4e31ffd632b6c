package dxf

import (
	"math"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Text styles: the STYLE table's entries, read into the drawing.TextStyle
// each TEXT, ATTRIB, ATTDEF and MTEXT names (code 7), and written back
// from the styles the document's texts carry (see textStyleTable).

// textStyles are a file's text styles, by folded name.
type textStyles map[string]drawing.TextStyle

// setStyle applies one pair of a STYLE entry: name 2, flags 70 (1: a
// shape file, not a text style: it gets no name), fixed height 40, width
// factor 41, oblique angle 50, font 3, big font 4.
func setStyle(s *drawing.TextStyle, p dxfPair) {
	switch p.code {
	case 2:
		s.Name = decodeName(p.value)
	case 3:
		s.Font = strings.TrimSpace(p.value)
	case 4:
		s.BigFont = strings.TrimSpace(p.value)
	case 40, 41, 50:
		v, err := p.float()
		if err != nil || !geom.IsFinite(v) {
			return
		}
		switch {
		case p.code == 40 && v > 0:
			s.Fixed = v
		case p.code == 41 && v > 0:
			s.Width = v
		case p.code == 50:
			s.Oblique = v
		}
	}
}

// styleEntry is a STYLE table entry as it is read.
type styleEntry struct {
	style  drawing.TextStyle
	shape  bool   // a shape file's (70 & 1), not a text style
	handle string // 5, upper case
	// family and flags are the TrueType face the entry's ACAD extended
	// data names (its first 1000, then 1071: bold 1<<25, italic 1<<24)
	// for an entry that names no font file; acad is whether that data is
	// being read.
	family string
	flags  int64
	acad   bool
}

// The bits of a STYLE entry's font flags (1071) that say bold and italic.
const (
	fontBold   = 1 << 25
	fontItalic = 1 << 24
)

// set applies one pair of the entry (see setStyle).
func (e *styleEntry) set(p dxfPair) {
	switch {
	case p.code == 70:
		n, err := p.int()
		e.shape = err == nil && n&1 != 0
	case p.code == 5:
		e.handle = strings.ToUpper(strings.TrimSpace(p.value))
	case p.code == 1001:
		e.acad = strings.EqualFold(strings.TrimSpace(p.value), "ACAD")
	case e.acad && p.code == 1000 && e.family == "":
		e.family = strings.TrimSpace(p.value)
	case e.acad && p.code == 1071:
		e.flags, _ = p.int()
	}
	setStyle(&e.style, p)
}

// textStyle is the entry's text style: one that names no font file but
// a TrueType family in its extended data is set in that family's file
// (family.ttf, " Bold" or " Italic" in its name as its flags say), as
// AutoCAD and ezdxf find it; a family that is a file name (qcad writes
// "LiberationSans-Regular.ttf") names that file, and "txt", AutoCAD's
// default SHX font, which qcad writes as the family of its Standard
// style, is no TrueType family.
func (e *styleEntry) textStyle() drawing.TextStyle {
	s := e.style
	family := strings.ToLower(e.family)
	if s.Font == "" && family != "" && family != "txt" && family != "txt.shx" {
		switch {
		case strings.Contains(family, "."):
			s.Font = e.family
		case e.flags&fontBold != 0:
			s.Font = e.family + " Bold.ttf"
		case e.flags&fontItalic != 0:
			s.Font = e.family + " Italic.ttf"
		default:
			s.Font = e.family + ".ttf"
		}
	}
	return s
}

// addStyle keeps an entry of the STYLE table (one with a name; a shape
// file's has none), by name and by handle.
func (f *File) addStyle(e *styleEntry) {
	if e == nil || e.style.Name == "" || e.shape {
		return
	}
	f.styles[foldName(e.style.Name)] = e.textStyle()
	if e.handle != "" {
		f.styleNames[e.handle] = e.style.Name
	}
}

// of is the style a record names (7; Standard when it names none or one
// the table has not), with the record's own width factor 41, oblique
// angle 51 and generation flags 71 (backwards, upside down) for a TEXT,
// ATTRIB or ATTDEF (own), and the style's width and angle for an MTEXT.
// A TEXT without 41 or 51 is at DXF's defaults, 1 and 0, as AutoCAD and
// ezdxf read it: a program writes the style's values into the text it
// makes. The plain Standard style (txt, upright, width 1) is the zero
// TextStyle.
func (t textStyles) of(r dxfRecord, v codeValues, own bool) drawing.TextStyle {
	name := "Standard"
	for _, p := range r.pairs {
		if p.code == 7 {
			if n := decodeName(p.value); n != "" {
				name = n
			}
		}
	}
	s, ok := t[foldName(name)]
	if !ok {
		s = drawing.TextStyle{Name: name}
	}
	if own {
		s.Width, s.Oblique = 0, 0
		if w := v[41]; r.has(41) && w > 0 && w != 1 && geom.IsFinite(w) {
			s.Width = w
		}
		if a := v[51]; r.has(51) && geom.IsFinite(a) {
			s.Oblique = math.Remainder(a, 360)
		}
		s.Mirror = uint8(v[71]) & (drawing.MirrorBackward | drawing.MirrorUpsideDown)
	}
	return plainStandard(s)
}

// plainStandard is s, or the zero TextStyle for the Standard style in
// txt without width, slant or sizes of its own, as every file has it.
// Standard is spelled so, and txt as no font.
func plainStandard(s drawing.TextStyle) drawing.TextStyle {
	if s.Width == 1 {
		s.Width = 0
	}
	if font := strings.TrimSuffix(strings.ToLower(s.Font), ".shx"); font == "txt" {
		s.Font = ""
	}
	if strings.EqualFold(s.Name, "Standard") {
		s.Name = "Standard"
		if (s == drawing.TextStyle{Name: "Standard"}) {
			return drawing.TextStyle{}
		}
	}
	return s
}

// fitted sets a TEXT, ATTRIB or ATTDEF justified between two points (72
// = 3 aligned, 5 fit; v its codes) as the engine holds it: from its first
// point 10 to its second 11, along them; false for any other, or one
// without a second point apart from its first.
func (r dxfRecord) fitted(v codeValues, t *drawing.Text) bool {
	fit := map[float64]uint8{3: drawing.FitAligned, 5: drawing.FitWidth}[v[72]]
	p, end := geom.Pt(v[10], v[20]), geom.Pt(v[11], v[21])
	if fit == drawing.FitNone || !r.has(11) || !(end.Sub(p).Len() > geom.Tolerance) {
		return false
	}
	t.Fit, t.P, t.End, t.Align = fit, p, end, drawing.Align{}
	t.Rotation = geom.Deg(end.Sub(p).Angle())
	return true
}

// readableFit is a fitted text seen from below (extrusion -Z), its points
// already mirrored: read the right way it runs from its end to its start
// (see readable).
func readableFit(t drawing.Text) drawing.Text {
	t.P, t.End = t.End, t.P
	t.Rotation = geom.Deg(t.End.Sub(t.P).Angle())
	return t
}

// textStyleTable is the STYLE table a document's texts need: Standard
// first, then every other style a text, attribute, MTEXT or dimension
// names, in the drawing or its blocks, in the order first met. An entry's
// width factor and oblique angle are those of an MTEXT or dimension in it
// (which takes them from its style); a TEXT writes its own, so a style
// only TEXTs name is written upright at width 1.
func textStyleTable(d *drawing.Document, ents []*drawing.Entity) []drawing.TextStyle {
	out := []drawing.TextStyle{{Name: "Standard", Font: "txt"}}
	at := map[string]int{"standard": 0}
	add := func(s drawing.TextStyle, ownSizes bool) {
		name := styleName(s)
		i, ok := at[foldName(name)]
		if !ok {
			i = len(out)
			at[foldName(name)] = i
			out = append(out, drawing.TextStyle{Name: name, Font: s.Font, BigFont: s.BigFont, Fixed: s.Fixed})
			if out[i].Font == "" {
				out[i].Font = "txt"
			}
		}
		if ownSizes {
			out[i].Width, out[i].Oblique = s.Width, s.Oblique
		}
	}
	visit := func(g drawing.Geometry) {
		switch g := g.(type) {
		case drawing.Text:
			add(g.Style, false)
		case drawing.Attdef:
			add(g.Text.Style, false)
		case drawing.MText:
			add(g.Style, true)
		case drawing.Dimension:
			add(g.Own.Text, true)
		case drawing.Insert:
			for _, a := range g.Attribs {
				add(a.Text.Style, false)
			}
		}
	}
	for _, e := range ents {
		visit(e.Geom)
	}
	for _, b := range d.Blocks() {
		for _, e := range b.Entities {
			visit(e.Geom)
		}
	}
	return out
}

// styleName is the name a style is written under: Standard for the
// engine's own.
func styleName(s drawing.TextStyle) string {
	if s.Name == "" {
		return "Standard"
	}
	return s.Name
}

// textStyle writes a STYLE entry's codes after its name's record:
// name 2, flags 70, fixed height 40, width factor 41, oblique angle 50,
// generation flags 71, last height 42, font 3, big font 4.
func (w *dxfWriter) textStyle(s drawing.TextStyle) {
	w.pair(2, s.Name)
	w.int(70, 0)
	w.float(40, s.Fixed)
	w.float(41, s.WidthFactor())
	w.float(50, s.Oblique)
	w.int(71, 0)
	w.float(42, drawing.DefaultTextHeight)
	w.pair(3, s.Font)
	w.pair(4, s.BigFont)
}

// textSet writes how a TEXT's glyphs are set: its width factor 41,
// oblique angle 51 and generation flags 71 when not 1, 0 and 0, and its
// style 7 when not Standard.
func (w *dxfWriter) textSet(s drawing.TextStyle) {
	if wf := s.WidthFactor(); wf != 1 {
		w.float(41, wf)
	}
	if s.Oblique != 0 {
		w.float(51, s.Oblique)
	}
	if s.Mirror != 0 {
		w.int(71, int(s.Mirror))
	}
	if s.Name != "" && !strings.EqualFold(s.Name, "Standard") {
		w.pair(7, s.Name)
	}
}

// fitCode is DXF's horizontal justification 72 of a text set between two
// points.
var fitCode = [...]int{drawing.FitAligned: 3, drawing.FitWidth: 5}
