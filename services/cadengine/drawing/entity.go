package drawing

import (
	"encoding/hex"
	"errors"
	"math"
	"unicode/utf8"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Entity is one drawing entity. An entity in a document is never changed in
// place: a write makes a new *entity, so the undo log can keep both.
type Entity struct {
	Handle uint64
	Layer  string
	Color  int32 // ACI, 256 = by layer, 0 = by block
	// LinetypeScale is the entity's own linetype scale (DXF code 48),
	// 0 for the default, 1 (see LtScale). Single precision, in what
	// would be the padding after Color: a scale needs no more digits,
	// and an entity no more bytes.
	LinetypeScale float32
	Linetype      string // canonical spelling, "ByLayer" by default
	// Layout is the paper-space layout the entity is on ("Layout1"), or
	// "" for model space, where drawing, extents and listing look.
	Layout string
	Geom   Geometry
	fp     [32]byte // SHA-256 of encode(); set by seal
}

// Geometry is the type-specific part of an entity, in world coordinates.
type Geometry interface {
	Kind() enginev1.EntityType
	// encodeTo appends the canonical encoding of the geometry.
	encodeTo(w *encoder)
	// Transformed is the geometry under a similarity transform.
	Transformed(x geom.Xform) Geometry
	// Affined is the geometry under an affine map that does not keep
	// shapes (an unevenly scaled insert's placement): exact where the
	// geometry can say the image (lines, conics, splines, polylines, as
	// splines when they bulge), else the nearest it can hold (text, a
	// dimension's offsets, a hatch's pattern: see geom.Affine.Nearest).
	Affined(m geom.Affine) Geometry
	// Prims are the curves the geometry is made of (none for points and
	// text).
	Prims() []any
	Bounds() geom.Box
	Finite() bool
	// fill sets the geometry fields of the wire entity.
	fill(w *wire)
}

// Point is a point entity at P.
type Point struct{ P geom.Vec }

// Line is a line from A to B.
type Line struct{ A, B geom.Vec }

// Circle is a circle about C of radius R.
type Circle struct {
	C geom.Vec
	R float64
}

// Arc runs counter-clockwise from start to end (degrees, each in
// [0, 360), never equal).
type Arc struct {
	C          geom.Vec
	R          float64
	Start, End float64
}

// Polyline is an open or closed polyline. The bulge of the last vertex
// of an open polyline is always 0.
//
// Widths, when it has any, are one per vertex: the piece from vertex i to
// the next is drawn Widths[i].Start wide at vertex i and Widths[i].End
// wide at the next (DXF's start and end widths), as filled outlines (see
// [Polyline.Picture]). A polyline without (nil, the common case) is drawn
// as a line. Widths are never all 0, and the last vertex's of an open
// polyline are always 0 (see [Polyline.WithWidths]).
type Polyline struct {
	geom.Polyline
	Widths []geom.Width
}

// Text is a line of text at P, Height tall, turned by Rotation degrees
// (in [0, 360)); Align says which point of the text P is (the start of
// its baseline unless set). A text set between two points (Fit, DXF's
// justification 3 aligned and 5 fit) runs from P, the start of its
// baseline, to End, along Rotation (End's direction from P); Align is
// then zero. Style says how its glyphs are set: its width factor and
// slant (DXF's 41 and 51) and font.
type Text struct {
	Text     string
	P        geom.Vec
	Height   float64
	Rotation float64 // degrees, in [0, 360)
	Align    Align
	Fit      uint8 // FitNone, FitAligned or FitWidth
	End      geom.Vec
	Style    TextStyle
}

// The values of Text.Fit: a text set at its point, or between two: an
// aligned one's height and width scale together to fill the space, a
// fitted one keeps its height and is stretched or squeezed across.
const (
	FitNone    = 0
	FitAligned = 1
	FitWidth   = 2
)

// Align is which point of a line of text its insertion point is, as DXF's
// TEXT justifies it: H, along the text, its start (AlignLeft), centre or
// end; V, across it, its baseline (AlignBaseline), the bottom of its
// descenders, the middle or the top of its capitals. The zero Align is
// the start of the baseline.
type Align struct{ H, V uint8 }

// The values of Align.H and Align.V.
const (
	AlignLeft   = 0
	AlignCenter = 1
	AlignRight  = 2

	AlignBaseline = 0
	AlignBottom   = 1
	AlignMiddle   = 2
	AlignTop      = 3
)

// valid reports whether a is one of the alignments DXF has.
func (a Align) valid() bool { return a.H <= AlignRight && a.V <= AlignTop }

// byte packs a into one byte (H low, V high); alignOf unpacks it.
func (a Align) byte() byte { return a.H | a.V<<4 }

func alignOf(b byte) Align { return Align{H: b & 0x0f, V: b >> 4} }

// Shift is how far the text starts before P along it, as a share of its
// width (0, ½ or 1), and how far its baseline is above P across it, in
// drawing units.
func (g Text) Shift() (along, above float64) {
	along = float64(g.Align.H) / 2
	switch g.Align.V {
	case AlignBottom:
		above = textDescender * g.Height
	case AlignMiddle:
		above = -g.Height / 2
	case AlignTop:
		above = -g.Height
	}
	return along, above
}

// Ellipse is an ellipse or elliptical arc; start and end are parametric
// angles in degrees relative to the major axis, each in [0, 360) for an arc,
// or exactly 0 and 360 for a full ellipse.
type Ellipse struct {
	C, Major   geom.Vec
	Ratio      float64
	Start, End float64
}

// ---- construction helpers ----

// NewArc makes an arc with its angles normalised to [0, 360); angles
// that coincide (within Tolerance along the arc) are refused, since an arc
// of no sweep and a full turn cannot be told apart.
func NewArc(c geom.Vec, r, start, end float64) (Arc, error) {
	s, e := geom.NormDeg(start), geom.NormDeg(end)
	if sw := geom.SweepDeg(s, e); geom.Eq(sw*geom.Rad(1)*r, 0) || geom.Eq((360-sw)*geom.Rad(1)*r, 0) {
		return Arc{}, errors.New("an arc needs a sweep: start_angle and end_angle coincide (use a circle for a full turn)")
	}
	return Arc{C: c, R: r, Start: s, End: e}, nil
}

// NewEllipse makes an ellipse; start and end angles that are equal
// (modulo 360) or 360 or more apart make a full ellipse.
func NewEllipse(c, major geom.Vec, ratio, start, end float64) (Ellipse, error) {
	if major.Len() == 0 {
		return Ellipse{}, errors.New("the major axis has zero length")
	}
	if math.Abs(end-start) >= 360 || geom.Eq(geom.SweepDeg(start, end), 0) {
		return Ellipse{C: c, Major: major, Ratio: ratio, Start: 0, End: 360}, nil
	}
	return Ellipse{C: c, Major: major, Ratio: ratio, Start: geom.NormDeg(start), End: geom.NormDeg(end)}, nil
}

// Full reports whether the ellipse is whole (not an elliptical arc).
func (g Ellipse) Full() bool { return g.Start == 0 && g.End == 360 }

// NewPolyline makes a polyline of a copy of v; the last bulge of an open one is dropped.
func NewPolyline(v []geom.Vertex, closed bool) Polyline {
	v = append([]geom.Vertex(nil), v...)
	if !closed && len(v) > 0 {
		v[len(v)-1].Bulge = 0
	}
	return Polyline{Polyline: geom.Polyline{V: v, Closed: closed}}
}

// WithWidths is the polyline drawn with a copy of the widths w, one per
// vertex (nil for none); widths that are all 0 make none, and the last
// vertex's widths of an open polyline are dropped.
func (g Polyline) WithWidths(w []geom.Width) Polyline {
	g.Widths = nil
	if len(w) != len(g.V) {
		return g
	}
	w = append([]geom.Width(nil), w...)
	if !g.Closed {
		w[len(w)-1] = geom.Width{}
	}
	for _, x := range w {
		if !x.Zero() {
			g.Widths = w
			break
		}
	}
	return g
}

// Kind implements [Geometry].
func (Point) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_POINT }

