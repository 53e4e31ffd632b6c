package drawing

import (
	"math"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Dimension is a dimension entity. What its definition points mean
// depends on its Type:
//
//	aligned    P1, P2 measured; the dimension line parallel to them,
//	           Offset to the left of P1→P2
//	rotated    P1, P2 measured along the direction Angle; the dimension
//	           line Offset to the left of that direction, through P1
//	radial     Center and Radius of the circle; the leader at Angle
//	diametric  as radial; the dimension line through the centre
//	angular    the angle at Center counter-clockwise from P1 to P2; the
//	           dimension arc of radius Offset
//
// The engine computes the measurement from them (see Measurement). Binds
// tie definition points to entities: when a bound entity changes, the
// points are computed again from it in the same change (see Tx), so the
// dimension follows. Text overrides the measurement's text ("<>" stands
// for it); Style names a [DimStyle] whose sizes Scale multiplies: Own
// when it has one, else the engine's style of that name (see
// BuiltinDimStyle).
//
// Drawn, when set, is what the program that wrote the dimension drew (its
// block, read from a file): the dimension is drawn as that, its style's
// sizes and its overrides as that program applied them. It moves, turns
// and scales with the dimension; a reflection, or its definition points
// computed again from the entities it is bound to, draws it afresh from
// its style.
type Dimension struct {
	Type           enginev1.DimensionKind
	P1, P2, Center geom.Vec
	Radius         float64
	Offset         float64
	Angle          float64 // degrees
	Text           string
	Style          string
	Scale          float64
	Binds          []Bind
	Drawn          *Picture
	// Own is the dimension's own style, as its file's dimension style of
	// the name Style, with the dimension's overrides, says (its text
	// style, sizes and number format); the zero DimStyle when it is
	// drawn in the engine's style of that name.
	Own DimStyle
}

// Bind ties the definition point Slot to the Index-th candidate of the
// snap Snap of the entity Handle (see SnapCandidates). A radial or
// diametric dimension's centre bound to a circle or arc takes its centre
// and radius. An angular dimension's vertex bound to two lines (Handle
// and With) is where the lines, extended, cross.
type Bind struct {
	Slot   enginev1.DimensionSlot
	Handle uint64
	Snap   enginev1.SnapKind
	Index  int
	With   uint64
}

// Kind implements [Geometry].
func (Dimension) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_DIMENSION }

// Linear reports whether the dimension measures a distance between two
// points.
func (g Dimension) Linear() bool {
	return g.Type == enginev1.DimensionKind_DIMENSION_KIND_ALIGNED || g.Type == enginev1.DimensionKind_DIMENSION_KIND_ROTATED
}

// direction is the measuring direction of a linear dimension.
func (g Dimension) direction() geom.Vec {
	if g.Type == enginev1.DimensionKind_DIMENSION_KIND_ALIGNED {
		return g.P2.Sub(g.P1).Unit()
	}
	s, c := geom.SinCosDeg(g.Angle)
	return geom.Pt(c, s)
}

// Measurement is what the dimension measures: a distance in document
// units, or an angle in degrees.
func (g Dimension) Measurement() float64 {
	switch g.Type {
	case enginev1.DimensionKind_DIMENSION_KIND_ALIGNED:
		return g.P1.Dist(g.P2)
	case enginev1.DimensionKind_DIMENSION_KIND_ROTATED:
		return math.Abs(g.P2.Sub(g.P1).Dot(g.direction()))
	case enginev1.DimensionKind_DIMENSION_KIND_RADIAL:
		return g.Radius
	case enginev1.DimensionKind_DIMENSION_KIND_DIAMETRIC:
		return 2 * g.Radius
	case enginev1.DimensionKind_DIMENSION_KIND_ANGULAR:
		return geom.SweepDeg(geom.Deg(g.P1.Sub(g.Center).Angle()), geom.Deg(g.P2.Sub(g.Center).Angle()))
	}
	return 0
}

// DimStyle is the style the dimension is drawn in: its own, or the
// engine's of the name it has.
func (g Dimension) DimStyle() DimStyle {
	if g.Own != (DimStyle{}) {
		return g.Own
	}
	return BuiltinDimStyle(g.Style)
}

