package engine

import (
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Dimensions. Each create tool takes its measured points as anchors: a
// point of an entity (its handle and a snap), to which the dimension is
// bound, or a free point. The engine computes the measurement; a bound
// dimension follows its entities when they move, scale or are edited,
// in the same change (see drawing.Bound), and keeps its last points, no
// longer bound, when they are deleted.

// dimensionCommon is what every dimension create tool takes besides its
// points.
type dimensionCommon struct {
	text   *string
	style  *string
	scale  *float64
	layer  *string
	color  *int32
	offset *float64
}

// dimensionOf fills in the style, scale and text of g from the args.
func (c *call) dimensionOf(g drawing.Dimension, a dimensionCommon) (drawing.Dimension, error) {
	st := drawing.DefaultDimStyle(c.d.Units)
	if a.style != nil {
		s, ok := drawing.DimStyleNamed(*a.style)
		if !ok {
			return g, invalidArgs("/style", reasonInvalid, "unknown dimension style %q (see dimension_style_list)", *a.style)
		}
		st = s
	}
	g.Style, g.Scale = st.Name, 1
	if a.scale != nil {
		g.Scale = *a.scale
	}
	if a.text != nil {
		g.Text = *a.text
	}
	return g, nil
}

// createDimension creates the dimension and answers what it measures.
func (c *call) createDimension(g drawing.Dimension, a dimensionCommon) (string, float64, string, error) {
	g, err := c.dimensionOf(g, a)
	if err != nil {
		return "", 0, "", err
	}
	if g.Linear() {
		// Four text heights off the measured points by default.
		st, _ := drawing.DimStyleNamed(g.Style)
		g.Offset = 4 * st.TextHeight * g.Scale
		if a.offset != nil {
			g.Offset = *a.offset
		}
	}
	e, err := c.Create("", style{a.layer, a.color, nil}, g)
	if err != nil {
		return "", 0, "", err
	}
	return handleResult(e), g.Measurement(), g.DisplayText(), nil
}

// anchor resolves a dimension's measured point: an entity's snap (end by
// default; the candidate nearest x, y when given), bound to slot, or the
// free point x, y.
func (c *call) anchor(path string, a *enginev1.DimensionAnchor, slot enginev1.DimensionSlot) (geom.Vec, []drawing.Bind, error) {
	if a == nil {
		return geom.Vec{}, nil, invalidArgs(path, reasonMissing, "give the point: a handle and snap, or x and y")
	}
	if a.Handle == nil {
		if a.X == nil || a.Y == nil {
			return geom.Vec{}, nil, invalidArgs(path+"/x", reasonMissing, "a free point needs x and y")
		}
		return geom.Pt(*a.X, *a.Y), nil, nil
	}
	if err := refArgs(a.X, a.Y); err != nil {
		return geom.Vec{}, nil, invalidArgs(path+"/x", reasonMissing, "x and y go together")
	}
	e, err := c.Entity(path+"/handle", *a.Handle)
	if err != nil {
		return geom.Vec{}, nil, err
	}
	snap := enginev1.SnapKind_SNAP_KIND_END
	if a.Snap != nil && *a.Snap != enginev1.SnapKind_SNAP_KIND_UNSPECIFIED {
		snap = *a.Snap
	}
	if snap == enginev1.SnapKind_SNAP_KIND_PERP || snap == enginev1.SnapKind_SNAP_KIND_NEAR {
		return geom.Vec{}, nil, invalidArgs(path+"/snap", reasonInvalid, "a dimension binds to end, mid, center or quad points; give a free point for %s", snap.WireName())
	}
	r, hasRef := ref(a.X, a.Y)
	cands := drawing.SnapCandidates(e.Geom, snap, r)
	if len(cands) == 0 {
		return geom.Vec{}, nil, failed("entity %s (%s) has no %s point", drawing.FormatHandle(e.Handle), e.Geom.Kind().WireName(), snap.WireName())
	}
	i := 0
	if hasRef {
		_, i = geom.NearestTo(cands, r)
	}
	return cands[i], []drawing.Bind{{Slot: slot, Handle: e.Handle, Snap: snap, Index: i}}, nil
}

// twoAnchors resolves p1 and p2, which must differ.
func (c *call) twoAnchors(p1, p2 *enginev1.DimensionAnchor) (geom.Vec, geom.Vec, []drawing.Bind, error) {
	a, ba, err := c.anchor("/p1", p1, enginev1.DimensionSlot_DIMENSION_SLOT_P1)
	if err != nil {
		return a, a, nil, err
	}
	b, bb, err := c.anchor("/p2", p2, enginev1.DimensionSlot_DIMENSION_SLOT_P2)
	if err != nil {
		return a, b, nil, err
	}
	if a.Same(b) {
		return a, b, nil, invalidArgs("/p2", reasonInvalid, "p1 and p2 are the same point: there is no distance to dimension")
	}
	return a, b, append(ba, bb...), nil
}

func dimensionAligned(c *call, a *enginev1.DimensionCreateAlignedArgs) (*enginev1.DimensionCreateAlignedResult, error) {
	dr := driving{a.GetDriving(), a.Value}
	if err := dr.check(); err != nil {
		return nil, err
	}
	p, q, binds, err := c.twoAnchors(a.P1, a.P2)
	if err != nil {
		return nil, err
	}
	g := drawing.Dimension{Type: enginev1.DimensionKind_DIMENSION_KIND_ALIGNED, P1: p, P2: q, Binds: binds}
	h, m, t, err := c.createDimension(g, dimensionCommon{a.Text, a.Style, a.Scale, a.Layer, a.Color, a.Offset})
	if err != nil {
		return nil, err
	}
	id, m, t, err := c.drive(h, dr, m, t)
	if err != nil {
		return nil, err
	}
	return &enginev1.DimensionCreateAlignedResult{Handle: h, Measurement: m, Text: t, ConstraintId: id}, nil
}

func dimensionLinear(c *call, a *enginev1.DimensionCreateLinearArgs) (*enginev1.DimensionCreateLinearResult, error) {
	dr := driving{a.GetDriving(), a.Value}
	if err := dr.check(); err != nil {
		return nil, err
	}
	p, q, binds, err := c.twoAnchors(a.P1, a.P2)
	if err != nil {
		return nil, err
	}
	g := drawing.Dimension{Type: enginev1.DimensionKind_DIMENSION_KIND_ROTATED, P1: p, P2: q, Binds: binds}
	if a.Angle != nil {
		g.Angle = geom.NormDeg(*a.Angle)
	}
	h, m, t, err := c.createDimension(g, dimensionCommon{a.Text, a.Style, a.Scale, a.Layer, a.Color, a.Offset})
	if err != nil {
		return nil, err
	}
	id, m, t, err := c.drive(h, dr, m, t)
	if err != nil {
		return nil, err
	}
	return &enginev1.DimensionCreateLinearResult{Handle: h, Measurement: m, Text: t, ConstraintId: id}, nil
}

// circleOf is the centre and radius of a circle or arc, bound to it.
func (c *call) circleOf(handle string, kind enginev1.DimensionKind, angle *float64) (drawing.Dimension, error) {
	e, err := c.Entity("/handle", handle)
	if err != nil {
		return drawing.Dimension{}, err
	}
	g := drawing.Dimension{Type: kind, Angle: 45, Binds: []drawing.Bind{{Slot: enginev1.DimensionSlot_DIMENSION_SLOT_CENTER, Handle: e.Handle, Snap: enginev1.SnapKind_SNAP_KIND_CENTER}}}
	switch ge := e.Geom.(type) {
	case drawing.Circle:
		g.Center, g.Radius = ge.C, ge.R
	case drawing.Arc:
		g.Center, g.Radius = ge.C, ge.R
	default:
		return g, failed("entity %s is a %s: radial and diametric dimensions measure circles and arcs", drawing.FormatHandle(e.Handle), e.Geom.Kind().WireName())
	}
	if angle != nil {
		g.Angle = geom.NormDeg(*angle)
	}
	return g, nil
}

func dimensionRadial(c *call, a *enginev1.DimensionCreateRadialArgs) (*enginev1.DimensionCreateRadialResult, error) {
	dr := driving{a.GetDriving(), a.Value}
	if err := dr.check(); err != nil {
		return nil, err
	}
	g, err := c.circleOf(a.Handle, enginev1.DimensionKind_DIMENSION_KIND_RADIAL, a.Angle)
	if err != nil {
		return nil, err
	}
	h, m, t, err := c.createDimension(g, dimensionCommon{a.Text, a.Style, a.Scale, a.Layer, a.Color, nil})
	if err != nil {
		return nil, err
	}
	id, m, t, err := c.drive(h, dr, m, t)
	if err != nil {
		return nil, err
	}
	return &enginev1.DimensionCreateRadialResult{Handle: h, Measurement: m, Text: t, ConstraintId: id}, nil
}

func dimensionDiametric(c *call, a *enginev1.DimensionCreateDiametricArgs) (*enginev1.DimensionCreateDiametricResult, error) {
	dr := driving{a.GetDriving(), a.Value}
	if err := dr.check(); err != nil {
		return nil, err
	}
	g, err := c.circleOf(a.Handle, enginev1.DimensionKind_DIMENSION_KIND_DIAMETRIC, a.Angle)
	if err != nil {
		return nil, err
	}
	h, m, t, err := c.createDimension(g, dimensionCommon{a.Text, a.Style, a.Scale, a.Layer, a.Color, nil})
	if err != nil {
		return nil, err
	}
	id, m, t, err := c.drive(h, dr, m, t)
	if err != nil {
		return nil, err
	}
	return &enginev1.DimensionCreateDiametricResult{Handle: h, Measurement: m, Text: t, ConstraintId: id}, nil
}

// dimensionAngular dimensions the angle between two lines (at their
// crossing, from the far end of each, the sector under 180°) or about a
// vertex from p1 to p2 counter-clockwise.
func dimensionAngular(c *call, a *enginev1.DimensionCreateAngularArgs) (*enginev1.DimensionCreateAngularResult, error) {
	dr := driving{a.GetDriving(), a.Value}
	if err := dr.check(); err != nil {
		return nil, err
	}
	g := drawing.Dimension{Type: enginev1.DimensionKind_DIMENSION_KIND_ANGULAR}
	switch {
	case a.Line1 != nil || a.Line2 != nil:
		if a.Line1 == nil || a.Line2 == nil {
			return nil, invalidArgs("/line2", reasonMissing, "give both lines, or center, p1 and p2")
		}
		if a.Center != nil || a.P1 != nil || a.P2 != nil {
			return nil, invalidArgs("/center", reasonInvalid, "give two lines, or center, p1 and p2, not both")
		}
		e1, err := c.Entity("/line1", *a.Line1)
		if err != nil {
			return nil, err
		}
		e2, err := c.Entity("/line2", *a.Line2)
		if err != nil {
			return nil, err
		}
		l1, ok1 := e1.Geom.(drawing.Line)
		l2, ok2 := e2.Geom.(drawing.Line)
		if !ok1 || !ok2 {
			return nil, failed("an angle between lines needs two lines")
		}
		x, ok := drawing.LineCrossing(l1, l2)
		if !ok {
			return nil, failed("lines %s and %s are parallel: they make no angle", drawing.FormatHandle(e1.Handle), drawing.FormatHandle(e2.Handle))
		}
		far := func(l drawing.Line) (geom.Vec, int) {
			if l.B.Dist(x) > l.A.Dist(x) {
				return l.B, 1
			}
			return l.A, 0
		}
		p, i := far(l1)
		q, j := far(l2)
		b1 := drawing.Bind{Slot: enginev1.DimensionSlot_DIMENSION_SLOT_P1, Handle: e1.Handle, Snap: enginev1.SnapKind_SNAP_KIND_END, Index: i}
		b2 := drawing.Bind{Slot: enginev1.DimensionSlot_DIMENSION_SLOT_P2, Handle: e2.Handle, Snap: enginev1.SnapKind_SNAP_KIND_END, Index: j}
		if geom.SweepDeg(geom.Deg(p.Sub(x).Angle()), geom.Deg(q.Sub(x).Angle())) > 180 {
			p, q = q, p
			b1.Slot, b2.Slot = b2.Slot, b1.Slot
		}
		g.P1, g.P2, g.Center = p, q, x
		g.Binds = []drawing.Bind{b1, b2, {Slot: enginev1.DimensionSlot_DIMENSION_SLOT_CENTER, Handle: e1.Handle, With: e2.Handle}}
	default:
		x, bx, err := c.anchor("/center", a.Center, enginev1.DimensionSlot_DIMENSION_SLOT_CENTER)
		if err != nil {
			return nil, err
		}
		p, q, bs, err := c.twoAnchors(a.P1, a.P2)
		if err != nil {
			return nil, err
		}
		if p.Same(x) || q.Same(x) {
			return nil, invalidArgs("/p1", reasonInvalid, "p1 and p2 must differ from the center")
		}
		g.P1, g.P2, g.Center, g.Binds = p, q, x, append(bx, bs...)
	}
	if a.Radius != nil {
		g.Offset = *a.Radius
	}
	h, m, t, err := c.createDimension(g, dimensionCommon{a.Text, a.Style, a.Scale, a.Layer, a.Color, nil})
	if err != nil {
		return nil, err
	}
	id, m, t, err := c.drive(h, dr, m, t)
	if err != nil {
		return nil, err
	}
	return &enginev1.DimensionCreateAngularResult{Handle: h, Measurement: m, Text: t, ConstraintId: id}, nil
}

func dimensionStyleList(*call, *enginev1.DimensionStyleListArgs) (*enginev1.DimensionStyleListResult, error) {
	res := &enginev1.DimensionStyleListResult{}
	for _, s := range drawing.DimStyles {
		res.Styles = append(res.Styles, &enginev1.DimensionStyle{
			Name: s.Name, TextHeight: s.TextHeight, ArrowSize: s.ArrowSize, ExtensionOffset: s.ExtOffset,
			ExtensionBeyond: s.ExtBeyond, TextGap: s.TextGap, Decimals: int32(s.Decimals), Units: s.Units,
		})
	}
	return res, nil
}
