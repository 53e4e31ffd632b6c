package core

import (
	"encoding/hex"
	"errors"
	"math"
	"unicode/utf8"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
	"google.golang.org/protobuf/reflect/protoreflect"
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
	// encodeTo appends the canonical encoding of the geometry.
	encodeTo(w *encoder)
	// transformed is the geometry under a similarity transform.
	transformed(x geom.Xform) geometry
	// Prims are the curves the geometry is made of (none for points and
	// text).
	Prims() []any
	Bounds() geom.Box
	Finite() bool
	// fill sets the geometry fields of the wire entity.
	fill(pb *enginev1.Entity)
}

type pointGeom struct{ p geom.Vec }

type lineGeom struct{ a, b geom.Vec }

type circleGeom struct {
	c geom.Vec
	r float64
}

// arcGeom runs counter-clockwise from start to end (degrees, each in
// [0, 360), never equal).
type arcGeom struct {
	c          geom.Vec
	r          float64
	start, end float64
}

// polylineGeom is an open or closed polyline. The bulge of the last vertex
// of an open polyline is always 0.
type polylineGeom struct{ geom.Polyline }

type textGeom struct {
	text     string
	p        geom.Vec
	height   float64
	rotation float64 // degrees, in [0, 360)
}

// ellipseGeom is an ellipse or elliptical arc; start and end are parametric
// angles in degrees relative to the major axis, each in [0, 360) for an arc,
// or exactly 0 and 360 for a full ellipse.
type ellipseGeom struct {
	c, major   geom.Vec
	ratio      float64
	start, end float64
}

// ---- construction helpers ----

// newArcGeom makes an arc with its angles normalised to [0, 360); angles
// that coincide (within Tolerance along the arc) are refused, since an arc
// of no sweep and a full turn cannot be told apart.
func newArcGeom(c geom.Vec, r, start, end float64) (arcGeom, error) {
	s, e := geom.NormDeg(start), geom.NormDeg(end)
	if sw := geom.SweepDeg(s, e); geom.Eq(sw*geom.Rad(1)*r, 0) || geom.Eq((360-sw)*geom.Rad(1)*r, 0) {
		return arcGeom{}, errors.New("an arc needs a sweep: start_angle and end_angle coincide (use a circle for a full turn)")
	}
	return arcGeom{c: c, r: r, start: s, end: e}, nil
}

// newEllipseGeom makes an ellipse; start and end angles that are equal
// (modulo 360) or 360 or more apart make a full ellipse.
func newEllipseGeom(c, major geom.Vec, ratio, start, end float64) (ellipseGeom, error) {
	if major.Len() == 0 {
		return ellipseGeom{}, errors.New("the major axis has zero length")
	}
	if math.Abs(end-start) >= 360 || geom.Eq(geom.SweepDeg(start, end), 0) {
		return ellipseGeom{c: c, major: major, ratio: ratio, start: 0, end: 360}, nil
	}
	return ellipseGeom{c: c, major: major, ratio: ratio, start: geom.NormDeg(start), end: geom.NormDeg(end)}, nil
}

func (g ellipseGeom) Full() bool { return g.start == 0 && g.end == 360 }

func newPolylineGeom(v []geom.Vertex, closed bool) polylineGeom {
	v = append([]geom.Vertex(nil), v...)
	if !closed && len(v) > 0 {
		v[len(v)-1].Bulge = 0
	}
	return polylineGeom{geom.Polyline{V: v, Closed: closed}}
}

func (pointGeom) kind() enginev1.EntityType    { return enginev1.EntityType_ENTITY_TYPE_POINT }
func (lineGeom) kind() enginev1.EntityType     { return enginev1.EntityType_ENTITY_TYPE_LINE }
func (circleGeom) kind() enginev1.EntityType   { return enginev1.EntityType_ENTITY_TYPE_CIRCLE }
func (arcGeom) kind() enginev1.EntityType      { return enginev1.EntityType_ENTITY_TYPE_ARC }
func (polylineGeom) kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_POLYLINE }
func (textGeom) kind() enginev1.EntityType     { return enginev1.EntityType_ENTITY_TYPE_TEXT }
func (ellipseGeom) kind() enginev1.EntityType  { return enginev1.EntityType_ENTITY_TYPE_ELLIPSE }

