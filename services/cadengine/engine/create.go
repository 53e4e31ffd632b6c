package engine

import (
	"math"
	"math/bits"
	"slices"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// style is the common properties of a new entity, as given.
type style struct {
	layer    *string
	color    *int32
	linetype *string
}

// Create adds an entity with geometry g; path prefixes argument paths in
// errors ("" for a single create, "/entities/3" in a batch). It goes on
// the layout the call's arguments name in their layout field (every
// create tool has one), in model space when they name none.
func (c *call) Create(path string, s style, g drawing.Geometry) (*drawing.Entity, error) {
	layout := ""
	if a, ok := c.args.(interface{ GetLayout() string }); ok {
		layout = a.GetLayout()
	}
	return c.createOn(path, s, layout, g)
}

// createOn adds an entity with geometry g on the layout named layout
// (ignoring case; "" or "Model" for model space).
func (c *call) createOn(path string, s style, layout string, g drawing.Geometry) (*drawing.Entity, error) {
	e, err := entityOf(path, s, c.d.CurrentLayer(), g)
	if err != nil {
		return nil, err
	}
	if e.Layout, err = c.space(path+"/layout", layout); err != nil {
		return nil, err
	}
	return c.tx.Create(e)
}

// entityOf is a new entity of geometry g with style s, on layer unless s
// names one, by layer unless s gives a colour or linetype.
func entityOf(path string, s style, layer string, g drawing.Geometry) (*drawing.Entity, error) {
	e := &drawing.Entity{Layer: layer, Color: 256, Linetype: "ByLayer", Geom: g}
	if s.layer != nil {
		e.Layer = *s.layer
	}
	if s.color != nil {
		e.Color = *s.color
	}
	if s.linetype != nil {
		lt, ok := drawing.CanonicalLinetype(*s.linetype, true)
		if !ok {
			return nil, invalidArgs(path+"/linetype", reasonInvalid, "unknown linetype %q (%s)", *s.linetype, drawing.LinetypeNames)
		}
		e.Linetype = lt
	}
	return e, nil
}

func handleResult(e *drawing.Entity) string { return drawing.FormatHandle(e.Handle) }

// ---- geometry builders, shared by the single creates and the batch ----

func lineOf(path string, a, b geom.Vec) (drawing.Geometry, error) {
	if a.Same(b) {
		return nil, invalidArgs(path+"/x2", reasonInvalid, "a line needs two distinct end points")
	}
	return drawing.Line{A: a, B: b}, nil
}

func arcOf(path string, c geom.Vec, r, start, end float64) (drawing.Geometry, error) {
	g, err := drawing.NewArc(c, r, start, end)
	if err != nil {
		return nil, invalidArgs(path+"/end_angle", reasonInvalid, "%v", err)
	}
	return g, nil
}

func polylineOf(path string, pts []*enginev1.Vertex, closed bool) (drawing.Geometry, error) {
	switch {
	case len(pts) == 0:
		return nil, invalidArgs(path+"/points", reasonMissing, "a polyline needs points")
	case len(pts) < 2:
		return nil, invalidArgs(path+"/points", reasonOutOfRange, "a polyline needs at least two points")
	}
	v := make([]geom.Vertex, len(pts))
	var w []geom.Width
	for i, p := range pts {
		v[i] = geom.Vertex{P: geom.Pt(p.GetX(), p.GetY()), Bulge: p.GetBulge()}
		if p.StartWidth != nil || p.EndWidth != nil {
			if w == nil {
				w = make([]geom.Width, len(pts))
			}
			w[i] = geom.Width{Start: p.GetStartWidth(), End: p.GetEndWidth()}
		}
	}
	return drawing.NewPolyline(v, closed).WithWidths(w), nil
}

// rectangleOf is the closed polyline through the rectangle's corners,
// counter-clockwise from the lower-left one, whatever corners were given.
func rectangleOf(path string, a, b geom.Vec) (drawing.Geometry, error) {
	switch {
	case geom.Eq(a.X, b.X):
		return nil, invalidArgs(path+"/x2", reasonInvalid, "the rectangle has no width")
	case geom.Eq(a.Y, b.Y):
		return nil, invalidArgs(path+"/y2", reasonInvalid, "the rectangle has no height")
	}
	x0, x1 := math.Min(a.X, b.X), math.Max(a.X, b.X)
	y0, y1 := math.Min(a.Y, b.Y), math.Max(a.Y, b.Y)
	return drawing.Polyline{Polyline: geom.Polyline{V: []geom.Vertex{{P: geom.Pt(x0, y0)}, {P: geom.Pt(x1, y0)}, {P: geom.Pt(x1, y1)}, {P: geom.Pt(x0, y1)}}, Closed: true}}, nil
}

func textOf(text string, p geom.Vec, height, rotation *float64) drawing.Geometry {
	g := drawing.Text{Text: text, P: p, Height: drawing.DefaultTextHeight}
	if height != nil {
		g.Height = *height
	}
	if rotation != nil {
		g.Rotation = geom.NormDeg(*rotation)
	}
	return g
}

func ellipseOf(path string, c, major geom.Vec, ratio float64, start, end *float64) (drawing.Geometry, error) {
	s, e := 0.0, 360.0
	if start != nil {
		s = *start
	}
	if end != nil {
		e = *end
	}
	g, err := drawing.NewEllipse(c, major, ratio, s, e)
	if err != nil {
		return nil, invalidArgs(path+"/major_x", reasonInvalid, "%v", err)
	}
	return g, nil
}

// ---- tools ----

func createPoint(c *call, a *enginev1.EntityCreatePointArgs) (*enginev1.EntityCreatePointResult, error) {
	e, err := c.Create("", style{a.Layer, a.Color, a.Linetype}, drawing.Point{P: geom.Pt(a.X, a.Y)})
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityCreatePointResult{Handle: handleResult(e)}, nil
}

func createLine(c *call, a *enginev1.EntityCreateLineArgs) (*enginev1.EntityCreateLineResult, error) {
	g, err := lineOf("", geom.Pt(a.X1, a.Y1), geom.Pt(a.X2, a.Y2))
	if err != nil {
		return nil, err
	}
	e, err := c.Create("", style{a.Layer, a.Color, a.Linetype}, g)
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityCreateLineResult{Handle: handleResult(e)}, nil
}

func createCircle(c *call, a *enginev1.EntityCreateCircleArgs) (*enginev1.EntityCreateCircleResult, error) {
	e, err := c.Create("", style{a.Layer, a.Color, a.Linetype}, drawing.Circle{C: geom.Pt(a.Cx, a.Cy), R: a.Radius})
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityCreateCircleResult{Handle: handleResult(e)}, nil
}

func createArc(c *call, a *enginev1.EntityCreateArcArgs) (*enginev1.EntityCreateArcResult, error) {
	g, err := arcOf("", geom.Pt(a.Cx, a.Cy), a.Radius, a.StartAngle, a.EndAngle)
	if err != nil {
		return nil, err
	}
	e, err := c.Create("", style{a.Layer, a.Color, a.Linetype}, g)
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityCreateArcResult{Handle: handleResult(e)}, nil
}

func createPolyline(c *call, a *enginev1.EntityCreatePolylineArgs) (*enginev1.EntityCreatePolylineResult, error) {
	g, err := polylineOf("", a.Points, a.GetClosed())
	if err != nil {
		return nil, err
	}
	e, err := c.Create("", style{a.Layer, a.Color, a.Linetype}, g)
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityCreatePolylineResult{Handle: handleResult(e)}, nil
}

func createRectangle(c *call, a *enginev1.EntityCreateRectangleArgs) (*enginev1.EntityCreateRectangleResult, error) {
	g, err := rectangleOf("", geom.Pt(a.X1, a.Y1), geom.Pt(a.X2, a.Y2))
	if err != nil {
		return nil, err
	}
	e, err := c.Create("", style{a.Layer, a.Color, a.Linetype}, g)
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityCreateRectangleResult{Handle: handleResult(e)}, nil
}

func createText(c *call, a *enginev1.EntityCreateTextArgs) (*enginev1.EntityCreateTextResult, error) {
	e, err := c.Create("", style{a.Layer, a.Color, a.Linetype}, textOf(a.Text, geom.Pt(a.X, a.Y), a.Height, a.Rotation))
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityCreateTextResult{Handle: handleResult(e)}, nil
}

func createEllipse(c *call, a *enginev1.EntityCreateEllipseArgs) (*enginev1.EntityCreateEllipseResult, error) {
	g, err := ellipseOf("", geom.Pt(a.Cx, a.Cy), geom.Pt(a.MajorX, a.MajorY), a.Ratio, a.StartAngle, a.EndAngle)
	if err != nil {
		return nil, err
	}
	e, err := c.Create("", style{a.Layer, a.Color, a.Linetype}, g)
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityCreateEllipseResult{Handle: handleResult(e)}, nil
}

// batchCreate creates every entity in one step and one store transaction;
// if any entity is wrong nothing is created, and the error's path points at
// it ("/entities/3/radius"). Arguments that decodeNewEntities takes do not
// come here (see newEntities.run).
func batchCreate(c *call, a *enginev1.EntityBatchCreateArgs) (*enginev1.EntityBatchCreateResult, error) {
	text, ends, err := createAll(c, len(a.Entities), func(path string, i int) (*drawing.Entity, error) {
		return c.createNew(path, a.Entities[i])
	})
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityBatchCreateResult{Handles: handleStrings(text, ends), Count: int64(len(ends))}, nil
}

// createNew creates one NewEntity; path is where it is in the args.
func (c *call) createNew(path string, ne *enginev1.NewEntity) (*drawing.Entity, error) {
	g, err := newEntityGeometry(path, ne)
	if err != nil {
		return nil, err
	}
	return c.createOn(path, style{ne.Layer, ne.Color, ne.Linetype}, ne.GetLayout(), g)
}

// handleStrings are the handles spelled one after the other in text,
// each ending at its end: substrings of one string, not a string each.
func handleStrings(text []byte, ends []int32) []string {
	all, out := string(text), make([]string, len(ends))
	start := 0
	for i, end := range ends {
		out[i], start = all[start:end], int(end)
	}
	return out
}

// newEntityFields are the NewEntity fields each type takes, besides type,
// layer, color and linetype, as a set of newEntityGeometryFields; ok is
// false for an unknown type.
func newEntityFields(t enginev1.EntityType) (fields uint32, ok bool) {
	switch t {
	case enginev1.EntityType_ENTITY_TYPE_POINT:
		return pointFields, true
	case enginev1.EntityType_ENTITY_TYPE_LINE:
		return lineFields, true
	case enginev1.EntityType_ENTITY_TYPE_CIRCLE:
		return circleFields, true
	case enginev1.EntityType_ENTITY_TYPE_ARC:
		return arcFields, true
	case enginev1.EntityType_ENTITY_TYPE_POLYLINE:
		return polylineFields, true
	case enginev1.EntityType_ENTITY_TYPE_TEXT:
		return textFields, true
	case enginev1.EntityType_ENTITY_TYPE_ELLIPSE:
		return ellipseFields, true
	}
	return 0, false
}

var (
	pointFields    = geometryFieldSet("x", "y")
	lineFields     = geometryFieldSet("x1", "y1", "x2", "y2")
	circleFields   = geometryFieldSet("cx", "cy", "radius")
	arcFields      = geometryFieldSet("cx", "cy", "radius", "start_angle", "end_angle")
	polylineFields = geometryFieldSet("points", "closed")
	textFields     = geometryFieldSet("text", "x", "y", "height", "rotation")
	ellipseFields  = geometryFieldSet("cx", "cy", "major_x", "major_y", "ratio", "start_angle", "end_angle")
)

// newEntityGeometryFields are NewEntity's fields besides type and style,
// in field order: bit i of a set of them (newEntityGeometrySet) is the
// i-th. TestNewEntityGeometryFields keeps the list whole.
var newEntityGeometryFields = []string{"x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "radius", "start_angle", "end_angle",
	"points", "closed", "text", "height", "rotation", "major_x", "major_y", "ratio"}

// geometryFieldSet is the set of the named newEntityGeometryFields.
func geometryFieldSet(names ...string) uint32 {
	var set uint32
	for _, name := range names {
		i := slices.Index(newEntityGeometryFields, name)
		if i < 0 {
			panic("engine: NewEntity has no geometry field " + name) // a typo above
		}
		set |= 1 << i
	}
	return set
}

// newEntityGeometrySet is the set of newEntityGeometryFields n sets. The
// check of what a type takes reads the fields directly, not by
// reflection, since a batch checks a hundred thousand.
func newEntityGeometrySet(n *enginev1.NewEntity) uint32 {
	var set uint32
	for i, ok := range [...]bool{
		n.X != nil, n.Y != nil, n.X1 != nil, n.Y1 != nil, n.X2 != nil, n.Y2 != nil, n.Cx != nil, n.Cy != nil,
		n.Radius != nil, n.StartAngle != nil, n.EndAngle != nil, len(n.Points) > 0, n.Closed != nil,
		n.Text != nil, n.Height != nil, n.Rotation != nil, n.MajorX != nil, n.MajorY != nil, n.Ratio != nil,
	} {
		if ok {
			set |= 1 << i
		}
	}
	return set
}

// newEntityGeometry checks one NewEntity — every field its type needs, none
// it does not take — and builds its geometry.
func newEntityGeometry(path string, ne *enginev1.NewEntity) (drawing.Geometry, error) {
	allowed, ok := newEntityFields(ne.Type)
	if !ok {
		return nil, invalidArgs(path+"/type", reasonInvalid, "unknown entity type")
	}
	if extra := newEntityGeometrySet(ne) &^ allowed; extra != 0 {
		name := newEntityGeometryFields[bits.TrailingZeros32(extra)] // the first in field order
		return nil, invalidArgs(path+"/"+name, reasonInvalid, "a %s has no %s", ne.Type.WireName(), name)
	}
	var missing string
	need := func(name string, v *float64) float64 {
		if v == nil && missing == "" {
			missing = name
		}
		if v == nil {
			return 0
		}
		return *v
	}
	miss := func() error {
		return invalidArgs(path+"/"+missing, reasonMissing, "a %s needs %s", ne.Type.WireName(), missing)
	}
	switch ne.Type {
	case enginev1.EntityType_ENTITY_TYPE_POINT:
		p := geom.Pt(need("x", ne.X), need("y", ne.Y))
		if missing != "" {
			return nil, miss()
		}
		return drawing.Point{P: p}, nil
	case enginev1.EntityType_ENTITY_TYPE_LINE:
		a, b := geom.Pt(need("x1", ne.X1), need("y1", ne.Y1)), geom.Pt(need("x2", ne.X2), need("y2", ne.Y2))
		if missing != "" {
			return nil, miss()
		}
		return lineOf(path, a, b)
	case enginev1.EntityType_ENTITY_TYPE_CIRCLE:
		cv, r := geom.Pt(need("cx", ne.Cx), need("cy", ne.Cy)), need("radius", ne.Radius)
		if missing != "" {
			return nil, miss()
		}
		return drawing.Circle{C: cv, R: r}, nil
	case enginev1.EntityType_ENTITY_TYPE_ARC:
		cv, r := geom.Pt(need("cx", ne.Cx), need("cy", ne.Cy)), need("radius", ne.Radius)
		s, e := need("start_angle", ne.StartAngle), need("end_angle", ne.EndAngle)
		if missing != "" {
			return nil, miss()
		}
		return arcOf(path, cv, r, s, e)
	case enginev1.EntityType_ENTITY_TYPE_POLYLINE:
		return polylineOf(path, ne.Points, ne.GetClosed())
	case enginev1.EntityType_ENTITY_TYPE_TEXT:
		p := geom.Pt(need("x", ne.X), need("y", ne.Y))
		if missing != "" {
			return nil, miss()
		}
		switch {
		case ne.Text == nil:
			return nil, invalidArgs(path+"/text", reasonMissing, "a text needs text")
		case *ne.Text == "":
			return nil, invalidArgs(path+"/text", reasonOutOfRange, "text must not be empty")
		}
		return textOf(*ne.Text, p, ne.Height, ne.Rotation), nil
	default: // ellipse
		cv, m := geom.Pt(need("cx", ne.Cx), need("cy", ne.Cy)), geom.Pt(need("major_x", ne.MajorX), need("major_y", ne.MajorY))
		ratio := need("ratio", ne.Ratio)
		if missing != "" {
			return nil, miss()
		}
		return ellipseOf(path, cv, m, ratio, ne.StartAngle, ne.EndAngle)
	}
}

func appendInt(b []byte, i int) []byte {
	if i >= 10 {
		b = appendInt(b, i/10)
	}
	return append(b, byte('0'+i%10))
}
