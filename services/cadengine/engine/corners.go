package engine

import (
	"math"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// The corner tools of the modify group (DESIGN §11): entity_fillet and
// entity_chamfer. The geometry is geom.Fillet, geom.Chamfer and
// geom.PolylineCorners; here the arguments are read, the entities'
// curves handed over and the results written back.

// cornerSide is one of the two entities a corner joins: the entity, its
// curve (a segment or arc; for a polyline, its end piece nearest the
// pick), the pick and, for a polyline, which end.
type cornerSide struct {
	e    *drawing.Entity
	prim any
	pick geom.Vec
	// piece is the index of the polyline vertex the prim starts at (0, or
	// the last but one), -1 for a line, arc or circle; end is that piece.
	piece int
	end   geom.Piece
}

// pickArgs reads a pick's coordinates, which come together.
func pickArgs(n string, x, y *float64) (geom.Vec, bool, error) {
	switch {
	case x != nil && y == nil:
		return geom.Vec{}, false, invalidArgs("/pick"+n+"_y", reasonMissing, "pick%s_x and pick%s_y go together", n, n)
	case x == nil && y != nil:
		return geom.Vec{}, false, invalidArgs("/pick"+n+"_x", reasonMissing, "pick%s_x and pick%s_y go together", n, n)
	case x == nil:
		return geom.Vec{}, false, nil
	}
	return geom.Pt(*x, *y), true, nil
}

// cornerSides reads the two entities of a corner between different
// entities, with their picks (defaults: geom.DefaultPick). lineOnly
// refuses arcs and circles (a chamfer).
func (c *call) cornerSides(tool string, h1, h2 string, x1, y1, x2, y2 *float64, lineOnly bool) ([2]cornerSide, error) {
	var sides [2]cornerSide
	picks := [2][2]*float64{{x1, y1}, {x2, y2}}
	var given [2]bool
	for i, h := range []string{h1, h2} {
		n := string(rune('1' + i))
		e, err := c.Entity("/handle"+n, h)
		if err != nil {
			return sides, err
		}
		p, ok, err := pickArgs(n, picks[i][0], picks[i][1])
		if err != nil {
			return sides, err
		}
		sides[i] = cornerSide{e: e, pick: p, piece: -1}
		given[i] = ok
	}
	for i := range sides {
		s := &sides[i]
		other := sides[1-i]
		switch g := s.e.Geom.(type) {
		case drawing.Line:
			s.prim, _ = drawing.Curve(g)
		case drawing.Arc, drawing.Circle:
			if lineOnly {
				return sides, unsupported("chamfer_curve", "entity %s is a %s: %s cuts corners between lines and polyline segments, not curves (fillet it instead)", drawing.FormatHandle(s.e.Handle), g.Kind().WireName(), tool)
			}
			s.prim, _ = drawing.Curve(g)
		case drawing.Polyline:
			// The end piece of an open polyline nearest the pick (or the
			// other entity): its end moves to the corner.
			n := len(g.V)
			if g.Closed || n < 2 {
				return sides, failed("entity %s is a closed polyline: %s a polyline's own corners with handle1 == handle2 and vertex or all", drawing.FormatHandle(s.e.Handle), tool)
			}
			first := geom.Piece{A: g.V[0].P, B: g.V[1].P, Bulge: g.V[0].Bulge}
			last := geom.Piece{A: g.V[n-2].P, B: g.V[n-1].P, Bulge: g.V[n-2].Bulge}
			near := s.pick
			if !given[i] {
				near = geom.DefaultPick(other.primOrCentre(), nil)
			}
			s.piece, s.end = 0, first
			if n > 2 && distToPiece(last, near) < distToPiece(first, near) {
				s.piece, s.end = n-2, last
			}
			if lineOnly && s.end.Bulge != 0 {
				return sides, unsupported("chamfer_curve", "the end segment of polyline %s nearest the pick is an arc: %s cuts corners between straight segments", drawing.FormatHandle(s.e.Handle), tool)
			}
			if s.end.A == s.end.B {
				return sides, failed("the end segment of polyline %s has no length", drawing.FormatHandle(s.e.Handle))
			}
			s.prim = s.end.Prim()
		default:
			return sides, failed("entity %s is a %s: %s joins lines, arcs, circles and polyline segments", drawing.FormatHandle(s.e.Handle), g.Kind().WireName(), tool)
		}
	}
	for i := range sides {
		if !given[i] {
			sides[i].pick = geom.DefaultPick(sides[i].prim, sides[1-i].prim)
		}
	}
	return sides, nil
}

// primOrCentre is the side's curve, or before it is known a point of the
// entity (for the default pick of the other side).
func (s cornerSide) primOrCentre() any {
	if s.prim != nil {
		return s.prim
	}
	b := s.e.Geom.Bounds()
	m := b.Min.Mid(b.Max)
	return geom.Segment{A: m, B: m}
}

func distToPiece(s geom.Piece, p geom.Vec) float64 {
	if a, ok := s.Prim().(geom.Arc); ok {
		return a.Closest(p).Dist(p)
	}
	q, _ := geom.Segment{A: s.A, B: s.B}.Closest(p)
	return q.Dist(p)
}

// keep writes the side's entity back trimmed or extended to kept (a
// Segment or Arc), nil leaving it (a circle).
func (c *call) keep(s cornerSide, kept any) (bool, error) {
	if kept == nil {
		return false, nil
	}
	var g drawing.Geometry
	switch old := s.e.Geom.(type) {
	case drawing.Polyline:
		// The kept piece's ends, in the polyline's direction, and bulge.
		var a, b geom.Vec
		bulge := 0.0
		switch k := kept.(type) {
		case geom.Segment:
			a, b = k.A, k.B
		case geom.Arc:
			a, b = k.At(k.Start), k.At(k.Start+k.Sweep)
			if s.end.Bulge < 0 {
				a, b = b, a
			}
			bulge = math.Copysign(math.Tan(k.Sweep/4), s.end.Bulge)
		}
		v := append([]geom.Vertex(nil), old.V...)
		size := old.Bounds()
		fig := math.Max(size.Max.X-size.Min.X, size.Max.Y-size.Min.Y)
		inside := failed("the corner would cut polyline %s inside, not at its end", drawing.FormatHandle(s.e.Handle))
		switch {
		case len(v) == 2:
			// One piece: either end may move, as a line's.
			v[0].P, v[1].P, v[0].Bulge = a, b, bulge
		case s.piece == 0:
			// The piece runs from the polyline's start: its inner end stays.
			if !b.SameIn(s.end.B, fig) {
				return false, inside
			}
			v[0].P, v[0].Bulge = a, bulge
		default:
			if !a.SameIn(s.end.A, fig) {
				return false, inside
			}
			v[len(v)-1].P, v[len(v)-2].Bulge = b, bulge
		}
		g = drawing.NewPolyline(v, false).WithWidths(old.Widths)
	default:
		ng, err := geometryOf(kept)
		if err != nil {
			return false, failed("entity %s: %v", drawing.FormatHandle(s.e.Handle), err)
		}
		g = ng
	}
	if err := c.tx.Replace(s.e, s.e.With(g)); err != nil {
		return false, err
	}
	return true, nil
}

// geometryOf is the drawing geometry of a geom curve: a line, a circle
// (a full arc), an arc, an ellipse or a polyline.
func geometryOf(p any) (drawing.Geometry, error) {
	switch p := p.(type) {
	case geom.Segment:
		return lineOf("", p.A, p.B)
	case geom.Arc:
		if p.Full() {
			return drawing.Circle{C: p.C, R: p.R}, nil
		}
		return drawing.NewArc(p.C, p.R, geom.Deg(p.Start), geom.Deg(p.Start+p.Sweep))
	case geom.EllipseArc:
		if p.Full() {
			return drawing.NewEllipse(p.C, p.Major, p.Ratio, 0, 360)
		}
		return drawing.NewEllipse(p.C, p.Major, p.Ratio, geom.Deg(p.Start), geom.Deg(p.Start+p.Sweep))
	case geom.Polyline:
		return drawing.NewPolyline(p.V, p.Closed), nil
	}
	return nil, errUnknownCurve
}

// polylineCorners rounds or cuts a polyline's own corners (handle1 ==
// handle2): vertex or all say which.
func (c *call) polylineCorners(e *drawing.Entity, vertex *int32, all *bool, chamfer bool, r, d1, d2 float64) (*drawing.Entity, int32, error) {
	g, ok := e.Geom.(drawing.Polyline)
	if !ok {
		return nil, 0, invalidArgs("/handle2", reasonInvalid, "handle1 and handle2 name the same entity, a %s: the same handle twice is for a polyline's own corners", e.Geom.Kind().WireName())
	}
	switch {
	case vertex == nil && !all_(all):
		return nil, 0, invalidArgs("/vertex", reasonMissing, "with handle1 == handle2 give vertex (the corner's index) or all: true")
	case vertex != nil && all_(all):
		return nil, 0, invalidArgs("/all", reasonInvalid, "give vertex or all, not both")
	}
	v := -1
	if vertex != nil {
		v = int(*vertex)
		if v >= len(g.V) {
			return nil, 0, invalidArgs("/vertex", reasonOutOfRange, "polyline %s has %d vertices (0 to %d)", drawing.FormatHandle(e.Handle), len(g.V), len(g.V)-1)
		}
	}
	pl, n, err := geom.PolylineCorners(g.Polyline, v, chamfer, r, d1, d2)
	if err != nil {
		return nil, 0, failed("polyline %s: %v", drawing.FormatHandle(e.Handle), err)
	}
	next := e.With(drawing.NewPolyline(pl.V, pl.Closed))
	if err := c.tx.Replace(e, next); err != nil {
		return nil, 0, err
	}
	return next, int32(n), nil
}

func all_(b *bool) bool { return b != nil && *b }

// sameEntity reports whether two handles name one entity (they may be
// spelled differently: "64" and "064"), and returns it when they do.
func (c *call) sameEntity(h1, h2 string) (*drawing.Entity, bool, error) {
	e1, err := c.Entity("/handle1", h1)
	if err != nil {
		return nil, false, err
	}
	e2, err := c.Entity("/handle2", h2)
	if err != nil {
		return nil, false, err
	}
	return e1, e1 == e2, nil
}

// entityFillet rounds a corner with an arc tangent to both entities (see
// geom.Fillet for which arc the picks choose), trimming or extending
// lines, arcs and open polylines' end segments to it and leaving circles
// whole; radius 0 makes the sharp corner. The arc takes the first
// entity's layer and style. With handle1 == handle2, a polyline's corners
// between straight segments become bulge arcs (geom.PolylineCorners).
func entityFillet(c *call, a *enginev1.EntityFilletArgs) (*enginev1.EntityFilletResult, error) {
	e, same, err := c.sameEntity(a.Handle1, a.Handle2)
	if err != nil {
		return nil, err
	}
	if same {
		if a.Radius == 0 {
			return nil, invalidArgs("/radius", reasonOutOfRange, "a polyline's corners are sharp already: give a radius above 0")
		}
		next, n, err := c.polylineCorners(e, a.Vertex, a.All, false, a.Radius, 0, 0)
		if err != nil {
			return nil, err
		}
		h := handleResult(next)
		return &enginev1.EntityFilletResult{Handle: h, Handles: []string{h}, Corners: &n}, nil
	}
	if a.Vertex != nil || a.All != nil {
		return nil, invalidArgs("/vertex", reasonInvalid, "vertex and all are for a polyline's own corners (handle1 == handle2)")
	}
	sides, err := c.cornerSides("entity_fillet", a.Handle1, a.Handle2, a.Pick1X, a.Pick1Y, a.Pick2X, a.Pick2Y, false)
	if err != nil {
		return nil, err
	}
	corner, err := geom.Fillet(sides[0].prim, sides[1].prim, a.Radius, sides[0].pick, sides[1].pick)
	if err != nil {
		return nil, failed("cannot fillet %s and %s: %v", drawing.FormatHandle(sides[0].e.Handle), drawing.FormatHandle(sides[1].e.Handle), err)
	}
	res := &enginev1.EntityFilletResult{}
	var made drawing.Geometry
	if a.Radius > 0 {
		g, err := geometryOf(corner.Arc)
		if err != nil {
			return nil, failed("the fillet arc: %v", err)
		}
		made = g
	}
	res.Handle, res.Handles, err = c.finishCorner(sides, made, corner.Keep1, corner.Keep2, a.Trim)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// finishCorner draws what rounds or bevels a corner (made, nil for a
// sharp corner) with the first side's properties and, unless trim is
// false, cuts the sides back to it (keep1, keep2): the handle of what
// it drew (else the first side's) and of everything it made or changed.
func (c *call) finishCorner(sides [2]cornerSide, made drawing.Geometry, keep1, keep2 any, trim *bool) (string, []string, error) {
	var handle string
	var handles []string
	if made != nil {
		e, err := c.copyOf(sides[0].e, made)
		if err != nil {
			return "", nil, err
		}
		handle = handleResult(e)
		handles = append(handles, handle)
	}
	if trim == nil || *trim {
		for i, kept := range []any{keep1, keep2} {
			changed, err := c.keep(sides[i], kept)
			if err != nil {
				return "", nil, err
			}
			if changed {
				handles = append(handles, handleResult(sides[i].e))
			}
		}
	}
	if handle == "" {
		handle = handleResult(sides[0].e)
		if len(handles) == 0 {
			handles = []string{handle}
		}
	}
	return handle, handles, nil
}

// entityChamfer bevels the corner between two lines (or open polylines'
// straight end segments) with a straight cut distance1 along the first
// and distance2 (default distance1) along the second from where they
// meet; 0 and 0 make the sharp corner. With handle1 == handle2 it cuts a
// polyline's corners. The cut takes the first entity's layer and style.
func entityChamfer(c *call, a *enginev1.EntityChamferArgs) (*enginev1.EntityChamferResult, error) {
	d1, d2 := a.Distance1, a.Distance1
	if a.Distance2 != nil {
		d2 = *a.Distance2
	}
	if (d1 == 0) != (d2 == 0) {
		return nil, invalidArgs("/distance2", reasonInvalid, "distance1 and distance2 are both 0 (a sharp corner) or both above 0")
	}
	e, same, err := c.sameEntity(a.Handle1, a.Handle2)
	if err != nil {
		return nil, err
	}
	if same {
		if d1 == 0 {
			return nil, invalidArgs("/distance1", reasonOutOfRange, "a polyline's corners are sharp already: give distances above 0")
		}
		next, n, err := c.polylineCorners(e, a.Vertex, a.All, true, 0, d1, d2)
		if err != nil {
			return nil, err
		}
		h := handleResult(next)
		return &enginev1.EntityChamferResult{Handle: h, Handles: []string{h}, Corners: &n}, nil
	}
	if a.Vertex != nil || a.All != nil {
		return nil, invalidArgs("/vertex", reasonInvalid, "vertex and all are for a polyline's own corners (handle1 == handle2)")
	}
	sides, err := c.cornerSides("entity_chamfer", a.Handle1, a.Handle2, a.Pick1X, a.Pick1Y, a.Pick2X, a.Pick2Y, true)
	if err != nil {
		return nil, err
	}
	corner, err := geom.Chamfer(sides[0].prim.(geom.Segment), sides[1].prim.(geom.Segment), d1, d2, sides[0].pick, sides[1].pick)
	if err != nil {
		return nil, failed("cannot chamfer %s and %s: %v", drawing.FormatHandle(sides[0].e.Handle), drawing.FormatHandle(sides[1].e.Handle), err)
	}
	res := &enginev1.EntityChamferResult{}
	var made drawing.Geometry
	if d1 > 0 {
		g, err := lineOf("", corner.T1, corner.T2)
		if err != nil {
			return nil, failed("the chamfer is too short to draw")
		}
		made = g
	}
	res.Handle, res.Handles, err = c.finishCorner(sides, made, corner.Keep1, corner.Keep2, a.Trim)
	if err != nil {
		return nil, err
	}
	return res, nil
}
