package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// rollback measures cad.batch's undo log against what the seed system did
// to undo a failed batch — copy the whole drawing first and restore the
// copy — on a document of many entities, in process.
//
// Subject: a batch of k entity_move steps and one more that fails, with
// on_error rollback, timed end to end through Engine.ExecuteBatch
// (validation, the k moves, the failure, the undo of k changes, the
// content-hash check).
//
// Baseline: a full snapshot and restore through the public API: the
// store's copy of every entity record (Store.Load, which copies them) and
// an engine rebuilt from that copy (engine.New over a Store holding it:
// decode every entity, re-index it, recompute the content hash).
func rollback(ctx context.Context, e *env, row *Row) error {
	n, k := e.sizes.RollbackEntities, e.sizes.RollbackSteps
	row.Title = fmt.Sprintf("undo %d steps on a %s-entity document: cad.batch on_error rollback (undo log) vs full snapshot copy and restore, engine core in process", k, count(n))
	row.Size = e.sizeNote(n, e.full.RollbackEntities, "entities") + fmt.Sprintf(", %d restores, %d rollbacks", e.sizes.RollbackRounds, e.sizes.RollbackRounds*e.sizes.RollbackOps)
	if n < k {
		return fmt.Errorf("rollback needs at least %d entities, has %d", k, n)
	}

	mem := memory.New()
	eng, err := engine.New(mem, engine.Options{})
	if err != nil {
		return err
	}
	defer eng.Close()
	info, err := eng.CreateDocument(ctx, &enginev1.CreateDocumentRequest{Name: ptr("rollback")})
	if err != nil {
		return err
	}
	doc := info.GetDocumentId()
	caller := engine.Caller{Principal: principal}
	start := time.Now()
	if err := fill(ctx, eng, caller, doc, n); err != nil {
		return err
	}
	e.logf("rollback: %s entities drawn in %s", count(n), fmtDur(time.Since(start)))
	filled, err := eng.GetDocument(ctx, doc)
	if err != nil {
		return err
	}

	// Handles start at 100 (hex) and count up.
	req := &enginev1.ExecuteBatchRequest{DocumentId: doc, OnError: enginev1.OnError_ON_ERROR_ROLLBACK.Enum()}
	for i := range k {
		req.Steps = append(req.Steps, &enginev1.BatchStep{Tool: enginev1.ToolEntityMove, ArgsJson: jsonOf(obj{"handle": fmt.Sprintf("%X", 0x100+i*(n/k)), "dx": 1, "dy": 2})})
	}
	req.Steps = append(req.Steps, &enginev1.BatchStep{Tool: enginev1.ToolEntityMove, ArgsJson: jsonOf(obj{"handle": "FFFFFFFFFF", "dx": 1, "dy": 2})})

	var copies []time.Duration
	baseline := &contender{
		name: "full snapshot copy + restore", unit: "op", gc: true,
		op: func(ctx context.Context, _ int) error {
			t0 := time.Now()
			var snap snapshotStore
			err := mem.Load(ctx, func(rec *store.DocumentRecord, ents []store.EntityRecord) error {
				snap.doc, snap.entities = rec, ents
				return nil
			})
			if err != nil {
				return fmt.Errorf("snapshot: %w", err)
			}
			copies = append(copies, time.Since(t0))
			restored, err := engine.New(&snap, engine.Options{})
			if err != nil {
				return fmt.Errorf("restore: %w", err)
			}
			defer restored.Close()
			got, err := restored.GetDocument(ctx, doc)
			if err != nil {
				return fmt.Errorf("restore: %w", err)
			}
			if got.GetEntityCount() != int64(n) || got.GetContentHash() != filled.GetContentHash() {
				return fmt.Errorf("restored %d entities with content hash %s, want %d with %s", got.GetEntityCount(), got.GetContentHash(), n, filled.GetContentHash())
			}
			return nil
		},
	}
	subject := &contender{
		name: fmt.Sprintf("cad.batch of %d moves + 1 failing step, on_error rollback", k), unit: "op", perBlock: e.sizes.RollbackOps, gc: true,
		op: func(ctx context.Context, _ int) error {
			resp, err := eng.ExecuteBatch(ctx, caller, req)
			if err != nil {
				return err
			}
			a := resp.GetAtomicity()
			if resp.GetStatus() != enginev1.BatchStatus_BATCH_STATUS_ROLLED_BACK || !a.GetRolledBack() || !a.GetVerified() || resp.GetCounts().GetSucceeded() != int32(k) {
				return fmt.Errorf("batch ended %v (%d succeeded), atomicity %v", resp.GetStatus(), resp.GetCounts().GetSucceeded(), a)
			}
			return nil
		},
	}
	e.ready()
	b, s, err := compare(ctx, e.sizes.RollbackRounds, 1, baseline, subject)
	if err != nil {
		return err
	}
	row.Baseline, row.Subject = &b, &s
	row.Checks = []Check{
		check("speed-up", "speed-up, p50 of snapshot restore ÷ p50 of rollback (higher is better)", ratio(float64(b.P50), float64(s.P50)), "x", Goal{">=", 1000}),
	}
	slices.Sort(copies)
	empty, err := p50Of(ctx, 5, func(ctx context.Context) error {
		eng, err := engine.New(&snapshotStore{}, engine.Options{})
		if err == nil {
			eng.Close()
		}
		return err
	})
	if err != nil {
		return err
	}
	row.Notes = []string{
		fmt.Sprintf("Baseline: copying the stored entity records takes %s (median) of it, rebuilding the document from the copy (decode, index, content hash) the rest; that includes constructing the engine, %s with no document (tool-schema compilation).", fmtDur(percentile(copies, 0.5)), fmtDur(empty)),
		"The baseline restores into a new engine; the public API has no in-place restore. An in-memory clone of the entity map would be cheaper than decoding records, but cannot be expressed through the API; the subject, conversely, also pays for running its steps, which the baseline does not.",
		"Memory store; the rollback undoes only uncommitted changes, so nothing is written. Garbage is collected before each block, untimed.",
	}
	return nil
}

