package drawing

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"sync"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// ---- handles ----

// firstHandle is the first entity handle of a new document. Handles below
// it are left to the fixed objects a DXF file needs (tables, block
// records), as AutoCAD does.
const firstHandle = 0x100

// FormatHandle spells a handle in upper-case hex, as DXF does.
func FormatHandle(h uint64) string {
	var b [16]byte
	return string(AppendHandle(b[:0], h))
}

// AppendHandle appends FormatHandle(h) to b.
func AppendHandle(b []byte, h uint64) []byte {
	const digits = "0123456789ABCDEF"
	var d [16]byte
	i := len(d)
	for {
		i--
		d[i] = digits[h&0xf]
		if h >>= 4; h == 0 {
			return append(b, d[i:]...)
		}
	}
}

// ParseHandle reads a hex handle (either case).
func ParseHandle(s string) (uint64, bool) {
	if s == "" || len(s) > 16 {
		return 0, false
	}
	h, err := strconv.ParseUint(s, 16, 64)
	return h, err == nil && h > 0
}

// ---- canonical encoding ----
//
// The canonical encoding of an entity is the input of its fingerprint and
// its stored form:
//
//	'E' 0x01                       tag and version (0x02: with a layout;
//	                               0x03: with a linetype scale)
//	type                           one byte, the EntityType number
//	layer, linetype                strings: uvarint byte length, UTF-8 bytes
//	color                          4 bytes, big-endian two's complement
//	layout                         string, only in versions 0x02 (the
//	                               paper-space layout of the entity) and
//	                               0x03 (empty in model space)
//	linetype scale                 only in version 0x03: 4 bytes, the
//	                               IEEE-754 single-precision bits
//	geometry                       by type, in this order:
//	  point     x y
//	  line      x1 y1 x2 y2
//	  circle    cx cy r
//	  arc       cx cy r start end
//	  polyline  closed(1 byte) n(uvarint) then n × (x y bulge), then
//	            for one with widths 'W' and n × (start_width end_width)
//	  text      text(string) x y height rotation, then 'J' and the
//	            alignment (H | V<<4) when it is not the baseline's start,
//	            'F' fit(1 byte) end_x end_y when set between two points,
//	            'S' and its style (see TextStyle.encodeTo) when it has one
//	  ellipse   cx cy major_x major_y ratio start end
//	  mtext     text(string) x y height width rotation attachment(1 byte)
//	            line_spacing, then 'S' and its style when it has one
//	  dimension kind(1 byte) p1 p2 center (x y each) radius offset angle
//	            scale text(string) style(string) n(uvarint) then
//	            n × (slot(1 byte) handle(uvarint) snap(1 byte)
//	            index(uvarint) with(uvarint, 0 for none)), then 'D' and
//	            its own style when it has one (see DimStyle.encodeTo),
//	            then 'P' and what its writer drew when it has that
//	  hatch     pattern(string) scale angle n(uvarint) then n loops, each
//	            ellipse(1 byte) then cx cy major_x major_y ratio, or
//	            m(uvarint) and m × (x y bulge); then k(uvarint) pattern
//	            lines, each angle origin_x origin_y delta_x delta_y
//	            d(uvarint) and d dashes
//	  insert    block(string) x y scale rotation mirrored(1 byte), then
//	            for a grid 'G' cols rows (uvarints) col_spacing row_spacing
//	  foreign   see Foreign.encodeTo
//	  spline    see Spline.encodeTo
//	  solid     see Solid.encodeTo
//	  face      see Face.encodeTo
//	  xline     x y dx dy (a ray alike)
//	  leader    see Leader.encodeTo
//	  attdef    see Attdef.encodeTo
//	  wipeout   see Wipeout.encodeTo
//	  image     see Image.encodeTo
//	  tolerance see Tolerance.encodeTo
//	  viewport  see Viewport.encodeTo
//	  table     see Table.encodeTo
//
// A block is stored under its handle like an entity, tagged 'B' (see
// Block.Encode). The encodings of the first seven types never change:
// stored documents keep loading.
//
// Every number is a float64 written as its IEEE-754 bits, big-endian, with
// -0 written as +0 (so the two, which compare equal, fingerprint alike).
// Angles are the stored, normalised degrees. The handle is not part of it:
// equal fingerprints mean equal content.

