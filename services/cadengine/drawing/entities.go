package drawing

import (
	"slices"
	"sort"
)

// entityPageBits is the base-2 logarithm of the number of handles in a
// page of a document's entities.
const entityPageBits = 8

// entityTable is a document's entities by handle, in pages of
// 1<<entityPageBits consecutive handles. Handles come from one counter per
// document and are never reused, so pages fill up, and adding an entity
// costs a map operation per page rather than per entity: with a map by
// handle, its growth was most of what adding an entity cost the document.
// The pages are also kept in handle order, which is the order of each
// (and so of paging through the entities): a new page is almost always the
// last.
type entityTable struct {
	pages  map[uint64]*entityPage // by handle >> entityPageBits
	sorted []pageRef              // every page, ascending
	n      int                    // entities held
	// last is the page of the last put, under key lastKey: a write puts
	// runs of consecutive handles. Only put and delete change it, so that
	// readers sharing a document change nothing.
	last    *entityPage
	lastKey uint64
}

// entityPage holds the entities of one page of handles; nil is none.
type entityPage struct {
	es [1 << entityPageBits]*Entity
	n  int // entities held
}

// pageRef is a page under its key, handle >> entityPageBits.
type pageRef struct {
	key uint64
	p   *entityPage
}

// find is the index in sorted of the first page with key >= key.
func (t *entityTable) find(key uint64) int {
	return sort.Search(len(t.sorted), func(i int) bool { return t.sorted[i].key >= key })
}

// get is the entity under h, or nil.
func (t *entityTable) get(h uint64) *Entity {
	p := t.last
	if p == nil || t.lastKey != h>>entityPageBits {
		if p = t.pages[h>>entityPageBits]; p == nil {
			return nil
		}
	}
	return p.es[h&(1<<entityPageBits-1)]
}

// put stores e, which must not be nil, under h.
func (t *entityTable) put(h uint64, e *Entity) {
	p := t.last
	if p == nil || t.lastKey != h>>entityPageBits {
		if t.pages == nil {
			t.pages = map[uint64]*entityPage{}
		}
		if p = t.pages[h>>entityPageBits]; p == nil {
			p = &entityPage{}
			t.pages[h>>entityPageBits] = p
			ref := pageRef{h >> entityPageBits, p}
			if n := len(t.sorted); n == 0 || ref.key > t.sorted[n-1].key {
				t.sorted = append(t.sorted, ref)
			} else {
				t.sorted = slices.Insert(t.sorted, t.find(ref.key), ref)
			}
		}
		t.last, t.lastKey = p, h>>entityPageBits
	}
	s := &p.es[h&(1<<entityPageBits-1)]
	if *s == nil {
		p.n++
		t.n++
	}
	*s = e
}

// delete removes the entity under h, if any; a page left empty goes.
func (t *entityTable) delete(h uint64) {
	p := t.pages[h>>entityPageBits]
	if p == nil {
		return
	}
	s := &p.es[h&(1<<entityPageBits-1)]
	if *s == nil {
		return
	}
	*s = nil
	p.n--
	t.n--
	if p.n == 0 {
		delete(t.pages, h>>entityPageBits)
		i := t.find(h >> entityPageBits)
		t.sorted = slices.Delete(t.sorted, i, i+1)
		if t.last == p {
			t.last = nil
		}
	}
}

// each calls fn for every entity with handle >= from, in handle order,
// until fn returns false; fn must not change the table.
func (t *entityTable) each(from uint64, fn func(*Entity) bool) {
	first := from & (1<<entityPageBits - 1)
	for i := t.find(from >> entityPageBits); i < len(t.sorted); i++ {
		ref := t.sorted[i]
		j := uint64(0)
		if ref.key == from>>entityPageBits {
			j = first
		}
		for ; j < 1<<entityPageBits; j++ {
			if e := ref.p.es[j]; e != nil && !fn(e) {
				return
			}
		}
	}
}

// len is how many entities the table holds.
func (t *entityTable) len() int { return t.n }

// clone is a copy of the table that shares the entities, not the pages.
func (t *entityTable) clone() entityTable {
	c := entityTable{pages: make(map[uint64]*entityPage, len(t.pages)), sorted: make([]pageRef, len(t.sorted)), n: t.n}
	for i, ref := range t.sorted {
		cp := *ref.p
		c.pages[ref.key] = &cp
		c.sorted[i] = pageRef{ref.key, &cp}
	}
	return c
}
