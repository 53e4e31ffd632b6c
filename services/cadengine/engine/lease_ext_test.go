package engine_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/protobuf/proto"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

const leaseTTL = 2 * time.Second

// sharedEngine is an engine of several on st, with id and leaseTTL.
func sharedEngine(t *testing.T, st *memory.Store, id string) *engine.Engine {
	t.Helper()
	e, err := engine.New(st, engine.Options{Sharing: &engine.Sharing{Store: st, ID: id, TTL: leaseTTL}})
	if err != nil {
		t.Fatalf("New(%s): %v", id, err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func lineBatch(doc, opID string, n int) *enginev1.ExecuteBatchRequest {
	req := &enginev1.ExecuteBatchRequest{DocumentId: doc}
	if opID != "" {
		req.OperationId = &opID
	}
	for i := range n {
		req.Steps = append(req.Steps, st(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": i, "x2": 1, "y2": i}))
	}
	return req
}

// reasonOf is err's engine reason and metadata.
func reasonOf(err error) (enginev1.ErrorReason, map[string]string) {
	var e *engine.Error
	if !errors.As(err, &e) {
		return enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, nil
	}
	return e.Reason(), e.Metadata()
}

func entityCount(t *testing.T, e *engine.Engine, doc string) int64 {
	t.Helper()
	info, err := e.GetDocument(context.Background(), doc)
	if err != nil {
		t.Fatalf("GetDocument(%s): %v", doc, err)
	}
	return info.GetEntityCount()
}

// TestLeaseRoutesToHolder: a call for a document another live engine
// holds is refused NOT_LEASE_HOLDER naming the holder's address; after
// the holder stops gracefully (releasing its leases) the other engine
// takes the document over at once and sees everything the holder
// committed.
func TestLeaseRoutesToHolder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		ms := memory.New()
		a, b := sharedEngine(t, ms, "eng-a"), sharedEngine(t, ms, "eng-b")
		if err := a.Register(ctx, "a:7401"); err != nil {
			t.Fatal(err)
		}
		if err := b.Register(ctx, "b:7401"); err != nil {
			t.Fatal(err)
		}
		info, err := a.CreateDocument(ctx, &enginev1.CreateDocumentRequest{})
		if err != nil {
			t.Fatal(err)
		}
		doc := info.DocumentId
		if resp := runBatch(t, a, engine.Caller{Principal: "p"}, lineBatch(doc, "op-1", 3)); !resp.Ok {
			t.Fatalf("batch on the holder = %v", resp.Results)
		}
		// Past several TTLs the holder still holds it: it renews.
		time.Sleep(3 * leaseTTL)
		_, err = b.ExecuteBatch(ctx, engine.Caller{Principal: "p"}, lineBatch(doc, "op-2", 1))
		if r, meta := reasonOf(err); r != enginev1.ErrorReason_ERROR_REASON_NOT_LEASE_HOLDER || meta["holder"] != "a:7401" || meta["holder_id"] != "eng-a" {
			t.Fatalf("batch on the other engine = %v (%v %v), want NOT_LEASE_HOLDER holder a:7401", err, r, meta)
		}
		if _, err := b.GetDocument(ctx, doc); err == nil {
			t.Errorf("GetDocument on the other engine = nil error, want NOT_LEASE_HOLDER")
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		if got := entityCount(t, b, doc); got != 3 {
			t.Errorf("entities on the engine that took over = %d, want 3", got)
		}
		// The retry of the holder's operation replays there.
		resp := runBatch(t, b, engine.Caller{Principal: "p"}, lineBatch(doc, "op-1", 3))
		if !resp.Ok || !resp.Replayed {
			t.Errorf("retry of op-1 on the new holder: ok %v replayed %v, want a replay", resp.Ok, resp.Replayed)
		}
		if got := entityCount(t, b, doc); got != 3 {
			t.Errorf("entities after the replay = %d, want 3", got)
		}
		op, err := b.GetOperation(ctx, "p", "op-1")
		if err != nil || op.GetStatus() != enginev1.OperationStatus_OPERATION_STATUS_SUCCEEDED {
			t.Errorf("GetOperation(op-1) on the new holder = %v, %v; want succeeded", op, err)
		}
	})
}

// TestLeaseFencesPausedHolder: a holder that stops renewing (paused, cut
// off) while its batch waits loses the document to another engine once
// the lease expires; its commit afterwards is refused LEASE_LOST by the
// store, the document is exactly what the new holder wrote, and the
// operation is unknown on both engines.
func TestLeaseFencesPausedHolder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		ms := memory.New()
		// a never registers, so it never renews: it stands for a paused
		// process.
		a, b := sharedEngine(t, ms, "eng-a"), sharedEngine(t, ms, "eng-b")
		info, err := a.CreateDocument(ctx, &enginev1.CreateDocumentRequest{})
		if err != nil {
			t.Fatal(err)
		}
		doc := info.DocumentId
		release := make(chan struct{})
		waiting := make(chan struct{})
		client := &fakeClient{answer: func(context.Context, *enginev1.ServerRequest) (*enginev1.ServerRequestAnswer, error) {
			close(waiting)
			<-release
			return pointAnswer(5, 5), nil
		}}
		first := lineBatch(doc, "op-a", 0)
		first.Steps = append(first.Steps,
			st(enginev1.ToolPointPick, obj{"prompt": "where?"}, "p"),
			st(enginev1.ToolEntityCreateCircle, obj{"cx": "$p.x", "cy": "$p.y", "radius": 1}))
		errc := make(chan error, 1)
		go func() {
			_, err := a.ExecuteBatch(ctx, engine.Caller{Principal: "p", Client: client}, first)
			errc <- err
		}()
		<-waiting
		time.Sleep(leaseTTL + time.Second)
		if resp := runBatch(t, b, engine.Caller{Principal: "p"}, lineBatch(doc, "op-b", 2)); !resp.Ok {
			t.Fatalf("batch on the engine that took over = %v", resp.Results)
		}
		close(release)
		err = <-errc
		if r, _ := reasonOf(err); r != enginev1.ErrorReason_ERROR_REASON_LEASE_LOST {
			t.Fatalf("the paused holder's batch = %v (%v), want LEASE_LOST", err, r)
		}
		if got := entityCount(t, b, doc); got != 2 {
			t.Errorf("entities = %d, want the second batch's 2", got)
		}
		rec, _, err := ms.LoadDocument(ctx, doc)
		if err != nil || rec.Revision != 2 {
			t.Errorf("stored document = %+v, %v; want revision 2", rec, err)
		}
		for name, e := range map[string]*engine.Engine{"old holder": a, "new holder": b} {
			if _, err := e.GetOperation(ctx, "p", "op-a"); !errors.Is(err, engine.ErrOperationNotFound) {
				t.Errorf("GetOperation(op-a) on the %s = %v, want not found (it never committed)", name, err)
			}
		}
		// The old holder now sends calls to the new one.
		_, err = a.GetDocument(ctx, doc)
		if r, meta := reasonOf(err); r != enginev1.ErrorReason_ERROR_REASON_NOT_LEASE_HOLDER || meta["holder_id"] != "eng-b" {
			t.Errorf("GetDocument on the old holder = %v (%v %v), want NOT_LEASE_HOLDER of eng-b", err, r, meta)
		}
	})
}

