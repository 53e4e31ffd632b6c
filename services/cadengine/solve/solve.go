// Package solve is the engine's geometric constraint solver (DESIGN
// §14), standard library and [geom] only. It knows equations, not CAD
// tools: the engine maps a document's entities and constraints onto it
// and the solved values back.
//
// # The model
//
// A [System] holds a flat vector of float64 unknowns, the parameters
// ([Param]), over which the primitives are index records: a [Point] is
// two parameters (x, y), a [Line] two points, a [Circle] a center point
// and a radius parameter, an [Arc] a circle and its start and end
// points, which [System.Arc] ties to the circle with two equations of
// its own (an arc is then 7 parameters and 5 degrees of freedom). The
// ends being points makes a fillet's corner a plain coincidence, with no
// trigonometry and no wrapping of angles; the engine reads an arc's
// start and end angles off its points, counter-clockwise from start to
// end as in DXF. A parameter can be fixed ([System.Fix]): it is then a
// constant, not an unknown.
//
// A [Constraint] is one of the types of this package, each a residual
// (zero when it holds, in drawing units) with analytic partial
// derivatives. [System.Add] adds one under the caller's [ID] (the
// document's constraint id); ids order the diagnosis, lower first.
//
// # Kinds
//
// The kinds of DESIGN §14 and their types (a [Constraint.Kind] is the
// kind's name): coincident [Coincident]; horizontal [Horizontal];
// vertical [Vertical]; parallel [Parallel]; perpendicular
// [Perpendicular]; tangent [TangentLine] (a line's infinite extension
// and a circle or arc), [TangentCircles] (external or internal), and at
// a point the two share [TangentAt], [TangentCirclesAt]; equal
// [EqualLength], [EqualRadius]; concentric [Concentric]; fixed [Fixed]
// ([FixPoint]); point_on [PointOnLine] (the infinite extension),
// [PointOnCircle]; midpoint [Midpoint]; symmetric [Symmetric];
// distance [Distance] (two points), [DistancePointLine]; distance_x
// [DistanceX], distance_y [DistanceY] (signed, second minus first);
// angle [Angle] (radians, from the first line to the second); radius
// [Radius]; diameter [Diameter].
//
// # Solving
//
// [System.Solve] splits the system into independent groups — the
// connected components of the graph of constraints and the free
// parameters they read — and solves each group that changed since the
// last solve ([System.SetValue], [System.SetConstraintValue], an added
// or removed constraint, a fixed or freed parameter), keeping the last
// answer of the others. A group is solved by Levenberg–Marquardt: steps
// from (JᵀJ + λI) δ = -Jᵀr, the damping λ adapted to how well the model
// predicted the step. The plain λI (Levenberg's, not Marquardt's
// diag(JᵀJ)) makes each step the smallest change that reduces the
// residuals, so an under-constrained sketch moves as little as it can.
// The Jacobian is kept as its nonzeros and JᵀJ + λI is factored by a
// Cholesky within its envelope, which is narrow when the parameters are
// numbered along the figure (as entities made one after the other are).
//
// At the solution the rows of the group's Jacobian are taken in
// diagnosis order (an arc's own equations and the ties, then constraints
// by id) and orthogonalized (Gram–Schmidt, a QR factorization of Jᵀ): a
// row within 1e-8 of its length of the span of the rows before it is
// dependent, and its constraint redundant. The rank is the number of the
// others; the degrees of freedom are the free parameters minus the rank
// (plus every free parameter no constraint reads). A group whose
// residuals cannot be brought to zero is over-constrained; its
// conflicting set is found by solving prefixes of its constraints in id
// order (the shortest prefix that cannot hold ends in a constraint that
// must be in the set) and then keeping, of the constraints before it,
// those without any one of which the set could hold (QuickXplain:
// halves, a few solves for a small set in a big group): what remains
// cannot all hold, and every constraint in it is needed for that. Its
// parameters are left as they were.
//
// Primitives may share points (a polyline's segments their vertices, an
// arc its end with a line), which needs no coincidence at all; the
// engine ties auxiliary points where a reference is not a parameter
// ([System.Tie]).
//
// Everything is deterministic: groups, rows and columns are ordered by
// parameter index and constraint id, never by map iteration, so the same
// inputs give the same bits.
package solve

import (
	"fmt"
	"slices"
)

// Param is the index of an unknown of a [System].
type Param int32

// Point is a point: the indices of its x and y.
type Point struct{ X, Y Param }

