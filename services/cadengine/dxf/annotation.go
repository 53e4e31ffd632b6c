package dxf

import (
	"math"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Writing the entities R12 does not have or writes differently:
// LWPOLYLINE, ELLIPSE, MTEXT and HATCH (2018), DIMENSION (both) and the
// R12 stand-in of a hatch.

func (w *dxfWriter) lwpolyline(e *drawing.Entity, g drawing.Polyline) {
	w.common("LWPOLYLINE", e.Handle, e)
	w.sub("AcDbPolyline")
	w.int(90, len(g.V))
	if g.Closed {
		w.int(70, 1)
	} else {
		w.int(70, 0)
	}
	for i, v := range g.V {
		w.float(10, v.P.X)
		w.float(20, v.P.Y)
		if g.Widths != nil {
			w.float(40, g.Widths[i].Start)
			w.float(41, g.Widths[i].End)
		}
		if v.Bulge != 0 {
			w.float(42, v.Bulge)
		}
	}
}

// ellipse writes a true ELLIPSE: parameters in radians, a full one from 0
// to 2π.
func (w *dxfWriter) ellipse(e *drawing.Entity, g drawing.Ellipse) {
	w.common("ELLIPSE", e.Handle, e)
	w.sub("AcDbEllipse")
	w.Point(10, g.C)
	w.Point(11, g.Major)
	w.float(40, g.Ratio)
	if g.Full() {
		w.float(41, 0)
		w.float(42, 2*math.Pi)
		return
	}
	// The end may be below the start (the arc passes 0): readers go round
	// from start to end, and the numbers stay those of the angles.
	w.float(41, geom.Rad(g.Start))
	w.float(42, geom.Rad(g.End))
}

// mtextValue is MTEXT's content of a plain text: its markup (see
// drawing.PlainMarkup) as dxfMarkup writes it, so that decodeMTextValue
// reads it back as written.
func mtextValue(s string) string { return dxfMarkup(drawing.PlainMarkup(s)) }

// dxfMarkup is markup (see drawing.MText.Markup) as MTEXT's content: a
// caret as "^ " (not read as caret notation), "%%" before c, d or p as
// "%{}%" (not read as a symbol), other control characters as spaces.
func dxfMarkup(m string) string {
	var b strings.Builder
	for i, r := range m {
		switch {
		case r == '%' && len(m) > i+2 && m[i+1] == '%' && percentSymbol(m[i+2]) != "":
			b.WriteString("%{}")
		case r == '^':
			b.WriteString("^ ")
		case r < 0x20 || r == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func (w *dxfWriter) mtext(e *drawing.Entity, g drawing.MText) {
	w.common("MTEXT", e.Handle, e)
	w.sub("AcDbMText")
	w.Point(10, g.P)
	w.float(40, g.Height)
	w.float(41, g.Width)
	if g.Columns != nil {
		w.float(46, g.Columns.Height)
	}
	attach := int(g.Attach)
	if attach < 1 || attach > 9 {
		attach = 1
	}
	w.int(71, attach)
	w.int(72, 1)
	v := dxfMarkup(g.FullMarkup())
	// Values are at most 250 bytes: the first chunks as 3, the last as 1,
	// never cutting a character or an escape in two.
	for len(v) > 250 {
		i := 250
		for i > 0 && (v[i]&0xC0 == 0x80 || v[i-1] == '\\') {
			i--
		}
		w.pair(3, v[:i])
		v = v[i:]
	}
	w.pair(1, v)
	w.pair(7, styleName(g.Style))
	if g.Rotation != 0 {
		w.float(50, g.Rotation)
	}
	w.int(73, 1)
	w.float(44, g.Spacing)
	w.mtextBackground(g.Background)
	w.mtextColumns(g)
}

// mtextBackground writes an MTEXT's background mask (none writes
// nothing): 90 the fill flags, 63 the colour (which readers want even
// for the window's colour), 421 its true colour when it has one, 45 the
// border offset factor, 441 the transparency.
func (w *dxfWriter) mtextBackground(b drawing.Background) {
	if b == (drawing.Background{}) {
		return
	}
	w.int(90, int(b.Fill))
	w.int(63, int(b.Color))
	if b.True.Set() {
		w.int(421, int(b.True.RGB()))
	}
	scale := b.Scale
	if !(scale > 0) {
		scale = drawing.DefaultBackgroundScale
	}
	w.float(45, scale)
	w.int(441, int(b.Transparency))
}

// dimTypes are DXF's dimension types (70, without the flags).
var dimTypes = map[enginev1.DimensionKind]int{
	enginev1.DimensionKind_DIMENSION_KIND_ROTATED:   0,
	enginev1.DimensionKind_DIMENSION_KIND_ALIGNED:   1,
	enginev1.DimensionKind_DIMENSION_KIND_DIAMETRIC: 3,
	enginev1.DimensionKind_DIMENSION_KIND_RADIAL:    4,
	enginev1.DimensionKind_DIMENSION_KIND_ANGULAR:   5,
}

// dimension writes a DIMENSION: its definition points as DXF has them,
// the measurement, the style, the scale and its own style as overrides
// (see dimOverrides) and its anonymous block (see plan) with what it
// draws. An angle is written as a 3-point angular dimension.
func (w *dxfWriter) dimension(e *drawing.Entity, g drawing.Dimension) {
	w.common("DIMENSION", e.Handle, e)
	w.sub("AcDbDimension")
	if w.v2018 {
		w.int(280, 0)
	}
	w.pair(2, w.anon[e.Handle])
	pic := g.Picture()
	text := geom.Vec{}
	if len(pic.Texts) > 0 {
		b := pic.Texts[0].Bounds()
		text = b.Min.Mid(b.Max)
	}
	// The definition point (10).
	var def geom.Vec
	switch g.Type {
	case enginev1.DimensionKind_DIMENSION_KIND_ALIGNED:
		def = g.P2.Add(g.P2.Sub(g.P1).Unit().Perp().Mul(g.Offset))
	case enginev1.DimensionKind_DIMENSION_KIND_ROTATED:
		s, c := geom.SinCosDeg(g.Angle)
		u := geom.Pt(c, s)
		def = g.P1.Add(u.Perp().Mul(g.Offset)).Add(u.Mul(g.P2.Sub(g.P1).Dot(u)))
	case enginev1.DimensionKind_DIMENSION_KIND_RADIAL:
		def = g.Center
	case enginev1.DimensionKind_DIMENSION_KIND_DIAMETRIC:
		s, c := geom.SinCosDeg(g.Angle)
		def = g.Center.Sub(geom.Pt(c, s).Mul(g.Radius))
	case enginev1.DimensionKind_DIMENSION_KIND_ANGULAR:
		a := g.P1.Sub(g.Center).Angle() + geom.Rad(g.Measurement())/2
		r := g.Offset
		if r <= 0 {
			r = math.Min(g.P1.Dist(g.Center), g.P2.Dist(g.Center))
		}
		def = g.Center.Add(geom.Pt(math.Cos(a), math.Sin(a)).Mul(r))
	}
	w.Point(10, def)
	w.Point(11, text)
	w.int(70, dimTypes[g.Type]|32)
	if w.v2018 {
		w.int(71, 5)
	}
	w.pair(1, dxfText2018(g.Text))
	if w.v2018 {
		w.float(42, g.Measurement())
	}
	w.pair(3, dimStyleName(g.Style))
	switch g.Type {
	case enginev1.DimensionKind_DIMENSION_KIND_ALIGNED, enginev1.DimensionKind_DIMENSION_KIND_ROTATED:
		w.sub("AcDbAlignedDimension")
		w.Point(13, g.P1)
		w.Point(14, g.P2)
		if g.Type == enginev1.DimensionKind_DIMENSION_KIND_ROTATED {
			w.float(50, g.Angle)
			w.sub("AcDbRotatedDimension")
		}
	case enginev1.DimensionKind_DIMENSION_KIND_RADIAL, enginev1.DimensionKind_DIMENSION_KIND_DIAMETRIC:
		if g.Type == enginev1.DimensionKind_DIMENSION_KIND_RADIAL {
			w.sub("AcDbRadialDimension")
		} else {
			w.sub("AcDbDiametricDimension")
		}
		s, c := geom.SinCosDeg(g.Angle)
		w.Point(15, g.Center.Add(geom.Pt(c, s).Mul(g.Radius)))
		w.float(40, 0)
	case enginev1.DimensionKind_DIMENSION_KIND_ANGULAR:
		w.sub("AcDb3PointAngularDimension")
		w.Point(13, g.P1)
		w.Point(14, g.P2)
		w.Point(15, g.Center)
	}
	w.dimOverrides(g)
}

// dimOverrides writes a dimension's overrides of its style (XDATA ACAD
// DSTYLE: each variable's DIMSTYLE group code, a 1070, then its value):
// its scale (DIMSCALE, 40) when not 1, and its own style, when it has
// one, whole: DIMTXT, DIMASZ, DIMEXO, DIMEXE, DIMGAP, DIMDEC, DIMTAD,
// DIMZIN, and DIMPOST, DIMRND when set; in 2018 also DIMTXSTY (340, the
// STYLE entry's handle), which R12 has not. Read back (see
// File.dimStyleOf) they are the dimension's style again, whatever its
// DIMSTYLE entry says.
func (w *dxfWriter) dimOverrides(g drawing.Dimension) {
	scaled := g.Scale != 1 && g.Scale > 0
	own := g.Own != (drawing.DimStyle{})
	if !scaled && !own {
		return
	}
	w.pair(1001, "ACAD")
	w.pair(1000, "DSTYLE")
	w.pair(1002, "{")
	real := func(code int, v float64) {
		w.int(1070, code)
		w.float(1040, v)
	}
	integer := func(code, v int) {
		w.int(1070, code)
		w.int(1070, v)
	}
	if scaled {
		real(dimScale, g.Scale)
	}
	if s := g.Own; own {
		real(dimText, s.TextHeight)
		real(dimArrow, s.ArrowSize)
		real(dimExtOffset, s.ExtOffset)
		real(dimExtBeyond, s.ExtBeyond)
		real(dimGap, s.TextGap)
		integer(dimDecimals, s.Decimals)
		integer(dimAbove, dimtad(s.Centred))
		integer(dimZeros, int(s.Zeros))
		if s.Post != "" {
			w.int(1070, dimPost)
			w.pair(1000, escapeText(s.Post, w.v2018))
		}
		if s.Round > 0 {
			real(dimRound, s.Round)
		}
		if h, ok := w.textStyleHandles[foldName(styleName(s.Text))]; ok && w.v2018 && s.Text != (drawing.TextStyle{}) {
			w.int(1070, dimTextStyle)
			w.pairHandle(1005, h)
		}
	}
	w.pair(1002, "}")
}

// dimtad is DIMTAD for text centred on its dimension line (0) or above
// it (1).
func dimtad(centred bool) int {
	if centred {
		return 0
	}
	return 1
}

// dimStyleName is the name a dimension's style is written under.
func dimStyleName(s string) string {
	if s == "" {
		return "Standard"
	}
	return s
}

// hatch writes a HATCH: polyline boundary paths (bulges included), an
// edge path of one elliptic arc for an ellipse, the outermost loops
// marked external; odd parity; a pattern's lines as DXF wants them,
// scaled and turned by the hatch's scale and angle.
func (w *dxfWriter) hatch(e *drawing.Entity, g drawing.Hatch) {
	w.common("HATCH", e.Handle, e)
	w.sub("AcDbHatch")
	w.Point(10, geom.Vec{})
	w.float(210, 0)
	w.float(220, 0)
	w.float(230, 1)
	w.pair(2, g.Pattern)
	if g.Solid() {
		w.int(70, 1)
	} else {
		w.int(70, 0)
	}
	w.int(71, 0)
	w.int(91, len(g.Loops))
	depths := g.Depths()
	for i, l := range g.Loops {
		flags := 0
		if depths[i] == 0 {
			flags = 1
		}
		if l.Ellipse {
			w.int(92, flags)
			w.int(93, 1)
			w.int(72, 3)
			w.float(10, l.E.C.X)
			w.float(20, l.E.C.Y)
			w.float(11, l.E.Major.X)
			w.float(21, l.E.Major.Y)
			w.float(40, l.E.Ratio)
			w.float(50, 0)
			w.float(51, 360)
			w.int(73, 1)
		} else {
			w.int(92, flags|2)
			bulges := 0
			for _, v := range l.Poly.V {
				if v.Bulge != 0 {
					bulges = 1
				}
			}
			w.int(72, bulges)
			w.int(73, 1)
			w.int(93, len(l.Poly.V))
			for _, v := range l.Poly.V {
				w.float(10, v.P.X)
				w.float(20, v.P.Y)
				if bulges == 1 {
					w.float(42, v.Bulge)
				}
			}
		}
		w.int(97, 0)
	}
	w.int(75, 0)
	w.int(76, 1)
	if !g.Solid() {
		w.float(52, g.Angle)
		w.float(41, g.Scale)
		w.int(77, 0)
		lines := g.PatternLines()
		w.int(78, len(lines))
		for _, l := range lines {
			a := l.Angle + g.Angle
			s, c := geom.SinCosDeg(a)
			hs, hc := geom.SinCosDeg(g.Angle)
			base := geom.Pt(hc*l.Origin.X-hs*l.Origin.Y, hs*l.Origin.X+hc*l.Origin.Y).Mul(g.Scale)
			off := geom.Pt(c*l.Delta.X-s*l.Delta.Y, s*l.Delta.X+c*l.Delta.Y).Mul(g.Scale)
			w.float(53, geom.NormDeg(a))
			w.float(43, base.X)
			w.float(44, base.Y)
			w.float(45, off.X)
			w.float(46, off.Y)
			w.int(79, len(l.Dashes))
			for _, d := range l.Dashes {
				w.float(49, d*g.Scale)
			}
		}
	}
	w.int(98, 0)
	if g.Gradient != nil {
		w.gradient(*g.Gradient)
	}
}

// gradient writes a hatch's gradient as ezdxf and AutoCAD order it: 450
// 1 (a gradient), 451 0, 460 the angle in radians, 461 the shift, 452
// one colour, 462 the tint, 453 the number of colours, each 463 its
// index, 63 its ACI number and 421 its true colour (the ACI's when it
// has none), then 470 the name.
func (w *dxfWriter) gradient(g drawing.Gradient) {
	w.int(450, 1)
	w.int(451, 0)
	w.float(460, geom.Rad(g.Angle))
	w.float(461, g.Shift)
	n := 2
	if g.OneColor {
		w.int(452, 1)
		n = 1
	} else {
		w.int(452, 0)
	}
	w.float(462, g.Tint)
	w.int(453, n)
	colors := []struct {
		aci int32
		tc  drawing.TrueColor
	}{{g.Color1, g.True1}, {g.Color2, g.True2}}
	for i, c := range colors[:n] {
		w.int(463, i)
		w.int(63, int(c.aci))
		rgb := c.tc.RGB()
		if !c.tc.Set() {
			r, gg, b := drawing.ACIRGB(c.aci)
			rgb = uint32(r)<<16 | uint32(gg)<<8 | uint32(b)
		}
		w.int(421, int(rgb))
	}
	w.pair(470, g.Name)
}

// hatchR12 writes a hatch for R12, which has no HATCH: an INSERT of its
// anonymous block, which holds what it draws (see plan).
func (w *dxfWriter) hatchR12(e *drawing.Entity, g drawing.Hatch) {
	w.insert(e.Handle, e, drawing.Insert{Name: w.anon[e.Handle], Scale: 1})
}
