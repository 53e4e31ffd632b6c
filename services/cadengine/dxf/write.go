package dxf

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Write writes an AutoCAD R12 (AC1009) ASCII DXF: HEADER, TABLES
// (LTYPE, LAYER, STYLE) and ENTITIES, which AutoCAD, ezdxf and other CAD
// programs open. Entities keep their handles ($HANDLING 1); the VERTEX and
// SEQEND records of polylines get handles above the document's counter.
// Lineweights are not written (R12 has none). R12 has no ELLIPSE entity:
// ellipses are written as polylines of 128 straight pieces per turn, which
// is the only place the export is not exact. Non-ASCII text is written as
// \U+XXXX escapes (see dxfText).
func Write(d *drawing.Document) string {
	ents := d.Entities()
	w := &dxfWriter{buf: make([]byte, 0, bufferSize(ents))}
	next := d.NextHandle
	w.header(d, ents, "AC1009")
	w.pair(9, "$HANDLING")
	w.int(70, 1)
	// $HANDSEED is known once the entities are written and the VERTEX
	// handles taken; it goes in at the end.
	w.pair(9, "$HANDSEED")
	seedAt := w.placeholder(5)
	w.end()

	// Linetypes in use, in blocks too, and the document's own, after
	// CONTINUOUS (which sorts before the upper-case names of the others).
	ltypes := append([]drawing.Linetype{{Name: "CONTINUOUS", Description: "Solid line"}}, linetypeDefs(d, ents)...)

	w.section("TABLES")
	w.table("LTYPE", len(ltypes))
	for _, lt := range ltypes {
		w.pair(0, "LTYPE")
		w.pair(2, lt.Name)
		w.int(70, 0)
		w.pair(3, lt.Description)
		w.int(72, 65)
		w.int(73, len(lt.Pattern))
		w.float(40, geom.PatternPeriod(lt.Pattern))
		for _, p := range lt.Pattern {
			w.float(49, p)
		}
	}
	w.pair(0, "ENDTAB")
	layers := d.SortedLayers()
	w.table("LAYER", len(layers))
	for _, l := range layers {
		w.pair(0, "LAYER")
		w.pair(2, l.Name)
		flags := 0
		if l.Frozen {
			flags |= 1
		}
		if l.Locked {
			flags |= 4
		}
		w.int(70, flags)
		color := int(l.Color)
		if !l.On {
			color = -color
		}
		w.int(62, color)
		w.pair(6, strings.ToUpper(l.Linetype))
	}
	w.pair(0, "ENDTAB")
	textStyles := textStyleTable(d, ents)
	w.table("STYLE", len(textStyles))
	textStyles[0].Name = "STANDARD" // as R12 spells it
	for _, s := range textStyles {
		w.pair(0, "STYLE")
		w.textStyle(s)
	}
	w.pair(0, "ENDTAB")
	if apps := foreignApps(d); hasDimensions(ents) || len(apps) > 0 {
		// Dimensions name their style and carry their scale as XDATA of
		// the application ACAD; preserved entities may carry others'.
		w.table("APPID", 1+len(apps))
		for _, app := range append([]string{"ACAD"}, apps...) {
			w.pair(0, "APPID")
			w.pair(2, app)
			w.int(70, 0)
		}
		w.pair(0, "ENDTAB")
	}
	if styles := dimStyles(ents); hasDimensions(ents) {
		w.table("DIMSTYLE", len(styles))
		for _, s := range styles {
			w.dimstyle(0, s)
		}
		w.pair(0, "ENDTAB")
	}
	w.end()

	w.next = next
	if blocks := w.plan(d, ents); len(blocks) > 0 {
		w.blocks(blocks)
	}
	w.section("ENTITIES")
	for _, e := range ents {
		w.Entity(e)
	}
	w.end()
	w.pair(0, "EOF")
	return w.finish(seedAt, drawing.FormatHandle(w.next))
}

