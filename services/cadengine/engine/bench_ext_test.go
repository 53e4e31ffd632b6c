package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
	"github.com/cadbridge/cadbridge/services/cadengine/store/sqlite"
)

// benchStores opens each store kind for a benchmark.
func benchStores(b *testing.B) map[string]func() store.Store {
	return map[string]func() store.Store{
		"memory": func() store.Store { return memory.New() },
		"sqlite": func() store.Store {
			s, err := sqlite.Open(filepath.Join(b.TempDir(), "bench.db"))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		},
	}
}

func benchCall(b *testing.B, store store.Store, tool string, args []byte) {
	e, err := engine.New(store, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	info, err := e.CreateDocument(ctx, &enginev1.CreateDocumentRequest{})
	if err != nil {
		b.Fatal(err)
	}
	req := &enginev1.CallToolRequest{Tool: tool, DocumentId: &info.DocumentId, ArgsJson: args}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := e.CallTool(ctx, engine.Caller{Principal: "bench"}, req)
		if err != nil || !resp.Ok {
			b.Fatalf("%s: %v %v", tool, resp, err)
		}
	}
}

// BenchmarkCreateLine is one committed entity_create_line per iteration:
// the cost of a single write, dominated by the fsync with sqlite.
func BenchmarkCreateLine(b *testing.B) {
	args := mustJSON(obj{"x1": 0, "y1": 0, "x2": 10, "y2": 5, "color": 1})
	for _, kind := range []string{"memory", "sqlite"} {
		b.Run(kind, func(b *testing.B) { benchCall(b, benchStores(b)[kind](), enginev1.ToolEntityCreateLine, args) })
	}
}

// BenchmarkBatchCreate is one entity_batch_create of 1000 entities per
// iteration (one store transaction each).
func BenchmarkBatchCreate(b *testing.B) {
	args := mustJSON(batchOf(1000))
	for _, kind := range []string{"memory", "sqlite"} {
		b.Run(kind, func(b *testing.B) { benchCall(b, benchStores(b)[kind](), enginev1.ToolEntityBatchCreate, args) })
	}
}

// BenchmarkEntityGet is a read: schema check, decode, lookup, encode.
func BenchmarkEntityGet(b *testing.B) {
	args := mustJSON(obj{"handle": "100"})
	store := memory.New()
	e, _ := engine.New(store, engine.Options{})
	info, _ := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{})
	callTool(b, e, info.DocumentId, enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 1})
	e.Close()
	benchCallDoc(b, store, info.DocumentId, enginev1.ToolEntityGet, args)
}

func benchCallDoc(b *testing.B, store store.Store, doc, tool string, args []byte) {
	e, err := engine.New(store, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	req := &enginev1.CallToolRequest{Tool: tool, DocumentId: &doc, ArgsJson: args}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if resp, err := e.CallTool(context.Background(), engine.Caller{Principal: "bench"}, req); err != nil || !resp.Ok {
			b.Fatalf("%s: %v %v", tool, resp, err)
		}
	}
}

// Example shows a tool call and its result, as clients see it.
func Example() {
	ctx := context.Background()
	e, _ := engine.New(memory.New(), engine.Options{})
	defer e.Close()
	doc, _ := e.CreateDocument(ctx, &enginev1.CreateDocumentRequest{})

	resp, _ := e.CallTool(ctx, engine.Caller{Principal: "me"}, &enginev1.CallToolRequest{
		DocumentId: &doc.DocumentId, Tool: enginev1.ToolEntityCreateLine, ArgsJson: []byte(`{"x1":0,"y1":0,"x2":3,"y2":4}`),
	})
	fmt.Println(resp.Ok, resp.Revision, resultObj(resp.ResultJson)["handle"])

	resp, _ = e.CallTool(ctx, engine.Caller{Principal: "me"}, &enginev1.CallToolRequest{
		DocumentId: &doc.DocumentId, Tool: enginev1.ToolAnalysisMeasureEntity, ArgsJson: []byte(`{"handle":"100"}`),
	})
	fmt.Println(resultObj(resp.ResultJson)["length"])

	resp, _ = e.CallTool(ctx, engine.Caller{Principal: "me"}, &enginev1.CallToolRequest{
		DocumentId: &doc.DocumentId, Tool: enginev1.ToolEntityCreateCircle, ArgsJson: []byte(`{"cx":0,"cy":0,"radius":-1}`),
	})
	fmt.Println(resp.Ok, resp.Error.GetKind(), resp.Error.GetPath(), resp.Revision)
	// Output:
	// true 1 100
	// 5
	// false ERROR_KIND_INVALID_ARGS /radius 1
}

