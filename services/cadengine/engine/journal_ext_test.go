package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
	"github.com/cadbridge/cadbridge/services/cadengine/store/sqlite"
)

// spyStore wraps a Store: it counts what each commit wrote and fails
// commits while fail is set.
type spyStore struct {
	store.Store
	fail atomic.Bool

	mu      sync.Mutex // guards commits
	commits []commitSize
}

type commitSize struct {
	document   bool
	entities   int // puts and deletes
	puts       int
	revision   int64 // of the document, when there is one
	operations int
}

func (s *spyStore) Commit(ctx context.Context, c *store.Commit) error {
	if s.fail.Load() {
		return errors.New("disk on fire")
	}
	s.mu.Lock()
	size := commitSize{document: c.Document != nil, entities: len(c.Put) + len(c.Delete), puts: len(c.Put), operations: len(c.Operations)}
	if c.Document != nil {
		size.revision = c.Document.Revision
	}
	s.commits = append(s.commits, size)
	s.mu.Unlock()
	return s.Store.Commit(ctx, c)
}

func (s *spyStore) since(n int) []commitSize {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]commitSize(nil), s.commits[n:]...)
}

func (s *spyStore) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.commits)
}

func openSQLite(t *testing.T, path string) store.Store {
	t.Helper()
	s, err := sqlite.Open(path)
	if err != nil {
		t.Fatalf("OpenStore: %v", err)
	}
	return s
}

// wire is a response's wire JSON with replayed cleared.
func wire(t *testing.T, resp *enginev1.ExecuteBatchResponse) []byte {
	t.Helper()
	c := proto.Clone(resp).(*enginev1.ExecuteBatchResponse)
	c.Replayed = false
	b, err := contract.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReplayIsIdentical(t *testing.T) {
	f := newFixture(t)
	good := st(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 1}, "l")
	bad := st(enginev1.ToolEntityMove, obj{"handle": "FFFF", "dx": 1, "dy": 0})
	tests := map[string]*enginev1.ExecuteBatchRequest{
		"completed":  f.batchReq(good, st(enginev1.ToolPointFromSnap, obj{"handle": "$l", "snap": "mid"})),
		"failed":     f.batchReq(good, bad),
		"rolledback": {Steps: []*enginev1.BatchStep{good, bad}, OnError: enginev1.OnError_ON_ERROR_ROLLBACK.Enum()},
		"refused":    f.batchReq(good, st("nope", nil)),
		"stale":      {Steps: []*enginev1.BatchStep{good}, ExpectedRevision: ptr(int64(999))},
	}
	for name, req := range tests {
		t.Run(name, func(t *testing.T) {
			req.DocumentId, req.OperationId = f.doc, ptr("replay-"+name)
			first := runBatch(t, f.e, engine.Caller{Principal: "tester"}, req)
			before := f.info()
			again := runBatch(t, f.e, engine.Caller{Principal: "tester"}, req)
			if !again.Replayed || first.Replayed {
				t.Errorf("replayed = %v then %v, want false then true", first.Replayed, again.Replayed)
			}
			if a, b := wire(t, first), wire(t, again); !bytes.Equal(a, b) {
				t.Errorf("replay differs:\n%s\n%s", a, b)
			}
			if after := f.info(); after.Revision != before.Revision || after.ContentHash != before.ContentHash {
				t.Errorf("a replay changed the document: revision %d → %d", before.Revision, after.Revision)
			}
			op, err := f.e.GetOperation(context.Background(), "tester", *req.OperationId)
			if err != nil || !bytes.Equal(wire(t, op.Result), wire(t, first)) || op.Kind != "cad.batch" || op.DocumentId != f.doc || op.FinishedAt == nil {
				t.Errorf("GetOperation = %v, %v; want the recorded result", op, err)
			}
			wantStatus := enginev1.OperationStatus_OPERATION_STATUS_FAILED
			if first.Ok {
				wantStatus = enginev1.OperationStatus_OPERATION_STATUS_SUCCEEDED
			}
			if op.Status != wantStatus {
				t.Errorf("operation status = %v, want %v", op.Status, wantStatus)
			}
		})
	}
}

