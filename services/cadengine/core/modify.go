package core

import (
	"sort"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// transform replaces the entity at handle with its image under x.
func (c *call) transform(handle string, x geom.Xform) (*entity, error) {
	e, err := c.entity("/handle", handle)
	if err != nil {
		return nil, err
	}
	next := e.with(e.geom.transformed(x))
	if err := c.tx.replace(e, next); err != nil {
		return nil, err
	}
	return next, nil
}

// copyOf creates a copy of e with geometry g, on e's layer and style.
func (c *call) copyOf(e *entity, g geometry) (*entity, error) {
	n := *e
	n.geom = g
	return c.tx.create(&n)
}

func entityMove(c *call, a *enginev1.EntityMoveArgs) (*enginev1.EntityMoveResult, error) {
	e, err := c.transform(a.Handle, geom.Translate(geom.Pt(a.Dx, a.Dy)))
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityMoveResult{Handle: handleResult(e)}, nil
}

func entityCopy(c *call, a *enginev1.EntityCopyArgs) (*enginev1.EntityCopyResult, error) {
	e, err := c.entity("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	n, err := c.copyOf(e, e.geom.transformed(geom.Translate(geom.Pt(a.Dx, a.Dy))))
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityCopyResult{Handle: handleResult(n)}, nil
}

func entityRotate(c *call, a *enginev1.EntityRotateArgs) (*enginev1.EntityRotateResult, error) {
	e, err := c.transform(a.Handle, geom.RotateAbout(geom.Pt(a.BaseX, a.BaseY), a.Angle))
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityRotateResult{Handle: handleResult(e)}, nil
}

func entityScale(c *call, a *enginev1.EntityScaleArgs) (*enginev1.EntityScaleResult, error) {
	e, err := c.transform(a.Handle, geom.ScaleAbout(geom.Pt(a.BaseX, a.BaseY), a.Factor))
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityScaleResult{Handle: handleResult(e)}, nil
}

// entityMirror reflects an entity about a line; with copy the original
// stays and the image is a new entity. Text stays readable (see
// textGeom.transformed).
func entityMirror(c *call, a *enginev1.EntityMirrorArgs) (*enginev1.EntityMirrorResult, error) {
	p, q := geom.Pt(a.X1, a.Y1), geom.Pt(a.X2, a.Y2)
	if p.Same(q) {
		return nil, invalidArgs("/x2", reasonInvalid, "the mirror line needs two distinct points")
	}
	x := geom.MirrorAbout(p, q)
	if a.GetCopy() {
		e, err := c.entity("/handle", a.Handle)
		if err != nil {
			return nil, err
		}
		n, err := c.copyOf(e, e.geom.transformed(x))
		if err != nil {
			return nil, err
		}
		return &enginev1.EntityMirrorResult{Handle: handleResult(n)}, nil
	}
	e, err := c.transform(a.Handle, x)
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityMirrorResult{Handle: handleResult(e)}, nil
}

// entityOffset creates a parallel copy at a signed distance:
//   - line and polyline: positive is to the left of the direction of
//     travel (for a counter-clockwise closed polyline, inwards); polyline
//     corners between straight pieces are mitred, bulge arcs change radius
//     and pieces are joined where they meet (see offsetPolyline); an
//     offset that reverses a piece or collapses an arc fails;
//   - circle and arc: positive is away from the centre (an arc is taken
//     like its circle, not by its counter-clockwise direction);
//     an offset that leaves no radius fails;
//   - ellipse and elliptical arc: positive is away from the centre. The
//     offset of an ellipse is not an ellipse, so the copy is a polyline of
//     circular arcs within Tolerance × 1000 (relative beyond 1 unit) of the
//     true offset curve, closed for a full ellipse; an inward offset that
//     reaches the smallest radius of curvature fails (see offsetEllipse).
func entityOffset(c *call, a *enginev1.EntityOffsetArgs) (*enginev1.EntityOffsetResult, error) {
	e, err := c.entity("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	d := a.Distance
	if d == 0 {
		return nil, invalidArgs("/distance", reasonOutOfRange, "distance must not be 0")
	}
	var g geometry
	switch old := e.geom.(type) {
	case lineGeom:
		n := old.b.Sub(old.a).Perp().Unit().Mul(d)
		g = lineGeom{old.a.Add(n), old.b.Add(n)}
	case circleGeom:
		if r := old.r + d; r > geom.TolAt(old.r) {
			g = circleGeom{c: old.c, r: r}
		}
	case arcGeom:
		if r := old.r + d; r > geom.TolAt(old.r) {
			g = arcGeom{c: old.c, r: r, start: old.start, end: old.end}
		}
	case polylineGeom:
		pl, err := geom.OffsetPolyline(old.Polyline, d)
		if err != nil {
			return nil, failed("%v", err)
		}
		g = polylineGeom{pl}
	case ellipseGeom:
		pl, err := geom.OffsetEllipse(old.arc(), d)
		if err != nil {
			return nil, failed("%v", err)
		}
		g = polylineGeom{pl}
	default:
		return nil, failed("entity %s is a %s, which cannot be offset", formatHandle(e.handle), typeName(e.geom.kind()))
	}
	if g == nil {
		return nil, failed("offsetting entity %s by %g leaves no radius", formatHandle(e.handle), d)
	}
	n, err := c.copyOf(e, g)
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityOffsetResult{Handle: handleResult(n)}, nil
}

// editGeometry changes the given geometry fields; each must fit the
// entity's type:
//
//	point     start (the location)
//	line      start, end
//	circle    center, radius
//	arc       center, radius, start_angle, end_angle
//	polyline  points, closed
//	text      insertion (or start, its older name; not both), text,
//	          height, rotation
//	ellipse   center, major_axis (relative to the centre), ratio,
//	          start_angle, end_angle
//
// Fields not given keep their values: a new major axis turns and scales
// the ellipse, keeping its ratio and its parametric angles.
func editGeometry(c *call, a *enginev1.EntityEditGeometryArgs) (*enginev1.EntityEditGeometryResult, error) {
	e, err := c.entity("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	fields := setFields(a, "handle")
	if len(fields) == 0 {
		return nil, invalidArgs("", reasonMissing, "give at least one geometry field to change")
	}
	allowed := map[enginev1.EntityType][]string{
		enginev1.EntityType_ENTITY_TYPE_POINT:    {"start"},
		enginev1.EntityType_ENTITY_TYPE_LINE:     {"start", "end"},
		enginev1.EntityType_ENTITY_TYPE_CIRCLE:   {"center", "radius"},
		enginev1.EntityType_ENTITY_TYPE_ARC:      {"center", "radius", "start_angle", "end_angle"},
		enginev1.EntityType_ENTITY_TYPE_POLYLINE: {"points", "closed"},
		enginev1.EntityType_ENTITY_TYPE_TEXT:     {"start", "insertion", "text", "height", "rotation"},
		enginev1.EntityType_ENTITY_TYPE_ELLIPSE:  {"center", "major_axis", "ratio", "start_angle", "end_angle"},
	}[e.geom.kind()]
	for _, fd := range fields {
		ok := false
		for _, f := range allowed {
			ok = ok || string(fd.Name()) == f
		}
		if !ok {
			return nil, invalidArgs("/"+string(fd.Name()), reasonInvalid, "a %s has no %s to edit", typeName(e.geom.kind()), fd.Name())
		}
	}
	pt := func(p *enginev1.Point, old geom.Vec) geom.Vec {
		if p == nil {
			return old
		}
		return geom.Pt(p.X, p.Y)
	}
	num := func(v *float64, old float64) float64 {
		if v == nil {
			return old
		}
		return *v
	}
	var g geometry
	switch old := e.geom.(type) {
	case pointGeom:
		g = pointGeom{pt(a.Start, old.p)}
	case lineGeom:
		if g, err = lineOf("", pt(a.Start, old.a), pt(a.End, old.b)); err != nil {
			return nil, invalidArgs("/end", reasonInvalid, "a line needs two distinct end points")
		}
	case circleGeom:
		g = circleGeom{c: pt(a.Center, old.c), r: num(a.Radius, old.r)}
	case arcGeom:
		if g, err = arcOf("", pt(a.Center, old.c), num(a.Radius, old.r), num(a.StartAngle, old.start), num(a.EndAngle, old.end)); err != nil {
			return nil, err
		}
	case polylineGeom:
		closed := old.Closed
		if a.Closed != nil {
			closed = *a.Closed
		}
		if a.Points != nil {
			if g, err = polylineOf("", a.Points, closed); err != nil {
				return nil, err
			}
		} else {
			g = newPolylineGeom(old.V, closed)
		}
	case textGeom:
		if a.Start != nil && a.Insertion != nil {
			return nil, invalidArgs("/start", reasonInvalid, "give the text's insertion point as insertion or as start, not both")
		}
		t := old
		t.p = pt(a.Insertion, pt(a.Start, old.p))
		if a.Text != nil {
			if *a.Text == "" {
				return nil, invalidArgs("/text", reasonOutOfRange, "text must not be empty")
			}
			t.text = *a.Text
		}
		t.height = num(a.Height, old.height)
		t.rotation = geom.NormDeg(num(a.Rotation, old.rotation))
		g = t
	case ellipseGeom:
		s, en := old.start, old.end
		if a.StartAngle != nil || a.EndAngle != nil {
			s, en = num(a.StartAngle, old.start), num(a.EndAngle, old.end)
		}
		eg, err := newEllipseGeom(pt(a.Center, old.c), pt(a.MajorAxis, old.major), num(a.Ratio, old.ratio), s, en)
		if err != nil {
			return nil, invalidArgs("/major_axis", reasonInvalid, "%v", err)
		}
		g = eg
	}
	next := e.with(g)
	if err := c.tx.replace(e, next); err != nil {
		return nil, err
	}
	return &enginev1.EntityEditGeometryResult{Handle: handleResult(next)}, nil
}

// setProperties changes layer, colour or linetype. Moving an entity off a
// locked layer or onto one is refused.
func setProperties(c *call, a *enginev1.EntitySetPropertiesArgs) (*enginev1.EntitySetPropertiesResult, error) {
	e, err := c.entity("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	n := *e
	if a.Layer != nil {
		n.layer = *a.Layer
	}
	if a.Color != nil {
		n.color = *a.Color
	}
	if a.Linetype != nil {
		lt, ok := canonicalLinetype(*a.Linetype, true)
		if !ok {
			return nil, invalidArgs("/linetype", reasonInvalid, "unknown linetype %q (%s)", *a.Linetype, linetypeNames)
		}
		n.linetype = lt
	}
	if err := c.tx.replace(e, n.seal()); err != nil {
		return nil, err
	}
	return &enginev1.EntitySetPropertiesResult{Handle: handleResult(e)}, nil
}

func entityDelete(c *call, a *enginev1.EntityDeleteArgs) (*enginev1.EntityDeleteResult, error) {
	e, err := c.entity("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	if err := c.tx.remove(e); err != nil {
		return nil, err
	}
	return &enginev1.EntityDeleteResult{Handle: handleResult(e)}, nil
}

// deleteMany deletes the given entities and every entity on the given
// layers, all or nothing. The result lists the deleted handles in
// ascending order.
func deleteMany(c *call, a *enginev1.EntityDeleteManyArgs) (*enginev1.EntityDeleteManyResult, error) {
	if len(a.Handles) == 0 && len(a.Layers) == 0 {
		return nil, invalidArgs("", reasonMissing, "give handles or layers")
	}
	victims := map[uint64]*entity{}
	for i, h := range a.Handles {
		e, err := c.entity("/handles/"+string(appendInt(nil, i)), h)
		if err != nil {
			return nil, err
		}
		victims[e.handle] = e
	}
	if len(a.Layers) > 0 {
		on := map[string]bool{}
		for _, l := range a.Layers {
			if c.d.layer(l) == nil {
				return nil, failed("the document has no layer %q", l)
			}
			on[l] = true
		}
		c.d.each(0, func(e *entity) bool {
			if on[e.layer] {
				victims[e.handle] = e
			}
			return true
		})
	}
	hs := make([]uint64, 0, len(victims))
	for h := range victims {
		hs = append(hs, h)
	}
	sort.Slice(hs, func(i, j int) bool { return hs[i] < hs[j] })
	res := &enginev1.EntityDeleteManyResult{Handles: make([]string, len(hs)), Count: int64(len(hs))}
	for i, h := range hs {
		if err := c.tx.remove(victims[h]); err != nil {
			return nil, err
		}
		res.Handles[i] = formatHandle(h)
	}
	return res, nil
}
