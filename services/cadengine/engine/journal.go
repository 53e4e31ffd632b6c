package engine

import (
	"context"
	"fmt"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// The journal is the store's table of operation records (OperationRecord),
// written in the same transaction as the document changes they describe,
// so that a result that was returned is on disk and a restart forgets
// nothing (see opTable for what is journaled when). Beside the store,
// what the journal needs besides the store: the canonical request hash,
// the per-document list of recent commits that tells a batch who wrote
// while it waited, and the reload at start-up.

// commitNote is one durable commit of a document: the revision it stored
// and the operation it belongs to.
type commitNote struct {
	revision int64
	op       string
}

// maxCommitNotes bounds a document's commit notes. A batch that waits on
// its client while more than this many commits happen reports only the
// latest (and says so in its atomicity note).
const maxCommitNotes = 1024

// noteCommit records a durable commit; the caller holds d.mu for writing.
func (d *document) noteCommit(revision int64, op string) {
	if len(d.commits) >= maxCommitNotes {
		drop := len(d.commits) - maxCommitNotes/2
		d.commitsLost = d.commits[drop-1].revision
		d.commits = append(d.commits[:0], d.commits[drop:]...)
	}
	d.commits = append(d.commits, commitNote{revision, op})
	d.durable.Store(revision)
}

// committedSince lists the operations other than self that committed
// after revision rev, oldest first, each once; complete is false when the
// notes no longer reach back that far. The caller holds d.mu.
func (d *document) committedSince(rev int64, self string) (ops []string, complete bool) {
	complete = d.commitsLost <= rev
	seen := map[string]bool{}
	for _, n := range d.commits {
		if n.revision > rev && n.op != self && !seen[n.op] {
			seen[n.op] = true
			ops = append(ops, n.op)
		}
	}
	return ops, complete
}

// loadJournal restores the operations of the last opRetention when the
// engine starts. Operations recorded as running were interrupted: they
// become interrupted, with the committed steps and result of their last
// commit point, and that is written back.
func (e *Engine) loadJournal(ctx context.Context) error {
	now := e.now()
	cutoff := now.Add(-opRetention)
	var fixed []store.OperationRecord
	err := e.store.LoadOperations(ctx, func(rec *store.OperationRecord) error {
		if !rec.FinishedAt.IsZero() && rec.FinishedAt.Before(cutoff) {
			return nil
		}
		o := opFromRecord(rec)
		if o.st.status == enginev1.OperationStatus_OPERATION_STATUS_RUNNING {
			o.st.status = enginev1.OperationStatus_OPERATION_STATUS_INTERRUPTED
			o.st.finished = now
			fixed = append(fixed, o.record(o.st))
		}
		e.ops.restore(o)
		return nil
	})
	if err != nil {
		return fmt.Errorf("load journal: %w", err)
	}
	if len(fixed) > 0 {
		if err := e.store.Commit(ctx, &store.Commit{Operations: fixed}); err != nil {
			return fmt.Errorf("record interrupted operations: %w", err)
		}
	}
	e.ops.lastPrune = now
	if err := e.store.PruneOperations(ctx, cutoff); err != nil {
		return fmt.Errorf("prune journal: %w", err)
	}
	return nil
}

// opFromRecord is the operation a journal record describes.
func opFromRecord(rec *store.OperationRecord) *opEntry {
	return &opEntry{
		key:  opKey{rec.Principal, rec.ID},
		kind: rec.Kind,
		doc:  rec.DocumentID,
		hash: storedHash(rec.RequestHash),
		st: opState{
			status:    rec.Status,
			committed: rec.CommittedSteps,
			revision:  rec.Revision,
			response:  rec.Response,
			started:   rec.StartedAt,
			finished:  rec.FinishedAt,
			journaled: true,
		},
	}
}
