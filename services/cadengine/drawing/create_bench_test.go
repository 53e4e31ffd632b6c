package drawing

import (
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// BenchmarkCreateLines is the drawing's part of a 100-step batch of
// entity_create_line: 100 creates in one Tx (handle, fingerprint, the
// document's indexes, the undo log), then the encoding of each for the
// commit. A document takes 100 batches (10k entities), then a new one
// starts, as in the engine's BenchmarkCoreRows/batch_step.
func BenchmarkCreateLines(b *testing.B) {
	var d *Document
	buf := make([]byte, 0, 64*100)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if n%100 == 0 {
			d = NewDocument("doc-bench", "bench", enginev1.Units_UNITS_MM, time.Time{})
		}
		n++
		t := NewTx(d, 100)
		for i := range 100 {
			x := float64(i)
			if _, err := t.Create(&Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: Line{geom.Pt(x, 0), geom.Pt(x+1, 1)}}); err != nil {
				b.Fatal(err)
			}
		}
		buf = buf[:0]
		for _, c := range t.Since(0) {
			buf, _ = d.AppendEncoded(buf, c.Handle)
		}
	}
}