// fill draws n entities (lines, circles, points and arcs) in doc with
// entity_batch_create calls of at most 100,000 each.
func fill(ctx context.Context, eng *engine.Engine, caller engine.Caller, doc string, n int) error {
	const chunk = 100_000
	var args []*enginev1.CallToolRequest
	for done := 0; done < n; done += chunk {
		m := min(chunk, n-done)
		if len(args) == 0 || m != chunk {
			args = append(args, &enginev1.CallToolRequest{DocumentId: &doc, Tool: enginev1.ToolEntityBatchCreate, ArgsJson: jsonOf(obj{"entities": mixed(m)})})
		}
		resp, err := eng.CallTool(ctx, caller, args[len(args)-1])
		if err != nil {
			return err
		}
		if !resp.GetOk() {
			return fmt.Errorf("entity_batch_create: %v", resp.GetError())
		}
	}
	return nil
}

// mixed are n entities for entity_batch_create: lines, circles, points and
// arcs on a grid.
func mixed(n int) []any {
	ents := make([]any, n)
	for i := range ents {
		x, y := float64(i%1000), float64(i/1000)
		switch i % 4 {
		case 0:
			ents[i] = obj{"type": "line", "x1": x, "y1": y, "x2": x + 0.5, "y2": y + 0.5}
		case 1:
			ents[i] = obj{"type": "circle", "cx": x, "cy": y, "radius": 0.25}
		case 2:
			ents[i] = obj{"type": "point", "x": x, "y": y}
		default:
			ents[i] = obj{"type": "arc", "cx": x, "cy": y, "radius": 0.4, "start_angle": 0, "end_angle": 180, "color": 2}
		}
	}
	return ents
}

// snapshotStore is a Store that holds one document's records — a snapshot
// — and hands them to the engine that restores it. It stores nothing.
type snapshotStore struct {
	doc      *store.DocumentRecord
	entities []store.EntityRecord
}

var errSnapshotReadOnly = errors.New("snapshot store is read-only")

func (*snapshotStore) Kind() string { return "snapshot" }

func (s *snapshotStore) Load(_ context.Context, fn func(*store.DocumentRecord, []store.EntityRecord) error) error {
	if s.doc == nil {
		return nil
	}
	return fn(s.doc, s.entities)
}

func (*snapshotStore) Commit(context.Context, *store.Commit) error { return errSnapshotReadOnly }

func (*snapshotStore) LoadOperations(context.Context, func(*store.OperationRecord) error) error {
	return nil
}

func (*snapshotStore) PruneOperations(context.Context, time.Time) error { return nil }

func (*snapshotStore) SaveSession(context.Context, string, []byte) error { return errSnapshotReadOnly }

func (*snapshotStore) DeleteSession(context.Context, string) error { return nil }

func (*snapshotStore) LoadSessions(context.Context) (map[string][]byte, error) { return nil, nil }

func (*snapshotStore) Close() error { return nil }
