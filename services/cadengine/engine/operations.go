package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// Operations.
//
// Every batch and every tool call is an operation with an id: the
// request's operation_id, else "op-" and 16 hex digits. A batch's steps
// are operations too, "<batch id>.<i>" (a tool call's one step shares the
// call's id). Ids are scoped to the principal.
//
// The operation table makes retries safe. A request whose principal and
// operation id were seen before:
//   - with the same request (compared by requestHash: the request with its
//     operation_id and session_id cleared) replays the recorded response,
//     replayed true and otherwise identical — it is the stored encoding
//     decoded again, recorded failures and refusals included — running
//     nothing and drawing no revision;
//   - with a different request is refused operation_conflict;
//   - while the first is still running is refused busy, with
//     retry_after_ms.
//
// Records are kept at least 24 hours after the operation finished and
// pruned lazily (at most once an hour, when an operation starts), except
// those of operations that live in memory only (see below): they are kept
// while they are among their principal's recent operations (maxRecent to
// twice that), so that reads do not grow the engine for a day. Dry
// runs are not operations: they neither claim nor consult an id.
//
// What is durable: an operation's journal record is written in the same
// store transaction as its document changes (see run.commit), at each
// commit point: before each wait on the client, if the batch has changed
// something by then (status running, with the steps committed so far), and
// at the end. An operation that commits no document change is journaled
// only if the caller chose its id (so that its retry replays it after a
// restart too) or if an earlier commit point journaled it; otherwise it
// lives in memory only — it changed nothing durable, so forgetting it
// loses nothing a caller could reconcile. An operation that stopped
// before its first commit point left nothing on disk, so after a restart
// it is unknown and its retry runs it afresh, which is exact.
//
// An operation found running when the engine starts, or whose final
// commit failed, becomes interrupted: its committed_steps and result are
// those of its last commit point (see run.partial), and a retry replays
// that result.

// opRetention is how long finished operations are kept.
const opRetention = 24 * time.Hour

// pruneEvery is how often finished operations are pruned.
const pruneEvery = time.Hour

// maxRecent is how many operations per principal system_status lists.
const maxRecent = 100

// Busy retry hints.
const (
	retryRunning = 250 * time.Millisecond
	retryWaiting = time.Second // the running operation waits on its client
)

type opKey struct{ principal, id string }

// opEntry is one operation of the table. Its identity is fixed; its state
// changes under opTable.mu.
type opEntry struct {
	key  opKey
	kind string // "cad.batch" or the tool name
	doc  string
	hash requestHash // read with requestHash
	// hashed, when not nil, is closed once hash is set: a call with large
	// arguments has its hash taken while it runs (setCallHash).
	hashed   chan struct{}
	explicit bool // the caller chose the id
	st       opState
}

// opState is the part of an operation that changes.
type opState struct {
	status    enginev1.OperationStatus
	committed []int32
	revision  int64
	response  []byte // encoded ExecuteBatchResponse; see OperationRecord.Response
	// result is the response of an operation that finished without a
	// journal record (nothing to store): kept as it is, encoded only if a
	// replay or operations.get asks.
	result    *enginev1.ExecuteBatchResponse
	started   time.Time
	finished  time.Time
	journaled bool // the store holds a record of it
	waiting   bool // waiting on the client
}

// requestHash is o's request hash, once it is taken.
func (o *opEntry) requestHash() requestHash {
	if o.hashed != nil {
		<-o.hashed
	}
	return o.hash
}

func (o *opEntry) record(st opState) store.OperationRecord {
	return store.OperationRecord{
		Principal:      o.key.principal,
		ID:             o.key.id,
		Kind:           o.kind,
		DocumentID:     o.doc,
		RequestHash:    new(o.requestHash())[:],
		Status:         st.status,
		CommittedSteps: st.committed,
		Revision:       st.revision,
		Response:       st.response,
		StartedAt:      st.started,
		FinishedAt:     st.finished,
	}
}

