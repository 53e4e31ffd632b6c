package solve_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
	"github.com/cadbridge/cadbridge/services/cadengine/solve"
)

// TestEdits follows a sketch through the edits an engine makes: a
// removed constraint frees what it held, a freed parameter joins the
// solve, a clone solves without touching the original.
func TestEdits(t *testing.T) {
	s := solve.New()
	l := s.Line(0, 0, 10, 1)
	mustAdd(t, s, 1, solve.FixPoint(l.A))
	mustAdd(t, s, 2, solve.Horizontal{A: l.A, B: l.B})
	mustAdd(t, s, 3, solve.Distance{A: l.A, B: l.B, Value: 20})
	if res := mustSolve(t, s); res.Status != solve.Solved || !vec(s, l.B).Same(geom.Pt(20, 0)) {
		t.Fatalf("status %v, end %v; want solved, (20, 0)", res.Status, vec(s, l.B))
	}

	// A dry run: the clone moves, the original does not.
	dry := s.Clone()
	if err := dry.SetConstraintValue(3, 30); err != nil {
		t.Fatal(err)
	}
	res := mustSolve(t, dry)
	if !res.Moved(l.B.Params()...) || !vec(dry, l.B).Same(geom.Pt(30, 0)) {
		t.Errorf("clone: moved %v, end %v; want true, (30, 0)", res.Moved(l.B.Params()...), vec(dry, l.B))
	}
	if !vec(s, l.B).Same(geom.Pt(20, 0)) {
		t.Errorf("original end %v after solving its clone, want (20, 0)", vec(s, l.B))
	}

	// Without its horizontal the line turns free: one more freedom.
	if !s.Remove(2) || s.Remove(2) {
		t.Fatal("Remove(2) twice: want true, then false")
	}
	if res := mustSolve(t, s); res.Status != solve.UnderConstrained || res.DOF != 1 || res.Resolved != 1 {
		t.Errorf("after removing the horizontal: %v, dof %d, %d groups solved; want under_constrained, 1, 1", res.Status, res.DOF, res.Resolved)
	}

	// Its end fixed too, the line has nothing left to move; a length
	// that does not fit is then a conflict of the length alone
	// with the two fixes.
	mustAdd(t, s, 4, solve.FixPoint(l.B))
	if res := mustSolve(t, s); res.Status != solve.Solved || res.DOF != 0 {
		t.Errorf("both ends fixed: %v, dof %d; want solved, 0", res.Status, res.DOF)
	}
	if err := s.SetConstraintValue(3, 25); err != nil {
		t.Fatal(err)
	}
	if res := mustSolve(t, s); res.Status != solve.OverConstrained || !slices.Equal(res.Conflicting, []solve.ID{1, 3, 4}) {
		t.Errorf("a length that does not fit: %v, conflicting %v; want over_constrained, [1 3 4]", res.Status, res.Conflicting)
	}

	// Fixing a parameter takes it out of the solve; freeing it puts
	// it back.
	s2 := solve.New()
	p := s2.Point(1, 1)
	s2.Fix(p.X, true)
	if res := mustSolve(t, s2); res.DOF != 1 {
		t.Errorf("a point with a fixed x: dof %d, want 1", res.DOF)
	}
	s2.Fix(p.X, false)
	if res := mustSolve(t, s2); res.DOF != 2 {
		t.Errorf("the x freed again: dof %d, want 2", res.DOF)
	}
}

func TestAddRefuses(t *testing.T) {
	s := solve.New()
	p := s.Point(0, 0)
	mustAdd(t, s, 1, solve.FixPoint(p))
	if err := s.Add(1, solve.Radius{C: solve.Circle{Center: p, R: 0}, Value: 1}); err == nil {
		t.Error("Add of a taken id: no error")
	}
	if err := s.Add(2, solve.Coincident{A: p, B: solve.Point{X: 5, Y: 6}}); err == nil {
		t.Error("Add reading a parameter the system does not have: no error")
	}
	if err := s.SetConstraintValue(1, 3); err == nil {
		t.Error("SetConstraintValue of a fixed: no error")
	}
}

