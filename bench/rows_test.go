package bench

import (
	"context"
	"slices"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// The benchmarks run the cadbench rows at small sizes, one round (a block
// of ops per side) per iteration, and report each row's checks as metrics
// ("p50-ratio", "speed-up", …) next to the time per round. They assert
// nothing about speed. Run them with, for example,
//
//	go test ./bench -run '^$' -bench . -benchtime 5x

// benchSizes are small sizes with the shapes of the full run.
func benchSizes() Sizes {
	return Sizes{
		HopCalls: 20, HopSessions: 64, HopConcurrentCalls: 2,
		BatchSteps: 100, BatchOps: 1,
		CreateEntities:   10_000,
		RollbackEntities: 20_000, RollbackSteps: 10, RollbackOps: 10,
		JournalSteps: 100, JournalOps: 1,
		ReplayOpen: 100, ReplayEvents: 512, ReplayOps: 1,
		IdleSessions: [2]int{100, 100},
		DXFLines:     5_000, CorpusFiles: 10,
		DraftingOps: 1, SearchOps: 100, RenderOps: 1, ConstraintOps: 5,
	}
}

// runRow runs the named row; ready is called when its setup is done.
func runRow(b *testing.B, name string, sizes Sizes, ready func()) *Row {
	b.Helper()
	for _, spec := range rowSpecs() {
		if spec.name != name {
			continue
		}
		e := &env{cfg: Config{ready: ready}, sizes: sizes, full: FullSizes()}
		b.Cleanup(e.dxf.remove)
		row := &Row{Name: name}
		if err := spec.run(context.Background(), e, row); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		if row.Skipped != "" {
			b.Skip(row.Skipped)
		}
		return row
	}
	b.Fatalf("no row %q", name)
	return nil
}

// benchmarkRow runs the named row with b.N rounds, its setup untimed, and
// reports its checks and the p50 of each side.
func benchmarkRow(b *testing.B, name string, sizes Sizes) {
	sizes.HopRounds, sizes.HopConcurrentRounds, sizes.BatchRounds, sizes.CreateRounds = b.N, b.N, b.N, b.N
	sizes.RollbackRounds, sizes.JournalRounds, sizes.ReplayRounds = b.N, b.N, b.N
	sizes.DXFRounds, sizes.CorpusRounds = b.N, b.N
	sizes.DraftingRounds, sizes.SearchRounds, sizes.RenderRounds = b.N, b.N, b.N
	sizes.ConstraintRounds = b.N
	row := runRow(b, name, sizes, b.ResetTimer)
	b.StopTimer()
	for _, c := range row.Checks {
		b.ReportMetric(c.Value, c.Key)
	}
	if row.Baseline != nil && row.Subject != nil {
		b.ReportMetric(float64(row.Baseline.P50.Nanoseconds()), "baseline-p50-ns")
		b.ReportMetric(float64(row.Subject.P50.Nanoseconds()), "subject-p50-ns")
	}
}

// BenchmarkGatewayHop is WebSocket tools.call against direct gRPC
// CallTool, by one session and by 64 at once (each on a connection of its own).
func BenchmarkGatewayHop(b *testing.B) {
	b.Run("sessions=1", func(b *testing.B) { benchmarkRow(b, "gateway-hop/1", benchSizes()) })
	b.Run("sessions=64", func(b *testing.B) { benchmarkRow(b, "gateway-hop/64", benchSizes()) })
}

// BenchmarkBatchAmortisation is one 100-step cad.batch against 100
// tools.call round trips.
func BenchmarkBatchAmortisation(b *testing.B) {
	benchmarkRow(b, "batch-amortisation", benchSizes())
}

// BenchmarkBatchCreate is one entity_batch_create of 10k lines against
// the floor of making them, in process.
func BenchmarkBatchCreate(b *testing.B) {
	benchmarkRow(b, "batch-create", benchSizes())
}

// BenchmarkDraftingBatch is a 100-step cad.batch of fillet, trim,
// extend and array steps against one of entity_create_line, in process.
func BenchmarkDraftingBatch(b *testing.B) {
	benchmarkRow(b, "drafting-batch", benchSizes())
}

// BenchmarkToolSearch is 100 tool_search calls of the query set through
// Engine.CallTool against a substring scan of the catalog.
func BenchmarkToolSearch(b *testing.B) {
	benchmarkRow(b, "tool-search", benchSizes())
}

// BenchmarkViewRender is view_render at 768 px of the corpus's largest
// drawing against its PNG export (skipped without the corpus).
func BenchmarkViewRender(b *testing.B) {
	benchmarkRow(b, "view-render", benchSizes())
}

// BenchmarkDXFImport is document.import of a 5k-line DXF file over POST
// /rpc against ezdxf.readfile in a child process (skipped without ezdxf).
func BenchmarkDXFImport(b *testing.B) {
	benchmarkRow(b, "dxf-import", benchSizes())
}

// BenchmarkDXFExport is document.export of a 5k-line document as DXF over
// POST /rpc against ezdxf's doc.saveas() in a child process.
func BenchmarkDXFExport(b *testing.B) {
	benchmarkRow(b, "dxf-export", benchSizes())
}

// BenchmarkCorpusImport is 10 files of the DXF corpus imported over POST
// /rpc against ezdxf loading them in a child process.
func BenchmarkCorpusImport(b *testing.B) {
	benchmarkRow(b, "corpus-import", benchSizes())
}

// BenchmarkRollback is a 10-step rollback by the undo log against a full
// snapshot copy and restore, on a 20k-entity document.
func BenchmarkRollback(b *testing.B) {
	benchmarkRow(b, "rollback", benchSizes())
}

// BenchmarkDurableJournal is 100-step batches on SQLite (FULL) against
// the memory store.
func BenchmarkDurableJournal(b *testing.B) {
	benchmarkRow(b, "durable-journal", benchSizes())
}

// BenchmarkReplay is session.resume with 100 open requests and 512
// events against one tools.call.
func BenchmarkReplay(b *testing.B) {
	benchmarkRow(b, "replay", benchSizes())
}

// BenchmarkIdleSessions is the memory of 100 idle WebSocket sessions,
// held in this process (their client side is counted too); each iteration
// measures afresh.
func BenchmarkIdleSessions(b *testing.B) {
	var kib float64
	for range b.N {
		kib += runRow(b, "idle-sessions/1k", benchSizes(), nil).Checks[0].Value
	}
	b.ReportMetric(kib/float64(b.N), "KiB/session")
}

// BenchmarkMCPCall is an MCP tools/call over Streamable HTTP against a
// JSON-RPC tools.call over POST /rpc, on the same gateway.
func BenchmarkMCPCall(b *testing.B) {
	benchmarkRow(b, "mcp-call", benchSizes())
}

// BenchmarkBatchOverWebSocket is the subject of batch-amortisation alone:
// one 100-step cad.batch of entity_create_line over WebSocket through the
// gateway, a fresh document every 100 batches. Its CPU profile is the
// batch's, without the 100 round trips beside it.
func BenchmarkBatchOverWebSocket(b *testing.B) {
	ctx := context.Background()
	st, err := Start(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	c, err := Dial(ctx, st.Gateway, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var batch any
	for i := range b.N {
		if i%100 == 0 {
			b.StopTimer()
			doc, err := createDocument(ctx, c)
			if err != nil {
				b.Fatal(err)
			}
			batch = mustJSON(obj{"document_id": doc, "steps": lineSteps(100)})
			b.StartTimer()
		}
		if err := runBatch(ctx, c, batch); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDraftingFixture runs the drafting-batch row's batch once, in
// process: every step succeeds and each kind leaves what it should (a
// fillet arc per corner, 5 copies per polar and per rectangular array),
// so that the row measures tools that did their work.
func TestDraftingFixture(t *testing.T) {
	ctx := context.Background()
	c, err := newCoreEngine(ctx, memory.New())
	if err != nil {
		t.Fatal(err)
	}
	defer c.e.Close()
	for _, n := range []int{10, 100, 7} {
		cells := draftingCells(n)
		h, err := c.freshFixture(ctx, cells)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if len(h) != cells*draftingEntitiesPerCell {
			t.Fatalf("n=%d: fixture made %d entities, want %d", n, len(h), cells*draftingEntitiesPerCell)
		}
		steps := draftingSteps(n, h)
		resp, err := c.e.ExecuteBatch(ctx, c.caller, &enginev1.ExecuteBatchRequest{DocumentId: c.doc, Steps: steps})
		if err := okBatch(resp, err); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		made := map[string]int{}
		for _, s := range steps {
			made[s.GetTool()]++
		}
		// A fillet adds its arc, an array its copies; trim (at an end)
		// and extend change an entity in place.
		want := len(h) + made[enginev1.ToolEntityFillet] + 5*made[enginev1.ToolEntityArrayPolar] + 5*made[enginev1.ToolEntityArrayRectangular]
		info, err := c.e.GetDocument(ctx, c.doc)
		if err != nil {
			t.Fatal(err)
		}
		if got := int(info.GetEntityCount()); got != want || len(steps) != n {
			t.Errorf("n=%d: %d steps leave %d entities, want %d steps leaving %d", n, len(steps), got, n, want)
		}
	}
}

// TestSearchQueries reads the tool-search row's queries: the whole query
// set of TestToolSearchQueries.
func TestSearchQueries(t *testing.T) {
	queries, _, err := searchQueries()
	if err != nil {
		t.Fatal(err)
	}
	if len(queries) < 150 || slices.Contains(queries, "") {
		t.Errorf("searchQueries read %d queries (empty among them: %v), want at least 150, none empty", len(queries), slices.Contains(queries, ""))
	}
}

// BenchmarkConstraintSolve is solving a 1,001-constraint sketch from
// scratch against making it.
func BenchmarkConstraintSolve(b *testing.B) {
	benchmarkRow(b, "constraint-solve", benchSizes())
}

// BenchmarkConstraintResolve is constraint_set_value of one part's width
// in a document of 1,001 constraints against an entity_move there.
func BenchmarkConstraintResolve(b *testing.B) {
	benchmarkRow(b, "constraint-resolve", benchSizes())
}
