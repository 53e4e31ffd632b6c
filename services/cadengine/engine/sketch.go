package engine

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
	"github.com/cadbridge/cadbridge/services/cadengine/solve"
)

// sketch is a document's constraints as a solve.System: each entity a
// constraint names becomes a primitive of its own (a point entity a
// point, a line a line, a circle a circle, an arc an arc, a polyline a
// point at each vertex, its bulges kept), and each constraint one of the
// solver's. Entities of other types, and refs an entity does not have,
// are refErrors. The system is built afresh for each solve: the
// document is the only state.
type sketch struct {
	d     *drawing.Document
	sys   *solve.System
	prims map[uint64]*prim
	order []uint64 // the entities in the order they were first named
	mids  map[uint64]solve.Point
	cons  []drawing.Constraint
}

// prim is an entity's primitive in the system.
type prim struct {
	e      *drawing.Entity
	point  solve.Point // a point entity
	line   solve.Line
	circle solve.Circle // a circle, or an arc's circle
	arc    *solve.Arc
	verts  []solve.Point // a polyline's
	params []solve.Param
}

// refError is a reference a constraint cannot use: the ref's index and
// why.
type refError struct {
	id  int64 // the constraint, 0 for one being added
	ref int   // the ref's index, -1 for the constraint as a whole
	msg string
}

func (e *refError) Error() string { return e.msg }

// withID is err naming the constraint id, when it is a refError (else a
// refError of the constraint as a whole).
func withID(err error, id int64) error {
	var re *refError
	if !errors.As(err, &re) {
		return &refError{id: id, ref: -1, msg: err.Error()}
	}
	re.id = id
	return re
}

func refErr(ref int, format string, args ...any) *refError {
	return &refError{ref: ref, msg: fmt.Sprintf(format, args...)}
}

// newSketch builds the system of cons over d's entities.
func newSketch(d *drawing.Document, cons []drawing.Constraint) (*sketch, error) {
	s := &sketch{d: d, sys: solve.New(), prims: map[uint64]*prim{}, mids: map[uint64]solve.Point{}, cons: cons}
	for _, c := range cons {
		sc, err := s.constraint(c)
		if err != nil {
			return nil, withID(err, c.ID)
		}
		for _, x := range sc {
			if err := s.sys.Add(solve.ID(c.ID), x); err != nil {
				return nil, &refError{id: c.ID, ref: -1, msg: err.Error()}
			}
		}
	}
	return s, nil
}

// prim is the primitive of the entity ref i names, made when first
// named.
func (s *sketch) prim(ref drawing.Ref, i int) (*prim, error) {
	if p := s.prims[ref.Handle]; p != nil {
		return p, nil
	}
	e := s.d.Entity(ref.Handle)
	if e == nil {
		return nil, refErr(i, "the document has no entity %s", drawing.FormatHandle(ref.Handle))
	}
	p := &prim{e: e}
	switch g := e.Geom.(type) {
	case drawing.Point:
		p.point = s.sys.Point(g.P.X, g.P.Y)
		p.params = p.point.Params()
	case drawing.Line:
		p.line = s.sys.Line(g.A.X, g.A.Y, g.B.X, g.B.Y)
		p.params = p.line.Params()
	case drawing.Circle:
		p.circle = s.sys.Circle(g.C.X, g.C.Y, g.R)
		p.params = p.circle.Params()
	case drawing.Arc:
		at := func(deg float64) solve.Point {
			a := deg * math.Pi / 180
			return s.sys.Point(g.C.X+g.R*math.Cos(a), g.C.Y+g.R*math.Sin(a))
		}
		c := s.sys.Point(g.C.X, g.C.Y)
		a := s.sys.Arc(c, g.R, at(g.Start), at(g.End))
		p.arc, p.circle, p.params = &a, a.Circle, a.Params()
	case drawing.Polyline:
		for _, v := range g.V {
			pt := s.sys.Point(v.P.X, v.P.Y)
			p.verts = append(p.verts, pt)
			p.params = append(p.params, pt.Params()...)
		}
	default:
		return nil, refErr(i, "constraints hold points, lines, circles, arcs and polylines' vertices, not a %s (%s)", e.Geom.Kind().WireName(), ref)
	}
	s.prims[ref.Handle] = p
	s.order = append(s.order, ref.Handle)
	return p, nil
}