const (
	tagEntity   = 'E'
	tagLayer    = 'L'
	tagSettings = 'S'
	tagBlock    = 'B'
	// tagLinetypes is a document's linetype table, stored under its
	// handle (see Linetypes.Encode).
	tagLinetypes = 'T'
	// tagLayouts is a document's layout table, stored under its handle
	// (see Layouts.Encode).
	tagLayouts = 'P'
	// tagHeader is a document's settings, stored under their handle (see
	// Settings.Encode).
	tagHeader = 'H'
	// tagConstraints is a document's constraint table, stored under its
	// handle (see Constraints.Encode).
	tagConstraints = 'K'
	encVersion     = 1
	// encLayout is the version of an entity's encoding that names its
	// paper-space layout; a model-space entity encodes as encVersion, as
	// it always did.
	encLayout = 2
	// encScaled is the version of an entity's encoding with its own
	// linetype scale: after the colour, the layout (a string, empty in
	// model space) and the scale (4 bytes, the IEEE-754 single-precision
	// bits, big-endian). An entity at the default scale encodes as
	// before.
	encScaled = 3
)

type encoder struct{ b []byte }

func (w *encoder) byte(c byte) { w.b = append(w.b, c) }

func (w *encoder) float(f float64) { w.b = appendFloat(w.b, f) }

func (w *encoder) vec(p geom.Vec) { w.b = appendVec(w.b, p) }

// vecs writes n (uvarint) and n points.
func (w *encoder) vecs(ps []geom.Vec) {
	w.uvarint(uint64(len(ps)))
	for _, p := range ps {
		w.vec(p)
	}
}

func (w *encoder) string(s string) { w.b = appendString(w.b, s) }

func (w *encoder) uvarint(n uint64) { w.b = binary.AppendUvarint(w.b, n) }

func (w *encoder) int32(i int32) { w.b = binary.BigEndian.AppendUint32(w.b, uint32(i)) }

func (w *encoder) bool(v bool) {
	if v {
		w.byte(1)
	} else {
		w.byte(0)
	}
}

// The encoder's numbers and strings are also functions that append to a
// slice and return it, for the geometries of fixed size (see appendSmall):
// a buffer passed through them, unlike one held in an encoder, can stay
// on the caller's stack.

func appendFloat(b []byte, f float64) []byte {
	if f == 0 {
		f = 0 // -0 → +0
	}
	return binary.BigEndian.AppendUint64(b, math.Float64bits(f))
}

func appendVec(b []byte, p geom.Vec) []byte { return appendFloat(appendFloat(b, p.X), p.Y) }

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func (g Point) encodeTo(w *encoder)  { w.b = g.appendTo(w.b) }
func (g Line) encodeTo(w *encoder)   { w.b = g.appendTo(w.b) }
func (g Circle) encodeTo(w *encoder) { w.b = g.appendTo(w.b) }
func (g Arc) encodeTo(w *encoder)    { w.b = g.appendTo(w.b) }

func (g Point) appendTo(b []byte) []byte  { return appendVec(b, g.P) }
func (g Line) appendTo(b []byte) []byte   { return appendVec(appendVec(b, g.A), g.B) }
func (g Circle) appendTo(b []byte) []byte { return appendFloat(appendVec(b, g.C), g.R) }
func (g Arc) appendTo(b []byte) []byte {
	b = appendVec(b, g.C)
	b = appendFloat(b, g.R)
	b = appendFloat(b, g.Start)
	return appendFloat(b, g.End)
}

func (g Polyline) encodeTo(w *encoder) {
	w.bool(g.Closed)
	w.b = binary.AppendUvarint(w.b, uint64(len(g.V)))
	for _, v := range g.V {
		w.vec(v.P)
		w.float(v.Bulge)
	}
	if g.Widths != nil {
		w.byte(polylineWidths)
		for _, x := range g.Widths {
			w.float(x.Start)
			w.float(x.End)
		}
	}
}

// polylineWidths tags the widths that follow the vertices of a polyline
// that has them (one without encodes as it always did).
const polylineWidths = 'W'

// decodePolyline reads what Polyline.encodeTo wrote.
func decodePolyline(r *decoder) Geometry {
	closed := r.byte() == 1
	n := r.uvarint()
	if n > uint64(len(r.b)/24) {
		r.fail("polyline")
		return Polyline{}
	}
	v := make([]geom.Vertex, n)
	for i := range v {
		p := r.vec()
		v[i] = geom.Vertex{P: p, Bulge: r.float()}
	}
	g := Polyline{Polyline: geom.Polyline{V: v, Closed: closed}}
	if len(r.b) > 0 && r.b[0] == polylineWidths {
		r.byte()
		if n > uint64(len(r.b)/16) {
			r.fail("polyline widths")
			return g
		}
		g.Widths = make([]geom.Width, n)
		for i := range g.Widths {
			s := r.float()
			g.Widths[i] = geom.Width{Start: s, End: r.float()}
		}
	}
	return g
}

