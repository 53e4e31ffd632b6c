package drawing

import (
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// TestLayoutsTable checks the layout table's life as a record: made,
// changed and removed through a Tx, each step in the content hash,
// undone by UndoTo and by a diff's Revert and Reapply, and stored and
// restored with its handle.
func TestLayoutsTable(t *testing.T) {
	d := NewDocument("doc", "d", enginev1.Units_UNITS_MM, time.Unix(0, 0))
	empty := d.ContentHash()

	tx := NewTx(d, 4)
	tx.SetLayouts(d.Layouts().With(-1, Layout{Name: "Sheet", Paper: "A3", Width: 420, Height: 297}))
	h := d.Layouts().Handle
	if l, ok := d.Layout("sheet"); !ok || l.Width != 420 || h == 0 {
		t.Fatalf("Layout(sheet) = %+v, %v (handle %d)", l, ok, h)
	}
	one := d.ContentHash()
	if one == empty {
		t.Fatal("a layout does not change the content hash")
	}
	tx.SetLayouts(d.Layouts().With(-1, Layout{Name: "Detail", Width: 100, Height: 50}))
	if d.Layouts().Handle != h || d.Layouts().Index("DETAIL") != 1 {
		t.Fatalf("second layout: table %+v, want handle %d and Detail at 1", d.Layouts(), h)
	}
	two := d.ContentHash()
	if c := tx.Since(0); len(c) != 2 || !stored(c[0], h) {
		t.Fatalf("changes %+v, want two of the table %d", c, h)
	}
	df := d.DiffOf(tx.Since(0))

	// Stored and restored, it reads back the same.
	records := map[uint64][]byte{}
	d.EachStored(func(h uint64, data []byte) { records[h] = data })
	back := EmptyDocument("doc", "d", enginev1.Units_UNITS_MM, time.Unix(0, 0))
	back.SetLayer("0", &Layer{Name: "0", Color: 7, Linetype: "Continuous", Lineweight: -3, On: true})
	back.SetCurrent("0")
	if err := back.Restore(records); err != nil {
		t.Fatal(err)
	}
	if back.ContentHash() != two || back.Layouts().Handle != h || len(back.Layouts().List) != 2 {
		t.Errorf("restored: hash %v (want %v), table %+v", back.ContentHash(), two, back.Layouts())
	}

	tx.UndoTo(1)
	if d.ContentHash() != one || d.Layouts().Index("Detail") >= 0 {
		t.Errorf("UndoTo(1): hash %v want %v, table %+v", d.ContentHash(), one, d.Layouts())
	}
	tx.UndoTo(0)
	if d.ContentHash() != empty || d.Layouts() != nil {
		t.Errorf("UndoTo(0): hash %v want %v, table %+v", d.ContentHash(), empty, d.Layouts())
	}
	if _, ok := d.AppendEncoded(nil, h); ok {
		t.Error("the table's record is still there after undoing its creation")
	}
	if _, _, ok := NewTx(d, 1).Reapply(df); !ok || d.ContentHash() != two || d.Layouts().Handle != h {
		t.Errorf("Reapply = %v: hash %v want %v", ok, d.ContentHash(), two)
	}
	if _, _, ok := NewTx(d, 1).Revert(df); !ok || d.ContentHash() != empty || d.Layouts() != nil {
		t.Errorf("Revert = %v: hash %v want %v", ok, d.ContentHash(), empty)
	}

	bad := (&Layouts{List: []Layout{{Name: "X"}}}).Encode()
	if _, err := decodeLayouts(1, bad); err == nil {
		t.Error("a layout without paper decodes")
	}
}

func stored(c Change, h uint64) bool {
	got, ok := c.Stored()
	return ok && got == h
}