func TestOperationConflictAndScope(t *testing.T) {
	f := newFixture(t)
	req := f.batchReq(st(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0}))
	req.OperationId = ptr("same")
	f.batch(req)
	other := f.batchReq(st(enginev1.ToolEntityCreatePoint, obj{"x": 1, "y": 0}))
	other.OperationId = ptr("same")
	resp := f.batch(other)
	if resp.Status != statusRefused || resp.Error.GetKind() != enginev1.ErrorKind_ERROR_KIND_OPERATION_CONFLICT || resp.Replayed {
		t.Errorf("same id, other request = %v %v, want refused operation_conflict", resp.Status, resp.Error)
	}
	if n := f.info().EntityCount; n != 1 {
		t.Errorf("%d entities after a conflict, want 1", n)
	}
	// The same id under another principal is another operation.
	resp = runBatch(t, f.e, engine.Caller{Principal: "someone-else"}, other)
	if !resp.Ok || resp.Replayed || f.info().EntityCount != 2 {
		t.Errorf("same id, other principal = %v replayed %v, want a fresh run", resp.Status, resp.Replayed)
	}
	if _, err := f.e.GetOperation(context.Background(), "nobody", "same"); !errors.Is(err, engine.ErrOperationNotFound) {
		t.Errorf("GetOperation of another principal's id = %v, want ErrOperationNotFound", err)
	}
}

func TestCallToolIdempotent(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	req := &enginev1.CallToolRequest{DocumentId: &f.doc, Tool: enginev1.ToolEntityCreatePoint, Args: mustStruct(t, obj{"x": 1, "y": 2}), OperationId: ptr("call-1")}
	first, err := f.e.CallTool(ctx, engine.Caller{Principal: "tester"}, req)
	if err != nil || !first.Ok || first.Replayed || first.OperationId != "call-1" {
		t.Fatalf("first call = %v, %v", first, err)
	}
	again, err := f.e.CallTool(ctx, engine.Caller{Principal: "tester"}, req)
	if err != nil || !again.Replayed || resultObj(again.ResultJson)["handle"] != resultObj(first.ResultJson)["handle"] || again.Revision != first.Revision {
		t.Errorf("retry = %v, %v; want the first result replayed", again, err)
	}
	if n := f.info().EntityCount; n != 1 {
		t.Errorf("%d entities after a retried call, want 1", n)
	}
	req.Args = mustStruct(t, obj{"x": 5, "y": 5})
	conflict, err := f.e.CallTool(ctx, engine.Caller{Principal: "tester"}, req)
	if err != nil || conflict.Ok || conflict.Error.GetKind() != enginev1.ErrorKind_ERROR_KIND_OPERATION_CONFLICT {
		t.Errorf("same id, other args = %v, %v; want operation_conflict", conflict, err)
	}
	batch := f.batchReq(st(enginev1.ToolEntityCreatePoint, obj{"x": 1, "y": 2}))
	batch.OperationId = ptr("call-1")
	if e := f.batch(batch).Error; e.GetKind() != enginev1.ErrorKind_ERROR_KIND_OPERATION_CONFLICT {
		t.Errorf("a batch reusing a call's id = %v, want operation_conflict", e)
	}
	op, err := f.e.GetOperation(ctx, "tester", "call-1")
	if err != nil || op.Kind != enginev1.ToolEntityCreatePoint || op.Status != enginev1.OperationStatus_OPERATION_STATUS_SUCCEEDED ||
		resultObj(op.Result.GetResults()[0].GetResultJson())["handle"] != resultObj(first.ResultJson)["handle"] || fmt.Sprint(op.CommittedSteps) != "[0]" {
		t.Errorf("GetOperation(call-1) = %v, %v", op, err)
	}
	recent := f.e.RecentOperations("tester", 10)
	if len(recent) == 0 || recent[0].OperationId != "call-1" || recent[0].Result != nil {
		t.Errorf("RecentOperations = %v, want call-1 first, without its result", recent)
	}
}

