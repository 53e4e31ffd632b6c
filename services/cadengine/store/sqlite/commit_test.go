package sqlite

import (
	"context"
	"path/filepath"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// testCommit is a commit of document id with the entities of handles.
func testCommit(id string, handles ...uint64) *store.Commit {
	c := &store.Commit{Document: &store.DocumentRecord{ID: id, Name: id, CreatedAt: time.Unix(0, 1), Revision: int64(len(handles)), NextHandle: 100}}
	for _, h := range handles {
		c.Put = append(c.Put, store.EntityRecord{Handle: h, Data: []byte{byte(h)}})
	}
	return c
}

// storedHandles are the handles of the entities stored for document id.
func storedHandles(t *testing.T, s *Store, id string) []uint64 {
	t.Helper()
	ents, err := s.loadEntities(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var hs []uint64
	for _, e := range ents {
		hs = append(hs, e.Handle)
	}
	return hs
}

// openCommitted opens a store in a new file and commits document doc-1
// with entity 1 to it; the store closes when the test ends.
func openCommitted(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "cadengine.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Commit(context.Background(), testCommit("doc-1", 1)); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCommitOnReplacedConnection: once database/sql has replaced the
// store's connection, commits prepare their statements again on the new
// one and go on.
func TestCommitOnReplacedConnection(t *testing.T) {
	s := openCommitted(t)
	ctx := context.Background()
	first := s.commits.conn
	s.db.SetMaxIdleConns(0) // every connection handed back is closed
	for h := uint64(2); h <= 3; h++ {
		if err := s.Commit(ctx, testCommit("doc-1", h)); err != nil {
			t.Fatalf("commit after the connection was replaced: %v", err)
		}
		if s.commits.conn == first {
			t.Fatal("the commit ran on the closed connection's statements")
		}
		first = s.commits.conn
	}
	if got := storedHandles(t, s, "doc-1"); len(got) != 3 {
		t.Errorf("stored handles = %v, want 1, 2 and 3", got)
	}
}

// TestCommitStartsNoGoroutine: a commit under a context that is never
// cancelled runs without the goroutines database/sql and the driver start
// to watch a context (see commitConn).
func TestCommitStartsNoGoroutine(t *testing.T) {
	s := openCommitted(t)
	ctx := context.Background()
	const commits = 50
	started := goroutinesCreated()
	for h := uint64(2); h < 2+commits; h++ {
		if err := s.Commit(ctx, testCommit("doc-1", h)); err != nil {
			t.Fatal(err)
		}
	}
	// Fewer than one a commit, not none: the runtime may start one of its
	// own meanwhile. Through database/sql, each commit started one.
	if n := goroutinesCreated() - started; n >= commits {
		t.Errorf("%d commits started %d goroutines, want none", commits, n)
	}
}

// goroutinesCreated is how many goroutines the process has started.
func goroutinesCreated() uint64 {
	m := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}