// point is the point ref i names.
func (s *sketch) point(ref drawing.Ref, i int) (solve.Point, error) {
	p, err := s.prim(ref, i)
	if err != nil {
		return solve.Point{}, err
	}
	kind := p.e.Geom.Kind().WireName()
	switch g := p.e.Geom.(type) {
	case drawing.Point:
		if ref.Point == "" || ref.Point == "center" {
			return p.point, nil
		}
	case drawing.Line:
		switch ref.Point {
		case "start":
			return p.line.A, nil
		case "end":
			return p.line.B, nil
		case "mid":
			return s.mid(ref.Handle, p)
		}
	case drawing.Circle:
		if ref.Point == "center" {
			return p.circle.Center, nil
		}
	case drawing.Arc:
		switch ref.Point {
		case "start":
			return p.arc.Start, nil
		case "end":
			return p.arc.End, nil
		case "center":
			return p.circle.Center, nil
		case "mid":
			return s.mid(ref.Handle, p)
		}
	case drawing.Polyline:
		n := len(p.verts)
		if v, ok := ref.Vertex(); ok && v < n {
			return p.verts[v], nil
		}
		switch {
		case ref.Point == "start":
			return p.verts[0], nil
		case ref.Point == "end" && !g.Closed:
			return p.verts[n-1], nil
		case ref.Point == "":
			return solve.Point{}, refErr(i, "a polyline's points are its vertices: name one as vertex:N (0 to %d)", n-1)
		}
		return solve.Point{}, refErr(i, "the polyline %s has vertices 0 to %d (and start, and end when open), not %q", drawing.FormatHandle(ref.Handle), n-1, ref.Point)
	}
	if ref.Point == "" {
		return solve.Point{}, refErr(i, "this constraint holds a point: name one of the %s %s's (start, end, center or mid)", kind, drawing.FormatHandle(ref.Handle))
	}
	return solve.Point{}, refErr(i, "a %s has no point %q", kind, ref.Point)
}

// mid is the middle of a line or an arc: a point of its own, tied to it.
func (s *sketch) mid(h uint64, p *prim) (solve.Point, error) {
	if m, ok := s.mids[h]; ok {
		return m, nil
	}
	var m solve.Point
	var ties []solve.Constraint
	switch g := p.e.Geom.(type) {
	case drawing.Line:
		c := g.A.Mid(g.B)
		m = s.sys.Point(c.X, c.Y)
		ties = []solve.Constraint{solve.Midpoint{P: m, L: p.line}}
	case drawing.Arc:
		a := geom.NormDeg(g.Start+geom.NormDeg(g.End-g.Start)/2) * math.Pi / 180
		m = s.sys.Point(g.C.X+g.R*math.Cos(a), g.C.Y+g.R*math.Sin(a))
		ties = []solve.Constraint{
			solve.PointOnCircle{P: m, C: p.circle},
			solve.Symmetric{P: p.arc.Start, Q: p.arc.End, L: solve.Line{A: p.circle.Center, B: m}},
		}
	}
	for _, t := range ties {
		if err := s.sys.Tie(t); err != nil {
			return solve.Point{}, err
		}
	}
	s.mids[h] = m
	return m, nil
}

// line is the line ref i names.
func (s *sketch) line(ref drawing.Ref, i int) (solve.Line, error) {
	p, err := s.prim(ref, i)
	if err != nil {
		return solve.Line{}, err
	}
	if _, ok := p.e.Geom.(drawing.Line); !ok || ref.Point != "" {
		return solve.Line{}, refErr(i, "this constraint holds a line: %s is not one", ref)
	}
	return p.line, nil
}

// circle is the circle or arc ref i names.
func (s *sketch) circle(ref drawing.Ref, i int) (solve.Circle, error) {
	p, err := s.prim(ref, i)
	if err != nil {
		return solve.Circle{}, err
	}
	switch p.e.Geom.(type) {
	case drawing.Circle, drawing.Arc:
		if ref.Point == "" {
			return p.circle, nil
		}
	}
	return solve.Circle{}, refErr(i, "this constraint holds a circle or an arc: %s is not one", ref)
}

