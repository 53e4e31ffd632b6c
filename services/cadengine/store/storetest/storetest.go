// Package storetest is the conformance suite every [store.Store] passes:
// what a commit writes is what a load reads, atomically and durably,
// whatever the store; two stores over the same storage see each other's
// commits and never tear one; leases fence writers ([store.Leases]),
// beside the registry of engines ([store.Registry]); and a shared store
// keeps sessions' event logs under their leases ([store.Events]) and
// carries events between engines ([store.Handoffs]).
package storetest

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// Harness makes stores for the suite.
type Harness struct {
	// Open returns a new, empty store. The suite closes it.
	Open func(t *testing.T) store.Store
	// Reopen stands for a restart: it lets go of s as a process that ends
	// would and returns a store over the same storage. For a store that
	// keeps nothing beyond the process, it returns s itself.
	Reopen func(t *testing.T, s store.Store) store.Store
	// Share, when not nil, returns a second store over the same storage
	// as s, open at the same time as s, as a second engine sharing it
	// would have. The suite closes it. Nil stands for a store that cannot
	// be opened twice (memory): the suite then shares s itself.
	Share func(t *testing.T, s store.Store) store.Store
}

// Run runs the suite.
func Run(t *testing.T, h Harness) {
	tests := []struct {
		name string
		fn   func(t *testing.T, h Harness)
	}{
		{"Empty", testEmpty},
		{"DocumentRoundTrip", testDocumentRoundTrip},
		{"PutAndDelete", testPutAndDelete},
		{"SeveralDocuments", testSeveralDocuments},
		{"ManyEntities", testManyEntities},
		{"PutTwice", testPutTwice},
		{"BigCommit", testBigCommit},
		{"Operations", testOperations},
		{"DocumentAndJournalTogether", testTogether},
		{"Prune", testPrune},
		{"Sessions", testSessions},
		{"Copies", testCopies},
		{"Concurrent", testConcurrent},
		{"Closed", testClosed},
		{"SharedSeesCommits", testSharedSeesCommits},
		{"SharedSameDocument", testSharedSameDocument},
		{"SharedReadsOne", testSharedReadsOne},
		{"SharedList", testSharedList},
		{"EventsRoundTrip", testEventsRoundTrip},
		{"EventsKeep", testEventsKeep},
		{"EventsFenced", testEventsFenced},
		{"EventsDeleteSession", testEventsDeleteSession},
		{"HandoffsRoundTrip", testHandoffsRoundTrip},
		{"HandoffsEmitted", testHandoffsEmitted},
		{"HandoffsDeleteSession", testHandoffsDeleteSession},
		{"LeaseGrant", testLeaseGrant},
		{"LeaseGrantInvalid", testLeaseGrantInvalid},
		{"LeaseGrantRace", testLeaseGrantRace},
		{"LeaseEpochGrows", testLeaseEpochGrows},
		{"LeaseRenew", testLeaseRenew},
		{"LeaseRelease", testLeaseRelease},
		{"LeaseFence", testLeaseFence},
		{"LeaseTakeover", testLeaseTakeover},
		{"Registry", testRegistry},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, h) })
	}
}

// open opens a store that is closed when the test ends.
func open(t *testing.T, h Harness) store.Store {
	s := h.Open(t)
	t.Cleanup(func() { s.Close() })
	return s
}

// share returns a second store over s's storage, closed when the test
// ends, or s itself when the store cannot be shared.
func share(t *testing.T, h Harness, s store.Store) store.Store {
	if h.Share == nil {
		return s
	}
	r := h.Share(t, s)
	t.Cleanup(func() { r.Close() })
	return r
}

func reopen(t *testing.T, h Harness, s store.Store) store.Store {
	r := h.Reopen(t, s)
	if r != s {
		t.Cleanup(func() { r.Close() })
	}
	return r
}

var t0 = time.Date(2026, 12, 1, 8, 0, 0, 123456789, time.UTC)

func document(id string, revision int64) *store.DocumentRecord {
	return &store.DocumentRecord{
		ID:           id,
		Name:         "drawing " + id,
		Units:        enginev1.Units_UNITS_MM,
		CreatedAt:    t0,
		Revision:     revision,
		NextHandle:   0x200,
		CurrentLayer: "walls",
		Layers: []store.LayerRecord{
			{Name: "0", Color: 7, Linetype: "Continuous", Lineweight: -3, On: true},
			{Name: "walls", Color: 1, Linetype: "DASHED", Lineweight: 50, On: true, Locked: true, Entities: new(int64(2))},
			{Name: "hidden", Color: 250, Linetype: "Continuous", Lineweight: 0, Frozen: true},
		},
		ContentHash: fmt.Sprintf("%064x", revision),
	}
}