// dxfWriter writes group codes. In an R2018 file (v2018) entities carry
// their owner (330) and subclass markers (100); in R12 they have neither,
// and sub writes nothing.
type dxfWriter struct {
	// buf is the file so far: each group code right-aligned in three
	// characters on a line, its value on the next, every line ending in
	// "\n".
	buf   []byte
	v2018 bool
	owner uint64 // the block record entities are written into (2018)
	next  uint64 // the next free handle for records the drawing has no handle for
	// paper is the block record of paper space, where the entities on a
	// layout go (2018).
	paper uint64
	// anon names each entity's anonymous block, by handle (see plan).
	anon map[uint64]string
	// layerHandles are the LAYER entries' handles, by name (2018): a
	// viewport's frozen layers refer to them.
	layerHandles map[string]uint64
	// textStyleHandles are the STYLE entries' handles, by folded name
	// (2018): a dimension's own text style is named by it (see
	// dimOverrides).
	textStyleHandles map[string]uint64
	// mleaderStyle is the handle of the MLEADERSTYLE the multileaders
	// written refer to (2018), 0 until one is written.
	mleaderStyle uint64

	// What the 2018 OBJECTS section needs for the images and wipeouts
	// written: a definition per image file and a reactor per image;
	// whether there were wipeouts, and whether one showed its frame.
	imageDefs    []*outImageDef
	reactors     []imageReactor
	wipeouts     bool
	wipeoutFrame bool
}

// handle takes the next free handle.
func (w *dxfWriter) handle() uint64 {
	h := w.next
	w.next++
	return h
}

// sub writes a subclass marker (2018 only).
func (w *dxfWriter) sub(name string) {
	if w.v2018 {
		w.pair(100, name)
	}
}

// entityBytes is about what an entity takes in a file (a line with
// coordinates of a few digits: 80 bytes in R12, 120 in 2018), and
// tableBytes what the header and tables take; Write and Write2018 size
// their buffer from them once, so that it seldom grows.
const (
	entityBytes = 128
	tableBytes  = 16 << 10
)

// bufferSize is the size of the buffer to write ents into.
func bufferSize(ents []*drawing.Entity) int { return tableBytes + entityBytes*len(ents) }

// appendInt appends v right-aligned in width characters (as fmt's
// "%*d" does) and ends the line.
func appendInt(b []byte, v, width int) []byte {
	var digits [20]byte
	s := strconv.AppendInt(digits[:0], int64(v), 10)
	for range width - len(s) {
		b = append(b, ' ')
	}
	b = append(b, s...)
	return append(b, '\n')
}

// groupCode writes a group code's line: the code right-aligned in three
// characters.
func (w *dxfWriter) groupCode(code int) { w.buf = appendInt(w.buf, code, 3) }

func (w *dxfWriter) pair(code int, v string) {
	w.groupCode(code)
	w.buf = append(w.buf, v...)
	w.buf = append(w.buf, '\n')
}

// pairHandle writes a handle (or a reference to one) in hex, as
// drawing.FormatHandle spells it.
func (w *dxfWriter) pairHandle(code int, h uint64) {
	w.groupCode(code)
	w.buf = drawing.AppendHandle(w.buf, h)
	w.buf = append(w.buf, '\n')
}

// int writes an integer right-aligned in six characters.
func (w *dxfWriter) int(code, v int) {
	w.groupCode(code)
	w.buf = appendInt(w.buf, v, 6)
}

// float writes the shortest decimal that reads back as v, never in
// exponent form, always with a point ("1.0"), and 0 for -0.
func (w *dxfWriter) float(code int, v float64) {
	if v == 0 {
		v = 0 // no "-0"
	}
	w.groupCode(code)
	start := len(w.buf)
	w.buf = strconv.AppendFloat(w.buf, v, 'f', -1, 64)
	if bytes.IndexByte(w.buf[start:], '.') < 0 {
		w.buf = append(w.buf, ".0"...)
	}
	w.buf = append(w.buf, '\n')
}

// placeholder writes a pair whose value is known only once the file is
// written, empty for now, and returns where the value goes (see finish).
func (w *dxfWriter) placeholder(code int) int {
	w.groupCode(code)
	at := len(w.buf)
	w.buf = append(w.buf, '\n')
	return at
}

// finish is the file written, with v put in at the placeholder at.
func (w *dxfWriter) finish(at int, v string) string {
	var out strings.Builder
	out.Grow(len(w.buf) + len(v))
	out.Write(w.buf[:at])
	out.WriteString(v)
	out.Write(w.buf[at:])
	return out.String()
}