// TestCircleInACorner puts a circle of a given radius tangent to two
// fixed lines (their infinite extensions): its center is where the
// bisector is that radius from both.
func TestCircleInACorner(t *testing.T) {
	s := solve.New()
	l1, l2 := s.Line(0, 0, 10, 0), s.Line(0, 0, 0, 10)
	fix(s, l1.Params()...)
	fix(s, l2.Params()...)
	c := s.Circle(2.5, 1.5, 1)
	mustAdd(t, s, 1, solve.TangentLine{L: l1, C: c})
	mustAdd(t, s, 2, solve.TangentLine{L: l2, C: c})
	mustAdd(t, s, 3, solve.Radius{C: c, Value: 2})
	res := mustSolve(t, s)
	if res.Status != solve.Solved || !vec(s, c.Center).Same(geom.Pt(2, 2)) {
		t.Errorf("status %v, center %v; want solved, (2, 2)", res.Status, vec(s, c.Center))
	}
	// The sides chosen from the start: left of the x axis, right of
	// the y axis drawn upwards.
	for id, want := range map[solve.ID]solve.Side{1: solve.SideLeft, 2: solve.SideRight} {
		if c, _ := s.Constraint(id); c.(solve.TangentLine).Side != want {
			t.Errorf("constraint %d: side %v, want %v", id, c.(solve.TangentLine).Side, want)
		}
	}
}

func TestSolveStopsWhenCancelled(t *testing.T) {
	k := document(5, 0.01, 100)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := k.s.Solve(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Solve with a cancelled context: %v, want %v", err, context.Canceled)
	}
	// What was not solved is solved by the next call.
	if res := mustSolve(t, k.s); res.Status != solve.Solved || res.Resolved != res.Groups {
		t.Errorf("then: %v, %d of %d groups solved; want solved, all", res.Status, res.Resolved, res.Groups)
	}
}

// TestTangentAtAFilletCorner shows why [solve.TangentAt] exists: an arc
// of radius 2 starting at the fixed end of a fixed line, tangent to it,
// has its center at (10, 2) and its end angle left (dof 1). Stated as
// [solve.TangentLine] plus the shared point, the tangency is a double
// root (its residual grows with the square of the error), so a residual
// within tolerance leaves the center only about its square root off, and
// whether the rank test counts the freedom it seems to leave is a matter
// of that error against the test's threshold.
func TestTangentAtAFilletCorner(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    func(l solve.Line, a solve.Arc) solve.Constraint
		size float64 // the figure size within whose tolerance the center is
		dof  int     // -1: the rank test sees the double root or not, by a hair
	}{
		{"at the shared point", func(l solve.Line, a solve.Arc) solve.Constraint { return solve.TangentAt{L: l, C: a.Circle, P: l.B} }, 1, 1},
		{"to the infinite line", func(l solve.Line, a solve.Arc) solve.Constraint { return solve.TangentLine{L: l, C: a.Circle} }, 1e5, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := solve.New()
			l := s.Line(0, 0, 10, 0)
			fix(s, l.Params()...)
			a := s.Arc(s.Point(10.3, 1.8), 2.1, s.Point(10, 0.1), s.Point(12.1, 2.2))
			mustAdd(t, s, 1, solve.Coincident{A: l.B, B: a.Start})
			mustAdd(t, s, 2, solve.Radius{C: a.Circle, Value: 2})
			mustAdd(t, s, 3, tc.c(l, a))
			res := mustSolve(t, s)
			if res.Status != solve.UnderConstrained || (tc.dof >= 0 && res.DOF != tc.dof) || !vec(s, a.Center).SameIn(geom.Pt(10, 2), tc.size) {
				t.Errorf("%v, dof %d, center %v; want under_constrained, %d, (10, 2) within %g", res.Status, res.DOF, vec(s, a.Center), tc.dof, tc.size*geom.Tolerance)
			}
		})
	}
}

// TestTie: a line's midpoint as a tied point, held where a constraint
// says, counted in the freedoms but never named.
func TestTie(t *testing.T) {
	s := solve.New()
	l := s.Line(0, 0, 10, 1)
	mid := s.Point(5, 0.5)
	if err := s.Tie(solve.Midpoint{P: mid, L: l}); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, s, 1, solve.Fixed{Params: mid.Params(), Values: []float64{6, 2}})
	mustAdd(t, s, 2, solve.Horizontal{A: l.A, B: l.B})
	res := mustSolve(t, s)
	// The line's 4 coordinates and the point's 2, less the tie's 2,
	// the fix's 2 and the horizontal's 1.
	if res.Status != solve.UnderConstrained || res.DOF != 1 {
		t.Errorf("%v, dof %d; want under_constrained, 1", res.Status, res.DOF)
	}
	if got := vec(s, l.A).Mid(vec(s, l.B)); !got.Same(geom.Pt(6, 2)) {
		t.Errorf("the line's middle %v, want (6, 2)", got)
	}
	// A second place for the middle conflicts with the first; the tie
	// is not named.
	mustAdd(t, s, 3, solve.DistanceY{A: l.A, B: mid, Value: 1})
	if res := mustSolve(t, s); res.Status != solve.OverConstrained || !slices.Equal(res.Conflicting, []solve.ID{2, 3}) {
		t.Errorf("%v, conflicting %v; want over_constrained, [2 3]", res.Status, res.Conflicting)
	}
}

