package drawing

import (
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// TestSettingsAndLinetypesFromNone: a write that gives a document without
// settings or a linetype table both makes records the store keeps under
// new handles; its diff reverts to none (the units back, the records
// gone, the hash as before) and reapplies; the stored forms read back.
func TestSettingsAndLinetypesFromNone(t *testing.T) {
	d := NewDocument("doc", "d", enginev1.Units_UNITS_MM, time.Unix(0, 0))
	start := d.ContentHash()

	tx := NewTx(d, 4)
	s := DefaultSettings(enginev1.Units_UNITS_IN)
	s.Precision, s.DimScale = 2, 48
	tx.SetSettings(&s)
	tx.SetLinetypes(NewLinetypes(0.5, nil).WithLinetype(StandardLinetypes[1]))
	var stored []uint64
	for _, c := range tx.Since(0) {
		if h, ok := c.Stored(); ok {
			stored = append(stored, h)
		}
	}
	if len(stored) != 2 || stored[0] == 0 || stored[0] == stored[1] || d.Units != enginev1.Units_UNITS_IN {
		t.Fatalf("stored handles %v, units %v; want two new handles and inches", stored, d.Units)
	}
	end := d.ContentHash()
	if end == start {
		t.Fatal("settings and a linetype table left the content hash as it was")
	}

	records := map[uint64][]byte{}
	d.EachStored(func(h uint64, data []byte) { records[h] = data })
	back := EmptyDocument("doc", "d", enginev1.Units_UNITS_MM, time.Unix(0, 0))
	back.SetLayer("0", &Layer{Name: "0", Color: 7, Linetype: "Continuous", Lineweight: -3, On: true})
	back.SetCurrent("0")
	if err := back.Restore(records); err != nil {
		t.Fatal(err)
	}
	if back.ContentHash() != end || back.Units != enginev1.Units_UNITS_IN || back.Settings() != d.Settings() || back.LinetypeScale() != 0.5 {
		t.Errorf("restored: hash %v units %v settings %+v; want %v, in, %+v", back.ContentHash(), back.Units, back.Settings(), end, d.Settings())
	}
	if _, err := decodeSettings(1, records[stored[0]][:5]); err == nil {
		t.Error("truncated settings decoded")
	}

	df := d.DiffOf(tx.Since(0))
	if _, what, ok := NewTx(d, 4).Revert(df); !ok {
		t.Fatalf("Revert refused: %s", what)
	}
	if d.ContentHash() != start || d.Units != enginev1.Units_UNITS_MM || d.OwnSettings() != nil || d.Linetypes() != nil {
		t.Errorf("reverted: hash %v units %v; want %v, mm, no settings, no table", d.ContentHash(), d.Units, start)
	}
	for _, h := range stored {
		if _, ok := d.AppendEncoded(nil, h); ok {
			t.Errorf("record %s still there after the revert", FormatHandle(h))
		}
	}
	if _, what, ok := NewTx(d, 4).Reapply(df); !ok || d.ContentHash() != end || d.Units != enginev1.Units_UNITS_IN {
		t.Errorf("Reapply = %v (%s): hash %v, units %v; want %v, in", ok, what, d.ContentHash(), d.Units, end)
	}

	// A write undone in its own log (a failed call) leaves no trace.
	again := NewTx(d, 2)
	m := DefaultSettings(enginev1.Units_UNITS_M)
	again.SetSettings(&m)
	again.SetLinetypes(d.Linetypes().WithScale(3))
	again.UndoTo(0)
	if d.ContentHash() != end || d.Units != enginev1.Units_UNITS_IN || d.LinetypeScale() != 0.5 {
		t.Errorf("after UndoTo: hash %v, units %v, scale %v; want %v, in, 0.5", d.ContentHash(), d.Units, d.LinetypeScale(), end)
	}
}