// Kind implements [Geometry].
func (Line) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_LINE }

// Kind implements [Geometry].
func (Circle) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_CIRCLE }

// Kind implements [Geometry].
func (Arc) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_ARC }

// Kind implements [Geometry].
func (Polyline) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_POLYLINE }

// Kind implements [Geometry].
func (Text) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_TEXT }

// Kind implements [Geometry].
func (Ellipse) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_ELLIPSE }

// ---- prims ----

// Curve is the one curve of a line, arc, circle or ellipse (its Prims'
// only one, without the slice around it: the drafting tools ask for it
// of every entity they cut or round); false for other geometry.
func Curve(g Geometry) (any, bool) {
	switch g := g.(type) {
	case Line:
		return geom.Segment{A: g.A, B: g.B}, true
	case Circle:
		return geom.Arc{C: g.C, R: g.R, Start: 0, Sweep: 2 * math.Pi}, true
	case Arc:
		return g.Arc(), true
	case Ellipse:
		return g.Arc(), true
	}
	return nil, false
}

// Prims implements [Geometry].
func (Point) Prims() []any { return nil }

// Prims implements [Geometry].
func (g Line) Prims() []any { c, _ := Curve(g); return []any{c} }

// Prims implements [Geometry].
func (g Circle) Prims() []any { c, _ := Curve(g); return []any{c} }

