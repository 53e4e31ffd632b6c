package drawing

import (
	"math"
	"strconv"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// DimStyle is a named set of dimension sizes, in document units before a
// dimension's own scale (DIMSCALE), and of how its text is set and
// written.
type DimStyle struct {
	Name       string
	TextHeight float64 // DIMTXT
	ArrowSize  float64 // DIMASZ
	ExtOffset  float64 // DIMEXO: gap between a measured point and its extension line
	ExtBeyond  float64 // DIMEXE: extension past the dimension line
	TextGap    float64 // DIMGAP: gap between the dimension line and the text
	Decimals   int     // DIMDEC
	Units      enginev1.Units
	// Text is the text style the text is set in (DIMTXSTY); the zero
	// TextStyle is Standard's.
	Text TextStyle
	// Centred is DIMTAD 0: the text centred on the dimension line, which
	// is broken for it; otherwise (DIMTAD 1, the engine's two styles) it
	// sits above the line.
	Centred bool
	// Zeros is DIMZIN's zero suppression of a decimal measurement:
	// ZerosTrailing drops the zeros after the last significant decimal,
	// ZerosLeading the zero before the point of a number below 1.
	Zeros uint8
	// Post is DIMPOST: the text around the measurement, "<>" standing
	// for it, or a suffix when it has no "<>"; "" for none.
	Post string
	// Round is DIMRND: the measurement rounded to the nearest multiple
	// of it; 0 for none.
	Round float64
}

// The bits of DimStyle.Zeros, as DIMZIN has them.
const (
	ZerosLeading  = 4
	ZerosTrailing = 8
)

// DimStyles are the engine's dimension styles: ISO-25 (ISO 129, sizes in
// millimetres, AutoCAD's metric default) and ANSI (ASME Y14.5, sizes in
// inches, AutoCAD's imperial "Standard").
var DimStyles = []DimStyle{
	{Name: "ISO-25", TextHeight: 2.5, ArrowSize: 2.5, ExtOffset: 0.625, ExtBeyond: 1.25, TextGap: 0.625, Decimals: 2, Units: enginev1.Units_UNITS_MM, Zeros: ZerosTrailing},
	{Name: "ANSI", TextHeight: 0.18, ArrowSize: 0.18, ExtOffset: 0.0625, ExtBeyond: 0.18, TextGap: 0.09, Decimals: 4, Units: enginev1.Units_UNITS_IN, Zeros: ZerosTrailing},
}

// DimStyleNamed is the style of that name (ignoring case).
func DimStyleNamed(name string) (DimStyle, bool) {
	for _, s := range DimStyles {
		if strings.EqualFold(s.Name, name) {
			return s, true
		}
	}
	return DimStyle{}, false
}

// DefaultDimStyle is the style for documents in units u: ANSI for inches
// and feet, ISO-25 otherwise.
func DefaultDimStyle(u enginev1.Units) DimStyle {
	if u == enginev1.Units_UNITS_IN || u == enginev1.Units_UNITS_FT {
		return DimStyles[1]
	}
	return DimStyles[0]
}

// BuiltinDimStyle is the engine's style a dimension naming name is drawn
// in when it carries no style of its own: the one of that name, ISO-25
// when it names none the engine knows (a style read from a file keeps its
// name).
func BuiltinDimStyle(name string) DimStyle {
	if s, ok := DimStyleNamed(name); ok {
		return s
	}
	return DimStyles[0]
}

// Format is the measurement m as the style writes it: rounded to a
// multiple of Round, to Decimals places, with the zeros Zeros drops
// dropped (-0 is 0), inside Post.
func (s DimStyle) Format(m float64) string {
	if s.Round > 0 && geom.IsFinite(s.Round) {
		m = math.Round(m/s.Round) * s.Round
	}
	t := strconv.FormatFloat(m, 'f', max(0, s.Decimals), 64)
	if s.Zeros&ZerosTrailing != 0 && strings.Contains(t, ".") {
		t = strings.TrimRight(strings.TrimRight(t, "0"), ".")
	}
	if strings.Trim(t, "-0.") == "" {
		t = strings.TrimPrefix(t, "-")
	}
	if s.Zeros&ZerosLeading != 0 && t != "0" {
		if rest, ok := strings.CutPrefix(t, "0."); ok {
			t = "." + rest
		} else if rest, ok := strings.CutPrefix(t, "-0."); ok {
			t = "-." + rest
		}
	}
	if s.Post == "" {
		return t
	}
	if strings.Contains(s.Post, "<>") {
		return strings.Replace(s.Post, "<>", t, 1)
	}
	return t + s.Post
}

// encodeTo writes a dimension's own style: a version byte (1), name,
// text height, arrow size, extension offset and overshoot, text gap,
// decimals (uvarint), the text style (see TextStyle.encodeTo), centred (1
// byte), zeros (1 byte), post (string), round. The units are not kept: a
// dimension's own style is its file's, in its document's units.
func (s DimStyle) encodeTo(w *encoder) {
	w.byte(dimStyleVersion)
	w.string(s.Name)
	w.float(s.TextHeight)
	w.float(s.ArrowSize)
	w.float(s.ExtOffset)
	w.float(s.ExtBeyond)
	w.float(s.TextGap)
	w.uvarint(uint64(max(0, s.Decimals)))
	s.Text.encodeTo(w)
	w.bool(s.Centred)
	w.byte(s.Zeros)
	w.string(s.Post)
	w.float(s.Round)
}

// finite reports whether the style's sizes are finite numbers.
func (s DimStyle) finite() bool {
	for _, v := range [...]float64{s.TextHeight, s.ArrowSize, s.ExtOffset, s.ExtBeyond, s.TextGap, s.Round, s.Text.Width, s.Text.Oblique, s.Text.Fixed} {
		if !geom.IsFinite(v) {
			return false
		}
	}
	return true
}

// dimStyleVersion is the version of DimStyle.encodeTo's encoding.
const dimStyleVersion = 1

func decodeDimStyle(r *decoder) DimStyle {
	if r.byte() != dimStyleVersion {
		r.fail("dimension style version")
		return DimStyle{}
	}
	s := DimStyle{Name: r.string()}
	s.TextHeight, s.ArrowSize, s.ExtOffset, s.ExtBeyond, s.TextGap = r.float(), r.float(), r.float(), r.float(), r.float()
	if d := r.uvarint(); d > 16 {
		r.fail("dimension decimals")
	} else {
		s.Decimals = int(d)
	}
	s.Text = decodeTextStyle(r)
	s.Centred = r.byte() == 1
	if s.Zeros = r.byte(); s.Zeros&^(ZerosLeading|ZerosTrailing) != 0 {
		r.fail("dimension zero suppression")
	}
	s.Post = r.string()
	s.Round = r.float()
	return s
}
