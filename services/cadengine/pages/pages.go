// Package pages keeps values by handle in pages of 256 consecutive
// handles. A document's handles come from one counter and are never
// reused, so its pages fill: a put costs a map operation per page rather
// than per value (with a map by handle, its growth was most of what
// adding an entity cost), and the pages, kept in handle order, list the
// values in that order. The drawing model keeps its entities in a Table,
// and the memory store its records.
package pages

import (
	"math/bits"
	"slices"
	"sort"
)

// pageBits is the base-2 logarithm of the number of handles in a page.
const pageBits = 8

// pageSize is the number of handles in a page.
const pageSize = 1 << pageBits

// Table holds values of type V by handle. The zero value is an empty
// table. Put and Delete change it; Get, Each and Len change nothing, so
// readers may share a Table while no one writes.
type Table[V any] struct {
	pages  map[uint64]*page[V] // by handle >> pageBits
	sorted []*page[V]          // every page, by key ascending
	n      int                 // values held
	// last is the page of the last Put: a write puts runs of consecutive
	// handles. Only Put and Delete change it.
	last *page[V]
}

// page holds the values of one page of handles.
type page[V any] struct {
	key  uint64 // its handles >> pageBits
	vals [pageSize]V
	used [pageSize / 64]uint64 // bit i of word i/64: vals[i] holds a value
	n    int                   // values held
}

func (p *page[V]) has(i uint64) bool { return p.used[i/64]&(1<<(i%64)) != 0 }

// Len is how many values the table holds.
func (t *Table[V]) Len() int { return t.n }

// Get is the value under h, and whether there is one.
func (t *Table[V]) Get(h uint64) (V, bool) {
	p := t.last
	if p == nil || p.key != h>>pageBits {
		if p = t.pages[h>>pageBits]; p == nil {
			var zero V
			return zero, false
		}
	}
	i := h & (pageSize - 1)
	return p.vals[i], p.has(i)
}

// Put stores v under h, replacing any value there.
func (t *Table[V]) Put(h uint64, v V) {
	p := t.last
	if p == nil || p.key != h>>pageBits {
		if p = t.pages[h>>pageBits]; p == nil {
			p = t.addPage(h >> pageBits)
		}
		t.last = p
	}
	i := h & (pageSize - 1)
	if !p.has(i) {
		p.used[i/64] |= 1 << (i % 64)
		p.n++
		t.n++
	}
	p.vals[i] = v
}

// addPage makes the page of key, in its place in sorted (almost always
// the end: handles grow).
func (t *Table[V]) addPage(key uint64) *page[V] {
	if t.pages == nil {
		t.pages = map[uint64]*page[V]{}
	}
	p := &page[V]{key: key}
	t.pages[key] = p
	if n := len(t.sorted); n == 0 || key > t.sorted[n-1].key {
		t.sorted = append(t.sorted, p)
	} else {
		t.sorted = slices.Insert(t.sorted, t.find(key), p)
	}
	return p
}

// Delete removes the value under h, if any; a page left empty goes.
func (t *Table[V]) Delete(h uint64) {
	p := t.pages[h>>pageBits]
	i := h & (pageSize - 1)
	if p == nil || !p.has(i) {
		return
	}
	var zero V
	p.vals[i] = zero // lets go of what it pointed to
	p.used[i/64] &^= 1 << (i % 64)
	p.n--
	t.n--
	if p.n == 0 {
		delete(t.pages, p.key)
		k := t.find(p.key)
		t.sorted = slices.Delete(t.sorted, k, k+1)
		if t.last == p {
			t.last = nil
		}
	}
}

// find is the index in sorted of the first page with a key >= key.
func (t *Table[V]) find(key uint64) int {
	return sort.Search(len(t.sorted), func(i int) bool { return t.sorted[i].key >= key })
}

// Each calls fn with every handle >= from and its value, in handle order,
// until fn returns false. fn must not change the table (collect, then
// change).
func (t *Table[V]) Each(from uint64, fn func(h uint64, v V) bool) {
	for k := t.find(from >> pageBits); k < len(t.sorted); k++ {
		p := t.sorted[k]
		for w, used := range p.used {
			if p.key == from>>pageBits {
				used &^= maskBelow(from&(pageSize-1), w)
			}
			for used != 0 {
				i := uint64(w*64 + bits.TrailingZeros64(used))
				used &= used - 1
				if !fn(p.key<<pageBits|i, p.vals[i]) {
					return
				}
			}
		}
	}
}

// maskBelow is the bits of word w of a page's used set that stand for
// the handles of the page below index first.
func maskBelow(first uint64, w int) uint64 {
	start := uint64(w * 64)
	switch {
	case first <= start:
		return 0
	case first >= start+64:
		return ^uint64(0)
	default:
		return 1<<(first-start) - 1
	}
}

// Clone is a copy of the table that shares the values (a shallow copy of
// each), not the pages.
func (t *Table[V]) Clone() Table[V] {
	c := Table[V]{pages: make(map[uint64]*page[V], len(t.pages)), sorted: make([]*page[V], len(t.sorted)), n: t.n}
	for k, p := range t.sorted {
		cp := *p
		c.pages[p.key] = &cp
		c.sorted[k] = &cp
	}
	return c
}
