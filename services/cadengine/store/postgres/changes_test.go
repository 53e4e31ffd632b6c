package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/postgres/postgrestest"
)

// TestWatchChanges: a commit under a lease through one store is told to
// a watcher on another store of the same schema, with its ids; a commit
// that is fenced, and one without a lease, are not; a watcher on another
// schema hears nothing.
func TestWatchChanges(t *testing.T) {
	url := postgrestest.URL(t)
	a, b := open(t, url), open(t, url)
	elsewhere := open(t, postgrestest.URL(t))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan store.DocumentChange, 10)
	stray := make(chan store.DocumentChange, 10)
	go b.WatchChanges(ctx, func(ch store.DocumentChange) { got <- ch })
	go elsewhere.WatchChanges(ctx, func(ch store.DocumentChange) { stray <- ch })

	lease, err := a.Grant(ctx, "doc-1", "eng-a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	rec := store.DocumentRecord{ID: "doc-1", Name: "d", CurrentLayer: "0", Layers: []store.LayerRecord{{Name: "0"}}}
	commitRev := func(rev int64, l *store.Lease, op string) error {
		r := rec
		r.Revision = rev
		c := &store.Commit{Document: &r, Lease: l}
		if op != "" {
			c.Operations = []store.OperationRecord{{Principal: "p", ID: op, Kind: "cad.batch", DocumentID: "doc-1", StartedAt: time.Now()}}
		}
		return a.Commit(ctx, c)
	}
	// LISTEN runs on the watcher's own goroutine: commit until it hears.
	var first store.DocumentChange
	for rev := int64(1); ; rev++ {
		if err := commitRev(rev, &lease, "op-1"); err != nil {
			t.Fatal(err)
		}
		select {
		case first = <-got:
		case <-time.After(200 * time.Millisecond):
			continue
		}
		break
	}
	if first.DocumentID != "doc-1" || first.Holder != "eng-a" || first.OperationID != "op-1" || first.Revision < 1 {
		t.Errorf("change = %+v, want doc-1 by eng-a in op-1", first)
	}
	for len(got) > 0 {
		<-got
	}
	stale := lease
	if _, err := a.Grant(ctx, "doc-1", "eng-b", time.Minute); err == nil {
		t.Fatal("Grant to eng-b while eng-a holds = nil error")
	}
	if err := a.Release(ctx, lease); err != nil {
		t.Fatal(err)
	}
	next, err := a.Grant(ctx, "doc-1", "eng-b", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := commitRev(100, &stale, "op-stale"); err == nil {
		t.Fatal("fenced commit = nil error")
	}
	if err := commitRev(101, nil, ""); err != nil {
		t.Fatal(err)
	}
	if err := commitRev(102, &next, "op-2"); err != nil {
		t.Fatal(err)
	}
	ch := <-got
	if ch.Revision != 102 || ch.Holder != "eng-b" || ch.OperationID != "op-2" {
		t.Errorf("change after the takeover = %+v, want revision 102 by eng-b in op-2 (nothing of the fenced or unleased commits)", ch)
	}
	select {
	case ch := <-stray:
		t.Errorf("a watcher on another schema heard %+v", ch)
	default:
	}
}