// Proto is the operation as operations.get shows it.
func (o *opEntry) Proto(st opState) (*enginev1.Operation, error) {
	op := &enginev1.Operation{
		OperationId:    o.key.id,
		Principal:      o.key.principal,
		Kind:           o.kind,
		DocumentId:     o.doc,
		Status:         st.status,
		CommittedSteps: slices.Clone(st.committed),
		StartedAt:      timestamppb.New(st.started),
		Revision:       st.revision,
	}
	if !st.finished.IsZero() {
		op.FinishedAt = timestamppb.New(st.finished)
	}
	if st.status != enginev1.OperationStatus_OPERATION_STATUS_RUNNING && st.recorded() {
		res, err := st.recordedResult()
		if err != nil {
			return nil, err
		}
		op.Result = res
	}
	return op, nil
}

// recorded reports whether the state holds a result.
func (st opState) recorded() bool { return st.response != nil || st.result != nil }

// recordedResult is a copy of the recorded result.
func (st opState) recordedResult() (*enginev1.ExecuteBatchResponse, error) {
	if st.result != nil {
		return proto.Clone(st.result).(*enginev1.ExecuteBatchResponse), nil
	}
	return decodeResponse(st.response)
}

func decodeResponse(b []byte) (*enginev1.ExecuteBatchResponse, error) {
	res := &enginev1.ExecuteBatchResponse{}
	if err := proto.Unmarshal(b, res); err != nil {
		return nil, fmt.Errorf("decode recorded result: %w", err)
	}
	return res, nil
}

func encodeResponse(res *enginev1.ExecuteBatchResponse) ([]byte, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	return b, nil
}

// opTable holds the operations of the last opRetention.
type opTable struct {
	mu        sync.Mutex            // guards everything below and every entry's st
	byKey     map[opKey]*opEntry    // every kept operation
	recent    map[string][]*opEntry // per principal, newest last, fewer than 2*maxRecent (see noteLocked)
	lastPrune time.Time
}

func newOpTable() *opTable {
	return &opTable{byKey: map[opKey]*opEntry{}, recent: map[string][]*opEntry{}}
}

// claimResult says what claim found.
type claimResult uint8

const (
	claimNew      claimResult = iota // o is now in the table
	claimReplay                      // a finished operation with the same request
	claimConflict                    // the id was used for a different request
	claimBusy                        // the same request is still running
)

// claim puts o in the table unless its key is taken; then it returns the
// operation holding the key and a copy of its state.
func (t *opTable) claim(o *opEntry) (*opEntry, opState, claimResult) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if prior := t.byKey[o.key]; prior != nil {
		switch {
		// Either hash may still be being taken (setCallHash): waiting
		// for it here holds the table a few milliseconds at most, and only
		// when an id is reused while the call that took it runs.
		case prior.requestHash() != o.requestHash():
			return prior, prior.st, claimConflict
		case prior.st.status == enginev1.OperationStatus_OPERATION_STATUS_RUNNING:
			return prior, prior.st, claimBusy
		default:
			return prior, prior.st, claimReplay
		}
	}
	t.byKey[o.key] = o
	t.noteLocked(o)
	return o, o.st, claimNew
}

// noteLocked adds o to its principal's recent operations. The list is
// cut back to maxRecent when it reaches twice that (one move per
// maxRecent operations, not one per operation); an operation that leaves
// it and that the store does not hold leaves the table too: it changed
// nothing durable and its id was not the caller's, so nobody can retry it,
// and keeping it for opRetention would grow the engine with every read.
func (t *opTable) noteLocked(o *opEntry) {
	list := append(t.recent[o.key.principal], o)
	if len(list) >= 2*maxRecent {
		cut := len(list) - maxRecent
		for _, old := range list[:cut] {
			if !old.st.journaled && !old.st.finished.IsZero() && t.byKey[old.key] == old {
				delete(t.byKey, old.key)
			}
		}
		list = append(list[:0], list[cut:]...)
	}
	t.recent[o.key.principal] = list
}