// BenchmarkHundredWrites compares one batch of 100 entity_create_line
// steps with 100 separate tools.call calls, per iteration, on each store:
// the batch commits once, the calls a hundred times.
func BenchmarkHundredWrites(b *testing.B) {
	line := func(i int) obj { return obj{"x1": float64(i), "y1": 0, "x2": float64(i) + 1, "y2": 1} }
	for _, kind := range []string{"memory", "sqlite"} {
		b.Run(kind+"/batch", func(b *testing.B) {
			e, doc := benchEngine(b, benchStores(b)[kind]())
			req := &enginev1.ExecuteBatchRequest{DocumentId: doc}
			for i := range 100 {
				args := mustJSON(line(i))
				req.Steps = append(req.Steps, &enginev1.BatchStep{Tool: enginev1.ToolEntityCreateLine, ArgsJson: args})
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				resp, err := e.ExecuteBatch(context.Background(), engine.Caller{Principal: "bench"}, req)
				if err != nil || !resp.Ok {
					b.Fatalf("batch: %v %v", resp.GetError(), err)
				}
			}
		})
		b.Run(kind+"/calls", func(b *testing.B) {
			e, doc := benchEngine(b, benchStores(b)[kind]())
			reqs := make([]*enginev1.CallToolRequest, 100)
			for i := range reqs {
				args := mustJSON(line(i))
				reqs[i] = &enginev1.CallToolRequest{Tool: enginev1.ToolEntityCreateLine, DocumentId: &doc, ArgsJson: args}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, req := range reqs {
					if resp, err := e.CallTool(context.Background(), engine.Caller{Principal: "bench"}, req); err != nil || !resp.Ok {
						b.Fatalf("call: %v %v", resp.GetError(), err)
					}
				}
			}
		})
	}
}

func benchEngine(b *testing.B, store store.Store) (*engine.Engine, string) {
	e, err := engine.New(store, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	info, err := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{})
	if err != nil {
		b.Fatal(err)
	}
	return e, info.DocumentId
}

// BenchmarkCoreRows is what cadbench's core rows time, for profiling
// them: entity_get through CallTool and a 100-step entity_create_line
// batch through ExecuteBatch, on the memory store, with a caller that
// listens for events (so that they are made). The batch writes into a
// fresh document every 100 batches, as the row does.
func BenchmarkCoreRows(b *testing.B) {
	caller := engine.Caller{Principal: "bench", Events: func(string, proto.Message) {}}
	b.Run("entity_get", func(b *testing.B) {
		e, doc := benchEngine(b, memory.New())
		created := callTool(b, e, doc, enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 5})
		req := &enginev1.CallToolRequest{Tool: enginev1.ToolEntityGet, DocumentId: &doc, ArgsJson: mustJSON(obj{"handle": resultObj(created.ResultJson)["handle"]})}
		b.ReportAllocs()
		for b.Loop() {
			if resp, err := e.CallTool(context.Background(), caller, req); err != nil || !resp.Ok {
				b.Fatalf("entity_get: %v %v", resp.GetError(), err)
			}
		}
	})
	b.Run("batch_step", func(b *testing.B) {
		e, doc := benchEngine(b, memory.New())
		req := &enginev1.ExecuteBatchRequest{DocumentId: doc}
		for i := range 100 {
			args := mustJSON(obj{"x1": float64(i), "y1": 0, "x2": float64(i) + 1, "y2": 1})
			req.Steps = append(req.Steps, &enginev1.BatchStep{Tool: enginev1.ToolEntityCreateLine, ArgsJson: args})
		}
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			if n++; n%100 == 0 {
				b.StopTimer()
				info, err := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{})
				if err != nil {
					b.Fatal(err)
				}
				req.DocumentId = info.DocumentId
				b.StartTimer()
			}
			if resp, err := e.ExecuteBatch(context.Background(), caller, req); err != nil || !resp.Ok {
				b.Fatalf("batch: %v %v", resp.GetError(), err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/step")
	})
}
