package core

import (
	"encoding/hex"
	"errors"
	"math"
	"unicode/utf8"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// entity is one drawing entity. An entity in a document is never changed in
// place: a write makes a new *entity, so the undo log can keep both.
type entity struct {
	handle   uint64
	layer    string
	color    int32  // ACI, 256 = by layer, 0 = by block
	linetype string // canonical spelling, "ByLayer" by default
	geom     geometry
	fp       [32]byte // SHA-256 of encode(); set by seal
}

// geometry is the type-specific part of an entity, in world coordinates.
type geometry interface {
	kind() enginev1.EntityType
	// encode appends the canonical encoding of the geometry.
	encode(w *encoder)
	// transformed is the geometry under a similarity transform.
	transformed(x xform) geometry
	// prims are the curves the geometry is made of (none for points and
	// text).
	prims() []any
	bounds() box
	finite() bool
	// fill sets the geometry fields of the wire entity.
	fill(pb *enginev1.Entity)
}

type pointGeom struct{ p vec }

type lineGeom struct{ a, b vec }

type circleGeom struct {
	c vec
	r float64
}

// arcGeom runs counter-clockwise from start to end (degrees, each in
// [0, 360), never equal).
type arcGeom struct {
	c          vec
	r          float64
	start, end float64
}

// vertex is a polyline vertex; bulge is the tangent of a quarter of the
// included angle of the arc to the next vertex (DXF).
type vertex struct {
	p     vec
	bulge float64
}

// polylineGeom is an open or closed polyline. The bulge of the last vertex
// of an open polyline is always 0.
type polylineGeom struct {
	v      []vertex
	closed bool
}

type textGeom struct {
	text     string
	p        vec
	height   float64
	rotation float64 // degrees, in [0, 360)
}

// ellipseGeom is an ellipse or elliptical arc; start and end are parametric
// angles in degrees relative to the major axis, each in [0, 360) for an arc,
// or exactly 0 and 360 for a full ellipse.
type ellipseGeom struct {
	c, major   vec
	ratio      float64
	start, end float64
}

// ---- construction helpers ----

// newArcGeom makes an arc with its angles normalised to [0, 360); angles
// that coincide (within Tolerance along the arc) are refused, since an arc
// of no sweep and a full turn cannot be told apart.
func newArcGeom(c vec, r, start, end float64) (arcGeom, error) {
	s, e := normDeg(start), normDeg(end)
	if sw := sweepDeg(s, e); eq(sw*rad(1)*r, 0) || eq((360-sw)*rad(1)*r, 0) {
		return arcGeom{}, errors.New("an arc needs a sweep: start_angle and end_angle coincide (use a circle for a full turn)")
	}
	return arcGeom{c: c, r: r, start: s, end: e}, nil
}

// newEllipseGeom makes an ellipse; start and end angles that are equal
// (modulo 360) or 360 or more apart make a full ellipse.
func newEllipseGeom(c, major vec, ratio, start, end float64) (ellipseGeom, error) {
	if major.len() == 0 {
		return ellipseGeom{}, errors.New("the major axis has zero length")
	}
	if math.Abs(end-start) >= 360 || eq(sweepDeg(start, end), 0) {
		return ellipseGeom{c: c, major: major, ratio: ratio, start: 0, end: 360}, nil
	}
	return ellipseGeom{c: c, major: major, ratio: ratio, start: normDeg(start), end: normDeg(end)}, nil
}

func (g ellipseGeom) full() bool { return g.start == 0 && g.end == 360 }

func newPolylineGeom(v []vertex, closed bool) polylineGeom {
	v = append([]vertex(nil), v...)
	if !closed && len(v) > 0 {
		v[len(v)-1].bulge = 0
	}
	return polylineGeom{v: v, closed: closed}
}

// segments are the polyline's pieces: from vertex i to the next, with its
// bulge; zero-length pieces are left out.
func (g polylineGeom) segments() []polySeg {
	n := len(g.v)
	count := n - 1
	if g.closed {
		count = n
	}
	out := make([]polySeg, 0, count)
	for i := 0; i < count; i++ {
		a, b := g.v[i], g.v[(i+1)%n]
		if a.p == b.p {
			continue
		}
		out = append(out, polySeg{a: a.p, b: b.p, bulge: a.bulge})
	}
	return out
}

// polySeg is one piece of a polyline.
type polySeg struct {
	a, b  vec
	bulge float64
}

func (s polySeg) prim() any {
	if s.bulge == 0 {
		return segment{s.a, s.b}
	}
	return bulgeArc(s.a, s.b, s.bulge)
}

func (s polySeg) length() float64 {
	switch p := s.prim().(type) {
	case segment:
		return p.length()
	case arc:
		return p.length()
	}
	return 0
}

func (g polylineGeom) length() float64 {
	l := 0.0
	for _, s := range g.segments() {
		l += s.length()
	}
	return l
}

// area is the enclosed area of a closed polyline, bulges included.
func (g polylineGeom) area() float64 {
	a := 0.0
	for _, s := range g.segments() {
		a += s.a.cross(s.b) / 2
		a += bulgeSegmentArea(s.a, s.b, s.bulge)
	}
	// The shoelace sum is positive counter-clockwise. A positive bulge bows
	// to the right of its chord: out of a counter-clockwise polygon (adding
	// area) and into a clockwise one (removing it), which is adding its
	// signed segment area to the signed total either way.
	return math.Abs(a)
}

// ---- kind ----

func (pointGeom) kind() enginev1.EntityType    { return enginev1.EntityType_ENTITY_TYPE_POINT }
func (lineGeom) kind() enginev1.EntityType     { return enginev1.EntityType_ENTITY_TYPE_LINE }
func (circleGeom) kind() enginev1.EntityType   { return enginev1.EntityType_ENTITY_TYPE_CIRCLE }
func (arcGeom) kind() enginev1.EntityType      { return enginev1.EntityType_ENTITY_TYPE_ARC }
func (polylineGeom) kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_POLYLINE }
func (textGeom) kind() enginev1.EntityType     { return enginev1.EntityType_ENTITY_TYPE_TEXT }
func (ellipseGeom) kind() enginev1.EntityType  { return enginev1.EntityType_ENTITY_TYPE_ELLIPSE }

