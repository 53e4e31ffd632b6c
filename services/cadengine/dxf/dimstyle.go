package dxf

import (
	"math"
	"strconv"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Dimension styles: the DIMSTYLE table's entries, the HEADER's $DIM*
// defaults and a dimension's own overrides (ACAD DSTYLE extended data),
// read as the variables they set and resolved, for a dimension without a
// block of its own, into the drawing.DimStyle it is drawn in (see
// File.dimStyleOf); written back as DSTYLE overrides (see
// dxfWriter.dimOverrides).

// dimVars are dimension variables as a DIMSTYLE entry, the HEADER or a
// dimension's overrides set them: each value as written, by the
// variable's DIMSTYLE group code (DIMTXSTY's, 340, a STYLE entry's
// handle; the HEADER's $DIMTXSTY, a name, is kept at 7).
type dimVars map[int]string

// The group codes of the dimension variables the engine reads.
const (
	dimScale     = 40  // DIMSCALE
	dimArrow     = 41  // DIMASZ
	dimExtOffset = 42  // DIMEXO
	dimExtBeyond = 44  // DIMEXE
	dimRound     = 45  // DIMRND
	dimText      = 140 // DIMTXT
	dimGap       = 147 // DIMGAP
	dimAbove     = 77  // DIMTAD
	dimZeros     = 78  // DIMZIN
	dimDecimals  = 271 // DIMDEC
	dimPost      = 3   // DIMPOST
	dimTextStyle = 340 // DIMTXSTY, a STYLE handle
	// dimTextStyleName is the HEADER's $DIMTXSTY, a STYLE name.
	dimTextStyleName = 7
)

// headerDimCodes are the HEADER's dimension variables the engine reads,
// by name: the group code their DIMSTYLE entries set them at.
var headerDimCodes = map[string]int{
	"$DIMSCALE": dimScale, "$DIMASZ": dimArrow, "$DIMEXO": dimExtOffset, "$DIMEXE": dimExtBeyond,
	"$DIMRND": dimRound, "$DIMTXT": dimText, "$DIMGAP": dimGap, "$DIMTAD": dimAbove, "$DIMZIN": dimZeros,
	"$DIMDEC": dimDecimals, "$DIMPOST": dimPost, "$DIMTXSTY": dimTextStyleName,
}

// set keeps a variable of a DIMSTYLE entry or the HEADER: the value at
// code, for one of the codes the engine reads.
func (v dimVars) set(code int, value string) {
	switch code {
	case dimScale, dimArrow, dimExtOffset, dimExtBeyond, dimRound, dimText, dimGap, dimAbove, dimZeros,
		dimDecimals, dimPost, dimTextStyleName:
		v[code] = strings.TrimSpace(value)
	case dimTextStyle:
		v[code] = strings.ToUpper(strings.TrimSpace(value))
	}
}

// dimLayers are where a dimension's variables come from, first found
// first: its overrides, its style's DIMSTYLE entry, the HEADER.
type dimLayers [3]dimVars

// dimLayers are the variables of a dimension of the style named style
// with the overrides over: a style the DIMSTYLE table lacks is its
// Standard entry's, as AutoCAD's audit names it instead.
func (f *File) dimLayers(style string, over dimVars) dimLayers {
	entry, ok := f.dimStyles[foldName(style)]
	if !ok {
		entry = f.dimStyles[foldName("Standard")]
	}
	return dimLayers{over, entry, f.dimHeader}
}

// value is the variable at code, from the first layer that sets it.
func (l dimLayers) value(code int) (string, bool) {
	for _, v := range l {
		if s, ok := v[code]; ok {
			return s, true
		}
	}
	return "", false
}

// number is the variable at code as a finite number, from the first
// layer that sets it so and whose value ok accepts.
func (l dimLayers) number(code int, ok func(float64) bool) (float64, bool) {
	for _, v := range l {
		if s, set := v[code]; set {
			if x, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && geom.IsFinite(x) && ok(x) {
				return x, true
			}
		}
	}
	return 0, false
}

// isPositive and notNegative are what number accepts of a size.
func isPositive(x float64) bool  { return x > 0 }
func notNegative(x float64) bool { return x >= 0 }

// size sets *to to the positive size at code, when a layer sets one.
func (l dimLayers) size(code int, to *float64) {
	if x, ok := l.number(code, isPositive); ok {
		*to = x
	}
}

// dimStyleOf is the style a dimension without a block of its own, of the
// style named name with the overrides over, is drawn in: the engine's
// style of that name (ISO-25 for one it does not know) with what the
// overrides, the file's DIMSTYLE entry and its HEADER set (in that
// order) of DIMTXT, DIMASZ, DIMEXO, DIMEXE, DIMGAP (its size: a negative
// one asks for a frame, which is not drawn), DIMDEC, DIMTAD, DIMZIN,
// DIMPOST, DIMRND and DIMTXSTY (whose STYLE's fixed height, when it has
// one, is the text's height, as in AutoCAD). The zero DimStyle when that
// is the engine's style as it is: such a dimension is drawn in it.
func (f *File) dimStyleOf(name string, over dimVars) drawing.DimStyle {
	base := drawing.BuiltinDimStyle(name)
	base.Name, base.Units = name, 0
	st := base
	l := f.dimLayers(name, over)
	l.size(dimText, &st.TextHeight)
	l.size(dimArrow, &st.ArrowSize)
	if x, ok := l.number(dimExtOffset, notNegative); ok {
		st.ExtOffset = x
	}
	if x, ok := l.number(dimExtBeyond, notNegative); ok {
		st.ExtBeyond = x
	}
	if x, ok := l.number(dimGap, func(x float64) bool { return true }); ok {
		st.TextGap = math.Abs(x)
	}
	if x, ok := l.number(dimRound, notNegative); ok {
		st.Round = x
	}
	if x, ok := l.number(dimDecimals, func(x float64) bool { return x >= 0 && x <= 8 }); ok {
		st.Decimals = int(x)
	}
	if x, ok := l.number(dimAbove, notNegative); ok {
		st.Centred = x == 0
	}
	if x, ok := l.number(dimZeros, notNegative); ok {
		st.Zeros = uint8(int(x) & (drawing.ZerosLeading | drawing.ZerosTrailing))
	}
	if s, ok := l.value(dimPost); ok && s != "<>" {
		st.Post = decodeDXFText(s)
	}
	st.Text = f.dimTextStyle(l)
	if st.Text.Fixed > 0 {
		st.TextHeight = st.Text.Fixed
	}
	if st == base {
		return drawing.DimStyle{}
	}
	return st
}

// dimTextStyle is the text style DIMTXSTY names (by handle in a DIMSTYLE
// entry or an override, by name in the HEADER): Standard when it names
// none the STYLE table has.
func (f *File) dimTextStyle(l dimLayers) drawing.TextStyle {
	for _, v := range l {
		name := ""
		if h, ok := v[dimTextStyle]; ok {
			name = f.styleNames[strings.ToUpper(h)]
		} else if n, ok := v[dimTextStyleName]; ok {
			name = decodeName(n)
		}
		if name == "" {
			continue
		}
		if s, ok := f.styles[foldName(name)]; ok {
			return plainStandard(s)
		}
	}
	return plainStandard(f.styles[foldName("Standard")])
}

// dstyle are the dimension style's variables the entity overrides (its
// ACAD DSTYLE extended data: pairs of a 1070 naming the variable by its
// DIMSTYLE group code, then its value: a 1040 real, a 1070 integer, a
// 1000 string or a 1005 handle).
func (r dxfRecord) dstyle() dimVars {
	out := dimVars{}
	in, code := false, 0
	for _, p := range r.pairs {
		switch {
		case p.code == 1001:
			in, code = false, 0
		case p.code == 1000 && !in && strings.EqualFold(strings.TrimSpace(p.value), "DSTYLE"):
			in = true
		case !in:
		case code == 0 && p.code == 1070:
			n, err := p.int()
			if err == nil && n != 0 {
				code = int(n)
			}
		case code != 0 && (p.code == 1040 || p.code == 1070 || p.code == 1000 || p.code == 1005):
			out.set(code, p.value)
			code = 0
		}
	}
	return out
}