// DisplayText is the text the dimension shows: the measurement as its
// style writes it (see DimStyle.Format), "R" before a radius, "Ø" before
// a diameter (as CAD fonts draw %%c), "°" after an angle; or the
// override, with "<>" standing for that.
func (g Dimension) DisplayText() string {
	s := g.DimStyle().Format(g.Measurement())
	switch g.Type {
	case enginev1.DimensionKind_DIMENSION_KIND_RADIAL:
		s = "R" + s
	case enginev1.DimensionKind_DIMENSION_KIND_DIAMETRIC:
		s = "Ø" + s
	case enginev1.DimensionKind_DIMENSION_KIND_ANGULAR:
		s += "°"
	}
	if g.Text == "" {
		return s
	}
	return strings.ReplaceAll(g.Text, "<>", s)
}

// sizes are the style's sizes times the dimension's scale.
func (g Dimension) sizes() (text, arrow, exo, exe, gap float64) {
	st := g.DimStyle()
	k := g.Scale
	if !(k > 0) {
		k = 1
	}
	return st.TextHeight * k, st.ArrowSize * k, st.ExtOffset * k, st.ExtBeyond * k, st.TextGap * k
}

// arrow is a closed filled arrowhead with its tip at tip, pointing along
// dir, size long and a third of that wide.
func arrow(tip, dir geom.Vec, size float64) []geom.Vec {
	base := tip.Sub(dir.Mul(size))
	w := dir.Perp().Mul(size / 6)
	return []geom.Vec{tip, base.Add(w), base.Sub(w)}
}

// label is a text of height h in the style st centred on mid along the
// direction dir, turned to read left to right, its baseline gap above
// the line.
func label(s string, st TextStyle, mid, dir geom.Vec, h, gap float64) Text {
	if dir.X < -1e-12 || math.Abs(dir.X) <= 1e-12 && dir.Y < 0 {
		dir = dir.Mul(-1)
	}
	p := mid.Add(dir.Perp().Mul(gap))
	return Text{Text: s, P: p, Height: h, Rotation: geom.NormDeg(geom.Deg(dir.Angle())), Align: Align{H: AlignCenter}, Style: st}
}

// textLength is the estimated length of a dimension's text s of height h
// in the style st (see Text.estimatedWidth), which places it and the
// line under it as ezdxf's renderer does; the text is drawn centred
// there, in its face.
func textLength(s string, st TextStyle, h float64) float64 {
	return Text{Text: s, Height: h, Style: st}.estimatedWidth()
}

// linearArrows adds the arrowheads of the dimension line from d1 to d2:
// inside it, pointing out at the extension lines, when two of them and
// the text's gap fit in it; else outside, pointing in at them, each with
// a tail of the dimension line as long as itself beyond it (but at d2
// when the text beside it lies on the line carried on there: lined), as
// AutoCAD fits them (and ezdxf's renderer, by the same measure).
func linearArrows(strokes []any, fills [][]geom.Vec, d1, d2 geom.Vec, size, gap float64, lined bool) ([]any, [][]geom.Vec) {
	v := d2.Sub(d1)
	if v.Len() == 0 {
		return strokes, fills
	}
	w := v.Unit()
	if 2*size+gap <= v.Len() {
		return strokes, append(fills, arrow(d1, w.Mul(-1), size), arrow(d2, w, size))
	}
	strokes = append(strokes, geom.Segment{A: d1.Sub(w.Mul(size)), B: d1.Sub(w.Mul(2 * size))})
	if !lined {
		strokes = append(strokes, geom.Segment{A: d2.Add(w.Mul(size)), B: d2.Add(w.Mul(2 * size))})
	}
	return strokes, append(fills, arrow(d1, w, size), arrow(d2, w.Mul(-1), size))
}