// curveKind says what ref names as a whole: "line", "circle" (a circle
// or an arc) or "point" (a point of an entity, or a point entity).
func (s *sketch) curveKind(ref drawing.Ref) string {
	e := s.d.Entity(ref.Handle)
	if e == nil || ref.Point != "" {
		return "point"
	}
	switch e.Geom.(type) {
	case drawing.Line:
		return "line"
	case drawing.Circle, drawing.Arc:
		return "circle"
	}
	return "point"
}

// constraint is c as the solver's constraints.
func (s *sketch) constraint(c drawing.Constraint) ([]solve.Constraint, error) {
	refs := c.Refs
	want := func(n ...int) error {
		if !slices.Contains(n, len(refs)) {
			return refErr(-1, "%s takes %s refs, not %d", c.Kind, countWords(n), len(refs))
		}
		return nil
	}
	one := func(x solve.Constraint, err error) ([]solve.Constraint, error) {
		if err != nil {
			return nil, err
		}
		return []solve.Constraint{x}, nil
	}
	pts := func() (a, b solve.Point, err error) {
		if a, err = s.point(refs[0], 0); err != nil {
			return
		}
		b, err = s.point(refs[1], 1)
		return
	}
	lines := func() (a, b solve.Line, err error) {
		if a, err = s.line(refs[0], 0); err != nil {
			return
		}
		b, err = s.line(refs[1], 1)
		return
	}
	circles := func() (a, b solve.Circle, err error) {
		if a, err = s.circle(refs[0], 0); err != nil {
			return
		}
		b, err = s.circle(refs[1], 1)
		return
	}
	// ends are the two points a constraint on one line or two points
	// holds.
	ends := func() (a, b solve.Point, err error) {
		if len(refs) == 1 {
			l, err := s.line(refs[0], 0)
			return l.A, l.B, err
		}
		return pts()
	}
	switch c.Kind {
	case drawing.KindCoincident, drawing.KindPointOn:
		if err := want(2); err != nil {
			return nil, err
		}
		k0, k1 := s.curveKind(refs[0]), s.curveKind(refs[1])
		if c.Kind == drawing.KindCoincident && k0 == "point" && k1 == "point" {
			a, b, err := pts()
			return one(solve.Coincident{A: a, B: b}, err)
		}
		pi, ci := 0, 1
		if k0 != "point" {
			pi, ci = 1, 0
		}
		p, err := s.point(refs[pi], pi)
		if err != nil {
			return nil, err
		}
		switch s.curveKind(refs[ci]) {
		case "line":
			l, err := s.line(refs[ci], ci)
			return one(solve.PointOnLine{P: p, L: l}, err)
		case "circle":
			cc, err := s.circle(refs[ci], ci)
			return one(solve.PointOnCircle{P: p, C: cc}, err)
		}
		return nil, refErr(ci, "point_on holds a point on a line, circle or arc: %s is not one", refs[ci])
	case drawing.KindHorizontal, drawing.KindVertical:
		if err := want(1, 2); err != nil {
			return nil, err
		}
		a, b, err := ends()
		if c.Kind == drawing.KindHorizontal {
			return one(solve.Horizontal{A: a, B: b}, err)
		}
		return one(solve.Vertical{A: a, B: b}, err)
	case drawing.KindParallel, drawing.KindPerpendicular, drawing.KindAngle:
		if err := want(2); err != nil {
			return nil, err
		}
		a, b, err := lines()
		switch c.Kind {
		case drawing.KindParallel:
			return one(solve.Parallel{L1: a, L2: b}, err)
		case drawing.KindPerpendicular:
			return one(solve.Perpendicular{L1: a, L2: b}, err)
		}
		return one(solve.Angle{L1: a, L2: b, Value: c.Value * math.Pi / 180}, err)
	case drawing.KindTangent:
		if err := want(2); err != nil {
			return nil, err
		}
		return one(s.tangent(c))
	case drawing.KindEqual:
		if err := want(2); err != nil {
			return nil, err
		}
		if s.curveKind(refs[0]) == "line" {
			a, b, err := lines()
			return one(solve.EqualLength{L1: a, L2: b}, err)
		}
		a, b, err := circles()
		return one(solve.EqualRadius{C1: a, C2: b}, err)
	case drawing.KindConcentric:
		if err := want(2); err != nil {
			return nil, err
		}
		a, b, err := circles()
		return one(solve.Concentric{C1: a, C2: b}, err)
	case drawing.KindFixed:
		var ps []solve.Param
		for i, r := range refs {
			got, err := s.params(r, i)
			if err != nil {
				return nil, err
			}
			ps = append(ps, got...)
		}
		if len(c.Pins) != len(ps) {
			return nil, refErr(-1, "fixed constraint %d pins %d values where its refs have %d", c.ID, len(c.Pins), len(ps))
		}
		return one(solve.Fixed{Params: ps, Values: c.Pins}, nil)
	case drawing.KindMidpoint:
		if err := want(2); err != nil {
			return nil, err
		}
		p, err := s.point(refs[0], 0)
		if err != nil {
			return nil, err
		}
		l, err := s.line(refs[1], 1)
		return one(solve.Midpoint{P: p, L: l}, err)
	case drawing.KindSymmetric:
		if err := want(3); err != nil {
			return nil, err
		}
		a, b, err := pts()
		if err != nil {
			return nil, err
		}
		l, err := s.line(refs[2], 2)
		return one(solve.Symmetric{P: a, Q: b, L: l}, err)
	case drawing.KindDistance:
		if err := want(1, 2); err != nil {
			return nil, err
		}
		if len(refs) == 2 && (s.curveKind(refs[0]) == "line") != (s.curveKind(refs[1]) == "line") {
			pi, li := 0, 1
			if s.curveKind(refs[0]) == "line" {
				pi, li = 1, 0
			}
			p, err := s.point(refs[pi], pi)
			if err != nil {
				return nil, err
			}
			l, err := s.line(refs[li], li)
			return one(solve.DistancePointLine{P: p, L: l, Value: c.Value}, err)
		}
		a, b, err := ends()
		return one(solve.Distance{A: a, B: b, Value: c.Value}, err)
	case drawing.KindDistanceX, drawing.KindDistanceY:
		if err := want(1, 2); err != nil {
			return nil, err
		}
		a, b, err := ends()
		if c.Kind == drawing.KindDistanceX {
			return one(solve.DistanceX{A: a, B: b, Value: c.Value}, err)
		}
		return one(solve.DistanceY{A: a, B: b, Value: c.Value}, err)
	case drawing.KindRadius, drawing.KindDiameter:
		if err := want(1); err != nil {
			return nil, err
		}
		cc, err := s.circle(refs[0], 0)
		if c.Kind == drawing.KindRadius {
			return one(solve.Radius{C: cc, Value: c.Value}, err)
		}
		return one(solve.Diameter{C: cc, Value: c.Value}, err)
	}
	return nil, refErr(-1, "unknown constraint kind %q", c.Kind)
}