// TestArcMidpoint: an arc's middle as the engine ties it (see
// [solve.System.Tie]), held at 60° with the start at 0°: the end goes to
// 120°.
func TestArcMidpoint(t *testing.T) {
	s := solve.New()
	c := s.Point(0, 0)
	a := s.Arc(c, 5, s.Point(5, 0), s.Point(0, 5))
	mid := s.Point(3.5, 3.5)
	for _, tie := range []solve.Constraint{
		solve.PointOnCircle{P: mid, C: a.Circle},
		solve.Symmetric{P: a.Start, Q: a.End, L: solve.Line{A: c, B: mid}},
	} {
		if err := s.Tie(tie); err != nil {
			t.Fatal(err)
		}
	}
	fix(s, a.Circle.Params()...)
	fix(s, a.Start.Params()...)
	sin, cos := math.Sincos(geom.Rad(60))
	mustAdd(t, s, 1, solve.Fixed{Params: mid.Params(), Values: []float64{5 * cos, 5 * sin}})
	res := mustSolve(t, s)
	sin, cos = math.Sincos(geom.Rad(120))
	if want := geom.Pt(5*cos, 5*sin); res.Status != solve.Solved || !vec(s, a.End).Same(want) {
		t.Errorf("%v (dof %d), end %v; want solved, %v", res.Status, res.DOF, vec(s, a.End), want)
	}
}

// TestIncrementalMatchesFresh edits a document of parts at random —
// driving values, removed and added constraints, fixed and freed
// parameters — and checks after each edit that the incremental solve
// (only the changed groups) answers what solving everything again
// answers.
func TestIncrementalMatchesFresh(t *testing.T) {
	k := document(9, 0.01, 300)
	rng := k.rng
	ctx := context.Background()
	mustSolve(t, k.s)
	removed := map[solve.ID]solve.Constraint{}
	for step := range 60 {
		id := solve.ID(1 + rng.IntN(int(k.next)))
		switch rng.IntN(4) {
		case 0:
			w := k.widths[rng.IntN(len(k.widths))]
			c, _ := k.s.Constraint(w)
			v := 0.0
			switch c := c.(type) {
			case solve.DistanceX:
				v = c.Value
			case solve.Distance:
				v = c.Value
			}
			if err := k.s.SetConstraintValue(w, v*(0.9+0.2*rng.Float64())); err != nil {
				t.Fatal(err)
			}
		case 1:
			if c, ok := k.s.Constraint(id); ok {
				removed[id] = c
				k.s.Remove(id)
			}
		case 2:
			if c, ok := removed[id]; ok {
				delete(removed, id)
				mustAdd(t, k.s, id, c)
			}
		case 3:
			p := solve.Param(rng.IntN(k.s.Len()))
			k.s.Fix(p, !k.s.Fixed(p))
		}
		got, err := k.s.Solve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		fresh := k.s.Clone()
		solve.Forget(fresh)
		want := mustSolve(t, fresh)
		if got.Status != want.Status || got.DOF != want.DOF || got.Groups != want.Groups ||
			!slices.Equal(got.Redundant, want.Redundant) || !slices.Equal(got.Conflicting, want.Conflicting) {
			t.Fatalf("step %d: incremental %v dof %d, %d groups, redundant %v, conflicting %v; afresh %v dof %d, %d groups, redundant %v, conflicting %v",
				step, got.Status, got.DOF, got.Groups, got.Redundant, got.Conflicting, want.Status, want.DOF, want.Groups, want.Redundant, want.Conflicting)
		}
		if got.Resolved > want.Resolved {
			t.Errorf("step %d: %d groups solved incrementally, more than all (%d)", step, got.Resolved, want.Resolved)
		}
	}
}