// linearText adds the dimension line from d1 to d2 and its text s (of
// height h, read along u) in the style st. Text that fits between the
// extension lines — its estimated length (see textLength) within the
// line's, with the two arrowheads when it is centred across the line,
// the room ezdxf's renderer asks — is centred on the line: above it, or
// across it (DIMTAD 0) in a break of it. Text that does not is moved
// out beside the dimension line (beside: true), past the second
// extension line, as AutoCAD's default fit does (DIMATFIT 3, best fit,
// with DIMTMOVE 0: the dimension line moves with the text): one
// arrowhead and a text gap beyond it, above the line carried on under
// it; or, centred across the line, past the arrowhead's tail, the line
// carried on to that.
func linearText(strokes []any, texts []Text, s string, st DimStyle, d1, d2, u geom.Vec, h, as, gap float64) ([]any, []Text, bool) {
	w := textLength(s, st.Text, h)
	room, lift := w, gap
	if st.Centred {
		room, lift = w+2*as, -h/2
	}
	long := d1.Dist(d2)
	switch {
	case room <= long && st.Centred:
		strokes = append(strokes, brokenLine(d1, d2, w+2*gap)...)
		return strokes, append(texts, label(s, st.Text, d1.Mid(d2), u, h, lift)), false
	case room <= long:
		strokes = append(strokes, geom.Segment{A: d1, B: d2})
		return strokes, append(texts, label(s, st.Text, d1.Mid(d2), u, h, lift)), false
	}
	v := u
	if long > 0 {
		v = d2.Sub(d1).Unit()
	}
	start, end := as+gap, as+gap+w // where the text starts and the line ends, past d2
	if st.Centred {
		start, end = 2*as+gap, 2*as
	}
	strokes = append(strokes, geom.Segment{A: d1, B: d2}, geom.Segment{A: d2, B: d2.Add(v.Mul(end))})
	return strokes, append(texts, label(s, st.Text, d2.Add(v.Mul(start+w/2)), u, h, lift)), true
}

// brokenLine is the dimension line from d1 to d2 broken in its middle
// for a text, gap long with its margins: the two pieces either side; the
// whole line when the text does not fit in it.
func brokenLine(d1, d2 geom.Vec, gap float64) []any {
	v := d2.Sub(d1)
	if gap >= v.Len() {
		return []any{geom.Segment{A: d1, B: d2}}
	}
	m, w := d1.Mid(d2), v.Unit().Mul(gap/2)
	return []any{geom.Segment{A: d1, B: m.Sub(w)}, geom.Segment{A: m.Add(w), B: d2}}
}

// extension is the extension line from the measured point p to the
// dimension line at d: from exo past p to exe past d; none when d is
// within exo of p.
func extension(p, d geom.Vec, exo, exe float64) []any {
	v := d.Sub(p)
	if v.Len() <= exo {
		return nil
	}
	u := v.Unit()
	return []any{geom.Segment{A: p.Add(u.Mul(exo)), B: d.Add(u.Mul(exe))}}
}

