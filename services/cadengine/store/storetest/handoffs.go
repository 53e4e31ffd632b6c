package storetest

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// handoffsOf returns s's handoffs, or skips the test for a store that
// does not carry events between engines.
func handoffsOf(t *testing.T, s store.Store) store.Handoffs {
	t.Helper()
	ho, ok := s.(store.Handoffs)
	if !ok {
		t.Skipf("the %s store does not carry events between engines", s.Kind())
	}
	return ho
}

// handoff is a handoff of session with n events tagged with id.
func handoff(id, session string, n int) store.EventHandoff {
	h := store.EventHandoff{ID: id, SessionID: session}
	for i := range n {
		h.Events = append(h.Events, store.EventRecord{Type: gatewayv1.EventBatchProgress, Payload: fmt.Appendf(nil, `{"step":%d,"handoff":%q}`, i+1, id)})
	}
	return h
}

func handOver(t *testing.T, ho store.Handoffs, hs ...store.EventHandoff) {
	t.Helper()
	if err := ho.HandOverEvents(context.Background(), hs); err != nil {
		t.Fatalf("HandOverEvents: %v", err)
	}
}

// wantHandoffs checks that the stored handoffs of session are want, in
// order, with their events.
func wantHandoffs(t *testing.T, ho store.Handoffs, session string, want ...store.EventHandoff) {
	t.Helper()
	got, err := ho.HandedOverEvents(context.Background(), session)
	if err != nil {
		t.Fatalf("HandedOverEvents(%s): %v", session, err)
	}
	same := slices.EqualFunc(got, want, func(a, b store.EventHandoff) bool {
		return a.ID == b.ID && a.SessionID == b.SessionID && slices.EqualFunc(a.Events, b.Events, func(x, y store.EventRecord) bool {
			return x.Type == y.Type && bytes.Equal(x.Payload, y.Payload)
		})
	})
	if !same {
		t.Errorf("HandedOverEvents(%s) = %s, want %s", session, handoffIDs(got), handoffIDs(want))
	}
}

func handoffIDs(hs []store.EventHandoff) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, " %s/%s:%d", h.ID, h.SessionID, len(h.Events))
	}
	return "[" + b.String() + " ]"
}

// testHandoffsRoundTrip: what one store hands over, a second store over
// the same storage lists per session, in the order stored, and its
// watcher is told the sessions; handing over an id again changes nothing.
func testHandoffsRoundTrip(t *testing.T, h Harness) {
	a := open(t, h)
	b := share(t, h, a)
	hb := handoffsOf(t, b)
	ha := handoffsOf(t, a)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	told := make(chan string, 100)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		hb.WatchHandoffs(ctx, func(id string) { told <- id })
	}()
	// The watcher starts on its own goroutine: hand over until it hears.
	var first string
	for n := 0; first == ""; n++ {
		handOver(t, ha, handoff(fmt.Sprintf("eh-probe-%d", n), "ses-probe", 1))
		select {
		case first = <-told:
		case <-time.After(200 * time.Millisecond):
		}
	}
	if first != "ses-probe" {
		t.Errorf("told %q, want ses-probe", first)
	}
	for len(told) > 0 {
		<-told
	}
	one, two, three := handoff("eh-1", "ses-1", 2), handoff("eh-2", "ses-2", 1), handoff("eh-3", "ses-1", 3)
	wantHandoffs(t, hb, "ses-1")
	handOver(t, ha, one, two)
	handOver(t, ha, three)
	wantHandoffs(t, hb, "ses-1", one, three)
	wantHandoffs(t, hb, "ses-2", two)
	var heard []string
	for len(heard) < 3 {
		heard = append(heard, <-told)
	}
	slices.Sort(heard)
	if !slices.Equal(heard, []string{"ses-1", "ses-1", "ses-2"}) {
		t.Errorf("told %v, want ses-1 twice and ses-2", heard)
	}
	again := handoff("eh-1", "ses-1", 5)
	handOver(t, ha, again)
	wantHandoffs(t, hb, "ses-1", one, three)
	cancel()
	<-watched
}

// testHandoffsEmitted: the append that emits handoffs deletes them, and
// only them; a fenced append deletes none.
func testHandoffsEmitted(t *testing.T, h Harness) {
	ctx := context.Background()
	s := open(t, h)
	ho, e, l := handoffsOf(t, s), eventsOf(t, s), leasesOf(t, s)
	one, two, three := handoff("eh-1", "ses-1", 2), handoff("eh-2", "ses-1", 1), handoff("eh-3", "ses-1", 1)
	handOver(t, ho, one, two, three)
	old := grant(t, l, "session:ses-1", "engine-a", long)
	if err := l.Release(ctx, old); err != nil {
		t.Fatalf("Release: %v", err)
	}
	next := grant(t, l, "session:ses-1", "engine-b", long)
	if f := appendEvents(t, e, store.EventAppend{Lease: old, SessionID: "ses-1", Events: events(1, 2, "stale"), Keep: 100, Handoffs: []string{"eh-1"}}); !slices.Equal(f, []int{0}) {
		t.Errorf("AppendEvents under a lost lease: fenced %v, want [0]", f)
	}
	wantHandoffs(t, ho, "ses-1", one, two, three)
	if f := appendEvents(t, e, store.EventAppend{Lease: next, SessionID: "ses-1", Events: events(1, 3, "b"), Keep: 100, Handoffs: []string{"eh-1", "eh-2"}}); len(f) != 0 {
		t.Errorf("AppendEvents under the live lease: fenced %v", f)
	}
	wantHandoffs(t, ho, "ses-1", three)
	wantEvents(t, e, "ses-1", events(1, 3, "b"))
}

// testHandoffsDeleteSession: deleting a session forgets its handoffs, and
// only its.
func testHandoffsDeleteSession(t *testing.T, h Harness) {
	ctx := context.Background()
	s := open(t, h)
	ho := handoffsOf(t, s)
	one, two := handoff("eh-1", "ses-1", 1), handoff("eh-2", "ses-2", 1)
	handOver(t, ho, one, two)
	if err := s.DeleteSession(ctx, "ses-1"); err != nil {
		t.Fatalf("DeleteSession: %v", err)
	}
	wantHandoffs(t, ho, "ses-1")
	wantHandoffs(t, ho, "ses-2", two)
}