// encodeTo writes a text entity's encoding (an attribute definition's
// ends with it too): its line (see encodeLine), then its alignment,
// tagged 'J', unless it is the start of the baseline (so that a text
// without one encodes as it always did).
func (g Text) encodeTo(w *encoder) {
	g.encodeLine(w)
	if g.Align != (Align{}) {
		w.byte(textAlign)
		w.byte(g.Align.byte())
	}
	g.encodeSet(w)
}

// encodeSet writes what a text set between two points or in a style has
// beyond its line and alignment: 'F', the fit (1 byte) and the end
// point; 'S' and the style (see TextStyle.encodeTo). A text without
// either writes nothing, and encodes as it always did.
func (g Text) encodeSet(w *encoder) {
	if g.Fit != FitNone {
		w.byte(textFit)
		w.byte(g.Fit)
		w.vec(g.End)
	}
	if g.Style != (TextStyle{}) {
		w.byte(textStyle)
		g.Style.encodeTo(w)
	}
}

// decodeSet reads what encodeSet wrote into t.
func (r *decoder) decodeSet(t *Text) {
	if len(r.b) > 0 && r.b[0] == textFit {
		r.byte()
		if t.Fit = r.byte(); t.Fit != FitAligned && t.Fit != FitWidth {
			r.fail("text fit")
		}
		t.End = r.vec()
	}
	if len(r.b) > 0 && r.b[0] == textStyle {
		r.byte()
		t.Style = decodeTextStyle(r)
	}
}

// encodeLine writes text, x, y, height, rotation.
func (g Text) encodeLine(w *encoder) {
	w.string(g.Text)
	w.vec(g.P)
	w.float(g.Height)
	w.float(g.Rotation)
}

// These tag what may follow a text's line in its encoding, in this
// order: its alignment, its fit between two points, its style.
const (
	textAlign = 'J'
	textFit   = 'F'
	textStyle = 'S'
)

// decodeTextEntity reads what Text.encodeTo writes.
func decodeTextEntity(r *decoder) Text {
	t := decodeText(r)
	if len(r.b) > 0 && r.b[0] == textAlign {
		r.byte()
		t.Align = r.align()
	}
	r.decodeSet(&t)
	return t
}

// align reads an alignment's byte, failing on one DXF does not have (or
// the start of the baseline, which is never written).
func (r *decoder) align() Align {
	a := alignOf(r.byte())
	if !a.valid() {
		r.fail("text alignment")
	}
	return a
}

func (g Ellipse) encodeTo(w *encoder) { w.b = g.appendTo(w.b) }

func (g Ellipse) appendTo(b []byte) []byte {
	b = appendVec(b, g.C)
	b = appendVec(b, g.Major)
	b = appendFloat(b, g.Ratio)
	b = appendFloat(b, g.Start)
	return appendFloat(b, g.End)
}

// Encode is the entity's canonical encoding.
func (e *Entity) Encode() []byte {
	w := encoders.Get().(*encoder)
	defer putEncoder(w)
	e.encodeTo(w)
	return bytes.Clone(w.b)
}

func (e *Entity) encodeTo(w *encoder) {
	w.b = e.appendHeader(w.b)
	e.Geom.encodeTo(w)
}

// appendHeader appends what the encoding of every entity begins with:
// tag, version, type, layer, linetype and colour, and the layout of one
// in paper space.
func (e *Entity) appendHeader(b []byte) []byte {
	version := byte(encVersion)
	switch {
	case e.LinetypeScale != 0:
		version = encScaled
	case e.Layout != "":
		version = encLayout
	}
	b = append(b, tagEntity, version, byte(e.Geom.Kind()))
	b = appendString(b, e.Layer)
	b = appendString(b, e.Linetype)
	b = binary.BigEndian.AppendUint32(b, uint32(e.Color))
	if version != encVersion {
		b = appendString(b, e.Layout)
	}
	if version == encScaled {
		b = binary.BigEndian.AppendUint32(b, math.Float32bits(e.LinetypeScale))
	}
	return b
}

