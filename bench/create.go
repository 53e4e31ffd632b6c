package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"

	"google.golang.org/protobuf/proto"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// maxBatchSteps is the engine's default --max-batch-steps.
const maxBatchSteps = 1000

// batchCreate measures entity_batch_create, "denser than a batch": one
// call creating n lines against the floor of making them (createFloor:
// the same lines made and committed with no call around them), and, for
// the notes, n entity_create_line steps (in batches of at most 1000, the
// engine's limit) against the same floor; each call on a fresh engine and
// document, in process.
func batchCreate(ctx context.Context, e *env, row *Row) error {
	n := e.sizes.CreateEntities
	row.Title = fmt.Sprintf("%s lines: one entity_batch_create vs the floor (the same lines made in the drawing model and committed, no call around them), engine core in process", count(n))
	row.Size = e.sizeNote(n, e.full.CreateEntities, "entities") + fmt.Sprintf(", %d ops per side", e.sizes.CreateRounds)

	// The requests are made once; nothing else of their making stays live,
	// since the heap the row holds moves when the collector runs during
	// an op.
	bulk := &enginev1.CallToolRequest{Tool: enginev1.ToolEntityBatchCreate, ArgsJson: batchCreateArgs(n)}
	var batches []*enginev1.ExecuteBatchRequest
	for first := 0; first < n; first += maxBatchSteps {
		req := &enginev1.ExecuteBatchRequest{}
		for i := first; i < min(first+maxBatchSteps, n); i++ {
			req.Steps = append(req.Steps, &enginev1.BatchStep{Tool: enginev1.ToolEntityCreateLine, ArgsJson: jsonOf(lineArgs(i))})
		}
		batches = append(batches, req)
	}

	var (
		eng *engine.Engine
		doc string
		// last is the subject's latest response, whose count verify
		// checks untimed: the steps do not decode theirs either.
		last *enginev1.CallToolResponse
	)
	verify := func() error {
		if last == nil {
			return nil
		}
		if got, _ := resultOf(last.GetResultJson())["count"].(float64); int(got) != n {
			return fmt.Errorf("entity_batch_create made %v entities, want %d", got, n)
		}
		last = nil
		return nil
	}
	closeEngine := func() {
		if eng != nil {
			eng.Close()
			eng = nil
		}
	}
	defer closeEngine()
	// clean leaves an op a heap that holds nothing of the last one: the
	// last engine and its document closed and collected, untimed, so that
	// each side's op starts alike and collects its own garbage.
	clean := func(context.Context, int) error {
		if err := verify(); err != nil {
			return err
		}
		closeEngine()
		runtime.GC()
		return nil
	}
	fresh := func(ctx context.Context, w int) error {
		if err := clean(ctx, w); err != nil {
			return err
		}
		var err error
		if eng, err = engine.New(memory.New(), engine.Options{}); err != nil {
			return err
		}
		info, err := eng.CreateDocument(ctx, &enginev1.CreateDocumentRequest{})
		if err != nil {
			return err
		}
		doc = info.GetDocumentId()
		return nil
	}
	caller := engine.Caller{Principal: principal}
	floor := &contender{
		name: fmt.Sprintf("floor: %s lines made + committed", count(n)), unit: "op", prep: clean,
		op: func(ctx context.Context, _ int) error { return createFloor(ctx, memory.New(), n) },
	}
	steps := &contender{
		name: fmt.Sprintf("%s single steps (%d cad.batch)", count(n), len(batches)), unit: "op", prep: fresh,
		op: func(ctx context.Context, _ int) error {
			for _, req := range batches {
				req.DocumentId = doc
				resp, err := eng.ExecuteBatch(ctx, caller, req)
				if err != nil {
					return err
				}
				if !resp.GetOk() {
					return fmt.Errorf("cad.batch: %v", resp.GetError())
				}
			}
			return nil
		},
	}
	subject := &contender{
		name: fmt.Sprintf("one entity_batch_create of %s", count(n)), unit: "op", prep: fresh,
		op: func(ctx context.Context, _ int) error {
			bulk.DocumentId = &doc
			resp, err := eng.CallTool(ctx, caller, bulk)
			if err != nil {
				return err
			}
			if !resp.GetOk() {
				return fmt.Errorf("entity_batch_create: %v", resp.GetError())
			}
			last = resp
			return nil
		},
	}
	e.ready()
	b, s, err := compare(ctx, e.sizes.CreateRounds, 1, floor, subject)
	if err == nil {
		err = verify()
	}
	if err != nil {
		return err
	}
	// The steps against the floor, measured after, for the notes.
	b2, st, err := compare(ctx, e.sizes.CreateRounds, 1, floor, steps)
	if err != nil {
		return err
	}
	row.Baseline, row.Subject = &b, &s
	row.Checks = []Check{
		check("floor-ratio", "p50 of entity_batch_create ÷ p50 of the floor (lower is better)", ratio(float64(s.P50), float64(b.P50)), "x", Goal{"<=", 1.5}),
	}
	wire, _ := json.Marshal(obj{"document_id": "doc-0123456789abcdef", "tool": enginev1.ToolEntityBatchCreate, "args": json.RawMessage(bulk.GetArgsJson())})
	row.Notes = []string{
		fmt.Sprintf("In process, without the network: one entity_batch_create of %s lines is %s of JSON-RPC (the gateway's --read-limit is 1 MiB by default; the README says what to raise) and %s of protobuf (the services' gRPC limit is 16 MiB).",
			count(n), bytesSize(len(wire)), bytesSize(proto.Size(bulk))),
		"Memory store; each call runs on a fresh engine and empty document, and each op of either side starts after the last engine was closed and collected (setup untimed), so that each side collects its own garbage. The floor is the floor of BenchmarkHundredThousandLines (services/cadengine/engine) made through the exported API: each line made in the drawing model (handle, fingerprint: SHA-256 of its canonical encoding, the document's map, the undo log), then one commit to a new memory store (each entity's encoding, the store's map), with no call around them; what any way of making the lines must do.",
		fmt.Sprintf("The %s single steps of the old goal (≥ 10× faster than them, retired: docs/decisions.md, \"batch-create's goal\"), against the floor, measured after: %s the floor (%s vs %s); entity_batch_create's p50 is %s theirs.",
			count(n), fmtValue(ratio(float64(st.P50), float64(b2.P50)), "x"), fmtDur(st.P50), fmtDur(b2.P50), fmtValue(ratio(float64(s.P50), float64(st.P50)), "x")),
		"What entity_batch_create adds to the floor (CPU profile of that benchmark, 2026-12-07, per op of 100k lines): reading the elements' JSON into their geometry about 7 ms of CPU (decodeNewEntities; a line written as most are read straight into its geometry, and many elements read in two halves on two goroutines, so about half of it on the call's path), the request hash about 2 ms (the canonical encoding made again and SHA-256, taken on another goroutine while the call runs), the undo history's diff about 1 ms; and at times a garbage collection more than the floor's (the op allocates some 6 MiB more). With the second core busy elsewhere all of it is on the path: about 1.3× the floor in CPU (docs/decisions.md, \"batch-create within its goal\").",
	}
	return nil
}

// batchCreateArgs are the arguments of an entity_batch_create of the n
// lines of lineArgs.
func batchCreateArgs(n int) []byte {
	ents := make([]any, n)
	for i := range ents {
		a := lineArgs(i)
		a["type"] = "line"
		ents[i] = a
	}
	return jsonOf(obj{"entities": ents})
}

// bytesSize formats a byte count in KiB or MiB.
func bytesSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d B", n)
	}
}