func entity(h uint64, v byte) store.EntityRecord {
	return store.EntityRecord{Handle: h, Data: []byte{'E', 1, v, byte(h), byte(h >> 8), 0, 0xff}}
}

// loaded is everything Load reports, by document id.
type loaded map[string]struct {
	doc  store.DocumentRecord
	ents []store.EntityRecord
}

func load(t *testing.T, s store.Store) loaded {
	t.Helper()
	out := loaded{}
	err := s.Load(context.Background(), func(d *store.DocumentRecord, ents []store.EntityRecord) error {
		if _, ok := out[d.ID]; ok {
			return fmt.Errorf("document %s loaded twice", d.ID)
		}
		out[d.ID] = struct {
			doc  store.DocumentRecord
			ents []store.EntityRecord
		}{*d, ents}
		return nil
	})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return out
}

func commit(t *testing.T, s store.Store, c *store.Commit) {
	t.Helper()
	if err := s.Commit(context.Background(), c); err != nil {
		t.Fatalf("Commit: %v", err)
	}
}

func sameDocument(a, b store.DocumentRecord) bool {
	return a.ID == b.ID && a.Name == b.Name && a.Units == b.Units && a.CreatedAt.Equal(b.CreatedAt) &&
		a.Revision == b.Revision && a.NextHandle == b.NextHandle && a.CurrentLayer == b.CurrentLayer &&
		slices.EqualFunc(a.Layers, b.Layers, sameLayer) && a.ContentHash == b.ContentHash
}

// sameLayer compares layer records by value, their counts included.
func sameLayer(a, b store.LayerRecord) bool {
	ca, cb := a.Entities, b.Entities
	a.Entities, b.Entities = nil, nil
	return a == b && (ca == nil) == (cb == nil) && (ca == nil || *ca == *cb)
}

func sameEntities(a, b []store.EntityRecord) bool {
	return slices.EqualFunc(a, b, func(x, y store.EntityRecord) bool {
		return x.Handle == y.Handle && bytes.Equal(x.Data, y.Data)
	})
}

// wantDocument checks that s holds exactly doc with ents (in handle order).
func wantDocument(t *testing.T, s store.Store, doc *store.DocumentRecord, ents []store.EntityRecord) {
	t.Helper()
	got, ok := load(t, s)[doc.ID]
	if !ok {
		t.Fatalf("Load has no document %s", doc.ID)
	}
	if !sameDocument(got.doc, *doc) {
		t.Errorf("Load document %s = %+v, want %+v", doc.ID, got.doc, *doc)
	}
	if !sameEntities(got.ents, ents) {
		if len(got.ents)+len(ents) <= 20 {
			t.Errorf("Load entities of %s = %v, want %v", doc.ID, got.ents, ents)
			return
		}
		i := 0
		for i < min(len(got.ents), len(ents)) && sameEntities(got.ents[i:i+1], ents[i:i+1]) {
			i++
		}
		t.Errorf("Load entities of %s: %d entities, want %d; they differ from index %d on", doc.ID, len(got.ents), len(ents), i)
	}
}

func testEmpty(t *testing.T, h Harness) {
	s := open(t, h)
	if s.Kind() == "" {
		t.Error("Kind() is empty")
	}
	if got := load(t, s); len(got) != 0 {
		t.Errorf("Load of an empty store = %v, want nothing", got)
	}
	if got := operations(t, s); len(got) != 0 {
		t.Errorf("LoadOperations of an empty store = %v, want nothing", got)
	}
	sessions, err := s.LoadSessions(context.Background())
	if err != nil || len(sessions) != 0 {
		t.Errorf("LoadSessions of an empty store = %v, %v; want none", sessions, err)
	}
}

func testDocumentRoundTrip(t *testing.T, h Harness) {
	s := open(t, h)
	doc := document("doc-1", 3)
	ents := []store.EntityRecord{entity(0x100, 1), entity(0x101, 2), entity(0x1FF, 3)}
	// Put in another order than handles: Load reports handle order.
	commit(t, s, &store.Commit{Document: doc, Put: []store.EntityRecord{ents[2], ents[0], ents[1]}})
	wantDocument(t, s, doc, ents)
	wantDocument(t, reopen(t, h, s), doc, ents)
}

