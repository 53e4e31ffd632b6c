package solve_test

import (
	"context"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/solve"
)

// BenchmarkSolve1000 solves a 1,000-constraint document from scratch:
// rectangles, triangles and rectangles with tangent arcs in their
// corners in turn (66 parts, 1,012 constraints), every parameter
// started 1% off.
func BenchmarkSolve1000(b *testing.B) {
	k := document(1, 0.01, 1000)
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		s := k.s.Clone()
		b.StartTimer()
		res, err := s.Solve(ctx)
		if err != nil || res.Status != solve.Solved {
			b.Fatalf("Solve = %v, %v; want solved", res.Status, err)
		}
	}
}

// BenchmarkResolveOneGroup changes one part's driving width in a
// solved 1,000-constraint document of independent parts and solves
// again: only that part's group is solved.
func BenchmarkResolveOneGroup(b *testing.B) {
	k := document(1, 0.01, 1000)
	ctx := context.Background()
	if _, err := k.s.Solve(ctx); err != nil {
		b.Fatal(err)
	}
	id := k.widths[len(k.widths)/2/3*3] // a rectangle's: its DistanceX
	c, _ := k.s.Constraint(id)
	w := c.(solve.DistanceX).Value
	i := 0
	for b.Loop() {
		i++
		if err := k.s.SetConstraintValue(id, w+float64(i%2)); err != nil {
			b.Fatal(err)
		}
		res, err := k.s.Solve(ctx)
		if err != nil || res.Status != solve.Solved || res.Resolved != 1 {
			b.Fatalf("Solve = %v (%d groups solved), %v; want solved, 1", res.Status, res.Resolved, err)
		}
	}
}

// BenchmarkSolveChain solves one chained sketch of 1,002 constraints
// in one group (a polyline of 334 segments with lengths and angles):
// what one big group costs. The steps factor within the envelope of
// JᵀJ (linear along a chain); the rank analysis, a Gram–Schmidt of the
// rows, is dense and dominates.
func BenchmarkSolveChain(b *testing.B) {
	k := chain(1, 0.01, chainSegments)
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		s := k.s.Clone()
		b.StartTimer()
		res, err := s.Solve(ctx)
		if err != nil || res.Status != solve.Solved {
			b.Fatalf("Solve = %v, %v; want solved", res.Status, err)
		}
	}
}

// chainSegments makes BenchmarkSolveChain's polyline 1,002 constraints.
const chainSegments = 334
