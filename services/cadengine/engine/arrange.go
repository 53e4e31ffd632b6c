package engine

import (
	"strconv"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// The drafting toolset's arrange tools (DESIGN §11): explode, stretch,
// rectangular and polar arrays, and one change to many entities.

// ---- explode ----

// primGeometry is the entity of a stroke (see geometryOf), nil for one
// too short to be an entity.
func primGeometry(p any) drawing.Geometry {
	g, err := geometryOf(p)
	if err != nil {
		return nil
	}
	return g
}

// pictureParts are the entities of what a picture draws: its strokes as
// lines and arcs, its filled areas as solids (three or four corners) or
// closed polylines, its masks as wipeouts, its dots as points and its
// texts as texts.
func pictureParts(p drawing.Picture) []drawing.Geometry {
	var out []drawing.Geometry
	for _, s := range p.Strokes {
		if g := primGeometry(s); g != nil {
			out = append(out, g)
		}
	}
	for _, f := range p.Fills {
		if n := len(f); n > 1 && f[0].Same(f[n-1]) {
			f = f[:n-1]
		}
		switch {
		case len(f) == 3 || len(f) == 4:
			out = append(out, drawing.Solid{P: f})
		case len(f) > 4:
			out = append(out, polygonPolyline(f))
		}
	}
	for _, m := range p.Masks {
		if len(m) >= 3 {
			out = append(out, drawing.NewWipeout(m))
		}
	}
	for _, d := range p.Dots {
		out = append(out, drawing.Point{P: d})
	}
	for _, t := range p.Texts {
		out = append(out, t)
	}
	return out
}

// polygonPolyline is the closed polyline through the corners.
func polygonPolyline(p []geom.Vec) drawing.Polyline {
	v := make([]geom.Vertex, len(p))
	for i, q := range p {
		v[i] = geom.Vertex{P: q}
	}
	return drawing.NewPolyline(v, true)
}

// explodeParts are the parts an entity explodes into, or false when it
// has none (see entityExplode).
func explodeParts(g drawing.Geometry) ([]drawing.Geometry, bool) {
	switch g := g.(type) {
	case drawing.Polyline:
		var out []drawing.Geometry
		for _, p := range g.Pieces() {
			if pg := primGeometry(p.Prim()); pg != nil {
				out = append(out, pg)
			}
		}
		return out, true
	case drawing.Hatch:
		var out []drawing.Geometry
		for _, l := range g.Loops {
			if l.Ellipse {
				if el, err := drawing.NewEllipse(l.E.C, l.E.Major, l.E.Ratio, 0, 360); err == nil {
					out = append(out, el)
				}
				continue
			}
			pl := l.Poly
			pl.Closed = true
			out = append(out, drawing.NewPolyline(pl.V, true))
		}
		return out, true
	case drawing.Dimension, drawing.Leader, drawing.MText, drawing.Table:
		return pictureParts(g.(drawing.Pictured).Picture()), true
	case drawing.Foreign:
		if g.Drawn == nil {
			return nil, false
		}
		return pictureParts(g.Picture()), true
	}
	return nil, false
}

// entityExplode replaces an entity with its parts, on its layer and in
// its style: a polyline with its lines and arcs (widths are lost); a
// dimension, leader or multi-line text with what it draws (lines, arcs,
// solids for arrowheads, texts); a table with its grid lines and cell
// texts (what its writer drew, for a table read from a file); a hatch
// with its boundary loops (closed polylines, ellipses); a preserved
// entity that its writer drew with that drawing; an insert as
// block_explode explodes it.
func entityExplode(c *call, a *enginev1.EntityExplodeArgs) (*enginev1.EntityExplodeResult, error) {
	e, err := c.Entity("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	if _, ok := e.Geom.(drawing.Insert); ok {
		r, err := blockExplode(c, &enginev1.BlockExplodeArgs{Handle: a.Handle})
		if err != nil {
			return nil, err
		}
		return &enginev1.EntityExplodeResult{Handle: r.Handle, Handles: r.Handles, Count: r.Count}, nil
	}
	parts, ok := explodeParts(e.Geom)
	if !ok {
		return nil, failed("entity %s is a %s, which has no parts to explode into: explode polylines, dimensions, leaders, hatches, multi-line text, tables and inserts", drawing.FormatHandle(e.Handle), e.Geom.Kind().WireName())
	}
	if err := c.budget().Afford(int64(len(parts))); err != nil {
		return nil, err
	}
	res := &enginev1.EntityExplodeResult{Handle: handleResult(e), Handles: []string{}}
	for _, g := range parts {
		n, err := c.copyOf(e, g)
		if err != nil {
			return nil, err
		}
		res.Handles = append(res.Handles, handleResult(n))
	}
	if err := c.tx.Remove(e); err != nil {
		return nil, err
	}
	res.Count = int64(len(res.Handles))
	return res, nil
}

// ---- stretch ----

// stretched is g stretched by d where in says a point is inside the
// window, and whether anything moved (see entityStretch).
func stretched(g drawing.Geometry, in func(geom.Vec) bool, d geom.Vec) (drawing.Geometry, bool) {
	move := func(p geom.Vec) (geom.Vec, bool) {
		if in(p) {
			return p.Add(d), true
		}
		return p, false
	}
	points := func(p []geom.Vec) ([]geom.Vec, bool) {
		out, any := make([]geom.Vec, len(p)), false
		for i, q := range p {
			var m bool
			out[i], m = move(q)
			any = any || m
		}
		return out, any
	}
	switch g := g.(type) {
	case drawing.Line:
		a, ma := move(g.A)
		b, mb := move(g.B)
		if a.Same(b) {
			return g, false
		}
		return drawing.Line{A: a, B: b}, ma || mb
	case drawing.Arc:
		// Keep the arc's bulge (its included angle) between its moved ends.
		p0, p1 := g.C.Add(polarDeg(g.R, g.Start)), g.C.Add(polarDeg(g.R, g.End))
		a, ma := move(p0)
		b, mb := move(p1)
		if !(ma || mb) || a.Same(b) {
			return g, false
		}
		if ma && mb {
			return g.Transformed(geom.Translate(d)), true
		}
		bulge := tanQuarterDeg(geom.SweepDeg(g.Start, g.End))
		if ng := primGeometry(geom.BulgeArc(a, b, bulge)); ng != nil {
			return ng, true
		}
		return g, false
	case drawing.Polyline:
		v := make([]geom.Vertex, len(g.V))
		any := false
		for i, q := range g.V {
			p, m := move(q.P)
			v[i], any = geom.Vertex{P: p, Bulge: q.Bulge}, any || m
		}
		return drawing.NewPolyline(v, g.Closed).WithWidths(g.Widths), any
	case drawing.Spline:
		ctrl, any := points(g.Control)
		s := g.Spline
		s.Control = ctrl
		return drawing.Spline{Spline: s}, any
	case drawing.Leader:
		v, any := points(g.V)
		g.V = v
		return g, any
	case drawing.Solid:
		p, any := points(g.P)
		g.P = p
		return g, any
	case drawing.Circle:
		if in(g.C) {
			return g.Transformed(geom.Translate(d)), true
		}
	case drawing.Ellipse:
		if in(g.C) {
			return g.Transformed(geom.Translate(d)), true
		}
	case drawing.Text:
		if in(g.P) {
			return g.Transformed(geom.Translate(d)), true
		}
	case drawing.MText:
		if in(g.P) {
			return g.Transformed(geom.Translate(d)), true
		}
	case drawing.Insert:
		if in(g.P) {
			return g.Transformed(geom.Translate(d)), true
		}
	case drawing.Point:
		if in(g.P) {
			return g.Transformed(geom.Translate(d)), true
		}
	case drawing.XLine:
		if in(g.P) {
			return g.Transformed(geom.Translate(d)), true
		}
	}
	return g, false
}

func polarDeg(r, a float64) geom.Vec {
	s, c := geom.SinCosDeg(a)
	return geom.Pt(r*c, r*s)
}

// tanQuarterDeg is the bulge of an arc of sweep degrees.
func tanQuarterDeg(sweep float64) float64 {
	s, c := geom.SinCosDeg(sweep / 4)
	return s / c
}

// entityStretch stretches what the crossing window catches, as AutoCAD's
// STRETCH: an entity wholly inside the window moves; of one that crosses
// it, the defining points inside move (line and arc ends, an arc keeping
// its included angle; polyline, leader and solid vertices; spline control
// points, its fit points being dropped as they no longer fit), and a
// circle, ellipse, text, insert, point or construction line moves when
// its centre or insertion point is inside. Entities on locked layers are
// left as they are. The result lists what changed.
func entityStretch(c *call, a *enginev1.EntityStretchArgs) (*enginev1.EntityStretchResult, error) {
	x0, x1 := min(a.X1, a.X2), max(a.X1, a.X2)
	y0, y1 := min(a.Y1, a.Y2), max(a.Y1, a.Y2)
	if x0 == x1 || y0 == y1 {
		return nil, invalidArgs("/x2", reasonInvalid, "the window has no area: give two opposite corners")
	}
	d := geom.Pt(a.Dx, a.Dy)
	res := &enginev1.EntityStretchResult{Handles: []string{}}
	if d == (geom.Vec{}) {
		return res, nil // nothing moves
	}
	in := func(p geom.Vec) bool { return p.X >= x0 && p.X <= x1 && p.Y >= y0 && p.Y <= y1 }
	stretch := func(e *drawing.Entity) (drawing.Geometry, bool) {
		if b := e.Geom.Bounds(); b.NonEmpty && in(b.Min) && in(b.Max) {
			return e.Geom.Transformed(geom.Translate(d)), true
		}
		return stretched(e.Geom, in, d)
	}
	var caught []uint64 // in handle order, as Each walks
	budget := c.budget()
	var err error
	c.d.Each(0, func(e *drawing.Entity) bool {
		if err = budget.Spend(1); err != nil {
			return false
		}
		if l := c.d.Layer(e.Layer); l != nil && l.Locked {
			return true
		}
		if _, moved := stretch(e); moved {
			caught = append(caught, e.Handle)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	// Each is stretched as it is when its turn comes: a dimension bound to
	// an entity stretched before it has followed it already.
	for _, h := range caught {
		e := c.d.Entity(h)
		g, moved := stretch(e)
		if !moved {
			continue
		}
		n := e.With(g)
		if err := c.tx.Replace(e, n); err != nil {
			return nil, err
		}
		res.Handles = append(res.Handles, handleResult(n))
	}
	res.Count = int64(len(res.Handles))
	return res, nil
}

// ---- arrays ----

// entitiesOf are the entities the handles name, each once.
func (c *call) entitiesOf(handles []string) ([]*drawing.Entity, error) {
	out := make([]*drawing.Entity, 0, len(handles))
	seen := map[uint64]bool{}
	for i, h := range handles {
		e, err := c.Entity("/handles/"+strconv.Itoa(i), h)
		if err != nil {
			return nil, err
		}
		if seen[e.Handle] {
			return nil, invalidArgs("/handles/"+strconv.Itoa(i), reasonInvalid, "entity %s is listed twice", drawing.FormatHandle(e.Handle))
		}
		seen[e.Handle] = true
		out = append(out, e)
	}
	return out, nil
}

// copies creates a copy of every entity under each transform, item by
// item, within the call's budget; it returns their handles.
func (c *call) copies(es []*drawing.Entity, xs []geom.Xform) ([]string, error) {
	budget := c.budget()
	if err := budget.Afford(int64(len(es)) * int64(len(xs))); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(es)*len(xs))
	// The copies are made in one allocation rather than one each: an
	// array makes many at once, and the slab lives as long as any of them.
	made := make([]drawing.Entity, len(es)*len(xs))
	c.tx.Grow(len(made))
	for _, x := range xs {
		for _, e := range es {
			if err := budget.Spend(1); err != nil {
				return nil, err
			}
			n := &made[len(out)]
			*n = *e
			n.Geom = e.Geom.Transformed(x)
			if _, err := c.tx.Create(n); err != nil {
				return nil, err
			}
			out = append(out, handleResult(n))
		}
	}
	return out, nil
}

// arrayRectangular copies the entities in a grid (see geom.GridOffsets);
// the originals are item (0, 0).
func arrayRectangular(c *call, a *enginev1.EntityArrayRectangularArgs) (*enginev1.EntityArrayRectangularResult, error) {
	es, err := c.entitiesOf(a.Handles)
	if err != nil {
		return nil, err
	}
	if a.Rows*a.Columns < 2 {
		return nil, invalidArgs("/rows", reasonOutOfRange, "an array of one row and one column makes no copy: give more rows or columns")
	}
	if (a.Columns > 1 && a.ColumnSpacing == 0) || (a.Rows > 1 && a.RowSpacing == 0) {
		return nil, invalidArgs("/column_spacing", reasonOutOfRange, "the spacing must not be 0 where there are several rows or columns: the copies would lie on the originals")
	}
	if err := c.budget().Afford(int64(a.Rows) * int64(a.Columns) * int64(len(es))); err != nil {
		return nil, err // before the grid is laid out
	}
	offs := geom.GridOffsets(int(a.Rows), int(a.Columns), a.RowSpacing, a.ColumnSpacing, a.GetAngle())
	xs := make([]geom.Xform, 0, len(offs)-1)
	for _, o := range offs[1:] {
		xs = append(xs, geom.Translate(o))
	}
	hs, err := c.copies(es, xs)
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityArrayRectangularResult{Handles: hs, Count: int64(len(hs))}, nil
}

// arrayPolar copies the entities round a centre (see geom.PolarAngles),
// each copy turned by its angle about the centre (exactly, at multiples
// of 90°: see geom.RotateAbout) or, without rotate, moved as the centre
// of the entities' extents turns.
func arrayPolar(c *call, a *enginev1.EntityArrayPolarArgs) (*enginev1.EntityArrayPolarResult, error) {
	es, err := c.entitiesOf(a.Handles)
	if err != nil {
		return nil, err
	}
	fill := 360.0
	if a.FillAngle != nil {
		fill = *a.FillAngle
	}
	angles, err := geom.PolarAngles(int(a.Count), fill)
	if err != nil {
		return nil, invalidArgs("/fill_angle", reasonOutOfRange, "%v", err)
	}
	centre := geom.Pt(a.Cx, a.Cy)
	rotate := a.Rotate == nil || *a.Rotate
	var ref geom.Vec
	if !rotate {
		var b geom.Box
		for _, e := range es {
			b.AddBox(e.Geom.Bounds())
		}
		if !b.NonEmpty {
			return nil, failed("the entities have no extents to move round the centre: give rotate true")
		}
		ref = b.Min.Mid(b.Max)
	}
	xs := make([]geom.Xform, 0, len(angles)-1)
	for _, ang := range angles[1:] {
		r := geom.RotateAbout(centre, ang)
		if !rotate {
			r = geom.Translate(r.Point(ref).Sub(ref))
		}
		xs = append(xs, r)
	}
	hs, err := c.copies(es, xs)
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityArrayPolarResult{Handles: hs, Count: int64(len(hs))}, nil
}

// ---- many at once ----

// batchModify moves entities and sets their layer, colour or linetype,
// all or nothing (a locked layer, on either side, refuses the whole
// call). The result lists them in the order given.
func batchModify(c *call, a *enginev1.EntityBatchModifyArgs) (*enginev1.EntityBatchModifyResult, error) {
	if a.Dx == nil && a.Dy == nil && a.Layer == nil && a.Color == nil && a.Linetype == nil {
		return nil, invalidArgs("", reasonMissing, "give a change: dx, dy, layer, color or linetype")
	}
	es, err := c.entitiesOf(a.Handles)
	if err != nil {
		return nil, err
	}
	if a.Layer != nil && c.d.Layer(*a.Layer) == nil {
		return nil, failed("the document has no layer %q: create it first", *a.Layer)
	}
	var lt string
	if a.Linetype != nil {
		var ok bool
		if lt, ok = drawing.CanonicalLinetype(*a.Linetype, true); !ok {
			return nil, invalidArgs("/linetype", reasonInvalid, "unknown linetype %q (%s)", *a.Linetype, drawing.LinetypeNames)
		}
	}
	move := geom.Pt(a.GetDx(), a.GetDy())
	res := &enginev1.EntityBatchModifyResult{Handles: make([]string, 0, len(es))}
	for _, e := range es {
		// As it is now: a dimension bound to an entity changed before it
		// has followed it.
		e = c.d.Entity(e.Handle)
		n := *e
		if move != (geom.Vec{}) {
			n.Geom = e.Geom.Transformed(geom.Translate(move))
		}
		if a.Layer != nil {
			n.Layer = *a.Layer
		}
		if a.Color != nil {
			n.Color = *a.Color
		}
		if a.Linetype != nil {
			n.Linetype = lt
		}
		if err := c.tx.Replace(e, n.Seal()); err != nil {
			return nil, err
		}
		res.Handles = append(res.Handles, handleResult(e))
	}
	res.Count = int64(len(res.Handles))
	return res, nil
}