// tangent is a tangency: at a shared point where a coincident constraint
// joins an end of each (a fillet's corner: solve.TangentAt,
// solve.TangentCirclesAt), else of the infinite line or whole circles.
func (s *sketch) tangent(c drawing.Constraint) (solve.Constraint, error) {
	r0, r1 := c.Refs[0], c.Refs[1]
	if s.curveKind(r0) == "circle" && s.curveKind(r1) == "line" {
		r0, r1 = r1, r0
	}
	shared, ok := s.sharedEnd(r0.Handle, r1.Handle)
	if s.curveKind(r0) == "line" {
		l, err := s.line(r0, 0)
		if err != nil {
			return nil, err
		}
		cc, err := s.circle(r1, 1)
		if err != nil {
			return nil, err
		}
		if ok {
			// The point on the circle: an arc's end (on its circle).
			p, err := s.point(drawing.Ref{Handle: r1.Handle, Point: shared[1]}, 1)
			return solve.TangentAt{L: l, C: cc, P: p}, err
		}
		return solve.TangentLine{L: l, C: cc}, nil
	}
	a, err := s.circle(r0, 0)
	if err != nil {
		return nil, err
	}
	b, err := s.circle(r1, 1)
	if err != nil {
		return nil, err
	}
	if ok {
		p, err := s.point(drawing.Ref{Handle: r0.Handle, Point: shared[0]}, 0)
		return solve.TangentCirclesAt{C1: a, C2: b, P: p}, err
	}
	return solve.TangentCircles{C1: a, C2: b}, nil
}