func (w *dxfWriter) Point(code int, p geom.Vec) {
	w.float(code, p.X)
	w.float(code+10, p.Y)
	w.float(code+20, 0)
}

func (w *dxfWriter) comment(s string) { w.pair(999, s) }

func (w *dxfWriter) section(name string) {
	w.pair(0, "SECTION")
	w.pair(2, name)
}

func (w *dxfWriter) end() { w.pair(0, "ENDSEC") }

func (w *dxfWriter) table(name string, n int) {
	w.pair(0, "TABLE")
	w.pair(2, name)
	w.int(70, n)
}

// common writes the entity type, handle, space, layer and style.
func (w *dxfWriter) common(kind string, h uint64, e *drawing.Entity) {
	w.pair(0, kind)
	w.pairHandle(5, h)
	if w.v2018 {
		owner := w.owner
		if e.Layout != "" && w.paper != 0 {
			owner = w.paper
		}
		w.pairHandle(330, owner)
		w.pair(100, "AcDbEntity")
	}
	if e.Layout != "" {
		w.int(67, 1)
		if w.v2018 {
			w.pair(410, e.Layout)
		}
	}
	w.pair(8, e.Layer)
	if !strings.EqualFold(e.Linetype, "BYLAYER") {
		w.pair(6, strings.ToUpper(e.Linetype))
	}
	if e.Color != 256 {
		w.int(62, int(e.Color))
	}
	if w.v2018 && e.LinetypeScale != 0 { // R12 has no linetype scale of an entity
		w.float(48, e.LtScale())
	}
}

// Entity writes e, taking handles for the records it needs beside it
// (VERTEX and SEQEND) from w.next.
func (w *dxfWriter) Entity(e *drawing.Entity) {
	switch g := e.Geom.(type) {
	case drawing.Point:
		w.common("POINT", e.Handle, e)
		w.sub("AcDbPoint")
		w.Point(10, g.P)
	case drawing.Line:
		w.common("LINE", e.Handle, e)
		w.sub("AcDbLine")
		w.Point(10, g.A)
		w.Point(11, g.B)
	case drawing.Circle:
		w.common("CIRCLE", e.Handle, e)
		w.sub("AcDbCircle")
		w.Point(10, g.C)
		w.float(40, g.R)
	case drawing.Arc:
		w.common("ARC", e.Handle, e)
		w.sub("AcDbCircle")
		w.Point(10, g.C)
		w.float(40, g.R)
		w.sub("AcDbArc")
		w.float(50, g.Start)
		w.float(51, g.End)
	case drawing.Text:
		w.text(e.Handle, e, g)
	case drawing.Polyline:
		if w.v2018 {
			w.lwpolyline(e, g)
			return
		}
		w.polyline(e, g.V, g.Widths, g.Closed)
	case drawing.Ellipse:
		if w.v2018 {
			w.ellipse(e, g)
			return
		}
		w.polyline(e, flattenEllipse(g), nil, g.Full())
	case drawing.MText:
		if w.v2018 {
			w.mtext(e, g)
			return
		}
		// R12 has no MTEXT: one TEXT per line.
		for i, t := range g.Picture().Texts {
			h := e.Handle
			if i > 0 {
				h = w.handle()
			}
			w.text(h, e, t)
		}
	case drawing.Dimension:
		w.dimension(e, g)
	case drawing.Hatch:
		if w.v2018 {
			w.hatch(e, g)
			return
		}
		w.hatchR12(e, g)
	case drawing.Insert:
		if name, ok := w.anon[e.Handle]; ok { // sheared: see plan
			w.insert(e.Handle, e, drawing.Insert{Name: name, Scale: 1})
			return
		}
		w.insert(e.Handle, e, g)
	case drawing.Spline:
		w.spline(e, g)
	case drawing.Solid:
		w.solidEntity(e, g)
	case drawing.Face:
		w.face(e, g)
	case drawing.XLine:
		w.xline(e, g)
	case drawing.Leader:
		if g.Multi {
			w.multileader(e, g)
			return
		}
		w.leader(e, g)
	case drawing.Attdef:
		w.attdef(e, g)
	case drawing.Wipeout:
		w.wipeout(e, g)
	case drawing.Image:
		w.image(e, g)
	case drawing.Tolerance:
		w.tolerance(e, g)
	case drawing.Viewport:
		w.viewport(e, g)
	case drawing.Table:
		w.tableEntity(e, g)
	case drawing.Foreign:
		switch {
		case !w.writes(g):
		case g.Place.IsTranslation():
			w.foreign(e.Handle, e, g)
		default:
			move, scale, angle, mirror := g.Place.Parts()
			in := drawing.Insert{Name: w.anon[e.Handle], P: move, Scale: scale, Rotation: geom.NormDeg(angle)}
			if mirror {
				// A reflection in the line at angle a is the x axis
				// reversed, then a turn of 2a + 180°.
				in.Mirror, in.Rotation = true, geom.NormDeg(2*angle+180)
			}
			w.insert(e.Handle, e, in)
		}
	}
}

