package engine

import (
	"math"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

func entityGet(c *call, a *enginev1.EntityGetArgs) (*enginev1.Entity, error) {
	e, err := c.Entity("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	return e.Proto(), nil
}

// windowBox is the box of a window given by two opposite corners.
func windowBox(x1, y1, x2, y2 float64) geom.Box {
	return geom.Box{Min: geom.Pt(math.Min(x1, x2), math.Min(y1, y2)), Max: geom.Pt(math.Max(x1, x2), math.Max(y1, y2)), NonEmpty: true}
}

// entityList pages through entities in handle order. The page token is
// opaque (it carries the last handle of the page); total counts every
// match, in all pages.
func entityList(c *call, a *enginev1.EntityListArgs) (*enginev1.EntityListResult, error) {
	size := 100
	if a.PageSize != nil {
		size = int(*a.PageSize)
	}
	var from uint64
	if a.PageToken != nil && *a.PageToken != "" {
		v, ok := decodeToken("e", *a.PageToken)
		h, ok2 := drawing.ParseHandle(v)
		if !ok || !ok2 {
			return nil, invalidArgs("/page_token", reasonInvalid, "not a page token of entity_list")
		}
		from = h + 1
	}
	types := map[enginev1.EntityType]bool{}
	for _, t := range a.Types {
		types[t] = true
	}
	layers := map[string]bool{}
	for _, l := range a.Layers {
		layers[l] = true
	}
	var win geom.Box
	if w := a.Window; w != nil {
		if w.MinX > w.MaxX || w.MinY > w.MaxY {
			return nil, invalidArgs("/window", reasonInvalid, "min_x and min_y must not exceed max_x and max_y")
		}
		win = windowBox(w.MinX, w.MinY, w.MaxX, w.MaxY)
	}
	space, err := c.space("/layout", a.GetLayout())
	if err != nil {
		return nil, err
	}
	res := &enginev1.EntityListResult{}
	var last uint64
	c.d.Each(0, func(e *drawing.Entity) bool {
		if e.Layout != space || len(types) > 0 && !types[e.Geom.Kind()] || len(layers) > 0 && !layers[e.Layer] {
			return true
		}
		if win.NonEmpty && !e.Geom.Bounds().Inside(win) {
			return true
		}
		res.Total++
		if e.Handle < from {
			return true
		}
		if len(res.Entities) < size {
			res.Entities = append(res.Entities, e.Proto())
			last = e.Handle
		} else if res.NextPageToken == "" {
			res.NextPageToken = encodeToken("e", drawing.FormatHandle(last))
		}
		return true
	})
	return res, nil
}

// selectionWindow selects, in handle order, the model-space entities whose
// extents lie inside the window or, with crossing, that have a point
// inside it. As in CAD programs, entities on layers that are off or frozen
// are not selectable. Text extents are estimated (see textCharWidth).
func selectionWindow(c *call, a *enginev1.SelectionWindowArgs) (*enginev1.SelectionWindowResult, error) {
	w := windowBox(a.X1, a.Y1, a.X2, a.Y2)
	space, err := c.space("/layout", a.GetLayout())
	if err != nil {
		return nil, err
	}
	res := &enginev1.SelectionWindowResult{Handles: []string{}}
	budget := c.budget()
	c.d.Each(0, func(e *drawing.Entity) bool {
		if !c.selectableIn(e, space) {
			return true
		}
		var in bool
		if in, err = selects(e, w, a.GetCrossing(), budget); err != nil {
			return false
		}
		if in {
			res.Handles = append(res.Handles, drawing.FormatHandle(e.Handle))
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	res.Count = int64(len(res.Handles))
	return res, nil
}

// selects says whether e is selected by the window w; a crossing test
// that must look at the curves of an insert's expansion spends them from
// budget.
func selects(e *drawing.Entity, w geom.Box, crossing bool, budget *drawing.Budget) (bool, error) {
	b := e.Geom.Bounds()
	if b.Inside(w) {
		return true, nil
	}
	if !crossing || !b.Overlaps(w) {
		return false, nil
	}
	if err := budget.Spend(drawing.Cost(e.Geom)); err != nil {
		return false, err
	}
	prims := e.Geom.Prims()
	if len(prims) == 0 { // text: its estimated box overlaps
		return true, nil
	}
	for _, p := range prims {
		if geom.PrimCrossesBox(p, w, primFirst(p)) {
			return true, nil
		}
	}
	return false, nil
}

func primFirst(p any) geom.Vec {
	switch p := p.(type) {
	case geom.Segment:
		return p.A
	case geom.Arc:
		return p.At(p.Start)
	case geom.EllipseArc:
		return p.At(p.Start)
	}
	return geom.Vec{}
}

// boundingBox measures exact extents (arcs and ellipses by their extreme
// points, text by its estimated box) of the entities named, or of model
// space.
func boundingBox(c *call, a *enginev1.AnalysisBoundingBoxArgs) (*enginev1.AnalysisBoundingBoxResult, error) {
	var b geom.Box
	n := 0
	if len(a.Handles) > 0 {
		seen := map[uint64]bool{}
		for i, h := range a.Handles {
			e, err := c.Entity("/handles/"+string(appendInt(nil, i)), h)
			if err != nil {
				return nil, err
			}
			if !seen[e.Handle] {
				seen[e.Handle] = true
				b.AddBox(e.Geom.Bounds())
				n++
			}
		}
	} else {
		space, err := c.space("/layout", a.GetLayout())
		if err != nil {
			return nil, err
		}
		c.d.Each(0, func(e *drawing.Entity) bool {
			if e.Layout == space { // model space's extents, or a layout's
				b.AddBox(e.Geom.Bounds())
				n++
			}
			return true
		})
	}
	if !b.NonEmpty {
		return nil, failed("the document has no entities to measure")
	}
	return &enginev1.AnalysisBoundingBoxResult{
		MinX: b.Min.X, MinY: b.Min.Y, MaxX: b.Max.X, MaxY: b.Max.Y,
		Width: b.Max.X - b.Min.X, Height: b.Max.Y - b.Min.Y, Count: int64(n),
	}, nil
}

// measureDistance measures from (x1, y1) to (x2, y2); the angle is in
// degrees counter-clockwise from +X, in [0, 360).
func measureDistance(_ *call, a *enginev1.AnalysisMeasureDistanceArgs) (*enginev1.AnalysisMeasureDistanceResult, error) {
	p, q := geom.Pt(a.X1, a.Y1), geom.Pt(a.X2, a.Y2)
	d := q.Sub(p)
	angle := 0.0
	if d.X != 0 || d.Y != 0 {
		angle = geom.NormDeg(geom.Deg(d.Angle()))
	}
	return &enginev1.AnalysisMeasureDistanceResult{Distance: d.Len(), Dx: d.X, Dy: d.Y, Angle: angle}, nil
}

// polygonArea is the area a closed polygon encloses (shoelace, relative to
// its first point).
func polygonArea(pts []geom.Vec) float64 {
	a := 0.0
	for i := 1; i+1 < len(pts); i++ {
		u, v := pts[i].Sub(pts[0]), pts[i+1].Sub(pts[0])
		a += u.X*v.Y - u.Y*v.X
	}
	return math.Abs(a) / 2
}

// measureEntity gives the length of open curves (line, arc, open
// polyline, elliptical arc) and the area and perimeter of closed ones
// (circle, closed polyline, full ellipse), bulges and elliptical arcs
// measured exactly (ellipses by the arithmetic-geometric mean or adaptive
// quadrature). A closed polyline that crosses itself measures the area
// it encloses (see geom.Polyline.Area). A hatch has the area it fills
// (islands taken out) and the length of all its boundaries as perimeter.
// A spline's length is exact; a closed one's area is that of its polyline
// (within a millionth of its size of the curve). Points, text,
// dimensions and inserts have none of them and fail.
func measureEntity(c *call, a *enginev1.AnalysisMeasureEntityArgs) (*enginev1.AnalysisMeasureEntityResult, error) {
	e, err := c.Entity("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	res := &enginev1.AnalysisMeasureEntityResult{}
	switch g := e.Geom.(type) {
	case drawing.Line:
		res.Length = new(g.A.Dist(g.B))
	case drawing.Arc:
		res.Length = new(g.Arc().Length())
	case drawing.Circle:
		res.Area, res.Perimeter = new(math.Pi*g.R*g.R), new(2*math.Pi*g.R)
	case drawing.Polyline:
		if g.Closed {
			res.Area, res.Perimeter = new(g.Area()), new(g.Length())
		} else {
			res.Length = new(g.Length())
		}
	case drawing.Ellipse:
		ea := g.Arc()
		if g.Full() {
			a := g.Major.Len()
			res.Area, res.Perimeter = new(math.Pi*a*a*g.Ratio), new(ea.Length())
		} else {
			res.Length = new(ea.Length())
		}
	case drawing.Spline:
		if g.Closed {
			res.Area, res.Perimeter = new(polygonArea(g.Polyline())), new(g.Length())
		} else {
			res.Length = new(g.Length())
		}
	case drawing.Hatch:
		perimeter := 0.0
		for _, l := range g.Loops {
			for _, p := range l.Prims() {
				perimeter += primLength(p)
			}
		}
		res.Area, res.Perimeter = new(g.Area()), new(perimeter)
	default:
		return nil, failed("entity %s is a %s: it has no length, area or perimeter", drawing.FormatHandle(e.Handle), e.Geom.Kind().WireName())
	}
	return res, nil
}

// primLength is the length of a curve primitive.
func primLength(p any) float64 {
	switch p := p.(type) {
	case geom.Segment:
		return p.Length()
	case geom.Arc:
		return p.Length()
	case geom.EllipseArc:
		return p.Length()
	}
	return 0
}