// ---- prims ----

func (pointGeom) prims() []any     { return nil }
func (g lineGeom) prims() []any    { return []any{segment{g.a, g.b}} }
func (g circleGeom) prims() []any  { return []any{arc{c: g.c, r: g.r, start: 0, sweep: 2 * math.Pi}} }
func (g arcGeom) prims() []any     { return []any{g.arc()} }
func (textGeom) prims() []any      { return nil }
func (g ellipseGeom) prims() []any { return []any{g.arc()} }

func (g polylineGeom) prims() []any {
	segs := g.segments()
	out := make([]any, len(segs))
	for i, s := range segs {
		out[i] = s.prim()
	}
	return out
}

func (g arcGeom) arc() arc {
	return arc{c: g.c, r: g.r, start: rad(g.start), sweep: rad(sweepDeg(g.start, g.end))}
}

func (g ellipseGeom) arc() ellipseArc {
	if g.full() {
		return ellipseArc{c: g.c, major: g.major, ratio: g.ratio, start: 0, sweep: 2 * math.Pi}
	}
	return ellipseArc{c: g.c, major: g.major, ratio: g.ratio, start: rad(g.start), sweep: rad(sweepDeg(g.start, g.end))}
}

// ---- bounds ----

func primBounds(prims []any) box {
	var b box
	for _, p := range prims {
		switch p := p.(type) {
		case segment:
			b.addBox(p.bounds())
		case arc:
			b.addBox(p.bounds())
		case ellipseArc:
			b.addBox(p.bounds())
		}
	}
	return b
}

func (g pointGeom) bounds() box    { return box{min: g.p, max: g.p, ok: true} }
func (g lineGeom) bounds() box     { return primBounds(g.prims()) }
func (g circleGeom) bounds() box   { return primBounds(g.prims()) }
func (g arcGeom) bounds() box      { return primBounds(g.prims()) }
func (g ellipseGeom) bounds() box  { return primBounds(g.prims()) }
func (g polylineGeom) bounds() box { return primBounds(g.prims()) }

// textCharWidth is the estimated advance of one character, as a fraction
// of the text height: the engine has no fonts, so text extents are
// estimated as characters × 0.6 × height wide and height tall, from the
// insertion point along the rotation.
const textCharWidth = 0.6

func (g textGeom) corners() [4]vec {
	w := float64(utf8.RuneCountInString(g.text)) * textCharWidth * g.height
	s, c := sinCosDeg(g.rotation)
	u, v := vec{c, s}, vec{-s, c}
	return [4]vec{g.p, g.p.add(u.mul(w)), g.p.add(u.mul(w)).add(v.mul(g.height)), g.p.add(v.mul(g.height))}
}

func (g textGeom) bounds() box {
	var b box
	for _, p := range g.corners() {
		b.addPoint(p)
	}
	return b
}

// ---- finite ----

func (g pointGeom) finite() bool  { return g.p.finite() }
func (g lineGeom) finite() bool   { return g.a.finite() && g.b.finite() }
func (g circleGeom) finite() bool { return g.c.finite() && isFinite(g.r) }
func (g arcGeom) finite() bool    { return g.c.finite() && isFinite(g.r) }
func (g textGeom) finite() bool   { return g.p.finite() && isFinite(g.height) }
func (g ellipseGeom) finite() bool {
	return g.c.finite() && g.major.finite() && isFinite(g.ratio)
}
func (g polylineGeom) finite() bool {
	for _, v := range g.v {
		if !v.p.finite() || !isFinite(v.bulge) {
			return false
		}
	}
	return true
}