// text writes a TEXT entity.
func (w *dxfWriter) text(h uint64, e *drawing.Entity, g drawing.Text) {
	w.common("TEXT", h, e)
	w.sub("AcDbText")
	w.textLine(g)
	w.sub("AcDbText")
	if g.Align.V != drawing.AlignBaseline {
		w.int(73, int(g.Align.V))
	}
}

// textLine writes what a TEXT, ATTRIB and ATTDEF have alike: where it
// starts (10), height, value, rotation, how its glyphs are set (see
// textSet) and, aligned otherwise than at the start of its baseline, its
// horizontal justification (72) and the point it is aligned at (11);
// where it starts is then the engine's estimate, which programs that have
// the font compute again. A text set between two points writes them, 10
// and 11, with 72 = 3 (aligned) or 5 (fit).
func (w *dxfWriter) textLine(g drawing.Text) {
	w.Point(10, g.Start())
	w.float(40, g.Height)
	if w.v2018 {
		w.pair(1, dxfText2018(g.Text))
	} else {
		w.pair(1, dxfText(g.Text))
	}
	if g.Rotation != 0 {
		w.float(50, g.Rotation)
	}
	w.textSet(g.Style)
	switch {
	case g.Fit != drawing.FitNone:
		w.int(72, fitCode[g.Fit])
		w.Point(11, g.End)
	case g.Align != (drawing.Align{}):
		w.int(72, int(g.Align.H))
		w.Point(11, g.P)
	}
}

// insert writes an INSERT entity (a mirrored one with a negative x
// scale, one scaled unevenly with its y scale, a grid as MINSERT's
// columns and rows). One with an outer map is written with the scales and
// rotation its whole placement comes to (see insertParts).
func (w *dxfWriter) insert(h uint64, e *drawing.Entity, g drawing.Insert) {
	p, sx, sy, rotation := g.P, g.Scale, g.Scale, g.Rotation
	if g.YScale != 0 {
		sy = g.YScale
	}
	if g.Mirror {
		sx = -sx
	}
	if g.Outer != nil {
		p, sx, sy, rotation, _ = insertParts(g)
	}
	w.common("INSERT", h, e)
	w.sub("AcDbBlockReference")
	if len(g.Attribs) > 0 {
		w.int(66, 1) // attributes follow
	}
	w.pair(2, g.Name)
	w.Point(10, p)
	if sx != 1 || sy != 1 {
		w.float(41, sx)
		w.float(42, sy)
		w.float(43, math.Abs(sx))
	}
	if rotation != 0 {
		w.float(50, rotation)
	}
	if g.Grid() {
		w.int(70, int(max(1, g.Cols)))
		w.int(71, int(max(1, g.Rows)))
		w.float(44, g.ColSpacing)
		w.float(45, g.RowSpacing)
	}
	if len(g.Attribs) > 0 {
		w.attribs(h, e, g.Attribs)
	}
}