func testPutAndDelete(t *testing.T, h Harness) {
	s := open(t, h)
	doc := document("doc-1", 1)
	commit(t, s, &store.Commit{Document: doc, Put: []store.EntityRecord{entity(0x100, 1), entity(0x101, 1), entity(0x102, 1)}})
	next := document("doc-1", 2)
	next.Name, next.CurrentLayer, next.NextHandle = "renamed", "0", 0x300
	next.Layers = next.Layers[:2]
	commit(t, s, &store.Commit{
		Document: next,
		Put:      []store.EntityRecord{entity(0x101, 9), entity(0x103, 1)}, // replace one, add one
		Delete:   []uint64{0x100, 0x999},                                   // an unknown handle is no error
	})
	want := []store.EntityRecord{entity(0x101, 9), entity(0x102, 1), entity(0x103, 1)}
	wantDocument(t, s, next, want)
	wantDocument(t, reopen(t, h, s), next, want)
}

func testSeveralDocuments(t *testing.T, h Harness) {
	s := open(t, h)
	a, b := document("doc-a", 1), document("doc-b", 7)
	commit(t, s, &store.Commit{Document: a, Put: []store.EntityRecord{entity(0x100, 1)}})
	commit(t, s, &store.Commit{Document: b, Put: []store.EntityRecord{entity(0x100, 2), entity(0x101, 2)}})
	// A delete in one document leaves the same handle in another alone.
	commit(t, s, &store.Commit{Document: a, Delete: []uint64{0x100}})
	if got := load(t, s); len(got) != 2 {
		t.Fatalf("Load = %d documents, want 2", len(got))
	}
	wantDocument(t, s, a, nil)
	wantDocument(t, s, b, []store.EntityRecord{entity(0x100, 2), entity(0x101, 2)})
}

func testManyEntities(t *testing.T, h Harness) {
	s := open(t, h)
	doc := document("doc-big", 1)
	var ents []store.EntityRecord
	for i := range 2500 {
		ents = append(ents, entity(0x100+uint64(i), byte(i)))
	}
	commit(t, s, &store.Commit{Document: doc, Put: ents})
	var del []uint64
	for i := 0; i < len(ents); i += 2 {
		del = append(del, ents[i].Handle)
	}
	commit(t, s, &store.Commit{Document: doc, Delete: del})
	var want []store.EntityRecord
	for i := 1; i < len(ents); i += 2 {
		want = append(want, ents[i])
	}
	wantDocument(t, reopen(t, h, s), doc, want)
}

func operation(principal, id string, started time.Time, finished bool) store.OperationRecord {
	op := store.OperationRecord{
		Principal:      principal,
		ID:             id,
		Kind:           gatewayv1.MethodCadBatch,
		DocumentID:     "doc-1",
		RequestHash:    []byte{1, 2, 3, 4, 5, 6, 7, 8},
		Status:         enginev1.OperationStatus_OPERATION_STATUS_RUNNING,
		CommittedSteps: []int32{0, 2, 5},
		Revision:       4,
		Response:       []byte{0x0a, 0x03, 'o', 'p', '1'},
		StartedAt:      started,
	}
	if finished {
		op.Status = enginev1.OperationStatus_OPERATION_STATUS_SUCCEEDED
		op.FinishedAt = started.Add(time.Second)
	}
	return op
}

func operations(t *testing.T, s store.Store) []store.OperationRecord {
	t.Helper()
	var out []store.OperationRecord
	if err := s.LoadOperations(context.Background(), func(op *store.OperationRecord) error {
		out = append(out, *op)
		return nil
	}); err != nil {
		t.Fatalf("LoadOperations: %v", err)
	}
	return out
}

func sameOperation(a, b store.OperationRecord) bool {
	return a.Principal == b.Principal && a.ID == b.ID && a.Kind == b.Kind && a.DocumentID == b.DocumentID &&
		bytes.Equal(a.RequestHash, b.RequestHash) && a.Status == b.Status &&
		slices.Equal(a.CommittedSteps, b.CommittedSteps) && a.Revision == b.Revision &&
		bytes.Equal(a.Response, b.Response) && a.StartedAt.Equal(b.StartedAt) &&
		a.FinishedAt.IsZero() == b.FinishedAt.IsZero() && a.FinishedAt.Equal(b.FinishedAt)
}

func wantOperations(t *testing.T, s store.Store, want ...store.OperationRecord) {
	t.Helper()
	got := operations(t, s)
	if !slices.EqualFunc(got, want, sameOperation) {
		t.Errorf("LoadOperations = %+v, want (oldest first) %+v", got, want)
	}
}

