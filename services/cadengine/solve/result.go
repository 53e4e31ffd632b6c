package solve

import (
	"context"
	"math"
	"slices"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Status is the state of a sketch after a solve (DESIGN §14).
type Status int8

const (
	// Solved: every constraint holds and nothing can move (dof 0).
	Solved Status = iota + 1
	// UnderConstrained: every constraint holds and the sketch can still
	// move ([Result.DOF] ways).
	UnderConstrained
	// OverConstrained: some constraints cannot all hold
	// ([Result.Conflicting]); their groups are left as they were.
	OverConstrained
)

// String is the status as the wire spells it.
func (s Status) String() string {
	switch s {
	case Solved:
		return "solved"
	case UnderConstrained:
		return "under_constrained"
	case OverConstrained:
		return "over_constrained"
	}
	return "unknown"
}

// Result is the answer of [System.Solve] for the whole system: the
// groups solved by the call and the last answers of the others.
type Result struct {
	Status Status
	// DOF is the degrees of freedom left: free parameters minus the
	// rank of the constraints' Jacobian, summed over the groups, plus
	// the free parameters no constraint reads.
	DOF int
	// Conflicting is, for each over-constrained group, a smallest set of
	// constraints that cannot all hold, ids ascending.
	Conflicting []ID
	// Redundant are the constraints that hold but add no equation the
	// constraints of lower id did not already give (a rectangle with
	// four perpendiculars and a horizontal and a vertical has one), ids
	// ascending. They do not make a sketch over-constrained.
	Redundant []ID
	// Groups is how many independent groups there are; Resolved how
	// many of them this call solved.
	Groups, Resolved int

	moved []bool // by Param
}

// Moved reports whether any of ps changed by more than the tolerance of
// its figure in this solve. For an entity, pass its primitive's Params.
func (r *Result) Moved(ps ...Param) bool {
	for _, p := range ps {
		if int(p) < len(r.moved) && r.moved[p] {
			return true
		}
	}
	return false
}

// Params is p's x and y.
func (p Point) Params() []Param { return []Param{p.X, p.Y} }

// Params is l's four coordinates.
func (l Line) Params() []Param { return []Param{l.A.X, l.A.Y, l.B.X, l.B.Y} }

// Params is c's center and radius.
func (c Circle) Params() []Param { return []Param{c.Center.X, c.Center.Y, c.R} }

// Params is a's center, radius and ends.
func (a Arc) Params() []Param {
	return append(a.Circle.Params(), a.Start.X, a.Start.Y, a.End.X, a.End.Y)
}

// Solve solves every group that changed since the last solve and
// returns the state of the whole system. It stops, with the context's
// error, when ctx is done; groups solved by then keep their answers.
func (s *System) Solve(ctx context.Context) (Result, error) {
	if s.stale {
		s.regroup()
	}
	res := Result{Groups: len(s.groups), moved: make([]bool, len(s.x))}
	w := &work{col: make([]int32, len(s.x))}
	for p := range w.col {
		w.col[p] = -1
	}
	for gi, g := range s.groups {
		if !s.groupDirty(g) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
		ng, err := s.solveGroup(ctx, w, g, res.moved)
		if err != nil {
			return res, err
		}
		s.groups[gi] = ng
		res.Resolved++
		for _, k := range g.entries {
			s.entries[k].dirty = false
		}
		for _, p := range g.params {
			s.dirty[p] = false
		}
	}
	for p := range s.x {
		if !s.fixed[p] && s.groupOfParam[p] < 0 {
			res.DOF++ // read by no constraint
		}
		s.dirty[p] = false
	}
	over := false
	for _, g := range s.groups {
		res.DOF += g.dof
		res.Redundant = append(res.Redundant, g.redundant...)
		res.Conflicting = append(res.Conflicting, g.conflicting...)
		over = over || !g.satisfied
	}
	slices.Sort(res.Redundant)
	slices.Sort(res.Conflicting)
	switch {
	case over:
		res.Status = OverConstrained
	case res.DOF > 0:
		res.Status = UnderConstrained
	default:
		res.Status = Solved
	}
	return res, nil
}

// solveGroup solves g and returns it with its new answer, marking the
// parameters it moved.
func (s *System) solveGroup(ctx context.Context, w *work, g *group, moved []bool) (*group, error) {
	for c, p := range g.params {
		w.col[p] = int32(c)
	}
	defer func() {
		for _, p := range g.params {
			w.col[p] = -1
		}
	}()
	x0 := make([]float64, len(g.params))
	for c, p := range g.params {
		x0[c] = s.x[p]
	}
	ng := &group{entries: g.entries, params: g.params, rows: g.rows}
	sc := s.measure(g.entries)
	pr := s.problem(w, g.entries, g.params, sc)
	ok, err := pr.solve(ctx)
	if err != nil {
		s.restore(g.params, x0)
		return nil, err
	}
	ng.satisfied = ok
	if !ok {
		ng.conflicting, err = s.conflicting(ctx, w, g, x0, sc)
		s.restore(g.params, x0)
		if err != nil {
			return nil, err
		}
	}
	ng.dof, ng.redundant = s.rankOf(w, g, sc)
	_, held := pr.tolerances()
	for c, p := range g.params {
		if math.Abs(s.x[p]-x0[c]) > math.Max(held, geom.RoundingFloor(x0[c])) {
			moved[p] = true
		}
	}
	return ng, nil
}

func (s *System) restore(ps []Param, x0 []float64) {
	for c, p := range ps {
		s.x[p] = x0[c]
	}
}
