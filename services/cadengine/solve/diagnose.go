package solve

import (
	"context"
	"slices"
)

// rankOf is the degrees of freedom of g at the current values (its free
// parameters minus the rank of its Jacobian) and its redundant
// constraints: those with a row in the span of the rows before it, in
// diagnosis order (see [rowBasis]). The rank is the number of rows that
// are not.
func (s *System) rankOf(w *work, g *group) (int, []ID) {
	n := len(g.params)
	pr := s.problem(w, g.entries, g.params)
	pr.eval(make([]float64, pr.rows), true)
	basis := rowBasis{n: n, q: make([]float64, 0, n*min(n, pr.rows))}
	var redundant []ID
	v := make([]float64, n)
	row := int32(0)
	for ei, k := range g.entries {
		e := &s.entries[k]
		ts := w.j.terms[w.j.spans[ei]:w.j.spans[ei+1]]
		dependent := false
		for range e.c.rows() {
			clear(v)
			for _, t := range ts {
				if t.row == row {
					v[t.col] += t.v
				}
			}
			if !basis.add(v) {
				dependent = true
			}
			row++
		}
		if dependent && !e.internal {
			redundant = append(redundant, e.id)
		}
	}
	return n - basis.k, redundant
}

// conflicting is a smallest set of g's constraints that cannot all hold,
// found from the parameters x0 (see the package doc): the shortest
// prefix, in diagnosis order, that cannot hold ends in a constraint of
// the set; then every constraint before it without which the rest still
// cannot hold is dropped, from the highest id down. An arc's own
// equations are always kept and never named.
func (s *System) conflicting(ctx context.Context, w *work, g *group, x0 []float64) ([]ID, error) {
	fails := func(entries []int32) (bool, error) {
		s.restore(g.params, x0)
		ok, err := s.problem(w, entries, g.params).solve(ctx)
		return !ok, err
	}
	order := g.entries
	internal := 0
	for internal < len(order) && s.entries[order[internal]].internal {
		internal++
	}
	// order[:hi] cannot hold; order[:lo] can (assumed for an arc's own
	// equations alone).
	lo, hi := internal, len(order)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		bad, err := fails(order[:mid])
		if err != nil {
			return nil, err
		}
		if bad {
			hi = mid
		} else {
			lo = mid
		}
	}
	last := order[hi-1]
	if s.entries[last].internal {
		return nil, nil // an arc that cannot be: nothing to name
	}
	kept := slices.Clone(order[internal : hi-1])
	trial := make([]int32, 0, hi)
	for i := len(kept) - 1; i >= 0; i-- {
		trial = append(trial[:0], order[:internal]...)
		trial = append(trial, kept[:i]...)
		trial = append(trial, kept[i+1:]...)
		trial = append(trial, last)
		bad, err := fails(trial)
		if err != nil {
			return nil, err
		}
		if bad {
			kept = slices.Delete(kept, i, i+1)
		}
	}
	ids := make([]ID, 0, len(kept)+1)
	for _, k := range kept {
		ids = append(ids, s.entries[k].id)
	}
	ids = append(ids, s.entries[last].id)
	slices.Sort(ids)
	return ids, nil
}