func testOperations(t *testing.T, h Harness) {
	s := open(t, h)
	second := operation("alice", "op-2", t0.Add(time.Minute), false)
	first := operation("alice", "op-1", t0, true)
	other := operation("bob", "op-1", t0.Add(2*time.Minute), false) // same id, another principal
	other.Kind, other.DocumentID, other.CommittedSteps, other.Response = "entity_get", "", nil, nil
	commit(t, s, &store.Commit{Operations: []store.OperationRecord{second}})
	commit(t, s, &store.Commit{Operations: []store.OperationRecord{first, other}})
	wantOperations(t, s, first, second, other)

	// A record with the same principal and id replaces the earlier one.
	done := second
	done.Status, done.FinishedAt, done.CommittedSteps = enginev1.OperationStatus_OPERATION_STATUS_FAILED, t0.Add(3*time.Minute), []int32{0}
	commit(t, s, &store.Commit{Operations: []store.OperationRecord{done}})
	wantOperations(t, s, first, done, other)
	wantOperations(t, reopen(t, h, s), first, done, other)
}

func testTogether(t *testing.T, h Harness) {
	s := open(t, h)
	doc := document("doc-1", 1)
	op := operation("alice", "op-1", t0, true)
	commit(t, s, &store.Commit{Document: doc, Put: []store.EntityRecord{entity(0x100, 1)}, Operations: []store.OperationRecord{op}})
	s = reopen(t, h, s)
	wantDocument(t, s, doc, []store.EntityRecord{entity(0x100, 1)})
	wantOperations(t, s, op)
}

func testPrune(t *testing.T, h Harness) {
	s := open(t, h)
	old := operation("alice", "old", t0, true)                      // finished t0+1s
	running := operation("alice", "running", t0, false)             // never finished
	recent := operation("alice", "recent", t0.Add(time.Hour), true) // finished t0+1h+1s
	commit(t, s, &store.Commit{Operations: []store.OperationRecord{old, running, recent}})
	if err := s.PruneOperations(context.Background(), t0.Add(time.Minute)); err != nil {
		t.Fatalf("PruneOperations: %v", err)
	}
	wantOperations(t, s, running, recent)
	wantOperations(t, reopen(t, h, s), running, recent)
}

func testSessions(t *testing.T, h Harness) {
	ctx := context.Background()
	s := open(t, h)
	for id, data := range map[string][]byte{"ses-1": []byte("one"), "ses-2": {0, 1, 2}} {
		if err := s.SaveSession(ctx, id, data); err != nil {
			t.Fatalf("SaveSession(%s): %v", id, err)
		}
	}
	if err := s.SaveSession(ctx, "ses-1", []byte("one, again")); err != nil {
		t.Fatalf("SaveSession(ses-1) again: %v", err)
	}
	if err := s.DeleteSession(ctx, "ses-2"); err != nil {
		t.Fatalf("DeleteSession(ses-2): %v", err)
	}
	if err := s.DeleteSession(ctx, "ses-unknown"); err != nil {
		t.Errorf("DeleteSession of an unknown id = %v, want nil", err)
	}
	want := map[string][]byte{"ses-1": []byte("one, again")}
	check := func(s store.Store) {
		t.Helper()
		got, err := s.LoadSessions(ctx)
		if err != nil || !maps.EqualFunc(got, want, bytes.Equal) {
			t.Errorf("LoadSessions = %q, %v; want %q", got, err, want)
		}
	}
	check(s)
	check(reopen(t, h, s))
}

// testCopies checks that a store keeps its own copies: changing what was
// committed, or what a load returned, changes nothing stored.
func testCopies(t *testing.T, h Harness) {
	ctx := context.Background()
	s := open(t, h)
	doc := document("doc-1", 1)
	want := *doc
	want.Layers = slices.Clone(doc.Layers)
	ents := []store.EntityRecord{entity(0x100, 1)}
	op := operation("alice", "op-1", t0, true)
	wantOp := op
	wantOp.RequestHash, wantOp.Response = slices.Clone(op.RequestHash), slices.Clone(op.Response)
	commit(t, s, &store.Commit{Document: doc, Put: ents, Operations: []store.OperationRecord{op}})
	doc.Layers[0].Name, ents[0].Data[0], op.RequestHash[0], op.Response[0] = "changed", 'X', 99, 99
	session := []byte("state")
	if err := s.SaveSession(ctx, "ses-1", session); err != nil {
		t.Fatal(err)
	}
	session[0] = 'X'

	got := load(t, s)["doc-1"]
	got.doc.Layers[0].Name, got.ents[0].Data[0] = "changed again", 'Y'
	wantDocument(t, s, &want, []store.EntityRecord{entity(0x100, 1)})
	wantOperations(t, s, wantOp)
	if sessions, err := s.LoadSessions(ctx); err != nil || string(sessions["ses-1"]) != "state" {
		t.Errorf("LoadSessions = %q, %v; want the state as saved", sessions, err)
	}
}