func TestOneCommitPerBatch(t *testing.T) {
	spy := &spyStore{Store: memory.New()}
	e := newEngine(t, spy)
	info, _ := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{})
	f := &fixture{t: t, e: e, doc: info.DocumentId}
	var steps []*enginev1.BatchStep
	for i := range 100 {
		steps = append(steps, st(enginev1.ToolEntityCreatePoint, obj{"x": i, "y": 0}))
	}
	n := spy.count()
	resp := f.batch(f.batchReq(steps...))
	if got := spy.since(n); !resp.Ok || len(got) != 1 || !got[0].document || got[0].entities != 100 || got[0].operations != 1 {
		t.Errorf("a 100-step batch made commits %v, want one with the document, 100 entities and its journal record", got)
	}
	if info := f.info(); info.Revision != 100 {
		t.Errorf("revision = %d, want 100 (one per step)", info.Revision)
	}
	// A read-only batch with a generated id commits nothing; with its own
	// id, it journals.
	n = spy.count()
	f.batch(f.batchReq(st(enginev1.ToolDocumentInfo, nil)))
	if got := spy.since(n); len(got) != 0 {
		t.Errorf("a read-only batch committed %v", got)
	}
	req := f.batchReq(st(enginev1.ToolDocumentInfo, nil))
	req.OperationId = ptr("ro")
	f.batch(req)
	if got := spy.since(n); len(got) != 1 || got[0].document || got[0].operations != 1 {
		t.Errorf("a read-only batch with an operation id committed %v, want the journal record only", got)
	}
	// A wait on the client is a commit point.
	n = spy.count()
	runBatch(t, e, engine.Caller{Principal: "tester", Client: picks(0, 0)}, f.batchReq(steps[0], st(enginev1.ToolPointPick, obj{"prompt": "p"}), steps[1]))
	if got := spy.since(n); len(got) != 2 {
		t.Errorf("a batch with a wait made commits %v, want two", got)
	}
}

func TestRollbackCostsChangesNotDocument(t *testing.T) {
	spy := &spyStore{Store: memory.New()}
	e := newEngine(t, spy)
	info, _ := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{})
	f := &fixture{t: t, e: e, doc: info.DocumentId}
	f.ok(enginev1.ToolEntityBatchCreate, batchOf(5000))
	before := f.info()
	n := spy.count()
	req := f.batchReq(
		st(enginev1.ToolEntityMove, obj{"handle": "100", "dx": 1, "dy": 0}),
		st(enginev1.ToolEntityDelete, obj{"handle": "101"}),
		st(enginev1.ToolPointPick, obj{"prompt": "p"}), // commits steps 0 and 1
		st(enginev1.ToolEntityMove, obj{"handle": "102", "dx": 1, "dy": 0}),
		st(enginev1.ToolEntityMove, obj{"handle": "100", "dx": 1, "dy": 0}),
		st(enginev1.ToolEntityDelete, obj{"handle": "FFFFF"}),
	)
	req.OnError = enginev1.OnError_ON_ERROR_ROLLBACK.Enum()
	resp := runBatch(t, e, engine.Caller{Principal: "tester", Client: picks(0, 0)}, req)
	if resp.Status != statusRolledBack || !resp.Atomicity.Verified {
		t.Fatalf("batch = %v %v", resp.Status, resp.Atomicity)
	}
	after := f.info()
	if after.ContentHash != before.ContentHash || after.EntityCount != before.EntityCount {
		t.Errorf("rollback did not restore the document: %v → %v", before, after)
	}
	// The wait stored 2 entities; the rollback stores the undoing of those
	// 2 (the later changes were never stored), not the document's 5000.
	got := spy.since(n)
	if len(got) != 2 || got[0].entities != 2 || got[1].entities != 2 {
		t.Errorf("commits = %v, want 2 then 2 entities written", got)
	}
	if after.Revision != before.Revision+3 {
		t.Errorf("revision = %d, want %d: 2 steps committed at the wait, then the rollback's commit", after.Revision, before.Revision+3)
	}
}

func TestJournalSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cad.db")
	store := openSQLite(t, path)
	e, err := engine.New(store, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	info, _ := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{})
	f := &fixture{t: t, e: e, doc: info.DocumentId}
	ok := f.batchReq(st(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0}), st(enginev1.ToolEntityCreatePoint, obj{"x": 1, "y": 0}))
	ok.OperationId = ptr("b-ok")
	first := f.batch(ok)
	failing := f.batchReq(st(enginev1.ToolEntityDelete, obj{"handle": "FFFF"}))
	failing.OperationId = ptr("b-fail")
	f.batch(failing)
	write := f.call(enginev1.ToolEntityCreatePoint, obj{"x": 2, "y": 0}) // generated id, journaled with its change
	read := f.call(enginev1.ToolDocumentInfo, nil)                       // generated id, read-only: memory only
	wantInfo, wantList := snapshot(t, e, f.doc)
	e.Close()
	store.Close()

	store = openSQLite(t, path)
	defer store.Close()
	e2 := newEngine(t, store)
	if gotInfo, gotList := snapshot(t, e2, f.doc); gotInfo != wantInfo || gotList != wantList {
		t.Errorf("document after restart:\n%s\nwant\n%s", gotInfo, wantInfo)
	}
	ctx := context.Background()
	for id, want := range map[string]enginev1.OperationStatus{
		"b-ok":            enginev1.OperationStatus_OPERATION_STATUS_SUCCEEDED,
		"b-fail":          enginev1.OperationStatus_OPERATION_STATUS_FAILED,
		write.OperationId: enginev1.OperationStatus_OPERATION_STATUS_SUCCEEDED,
	} {
		op, err := e2.GetOperation(ctx, "tester", id)
		if err != nil || op.Status != want || op.Result == nil {
			t.Errorf("GetOperation(%s) after restart = %v, %v; want %v with its result", id, op, err, want)
		}
	}
	if _, err := e2.GetOperation(ctx, "tester", read.OperationId); !errors.Is(err, engine.ErrOperationNotFound) {
		t.Errorf("read-only call with a generated id after restart = %v, want ErrOperationNotFound (never journaled)", err)
	}
	again := runBatch(t, e2, engine.Caller{Principal: "tester"}, ok)
	if !again.Replayed || !bytes.Equal(wire(t, again), wire(t, first)) {
		t.Errorf("retry after restart = %s, want the recorded result replayed", wire(t, again))
	}
	if op, _ := e2.GetOperation(ctx, "tester", "b-ok"); fmt.Sprint(op.CommittedSteps) != "[0 1]" || op.Revision != 2 {
		t.Errorf("b-ok committed steps %v at revision %d, want [0 1] at 2", op.CommittedSteps, op.Revision)
	}
}

func TestInterruptedOperation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cad.db")
	spy := &spyStore{Store: openSQLite(t, path)}
	e, err := engine.New(spy, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	info, _ := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{})
	f := &fixture{t: t, e: e, doc: info.DocumentId}
	// The store dies after the commit before the wait: the final commit
	// fails, as if the engine had stopped there.
	c := &fakeClient{answer: func(context.Context, *enginev1.ServerRequest) (*enginev1.ServerRequestAnswer, error) {
		spy.fail.Store(true)
		return pointAnswer(1, 1), nil
	}}
	req := f.batchReq(
		st(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0}),
		st(enginev1.ToolPointPick, obj{"prompt": "p"}),
		st(enginev1.ToolEntityCreatePoint, obj{"x": 1, "y": 0}),
	)
	req.OperationId = ptr("crash")
	caller := engine.Caller{Principal: "tester", Client: c}
	if _, err := e.ExecuteBatch(context.Background(), caller, req); err == nil {
		t.Fatal("a batch whose final commit failed answered without error")
	}
	spy.fail.Store(false)

	check := func(e *engine.Engine, when string) {
		t.Helper()
		op, err := e.GetOperation(context.Background(), "tester", "crash")
		if err != nil || op.Status != enginev1.OperationStatus_OPERATION_STATUS_INTERRUPTED || fmt.Sprint(op.CommittedSteps) != "[0]" || op.Revision != 1 {
			t.Fatalf("%s: operation = %v, %v; want interrupted with step 0 committed at revision 1", when, op, err)
		}
		res := op.Result
		checkBatchResponse(t, req, res)
		if res.Ok || res.Status != statusFailed || statuses(res) != "oe-" || res.Results[1].Error.GetKind() != enginev1.ErrorKind_ERROR_KIND_CANCELLED {
			t.Errorf("%s: recorded result = %v %s %v, want failed: step 0 ok, step 1 cancelled (interrupted), step 2 skipped", when, res.Status, statuses(res), res.Results)
		}
		// The retry tells the same, and runs nothing.
		again := runBatch(t, e, caller, req)
		if !again.Replayed || !bytes.Equal(wire(t, again), wire(t, res)) {
			t.Errorf("%s: retry = %v, want the interrupted result replayed", when, again)
		}
		d, err := e.GetDocument(context.Background(), f.doc)
		if err != nil || d.Revision != 1 || d.EntityCount != 1 {
			t.Errorf("%s: document = %v, %v; want step 0's point at revision 1", when, d, err)
		}
	}
	check(e, "before restart")
	e.Close()
	spy.Store.Close()

	store := openSQLite(t, path)
	defer store.Close()
	check(newEngine(t, store), "after restart")
}

