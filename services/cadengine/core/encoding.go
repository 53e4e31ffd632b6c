package core

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// ---- handles ----

// firstHandle is the first entity handle of a new document. Handles below
// it are left to the fixed objects a DXF file needs (tables, block
// records), as AutoCAD does.
const firstHandle = 0x100

func formatHandle(h uint64) string { return strings.ToUpper(strconv.FormatUint(h, 16)) }

// parseHandle reads a hex handle (either case).
func parseHandle(s string) (uint64, bool) {
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
//	'E' 0x01                       tag and version
//	type                           one byte, the EntityType number
//	layer, linetype                strings: uvarint byte length, UTF-8 bytes
//	color                          4 bytes, big-endian two's complement
//	geometry                       by type, in this order:
//	  point     x y
//	  line      x1 y1 x2 y2
//	  circle    cx cy r
//	  arc       cx cy r start end
//	  polyline  closed(1 byte) n(uvarint) then n × (x y bulge)
//	  text      text(string) x y height rotation
//	  ellipse   cx cy major_x major_y ratio start end
//
// Every number is a float64 written as its IEEE-754 bits, big-endian, with
// -0 written as +0 (so the two, which compare equal, fingerprint alike).
// Angles are the stored, normalised degrees. The handle is not part of it:
// equal fingerprints mean equal content.

const (
	tagEntity   = 'E'
	tagLayer    = 'L'
	tagSettings = 'S'
	encVersion  = 1
)

type encoder struct{ b []byte }

func (w *encoder) byte(c byte) { w.b = append(w.b, c) }

func (w *encoder) float(f float64) {
	if f == 0 {
		f = 0 // -0 → +0
	}
	w.b = binary.BigEndian.AppendUint64(w.b, math.Float64bits(f))
}

func (w *encoder) vec(p geom.Vec) { w.float(p.X); w.float(p.Y) }

func (w *encoder) string(s string) {
	w.b = binary.AppendUvarint(w.b, uint64(len(s)))
	w.b = append(w.b, s...)
}

func (w *encoder) int32(i int32) { w.b = binary.BigEndian.AppendUint32(w.b, uint32(i)) }

func (w *encoder) bool(v bool) {
	if v {
		w.byte(1)
	} else {
		w.byte(0)
	}
}

func (g pointGeom) encodeTo(w *encoder)  { w.vec(g.p) }
func (g lineGeom) encodeTo(w *encoder)   { w.vec(g.a); w.vec(g.b) }
func (g circleGeom) encodeTo(w *encoder) { w.vec(g.c); w.float(g.r) }
func (g arcGeom) encodeTo(w *encoder) {
	w.vec(g.c)
	w.float(g.r)
	w.float(g.start)
	w.float(g.end)
}

func (g polylineGeom) encodeTo(w *encoder) {
	w.bool(g.Closed)
	w.b = binary.AppendUvarint(w.b, uint64(len(g.V)))
	for _, v := range g.V {
		w.vec(v.P)
		w.float(v.Bulge)
	}
}

func (g textGeom) encodeTo(w *encoder) {
	w.string(g.text)
	w.vec(g.p)
	w.float(g.height)
	w.float(g.rotation)
}

func (g ellipseGeom) encodeTo(w *encoder) {
	w.vec(g.c)
	w.vec(g.major)
	w.float(g.ratio)
	w.float(g.start)
	w.float(g.end)
}

// encode is the entity's canonical encoding.
func (e *entity) encode() []byte {
	w := encoder{b: make([]byte, 0, 96)}
	w.byte(tagEntity)
	w.byte(encVersion)
	w.byte(byte(e.geom.kind()))
	w.string(e.layer)
	w.string(e.linetype)
	w.int32(e.color)
	e.geom.encodeTo(&w)
	return w.b
}

// seal computes the fingerprint; call it once the entity is complete.
func (e *entity) seal() *entity {
	e.fp = sha256.Sum256(e.encode())
	return e
}

// with is a sealed copy of e with new geometry.
func (e *entity) with(g geometry) *entity {
	c := *e
	c.geom = g
	return c.seal()
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

// decodeEntity reads a canonical encoding back (the inverse of encode).
func decodeEntity(handle uint64, data []byte) (*entity, error) {
	r := &decoder{b: data}
	if r.byte() != tagEntity || r.byte() != encVersion {
		return nil, fmt.Errorf("entity %s: unknown encoding", formatHandle(handle))
	}
	kind := enginev1.EntityType(r.byte())
	e := &entity{handle: handle, layer: r.string(), linetype: r.string(), color: r.int32()}
	switch kind {
	case enginev1.EntityType_ENTITY_TYPE_POINT:
		e.geom = pointGeom{r.vec()}
	case enginev1.EntityType_ENTITY_TYPE_LINE:
		a := r.vec()
		e.geom = lineGeom{a, r.vec()}
	case enginev1.EntityType_ENTITY_TYPE_CIRCLE:
		c := r.vec()
		e.geom = circleGeom{c: c, r: r.float()}
	case enginev1.EntityType_ENTITY_TYPE_ARC:
		c := r.vec()
		rr := r.float()
		s := r.float()
		e.geom = arcGeom{c: c, r: rr, start: s, end: r.float()}
	case enginev1.EntityType_ENTITY_TYPE_POLYLINE:
		closed := r.byte() == 1
		n := r.uvarint()
		if n > uint64(len(r.b)/24) {
			return nil, fmt.Errorf("entity %s: malformed polyline", formatHandle(handle))
		}
		v := make([]geom.Vertex, n)
		for i := range v {
			p := r.vec()
			v[i] = geom.Vertex{P: p, Bulge: r.float()}
		}
		e.geom = polylineGeom{geom.Polyline{V: v, Closed: closed}}
	case enginev1.EntityType_ENTITY_TYPE_TEXT:
		t := r.string()
		p := r.vec()
		h := r.float()
		e.geom = textGeom{text: t, p: p, height: h, rotation: r.float()}
	case enginev1.EntityType_ENTITY_TYPE_ELLIPSE:
		c := r.vec()
		m := r.vec()
		ratio := r.float()
		s := r.float()
		e.geom = ellipseGeom{c: c, major: m, ratio: ratio, start: s, end: r.float()}
	default:
		return nil, fmt.Errorf("entity %s: unknown type %d", formatHandle(handle), kind)
	}
	if r.err != nil {
		return nil, fmt.Errorf("entity %s: %w", formatHandle(handle), r.err)
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("entity %s: trailing bytes", formatHandle(handle))
	}
	if !e.geom.Finite() {
		return nil, fmt.Errorf("entity %s: coordinates are not finite", formatHandle(handle))
	}
	return e.seal(), nil
}