// TestLeaseDeadHolder: a holder that is not a live registered engine is
// named with an empty address and a retry hint until its lease expires;
// then the next call takes the document over.
func TestLeaseDeadHolder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		ms := memory.New()
		a, b := sharedEngine(t, ms, "eng-a"), sharedEngine(t, ms, "eng-b")
		info, err := a.CreateDocument(ctx, &enginev1.CreateDocumentRequest{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.GetDocument(ctx, info.DocumentId)
		if r, meta := reasonOf(err); r != enginev1.ErrorReason_ERROR_REASON_NOT_LEASE_HOLDER || meta["holder"] != "" || meta["retry_after_ms"] == "" {
			t.Fatalf("GetDocument while the dead holder's lease lives = %v (%v %v), want NOT_LEASE_HOLDER without holder, with retry_after_ms", err, r, meta)
		}
		time.Sleep(leaseTTL + time.Millisecond)
		if _, err := b.GetDocument(ctx, info.DocumentId); err != nil {
			t.Errorf("GetDocument after the lease expired = %v, want the takeover", err)
		}
	})
}

// TestSingleEngineTakesNoLeases: without Sharing nothing is leased.
func TestSingleEngineTakesNoLeases(t *testing.T) {
	ctx := context.Background()
	ms := memory.New()
	e := newEngine(t, ms)
	info, err := e.CreateDocument(ctx, &enginev1.CreateDocumentRequest{})
	if err != nil {
		t.Fatal(err)
	}
	runBatch(t, e, engine.Caller{Principal: "p"}, lineBatch(info.DocumentId, "", 2))
	if l, err := ms.Holder(ctx, info.DocumentId); err != nil || l != nil {
		t.Errorf("Holder = %+v, %v; want no lease", l, err)
	}
}

