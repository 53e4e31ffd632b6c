package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// testSharedSeesCommits checks that what one store commits, a second store
// over the same storage loads, as a second engine would.
func testSharedSeesCommits(t *testing.T, h Harness) {
	ctx := context.Background()
	a := open(t, h)
	b := share(t, h, a)
	doc := document("doc-1", 1)
	op := operation("alice", "op-1", t0, true)
	commit(t, a, &store.Commit{Document: doc, Put: []store.EntityRecord{entity(0x100, 1)}, Operations: []store.OperationRecord{op}})
	if err := a.SaveSession(ctx, "ses-1", []byte("state")); err != nil {
		t.Fatalf("SaveSession: %v", err)
	}
	wantDocument(t, b, doc, []store.EntityRecord{entity(0x100, 1)})
	wantOperations(t, b, op)
	if got, err := b.LoadSessions(ctx); err != nil || string(got["ses-1"]) != "state" {
		t.Errorf("LoadSessions on the second store = %q, %v; want ses-1's state", got, err)
	}

	// And back: the second store's commit replaces the first's.
	next := document("doc-1", 2)
	commit(t, b, &store.Commit{Document: next, Delete: []uint64{0x100}, Put: []store.EntityRecord{entity(0x101, 2)}})
	wantDocument(t, a, next, []store.EntityRecord{entity(0x101, 2)})
}

// tagged is the entity h as the commit with tag wrote it.
func tagged(h uint64, tag int64) store.EntityRecord {
	return store.EntityRecord{Handle: h, Data: fmt.Appendf(nil, "commit %d, entity %x", tag, h)}
}

