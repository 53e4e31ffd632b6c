package engine

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// BenchmarkHundredThousandLines makes 100k lines in an empty document on
// the memory store, three ways, side by side:
//
//   - floor: only what any way of making them must do, with no call around
//     it — each entity made in the drawing model (handle, fingerprint, the
//     document's map, the undo log), then the commit to the store (each
//     entity's encoding, the store's map);
//   - entity_batch_create: one call;
//   - batch_steps: 100 cad.batch of 1000 entity_create_line steps.
//
// No way of making them costs less than the floor, so batch_steps ÷ floor
// bounds how much faster than the steps entity_batch_create can ever be.
func BenchmarkHundredThousandLines(b *testing.B) {
	const n, perBatch = 100_000, 1000
	line := func(i int) (x1, y1, x2, y2 float64) {
		x, y := float64(i%1000), float64(i/1000)
		return x, y, x + 0.5, y + 0.5
	}
	ctx := context.Background()
	caller := Caller{Principal: "bench"}
	// each runs op b.N times, each on a fresh engine and document made
	// untimed (the floor needs neither: an empty document and store cost
	// next to nothing).
	each := func(b *testing.B, op func(b *testing.B, e *Engine, doc string)) {
		b.ReportAllocs()
		b.ResetTimer() // not the caller's setup
		for range b.N {
			b.StopTimer()
			e, err := New(memory.New(), Options{})
			if err != nil {
				b.Fatal(err)
			}
			info, err := e.CreateDocument(ctx, &enginev1.CreateDocumentRequest{})
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			op(b, e, info.DocumentId)
			b.StopTimer()
			e.Close()
			b.StartTimer()
		}
	}

	b.Run("floor", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			st := memory.New()
			d := drawing.NewDocument("doc-0123456789abcdef", "", enginev1.Units_UNITS_MM, time.Now())
			tx := drawing.NewTx(d, n)
			for i := range n {
				x1, y1, x2, y2 := line(i)
				e := &drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: drawing.Line{A: geom.Pt(x1, y1), B: geom.Pt(x2, y2)}}
				if _, err := tx.Create(e); err != nil {
					b.Fatal(err)
				}
			}
			if err := st.Commit(ctx, commitOf(d, tx.Since(0))); err != nil {
				b.Fatal(err)
			}
		}
	})

	b.Run("entity_batch_create", func(b *testing.B) {
		ents := make([]map[string]any, n)
		for i := range ents {
			x1, y1, x2, y2 := line(i)
			ents[i] = map[string]any{"type": "line", "x1": x1, "y1": y1, "x2": x2, "y2": y2}
		}
		args, err := json.Marshal(map[string]any{"entities": ents})
		if err != nil {
			b.Fatal(err)
		}
		each(b, func(b *testing.B, e *Engine, doc string) {
			req := &enginev1.CallToolRequest{Tool: enginev1.ToolEntityBatchCreate, DocumentId: &doc, ArgsJson: args}
			if resp, err := e.CallTool(ctx, caller, req); err != nil || !resp.GetOk() {
				b.Fatalf("entity_batch_create: %v %v", resp.GetError(), err)
			}
		})
	})

	b.Run("batch_steps", func(b *testing.B) {
		var batches []*enginev1.ExecuteBatchRequest
		for first := 0; first < n; first += perBatch {
			req := &enginev1.ExecuteBatchRequest{}
			for i := first; i < first+perBatch; i++ {
				x1, y1, x2, y2 := line(i)
				args, err := json.Marshal(map[string]float64{"x1": x1, "y1": y1, "x2": x2, "y2": y2})
				if err != nil {
					b.Fatal(err)
				}
				req.Steps = append(req.Steps, &enginev1.BatchStep{Tool: enginev1.ToolEntityCreateLine, ArgsJson: args})
			}
			batches = append(batches, req)
		}
		each(b, func(b *testing.B, e *Engine, doc string) {
			for _, req := range batches {
				req.DocumentId = doc
				if resp, err := e.ExecuteBatch(ctx, caller, req); err != nil || !resp.GetOk() {
					b.Fatalf("cad.batch: %v %v", resp.GetError(), err)
				}
			}
		})
	})
}
