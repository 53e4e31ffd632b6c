package drawing

import "slices"

// Bound is a geometry whose definition depends on other entities: a
// dimension bound to the entities it measures. Refs are the handles it
// depends on; Rebind computes it again from them (look finds an entity
// by handle, nil when it is gone): after they changed (placed false) it
// moves along with them; after it was itself moved or turned (placed
// true) its bound points go back to their entities and what is free of
// them — a dimension's line — stays where it was put.
//
// The document keeps the reverse index (which entities depend on a
// handle), updated by SetEntity like every other index. When an entity
// is replaced or removed through a Tx, every entity that depends on it is
// rebound and replaced in the same Tx, right after it (see Tx.follow):
// the undo log then holds both changes, so undoing restores both, the
// commit stores both, and the content hash — a sum of fingerprints —
// is the same whatever order the changes came in.
type Bound interface {
	Geometry
	Refs() []uint64
	Rebind(look func(uint64) *Entity, placed bool) Geometry
}

// index adds (delta 1) or removes (-1) the dependencies of e.
func (d *Document) index(e *Entity, delta int) {
	b, ok := e.Geom.(Bound)
	if !ok {
		return
	}
	for _, r := range b.Refs() {
		m := d.deps[r]
		if delta > 0 {
			if m == nil {
				m = map[uint64]struct{}{}
				d.deps[r] = m
			}
			m[e.Handle] = struct{}{}
			continue
		}
		delete(m, e.Handle)
		if len(m) == 0 {
			delete(d.deps, r)
		}
	}
}

// Dependents are the handles of the entities that depend on h, ascending.
func (d *Document) Dependents(h uint64) []uint64 {
	m := d.deps[h]
	if len(m) == 0 {
		return nil // most entities: nothing to sort
	}
	out := make([]uint64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// follow rebinds every entity that depends on h, each in a change of its
// own after h's. A dependent follows even on a locked layer: it is not
// written by the caller but derived from what the caller wrote (as
// AutoCAD updates associative dimensions on locked layers).
func (t *Tx) follow(h uint64) {
	for _, dh := range t.d.Dependents(h) {
		cur := t.d.Entity(dh)
		if cur == nil {
			continue
		}
		next := cur.With(cur.Geom.(Bound).Rebind(t.d.Entity, false))
		if next.fp != cur.fp {
			t.logEntity(dh, cur, next)
			// Entities bind only to older ones, so this ends.
			t.follow(dh)
		}
	}
}

// rebound is e with its bound points computed from the entities they are
// bound to, so that a bound entity always agrees with them.
func (t *Tx) rebound(e *Entity) *Entity {
	b, ok := e.Geom.(Bound)
	if !ok || len(b.Refs()) == 0 {
		return e
	}
	e.Geom = b.Rebind(t.d.Entity, true)
	return e.Seal()
}
