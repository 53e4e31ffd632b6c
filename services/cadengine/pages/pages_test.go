package pages

import (
	"slices"
	"testing"
)

// TestTable: values put across pages are found under their handles, a
// replaced one once, an empty one as itself; deleted ones are gone, a
// page left empty goes with its last value, one put into again holds what
// it is given, Each visits them in handle order from any handle, and a
// clone keeps its values when the table changes.
func TestTable(t *testing.T) {
	var tb Table[[]byte]
	if _, ok := tb.Get(0x100); ok || tb.Len() != 0 {
		t.Fatal("an empty table holds something")
	}
	made := map[uint64][]byte{}
	for _, h := range []uint64{0x100, 1 << 62, 0x1ff, 0x200, 0x101, 0} {
		made[h] = []byte{byte(h), 1}
		tb.Put(h, made[h])
	}
	made[0x101] = []byte("again")
	tb.Put(0x101, made[0x101]) // replaced
	made[0x1ff] = []byte{}
	tb.Put(0x1ff, made[0x1ff]) // empty, and still there
	snap := tb.Clone()
	tb.Delete(0x200) // its page empties
	delete(made, 0x200)
	made[0x2ff] = []byte{4}
	tb.Put(0x2ff, made[0x2ff]) // the page again
	tb.Delete(0x300)           // none there
	tb.Delete(0)               // its page empties too
	delete(made, 0)
	for _, h := range []uint64{0, 0x100, 0x101, 0x1ff, 0x200, 0x2ff, 0x300, 1 << 62, 1<<62 + 1} {
		got, ok := tb.Get(h)
		want, wantOK := made[h]
		if ok != wantOK || string(got) != string(want) || (ok && got == nil) {
			t.Errorf("Get(%#x) = %q, %v, want %q, %v", h, got, ok, want, wantOK)
		}
	}
	if tb.Len() != len(made) || len(tb.pages) != 3 || len(tb.sorted) != 3 {
		t.Errorf("%d values in %d pages (%d sorted), want %d in 3", tb.Len(), len(tb.pages), len(tb.sorted), len(made))
	}
	if v, _ := snap.Get(0x101); snap.Len() != 6 || string(v) != "again" || !has(&snap, 0x200) || !has(&snap, 0) || has(&snap, 0x2ff) {
		t.Errorf("the clone changed with the table: %d values", snap.Len())
	}
	if got := handles(&tb, 0); !slices.Equal(got, []uint64{0x100, 0x101, 0x1ff, 0x2ff, 1 << 62}) {
		t.Errorf("Each(0) visits %#x", got)
	}
	for _, tt := range []struct {
		from uint64
		want []uint64
	}{
		{0x101, []uint64{0x101, 0x1ff, 0x2ff, 1 << 62}},
		{0x102, []uint64{0x1ff, 0x2ff, 1 << 62}},
		{0x140, []uint64{0x1ff, 0x2ff, 1 << 62}},
		{0x1ff, []uint64{0x1ff, 0x2ff, 1 << 62}},
		{0x200, []uint64{0x2ff, 1 << 62}},
		{0x300, []uint64{1 << 62}},
		{1<<62 + 1, nil},
	} {
		if got := handles(&tb, tt.from); !slices.Equal(got, tt.want) {
			t.Errorf("Each(%#x) visits %#x, want %#x", tt.from, got, tt.want)
		}
	}
	tb.Put(0x50, nil) // a page before every other; a nil value is a value
	tb.Put(0x3000, []byte{5})
	if got := handles(&tb, 0); !slices.Equal(got, []uint64{0x50, 0x100, 0x101, 0x1ff, 0x2ff, 0x3000, 1 << 62}) {
		t.Errorf("Each(0) after pages put between visits %#x", got)
	}
	var first []uint64
	tb.Each(0, func(h uint64, _ []byte) bool { first = append(first, h); return len(first) < 2 })
	if !slices.Equal(first, []uint64{0x50, 0x100}) {
		t.Errorf("Each stopped after %#x, want 0x50 0x100", first)
	}
	if got := handles(&snap, 0); !slices.Equal(got, []uint64{0, 0x100, 0x101, 0x1ff, 0x200, 1 << 62}) {
		t.Errorf("the clone's Each visits %#x", got)
	}
}

// TestTableFull: a page with every handle in it lists them all, and
// deleting every other one leaves the rest.
func TestTableFull(t *testing.T) {
	var tb Table[int]
	for h := range uint64(3 * pageSize) {
		tb.Put(h+pageSize/2, int(h))
	}
	for h := uint64(pageSize / 2); h < 3*pageSize+pageSize/2; h += 2 {
		tb.Delete(h)
	}
	var want []uint64
	for h := uint64(pageSize/2 + 1); h < 3*pageSize+pageSize/2; h += 2 {
		want = append(want, h)
	}
	if got := handles(&tb, 0); !slices.Equal(got, want) || tb.Len() != len(want) {
		t.Errorf("Each(0) visits %d handles (Len %d), want %d", len(got), tb.Len(), len(want))
	}
	if got := handles(&tb, pageSize+63); !slices.Equal(got, want[(pageSize+63-pageSize/2)/2:]) {
		t.Errorf("Each(%#x) visits from %#x, want from %#x", pageSize+63, got[0], want[(pageSize+63-pageSize/2)/2])
	}
}

func has[V any](tb *Table[V], h uint64) bool {
	_, ok := tb.Get(h)
	return ok
}

// handles are the handles Each(from) visits, in order.
func handles[V any](tb *Table[V], from uint64) []uint64 {
	var out []uint64
	tb.Each(from, func(h uint64, _ V) bool { out = append(out, h); return true })
	return out
}
