package drawing

import (
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// TestDiffRevertReapply checks a diff of several writes (an entity made,
// one changed, one removed, a layer made current) against the document's
// own states: reverting it gives back the content hash from before,
// reapplying the one from after, and either refuses, changing nothing,
// once something it touched has moved.
func TestDiffRevertReapply(t *testing.T) {
	d := NewDocument("doc", "d", enginev1.Units_UNITS_MM, time.Unix(0, 0))
	setup := NewTx(d, 8)
	line, _ := setup.Create(&Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: Line{geom.Pt(0, 0), geom.Pt(1, 0)}})
	circle, _ := setup.Create(&Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: Circle{C: geom.Pt(0, 0), R: 1}})
	start := d.ContentHash()

	tx := NewTx(d, 8)
	tx.PutLayer(&Layer{Name: "A", Color: 1, Linetype: "Continuous", Lineweight: -3, On: true})
	tx.SetCurrent("A")
	made, _ := tx.Create(&Entity{Layer: "A", Color: 256, Linetype: "ByLayer", Geom: Point{geom.Pt(5, 5)}})
	if err := tx.Replace(line, line.With(Line{geom.Pt(0, 0), geom.Pt(2, 0)})); err != nil {
		t.Fatal(err)
	}
	if err := tx.Remove(circle); err != nil {
		t.Fatal(err)
	}
	df := d.DiffOf(tx.Since(0))
	end := d.ContentHash()
	if df.Size() != 5 {
		t.Errorf("diff size = %d, want 5 (3 entities, a layer, the current layer)", df.Size())
	}

	undo := NewTx(d, 8)
	eff, _, ok := undo.Revert(df)
	if !ok || d.ContentHash() != start || d.CurrentLayer() != "0" || d.Layer("A") != nil {
		t.Fatalf("Revert = %v: hash %v (want %v), current %q", ok, d.ContentHash(), start, d.CurrentLayer())
	}
	if len(eff.Restored) != 1 || eff.Restored[0] != circle.Handle || len(eff.Removed) != 1 || eff.Removed[0] != made.Handle || len(eff.Changed) != 1 {
		t.Errorf("Revert effect = %+v", eff)
	}
	// The revert is in the undo log like any write.
	undo.UndoTo(0)
	if d.ContentHash() != end {
		t.Errorf("undoing the revert: hash %v, want %v", d.ContentHash(), end)
	}
	undo = NewTx(d, 8)
	undo.Revert(df)

	// Something the diff touched moves: neither direction applies.
	mover := NewTx(d, 1)
	mover.Replace(d.Entity(line.Handle), d.Entity(line.Handle).With(Line{geom.Pt(0, 0), geom.Pt(3, 0)}))
	moved := d.ContentHash()
	if _, what, ok := NewTx(d, 8).Reapply(df); ok || what != "entity "+FormatHandle(line.Handle) {
		t.Errorf("Reapply after a move = %v, %q; want false naming the line", ok, what)
	}
	if d.ContentHash() != moved {
		t.Errorf("a refused Reapply changed the document")
	}
	mover.UndoTo(0)
	if _, _, ok := NewTx(d, 8).Reapply(df); !ok || d.ContentHash() != end {
		t.Errorf("Reapply = %v: hash %v, want %v", ok, d.ContentHash(), end)
	}
}

// TestDiffThen checks that two diffs in a row make the diff of both.
func TestDiffThen(t *testing.T) {
	d := NewDocument("doc", "d", enginev1.Units_UNITS_MM, time.Unix(0, 0))
	start := d.ContentHash()
	tx := NewTx(d, 8)
	e, _ := tx.Create(&Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: Point{geom.Pt(1, 1)}})
	first := d.DiffOf(tx.Since(0))
	mark := tx.Mark()
	tx.Replace(e, e.With(Point{geom.Pt(2, 2)}))
	tx.SetCurrent("0")
	both := first.Then(d.DiffOf(tx.Since(mark)))
	end := d.ContentHash()
	if _, _, ok := NewTx(d, 4).Revert(both); !ok || d.ContentHash() != start || d.Entity(e.Handle) != nil {
		t.Fatalf("Revert of both = %v, hash %v; want %v and no entity", ok, d.ContentHash(), start)
	}
	if _, _, ok := NewTx(d, 4).Reapply(both); !ok || d.ContentHash() != end {
		t.Errorf("Reapply of both = %v, hash %v; want %v", ok, d.ContentHash(), end)
	}
}

// TestDiffOfCreates: a diff of creations only holds each entity as the
// document has it, and reverting it removes them.
func TestDiffOfCreates(t *testing.T) {
	d := NewDocument("doc", "d", enginev1.Units_UNITS_MM, time.Unix(0, 0))
	start := d.ContentHash()
	tx := NewTx(d, 8)
	var made []*Entity
	for i := range 3 {
		e, err := tx.Create(&Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: Point{geom.Pt(float64(i), 1)}})
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, e)
		if i == 1 {
			tx.PutLayer(&Layer{Name: "A", Color: 1, Linetype: "Continuous", Lineweight: -3, On: true})
		}
	}
	df := d.DiffOf(tx.Since(0))
	states := df.states()
	if len(states) != len(made) || df.Size() != len(made)+1 {
		t.Fatalf("diff of 3 creations and a layer: %d entity states, size %d", len(states), df.Size())
	}
	for i, s := range states {
		if s.h != made[i].Handle || s.s[0] != nil || s.s[1] != d.Entity(made[i].Handle) || s.s[1] == nil {
			t.Errorf("state %d = handle %d, %p → %p; want %d, nil → the document's %p", i, s.h, s.s[0], s.s[1], made[i].Handle, d.Entity(made[i].Handle))
		}
	}
	if _, _, ok := NewTx(d, 8).Revert(df); !ok || d.ContentHash() != start {
		t.Errorf("Revert = %v, hash %v; want %v", ok, d.ContentHash(), start)
	}
}
