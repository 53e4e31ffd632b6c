package drawing

import (
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// DimStyle is a named set of dimension sizes, in document units before a
// dimension's own scale (DIMSCALE).
type DimStyle struct {
	Name       string
	TextHeight float64 // DIMTXT
	ArrowSize  float64 // DIMASZ
	ExtOffset  float64 // DIMEXO: gap between a measured point and its extension line
	ExtBeyond  float64 // DIMEXE: extension past the dimension line
	TextGap    float64 // DIMGAP: gap between the dimension line and the text
	Decimals   int     // DIMDEC
	Units      enginev1.Units
}

// DimStyles are the engine's dimension styles: ISO-25 (ISO 129, sizes in
// millimetres, AutoCAD's metric default) and ANSI (ASME Y14.5, sizes in
// inches, AutoCAD's imperial "Standard").
var DimStyles = []DimStyle{
	{Name: "ISO-25", TextHeight: 2.5, ArrowSize: 2.5, ExtOffset: 0.625, ExtBeyond: 1.25, TextGap: 0.625, Decimals: 2, Units: enginev1.Units_UNITS_MM},
	{Name: "ANSI", TextHeight: 0.18, ArrowSize: 0.18, ExtOffset: 0.0625, ExtBeyond: 0.18, TextGap: 0.09, Decimals: 4, Units: enginev1.Units_UNITS_IN},
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

// dimStyleOf is the style a dimension names, ISO-25 when it names none the
// engine knows (a style read from a file keeps its name).
func dimStyleOf(name string) DimStyle {
	if s, ok := DimStyleNamed(name); ok {
		return s
	}
	return DimStyles[0]
}