// loadCounting is a shared memory store that counts the documents loaded
// from it.
type loadCounting struct {
	*memory.Store
	loads atomic.Int64
}

func (s *loadCounting) LoadDocument(ctx context.Context, id string) (*store.DocumentRecord, []store.EntityRecord, error) {
	s.loads.Add(1)
	return s.Store.LoadDocument(ctx, id)
}

// TestListDocumentsFromRows: an engine lists a document that another
// engine holds from its row — entity counts, layers' included, as the
// holder describes it — without loading its entities; a row written
// before the counts were kept is loaded, and described the same.
func TestListDocumentsFromRows(t *testing.T) {
	ctx := context.Background()
	shared := &loadCounting{Store: memory.New()}
	newEngine := func(id string) *engine.Engine {
		e, err := engine.New(shared, engine.Options{Sharing: &engine.Sharing{Store: shared, ID: id, TTL: leaseTTL}})
		if err != nil {
			t.Fatalf("New(%s): %v", id, err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	a, b := newEngine("engine-a"), newEngine("engine-b")
	info, err := a.CreateDocument(ctx, &enginev1.CreateDocumentRequest{})
	if err != nil {
		t.Fatal(err)
	}
	doc := info.DocumentId
	batch := lineBatch(doc, "", 3)
	batch.Steps = append(batch.Steps,
		st(enginev1.ToolLayerCreate, obj{"name": "walls", "color": 1}),
		st(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 1, "layer": "walls"}))
	if resp, err := a.ExecuteBatch(ctx, engine.Caller{Principal: "alice"}, batch); err != nil || !resp.Ok {
		t.Fatalf("ExecuteBatch: %v %v", resp.GetError(), err)
	}
	held, err := a.GetDocument(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	list := func() *enginev1.DocumentInfo {
		t.Helper()
		shared.loads.Store(0)
		resp, err := b.ListDocuments(ctx, &enginev1.ListDocumentsRequest{})
		if err != nil || len(resp.Documents) != 1 {
			t.Fatalf("ListDocuments = %v, %v; want one document", resp, err)
		}
		return resp.Documents[0]
	}
	if got := list(); !proto.Equal(got, held) || shared.loads.Load() != 0 {
		t.Errorf("listed %v after %d loads, want %v and no load", got, shared.loads.Load(), held)
	}

	// The same row as written before the layers had counts.
	rec, _, err := shared.Store.LoadDocument(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rec.Layers {
		rec.Layers[i].Entities = nil
	}
	if err := shared.Store.Commit(ctx, &store.Commit{Document: rec}); err != nil {
		t.Fatal(err)
	}
	if got := list(); !proto.Equal(got, held) || shared.loads.Load() != 1 {
		t.Errorf("listed %v after %d loads, want %v after one load", got, shared.loads.Load(), held)
	}
}