// Picture implements [Pictured]: what its writer drew (Drawn), or
// extension lines, dimension line or arc, arrowheads and text, sized by
// the style.
func (g Dimension) Picture() Picture {
	if g.Drawn != nil {
		return g.Drawn.shared()
	}
	th, as, exo, exe, gap := g.sizes()
	text := g.DisplayText()
	st := g.DimStyle()
	var p Picture
	switch g.Type {
	case enginev1.DimensionKind_DIMENSION_KIND_ALIGNED, enginev1.DimensionKind_DIMENSION_KIND_ROTATED:
		u := g.direction()
		n := u.Perp()
		d1 := g.P1.Add(n.Mul(g.Offset))
		d2 := d1.Add(u.Mul(g.P2.Sub(g.P1).Dot(u)))
		if g.Type == enginev1.DimensionKind_DIMENSION_KIND_ALIGNED {
			d2 = g.P2.Add(n.Mul(g.Offset))
		}
		p.Strokes = append(p.Strokes, extension(g.P1, d1, exo, exe)...)
		p.Strokes = append(p.Strokes, extension(g.P2, d2, exo, exe)...)
		var beside bool
		p.Strokes, p.Texts, beside = linearText(p.Strokes, p.Texts, text, st, d1, d2, u, th, as, gap)
		p.Strokes, p.Fills = linearArrows(p.Strokes, p.Fills, d1, d2, as, gap, beside && !st.Centred)
	case enginev1.DimensionKind_DIMENSION_KIND_RADIAL, enginev1.DimensionKind_DIMENSION_KIND_DIAMETRIC:
		s, c := geom.SinCosDeg(g.Angle)
		u := geom.Pt(c, s)
		a := g.Center.Add(u.Mul(g.Radius))
		b := g.Center
		if g.Type == enginev1.DimensionKind_DIMENSION_KIND_DIAMETRIC {
			b = g.Center.Sub(u.Mul(g.Radius))
			p.Fills = append(p.Fills, arrow(b, u.Mul(-1), as))
		}
		// The text outside the circle, beyond the point at Angle, on
		// the dimension line carried on under it from the arrowhead
		// that points in at the circle there (AutoCAD's default
		// placement: DIMTIX off, the dimension line drawn inside).
		w := textLength(text, st.Text, th)
		p.Strokes = append(p.Strokes, geom.Segment{A: b, B: a},
			geom.Segment{A: a.Add(u.Mul(as)), B: a.Add(u.Mul(as + gap + w))})
		p.Fills = append(p.Fills, arrow(a, u.Mul(-1), as))
		p.Texts = append(p.Texts, label(text, st.Text, a.Add(u.Mul(as+gap+w/2)), u, th, gap))
	case enginev1.DimensionKind_DIMENSION_KIND_ANGULAR:
		r := g.arcRadius()
		a1 := g.P1.Sub(g.Center).Angle()
		sweep := geom.Rad(g.Measurement())
		arc := geom.Arc{C: g.Center, R: r, Start: a1, Sweep: sweep}
		for _, q := range []geom.Vec{g.P1, g.P2} {
			dir := q.Sub(g.Center).Unit()
			if q.Dist(g.Center) < r {
				p.Strokes = append(p.Strokes, extension(q, g.Center.Add(dir.Mul(r)), exo, exe)...)
			}
		}
		if sweep > 0 {
			p.Strokes = append(p.Strokes, arc)
			s, e := arc.At(a1), arc.At(a1+sweep)
			ts := s.Sub(g.Center).Perp().Unit()
			te := e.Sub(g.Center).Perp().Unit()
			p.Fills = append(p.Fills, arrow(s, ts.Mul(-1), as), arrow(e, te, as))
		}
		m := arc.At(a1 + sweep/2)
		p.Texts = append(p.Texts, label(text, st.Text, m, m.Sub(g.Center).Perp().Unit().Mul(-1), th, gap))
	}
	return p
}

// arcRadius is the angular dimension's arc radius: Offset, or the shorter
// ray.
func (g Dimension) arcRadius() float64 {
	if g.Offset > 0 {
		return g.Offset
	}
	return math.Min(g.P1.Dist(g.Center), g.P2.Dist(g.Center))
}

// Prims implements [Geometry]: the dimension's lines and arc (extension
// lines, dimension line), not its arrowheads or text.
func (g Dimension) Prims() []any { return g.Picture().Strokes }

// Bounds implements [Geometry]: the whole picture, text included, and
// the points it measures, which a CAD program's extents hold even where
// nothing is drawn (the points on layer Defpoints of a dimension's block,
// shown but not plotted): an angular dimension's rays may run on past
// its arc.
func (g Dimension) Bounds() geom.Box {
	b := g.Picture().Bounds()
	for _, q := range g.measured() {
		b.AddPoint(q)
	}
	return b
}

// measured is the points the dimension measures: the two points of a
// linear one, the centre and the point on the circle of a radial or
// diametric one (both ends of the diameter), the vertex and the two
// points of an angular one.
func (g Dimension) measured() []geom.Vec {
	switch g.Type {
	case enginev1.DimensionKind_DIMENSION_KIND_ALIGNED, enginev1.DimensionKind_DIMENSION_KIND_ROTATED:
		return []geom.Vec{g.P1, g.P2}
	case enginev1.DimensionKind_DIMENSION_KIND_RADIAL, enginev1.DimensionKind_DIMENSION_KIND_DIAMETRIC:
		s, c := geom.SinCosDeg(g.Angle)
		u := geom.Pt(c, s).Mul(g.Radius)
		if g.Type == enginev1.DimensionKind_DIMENSION_KIND_RADIAL {
			return []geom.Vec{g.Center, g.Center.Add(u)}
		}
		return []geom.Vec{g.Center.Sub(u), g.Center.Add(u)}
	case enginev1.DimensionKind_DIMENSION_KIND_ANGULAR:
		return []geom.Vec{g.Center, g.P1, g.P2}
	}
	return nil
}