func TestOperationsPruned(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	store := memory.New()
	e, err := engine.New(store, engine.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	info, _ := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{})
	f := &fixture{t: t, e: e, doc: info.DocumentId}
	req := f.batchReq(st(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0}))
	req.OperationId = ptr("old")
	f.batch(req)
	mu.Lock()
	now = now.Add(23 * time.Hour)
	mu.Unlock()
	f.call(enginev1.ToolDocumentInfo, nil)
	if _, err := e.GetOperation(context.Background(), "tester", "old"); err != nil {
		t.Errorf("a 23-hour-old operation = %v, want it kept", err)
	}
	mu.Lock()
	now = now.Add(2 * time.Hour)
	mu.Unlock()
	f.call(enginev1.ToolDocumentInfo, nil) // starting an operation prunes
	if _, err := e.GetOperation(context.Background(), "tester", "old"); !errors.Is(err, engine.ErrOperationNotFound) {
		t.Errorf("a 25-hour-old operation = %v, want pruned", err)
	}
	e2, err := engine.New(store, engine.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	if _, err := e2.GetOperation(context.Background(), "tester", "old"); !errors.Is(err, engine.ErrOperationNotFound) {
		t.Errorf("a pruned operation after restart = %v, want gone from the store too", err)
	}
}

// TestReadsLeaveTheTable: an operation that changed nothing and whose
// id the engine made is kept only while it is among its principal's
// recent operations; a change and a caller's id are kept for the day.
func TestReadsLeaveTheTable(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	read := f.call(enginev1.ToolDocumentInfo, nil).OperationId
	write := f.call(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0}).OperationId
	named, err := f.e.CallTool(ctx, engine.Caller{Principal: "tester"}, &enginev1.CallToolRequest{
		Tool: enginev1.ToolDocumentInfo, DocumentId: &f.doc, OperationId: ptr("named-read")})
	if err != nil || !named.Ok {
		t.Fatalf("named read: %v %v", named, err)
	}
	if _, err := f.e.GetOperation(ctx, "tester", read); err != nil {
		t.Fatalf("a recent read = %v, want it kept", err)
	}
	for range 200 {
		f.call(enginev1.ToolDocumentInfo, nil)
	}
	if _, err := f.e.GetOperation(ctx, "tester", read); !errors.Is(err, engine.ErrOperationNotFound) {
		t.Errorf("a read 200 operations ago = %v, want it forgotten", err)
	}
	for _, id := range []string{write, "named-read"} {
		if _, err := f.e.GetOperation(ctx, "tester", id); err != nil {
			t.Errorf("operation %s 200 operations ago = %v, want it kept", id, err)
		}
	}
}

