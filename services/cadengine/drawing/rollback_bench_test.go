package drawing

import (
	"maps"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
	"github.com/cadbridge/cadbridge/services/cadengine/pages"
)

// snapshot is a full copy of a document's drawing: what a system without an
// undo log saves before a batch and restores after a failure.
type snapshot struct {
	entities pages.Table[*Entity]
	perLayer map[string]int64 // the counts, not the document's pointers to them
	layers   map[string]*Layer
	hash     Hash
	revision int64
}

func takeSnapshot(d *Document) snapshot {
	return snapshot{
		entities: d.entities.Clone(),
		perLayer: countsOf(d.perLayer),
		layers:   maps.Clone(d.layers),
		hash:     d.sum,
		revision: d.Revision,
	}
}

// countsOf is a copy of the document's entity counts by layer.
func countsOf(perLayer map[string]*int64) map[string]int64 {
	out := make(map[string]int64, len(perLayer))
	for name, c := range perLayer {
		out[name] = *c
	}
	return out
}

func (s snapshot) restore(d *Document) {
	d.entities = s.entities.Clone()
	d.perLayer = map[string]*int64{}
	for name, n := range s.perLayer {
		d.perLayer[name] = new(n)
	}
	d.lastLayer, d.lastCount = "", nil
	d.layers = maps.Clone(s.layers)
	d.sum, d.Revision = s.hash, s.revision
}

// BenchmarkRollbackVsSnapshot compares the two ways to take back 10
// changes on a drawing of 1M entities (100k with -short), alternating: the
// undo log (undo the 10 logged changes: O(changes)) and a full snapshot
// (copy the drawing before the changes and restore it after: O(drawing)).
// The 10 changes themselves are made, untimed, before either rollback. It
// reports snapshot/undo-log (the goal is ≥ 1000). cadbench's rollback row
// measures the same through a real batch with on_error rollback.
func BenchmarkRollbackVsSnapshot(b *testing.B) {
	size := 1_000_000
	if testing.Short() {
		size = 100_000
	}
	d := NewDocument("doc-bench", "bench", enginev1.Units_UNITS_MM, time.Time{})
	fill := NewTx(d, 0)
	for i := range size {
		if _, err := fill.Create(&Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: Point{geom.Pt(float64(i), 0)}}); err != nil {
			b.Fatal(err)
		}
	}
	change10 := func(t *Tx) {
		for j := 0; j < 10; j++ {
			old := d.Entity(uint64(0x100 + j))
			if err := t.Replace(old, old.With(old.Geom.Transformed(geom.Translate(geom.Pt(1, 0))))); err != nil {
				b.Fatal(err)
			}
		}
	}
	var undoLog, full time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		hash := d.sum
		t := NewTx(d, 0)
		mark := t.Mark()
		change10(t)
		start := time.Now()
		t.UndoTo(mark)
		undoLog += time.Since(start)
		if d.sum != hash {
			b.Fatal("undo log did not restore the content hash")
		}

		start = time.Now()
		snap := takeSnapshot(d)
		full += time.Since(start)
		change10(NewTx(d, 0))
		start = time.Now()
		snap.restore(d)
		full += time.Since(start)
		if d.sum != hash {
			b.Fatal("snapshot did not restore the content hash")
		}
	}
	b.ReportMetric(float64(full)/float64(undoLog), "snapshot/undo-log")
	b.ReportMetric(float64(undoLog.Nanoseconds())/float64(b.N), "undo-log-ns/op")
	b.ReportMetric(float64(full.Nanoseconds())/float64(b.N), "snapshot-ns/op")
}
