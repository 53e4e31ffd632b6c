package solve_test

import (
	"math"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/solve"
)

// TestSolvesBackToKnownSolution builds random well-constrained parts
// (rectangles, triangles from two sides and an angle, rectangles with
// tangent arcs in their corners) from a known solution, starts every
// parameter off it by noise, and solves: each part must come back to
// its solution, fully constrained, with no redundancy; and a second
// solve of the same inputs must give the same bits.
func TestSolvesBackToKnownSolution(t *testing.T) {
	for seed := range uint64(20) {
		k := document(seed, 0.01, 200)
		if k.errs != nil {
			t.Fatal(k.errs)
		}
		again := document(seed, 0.01, 200)
		res := mustSolve(t, k.s)
		if res.Status != solve.Solved || res.DOF != 0 || len(res.Redundant) != 0 {
			t.Errorf("seed %d: status %v, dof %d, redundant %v, conflicting %v; want solved, 0, none", seed, res.Status, res.DOF, res.Redundant, res.Conflicting)
		}
		if res.Groups != len(k.widths) {
			t.Errorf("seed %d: %d groups, want one a part (%d)", seed, res.Groups, len(k.widths))
		}
		for p, want := range k.want {
			if got := k.s.Value(solve.Param(p)); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("seed %d: parameter %d = %.12g, want %.12g", seed, p, got, want)
			}
		}
		mustSolve(t, again.s)
		for p := range k.want {
			if a, b := k.s.Value(solve.Param(p)), again.s.Value(solve.Param(p)); math.Float64bits(a) != math.Float64bits(b) {
				t.Errorf("seed %d: parameter %d = %v, then %v: not the same bits", seed, p, a, b)
			}
		}
	}
}

// TestChainSolvesBack: one group of 300 constraints comes back to its
// known solution.
func TestChainSolvesBack(t *testing.T) {
	k := chain(2, 0.01, 100)
	res := mustSolve(t, k.s)
	if res.Status != solve.Solved || res.Groups != 1 || res.DOF != 0 {
		t.Errorf("status %v, %d groups, dof %d; want solved, 1, 0", res.Status, res.Groups, res.DOF)
	}
	for p, want := range k.want {
		if got := k.s.Value(solve.Param(p)); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("parameter %d = %.12g, want %.12g", p, got, want)
		}
	}
}