// Prims implements [Geometry].
func (g Arc) Prims() []any { return []any{g.Arc()} }

// Prims implements [Geometry].
func (Text) Prims() []any { return nil }

// Prims implements [Geometry].
func (g Ellipse) Prims() []any { return []any{g.Arc()} }

// Arc is the arc as a primitive, in radians.
func (g Arc) Arc() geom.Arc {
	return geom.Arc{C: g.C, R: g.R, Start: geom.Rad(g.Start), Sweep: geom.Rad(geom.SweepDeg(g.Start, g.End))}
}

// Arc is the ellipse as a primitive, in radians.
func (g Ellipse) Arc() geom.EllipseArc {
	if g.Full() {
		return geom.EllipseArc{C: g.C, Major: g.Major, Ratio: g.Ratio, Start: 0, Sweep: 2 * math.Pi}
	}
	return geom.EllipseArc{C: g.C, Major: g.Major, Ratio: g.Ratio, Start: geom.Rad(g.Start), Sweep: geom.Rad(geom.SweepDeg(g.Start, g.End))}
}

// ---- bounds ----

// Bounds implements [Geometry].
func (g Point) Bounds() geom.Box { return geom.Box{Min: g.P, Max: g.P, NonEmpty: true} }

// Bounds implements [Geometry].
func (g Line) Bounds() geom.Box { return geom.PrimBounds(g.Prims()) }

// Bounds implements [Geometry].
func (g Circle) Bounds() geom.Box { return geom.PrimBounds(g.Prims()) }

// Bounds implements [Geometry].
func (g Arc) Bounds() geom.Box { return geom.PrimBounds(g.Prims()) }

// Bounds implements [Geometry].
func (g Ellipse) Bounds() geom.Box { return geom.PrimBounds(g.Prims()) }

// DefaultTextHeight is the height of text created without one.
const DefaultTextHeight = 2.5

// The engine has no fonts: it estimates text as ezdxf does without them
// (ezdxf.tools.fonts.MonospaceFont), so that the extents of a drawing
// agree with ezdxf's (DESIGN §10). Every character is as wide as the cap
// height (textCharWidth), and the text reaches textDescender of it below
// its baseline.
const (
	textCharWidth = 1.0
	textDescender = 0.333
)

// capHeight is how tall a sans-serif font's capitals are, as a share of
// its size (the Go font's are 0.723 of it, Arial's 0.716, DejaVu Sans's
// 0.729), for a face whose own is not known.
const capHeight = 0.72

// FontSize is the font size that draws the text's capitals Height tall
// in a generic sans-serif family: a drawing's text height, DXF's code 40,
// is the height of its capitals, as ezdxf and CAD programs draw it, not
// the font's size.
func (g Text) FontSize() float64 { return g.Height / capHeight }