// smallEncoding is room for every encoding appendSmall appends: a header
// with at most 100 bytes of names (each length one byte) and the largest
// geometry of fixed size, an ellipse's 56 bytes.
const smallEncoding = 3 + 3 + 100 + 4 + 4 + 56

// appendSmall appends e's encoding to b when its geometry is of a kind
// of fixed size (a point, line, circle, arc or ellipse) and its layer and
// linetype are at most 100 bytes together, and reports whether it did. It
// calls the geometry's appendTo directly, not encodeTo through the
// interface, so that b needs no encoder: a buffer of smallEncoding bytes on
// the caller's stack takes the encoding without a pool or an allocation.
func (e *Entity) appendSmall(b []byte) ([]byte, bool) {
	if len(e.Layer)+len(e.Linetype)+len(e.Layout) > 100 {
		return b, false
	}
	switch g := e.Geom.(type) {
	case Point:
		return g.appendTo(e.appendHeader(b)), true
	case Line:
		return g.appendTo(e.appendHeader(b)), true
	case Circle:
		return g.appendTo(e.appendHeader(b)), true
	case Arc:
		return g.appendTo(e.appendHeader(b)), true
	case Ellipse:
		return g.appendTo(e.appendHeader(b)), true
	}
	return b, false
}

// Seal computes the fingerprint; call it once the entity is complete.
func (e *Entity) Seal() *Entity {
	var buf [smallEncoding]byte
	if enc, ok := e.appendSmall(buf[:0]); ok {
		e.fp = sha256.Sum256(enc)
		return e
	}
	w := encoders.Get().(*encoder)
	defer putEncoder(w)
	e.encodeTo(w)
	e.fp = sha256.Sum256(w.b)
	return e
}

// encoders are scratch encoders: an encoding that is hashed, or copied
// out at its size, costs no allocation of its own.
var encoders = sync.Pool{New: func() any { return &encoder{b: make([]byte, 0, 256)} }}

// putEncoder empties w and returns it to encoders, unless it grew past
// what is worth keeping (a long polyline's).
func putEncoder(w *encoder) {
	if cap(w.b) <= 64<<10 {
		w.b = w.b[:0]
		encoders.Put(w)
	}
}

// With is a sealed copy of e with new geometry.
func (e *Entity) With(g Geometry) *Entity {
	c := *e
	c.Geom = g
	return c.Seal()
}

type decoder struct {
	b   []byte
	err error
}

func (r *decoder) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("truncated or malformed %s", what)
	}
}

func (r *decoder) byte() byte {
	if len(r.b) < 1 {
		r.fail("byte")
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *decoder) float() float64 {
	if len(r.b) < 8 {
		r.fail("number")
		return 0
	}
	f := math.Float64frombits(binary.BigEndian.Uint64(r.b))
	r.b = r.b[8:]
	return f
}

func (r *decoder) vec() geom.Vec { x := r.float(); return geom.Pt(x, r.float()) }

// vecs reads what encoder.vecs wrote (nil for none), failing as what
// when the count is more than the bytes left can hold.
func (r *decoder) vecs(what string) []geom.Vec {
	n := r.uvarint()
	if n > uint64(len(r.b)/16) {
		r.fail(what)
		return nil
	}
	if n == 0 {
		return nil
	}
	ps := make([]geom.Vec, n)
	for i := range ps {
		ps[i] = r.vec()
	}
	return ps
}

func (r *decoder) uvarint() uint64 {
	n, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.fail("length")
		return 0
	}
	r.b = r.b[k:]
	return n
}

