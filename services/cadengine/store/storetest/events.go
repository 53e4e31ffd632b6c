package storetest

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// eventsOf returns s's event logs, or skips the test for a store that is
// not shared (SQLite serves one engine, whose event logs stay in memory).
func eventsOf(t *testing.T, s store.Store) store.Events {
	t.Helper()
	ev, ok := s.(store.Shared)
	if !ok {
		t.Skipf("the %s store is not shared", s.Kind())
	}
	return ev
}

// events are the events of seqs from to to, tagged with tag.
func events(from, to int64, tag string) []store.EventRecord {
	var out []store.EventRecord
	for seq := from; seq <= to; seq++ {
		out = append(out, store.EventRecord{Seq: seq, Type: gatewayv1.EventBatchProgress, Payload: fmt.Appendf(nil, `{"step":%d,"tag":%q}`, seq, tag)})
	}
	return out
}

func appendEvents(t *testing.T, e store.Events, appends ...store.EventAppend) (fenced []int) {
	t.Helper()
	fenced, err := e.AppendEvents(context.Background(), appends)
	if err != nil {
		t.Fatalf("AppendEvents: %v", err)
	}
	return fenced
}

// wantEvents checks that the stored log of session is want.
func wantEvents(t *testing.T, e store.Events, session string, want []store.EventRecord) {
	t.Helper()
	got, lost, err := e.LoadEvents(context.Background(), session)
	if err != nil {
		t.Fatalf("LoadEvents(%s): %v", session, err)
	}
	if lost {
		t.Errorf("LoadEvents(%s) says events were lost; the store never restarted", session)
	}
	same := slices.EqualFunc(got, want, func(a, b store.EventRecord) bool {
		return a.Seq == b.Seq && a.Type == b.Type && bytes.Equal(a.Payload, b.Payload)
	})
	if !same {
		t.Errorf("LoadEvents(%s) = %d events %s, want %d %s", session, len(got), seqs(got), len(want), seqs(want))
	}
}

func seqs(evs []store.EventRecord) string {
	var b []byte
	for _, ev := range evs {
		b = fmt.Appendf(b, " %d:%s", ev.Seq, ev.Payload)
	}
	return string(b)
}

// testEventsRoundTrip: what one store appends under a session's lease,
// a second store over the same storage loads, in seq order; appending an
// event already stored changes nothing; sessions' logs are apart.
func testEventsRoundTrip(t *testing.T, h Harness) {
	a, b := sharedPair(t, h)
	ea := eventsOf(t, a)
	l := leasesOf(t, a)
	one, two := grant(t, l, "session:ses-1", "engine-a", long), grant(t, l, "session:ses-2", "engine-a", long)
	wantEvents(t, b, "ses-1", nil)
	if f := appendEvents(t, ea, store.EventAppend{Lease: one, SessionID: "ses-1", Events: events(1, 3, "a"), Keep: 100}); len(f) != 0 {
		t.Fatalf("AppendEvents under the live lease: fenced %v", f)
	}
	wantEvents(t, b, "ses-1", events(1, 3, "a"))
	// A retry of seq 3 with more: 3 stays as first stored.
	appendEvents(t, ea,
		store.EventAppend{Lease: one, SessionID: "ses-1", Events: events(3, 5, "retry"), Keep: 100},
		store.EventAppend{Lease: two, SessionID: "ses-2", Events: events(1, 1, "two"), Keep: 100})
	wantEvents(t, b, "ses-1", append(events(1, 3, "a"), events(4, 5, "retry")...))
	wantEvents(t, b, "ses-2", events(1, 1, "two"))
	wantEvents(t, b, "ses-9", nil)
}