// Start is where the text's baseline starts, by the estimate of its
// width (see corners): P itself for text aligned there or set between two
// points.
func (g Text) Start() geom.Vec {
	if g.Align == (Align{}) || g.Fit != FitNone {
		return g.P
	}
	w := g.estimatedWidth()
	s, c := geom.SinCosDeg(g.Rotation)
	along, above := g.Shift()
	return g.P.Sub(geom.Pt(c, s).Mul(along * w)).Add(geom.Pt(-s, c).Mul(above))
}

// estimatedWidth is ezdxf's estimate of the text's length (see
// textCharWidth) at its width factor.
func (g Text) estimatedWidth() float64 {
	return float64(utf8.RuneCountInString(g.Text)) * textCharWidth * g.Height * g.Style.WidthFactor()
}

// fitted is the length of a text set between two points, and the factor
// its height is drawn at (1 for a fitted one, the length over natural,
// its length at its height, for an aligned one); ok false for a text set
// at its point, or between points too close or of no natural length to
// stretch (which is set at its point).
func (g Text) fitted(natural float64) (length, k float64, ok bool) {
	if g.Fit == FitNone {
		return 0, 1, false
	}
	length = g.End.Sub(g.P).Len()
	if !(length > geom.Tolerance) || !(natural > 0) {
		return 0, 1, false
	}
	if g.Fit == FitAligned {
		return length, length / natural, true
	}
	return length, 1, true
}

// corners are the corners of the text's estimated box, as ezdxf's
// TextLinePrimitive makes it: characters × height × width factor long
// along the rotation from where it starts (see Shift), from
// textDescender × height below the baseline to height above it, the top
// slanted right by the style's oblique angle, then mirrored about P as
// its generation flags say. A text set between two points spans them
// (mirrored about their middle), its height scaled as an aligned text's
// is.
func (g Text) corners() [4]geom.Vec {
	w, h, rot, at := g.estimatedWidth(), g.Height, g.Rotation, g.P
	along, above := g.Shift()
	if length, k, ok := g.fitted(w); ok {
		w, h, rot = length, h*k, geom.Deg(g.End.Sub(g.P).Angle())
		at, along, above = g.P.Mid(g.End), 0.5, 0
	}
	s, c := geom.SinCosDeg(rot)
	u, v := geom.Pt(c, s), geom.Pt(-s, c)
	t, d := g.Style.Slant(), textDescender*h
	mx, my := g.Style.mirrors()
	var out [4]geom.Vec
	for i, q := range [4]geom.Vec{{X: -d * t, Y: -d}, {X: w - d*t, Y: -d}, {X: w + h*t, Y: h}, {X: h * t, Y: h}} {
		out[i] = at.Add(u.Mul(mx * (q.X - along*w))).Add(v.Mul(my * (q.Y + above)))
	}
	return out
}

// Bounds implements [Geometry].
func (g Text) Bounds() geom.Box {
	var b geom.Box
	for _, p := range g.corners() {
		b.AddPoint(p)
	}
	return b
}

// ---- finite ----

// Finite implements [Geometry].
func (g Point) Finite() bool { return g.P.Finite() }

// Finite implements [Geometry].
func (g Line) Finite() bool { return g.A.Finite() && g.B.Finite() }

// Finite implements [Geometry].
func (g Circle) Finite() bool { return g.C.Finite() && geom.IsFinite(g.R) }

// Finite implements [Geometry].
func (g Arc) Finite() bool { return g.C.Finite() && geom.IsFinite(g.R) }

// Finite implements [Geometry].
func (g Text) Finite() bool {
	return g.P.Finite() && geom.IsFinite(g.Height) && g.End.Finite() && geom.IsFinite(g.Style.Width) && geom.IsFinite(g.Style.Oblique)
}

// Finite implements [Geometry].
func (g Ellipse) Finite() bool {
	return g.C.Finite() && g.Major.Finite() && geom.IsFinite(g.Ratio)
}

// ---- transforms ----

// Transformed implements [Geometry].
func (g Point) Transformed(x geom.Xform) Geometry { return Point{x.Point(g.P)} }

// Transformed implements [Geometry].
func (g Line) Transformed(x geom.Xform) Geometry { return Line{x.Point(g.A), x.Point(g.B)} }

// Transformed implements [Geometry].
func (g Circle) Transformed(x geom.Xform) Geometry {
	return Circle{C: x.Point(g.C), R: g.R * x.Scale}
}