// drop forgets an operation that left nothing behind (it stopped before
// running, or before its first commit point), so that a retry runs it.
func (t *opTable) drop(o *opEntry) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byKey[o.key] == o {
		delete(t.byKey, o.key)
	}
	list := t.recent[o.key.principal]
	if i := slices.Index(list, o); i >= 0 {
		t.recent[o.key.principal] = slices.Delete(list, i, i+1)
	}
}

// state returns a copy of o's state.
func (t *opTable) state(o *opEntry) opState {
	t.mu.Lock()
	defer t.mu.Unlock()
	return o.st
}

// update changes o's state.
func (t *opTable) update(o *opEntry, fn func(st *opState)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fn(&o.st)
}

// get finds an operation.
func (t *opTable) get(k opKey) (*opEntry, opState, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	o := t.byKey[k]
	if o == nil {
		return nil, opState{}, false
	}
	return o, o.st, true
}

// recentOf returns up to n of the principal's operations, newest first
// (n at most maxRecent).
func (t *opTable) recentOf(principal string, n int) ([]*opEntry, []opState) {
	t.mu.Lock()
	defer t.mu.Unlock()
	list := t.recent[principal]
	var ops []*opEntry
	var sts []opState
	for i := len(list) - 1; i >= 0 && len(ops) < n; i-- {
		ops = append(ops, list[i])
		sts = append(sts, list[i].st)
	}
	return ops, sts
}

// prune forgets operations that finished before cutoff; it reports
// whether it ran (it runs at most once per pruneEvery).
func (t *opTable) prune(now time.Time) (cutoff time.Time, ran bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if now.Sub(t.lastPrune) < pruneEvery {
		return time.Time{}, false
	}
	t.lastPrune = now
	cutoff = now.Add(-opRetention)
	old := func(o *opEntry) bool { return !o.st.finished.IsZero() && o.st.finished.Before(cutoff) }
	for k, o := range t.byKey {
		if old(o) {
			delete(t.byKey, k)
		}
	}
	for p, list := range t.recent {
		list = slices.DeleteFunc(list, old)
		if len(list) == 0 {
			delete(t.recent, p)
		} else {
			t.recent[p] = list
		}
	}
	return cutoff, true
}

// restore puts a journaled operation back when the engine starts.
func (t *opTable) restore(o *opEntry) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.byKey[o.key] = o
	t.noteLocked(o)
}

// GetOperation reads the record of one of the principal's operations:
// its status (running, succeeded, failed or interrupted), the steps whose
// changes are committed, and, once it stopped, its result. An operation
// id the principal never used, or whose record was pruned, is
// ErrOperationNotFound.
func (e *Engine) GetOperation(ctx context.Context, principal, operationID string) (*enginev1.Operation, error) {
	if err := e.enter(); err != nil {
		return nil, err
	}
	defer e.calls.Done()
	o, st, ok := e.ops.get(opKey{principal, operationID})
	if !ok {
		// With Sharing, another engine may have run it.
		stored, err := e.storedOperation(ctx, principal, operationID)
		if err != nil {
			return nil, err
		}
		if stored == nil {
			return nil, fmt.Errorf("%w: %q", ErrOperationNotFound, operationID)
		}
		o, st = stored, stored.st
	}
	return o.Proto(st)
}

// RecentOperations returns up to n of the principal's most recent
// operations, newest first; results are left out (read one with
// GetOperation).
func (e *Engine) RecentOperations(principal string, n int) []*enginev1.Operation {
	ops, sts := e.ops.recentOf(principal, n)
	out := make([]*enginev1.Operation, 0, len(ops))
	for i, o := range ops {
		st := sts[i]
		st.response, st.result = nil, nil
		op, _ := o.Proto(st) // cannot fail without a response to decode
		out = append(out, op)
	}
	return out
}

// pruneOperations runs the lazy prune as of now (the engine's clock,
// read once by the operation that prunes, which starts at the same time):
// in memory, then in the store. A store failure is not the caller's: the
// records stay until the next prune.
func (e *Engine) pruneOperations(ctx context.Context, now time.Time) {
	cutoff, ran := e.ops.prune(now)
	if ran {
		_ = e.store.PruneOperations(context.WithoutCancel(ctx), cutoff)
	}
}
