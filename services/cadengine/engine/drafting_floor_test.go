package engine

import (
	"context"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// BenchmarkDraftingFloor is the least work cadbench's drafting-batch row
// allows, side by side: the entity writes each side's batch makes, in
// the drawing model and committed, with no call, decode or geometry
// around them. The line side makes 100 lines; the drafting side, per
// cell of 5 steps, replaces 4 entities and makes 11 (a fillet's two
// trimmed lines and its arc, a trimmed line, an extended line, 5 polar
// and 5 rectangular copies of a circle), 20 cells for 100 steps. Its
// ratio bounds how close the row can come to the create batch.
func BenchmarkDraftingFloor(b *testing.B) {
	ctx := context.Background()
	fixture := func() (*drawing.Document, []*drawing.Entity) {
		d := drawing.NewDocument("doc-0123456789abcdef", "", enginev1.Units_UNITS_MM, time.Now())
		tx := drawing.NewTx(d, 160)
		var es []*drawing.Entity
		for k := range 20 {
			x := float64(k * 100)
			for i := range 8 {
				e, err := tx.Create(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer",
					Geom: drawing.Line{A: geom.Pt(x+float64(i), 0), B: geom.Pt(x+float64(i), 10)}})
				if err != nil {
					b.Fatal(err)
				}
				es = append(es, e)
			}
		}
		return d, es
	}
	commit := func(d *drawing.Document, tx *drawing.Tx) {
		if err := memory.New().Commit(ctx, commitOf(d, tx.Since(0))); err != nil {
			b.Fatal(err)
		}
	}
	line := func(x float64) *drawing.Entity {
		return &drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: drawing.Line{A: geom.Pt(x, 1), B: geom.Pt(x+1, 2)}}
	}
	b.Run("lines", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			d, _ := fixture()
			b.StartTimer()
			tx := drawing.NewTx(d, 100)
			for i := range 100 {
				if _, err := tx.Create(line(float64(i))); err != nil {
					b.Fatal(err)
				}
			}
			commit(d, tx)
		}
	})
	b.Run("drafting", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			d, es := fixture()
			b.StartTimer()
			tx := drawing.NewTx(d, 300)
			for k := range 20 {
				cell := es[k*8:]
				for _, e := range cell[:4] { // fillet's two lines, the trimmed and the extended line
					if err := tx.Replace(e, e.With(drawing.Line{A: geom.Pt(0, 0), B: geom.Pt(1, 1)})); err != nil {
						b.Fatal(err)
					}
				}
				for i := range 11 { // the fillet arc and ten copies
					if _, err := tx.Create(line(float64(k*100 + i))); err != nil {
						b.Fatal(err)
					}
				}
			}
			commit(d, tx)
		}
	})
}
