package engine

import (
	"context"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Selecting by properties (selection_filter) and by an irregular polygon
// (selection_polygon), as selection_window selects by a window: model
// space's entities, in handle order, those on layers that are off or
// frozen left out.

// walkEvery is how many entities walk visits between looks at the call's
// context.
const walkEvery = 256

// walk calls fn for every entity of model space (with layouts, those of
// paper space too) in handle order, until fn fails or the call's context
// ends (its error, which the step reports as cancelled or timed_out).
func (c *call) walk(layouts bool, fn func(e *drawing.Entity) error) error {
	var err error
	n := 0
	c.d.Each(0, func(e *drawing.Entity) bool {
		if n++; n%walkEvery == 0 {
			if err = c.ctx.Err(); err != nil {
				return false
			}
		}
		if e.Layout != "" && !layouts {
			return true
		}
		err = fn(e)
		return err == nil
	})
	return err
}

// selectable reports whether e can be selected: in model space, on a layer
// that is on and thawed.
func (c *call) selectable(e *drawing.Entity) bool { return c.selectableIn(e, "") }

// selectableIn reports whether e can be selected in a space (the name its
// entities carry, "" for model space): in it, on a layer that is on and
// thawed.
func (c *call) selectableIn(e *drawing.Entity, space string) bool {
	l := c.d.Layer(e.Layer)
	return e.Layout == space && l != nil && l.On && !l.Frozen
}

// layerSet resolves layer names, ignoring case, to the document's
// spelling; bad is the index of the first name no layer has (-1 when
// every name has one).
func (c *call) layerSet(names []string) (set map[string]bool, bad int) {
	set = make(map[string]bool, len(names))
	for i, n := range names {
		l := c.d.LayerFold(n)
		if l == nil {
			return nil, i
		}
		set[l.Name] = true
	}
	return set, -1
}

// between reports whether v lies in [lo, hi] (either absent: unbounded),
// within the tolerance of lengths of its size.
func between(v float64, lo, hi *float64) bool {
	return (lo == nil || v >= *lo-geom.TolAt(*lo)) && (hi == nil || v <= *hi+geom.TolAt(*hi))
}

// selectionFilter selects the entities that pass every filter given.
// Length and area are as analysis_measure_entity measures them (a closed
// curve's length is its perimeter); an entity without one fails a bound
// on it.
func selectionFilter(c *call, a *enginev1.SelectionFilterArgs) (*enginev1.SelectionFilterResult, error) {
	for _, b := range []struct {
		path   string
		lo, hi *float64
	}{{"/max_length", a.MinLength, a.MaxLength}, {"/max_area", a.MinArea, a.MaxArea}} {
		if b.lo != nil && b.hi != nil && *b.lo > *b.hi {
			return nil, invalidArgs(b.path, reasonOutOfRange, "the upper bound is below the lower one")
		}
	}
	types := map[enginev1.EntityType]bool{}
	for _, t := range a.Types {
		types[t] = true
	}
	layers, bad := c.layerSet(a.Layers)
	if bad >= 0 {
		return nil, failed("the document has no layer %q (at /layers/%d)", a.Layers[bad], bad)
	}
	linetype := ""
	if a.Linetype != nil {
		lt, ok := drawing.CanonicalLinetype(*a.Linetype, true)
		if !ok {
			return nil, invalidArgs("/linetype", reasonInvalid, "unknown linetype %q (%s)", *a.Linetype, drawing.LinetypeNames)
		}
		linetype = lt
	}
	var win geom.Box
	if w := a.Window; w != nil {
		if w.MinX > w.MaxX || w.MinY > w.MaxY {
			return nil, invalidArgs("/window", reasonInvalid, "min_x and min_y must not exceed max_x and max_y")
		}
		win = windowBox(w.MinX, w.MinY, w.MaxX, w.MaxY)
	}
	byLength := a.MinLength != nil || a.MaxLength != nil
	byArea := a.MinArea != nil || a.MaxArea != nil
	space, err := c.space("/layout", a.GetLayout())
	if err != nil {
		return nil, err
	}
	res := &enginev1.SelectionFilterResult{Handles: []string{}}
	err = c.walk(space != "", func(e *drawing.Entity) error {
		switch {
		case !c.selectableIn(e, space),
			len(types) > 0 && !types[e.Geom.Kind()],
			len(layers) > 0 && !layers[e.Layer],
			a.Color != nil && e.Color != *a.Color,
			linetype != "" && !strings.EqualFold(e.Linetype, linetype),
			win.NonEmpty && !e.Geom.Bounds().Inside(win):
			return nil
		}
		if byLength {
			l, ok := curveLength(e.Geom)
			if !ok || !between(l, a.MinLength, a.MaxLength) {
				return nil
			}
		}
		if byArea {
			area, _, ok := closedArea(e.Geom)
			if !ok || !between(area, a.MinArea, a.MaxArea) {
				return nil
			}
		}
		res.Handles = append(res.Handles, handleResult(e))
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Count = int64(len(res.Handles))
	return res, nil
}

// selectionPolygon selects the entities inside a polygon or, in crossing
// mode, inside it or crossing its edge; entities on its edge are inside.
// The entity's extents come first: only those inside the polygon's box
// (or, crossing, overlapping it) are looked at closer, exactly on their
// curves (an insert on its block's, spending the call's budget). Text and
// points, which have no curves, by their box.
func selectionPolygon(c *call, a *enginev1.SelectionPolygonArgs) (*enginev1.SelectionPolygonResult, error) {
	if len(a.Points) < 3 {
		return nil, invalidArgs("/points", reasonMissing, "a polygon needs at least 3 points")
	}
	poly := geom.Polygon(vecs(a.Points))
	if poly.Area() == 0 {
		return nil, invalidArgs("/points", reasonInvalid, "the polygon encloses nothing: its points lie on a line")
	}
	if poly.SelfIntersects() {
		return nil, invalidArgs("/points", reasonInvalid, "a selection polygon must not cross itself")
	}
	crossing := a.GetMode() == enginev1.SelectionPolygonMode_SELECTION_POLYGON_MODE_CROSSING
	box := poly.Bounds()
	budget := c.budget()
	space, err := c.space("/layout", a.GetLayout())
	if err != nil {
		return nil, err
	}
	res := &enginev1.SelectionPolygonResult{Handles: []string{}}
	err = c.walk(space != "", func(e *drawing.Entity) error {
		if !c.selectableIn(e, space) {
			return nil
		}
		b := e.Geom.Bounds()
		if !b.NonEmpty || crossing && !b.Overlaps(box) || !crossing && !b.Inside(box) {
			return nil
		}
		// Extents in the polygon: the entity is, whatever it draws; extents
		// apart from it: the entity is. Neither needs an insert expanded.
		edges := boxEdges(b)
		switch {
		case enclosesAll(poly, b, edges):
			res.Handles = append(res.Handles, handleResult(e))
			return nil
		case crossing && !touchesAny(poly, b, edges):
			return nil
		}
		if err := budget.Spend(drawing.Cost(e.Geom)); err != nil {
			return err
		}
		took, err := polygonTakes(c.ctx, poly, e.Geom, b, crossing)
		if took {
			res.Handles = append(res.Handles, handleResult(e))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	res.Count = int64(len(res.Handles))
	return res, nil
}

// polygonTakes reports whether the polygon selects geometry g, whose
// extents are b: every curve of it enclosed or, crossing, any touched. A
// long polyline against a polygon of many sides is long work: it stops
// with ctx.
func polygonTakes(ctx context.Context, poly geom.Polygon, g drawing.Geometry, b geom.Box, crossing bool) (bool, error) {
	prims := g.Prims()
	if len(prims) == 0 {
		if b.Min == b.Max { // a point
			return poly.Where(b.Min) != geom.Outside, nil
		}
		prims = boxEdges(b)
	}
	for i, p := range prims {
		if i%walkEvery == walkEvery-1 {
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
		if crossing && poly.Touches(p) {
			return true, nil
		}
		if !crossing && !poly.Encloses(p) {
			return false, nil
		}
	}
	return !crossing, nil
}

// boxEdges are the sides of a box, those of no length left out (none for
// a point).
func boxEdges(b geom.Box) []any {
	c := [4]geom.Vec{b.Min, geom.Pt(b.Max.X, b.Min.Y), b.Max, geom.Pt(b.Min.X, b.Max.Y)}
	var out []any
	for i := range c {
		if c[i] != c[(i+1)%4] {
			out = append(out, geom.Segment{A: c[i], B: c[(i+1)%4]})
		}
	}
	return out
}

// enclosesAll reports whether the polygon encloses the box b, whose
// sides are edges.
func enclosesAll(poly geom.Polygon, b geom.Box, edges []any) bool {
	if len(edges) == 0 {
		return poly.Where(b.Min) != geom.Outside
	}
	for _, e := range edges {
		if !poly.Encloses(e) {
			return false
		}
	}
	return true
}

// touchesAny reports whether the polygon and the box b, whose sides are
// edges, have a point in common: a side of the box in or across the
// polygon, or the polygon inside the box.
func touchesAny(poly geom.Polygon, b geom.Box, edges []any) bool {
	if len(edges) == 0 {
		return poly.Where(b.Min) != geom.Outside
	}
	for _, e := range edges {
		if poly.Touches(e) {
			return true
		}
	}
	return geom.Box{Min: poly[0], Max: poly[0], NonEmpty: true}.Inside(b)
}
