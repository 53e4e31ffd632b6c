package engine

import (
	"sort"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// transform replaces the entity at handle with its image under x.
func (c *call) transform(handle string, x geom.Xform) (*drawing.Entity, error) {
	e, err := c.Entity("/handle", handle)
	if err != nil {
		return nil, err
	}
	next := e.With(e.Geom.Transformed(x))
	if err := c.tx.Replace(e, next); err != nil {
		return nil, err
	}
	return next, nil
}

// copyOf creates a copy of e with geometry g, on e's layer and style.
func (c *call) copyOf(e *drawing.Entity, g drawing.Geometry) (*drawing.Entity, error) {
	n := *e
	n.Geom = g
	return c.tx.Create(&n)
}

func entityMove(c *call, a *enginev1.EntityMoveArgs) (*enginev1.EntityMoveResult, error) {
	e, err := c.transform(a.Handle, geom.Translate(geom.Pt(a.Dx, a.Dy)))
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityMoveResult{Handle: handleResult(e)}, nil
}

func entityCopy(c *call, a *enginev1.EntityCopyArgs) (*enginev1.EntityCopyResult, error) {
	e, err := c.Entity("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	n, err := c.copyOf(e, e.Geom.Transformed(geom.Translate(geom.Pt(a.Dx, a.Dy))))
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
// drawing.Text.Transformed).
func entityMirror(c *call, a *enginev1.EntityMirrorArgs) (*enginev1.EntityMirrorResult, error) {
	p, q := geom.Pt(a.X1, a.Y1), geom.Pt(a.X2, a.Y2)
	if p.Same(q) {
		return nil, invalidArgs("/x2", reasonInvalid, "the mirror line needs two distinct points")
	}
	x := geom.MirrorAbout(p, q)
	if a.GetCopy() {
		e, err := c.Entity("/handle", a.Handle)
		if err != nil {
			return nil, err
		}
		n, err := c.copyOf(e, e.Geom.Transformed(x))
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
//     and pieces are joined where they meet (see geom.OffsetPieces); an
//     offset that reverses a piece or collapses an arc fails; a closed
//     polyline that comes apart gives every piece (handles, largest
//     first), never one that crosses itself, and an open one whose offset
//     would cross itself fails;
//   - circle and arc: positive is away from the centre (an arc is taken
//     like its circle, not by its counter-clockwise direction);
//     an offset that leaves no radius fails;
//   - ellipse and elliptical arc: positive is away from the centre. The
//     offset of an ellipse is not an ellipse, so the copy is a polyline of
//     circular arcs within Tolerance × 1000 (relative beyond 1 unit) of the
//     true offset curve, closed for a full ellipse; an inward offset that
//     reaches the smallest radius of curvature fails (see offsetEllipse).
func entityOffset(c *call, a *enginev1.EntityOffsetArgs) (*enginev1.EntityOffsetResult, error) {
	e, err := c.Entity("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	d := a.Distance
	if d == 0 {
		return nil, invalidArgs("/distance", reasonOutOfRange, "distance must not be 0")
	}
	var g drawing.Geometry
	switch old := e.Geom.(type) {
	case drawing.Line:
		n := old.B.Sub(old.A).Perp().Unit().Mul(d)
		g = drawing.Line{A: old.A.Add(n), B: old.B.Add(n)}
	case drawing.Circle:
		if r := old.R + d; r > geom.TolAt(old.R) {
			g = drawing.Circle{C: old.C, R: r}
		}
	case drawing.Arc:
		if r := old.R + d; r > geom.TolAt(old.R) {
			g = drawing.Arc{C: old.C, R: r, Start: old.Start, End: old.End}
		}
	case drawing.Polyline:
		pieces, err := geom.OffsetPieces(old.Polyline, d)
		if err != nil {
			return nil, failed("%v", err)
		}
		res := &enginev1.EntityOffsetResult{}
		for _, pl := range pieces {
			n, err := c.copyOf(e, drawing.Polyline{Polyline: pl})
			if err != nil {
				return nil, err
			}
			res.Handles = append(res.Handles, handleResult(n))
		}
		res.Handle = res.Handles[0]
		return res, nil
	case drawing.Ellipse:
		pl, err := geom.OffsetEllipse(old.Arc(), d)
		if err != nil {
			return nil, failed("%v", err)
		}
		g = drawing.Polyline{Polyline: pl}
	case drawing.Spline:
		return nil, unsupported("offset_spline", "entity %s is a spline, which the engine cannot offset yet: offset a polyline through its points instead", drawing.FormatHandle(e.Handle))
	default:
		return nil, failed("entity %s is a %s, which cannot be offset", drawing.FormatHandle(e.Handle), e.Geom.Kind().WireName())
	}
	if g == nil {
		return nil, failed("offsetting entity %s by %g leaves no radius", drawing.FormatHandle(e.Handle), d)
	}
	n, err := c.copyOf(e, g)
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityOffsetResult{Handle: handleResult(n), Handles: []string{handleResult(n)}}, nil
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
	e, err := c.Entity("/handle", a.Handle)
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
	}[e.Geom.Kind()]
	for _, fd := range fields {
		ok := false
		for _, f := range allowed {
			ok = ok || string(fd.Name()) == f
		}
		if !ok {
			return nil, invalidArgs("/"+string(fd.Name()), reasonInvalid, "a %s has no %s to edit", e.Geom.Kind().WireName(), fd.Name())
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
	var g drawing.Geometry
	switch old := e.Geom.(type) {
	case drawing.Point:
		g = drawing.Point{P: pt(a.Start, old.P)}
	case drawing.Line:
		if g, err = lineOf("", pt(a.Start, old.A), pt(a.End, old.B)); err != nil {
			return nil, invalidArgs("/end", reasonInvalid, "a line needs two distinct end points")
		}
	case drawing.Circle:
		g = drawing.Circle{C: pt(a.Center, old.C), R: num(a.Radius, old.R)}
	case drawing.Arc:
		if g, err = arcOf("", pt(a.Center, old.C), num(a.Radius, old.R), num(a.StartAngle, old.Start), num(a.EndAngle, old.End)); err != nil {
			return nil, err
		}
	case drawing.Polyline:
		closed := old.Closed
		if a.Closed != nil {
			closed = *a.Closed
		}
		if a.Points != nil {
			if g, err = polylineOf("", a.Points, closed); err != nil {
				return nil, err
			}
		} else {
			g = drawing.NewPolyline(old.V, closed).WithWidths(old.Widths)
		}
	case drawing.Text:
		if a.Start != nil && a.Insertion != nil {
			return nil, invalidArgs("/start", reasonInvalid, "give the text's insertion point as insertion or as start, not both")
		}
		t := old
		t.P = pt(a.Insertion, pt(a.Start, old.P))
		if a.Text != nil {
			if *a.Text == "" {
				return nil, invalidArgs("/text", reasonOutOfRange, "text must not be empty")
			}
			t.Text = *a.Text
		}
		t.Height = num(a.Height, old.Height)
		t.Rotation = geom.NormDeg(num(a.Rotation, old.Rotation))
		g = t
	case drawing.Ellipse:
		s, en := old.Start, old.End
		if a.StartAngle != nil || a.EndAngle != nil {
			s, en = num(a.StartAngle, old.Start), num(a.EndAngle, old.End)
		}
		eg, err := drawing.NewEllipse(pt(a.Center, old.C), pt(a.MajorAxis, old.Major), num(a.Ratio, old.Ratio), s, en)
		if err != nil {
			return nil, invalidArgs("/major_axis", reasonInvalid, "%v", err)
		}
		g = eg
	}
	next := e.With(g)
	if err := c.tx.Replace(e, next); err != nil {
		return nil, err
	}
	return &enginev1.EntityEditGeometryResult{Handle: handleResult(next)}, nil
}

// setProperties changes layer, colour or linetype. Moving an entity off a
// locked layer or onto one is refused.
func setProperties(c *call, a *enginev1.EntitySetPropertiesArgs) (*enginev1.EntitySetPropertiesResult, error) {
	e, err := c.Entity("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	n := *e
	if a.Layer != nil {
		n.Layer = *a.Layer
	}
	if a.Color != nil {
		n.Color = *a.Color
	}
	if a.Linetype != nil {
		lt, ok := drawing.CanonicalLinetype(*a.Linetype, true)
		if !ok {
			return nil, invalidArgs("/linetype", reasonInvalid, "unknown linetype %q (%s)", *a.Linetype, drawing.LinetypeNames)
		}
		n.Linetype = lt
	}
	if err := c.tx.Replace(e, n.Seal()); err != nil {
		return nil, err
	}
	return &enginev1.EntitySetPropertiesResult{Handle: handleResult(e)}, nil
}

func entityDelete(c *call, a *enginev1.EntityDeleteArgs) (*enginev1.EntityDeleteResult, error) {
	e, err := c.Entity("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	if err := c.tx.Remove(e); err != nil {
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
	victims := map[uint64]*drawing.Entity{}
	for i, h := range a.Handles {
		e, err := c.Entity("/handles/"+string(appendInt(nil, i)), h)
		if err != nil {
			return nil, err
		}
		victims[e.Handle] = e
	}
	if len(a.Layers) > 0 {
		on := map[string]bool{}
		for _, l := range a.Layers {
			if c.d.Layer(l) == nil {
				return nil, failed("the document has no layer %q", l)
			}
			on[l] = true
		}
		c.d.Each(0, func(e *drawing.Entity) bool {
			if on[e.Layer] {
				victims[e.Handle] = e
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
		if err := c.tx.Remove(victims[h]); err != nil {
			return nil, err
		}
		res.Handles[i] = drawing.FormatHandle(h)
	}
	return res, nil
}
