package memory

import (
	"slices"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// TestEntities: records put across pages come back in handle order, a
// replaced record once, an empty one as empty; deleted ones are gone, a
// page left empty goes with its last record, and one put into again
// comes back.
func TestEntities(t *testing.T) {
	var es entities
	handles := []uint64{0x100, 1 << 62, 0x1ff, 0x200, 0x101, 0}
	for _, h := range handles {
		es.put(h, []byte{byte(h), 1})
	}
	es.put(0x101, []byte{2}) // replaced
	es.put(0x1ff, []byte{})  // empty
	es.put(0x200, []byte{3}) // again, its page the last put's
	es.delete(0x200)         // its page empties
	es.put(0x2ff, []byte{4}) // the page again
	es.delete(0x300)         // none there
	es.delete(0)             // its page empties too
	want := []store.EntityRecord{
		{Handle: 0x100, Data: []byte{0, 1}},
		{Handle: 0x101, Data: []byte{2}},
		{Handle: 0x1ff, Data: []byte{}},
		{Handle: 0x2ff, Data: []byte{4}},
		{Handle: 1 << 62, Data: []byte{0, 1}},
	}
	got := es.records()
	if !slices.EqualFunc(got, want, func(a, b store.EntityRecord) bool {
		return a.Handle == b.Handle && slices.Equal(a.Data, b.Data) && (a.Data == nil) == (b.Data == nil)
	}) {
		t.Errorf("records() = %v, want %v", got, want)
	}
	if es.n != len(want) || len(es.pages) != 3 {
		t.Errorf("records %d in %d pages, want %d in 3", es.n, len(es.pages), len(want))
	}
}
