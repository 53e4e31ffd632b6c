package memory

import (
	"maps"
	"slices"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// pageBits is the base-2 logarithm of the number of handles in a page of
// entities.
const pageBits = 8

// entities are a document's stored records (entities and blocks) by
// handle, in pages of 1<<pageBits consecutive handles. Handles come from
// one counter per document, so pages fill up, and a put costs a map
// operation per page rather than per record: with a map by handle, its
// growth was most of what a commit of new entities cost the store.
type entities struct {
	pages map[uint64]*entityPage // by handle >> pageBits
	n     int                    // records held
	// last is the page of the last put, under key lastKey: a commit puts
	// runs of consecutive handles.
	last    *entityPage
	lastKey uint64
}

// entityPage holds the records of one page of handles; a nil record is
// none (Commit stores an empty record as an empty, non-nil slice).
type entityPage struct {
	recs [1 << pageBits][]byte
	n    int // records held
}

// put stores data, which must not be nil, under h.
func (es *entities) put(h uint64, data []byte) {
	p := es.last
	if p == nil || es.lastKey != h>>pageBits {
		if es.pages == nil {
			es.pages = map[uint64]*entityPage{}
		}
		if p = es.pages[h>>pageBits]; p == nil {
			p = &entityPage{}
			es.pages[h>>pageBits] = p
		}
		es.last, es.lastKey = p, h>>pageBits
	}
	r := &p.recs[h&(1<<pageBits-1)]
	if *r == nil {
		p.n++
		es.n++
	}
	*r = data
}

// delete removes the record under h, if any; a page left empty goes.
func (es *entities) delete(h uint64) {
	p := es.pages[h>>pageBits]
	if p == nil {
		return
	}
	r := &p.recs[h&(1<<pageBits-1)]
	if *r == nil {
		return
	}
	*r = nil
	p.n--
	es.n--
	if p.n == 0 {
		delete(es.pages, h>>pageBits)
		if es.last == p {
			es.last = nil
		}
	}
}

// records are copies of every record, in handle order.
func (es *entities) records() []store.EntityRecord {
	out := make([]store.EntityRecord, 0, es.n)
	for _, k := range slices.Sorted(maps.Keys(es.pages)) {
		for i, data := range es.pages[k].recs {
			if data != nil {
				out = append(out, store.EntityRecord{Handle: k<<pageBits | uint64(i), Data: slices.Clone(data)})
			}
		}
	}
	return out
}