// Transformed implements [Geometry].
func (g Arc) Transformed(x geom.Xform) Geometry {
	out := Arc{C: x.Point(g.C), R: g.R * x.Scale}
	if x.Mirror {
		// A reflection reverses the direction of travel: the image runs
		// counter-clockwise from the image of the end to that of the start.
		out.Start, out.End = x.Direction(g.End), x.Direction(g.Start)
	} else {
		out.Start, out.End = x.Direction(g.Start), x.Direction(g.End)
	}
	return out
}

// Transformed implements [Geometry].
func (g Polyline) Transformed(x geom.Xform) Geometry {
	v := make([]geom.Vertex, len(g.V))
	for i, p := range g.V {
		v[i] = geom.Vertex{P: x.Point(p.P), Bulge: p.Bulge}
		if x.Mirror && p.Bulge != 0 {
			v[i].Bulge = -p.Bulge
		}
	}
	return Polyline{Polyline: geom.Polyline{V: v, Closed: g.Closed}, Widths: scaledWidths(g.Widths, x.Scale)}
}

// scaledWidths is a copy of w scaled by f (nil for nil).
func scaledWidths(w []geom.Width, f float64) []geom.Width {
	if w == nil {
		return nil
	}
	out := make([]geom.Width, len(w))
	for i, x := range w {
		out[i] = geom.Width{Start: x.Start * f, End: x.End * f}
	}
	return out
}

// Transformed moves the insertion point. A reflection keeps the text
// readable (as CAD programs do with MIRRTEXT=0): the insertion point is
// mirrored and the rotation kept; a text set between two points is set
// between their images, from the one it reads from.
func (g Text) Transformed(x geom.Xform) Geometry {
	out := g
	out.P, out.Height = x.Point(g.P), g.Height*x.Scale
	if !x.Mirror {
		out.Rotation = x.Direction(g.Rotation)
	}
	if g.Fit != FitNone {
		// Between the images of its points; a reflection that turns the
		// baseline back swaps them, so that it reads the right way.
		a, b := x.Point(g.P), x.Point(g.End)
		if x.Mirror && b.Sub(a).Dot(g.End.Sub(g.P)) < 0 {
			a, b = b, a
		}
		out.P, out.End = a, b
		out.Rotation = geom.NormDeg(geom.Deg(b.Sub(a).Angle()))
	}
	return out
}

// Reflected is the text placed by x, a reflection, with its glyphs
// reflected too: the image of its baseline is its baseline (the image of
// its direction its rotation, a text between two points between their
// images, not swapped), and it is drawn upside down about that baseline
// (or no longer, if it was). So CAD programs draw a text in a block
// inserted at a negative scale, whatever MIRRTEXT says (which the MIRROR
// command reads, and Transformed follows: it keeps a text readable).
func (g Text) Reflected(x geom.Xform) Text {
	out := g
	out.P, out.Height = x.Point(g.P), g.Height*x.Scale
	out.Rotation = x.Direction(g.Rotation)
	if g.Fit != FitNone {
		out.End = x.Point(g.End)
		out.Rotation = geom.NormDeg(geom.Deg(out.End.Sub(out.P).Angle()))
	}
	out.Style.Mirror ^= MirrorUpsideDown
	return out
}

// Transformed maps the centre and the major axis. Parameters are measured
// from the major axis, so rotation and scaling keep them; a reflection maps
// the parameter t to -t and so the sweep [s, e] to [-e, -s].
func (g Ellipse) Transformed(x geom.Xform) Geometry {
	out := Ellipse{C: x.Point(g.C), Major: x.Linear(g.Major), Ratio: g.Ratio, Start: g.Start, End: g.End}
	if x.Mirror && !g.Full() {
		out.Start, out.End = geom.NormDeg(-g.End), geom.NormDeg(-g.Start)
	}
	return out
}

// ---- wire ----

// wire is an entity's wire message with room for its parts (points and
// optional numbers; no geometry has more), so that Proto makes one
// allocation for them, a polyline one more per vertex.
type wire struct {
	pb   enginev1.Entity
	pts  [2]enginev1.Point
	nums [4]float64
	np   int // pts used
	nn   int // nums used
}