// ---- prims ----

func (pointGeom) Prims() []any  { return nil }
func (g lineGeom) Prims() []any { return []any{geom.Segment{A: g.a, B: g.b}} }
func (g circleGeom) Prims() []any {
	return []any{geom.Arc{C: g.c, R: g.r, Start: 0, Sweep: 2 * math.Pi}}
}
func (g arcGeom) Prims() []any     { return []any{g.arc()} }
func (textGeom) Prims() []any      { return nil }
func (g ellipseGeom) Prims() []any { return []any{g.arc()} }

func (g arcGeom) arc() geom.Arc {
	return geom.Arc{C: g.c, R: g.r, Start: geom.Rad(g.start), Sweep: geom.Rad(geom.SweepDeg(g.start, g.end))}
}

func (g ellipseGeom) arc() geom.EllipseArc {
	if g.Full() {
		return geom.EllipseArc{C: g.c, Major: g.major, Ratio: g.ratio, Start: 0, Sweep: 2 * math.Pi}
	}
	return geom.EllipseArc{C: g.c, Major: g.major, Ratio: g.ratio, Start: geom.Rad(g.start), Sweep: geom.Rad(geom.SweepDeg(g.start, g.end))}
}

// ---- bounds ----

func (g pointGeom) Bounds() geom.Box   { return geom.Box{Min: g.p, Max: g.p, NonEmpty: true} }
func (g lineGeom) Bounds() geom.Box    { return geom.PrimBounds(g.Prims()) }
func (g circleGeom) Bounds() geom.Box  { return geom.PrimBounds(g.Prims()) }
func (g arcGeom) Bounds() geom.Box     { return geom.PrimBounds(g.Prims()) }
func (g ellipseGeom) Bounds() geom.Box { return geom.PrimBounds(g.Prims()) }

// defaultTextHeight is the height of text created without one.
const defaultTextHeight = 2.5

// textCharWidth is the estimated advance of one character, as a fraction
// of the text height: the engine has no fonts, so text extents are
// estimated as characters × 0.6 × height wide and height tall, from the
// insertion point along the rotation.
const textCharWidth = 0.6

func (g textGeom) corners() [4]geom.Vec {
	w := float64(utf8.RuneCountInString(g.text)) * textCharWidth * g.height
	s, c := geom.SinCosDeg(g.rotation)
	u, v := geom.Pt(c, s), geom.Pt(-s, c)
	return [4]geom.Vec{g.p, g.p.Add(u.Mul(w)), g.p.Add(u.Mul(w)).Add(v.Mul(g.height)), g.p.Add(v.Mul(g.height))}
}

func (g textGeom) Bounds() geom.Box {
	var b geom.Box
	for _, p := range g.corners() {
		b.AddPoint(p)
	}
	return b
}

// ---- finite ----

func (g pointGeom) Finite() bool  { return g.p.Finite() }
func (g lineGeom) Finite() bool   { return g.a.Finite() && g.b.Finite() }
func (g circleGeom) Finite() bool { return g.c.Finite() && geom.IsFinite(g.r) }
func (g arcGeom) Finite() bool    { return g.c.Finite() && geom.IsFinite(g.r) }
func (g textGeom) Finite() bool   { return g.p.Finite() && geom.IsFinite(g.height) }
func (g ellipseGeom) Finite() bool {
	return g.c.Finite() && g.major.Finite() && geom.IsFinite(g.ratio)
}

// ---- transforms ----

func (g pointGeom) transformed(x geom.Xform) geometry { return pointGeom{x.Point(g.p)} }
func (g lineGeom) transformed(x geom.Xform) geometry  { return lineGeom{x.Point(g.a), x.Point(g.b)} }
func (g circleGeom) transformed(x geom.Xform) geometry {
	return circleGeom{c: x.Point(g.c), r: g.r * x.Scale}
}

