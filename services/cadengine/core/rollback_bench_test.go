package core

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// snapshot is a full copy of a document's drawing: what a system without an
// undo log saves before a batch and restores after a failure.
type snapshot struct {
	entities map[uint64]*entity
	order    []uint64
	perLayer map[string]int64
	layers   map[string]*layer
	hash     sum256
	revision int64
}

func takeSnapshot(d *document) snapshot {
	return snapshot{
		entities: maps.Clone(d.entities),
		order:    slices.Clone(d.order.hs),
		perLayer: maps.Clone(d.perLayer),
		layers:   maps.Clone(d.layers),
		hash:     d.hash,
		revision: d.revision,
	}
}

func (s snapshot) restore(d *document) {
	d.entities = maps.Clone(s.entities)
	d.order.hs = slices.Clone(s.order)
	d.order.dead = 0
	d.perLayer = maps.Clone(s.perLayer)
	d.layers = maps.Clone(s.layers)
	d.hash, d.revision = s.hash, s.revision
}

// BenchmarkRollbackVsSnapshot compares the two ways to take back 10
// changes on a document of 1M entities (100k with -short), alternating:
// the undo log (undo the 10 logged changes: O(changes)) and a full snapshot
// (copy the drawing before the changes and restore it after: O(document)).
// The 10 changes themselves are made, untimed, before either rollback. It
// reports snapshot/undo-log (the goal is ≥ 1000), and, for the whole
// picture, the end-to-end time of a real 10-step batch with on_error
// rollback whose 11th step fails.
func BenchmarkRollbackVsSnapshot(b *testing.B) {
	size := 1_000_000
	if testing.Short() {
		size = 100_000
	}
	ctx := context.Background()
	e, err := New(memory.New(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	info, err := e.CreateDocument(ctx, &enginev1.CreateDocumentRequest{})
	if err != nil {
		b.Fatal(err)
	}
	for made := 0; made < size; made += 100_000 {
		ents := make([]any, 100_000)
		for i := range ents {
			ents[i] = map[string]any{"type": "point", "x": float64(made + i), "y": 0}
		}
		args, _ := structpb.NewStruct(map[string]any{"entities": ents})
		resp, err := e.CallTool(ctx, Caller{Principal: "bench"}, &enginev1.CallToolRequest{DocumentId: &info.DocumentId, Tool: enginev1.ToolEntityBatchCreate, Args: args})
		if err != nil || !resp.GetOk() {
			b.Fatalf("entity_batch_create: %v %v", err, resp.GetError())
		}
	}
	d, err := e.doc(info.DocumentId)
	if err != nil {
		b.Fatal(err)
	}
	moves := func() []*enginev1.BatchStep {
		var steps []*enginev1.BatchStep
		for i := 0; i < 10; i++ {
			args, _ := structpb.NewStruct(map[string]any{"handle": fmt.Sprintf("%X", 0x100+i), "dx": 1, "dy": 0})
			steps = append(steps, &enginev1.BatchStep{Tool: enginev1.ToolEntityMove, Args: args})
		}
		return steps
	}
	change10 := func(t *tx) {
		for j := 0; j < 10; j++ {
			old := d.entities[uint64(0x100+j)]
			if err := t.replace(old, old.with(old.geom.transformed(geom.Translate(geom.Pt(1, 0))))); err != nil {
				b.Fatal(err)
			}
		}
	}
	var undoLog, full, batch time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d.mu.Lock()
		hash := d.hash
		t := newTx(d)
		mark := t.mark()
		change10(t)
		start := time.Now()
		t.undoTo(mark)
		undoLog += time.Since(start)
		if d.hash != hash {
			b.Fatal("undo log did not restore the content hash")
		}

		start = time.Now()
		snap := takeSnapshot(d)
		full += time.Since(start)
		change10(newTx(d))
		start = time.Now()
		snap.restore(d)
		full += time.Since(start)
		if d.hash != hash {
			b.Fatal("snapshot did not restore the content hash")
		}
		d.mu.Unlock()

		fail, _ := structpb.NewStruct(map[string]any{"handle": "FFFFFFF", "dx": 1, "dy": 0})
		req := &enginev1.ExecuteBatchRequest{DocumentId: info.DocumentId, OnError: enginev1.OnError_ON_ERROR_ROLLBACK.Enum(),
			Steps: append(moves(), &enginev1.BatchStep{Tool: enginev1.ToolEntityMove, Args: fail})}
		start = time.Now()
		resp, err := e.ExecuteBatch(ctx, Caller{Principal: "bench"}, req)
		batch += time.Since(start)
		if err != nil || resp.GetStatus() != enginev1.BatchStatus_BATCH_STATUS_ROLLED_BACK || !resp.GetAtomicity().GetVerified() {
			b.Fatalf("rollback batch: %v %v", err, resp.GetAtomicity())
		}
	}
	b.ReportMetric(float64(full)/float64(undoLog), "snapshot/undo-log")
	b.ReportMetric(float64(undoLog.Nanoseconds())/float64(b.N), "undo-log-ns/op")
	b.ReportMetric(float64(full.Nanoseconds())/float64(b.N), "snapshot-ns/op")
	b.ReportMetric(float64(batch.Nanoseconds())/float64(b.N), "rollback-batch-ns/op")
}