// testEventsKeep: a session's log keeps its newest Keep events, also when
// one append brings more than that.
func testEventsKeep(t *testing.T, h Harness) {
	s := open(t, h)
	e := eventsOf(t, s)
	one := grant(t, leasesOf(t, s), "session:ses-1", "engine-a", long)
	appendEvents(t, e, store.EventAppend{Lease: one, SessionID: "ses-1", Events: events(1, 6, "a"), Keep: 4})
	wantEvents(t, e, "ses-1", events(3, 6, "a"))
	appendEvents(t, e, store.EventAppend{Lease: one, SessionID: "ses-1", Events: events(7, 8, "a"), Keep: 4})
	wantEvents(t, e, "ses-1", events(5, 8, "a"))
	appendEvents(t, e, store.EventAppend{Lease: one, SessionID: "ses-1", Events: events(9, 20, "b"), Keep: 4})
	wantEvents(t, e, "ses-1", events(17, 20, "b"))
}

// testEventsFenced: an append under a lease that is no longer the
// session's (another engine took the session over, or it was released)
// writes nothing and is told; the other appends of the call land.
func testEventsFenced(t *testing.T, h Harness) {
	ctx := context.Background()
	s := open(t, h)
	e, l := eventsOf(t, s), leasesOf(t, s)
	old := grant(t, l, "session:ses-1", "engine-a", long)
	appendEvents(t, e, store.EventAppend{Lease: old, SessionID: "ses-1", Events: events(1, 2, "a"), Keep: 100})
	if err := l.Release(ctx, old); err != nil {
		t.Fatalf("Release: %v", err)
	}
	asRow := old
	asRow.Holder = "" // the released lease as its row reads
	released := appendEvents(t, e,
		store.EventAppend{Lease: old, SessionID: "ses-1", Events: events(3, 3, "released"), Keep: 1},
		store.EventAppend{Lease: asRow, SessionID: "ses-1", Events: events(3, 3, "released"), Keep: 1})
	next := grant(t, l, "session:ses-1", "engine-b", long)
	other := grant(t, l, "session:ses-2", "engine-a", long)
	fenced := appendEvents(t, e,
		store.EventAppend{Lease: old, SessionID: "ses-1", Events: events(3, 4, "stale"), Keep: 1},
		store.EventAppend{Lease: other, SessionID: "ses-2", Events: events(1, 1, "a"), Keep: 100},
		store.EventAppend{Lease: store.Lease{DocumentID: "session:ses-3", Holder: "engine-a", Epoch: 1}, SessionID: "ses-3", Events: events(1, 1, "never"), Keep: 100})
	if !slices.Equal(released, []int{0, 1}) || !slices.Equal(fenced, []int{0, 2}) {
		t.Errorf("AppendEvents fenced %v after the release and %v after another's grant; want [0 1] and [0 2]", released, fenced)
	}
	wantEvents(t, e, "ses-1", events(1, 2, "a"))
	wantEvents(t, e, "ses-2", events(1, 1, "a"))
	wantEvents(t, e, "ses-3", nil)
	// The new holder goes on from there.
	appendEvents(t, e, store.EventAppend{Lease: next, SessionID: "ses-1", Events: events(3, 3, "b"), Keep: 100})
	wantEvents(t, e, "ses-1", append(events(1, 2, "a"), events(3, 3, "b")...))
}

// testEventsDeleteSession: deleting a session forgets its events, and
// only its.
func testEventsDeleteSession(t *testing.T, h Harness) {
	ctx := context.Background()
	s := open(t, h)
	e, l := eventsOf(t, s), leasesOf(t, s)
	for _, id := range []string{"ses-1", "ses-2"} {
		if err := s.SaveSession(ctx, id, []byte("state")); err != nil {
			t.Fatalf("SaveSession(%s): %v", id, err)
		}
		appendEvents(t, e, store.EventAppend{Lease: grant(t, l, "session:"+id, "engine-a", long), SessionID: id, Events: events(1, 2, id), Keep: 100})
	}
	if err := s.DeleteSession(ctx, "ses-1"); err != nil {
		t.Fatalf("DeleteSession: %v", err)
	}
	wantEvents(t, e, "ses-1", nil)
	wantEvents(t, e, "ses-2", events(1, 2, "ses-2"))
}
