package engine

import (
	"errors"
	"strconv"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// The cutting tools of the modify group (DESIGN §11): entity_trim,
// entity_extend, entity_break and entity_join. The geometry is geom.Trim,
// geom.Extend, geom.Break and geom.Join; here the entities' curves are
// handed over and the pieces written back: the entity keeps its handle
// for the first piece (a circle trimmed becomes an arc under the same
// handle), further pieces are new entities with its layer and style.
// Polyline widths do not survive a cut that changes the vertices.

var errUnknownCurve = errors.New("the result is not a curve the drawing can hold")

// curveOf is the entity's curve for the cuts: a Segment, an Arc (full
// for a circle), an EllipseArc or a Polyline.
func curveOf(e *drawing.Entity, tool string) (any, error) {
	switch g := e.Geom.(type) {
	case drawing.Line, drawing.Arc, drawing.Circle, drawing.Ellipse:
		c, _ := drawing.Curve(g)
		return c, nil
	case drawing.Polyline:
		return g.Polyline, nil
	}
	return nil, failed("entity %s is a %s: %s works on lines, arcs, circles, ellipses and polylines", drawing.FormatHandle(e.Handle), e.Geom.Kind().WireName(), tool)
}

// edgePrims are the curves of the named entities (path names the list),
// or with none named of every other entity in e's space whose extents
// meet box (nil: every one).
func (c *call) edgePrims(path string, handles []string, e *drawing.Entity, box *geom.Box) ([]any, error) {
	var prims []any
	add := func(x *drawing.Entity) error {
		if err := c.expands(x); err != nil {
			return err
		}
		if c, ok := drawing.Curve(x.Geom); ok {
			prims = append(prims, c)
		} else {
			prims = append(prims, x.Geom.Prims()...)
		}
		return nil
	}
	if len(handles) > 0 {
		for i, h := range handles {
			x, err := c.Entity(path+"/"+strconv.Itoa(i), h)
			if err != nil {
				return nil, err
			}
			if x == e {
				continue
			}
			if err := add(x); err != nil {
				return nil, err
			}
		}
		return prims, nil
	}
	var err error
	c.d.Each(0, func(x *drawing.Entity) bool {
		if x == e || x.Layout != e.Layout {
			return true
		}
		if box != nil && !x.Geom.Bounds().Overlaps(*box) {
			return true
		}
		err = add(x)
		return err == nil
	})
	return prims, err
}

// writePieces replaces e with the first piece and creates the others,
// returning every handle.
func (c *call) writePieces(e *drawing.Entity, pieces []any, keepWidths bool) ([]string, error) {
	var out []string
	for i, p := range pieces {
		g, err := geometryOf(p)
		if err != nil {
			return nil, failed("entity %s: a piece left is too small to draw: %v", drawing.FormatHandle(e.Handle), err)
		}
		if pl, ok := g.(drawing.Polyline); ok && keepWidths {
			g = pl.WithWidths(e.Geom.(drawing.Polyline).Widths)
		}
		if i == 0 {
			next := e.With(g)
			if err := c.tx.Replace(e, next); err != nil {
				return nil, err
			}
			out = append(out, handleResult(next))
			continue
		}
		n, err := c.copyOf(e, g)
		if err != nil {
			return nil, err
		}
		out = append(out, handleResult(n))
	}
	return out, nil
}

func cutFailed(e *drawing.Entity, err error) error {
	return failed("entity %s: %v", drawing.FormatHandle(e.Handle), err)
}

// entityTrim removes the part of an entity under the pick between its
// nearest crossings with the cutting edges (geom.Trim): every other
// entity whose extents meet it when no edges are named.
func entityTrim(c *call, a *enginev1.EntityTrimArgs) (*enginev1.EntityTrimResult, error) {
	e, err := c.Entity("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	curve, err := curveOf(e, "entity_trim")
	if err != nil {
		return nil, err
	}
	box := e.Geom.Bounds()
	edges, err := c.edgePrims("/edges", a.Edges, e, &box)
	if err != nil {
		return nil, err
	}
	pieces, err := geom.Trim(curve, edges, geom.Pt(a.PickX, a.PickY))
	if err != nil {
		return nil, cutFailed(e, err)
	}
	hs, err := c.writePieces(e, pieces, false)
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityTrimResult{Handle: hs[0], Handles: hs}, nil
}

// entityExtend lengthens a line, arc or open polyline at the end nearest
// the pick to the nearest boundary ahead (geom.Extend).
func entityExtend(c *call, a *enginev1.EntityExtendArgs) (*enginev1.EntityExtendResult, error) {
	e, err := c.Entity("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	switch e.Geom.(type) {
	case drawing.Line, drawing.Arc, drawing.Polyline:
	default:
		return nil, failed("entity %s is a %s: entity_extend lengthens lines, arcs and open polylines", drawing.FormatHandle(e.Handle), e.Geom.Kind().WireName())
	}
	curve, err := curveOf(e, "entity_extend")
	if err != nil {
		return nil, err
	}
	bounds, err := c.edgePrims("/boundaries", a.Boundaries, e, nil)
	if err != nil {
		return nil, err
	}
	longer, err := geom.Extend(curve, bounds, geom.Pt(a.PickX, a.PickY))
	if err != nil {
		return nil, cutFailed(e, err)
	}
	hs, err := c.writePieces(e, []any{longer}, true)
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityExtendResult{Handle: hs[0], Handles: hs}, nil
}

// entityBreak splits an entity at a point, or removes its part between
// two points (geom.Break).
func entityBreak(c *call, a *enginev1.EntityBreakArgs) (*enginev1.EntityBreakResult, error) {
	if (a.X2 == nil) != (a.Y2 == nil) {
		if a.X2 == nil {
			return nil, invalidArgs("/x2", reasonMissing, "x2 and y2 go together")
		}
		return nil, invalidArgs("/y2", reasonMissing, "x2 and y2 go together")
	}
	e, err := c.Entity("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	curve, err := curveOf(e, "entity_break")
	if err != nil {
		return nil, err
	}
	var p2 *geom.Vec
	if a.X2 != nil {
		p := geom.Pt(*a.X2, *a.Y2)
		p2 = &p
	}
	pieces, err := geom.Break(curve, geom.Pt(a.X1, a.Y1), p2)
	if err != nil {
		return nil, cutFailed(e, err)
	}
	hs, err := c.writePieces(e, pieces, false)
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityBreakResult{Handle: hs[0], Handles: hs}, nil
}

// entityJoin joins entities into one (geom.Join): the first keeps its
// handle (its type may change: lines joined end to end become a
// polyline) and the others are deleted.
func entityJoin(c *call, a *enginev1.EntityJoinArgs) (*enginev1.EntityJoinResult, error) {
	es := make([]*drawing.Entity, len(a.Handles))
	curves := make([]any, len(a.Handles))
	seen := map[uint64]bool{}
	for i, h := range a.Handles {
		path := "/handles/" + strconv.Itoa(i)
		e, err := c.Entity(path, h)
		if err != nil {
			return nil, err
		}
		if seen[e.Handle] {
			return nil, invalidArgs(path, reasonInvalid, "entity %s is named twice", drawing.FormatHandle(e.Handle))
		}
		seen[e.Handle] = true
		if curves[i], err = curveOf(e, "entity_join"); err != nil {
			return nil, err
		}
		if _, ok := e.Geom.(drawing.Ellipse); ok {
			return nil, failed("entity %s is an ellipse: entity_join joins lines, arcs and polylines", drawing.FormatHandle(e.Handle))
		}
		es[i] = e
	}
	joined, err := geom.Join(curves)
	var je *geom.JoinError
	switch {
	case errors.As(err, &je):
		left := make([]string, len(je.Left))
		for i, k := range je.Left {
			left[i] = drawing.FormatHandle(es[k].Handle)
		}
		return nil, failed("entities %s do not connect end to end with the others (and are not collinear lines or arcs of one circle): nothing was joined", strings.Join(left, ", "))
	case err != nil:
		return nil, failed("%v", err)
	}
	hs, err := c.writePieces(es[0], []any{joined}, false)
	if err != nil {
		return nil, err
	}
	res := &enginev1.EntityJoinResult{Handle: hs[0]}
	for _, e := range es[1:] {
		if err := c.tx.Remove(e); err != nil {
			return nil, err
		}
		res.Deleted = append(res.Deleted, handleResult(e))
	}
	return res, nil
}