func (r *decoder) string() string {
	n := r.uvarint()
	if uint64(len(r.b)) < n {
		r.fail("string")
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *decoder) int32() int32 {
	if len(r.b) < 4 {
		r.fail("integer")
		return 0
	}
	i := int32(binary.BigEndian.Uint32(r.b))
	r.b = r.b[4:]
	return i
}

// DecodeEntity reads a canonical encoding back (the inverse of encode).
// An insert comes back without its block (see Document.Resolve).
func DecodeEntity(handle uint64, data []byte) (*Entity, error) {
	r := &decoder{b: data}
	version := byte(0)
	if r.byte() != tagEntity {
		return nil, fmt.Errorf("entity %s: unknown encoding", FormatHandle(handle))
	}
	if version = r.byte(); version != encVersion && version != encLayout && version != encScaled {
		return nil, fmt.Errorf("entity %s: unknown encoding", FormatHandle(handle))
	}
	kind := enginev1.EntityType(r.byte())
	e := &Entity{Handle: handle, Layer: r.string(), Linetype: r.string(), Color: r.int32()}
	switch version {
	case encLayout:
		if e.Layout = r.string(); e.Layout == "" {
			r.fail("layout")
		}
	case encScaled:
		e.Layout = r.string()
		if e.LinetypeScale = math.Float32frombits(uint32(r.int32())); !(e.LinetypeScale > 0) || e.LinetypeScale == 1 || math.IsInf(float64(e.LinetypeScale), 1) {
			r.fail("linetype scale")
		}
	}
	switch kind {
	case enginev1.EntityType_ENTITY_TYPE_POINT:
		e.Geom = Point{r.vec()}
	case enginev1.EntityType_ENTITY_TYPE_LINE:
		a := r.vec()
		e.Geom = Line{a, r.vec()}
	case enginev1.EntityType_ENTITY_TYPE_CIRCLE:
		c := r.vec()
		e.Geom = Circle{C: c, R: r.float()}
	case enginev1.EntityType_ENTITY_TYPE_ARC:
		c := r.vec()
		rr := r.float()
		s := r.float()
		e.Geom = Arc{C: c, R: rr, Start: s, End: r.float()}
	case enginev1.EntityType_ENTITY_TYPE_POLYLINE:
		e.Geom = decodePolyline(r)
	case enginev1.EntityType_ENTITY_TYPE_TEXT:
		e.Geom = decodeTextEntity(r)
	case enginev1.EntityType_ENTITY_TYPE_ELLIPSE:
		c := r.vec()
		m := r.vec()
		ratio := r.float()
		s := r.float()
		e.Geom = Ellipse{C: c, Major: m, Ratio: ratio, Start: s, End: r.float()}
	case enginev1.EntityType_ENTITY_TYPE_MTEXT:
		e.Geom = decodeMText(r)
	case enginev1.EntityType_ENTITY_TYPE_DIMENSION:
		e.Geom = decodeDimension(r)
	case enginev1.EntityType_ENTITY_TYPE_HATCH:
		e.Geom = decodeHatch(r)
	case enginev1.EntityType_ENTITY_TYPE_INSERT:
		e.Geom = decodeInsert(r)
	case enginev1.EntityType_ENTITY_TYPE_FOREIGN:
		e.Geom = decodeForeign(r)
	case enginev1.EntityType_ENTITY_TYPE_SPLINE:
		e.Geom = decodeSpline(r)
	case enginev1.EntityType_ENTITY_TYPE_SOLID:
		e.Geom = decodeSolid(r)
	case enginev1.EntityType_ENTITY_TYPE_FACE:
		e.Geom = decodeFace(r)
	case enginev1.EntityType_ENTITY_TYPE_LEADER:
		e.Geom = decodeLeader(r)
	case enginev1.EntityType_ENTITY_TYPE_ATTDEF:
		e.Geom = decodeAttdef(r)
	case enginev1.EntityType_ENTITY_TYPE_WIPEOUT:
		e.Geom = decodeWipeout(r)
	case enginev1.EntityType_ENTITY_TYPE_IMAGE:
		e.Geom = decodeImage(r)
	case enginev1.EntityType_ENTITY_TYPE_TOLERANCE:
		e.Geom = decodeTolerance(r)
	case enginev1.EntityType_ENTITY_TYPE_VIEWPORT:
		e.Geom = decodeViewport(r)
	case enginev1.EntityType_ENTITY_TYPE_TABLE:
		e.Geom = decodeTable(r)
	case enginev1.EntityType_ENTITY_TYPE_XLINE, enginev1.EntityType_ENTITY_TYPE_RAY:
		e.Geom = decodeXLine(r, kind == enginev1.EntityType_ENTITY_TYPE_RAY)
	default:
		return nil, fmt.Errorf("entity %s: unknown type %d", FormatHandle(handle), kind)
	}
	if r.err != nil {
		return nil, fmt.Errorf("entity %s: %w", FormatHandle(handle), r.err)
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("entity %s: trailing bytes", FormatHandle(handle))
	}
	if !e.Geom.Finite() {
		return nil, fmt.Errorf("entity %s: coordinates are not finite", FormatHandle(handle))
	}
	return e.Seal(), nil
}
