package solve_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
	"github.com/cadbridge/cadbridge/services/cadengine/solve"
)

// TestDegreesOfFreedom counts what under-constrained sketches can still
// do.
func TestDegreesOfFreedom(t *testing.T) {
	cases := []struct {
		name   string
		build  func(s *solve.System) []solve.Constraint
		dof    int
		status solve.Status
	}{
		{"a free line", func(s *solve.System) []solve.Constraint {
			s.Line(0, 0, 3, 4)
			return nil
		}, 4, solve.UnderConstrained},
		{"a horizontal line with a fixed start", func(s *solve.System) []solve.Constraint {
			l := s.Line(0, 0, 3, 4)
			fix(s, l.A.Params()...)
			return []solve.Constraint{solve.Horizontal{A: l.A, B: l.B}}
		}, 1, solve.UnderConstrained},
		{"a horizontal line with a fixed start and a length", func(s *solve.System) []solve.Constraint {
			l := s.Line(0, 0, 3, 4)
			return []solve.Constraint{solve.FixPoint(l.A), solve.Horizontal{A: l.A, B: l.B}, solve.Distance{A: l.A, B: l.B, Value: 5}}
		}, 0, solve.Solved},
		{"a circle of a given radius", func(s *solve.System) []solve.Constraint {
			c := s.Circle(1, 2, 3)
			return []solve.Constraint{solve.Radius{C: c, Value: 4}}
		}, 2, solve.UnderConstrained},
		{"a free arc", func(s *solve.System) []solve.Constraint {
			s.Arc(s.Point(0, 0), 5, s.Point(5, 0), s.Point(0, 5))
			return nil
		}, 5, solve.UnderConstrained},
		{"a rectangle with a fixed corner and no sizes", func(s *solve.System) []solve.Constraint {
			a, b, c, d := s.Line(0, 0, 4, 0.1), s.Line(4, 0, 4, 3), s.Line(4, 3, 0, 3), s.Line(0, 3, 0, 0)
			return []solve.Constraint{
				solve.Coincident{A: a.B, B: b.A}, solve.Coincident{A: b.B, B: c.A},
				solve.Coincident{A: c.B, B: d.A}, solve.Coincident{A: d.B, B: a.A},
				solve.Horizontal{A: a.A, B: a.B}, solve.Vertical{A: b.A, B: b.B},
				solve.Horizontal{A: c.A, B: c.B}, solve.Vertical{A: d.A, B: d.B},
				solve.FixPoint(a.A),
			}
		}, 2, solve.UnderConstrained},
		{"two lines with an angle, one fixed", func(s *solve.System) []solve.Constraint {
			l1, l2 := s.Line(0, 0, 10, 0), s.Line(0, 0, 5, 6)
			fix(s, l1.Params()...)
			return []solve.Constraint{solve.Coincident{A: l1.A, B: l2.A}, solve.Angle{L1: l1, L2: l2, Value: geom.Rad(45)}}
		}, 1, solve.UnderConstrained}, // its length
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := solve.New()
			for i, c := range tc.build(s) {
				mustAdd(t, s, solve.ID(i+1), c)
			}
			res := mustSolve(t, s)
			if res.DOF != tc.dof || res.Status != tc.status {
				t.Errorf("dof %d, status %v; want %d, %v", res.DOF, res.Status, tc.dof, tc.status)
			}
		})
	}
}

// rectangle adds a 4 × 3 rectangle drawn a little askew, its corners
// coincident (ids 1–4), and returns its sides.
func rectangle(t *testing.T, s *solve.System) [4]solve.Line {
	a, b, c, d := s.Line(0, 0, 4, 0.1), s.Line(4, 0, 4.2, 3), s.Line(4, 3, 0, 3), s.Line(0, 3, 0, 0)
	ls := [4]solve.Line{a, b, c, d}
	for i := range ls {
		mustAdd(t, s, solve.ID(i+1), solve.Coincident{A: ls[i].B, B: ls[(i+1)%4].A})
	}
	return ls
}