func (g arcGeom) transformed(x geom.Xform) geometry {
	out := arcGeom{c: x.Point(g.c), r: g.r * x.Scale}
	if x.Mirror {
		// A reflection reverses the direction of travel: the image runs
		// counter-clockwise from the image of the end to that of the start.
		out.start, out.end = x.Direction(g.end), x.Direction(g.start)
	} else {
		out.start, out.end = x.Direction(g.start), x.Direction(g.end)
	}
	return out
}

func (g polylineGeom) transformed(x geom.Xform) geometry {
	v := make([]geom.Vertex, len(g.V))
	for i, p := range g.V {
		v[i] = geom.Vertex{P: x.Point(p.P), Bulge: p.Bulge}
		if x.Mirror && p.Bulge != 0 {
			v[i].Bulge = -p.Bulge
		}
	}
	return polylineGeom{geom.Polyline{V: v, Closed: g.Closed}}
}

// transformed moves the insertion point. A reflection keeps the text
// readable (as CAD programs do with MIRRTEXT=0): the insertion point is
// mirrored and the rotation kept.
func (g textGeom) transformed(x geom.Xform) geometry {
	out := textGeom{text: g.text, p: x.Point(g.p), height: g.height * x.Scale, rotation: g.rotation}
	if !x.Mirror {
		out.rotation = x.Direction(g.rotation)
	}
	return out
}

// transformed maps the centre and the major axis. Parameters are measured
// from the major axis, so rotation and scaling keep them; a reflection maps
// the parameter t to -t and so the sweep [s, e] to [-e, -s].
func (g ellipseGeom) transformed(x geom.Xform) geometry {
	out := ellipseGeom{c: x.Point(g.c), major: x.Linear(g.major), ratio: g.ratio, start: g.start, end: g.end}
	if x.Mirror && !g.Full() {
		out.start, out.end = geom.NormDeg(-g.end), geom.NormDeg(-g.start)
	}
	return out
}

// ---- wire ----

func pbPoint(p geom.Vec) *enginev1.Point { return &enginev1.Point{X: p.X, Y: p.Y} }

func (g pointGeom) fill(pb *enginev1.Entity) { pb.Location = pbPoint(g.p) }

func (g lineGeom) fill(pb *enginev1.Entity) {
	pb.Start, pb.End, pb.Length = pbPoint(g.a), pbPoint(g.b), new(g.a.Dist(g.b))
}

func (g circleGeom) fill(pb *enginev1.Entity) { pb.Center, pb.Radius = pbPoint(g.c), new(g.r) }

func (g arcGeom) fill(pb *enginev1.Entity) {
	pb.Center, pb.Radius = pbPoint(g.c), new(g.r)
	pb.StartAngle, pb.EndAngle = new(g.start), new(g.end)
	pb.Length = new(g.arc().Length())
}

func (g polylineGeom) fill(pb *enginev1.Entity) {
	pb.Points = make([]*enginev1.Vertex, len(g.V))
	for i, v := range g.V {
		pv := &enginev1.Vertex{X: v.P.X, Y: v.P.Y}
		if v.Bulge != 0 {
			pv.Bulge = new(v.Bulge)
		}
		pb.Points[i] = pv
	}
	pb.Closed, pb.Length = new(g.Closed), new(g.Length())
}

func (g textGeom) fill(pb *enginev1.Entity) {
	pb.Text, pb.Insertion = new(g.text), pbPoint(g.p)
	pb.Height, pb.Rotation = new(g.height), new(g.rotation)
}

func (g ellipseGeom) fill(pb *enginev1.Entity) {
	pb.Center, pb.MajorAxis, pb.Ratio = pbPoint(g.c), pbPoint(g.major), new(g.ratio)
	pb.StartAngle, pb.EndAngle = new(g.start), new(g.end)
	pb.Length = new(g.arc().Length())
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

func enumName(ev protoreflect.EnumValueDescriptor) string { return contract.EnumName(ev) }

// typeName is the wire name of an entity type ("line").
func typeName(t enginev1.EntityType) string {
	return enumName(t.Descriptor().Values().ByNumber(t.Number()))
}
