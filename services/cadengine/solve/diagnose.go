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
func (s *System) rankOf(w *work, g *group, sc scale) (int, []ID) {
	n := len(g.params)
	pr := s.problem(w, g.entries, g.params, sc)
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
// found from the parameters x0: the shortest prefix, in diagnosis order,
// that cannot hold (a binary search) ends in a constraint of the set;
// among the constraints before it, QuickXplain (Junker, 2004) finds
// those without any one of which the set can hold, preferring lower ids,
// in about k·log(n/k) solves for k of n rather than one a constraint.
// An arc's own equations are always in and never named.
func (s *System) conflicting(ctx context.Context, w *work, g *group, x0 []float64, sc scale) ([]ID, error) {
	fails := func(entries []int32) (bool, error) {
		s.restore(g.params, x0)
		ok, err := s.holds(ctx, w, g, entries, sc)
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
	join := func(a, b []int32) []int32 { return append(slices.Clone(a), b...) }
	// qx is the part of c that, with b, cannot hold, given that b and
	// all of c cannot; grew says whether b grew since that was known
	// to hold (if not, b alone need not be tried).
	var qx func(b []int32, grew bool, c []int32) ([]int32, error)
	qx = func(b []int32, grew bool, c []int32) ([]int32, error) {
		if grew {
			if bad, err := fails(b); err != nil || bad {
				return nil, err
			}
		}
		if len(c) <= 1 {
			return c, nil
		}
		c1, c2 := c[:len(c)/2], c[len(c)/2:]
		d2, err := qx(join(b, c1), true, c2)
		if err != nil {
			return nil, err
		}
		d1, err := qx(join(b, d2), len(d2) > 0, c1)
		if err != nil {
			return nil, err
		}
		return join(d1, d2), nil
	}
	kept, err := qx(join(order[:internal], []int32{last}), true, order[internal:hi-1])
	if err != nil {
		return nil, err
	}
	ids := make([]ID, 0, len(kept)+1)
	for _, k := range kept {
		ids = append(ids, s.entries[k].id)
	}
	ids = append(ids, s.entries[last].id)
	slices.Sort(ids)
	return ids, nil
}

// holds solves entries, some of g's, from the current values and reports
// whether they all hold. Each connected part of them is solved on its
// own, as [System.Solve] would solve them alone: one part that cannot
// hold does not stop another from converging.
func (s *System) holds(ctx context.Context, w *work, g *group, entries []int32, sc scale) (bool, error) {
	n := len(g.params)
	sets := newUnionFind(n)
	find := sets.find
	root := func(k int32) int32 { // the root of entry k's columns, or -1
		r := int32(-1)
		for _, p := range s.entries[k].ps {
			c := w.col[p]
			if c < 0 {
				continue
			}
			if r < 0 {
				r = find(c)
			} else {
				r = sets.union(r, c)
			}
		}
		return r
	}
	for _, k := range entries {
		root(k)
	}
	// The parts in the order of their first entry (entries that read
	// no free parameter each a part of their own), with their entries
	// and their columns.
	var parts [][]int32
	partOfRoot := make([]int32, n)
	for c := range partOfRoot {
		partOfRoot[c] = -1
	}
	for _, k := range entries {
		switch r := root(k); {
		case r < 0:
			parts = append(parts, []int32{k})
		case partOfRoot[r] < 0:
			partOfRoot[r] = int32(len(parts))
			parts = append(parts, []int32{k})
		default:
			parts[partOfRoot[r]] = append(parts[partOfRoot[r]], k)
		}
	}
	params := make([][]Param, len(parts))
	for c, p := range g.params {
		if i := partOfRoot[find(int32(c))]; i >= 0 {
			params[i] = append(params[i], p)
		}
	}
	all := true
	for i, sub := range parts {
		// The part's own columns while it is solved, then the group's.
		for c, p := range params[i] {
			w.col[p] = int32(c)
		}
		ok, err := s.problem(w, sub, params[i], sc).solve(ctx)
		for _, p := range params[i] {
			c, _ := slices.BinarySearch(g.params, p)
			w.col[p] = int32(c)
		}
		if err != nil {
			return false, err
		}
		all = all && ok
	}
	return all, nil
}