// TestRedundantButConsistent: a rectangle with four perpendiculars, a
// horizontal and a vertical is solved, and the fourth perpendicular and
// the vertical are named redundant.
func TestRedundantButConsistent(t *testing.T) {
	s := solve.New()
	ls := rectangle(t, s)
	for i := range ls {
		mustAdd(t, s, solve.ID(5+i), solve.Perpendicular{L1: ls[i], L2: ls[(i+1)%4]})
	}
	mustAdd(t, s, 9, solve.Horizontal{A: ls[0].A, B: ls[0].B})
	mustAdd(t, s, 10, solve.Vertical{A: ls[1].A, B: ls[1].B})
	mustAdd(t, s, 11, solve.FixPoint(ls[0].A))
	mustAdd(t, s, 12, solve.DistanceX{A: ls[0].A, B: ls[0].B, Value: 4})
	mustAdd(t, s, 13, solve.DistanceY{A: ls[1].A, B: ls[1].B, Value: 3})
	res := mustSolve(t, s)
	if res.Status != solve.Solved || res.DOF != 0 {
		t.Errorf("status %v, dof %d; want solved, 0", res.Status, res.DOF)
	}
	if want := []solve.ID{8, 10}; !slices.Equal(res.Redundant, want) {
		t.Errorf("redundant %v, want %v", res.Redundant, want)
	}
	if got := vec(s, ls[1].B); !got.Same(geom.Pt(4, 3)) {
		t.Errorf("far corner %v, want (4, 3)", got)
	}
}

// TestOverConstrained names the smallest set of constraints that cannot
// all hold, and leaves the geometry as it was.
func TestOverConstrained(t *testing.T) {
	t.Run("distance against its components", func(t *testing.T) {
		s := solve.New()
		p, q, r := s.Point(0, 0), s.Point(3, 4), s.Point(7, 7)
		mustAdd(t, s, 1, solve.FixPoint(p))
		mustAdd(t, s, 2, solve.Distance{A: p, B: q, Value: 5})
		mustAdd(t, s, 3, solve.Coincident{A: q, B: r}) // holds with the others
		mustAdd(t, s, 4, solve.DistanceX{A: p, B: q, Value: 3})
		mustAdd(t, s, 5, solve.DistanceY{A: p, B: q, Value: 4.5}) // each alone with 2 could hold
		checkConflict(t, s, []solve.ID{2, 4, 5})
	})
	t.Run("two places for one point", func(t *testing.T) {
		s := solve.New()
		p := s.Point(1, 1)
		mustAdd(t, s, 7, solve.Fixed{Params: p.Params(), Values: []float64{1, 2}})
		mustAdd(t, s, 3, solve.Fixed{Params: p.Params(), Values: []float64{3, 4}})
		checkConflict(t, s, []solve.ID{3, 7})
	})
	t.Run("a rectangle's diagonal", func(t *testing.T) {
		s := solve.New()
		ls := rectangle(t, s)
		mustAdd(t, s, 5, solve.Horizontal{A: ls[0].A, B: ls[0].B})
		mustAdd(t, s, 6, solve.Vertical{A: ls[1].A, B: ls[1].B})
		mustAdd(t, s, 7, solve.Horizontal{A: ls[2].A, B: ls[2].B})
		mustAdd(t, s, 8, solve.Vertical{A: ls[3].A, B: ls[3].B})
		mustAdd(t, s, 9, solve.FixPoint(ls[0].A))
		mustAdd(t, s, 10, solve.DistanceX{A: ls[0].A, B: ls[0].B, Value: 4})
		mustAdd(t, s, 11, solve.DistanceY{A: ls[1].A, B: ls[1].B, Value: 3})
		mustAdd(t, s, 12, solve.Distance{A: ls[0].A, B: ls[1].B, Value: 6}) // 5 by the sides
		// The diagonal runs from a's start to b's end: a's length and
		// direction, the corner a–b, b's length and direction. The
		// other sides, the fixed corner play no part.
		checkConflict(t, s, []solve.ID{1, 5, 6, 10, 11, 12})
	})
	t.Run("fixed parameters", func(t *testing.T) {
		s := solve.New()
		p, q := s.Point(0, 0), s.Point(3, 4)
		fix(s, p.Params()...)
		fix(s, q.Params()...)
		mustAdd(t, s, 1, solve.Distance{A: p, B: q, Value: 6})
		checkConflict(t, s, []solve.ID{1})
	})
}