func TestSessionsPersist(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	stores := map[string]func() store.Store{
		"memory": func() store.Store { return memory.New() },
		"sqlite": func() store.Store { return openSQLite(t, path) },
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open()
			for id, data := range map[string]string{"s1": "one", "s2": "two", "s3": ""} {
				if err := s.SaveSession(ctx, id, []byte(data)); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.SaveSession(ctx, "s1", []byte("one again")); err != nil {
				t.Fatal(err)
			}
			if err := s.DeleteSession(ctx, "s2"); err != nil {
				t.Fatal(err)
			}
			if err := s.DeleteSession(ctx, "never"); err != nil {
				t.Errorf("DeleteSession(never) = %v, want nil", err)
			}
			if name == "sqlite" {
				s.Close()
				s = open()
			}
			defer s.Close()
			got, err := s.LoadSessions(ctx)
			if err != nil || len(got) != 2 || string(got["s1"]) != "one again" || got["s3"] == nil || len(got["s3"]) != 0 {
				t.Errorf("LoadSessions = %q, %v; want s1 (replaced) and s3 (empty)", got, err)
			}
		})
	}
}

func TestFailedRollbackCommitQuarantines(t *testing.T) {
	mem := memory.New()
	spy := &spyStore{Store: mem}
	e := newEngine(t, spy)
	info, _ := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{})
	f := &fixture{t: t, e: e, doc: info.DocumentId}
	c := &fakeClient{answer: func(context.Context, *enginev1.ServerRequest) (*enginev1.ServerRequestAnswer, error) {
		spy.fail.Store(true) // step 0 is stored; the rollback's commit will fail
		return pointAnswer(0, 0), nil
	}}
	req := f.batchReq(
		st(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0}),
		st(enginev1.ToolPointPick, obj{"prompt": "p"}),
		st(enginev1.ToolEntityDelete, obj{"handle": "FFFF"}),
	)
	req.OnError, req.OperationId = enginev1.OnError_ON_ERROR_ROLLBACK.Enum(), ptr("q")
	if _, err := e.ExecuteBatch(context.Background(), engine.Caller{Principal: "tester", Client: c}, req); err == nil {
		t.Fatal("a batch whose rollback could not be stored answered without error")
	}
	spy.fail.Store(false)
	// Memory holds the rollback, the store does not: the document is
	// refused until a restart reloads it.
	if resp := f.call(enginev1.ToolDocumentInfo, nil); resp.Error.GetKind() != enginev1.ErrorKind_ERROR_KIND_QUARANTINED {
		t.Errorf("a call on the document = %v, want quarantined", resp.Error)
	}
	e2 := newEngine(t, mem)
	d, err := e2.GetDocument(context.Background(), f.doc)
	if err != nil || d.EntityCount != 1 || d.Revision != 1 {
		t.Errorf("document after restart = %v, %v; want the stored state: step 0's point at revision 1", d, err)
	}
	op, err := e2.GetOperation(context.Background(), "tester", "q")
	if err != nil || op.Status != enginev1.OperationStatus_OPERATION_STATUS_INTERRUPTED || fmt.Sprint(op.CommittedSteps) != "[0]" {
		t.Errorf("operation after restart = %v, %v; want interrupted with step 0 committed", op, err)
	}
}

func TestDocumentCreateJournaled(t *testing.T) {
	spy := &spyStore{Store: memory.New()}
	e := newEngine(t, spy)
	req := &enginev1.CallToolRequest{Tool: enginev1.ToolDocumentCreate, Args: mustStruct(t, obj{"name": "Plan"}), OperationId: ptr("mk")}
	first, err := e.CallTool(context.Background(), engine.Caller{Principal: "tester"}, req)
	if err != nil || !first.Ok {
		t.Fatalf("document_create = %v, %v", first, err)
	}
	if got := spy.since(0); len(got) != 1 || !got[0].document || got[0].operations != 1 {
		t.Errorf("commits = %v, want one holding the document and its journal record", got)
	}
	again, err := e.CallTool(context.Background(), engine.Caller{Principal: "tester"}, req)
	id := resultObj(first.ResultJson)["document"].(map[string]any)["document_id"]
	if err != nil || !again.Replayed || resultObj(again.ResultJson)["document"].(map[string]any)["document_id"] != id {
		t.Errorf("retry = %v, %v; want the same document replayed", again, err)
	}
	if docs, _ := e.ListDocuments(context.Background(), &enginev1.ListDocumentsRequest{}); len(docs.Documents) != 1 {
		t.Errorf("%d documents after a retried create, want 1", len(docs.Documents))
	}
}