// pbPoint is p as a message of its own, for the parts of nested messages.
func pbPoint(p geom.Vec) *enginev1.Point { return &enginev1.Point{X: p.X, Y: p.Y} }

func (w *wire) point(p geom.Vec) *enginev1.Point {
	pt := &w.pts[w.np]
	w.np++
	pt.X, pt.Y = p.X, p.Y
	return pt
}

func (w *wire) num(v float64) *float64 {
	n := &w.nums[w.nn]
	w.nn++
	*n = v
	return n
}

func (g Point) fill(w *wire) { w.pb.Location = w.point(g.P) }

func (g Line) fill(w *wire) {
	w.pb.Start, w.pb.End, w.pb.Length = w.point(g.A), w.point(g.B), w.num(g.A.Dist(g.B))
}

func (g Circle) fill(w *wire) { w.pb.Center, w.pb.Radius = w.point(g.C), w.num(g.R) }

func (g Arc) fill(w *wire) {
	w.pb.Center, w.pb.Radius = w.point(g.C), w.num(g.R)
	w.pb.StartAngle, w.pb.EndAngle = w.num(g.Start), w.num(g.End)
	w.pb.Length = w.num(g.Arc().Length())
}

func (g Polyline) fill(w *wire) {
	w.pb.Points = make([]*enginev1.Vertex, len(g.V))
	for i, v := range g.V {
		pv := &enginev1.Vertex{X: v.P.X, Y: v.P.Y}
		if v.Bulge != 0 {
			pv.Bulge = new(v.Bulge)
		}
		if g.Widths != nil {
			pv.StartWidth, pv.EndWidth = new(g.Widths[i].Start), new(g.Widths[i].End)
		}
		w.pb.Points[i] = pv
	}
	w.pb.Closed, w.pb.Length = new(g.Closed), w.num(g.Length())
}

func (g Text) fill(w *wire) {
	w.pb.Text, w.pb.Insertion = new(g.Text), w.point(g.P)
	w.pb.Height, w.pb.Rotation = w.num(g.Height), w.num(g.Rotation)
	if g.Align != (Align{}) {
		w.pb.Attachment = new(g.Align.Attachment())
	}
}

// Attachment is the alignment as the wire says it: TextAttachment's
// rows are top, middle, bottom and baseline, its columns left, centre
// and right.
func (a Align) Attachment() enginev1.TextAttachment {
	row := [...]int32{AlignTop: 0, AlignMiddle: 1, AlignBottom: 2, AlignBaseline: 3}[a.V]
	return enginev1.TextAttachment(1 + 3*row + int32(a.H))
}

func (g Ellipse) fill(w *wire) {
	w.pb.Center, w.pb.MajorAxis, w.pb.Ratio = w.point(g.C), w.point(g.Major), w.num(g.Ratio)
	w.pb.StartAngle, w.pb.EndAngle = w.num(g.Start), w.num(g.End)
	w.pb.Length = w.num(g.Arc().Length())
}

// Proto is the entity as the wire sees it.
func (e *Entity) Proto() *enginev1.Entity {
	// The handle and the fingerprint are cut from one string: one
	// allocation for both.
	var b [16 + 2*len(e.fp)]byte
	text := string(hex.AppendEncode(AppendHandle(b[:0], e.Handle), e.fp[:]))
	n := len(text) - 2*len(e.fp)
	w := &wire{pb: enginev1.Entity{
		Handle:      text[:n],
		Type:        e.Geom.Kind(),
		Layer:       e.Layer,
		Color:       e.Color,
		Linetype:    e.Linetype,
		Fingerprint: text[n:],
	}}
	if e.Layout != "" {
		w.pb.Layout = &e.Layout
	}
	if e.LinetypeScale != 0 {
		w.pb.LinetypeScale = new(e.LtScale())
	}
	e.Geom.fill(w)
	return &w.pb
}

// Fingerprint is the hex SHA-256 of the entity's canonical encoding.
func (e *Entity) Fingerprint() string {
	var b [2 * len(e.fp)]byte
	hex.Encode(b[:], e.fp[:])
	return string(b[:])
}