func testConcurrent(t *testing.T, h Harness) {
	s := open(t, h)
	const docs, commits = 4, 25
	var wg sync.WaitGroup
	errs := make(chan error, docs)
	for d := range docs {
		wg.Go(func() {
			id := fmt.Sprintf("doc-%d", d)
			for i := range commits {
				c := &store.Commit{
					Document:   document(id, int64(i+1)),
					Put:        []store.EntityRecord{entity(0x100+uint64(i), byte(d))},
					Operations: []store.OperationRecord{operation("alice", fmt.Sprintf("%s-%d", id, i), t0.Add(time.Duration(i)*time.Second), true)},
				}
				if err := s.Commit(context.Background(), c); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent Commit: %v", err)
	}
	got := load(t, s)
	for d := range docs {
		id := fmt.Sprintf("doc-%d", d)
		if g := got[id]; g.doc.Revision != commits || len(g.ents) != commits {
			t.Errorf("document %s = revision %d with %d entities, want %d and %d", id, g.doc.Revision, len(g.ents), commits, commits)
		}
	}
	if n := len(operations(t, s)); n != docs*commits {
		t.Errorf("LoadOperations = %d records, want %d", n, docs*commits)
	}
}

func testClosed(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.Open(t)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Commit(ctx, &store.Commit{Document: document("doc-1", 1)}); err == nil {
		t.Error("Commit after Close succeeded")
	}
	if err := s.Load(ctx, func(*store.DocumentRecord, []store.EntityRecord) error { return nil }); err == nil {
		t.Error("Load after Close succeeded")
	}
	if err := s.SaveSession(ctx, "ses-1", nil); err == nil {
		t.Error("SaveSession after Close succeeded")
	}
	if l, ok := s.(store.Leases); ok {
		if _, err := l.Grant(ctx, "doc-1", "engine-a", time.Minute); err == nil {
			t.Error("Grant after Close succeeded")
		}
	}
}

func testPutTwice(t *testing.T, h Harness) {
	s := open(t, h)
	doc := document("doc-1", 1)
	commit(t, s, &store.Commit{Document: doc, Put: []store.EntityRecord{entity(0x100, 1), entity(0x101, 1)}})
	next := document("doc-1", 2)
	commit(t, s, &store.Commit{
		Document: next,
		Delete:   []uint64{0x101, 0x102},                                                     // deletes apply first,
		Put:      []store.EntityRecord{entity(0x102, 5), entity(0x100, 2), entity(0x100, 3)}, // and the last put stays
	})
	want := []store.EntityRecord{entity(0x100, 3), entity(0x102, 5)}
	wantDocument(t, s, next, want)
	wantDocument(t, reopen(t, h, s), next, want)
}

// bigEntity is an entity record of about the size of a real one.
func bigEntity(h uint64, v byte) store.EntityRecord {
	data := bytes.Repeat([]byte{v}, 160)
	return store.EntityRecord{Handle: h, Data: fmt.Appendf(data, "entity %x", h)}
}

// testBigCommit commits tens of thousands of entities at once, then
// replaces, deletes and adds thousands in one more commit.
func testBigCommit(t *testing.T, h Harness) {
	s := open(t, h)
	const n = 20000
	want := map[uint64]store.EntityRecord{}
	var put []store.EntityRecord
	for i := range uint64(n) {
		e := bigEntity(0x100+i, byte(i))
		put = append(put, e)
		want[e.Handle] = e
	}
	commit(t, s, &store.Commit{Document: document("doc-big", 1), Put: put})

	c := &store.Commit{Document: document("doc-big", 2)}
	for i := uint64(0); i < n; i += 5 {
		c.Delete = append(c.Delete, 0x100+i)
		delete(want, 0x100+i)
	}
	for i := uint64(0); i < n+2000; i += 3 { // replaces, revives deleted ones, adds new ones
		e := bigEntity(0x100+i, 0xEE)
		c.Put = append(c.Put, e)
		want[e.Handle] = e
	}
	commit(t, s, c)
	var ents []store.EntityRecord
	for _, h := range slices.Sorted(maps.Keys(want)) {
		ents = append(ents, want[h])
	}
	wantDocument(t, reopen(t, h, s), c.Document, ents)
}
