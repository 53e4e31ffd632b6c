package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
	"github.com/cadbridge/cadbridge/services/cadengine/store/sqlite"
)

// The core rows measure the engine in process, without a network: what a
// call costs the engine itself, on the memory store, with everything a
// call produces (its operation, request hash, result, events for a
// listener and, for a change, its journal record), against the floor —
// the least any engine must do for the same answer — in the same run.

// inProcess is an engine on st in this process, with a document, whose
// calls have an event listener (so that events are made, as for a
// session's calls).
type inProcess struct {
	e      *engine.Engine
	doc    string
	caller engine.Caller
}

func newCoreEngine(ctx context.Context, st store.Store) (*inProcess, error) {
	e, err := engine.New(st, engine.Options{})
	if err != nil {
		return nil, err
	}
	info, err := e.CreateDocument(ctx, &enginev1.CreateDocumentRequest{Name: new("core")})
	if err != nil {
		e.Close()
		return nil, err
	}
	events := func(string, proto.Message) {}
	return &inProcess{e: e, doc: info.DocumentId, caller: engine.Caller{Principal: "bench", Events: events}}, nil
}

func (c *inProcess) call(ctx context.Context, tool string, args []byte) (*enginev1.CallToolResponse, error) {
	resp, err := c.e.CallTool(ctx, c.caller, &enginev1.CallToolRequest{Tool: tool, DocumentId: &c.doc, ArgsJson: args})
	if err == nil && !resp.GetOk() {
		err = fmt.Errorf("%s: %s", tool, resp.GetError().GetMessage())
	}
	return resp, err
}

func (c *inProcess) batch(ctx context.Context, steps []*enginev1.BatchStep) error {
	resp, err := c.e.ExecuteBatch(ctx, c.caller, &enginev1.ExecuteBatchRequest{DocumentId: c.doc, Steps: steps})
	if err == nil && !resp.GetOk() {
		err = fmt.Errorf("cad.batch: %s", resp.GetError().GetMessage())
	}
	return err
}

// coreEntityGet measures entity_get through Engine.CallTool against the
// floor: the entity looked up in a map and its result encoded.
func coreEntityGet(ctx context.Context, e *env, row *Row) error {
	row.Title = "entity_get in process (Engine.CallTool, memory store) vs the floor: a map lookup and the result's encoding"
	row.Size = fmt.Sprintf("%d calls per side", e.sizes.CoreRounds*e.sizes.CoreOps)
	c, err := newCoreEngine(ctx, memory.New())
	if err != nil {
		return err
	}
	defer c.e.Close()
	created, err := c.call(ctx, enginev1.ToolEntityCreateLine, []byte(`{"x1":0,"y1":0,"x2":10,"y2":5}`))
	if err != nil {
		return err
	}
	var made enginev1.EntityCreateLineResult
	if err := contract.Unmarshal(created.ResultJson, &made); err != nil {
		return err
	}
	args := mustJSON(obj{"handle": made.GetHandle()})

	floorEntity := &drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: drawing.Line{A: geom.Pt(0, 0), B: geom.Pt(10, 5)}}
	floorEntity.Seal()
	entities := map[string]*drawing.Entity{made.GetHandle(): floorEntity}
	floor := &contender{
		name: "map lookup + encode", unit: "call", perBlock: e.sizes.CoreOps,
		op: func(context.Context, int) error {
			ent := entities[made.GetHandle()]
			_, err := contract.Marshal(ent.Proto())
			return err
		},
	}
	subject := &contender{
		name: "Engine.CallTool entity_get", unit: "call", perBlock: e.sizes.CoreOps,
		op: func(ctx context.Context, _ int) error {
			_, err := c.call(ctx, enginev1.ToolEntityGet, args)
			return err
		},
	}
	e.ready()
	b, s, err := compare(ctx, e.sizes.CoreRounds, 100, floor, subject)
	if err != nil {
		return err
	}
	row.Baseline, row.Subject = &b, &s
	row.Checks = []Check{
		check("p50-us", "p50 latency of entity_get", micros(s.P50), "µs", Goal{"<=", 5}),
	}
	row.Notes = []string{
		fmt.Sprintf("%.1f× the floor at p50 (%s against %s).", ratio(float64(s.P50), float64(b.P50)), fmtDur(s.P50), fmtDur(b.P50)),
		"Each call is an operation with a fresh id, a request hash and a result kept for operations.get; the caller listens for events.",
	}
	return nil
}