// ---- transforms ----

func (g pointGeom) transformed(x xform) geometry { return pointGeom{x.point(g.p)} }
func (g lineGeom) transformed(x xform) geometry  { return lineGeom{x.point(g.a), x.point(g.b)} }
func (g circleGeom) transformed(x xform) geometry {
	return circleGeom{c: x.point(g.c), r: g.r * x.scale}
}

func (g arcGeom) transformed(x xform) geometry {
	out := arcGeom{c: x.point(g.c), r: g.r * x.scale}
	if x.mirror {
		// A reflection reverses the direction of travel: the image runs
		// counter-clockwise from the image of the end to that of the start.
		out.start, out.end = x.direction(g.end), x.direction(g.start)
	} else {
		out.start, out.end = x.direction(g.start), x.direction(g.end)
	}
	return out
}

func (g polylineGeom) transformed(x xform) geometry {
	v := make([]vertex, len(g.v))
	for i, p := range g.v {
		v[i] = vertex{p: x.point(p.p), bulge: p.bulge}
		if x.mirror && p.bulge != 0 {
			v[i].bulge = -p.bulge
		}
	}
	return polylineGeom{v: v, closed: g.closed}
}

// transformed moves the insertion point. A reflection keeps the text
// readable (as CAD programs do with MIRRTEXT=0): the insertion point is
// mirrored and the rotation kept.
func (g textGeom) transformed(x xform) geometry {
	out := textGeom{text: g.text, p: x.point(g.p), height: g.height * x.scale, rotation: g.rotation}
	if !x.mirror {
		out.rotation = x.direction(g.rotation)
	}
	return out
}

// transformed maps the centre and the major axis. Parameters are measured
// from the major axis, so rotation and scaling keep them; a reflection maps
// the parameter t to -t and so the sweep [s, e] to [-e, -s].
func (g ellipseGeom) transformed(x xform) geometry {
	out := ellipseGeom{c: x.point(g.c), major: x.linear(g.major), ratio: g.ratio, start: g.start, end: g.end}
	if x.mirror && !g.full() {
		out.start, out.end = normDeg(-g.end), normDeg(-g.start)
	}
	return out
}

// ---- wire ----

func pbPoint(p vec) *enginev1.Point { return &enginev1.Point{X: p.X, Y: p.Y} }

func ptr[T any](v T) *T { return &v }

func (g pointGeom) fill(pb *enginev1.Entity) { pb.Location = pbPoint(g.p) }

func (g lineGeom) fill(pb *enginev1.Entity) {
	pb.Start, pb.End, pb.Length = pbPoint(g.a), pbPoint(g.b), ptr(g.a.dist(g.b))
}

func (g circleGeom) fill(pb *enginev1.Entity) { pb.Center, pb.Radius = pbPoint(g.c), ptr(g.r) }

func (g arcGeom) fill(pb *enginev1.Entity) {
	pb.Center, pb.Radius = pbPoint(g.c), ptr(g.r)
	pb.StartAngle, pb.EndAngle = ptr(g.start), ptr(g.end)
	pb.Length = ptr(g.arc().length())
}

func (g polylineGeom) fill(pb *enginev1.Entity) {
	pb.Points = make([]*enginev1.Vertex, len(g.v))
	for i, v := range g.v {
		pv := &enginev1.Vertex{X: v.p.X, Y: v.p.Y}
		if v.bulge != 0 {
			pv.Bulge = ptr(v.bulge)
		}
		pb.Points[i] = pv
	}
	pb.Closed, pb.Length = ptr(g.closed), ptr(g.length())
}

func (g textGeom) fill(pb *enginev1.Entity) {
	pb.Text, pb.Insertion = ptr(g.text), pbPoint(g.p)
	pb.Height, pb.Rotation = ptr(g.height), ptr(g.rotation)
}

func (g ellipseGeom) fill(pb *enginev1.Entity) {
	pb.Center, pb.MajorAxis, pb.Ratio = pbPoint(g.c), pbPoint(g.major), ptr(g.ratio)
	pb.StartAngle, pb.EndAngle = ptr(g.start), ptr(g.end)
	pb.Length = ptr(g.arc().length())
}

// proto is the entity as the wire sees it.
func (e *entity) proto() *enginev1.Entity {
	pb := &enginev1.Entity{
		Handle:      formatHandle(e.handle),
		Type:        e.geom.kind(),
		Layer:       e.layer,
		Color:       e.color,
		Linetype:    e.linetype,
		Fingerprint: e.fingerprint(),
	}
	e.geom.fill(pb)
	return pb
}

func (e *entity) fingerprint() string { return hex.EncodeToString(e.fp[:]) }
