package solve

import (
	"cmp"
	"slices"
)

// group is one independent part of a system: constraints that share
// free parameters, directly or through others, and those parameters. A
// group is never changed once made (a [System.Clone] shares it); a
// solve makes a new one.
type group struct {
	entries []int32 // in diagnosis order: an arc's own equations first, then by id
	params  []Param // the free parameters the entries read, ascending
	rows    int

	// The answer of its last solve.
	dof         int
	satisfied   bool
	redundant   []ID
	conflicting []ID
}

// regroup splits the live constraints into groups: the connected
// components of the graph whose nodes are the constraints and the free
// parameters they read. A group none of whose constraints and
// parameters changed since the last solve keeps its answer.
func (s *System) regroup() {
	n := len(s.x)
	sets := newUnionFind(n)
	find := sets.find
	for k := range s.entries {
		e := &s.entries[k]
		if e.removed {
			continue
		}
		first := int32(-1)
		for _, p := range e.ps {
			if s.fixed[p] {
				continue
			}
			if first < 0 {
				first = find(int32(p))
			} else {
				first = sets.union(first, int32(p))
			}
		}
	}
	old := s.groups
	oldOfEntry := s.groupOfEntry
	s.groups = nil
	s.groupOfEntry = make([]int32, len(s.entries))
	groupOfRoot := make([]int32, n)
	for p := range groupOfRoot {
		groupOfRoot[p] = -1
		s.groupOfParam[p] = -1
	}
	for k := range s.entries {
		s.groupOfEntry[k] = -1
		e := &s.entries[k]
		if e.removed {
			continue
		}
		root := int32(-1)
		for _, p := range e.ps {
			if !s.fixed[p] {
				root = find(int32(p))
				break
			}
		}
		var gi int32
		switch {
		case root < 0: // reads constants only: a group of its own
			gi = int32(len(s.groups))
			s.groups = append(s.groups, &group{})
		case groupOfRoot[root] < 0:
			gi = int32(len(s.groups))
			groupOfRoot[root] = gi
			s.groups = append(s.groups, &group{})
		default:
			gi = groupOfRoot[root]
		}
		g := s.groups[gi]
		g.entries = append(g.entries, int32(k))
		g.rows += e.c.rows()
		s.groupOfEntry[k] = gi
	}
	for p := range n {
		if s.fixed[p] {
			continue
		}
		if gi := groupOfRoot[find(int32(p))]; gi >= 0 {
			s.groups[gi].params = append(s.groups[gi].params, Param(p))
			s.groupOfParam[p] = gi
		}
	}
	for gi, g := range s.groups {
		slices.SortStableFunc(g.entries, func(a, b int32) int {
			ea, eb := &s.entries[a], &s.entries[b]
			if ea.internal != eb.internal {
				if ea.internal {
					return -1
				}
				return 1
			}
			if ea.internal {
				return cmp.Compare(a, b)
			}
			return cmp.Compare(ea.id, eb.id)
		})
		// An unchanged group is one of the old ones, whole.
		if s.groupDirty(g) {
			continue
		}
		if o := oldOfEntry[g.entries[0]]; o >= 0 && int(o) < len(old) {
			s.groups[gi] = old[o]
		}
	}
	s.stale = false
}

// groupDirty reports whether a constraint or a parameter of g changed
// since the last solve (or g has not been solved).
func (s *System) groupDirty(g *group) bool {
	for _, k := range g.entries {
		if s.entries[k].dirty {
			return true
		}
	}
	for _, p := range g.params {
		if s.dirty[p] {
			return true
		}
	}
	return false
}

// unionFind is a partition of 0…n-1 into sets, each named by its root:
// its lowest member, so that the roots do not depend on the order of the
// unions.
type unionFind []int32

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for i := range u {
		u[i] = int32(i)
	}
	return u
}

// find is the root of x's set.
func (u unionFind) find(x int32) int32 {
	for u[x] != x {
		u[x] = u[u[x]]
		x = u[x]
	}
	return x
}

// union joins the sets of a and b and returns the root of the union.
func (u unionFind) union(a, b int32) int32 {
	ra, rb := u.find(a), u.find(b)
	lo, hi := min(ra, rb), max(ra, rb)
	u[hi] = lo
	return lo
}