// insertParts are the insertion point, scales and rotation (degrees) of
// an insert's whole placement (drawing.Insert.Placement), as an INSERT
// says them: ok is false when the placement shears (its axes not at right
// angles), which no INSERT can say (see plan).
func insertParts(g drawing.Insert) (p geom.Vec, sx, sy, rotation float64, ok bool) {
	m := g.Placement()
	var base geom.Vec
	if g.Def != nil {
		base = g.Def.Base
	}
	x, y := geom.Pt(m.A, m.D), geom.Pt(m.B, m.E)
	sx, rotation = x.Len(), geom.NormDeg(geom.Deg(x.Angle()))
	if m.Det() < 0 {
		// x reversed, then turned: the x axis points the other way.
		sx, rotation = -sx, geom.NormDeg(rotation+180)
	}
	s, c := geom.SinCosDeg(rotation)
	sy = y.Dot(geom.Pt(-s, c))
	ok = math.Abs(x.Dot(y)) <= 1e-9*x.Len()*y.Len()
	return m.Point(base), sx, sy, rotation, ok
}

func (w *dxfWriter) polyline(e *drawing.Entity, v []geom.Vertex, widths []geom.Width, closed bool) {
	w.common("POLYLINE", e.Handle, e)
	w.int(66, 1)
	w.Point(10, geom.Vec{})
	if closed {
		w.int(70, 1)
	} else {
		w.int(70, 0)
	}
	for i, p := range v {
		w.pair(0, "VERTEX")
		w.pairHandle(5, w.handle())
		w.pair(8, e.Layer)
		w.Point(10, p.P)
		if widths != nil {
			w.float(40, widths[i].Start)
			w.float(41, widths[i].End)
		}
		if p.Bulge != 0 {
			w.float(42, p.Bulge)
		}
		w.int(70, 0)
	}
	w.pair(0, "SEQEND")
	w.pairHandle(5, w.handle())
	w.pair(8, e.Layer)
}

// flattenEllipse approximates an ellipse by 128 straight pieces per turn
// (a full ellipse without repeating its first point).
func flattenEllipse(g drawing.Ellipse) []geom.Vertex {
	a := g.Arc()
	n := int(math.Ceil(a.Sweep / (2 * math.Pi) * 128))
	n = max(n, 8)
	count := n + 1
	if a.Full() {
		count = n
	}
	v := make([]geom.Vertex, count)
	for i := range v {
		v[i] = geom.Vertex{P: a.At(a.Start + a.Sweep*float64(i)/float64(n))}
	}
	return v
}

func unitName(u enginev1.Units) string {
	return contract.EnumName(u.Descriptor().Values().ByNumber(u.Number()))
}

func hasDimensions(ents []*drawing.Entity) bool {
	for _, e := range ents {
		if _, ok := e.Geom.(drawing.Dimension); ok {
			return true
		}
	}
	return false
}

// header starts the file: the engine's comment and the HEADER variables
// both versions have (the caller goes on with the rest); it returns the
// extents it wrote.
func (w *dxfWriter) header(d *drawing.Document, ents []*drawing.Entity, version string) geom.Box {
	var ext geom.Box
	for _, e := range ents {
		if e.Layout == "" { // $EXTMIN/$EXTMAX are model space's
			ext.AddBox(e.Geom.Bounds())
		}
	}
	if !ext.NonEmpty {
		ext = geom.Box{NonEmpty: true}
	}
	w.comment("cadbridge " + d.ID + " (" + unitName(d.Units) + ")")
	w.section("HEADER")
	w.pair(9, "$ACADVER")
	w.pair(1, version)
	w.pair(9, "$DWGCODEPAGE")
	w.pair(3, "ANSI_1252")
	w.pair(9, "$INSBASE")
	w.Point(10, geom.Vec{})
	w.pair(9, "$EXTMIN")
	w.Point(10, ext.Min)
	w.pair(9, "$EXTMAX")
	w.Point(10, ext.Max)
	w.pair(9, "$CLAYER")
	w.pair(8, d.CurrentLayer())
	if s := d.LinetypeScale(); s != 1 {
		w.pair(9, "$LTSCALE")
		w.float(40, s)
	}
	if d.OwnSettings() != nil { // a document without its own writes none, as it always did
		s := d.Settings()
		w.pair(9, "$LUPREC")
		w.int(70, int(s.Precision))
		w.pair(9, "$DIMSCALE")
		w.float(40, s.DimScale)
		w.pair(9, "$TEXTSIZE")
		w.float(40, s.TextHeight)
	}
	return ext
}
