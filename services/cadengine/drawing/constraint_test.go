package drawing

import (
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// TestConstraintsTable checks the constraint table's life as a record:
// made and changed through a Tx, each step in the content hash, undone by
// UndoTo and by a diff's Revert and Reapply, stored and restored with its
// handle and ids; and that an entity a constraint names cannot be
// removed.
func TestConstraintsTable(t *testing.T) {
	d := NewDocument("doc", "d", enginev1.Units_UNITS_MM, time.Unix(0, 0))
	tx := NewTx(d, 8)
	line, err := tx.Create(&Entity{Layer: "0", Color: 256, Geom: Line{geom.Pt(0, 0), geom.Pt(10, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	empty := d.ContentHash()
	mark := tx.Mark()

	t1, id1 := d.Constraints().With(Constraint{Kind: KindHorizontal, Refs: []Ref{{Handle: line.Handle}}})
	tx.SetConstraints(t1)
	h := d.Constraints().Handle
	if id1 != 1 || h == 0 || !d.Constrained(line.Handle) {
		t.Fatalf("first constraint: id %d, table handle %d, constrained %v", id1, h, d.Constrained(line.Handle))
	}
	one := d.ContentHash()
	if one == empty {
		t.Fatal("a constraint does not change the content hash")
	}
	t2, id2 := d.Constraints().With(Constraint{Kind: KindDistance, Refs: []Ref{{Handle: line.Handle, Point: "start"}, {Handle: line.Handle, Point: "end"}}, Value: 12.5})
	tx.SetConstraints(t2)
	if id2 != 2 || d.Constraints().Handle != h || d.Constraints().Index(2) != 1 {
		t.Fatalf("second constraint: id %d, table %+v", id2, d.Constraints())
	}
	two := d.ContentHash()
	if c := tx.Since(mark); len(c) != 2 || !stored(c[0], h) {
		t.Fatalf("changes %+v, want two of the table %d", c, h)
	}
	df := d.DiffOf(tx.Since(mark))

	if err := tx.Remove(line); err == nil || d.Entity(line.Handle) == nil {
		t.Fatalf("Remove of a constrained line = %v, want refused", err)
	}

	records := map[uint64][]byte{}
	d.EachStored(func(h uint64, data []byte) { records[h] = data })
	back := EmptyDocument("doc", "d", enginev1.Units_UNITS_MM, time.Unix(0, 0))
	back.SetLayer("0", &Layer{Name: "0", Color: 7, Linetype: "Continuous", Lineweight: -3, On: true})
	back.SetCurrent("0")
	if err := back.Restore(records); err != nil {
		t.Fatal(err)
	}
	if back.ContentHash() != two || back.Constraints().Handle != h || back.Constraints().Next != 3 || back.Constraints().List[1].Value != 12.5 || !back.Constrained(line.Handle) {
		t.Errorf("restored: hash %v (want %v), table %+v", back.ContentHash(), two, back.Constraints())
	}

	tx.UndoTo(mark + 1)
	if d.ContentHash() != one || d.Constraints().Index(2) >= 0 {
		t.Errorf("UndoTo: hash %v want %v, table %+v", d.ContentHash(), one, d.Constraints())
	}
	tx.UndoTo(mark)
	if d.ContentHash() != empty || d.Constraints() != nil || d.Constrained(line.Handle) {
		t.Errorf("UndoTo(mark): hash %v want %v, table %+v", d.ContentHash(), empty, d.Constraints())
	}
	if _, _, ok := NewTx(d, 1).Reapply(df); !ok || d.ContentHash() != two || d.Constraints().Handle != h {
		t.Errorf("Reapply = %v: hash %v want %v", ok, d.ContentHash(), two)
	}
	if _, _, ok := NewTx(d, 1).Revert(df); !ok || d.ContentHash() != empty || d.Constraints() != nil {
		t.Errorf("Revert = %v: hash %v want %v", ok, d.ContentHash(), empty)
	}
	d.SetConstraints(t2)
	if err := tx.Remove(line); err == nil {
		t.Fatal("Remove of a constrained line succeeded")
	}
	tx.SetConstraints(d.Constraints().Without(1, 2))
	if err := tx.Remove(line); err != nil {
		t.Fatalf("Remove after its constraints went: %v", err)
	}

	bad := (&Constraints{Next: 2, List: []Constraint{{ID: 1, Kind: "glued"}}}).Encode()
	if _, err := decodeConstraints(1, bad); err == nil {
		t.Error("a constraint of an unknown kind decodes")
	}
}