func checkConflict(t *testing.T, s *solve.System, want []solve.ID) {
	t.Helper()
	before := make([]float64, s.Len())
	for p := range before {
		before[p] = s.Value(solve.Param(p))
	}
	res := mustSolve(t, s)
	if res.Status != solve.OverConstrained || !slices.Equal(res.Conflicting, want) {
		t.Errorf("status %v, conflicting %v; want over_constrained, %v", res.Status, res.Conflicting, want)
	}
	for p, v := range before {
		if got := s.Value(solve.Param(p)); math.Float64bits(got) != math.Float64bits(v) {
			t.Errorf("parameter %d = %v after an over-constrained solve, want %v (unchanged)", p, got, v)
		}
	}
	if res.Moved(allParams(s)...) {
		t.Errorf("Moved reports a change of an over-constrained sketch")
	}
}

func allParams(s *solve.System) []solve.Param {
	ps := make([]solve.Param, s.Len())
	for p := range ps {
		ps[p] = solve.Param(p)
	}
	return ps
}

// TestResolvesOnlyTheChangedGroup changes one part's driving width and
// checks that only its group is solved, that it alone moved, and that
// the width holds.
func TestResolvesOnlyTheChangedGroup(t *testing.T) {
	k := document(3, 0.01, 100)
	ctx := context.Background()
	first, err := k.s.Solve(ctx)
	if err != nil || first.Resolved != first.Groups {
		t.Fatalf("first solve: %d of %d groups, %v", first.Resolved, first.Groups, err)
	}
	id := k.widths[0] // the first rectangle's
	lines := solve.Line{A: solve.Point{X: 0, Y: 1}, B: solve.Point{X: 2, Y: 3}}
	if err := k.s.SetConstraintValue(id, 123); err != nil {
		t.Fatal(err)
	}
	res, err := k.s.Solve(ctx)
	if err != nil || res.Resolved != 1 || res.Status != solve.Solved {
		t.Fatalf("solve after a change: %d groups solved, %v, %v; want 1, solved", res.Resolved, res.Status, err)
	}
	if got := s0dx(k.s, lines); !geom.Eq(got, 123) {
		t.Errorf("width %v, want 123", got)
	}
	if !res.Moved(lines.B.X) || res.Moved(lines.A.Params()...) {
		t.Errorf("Moved: the far end %v (want true), the fixed start %v (want false)", res.Moved(lines.B.X), res.Moved(lines.A.Params()...))
	}
	// Nothing of the other parts (parameters 16 on) moved.
	if res.Moved(allParams(k.s)[16:]...) {
		t.Errorf("a part whose constraints did not change moved")
	}
	if again, _ := k.s.Solve(ctx); again.Resolved != 0 || again.DOF != 0 {
		t.Errorf("a solve with nothing changed solved %d groups (dof %d), want 0", again.Resolved, again.DOF)
	}
}

func s0dx(s *solve.System, l solve.Line) float64 { return s.Value(l.B.X) - s.Value(l.A.X) }

// TestConflictInABigGroup: in one group of 300 constraints, a second
// length for one segment conflicts with its first, and with nothing
// else.
func TestConflictInABigGroup(t *testing.T) {
	k := chain(4, 0, 100)
	// The 51st segment's length is constraint 3·50+1 (each segment adds
	// its length, then its coincidence and angle, the first its fix and
	// horizontal instead).
	first := solve.ID(151)
	c, _ := k.s.Constraint(first)
	d := c.(solve.Distance)
	d.Value += 1
	mustAdd(t, k.s, 1000, d)
	res := mustSolve(t, k.s)
	if want := []solve.ID{first, 1000}; res.Status != solve.OverConstrained || !slices.Equal(res.Conflicting, want) {
		t.Errorf("%v, conflicting %v; want over_constrained, %v", res.Status, res.Conflicting, want)
	}
}
