package drawing

import "testing"

// TestEntityTable: entities put across pages are found under their
// handles, a replaced one once; deleted ones are gone, a page left empty
// goes with its last entity, one put into again holds what it is given,
// and a clone keeps its entities when the table changes.
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
}
