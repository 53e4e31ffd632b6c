package solve

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRandomSystems adds random subsets of every kind over random
// geometry, solvable or not, and checks what any answer must be: no NaN,
// every constraint holding unless over-constrained, an over-constrained
// group left as it was with a conflicting set of constraints it has
// that indeed cannot hold together, and the same bits from the same
// inputs.
func TestRandomSystems(t *testing.T) {
	build := func(seed uint64) (*System, []ID) {
		rng := rand.New(rand.NewPCG(seed, 11))
		s := New()
		cs := everyKind(s, rng)
		rng.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
		var ids []ID
		for i, c := range cs[:1+rng.IntN(8)] {
			id := ID(100 - i) // ids not in the order of adding
			if err := s.Add(id, c); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return s, ids
	}
	for seed := range uint64(300) {
		s, ids := build(seed)
		before := slices.Clone(s.x)
		res, err := s.Solve(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for p, v := range s.x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("seed %d: parameter %d = %v", seed, p, v)
			}
		}
		switch res.Status {
		case OverConstrained:
			// Its conflicting group is left as it was (others may
			// have been solved).
			for _, id := range res.Conflicting {
				c, _ := s.Constraint(id)
				for _, p := range c.params(nil) {
					if s.x[p] != before[p] {
						t.Errorf("seed %d: over-constrained, yet parameter %d of %s (%d) changed", seed, p, c.Kind(), id)
					}
				}
			}
			if len(res.Conflicting) == 0 {
				t.Errorf("seed %d: over-constrained with no conflicting constraint", seed)
			}
			// The named set alone cannot hold.
			alone := New()
			alone.x, alone.fixed, alone.kind = slices.Clone(s.x), slices.Clone(s.fixed), slices.Clone(s.kind)
			alone.dirty = make([]bool, len(s.x))
			alone.readers = make([][]int32, len(s.x))
			alone.groupOfParam = make([]int32, len(s.x))
			for _, id := range res.Conflicting {
				if !slices.Contains(ids, id) {
					t.Fatalf("seed %d: conflicting %v names %d, not added", seed, res.Conflicting, id)
				}
				c, _ := s.Constraint(id)
				alone.addEntry(entry{id: id, c: c})
			}
			if r, _ := alone.Solve(context.Background()); r.Status != OverConstrained {
				t.Errorf("seed %d: conflicting %v solve alone: %v", seed, res.Conflicting, r.Status)
			}
		default:
			for _, id := range ids {
				c, _ := s.Constraint(id)
				r := make([]float64, c.rows())
				c.eval(s.x, r, &jac{size: 1})
				if maxAbs(r) > 1e-6 {
					t.Errorf("seed %d: %v, yet %s (%d) has residuals %v", seed, res.Status, c.Kind(), id, r)
				}
			}
		}
		again, _ := build(seed)
		if _, err := again.Solve(context.Background()); err != nil {
			t.Fatal(err)
		}
		for p := range s.x {
			if math.Float64bits(s.x[p]) != math.Float64bits(again.x[p]) {
				t.Fatalf("seed %d: parameter %d = %v, then %v", seed, p, s.x[p], again.x[p])
			}
		}
	}
}