// coreBatchStep measures the cost of one entity_create_line step of a
// 100-step cad.batch through Engine.ExecuteBatch (committed, with its
// journal record, on the memory store) against the floor of a step: its
// arguments decoded and an entity put in a map.
func coreBatchStep(ctx context.Context, e *env, row *Row) error {
	n := e.sizes.BatchSteps
	row.Title = fmt.Sprintf("an entity_create_line step of a %d-step cad.batch in process (Engine.ExecuteBatch, memory store) vs the floor: its args decoded, an entity made and put in a map", n)
	row.Size = fmt.Sprintf("%d batches per side, a fresh document every %d", e.sizes.CoreRounds*e.sizes.CoreBatches, coreDocBatches)
	c, err := newCoreEngine(ctx, memory.New())
	if err != nil {
		return err
	}
	defer c.e.Close()
	steps := lineBatchSteps(n)
	batches := 0
	floorEntities := map[uint64]*drawing.Entity{}
	floor := &contender{
		name: fmt.Sprintf("%d decodes + map puts", n), unit: "batch", perBlock: e.sizes.CoreBatches,
		prep: func(context.Context, int) error {
			if len(floorEntities) >= coreDocBatches*n {
				floorEntities = map[uint64]*drawing.Entity{}
			}
			return nil
		},
		op: func(context.Context, int) error {
			for _, s := range steps {
				var a enginev1.EntityCreateLineArgs
				if err := contract.Unmarshal(s.ArgsJson, &a); err != nil {
					return err
				}
				ent := &drawing.Entity{Handle: uint64(len(floorEntities)) + 0x100, Layer: "0", Color: 256, Linetype: "ByLayer",
					Geom: drawing.Line{A: geom.Pt(a.X1, a.Y1), B: geom.Pt(a.X2, a.Y2)}}
				floorEntities[ent.Handle] = ent.Seal()
			}
			return nil
		},
	}
	subject := &contender{
		name: fmt.Sprintf("Engine.ExecuteBatch of %d entity_create_line", n), unit: "batch", perBlock: e.sizes.CoreBatches,
		prep: func(ctx context.Context, _ int) error {
			if batches++; batches%coreDocBatches != 0 {
				return nil
			}
			info, err := c.e.CreateDocument(ctx, &enginev1.CreateDocumentRequest{Name: new("core")})
			if err == nil {
				c.doc = info.DocumentId
			}
			return err
		},
		op: func(ctx context.Context, _ int) error { return c.batch(ctx, steps) },
	}
	e.ready()
	b, s, err := compare(ctx, e.sizes.CoreRounds, 2, floor, subject)
	if err != nil {
		return err
	}
	row.Baseline, row.Subject = &b, &s
	perStep := s.P50 / time.Duration(n)
	row.Checks = []Check{
		check("step-us", "p50 cost of one step (p50 batch ÷ steps)", micros(perStep), "µs", Goal{"<=", 3.3}),
	}
	row.Notes = []string{
		fmt.Sprintf("%.1f× the floor at p50 (%s a step against %s); %.0f steps/s.", ratio(float64(s.P50), float64(b.P50)), fmtDur(perStep), fmtDur(b.P50/time.Duration(n)), float64(n)/s.P50.Seconds()),
		"Each batch is one operation (request hash, step results, one journal record, one store commit) whose caller listens for events (a batch.progress per step).",
	}
	return nil
}

// coreDocBatches is how many batches go into one document before the next
// (documents of 10k entities at 100 steps a batch).
const coreDocBatches = 100