// Line is a line from A to B (the infinite extension where a constraint
// says so).
type Line struct{ A, B Point }

// Circle is a circle: its center and the index of its radius.
type Circle struct {
	Center Point
	R      Param
}

// Arc is an arc of a circle, counter-clockwise from Start to End; both
// ends are held on the circle by equations of the [System] (see
// [System.Arc]).
type Arc struct {
	Circle
	Start, End Point
}

// ID identifies a constraint: the document's constraint id. Conflicting
// and redundant constraints are named by it, and the diagnosis takes
// constraints in increasing id order.
type ID int64

// entry is one constraint of the system.
type entry struct {
	id       ID
	c        Constraint
	internal bool // an arc's own equation, never named in a report
	removed  bool
	dirty    bool
	ps       []Param // the parameters c reads
}

// System is a set of parameters and constraints over them. It is not
// safe for concurrent use; [System.Clone] gives an independent copy (to
// see what a solve would move without moving it).
type System struct {
	x       []float64
	kind    []paramKind
	fixed   []bool
	dirty   []bool // by parameter: set since the last solve
	entries []entry
	byID    map[ID]int // lookup only; never ranged over

	stale        bool      // the groups must be recomputed
	groups       []*group  // in the order of their first entry
	groupOfEntry []int32   // by entry: index in groups, or -1
	groupOfParam []int32   // by parameter: index in groups, or -1
	readers      [][]int32 // by parameter: the entries that read it
}

// paramKind is what a parameter measures: the size of a group is the
// larger of its points' spans in x and in y and its other lengths.
type paramKind uint8

const (
	kindLength paramKind = iota // a radius, or a parameter made alone
	kindX
	kindY
)

// New returns an empty system.
func New() *System { return &System{byID: map[ID]int{}} }

// Param adds an unknown with the value v.
func (s *System) Param(v float64) Param {
	s.x = append(s.x, v)
	s.kind = append(s.kind, kindLength)
	s.fixed = append(s.fixed, false)
	s.dirty = append(s.dirty, true)
	s.readers = append(s.readers, nil)
	s.groupOfParam = append(s.groupOfParam, -1)
	s.stale = true
	return Param(len(s.x) - 1)
}

// Point adds a point at (x, y).
func (s *System) Point(x, y float64) Point {
	p := Point{s.Param(x), s.Param(y)}
	s.kind[p.X], s.kind[p.Y] = kindX, kindY
	return p
}

// Line adds a line from (x1, y1) to (x2, y2).
func (s *System) Line(x1, y1, x2, y2 float64) Line {
	return Line{s.Point(x1, y1), s.Point(x2, y2)}
}

// Circle adds a circle about (cx, cy) of radius r.
func (s *System) Circle(cx, cy, r float64) Circle {
	return Circle{s.Point(cx, cy), s.Param(r)}
}

// Arc adds an arc about center of radius r from start to end, with the
// two equations (each a [PointOnCircle], which no report names) that
// keep its ends on its circle.
func (s *System) Arc(center Point, r float64, start, end Point) Arc {
	a := Arc{Circle{center, s.Param(r)}, start, end}
	s.addEntry(entry{c: PointOnCircle{start, a.Circle}, internal: true})
	s.addEntry(entry{c: PointOnCircle{end, a.Circle}, internal: true})
	return a
}

// Tie adds c as one of the system's own equations, as [System.Arc] does
// for an arc's ends: it holds like any constraint, but has no id, is
// never named redundant or conflicting, and comes first in the
// diagnosis. The engine ties the auxiliary points it makes for
// references that are not parameters: a line's `mid` is a point tied by
// a [Midpoint]; an arc's is a point P tied by a [PointOnCircle] and a
// [Symmetric] of the arc's ends about the line from its center to P.
func (s *System) Tie(c Constraint) error {
	for _, p := range c.params(nil) {
		if p < 0 || int(p) >= len(s.x) {
			return fmt.Errorf("tie (%s): no parameter %d", c.Kind(), p)
		}
	}
	if f, ok := c.(configured); ok {
		c = f.resolve(s.x)
	}
	s.addEntry(entry{c: c, internal: true})
	return nil
}

// Len is how many parameters s has.
func (s *System) Len() int { return len(s.x) }

// Value is the value of p.
func (s *System) Value(p Param) float64 { return s.x[p] }

// PointAt is the coordinates of p.
func (s *System) PointAt(p Point) (x, y float64) { return s.x[p.X], s.x[p.Y] }

