package bench

import (
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/proto"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// maxBatchSteps is the engine's default --max-batch-steps.
const maxBatchSteps = 1000

// batchCreate measures entity_batch_create, "denser than a batch": one
// call creating n lines against n entity_create_line steps (in batches of
// at most 1000, the engine's limit), each side on a fresh engine and
// document, in process.
func batchCreate(ctx context.Context, e *env, row *Row) error {
	n := e.sizes.CreateEntities
	row.Title = fmt.Sprintf("%s lines: one entity_batch_create vs %s entity_create_line batch steps, engine core in process", count(n), count(n))
	row.Size = e.sizeNote(n, e.full.CreateEntities, "entities") + fmt.Sprintf(", %d ops per side", e.sizes.CreateRounds)

	ents := make([]any, n)
	for i := range ents {
		a := lineArgs(i)
		a["type"] = "line"
		ents[i] = a
	}
	bulk := &enginev1.CallToolRequest{Tool: enginev1.ToolEntityBatchCreate, ArgsJson: jsonOf(obj{"entities": ents})}
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
		// checks untimed: the baseline does not decode its results either.
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
	fresh := func(ctx context.Context, _ int) error {
		if err := verify(); err != nil {
			return err
		}
		closeEngine()
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
	baseline := &contender{
		name: fmt.Sprintf("%s single steps (%d cad.batch)", count(n), len(batches)), unit: "op", gc: true, prep: fresh,
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
		name: fmt.Sprintf("one entity_batch_create of %s", count(n)), unit: "op", gc: true, prep: fresh,
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
	b, s, err := compare(ctx, e.sizes.CreateRounds, 1, baseline, subject)
	if err == nil {
		err = verify()
	}
	if err != nil {
		return err
	}
	row.Baseline, row.Subject = &b, &s
	row.Checks = []Check{
		check("speed-up", "speed-up, p50 of single steps ÷ p50 of entity_batch_create (higher is better)", ratio(float64(b.P50), float64(s.P50)), "x", Goal{">=", 10}),
	}
	wire, _ := json.Marshal(obj{"document_id": "doc-0123456789abcdef", "tool": enginev1.ToolEntityBatchCreate, "args": obj{"entities": ents}})
	row.Notes = []string{
		fmt.Sprintf("In process, without the network: one entity_batch_create of %s lines is %s of JSON-RPC (the gateway's --read-limit is 1 MiB by default; the README says what to raise) and %s of protobuf (the services' gRPC limit is 16 MiB).",
			count(n), bytesSize(len(wire)), bytesSize(proto.Size(bulk))),
		"Memory store; each op runs on a fresh engine and empty document (setup untimed, garbage collected before each op).",
		"What limits the ratio: the two sides share the work of each entity — making it (handle, fingerprint: SHA-256 of its canonical encoding, the document's map, the undo log) and committing it (its encoding for the store, the store's map) — and what entity_batch_create saves is what a batch step adds on top (its own decode, plan, result and operation id), not the entity. BenchmarkHundredThousandLines (services/cadengine/engine) times that shared part alone, the same 100k lines with no call around them, beside both sides: the steps ÷ that floor is the most any dense path could gain (docs/decisions.md, \"batch-create's goal\", has its figures). Of what entity_batch_create adds to the floor (CPU profile of that benchmark): decoding the elements (generated decoder, values from slabs) about two fifths, the request hash over the whole args (deterministic protobuf, SHA-256) about a third.",
	}
	return nil
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
