package drawing

// entityPageBits is the base-2 logarithm of the number of handles in a
// page of a document's entities.
const entityPageBits = 8

// entityTable is a document's entities by handle, in pages of
// 1<<entityPageBits consecutive handles. Handles come from one counter per
// document and are never reused, so pages fill up, and adding an entity
// costs a map operation per page rather than per entity: with a map by
// handle, its growth was most of what adding an entity cost the document.
type entityTable struct {
	pages map[uint64]*entityPage // by handle >> entityPageBits
	n     int                    // entities held
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
		if t.last == p {
			t.last = nil
		}
	}
}

// len is how many entities the table holds.
func (t *entityTable) len() int { return t.n }

// clone is a copy of the table that shares the entities, not the pages.
func (t *entityTable) clone() entityTable {
	c := entityTable{pages: make(map[uint64]*entityPage, len(t.pages)), n: t.n}
	for k, p := range t.pages {
		cp := *p
		c.pages[k] = &cp
	}
	return c
}