// SetValue sets p to v (an edit of the geometry, or a fixed parameter's
// new place): its group is solved again at the next [System.Solve].
func (s *System) SetValue(p Param, v float64) {
	s.x[p] = v
	s.dirty[p] = true
	for _, e := range s.readers[p] {
		s.entries[e].dirty = true
	}
}

// Fix makes p a constant (true) or an unknown again (false).
func (s *System) Fix(p Param, fixed bool) {
	if s.fixed[p] == fixed {
		return
	}
	s.fixed[p] = fixed
	s.SetValue(p, s.x[p])
	s.stale = true
}

// Fixed reports whether p is a constant.
func (s *System) Fixed(p Param) bool { return s.fixed[p] }

// Add adds the constraint c under id. A [Fixed] without values takes
// the current ones; a tangency left at [SideAuto] takes the side nearest
// the current geometry. It fails when id is taken or c reads a
// parameter s does not have.
func (s *System) Add(id ID, c Constraint) error {
	if _, ok := s.byID[id]; ok {
		return fmt.Errorf("constraint %d: already added", id)
	}
	ps := c.params(nil)
	for _, p := range ps {
		if p < 0 || int(p) >= len(s.x) {
			return fmt.Errorf("constraint %d (%s): no parameter %d", id, c.Kind(), p)
		}
	}
	switch f := c.(type) {
	case Fixed:
		if f.Values == nil {
			f.Values = make([]float64, len(f.Params))
			for k, p := range f.Params {
				f.Values[k] = s.x[p]
			}
		} else if len(f.Values) != len(f.Params) {
			return fmt.Errorf("constraint %d (fixed): %d values for %d parameters", id, len(f.Values), len(f.Params))
		}
		f.Params = slices.Clone(f.Params)
		c = f
	case configured:
		c = f.resolve(s.x)
	}
	s.byID[id] = s.addEntry(entry{id: id, c: c})
	return nil
}

func (s *System) addEntry(e entry) int {
	e.ps = e.c.params(nil)
	e.dirty = true
	s.entries = append(s.entries, e)
	s.groupOfEntry = append(s.groupOfEntry, -1)
	k := int32(len(s.entries) - 1)
	for _, p := range e.ps {
		if r := s.readers[p]; len(r) == 0 || r[len(r)-1] != k {
			s.readers[p] = append(r, k)
		}
	}
	s.stale = true
	return int(k)
}

// Remove removes the constraint id; its group is solved again at the
// next [System.Solve]. It reports whether there was one.
func (s *System) Remove(id ID) bool {
	k, ok := s.byID[id]
	if !ok {
		return false
	}
	delete(s.byID, id)
	e := &s.entries[k]
	e.removed = true
	for _, p := range e.ps {
		s.dirty[p] = true
		s.readers[p] = slices.DeleteFunc(s.readers[p], func(r int32) bool { return r == int32(k) })
	}
	s.stale = true
	return true
}

// Constraint is the constraint id as the system holds it (with the
// values and sides [System.Add] chose), and whether there is one.
func (s *System) Constraint(id ID) (Constraint, bool) {
	k, ok := s.byID[id]
	if !ok {
		return nil, false
	}
	return s.entries[k].c, true
}

// SetConstraintValue changes the value of a dimensional constraint (a
// driving dimension); its group is solved again at the next
// [System.Solve].
func (s *System) SetConstraintValue(id ID, v float64) error {
	k, ok := s.byID[id]
	if !ok {
		return fmt.Errorf("constraint %d: none", id)
	}
	e := &s.entries[k]
	c, ok := e.c.(valued)
	if !ok {
		return fmt.Errorf("constraint %d (%s): has no value", id, e.c.Kind())
	}
	e.c = c.withValue(v)
	e.dirty = true
	return nil
}

// Clone returns an independent copy of s.
func (s *System) Clone() *System {
	c := *s
	c.x = slices.Clone(s.x)
	c.kind = slices.Clone(s.kind)
	c.fixed = slices.Clone(s.fixed)
	c.dirty = slices.Clone(s.dirty)
	c.entries = slices.Clone(s.entries)
	c.byID = make(map[ID]int, len(s.byID))
	for id, k := range s.byID {
		c.byID[id] = k
	}
	c.groups = slices.Clone(s.groups) // groups are never changed in place
	c.groupOfEntry = slices.Clone(s.groupOfEntry)
	c.groupOfParam = slices.Clone(s.groupOfParam)
	c.readers = make([][]int32, len(s.readers))
	for p, r := range s.readers {
		c.readers[p] = slices.Clone(r)
	}
	return &c
}