// Finite implements [Geometry].
func (g Dimension) Finite() bool {
	return g.P1.Finite() && g.P2.Finite() && g.Center.Finite() && geom.IsFinite(g.Radius) &&
		geom.IsFinite(g.Offset) && geom.IsFinite(g.Angle) && geom.IsFinite(g.Scale) &&
		(g.Drawn == nil || g.Drawn.finite()) && g.Own.finite()
}

// Transformed maps the definition points; the offset and radius scale,
// directions turn, and a reflection flips the side of the dimension line
// (and swaps an angle's rays, which it reverses). The style's sizes stay:
// they are paper sizes. What its writer drew moves with it, unless
// reflected (its text would read backwards).
func (g Dimension) Transformed(x geom.Xform) Geometry {
	out := g
	out.Binds = append([]Bind(nil), g.Binds...)
	out.Drawn = g.Drawn.placed(x.Affine())
	out.P1, out.P2, out.Center = x.Point(g.P1), x.Point(g.P2), x.Point(g.Center)
	out.Radius, out.Offset = g.Radius*x.Scale, g.Offset*x.Scale
	out.Angle = x.Direction(g.Angle)
	if x.Mirror {
		if g.Linear() {
			out.Offset = -out.Offset
		}
		if g.Type == enginev1.DimensionKind_DIMENSION_KIND_ANGULAR {
			out.P1, out.P2 = out.P2, out.P1
			for i, b := range out.Binds {
				switch b.Slot {
				case enginev1.DimensionSlot_DIMENSION_SLOT_P1:
					out.Binds[i].Slot = enginev1.DimensionSlot_DIMENSION_SLOT_P2
				case enginev1.DimensionSlot_DIMENSION_SLOT_P2:
					out.Binds[i].Slot = enginev1.DimensionSlot_DIMENSION_SLOT_P1
				}
			}
		}
	}
	return out
}

// Refs implements [Bound].
func (g Dimension) Refs() []uint64 {
	var out []uint64
	for _, b := range g.Binds {
		out = append(out, b.Handle)
		if b.With != 0 {
			out = append(out, b.With)
		}
	}
	return out
}

// Rebind implements [Bound]: every bound point computed again from its
// entity; a bind whose entity is gone, or no longer has the point, is
// dropped and the point stays where it was. When placed, a linear
// dimension's line keeps where it is (its offset is measured again from
// the points); an angle's arc and a leader's direction are kept anyway.
func (g Dimension) Rebind(look func(uint64) *Entity, placed bool) Geometry {
	out := g
	if len(g.Binds) > 0 {
		out.Drawn = nil
	}
	out.Binds = out.Binds[:0:0]
	for _, b := range g.Binds {
		if out.apply(b, look) {
			out.Binds = append(out.Binds, b)
		}
	}
	if placed && g.Linear() && !out.P1.Same(out.P2) {
		line := g.P1.Add(g.direction().Perp().Mul(g.Offset))
		out.Offset = line.Sub(out.P1).Dot(out.direction().Perp())
	}
	return out
}

// apply sets the point of b from its entity; false when it cannot.
func (g *Dimension) apply(b Bind, look func(uint64) *Entity) bool {
	e := look(b.Handle)
	if e == nil {
		return false
	}
	if b.With != 0 {
		f := look(b.With)
		if f == nil {
			return false
		}
		l1, ok1 := e.Geom.(Line)
		l2, ok2 := f.Geom.(Line)
		if !ok1 || !ok2 {
			return false
		}
		x, ok := LineCrossing(l1, l2)
		if !ok {
			return false
		}
		g.Center = x
		return true
	}
	if b.Slot == enginev1.DimensionSlot_DIMENSION_SLOT_CENTER && (g.Type == enginev1.DimensionKind_DIMENSION_KIND_RADIAL || g.Type == enginev1.DimensionKind_DIMENSION_KIND_DIAMETRIC) {
		switch c := e.Geom.(type) {
		case Circle:
			g.Center, g.Radius = c.C, c.R
		case Arc:
			g.Center, g.Radius = c.C, c.R
		default:
			return false
		}
		return true
	}
	cands := SnapCandidates(e.Geom, b.Snap, geom.Vec{})
	if b.Index < 0 || b.Index >= len(cands) {
		return false
	}
	switch b.Slot {
	case enginev1.DimensionSlot_DIMENSION_SLOT_P1:
		g.P1 = cands[b.Index]
	case enginev1.DimensionSlot_DIMENSION_SLOT_P2:
		g.P2 = cands[b.Index]
	case enginev1.DimensionSlot_DIMENSION_SLOT_CENTER:
		g.Center = cands[b.Index]
	default:
		return false
	}
	return true
}