// coreStore measures what the default store adds to a committed batch:
// the marginal cost of a step (the cost of a 1000-step batch less that of
// a 1-step batch, over 999) on SQLite against the memory store.
func coreStore(ctx context.Context, e *env, row *Row) error {
	n := e.sizes.StoreSteps
	row.Title = fmt.Sprintf("marginal cost of a step in a committed %d-step cad.batch in process: SQLite store (WAL, synchronous=FULL) vs memory store", n)
	row.Size = fmt.Sprintf("%d rounds of a %d-step and a 1-step batch per store", e.sizes.StoreRounds, n)
	dir, err := e.tempDir("cadbench-store-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	lite, err := sqlite.Open(filepath.Join(dir, "cadengine.db"))
	if err != nil {
		return err
	}
	stores := []store.Store{memory.New(), lite}
	var engines [2]*inProcess
	for i, st := range stores {
		if engines[i], err = newCoreEngine(ctx, st); err != nil {
			return err
		}
		defer engines[i].e.Close()
	}
	defer lite.Close()
	big, one := lineBatchSteps(n), lineBatchSteps(1)
	// marginal is the marginal cost of a step on engine c: the medians of
	// rounds of one big and one small batch each.
	marginal := func(c *inProcess, bigs, ones *[]time.Duration) error {
		for _, steps := range [][]*enginev1.BatchStep{big, one} {
			start := time.Now()
			if err := c.batch(ctx, steps); err != nil {
				return err
			}
			d := time.Since(start)
			if len(steps) == 1 {
				*ones = append(*ones, d)
			} else {
				*bigs = append(*bigs, d)
			}
		}
		return nil
	}
	e.ready()
	var bigs, ones [2][]time.Duration
	var per [2]time.Duration
	// A round's fsyncs can take longer than its big batch's extra steps
	// (a busy disk, tiny sizes): while a store's difference is not
	// positive, more rounds are run, a few at most.
	measured := func() bool { return per[0] > 0 && per[1] > 0 }
	rounds := 0
	for ; rounds < e.sizes.StoreRounds || !measured() && rounds < e.sizes.StoreRounds+maxExtraStoreRounds; rounds++ {
		for k := range 2 {
			i := (rounds + k) % 2 // alternate which store goes first
			if err := marginal(engines[i], &bigs[i], &ones[i]); err != nil {
				return fmt.Errorf("%s store: %w", stores[i].Kind(), err)
			}
		}
		for i := range 2 {
			per[i] = (median(bigs[i]) - median(ones[i])) / time.Duration(n-1)
		}
	}
	if !measured() {
		return fmt.Errorf("the %d-step batch took no longer than the 1-step one after %d rounds: too noisy to measure", n, rounds)
	}
	row.Checks = []Check{
		check("marginal-ratio", "marginal cost of a step, SQLite ÷ memory", ratio(float64(per[1]), float64(per[0])), "x", Goal{"<=", 3}),
	}
	row.Notes = []string{
		fmt.Sprintf("A step costs %s at the margin on SQLite and %s on the memory store; a %d-step batch takes %s and %s (medians), a 1-step batch %s and %s.",
			fmtDur(per[1]), fmtDur(per[0]), n, fmtDur(median(bigs[1])), fmtDur(median(bigs[0])), fmtDur(median(ones[1])), fmtDur(median(ones[0]))),
		fmt.Sprintf("The SQLite file is in %s (%s).", dir, fsType(dir)),
	}
	if extra := rounds - e.sizes.StoreRounds; extra > 0 {
		row.Notes = append(row.Notes, fmt.Sprintf("%d more rounds than planned: the difference was not positive after %d.", extra, e.sizes.StoreRounds))
	}
	return nil
}

// maxExtraStoreRounds bounds the rounds core-store adds when noise hides
// the difference it measures.
const maxExtraStoreRounds = 20

// lineBatchSteps are n entity_create_line steps.
func lineBatchSteps(n int) []*enginev1.BatchStep {
	steps := make([]*enginev1.BatchStep, n)
	for i := range steps {
		steps[i] = &enginev1.BatchStep{Tool: enginev1.ToolEntityCreateLine, ArgsJson: mustJSON(lineArgs(i))}
	}
	return steps
}

// median is the median of ds (which it sorts).
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return percentile(ds, 0.5)
}

// micros is d in microseconds.
func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
