package soak

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// plan is what one batch sent by the soak would do to its document: one
// entity more or fewer per step, by step.
type plan struct {
	doc   string
	delta []int
	// acked is set when the client got the batch's answer (or learnt its
	// end from operations.get); committed is then how many steps the
	// answer says are committed.
	acked     bool
	committed int
}

// ledger records every batch the soak sends, by operation id, and the
// documents they write to, for the check at the end.
type ledger struct {
	mu   sync.Mutex // guards ops and docs
	ops  map[string]*plan
	docs map[string]bool
}

func newLedger() *ledger {
	return &ledger{ops: map[string]*plan{}, docs: map[string]bool{}}
}

// document registers a document whose entity count the check verifies:
// it starts empty and only the soak's batches write to it.
func (l *ledger) document(doc string) {
	l.mu.Lock()
	l.docs[doc] = true
	l.mu.Unlock()
}

// sent records a batch before it is sent.
func (l *ledger) sent(opID, doc string, delta []int) {
	l.mu.Lock()
	l.ops[opID] = &plan{doc: doc, delta: delta}
	l.mu.Unlock()
}

// answered records the answer to a batch: its status and its steps'.
func (l *ledger) answered(opID string, raw json.RawMessage) (batchAnswer, error) {
	var a batchAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, fmt.Errorf("batch answer %.200s: %w", raw, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.ops[opID]
	if p == nil {
		return a, fmt.Errorf("answer for %s, which was never sent", opID)
	}
	p.acked, p.committed = true, a.committed()
	return a, nil
}

// learnt records the end of a batch whose answer was lost (the client
// disconnected), as operations.get told it.
func (l *ledger) learnt(opID string, op operation) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p := l.ops[opID]; p != nil && !p.acked {
		p.acked, p.committed = true, len(op.CommittedSteps)
	}
}

// batchAnswer is the part of a cad.batch result the soak reads.
type batchAnswer struct {
	Status   string `json:"status"`
	Replayed bool   `json:"replayed"`
	Results  []struct {
		Status string `json:"status"`
		Error  *struct {
			Kind string `json:"kind"`
		} `json:"error"`
	} `json:"results"`
}

// committed is how many steps the answer says are committed: those that
// succeeded, unless the batch rolled back.
func (a batchAnswer) committed() int {
	if a.Status == "rolled_back" {
		return 0
	}
	n := 0
	for _, r := range a.Results {
		if r.Status == "ok" {
			n++
		}
	}
	return n
}

// operation is the part of an operations.get result the soak reads.
type operation struct {
	Status         string  `json:"status"`
	CommittedSteps []int32 `json:"committed_steps"`
}

// getOperation reads an operation; found is false for 4004.
func getOperation(ctx context.Context, c *conn, opID string) (op operation, found bool, err error) {
	err = c.call(ctx, gatewayv1.MethodOperationsGet, map[string]any{"operation_id": opID}, &op)
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) && rpcErr.Code == int64(gatewayv1.ErrorCode_ERROR_CODE_NOT_FOUND) {
		return operation{}, false, nil
	}
	return op, err == nil, err
}

// finished polls operations.get until the operation has ended or wait has
// passed; an operation still unknown after unknownWait (its call never
// reached the engine) is reported not found.
func finished(ctx context.Context, c *conn, opID string, wait, unknownWait time.Duration) (operation, bool, error) {
	begin := time.Now()
	for {
		op, found, err := getOperation(ctx, c, opID)
		waited := time.Since(begin)
		if err != nil || (found && op.Status != "running") || waited > wait || (!found && waited >= unknownWait) {
			return op, found, err
		}
		select {
		case <-ctx.Done():
			return op, found, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Check is the verdict on the operations and documents.
type Check struct {
	// Sent is how many batches the soak sent; Acked how many it learnt the
	// end of (by their answer, or by operations.get after a disconnect).
	Sent, Acked int
	// Lost counts acknowledged batches the journal does not have, or has
	// with fewer committed steps than their answer, and documents with
	// fewer entities than their journaled steps made.
	Lost int
	// Twice counts batches with a step committed twice or more committed
	// steps than their answer, and documents with more entities than
	// their journaled steps made.
	Twice int
	// Unfinished counts batches still running at the end.
	Unfinished int
	// Documents is how many documents were checked.
	Documents int
	// Problems describes the first findings.
	Problems []string
}

// check reads every operation and every document back: the journal must
// hold each acknowledged batch with the steps its answer committed, and
// each document exactly the entities its batches' journaled steps made.
func (l *ledger) check(ctx context.Context, c *conn) (Check, error) {
	l.mu.Lock()
	ops := make(map[string]plan, len(l.ops))
	for id, p := range l.ops {
		ops[id] = *p
	}
	docs := make([]string, 0, len(l.docs))
	for d := range l.docs {
		docs = append(docs, d)
	}
	l.mu.Unlock()
	sort.Strings(docs)

	var ch Check
	problem := func(format string, args ...any) {
		if len(ch.Problems) < 20 {
			ch.Problems = append(ch.Problems, fmt.Sprintf(format, args...))
		}
	}
	want := map[string]int{}
	ids := make([]string, 0, len(ops))
	for id := range ops {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		p := ops[id]
		ch.Sent++
		if p.acked {
			ch.Acked++
		}
		op, found, err := finished(ctx, c, id, 30*time.Second, 0)
		if err != nil {
			return ch, fmt.Errorf("operations.get %s: %w", id, err)
		}
		switch {
		case !found && p.acked:
			ch.Lost++
			problem("%s was answered but the journal does not have it", id)
			continue
		case !found:
			continue // it never reached the engine
		case op.Status == "running":
			ch.Unfinished++
			problem("%s is still running at the end", id)
		}
		seen := map[int32]bool{}
		for _, s := range op.CommittedSteps {
			if seen[s] || int(s) >= len(p.delta) || s < 0 {
				ch.Twice++
				problem("%s: committed steps %v (step %d twice or out of range)", id, op.CommittedSteps, s)
				break
			}
			seen[s] = true
			want[p.doc] += p.delta[s]
		}
		if p.acked && len(op.CommittedSteps) != p.committed {
			if len(op.CommittedSteps) < p.committed {
				ch.Lost++
			} else {
				ch.Twice++
			}
			problem("%s: the answer committed %d steps, the journal %v", id, p.committed, op.CommittedSteps)
		}
	}
	for _, doc := range docs {
		var info struct {
			EntityCount int `json:"entity_count"`
		}
		if err := c.call(ctx, gatewayv1.MethodDocumentGet, map[string]any{"document_id": doc}, &info); err != nil {
			return ch, fmt.Errorf("document.get %s: %w", doc, err)
		}
		ch.Documents++
		switch got := info.EntityCount; {
		case got < want[doc]:
			ch.Lost++
			problem("%s holds %d entities, its journaled steps made %d", doc, got, want[doc])
		case got > want[doc]:
			ch.Twice++
			problem("%s holds %d entities, its journaled steps made %d", doc, got, want[doc])
		}
	}
	return ch, nil
}