// LineCrossing is where the lines through two line entities cross; false
// when they are parallel.
func LineCrossing(a, b Line) (geom.Vec, bool) {
	d1, d2 := a.B.Sub(a.A), b.B.Sub(b.A)
	den := d1.X*d2.Y - d1.Y*d2.X
	if math.Abs(den) <= geom.Tolerance*d1.Len()*d2.Len() {
		return geom.Vec{}, false
	}
	w := b.A.Sub(a.A)
	u := (w.X*d2.Y - w.Y*d2.X) / den
	return a.A.Add(d1.Mul(u)), true
}

func (g Dimension) encodeTo(w *encoder) {
	w.byte(byte(g.Type))
	w.vec(g.P1)
	w.vec(g.P2)
	w.vec(g.Center)
	w.float(g.Radius)
	w.float(g.Offset)
	w.float(g.Angle)
	w.float(g.Scale)
	w.string(g.Text)
	w.string(g.Style)
	w.uvarint(uint64(len(g.Binds)))
	for _, b := range g.Binds {
		w.byte(byte(b.Slot))
		w.uvarint(b.Handle)
		w.byte(byte(b.Snap))
		w.uvarint(uint64(b.Index))
		w.uvarint(b.With)
	}
	if g.Own != (DimStyle{}) {
		w.byte(dimOwnStyle)
		g.Own.encodeTo(w)
	}
	g.Drawn.encodeDrawn(w)
}

// dimOwnStyle tags a dimension's own style in its encoding, after its
// bindings and before what its writer drew: a dimension without one
// encodes as it always did.
const dimOwnStyle = 'D'

func decodeDimension(r *decoder) Dimension {
	g := Dimension{Type: enginev1.DimensionKind(r.byte())}
	g.P1, g.P2, g.Center = r.vec(), r.vec(), r.vec()
	g.Radius, g.Offset, g.Angle, g.Scale = r.float(), r.float(), r.float(), r.float()
	g.Text, g.Style = r.string(), r.string()
	n := r.uvarint()
	if n > uint64(len(r.b)/5) {
		r.fail("dimension bindings")
		return g
	}
	for i := uint64(0); i < n; i++ {
		b := Bind{Slot: enginev1.DimensionSlot(r.byte()), Handle: r.uvarint()}
		b.Snap = enginev1.SnapKind(r.byte())
		b.Index = int(r.uvarint())
		b.With = r.uvarint()
		g.Binds = append(g.Binds, b)
	}
	if len(r.b) > 0 && r.b[0] == dimOwnStyle {
		r.byte()
		g.Own = decodeDimStyle(r)
	}
	g.Drawn = decodeDrawn(r)
	return g
}

func (g Dimension) fill(w *wire) {
	pb := &w.pb
	d := &enginev1.Dimension{
		Kind: g.Type, Offset: g.Offset, Angle: g.Angle, Measurement: g.Measurement(),
		TextOverride: g.Text, Text: g.DisplayText(), Style: g.Style, Scale: g.Scale,
	}
	switch {
	case g.Linear():
		d.P1, d.P2 = pbPoint(g.P1), pbPoint(g.P2)
	case g.Type == enginev1.DimensionKind_DIMENSION_KIND_ANGULAR:
		d.P1, d.P2, d.Center = pbPoint(g.P1), pbPoint(g.P2), pbPoint(g.Center)
	default:
		d.Center, d.Radius = pbPoint(g.Center), new(g.Radius)
	}
	for _, b := range g.Binds {
		pbb := &enginev1.DimensionBinding{Slot: b.Slot, Handle: FormatHandle(b.Handle), Snap: b.Snap.WireName(), Index: int32(b.Index)}
		if b.With != 0 {
			pbb.With = new(FormatHandle(b.With))
		}
		d.Bindings = append(d.Bindings, pbb)
	}
	pb.Dimension = d
}
