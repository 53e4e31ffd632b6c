package drawing

import (
	"slices"
	"testing"
)

// TestEntityTable: entities put across pages are found under their
// handles, a replaced one once; deleted ones are gone, a page left empty
// goes with its last entity, one put into again holds what it is given,
// each visits them in handle order from any handle, and a clone keeps
// its entities when the table changes.
func TestEntityTable(t *testing.T) {
	var es entityTable
	if es.get(0x100) != nil || es.len() != 0 {
		t.Fatal("an empty table holds something")
	}
	made := map[uint64]*Entity{}
	handles := []uint64{0x100, 1 << 62, 0x1ff, 0x200, 0x101, 0}
	for _, h := range handles {
		made[h] = &Entity{Handle: h}
		es.put(h, made[h])
	}
	made[0x101] = &Entity{Handle: 0x101, Layer: "again"}
	es.put(0x101, made[0x101]) // replaced
	snap := es.clone()
	es.delete(0x200) // its page empties
	delete(made, 0x200)
	made[0x2ff] = &Entity{Handle: 0x2ff}
	es.put(0x2ff, made[0x2ff]) // the page again
	es.delete(0x300)           // none there
	es.delete(0)               // its page empties too
	delete(made, 0)
	for _, h := range []uint64{0, 0x100, 0x101, 0x1ff, 0x200, 0x2ff, 0x300, 1 << 62, 1<<62 + 1} {
		if got, want := es.get(h), made[h]; got != want {
			t.Errorf("get(%#x) = %v, want %v", h, got, want)
		}
	}
	if es.len() != len(made) || len(es.pages) != 3 {
		t.Errorf("%d entities in %d pages, want %d in 3", es.len(), len(es.pages), len(made))
	}
	if snap.len() != 6 || snap.get(0x200) == nil || snap.get(0) == nil || snap.get(0x2ff) != nil || snap.get(0x101).Layer != "again" {
		t.Errorf("the clone changed with the table: %d entities", snap.len())
	}
	if got := handlesOf(&es, 0); !slices.Equal(got, []uint64{0x100, 0x101, 0x1ff, 0x2ff, 1 << 62}) {
		t.Errorf("each(0) visits %#x", got)
	}
	for _, tt := range []struct {
		from uint64
		want []uint64
	}{
		{0x101, []uint64{0x101, 0x1ff, 0x2ff, 1 << 62}},
		{0x102, []uint64{0x1ff, 0x2ff, 1 << 62}},
		{0x200, []uint64{0x2ff, 1 << 62}},
		{0x300, []uint64{1 << 62}},
		{1<<62 + 1, nil},
	} {
		if got := handlesOf(&es, tt.from); !slices.Equal(got, tt.want) {
			t.Errorf("each(%#x) visits %#x, want %#x", tt.from, got, tt.want)
		}
	}
	es.put(0x50, &Entity{Handle: 0x50}) // a page before every other
	es.put(0x3000, &Entity{Handle: 0x3000})
	if got := handlesOf(&es, 0); !slices.Equal(got, []uint64{0x50, 0x100, 0x101, 0x1ff, 0x2ff, 0x3000, 1 << 62}) {
		t.Errorf("each(0) after pages put between visits %#x", got)
	}
	var first []uint64
	es.each(0, func(e *Entity) bool { first = append(first, e.Handle); return len(first) < 2 })
	if !slices.Equal(first, []uint64{0x50, 0x100}) {
		t.Errorf("each stopped after %#x, want 0x50 0x100", first)
	}
	if got := handlesOf(&snap, 0); !slices.Equal(got, []uint64{0, 0x100, 0x101, 0x1ff, 0x200, 1 << 62}) {
		t.Errorf("the clone's each visits %#x", got)
	}
}

// handlesOf is the handles each(from) visits, in order.
func handlesOf(es *entityTable, from uint64) []uint64 {
	var out []uint64
	es.each(from, func(e *Entity) bool { out = append(out, e.Handle); return true })
	return out
}