// sharedEnd finds a coincident constraint joining an end of the entity
// a to an end of an arc b (or a line b): the two ends' names.
func (s *sketch) sharedEnd(a, b uint64) ([2]string, bool) {
	isEnd := func(p string) bool { return p == "start" || p == "end" }
	for _, c := range s.cons {
		if c.Kind != drawing.KindCoincident || len(c.Refs) != 2 {
			continue
		}
		x, y := c.Refs[0], c.Refs[1]
		if x.Handle == b && y.Handle == a {
			x, y = y, x
		}
		if x.Handle == a && y.Handle == b && isEnd(x.Point) && isEnd(y.Point) {
			if e := s.d.Entity(b); e != nil {
				if _, arc := e.Geom.(drawing.Arc); arc {
					return [2]string{x.Point, y.Point}, true
				}
			}
			if e := s.d.Entity(a); e != nil {
				if _, arc := e.Geom.(drawing.Arc); arc {
					return [2]string{x.Point, y.Point}, true
				}
			}
		}
	}
	return [2]string{}, false
}

// params are the parameters ref i names: a point's two, or an entity's
// all.
func (s *sketch) params(ref drawing.Ref, i int) ([]solve.Param, error) {
	if ref.Point != "" || s.curveKind(ref) == "point" {
		p, err := s.point(ref, i)
		return p.Params(), err
	}
	p, err := s.prim(ref, i)
	if err != nil {
		return nil, err
	}
	return p.params, nil
}

// pin fixes (true) or frees the parameters of the entity h, when the
// sketch has it.
func (s *sketch) pin(h uint64, fixed bool) {
	if p := s.prims[h]; p != nil {
		for _, x := range p.params {
			s.sys.Fix(x, fixed)
		}
	}
}

// geometry is p's entity's geometry as the system has it now.
func (s *sketch) geometry(p *prim) drawing.Geometry {
	pt := func(q solve.Point) geom.Vec { x, y := s.sys.PointAt(q); return geom.Pt(x, y) }
	switch g := p.e.Geom.(type) {
	case drawing.Point:
		g.P = pt(p.point)
		return g
	case drawing.Line:
		return drawing.Line{A: pt(p.line.A), B: pt(p.line.B)}
	case drawing.Circle:
		return drawing.Circle{C: pt(p.circle.Center), R: math.Abs(s.sys.Value(p.circle.R))}
	case drawing.Arc:
		c := pt(p.circle.Center)
		deg := func(q solve.Point) float64 {
			d := pt(q).Sub(c)
			return geom.NormDeg(math.Atan2(d.Y, d.X) * 180 / math.Pi)
		}
		return drawing.Arc{C: c, R: math.Abs(s.sys.Value(p.circle.R)), Start: deg(p.arc.Start), End: deg(p.arc.End)}
	case drawing.Polyline:
		v := slices.Clone(g.V)
		for i := range v {
			v[i].P = pt(p.verts[i])
		}
		g.V = v
		return g
	}
	return p.e.Geom
}

// moved are the entities res moved, handles ascending.
func (s *sketch) moved(res *solve.Result) []*prim {
	var out []*prim
	for _, h := range s.order {
		if p := s.prims[h]; res.Moved(p.params...) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *prim) int {
		switch {
		case a.e.Handle < b.e.Handle:
			return -1
		case a.e.Handle > b.e.Handle:
			return 1
		}
		return 0
	})
	return out
}

// countWords is "1 or 2" for n.
func countWords(n []int) string {
	s := fmt.Sprint(n[0])
	for _, x := range n[1:] {
		s += fmt.Sprintf(" or %d", x)
	}
	return s
}