// testSharedSameDocument commits one document from two stores at once,
// each commit replacing every entity and the row: whichever commit came
// last, the stored document is that commit whole, never a mix of two.
func testSharedSameDocument(t *testing.T, h Harness) {
	a := open(t, h)
	stores := []store.Store{a, share(t, h, a)}
	const writers, commits, ents = 4, 20, 16
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		s := stores[w%len(stores)]
		wg.Go(func() {
			for i := range commits {
				tag := int64(w*1000 + i + 1)
				c := &store.Commit{Document: document("doc-1", tag)}
				for e := range uint64(ents) {
					c.Put = append(c.Put, tagged(0x100+e, tag))
				}
				if err := s.Commit(context.Background(), c); err != nil {
					errs <- fmt.Errorf("writer %d, commit %d: %w", w, i, err)
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
	for _, s := range stores {
		got, ok := load(t, s)["doc-1"]
		if !ok {
			t.Fatal("Load has no doc-1")
		}
		tag := got.doc.Revision
		if len(got.ents) != ents {
			t.Fatalf("Load doc-1 = %d entities, want %d", len(got.ents), ents)
		}
		for _, e := range got.ents {
			if want := tagged(e.Handle, tag); !bytes.Equal(e.Data, want.Data) {
				t.Errorf("entity %x = %q with the row of commit %d: a torn commit", e.Handle, e.Data, tag)
			}
		}
	}
}

// testSharedReadsOne checks [store.Shared]'s reads of one document and one
// journal record, for a store that implements it (SQLite serves one
// engine and does not).
func testSharedReadsOne(t *testing.T, h Harness) {
	ctx := context.Background()
	a, b := sharedPair(t, h)
	doc := document("doc-1", 3)
	op := operation("alice", "op-1", t0, true)
	ents := []store.EntityRecord{entity(0x100, 1), entity(0x102, 2)}
	commit(t, a, &store.Commit{Document: doc, Put: ents, Operations: []store.OperationRecord{op}})
	commit(t, a, &store.Commit{Document: document("doc-2", 1), Put: []store.EntityRecord{entity(0x101, 9)}})

	got, gotEnts, err := b.LoadDocument(ctx, "doc-1")
	if err != nil {
		t.Fatalf("LoadDocument(doc-1) = %v", err)
	}
	if !sameDocument(*got, *doc) || !sameEntities(gotEnts, ents) {
		t.Errorf("LoadDocument(doc-1) = %+v, %v; want %+v, %v", *got, gotEnts, *doc, ents)
	}
	if _, _, err := b.LoadDocument(ctx, "doc-9"); !errors.Is(err, store.ErrNoDocument) {
		t.Errorf("LoadDocument(doc-9) = %v, want ErrNoDocument", err)
	}
	rec, err := b.LoadOperation(ctx, "alice", "op-1")
	if err != nil || rec == nil || rec.ID != "op-1" || rec.Status != op.Status || !bytes.Equal(rec.Response, op.Response) || !rec.StartedAt.Equal(op.StartedAt) {
		t.Errorf("LoadOperation(alice, op-1) = %+v, %v; want %+v", rec, err, op)
	}
	if rec, err := b.LoadOperation(ctx, "bob", "op-1"); rec != nil || err != nil {
		t.Errorf("LoadOperation(bob, op-1) = %+v, %v; want nil, nil", rec, err)
	}
	for id, data := range map[string]string{"ses-1": "state", "ses-2": ""} {
		if err := a.SaveSession(ctx, id, []byte(data)); err != nil {
			t.Fatalf("SaveSession(%s): %v", id, err)
		}
		if got, err := b.LoadSession(ctx, id); err != nil || got == nil || string(got) != data {
			t.Errorf("LoadSession(%s) = %q (nil %v), %v; want %q", id, got, got == nil, err, data)
		}
	}
	if got, err := b.LoadSession(ctx, "ses-9"); got != nil || err != nil {
		t.Errorf("LoadSession(ses-9) = %q, %v; want nil, nil", got, err)
	}
}

// sharedPair opens a store and a second one over the same storage, as
// [store.Shared], or skips the test for a store that is not shared.
func sharedPair(t *testing.T, h Harness) (store.Store, store.Shared) {
	t.Helper()
	a := open(t, h)
	b, ok := share(t, h, a).(store.Shared)
	if !ok {
		t.Skipf("the %s store is not shared", a.Kind())
	}
	return a, b
}

// testSharedList: a second store over the same storage lists every
// document's row in creation order (then by id), a page at a time.
func testSharedList(t *testing.T, h Harness) {
	ctx := context.Background()
	a, b := sharedPair(t, h)
	var want []*store.DocumentRecord
	for i, id := range []string{"doc-c", "doc-a", "doc-b", "doc-d"} {
		d := document(id, int64(i+1))
		d.CreatedAt = t0.Add(time.Duration(min(i, 2)) * time.Microsecond) // doc-b and doc-d at once: by id
		commit(t, a, &store.Commit{Document: d, Put: []store.EntityRecord{entity(0x100, byte(i))}})
		want = append(want, d)
	}
	var got []store.DocumentRecord
	after := store.DocumentKey{}
	for range len(want) {
		page, err := b.ListDocuments(ctx, after, 3)
		if err != nil {
			t.Fatalf("ListDocuments(%+v, 3): %v", after, err)
		}
		if len(page) == 0 {
			break
		}
		got = append(got, page[0])
		after = store.DocumentKey{CreatedAt: page[0].CreatedAt, ID: page[0].ID}
		if len(page) > 3 {
			t.Errorf("ListDocuments(_, 3) = %d rows", len(page))
		}
	}
	same := len(got) == len(want)
	for i := 0; same && i < len(want); i++ {
		same = sameDocument(got[i], *want[i])
	}
	if !same {
		var ids []string
		for _, d := range got {
			ids = append(ids, d.ID)
		}
		t.Errorf("ListDocuments one by one = %v, want doc-c, doc-a, doc-b, doc-d with their rows", ids)
	}
	if page, err := b.ListDocuments(ctx, after, 3); err != nil || len(page) != 0 {
		t.Errorf("ListDocuments after the last = %d rows, %v; want none", len(page), err)
	}
}
