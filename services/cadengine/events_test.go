package cadengine

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// fakeLeases are a session registry's leases, taken in a store.
type fakeLeases struct {
	lease func(key string) (store.Lease, bool)
}

func (f fakeLeases) HoldsLease(key string) bool                      { _, ok := f.lease(key); return ok }
func (f fakeLeases) Lease(key string) (store.Lease, bool)            { return f.lease(key) }
func (f fakeLeases) HoldLease(ctx context.Context, key string) error { return nil }
func (f fakeLeases) DropLease(ctx context.Context, key string)       {}

func testSession(id string) *session {
	return &session{info: &enginev1.Session{SessionId: id}, open: map[string]*openRequest{}, persist: func() {}}
}

func progress(step int32) *enginev1.BatchProgressPayload {
	return &enginev1.BatchProgressPayload{OperationId: "op-1", Step: step, Total: 1000}
}

// TestEventLog: events are written before they are in the ring, in seq
// order; the saved seq is saved before an event past it and seqSaveEvery
// is delivered; a session whose lease is lost writes and delivers
// nothing, and settle returns for it.
func TestEventLog(t *testing.T) {
	ctx := context.Background()
	st := memory.New()
	ours, err := st.Grant(ctx, sessionKey("ses-1"), "engine-a", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	stale, err := st.Grant(ctx, sessionKey("ses-2"), "engine-a", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Grant(ctx, sessionKey("ses-2"), "engine-a", time.Hour); err != nil { // a later grant fences stale
		t.Fatal(err)
	}
	leases := fakeLeases{lease: func(key string) (store.Lease, bool) {
		switch key {
		case sessionKey("ses-1"):
			return ours, true
		case sessionKey("ses-2"):
			return stale, true
		}
		return store.Lease{}, false
	}}
	el := newEventLog(st, leases, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer el.close()

	one, two, other := testSession("ses-1"), testSession("ses-2"), testSession("ses-3")
	var savedAt []int64 // the newest seq in one's ring when it was saved
	one.persist = func() {
		one.mu.Lock()
		savedAt = append(savedAt, one.latest)
		one.saved = one.issued
		one.mu.Unlock()
	}
	const n = 2*seqSaveEvery + 10
	for i := range int32(n) {
		el.emit(one, gatewayv1.EventBatchProgress, progress(i+1))
		el.emit(two, gatewayv1.EventBatchProgress, progress(i+1))
		el.emit(other, gatewayv1.EventBatchProgress, progress(i+1)) // not held: nothing
	}
	el.settle(one)
	el.settle(two)

	events, latest, truncated := one.since(0)
	if latest != n || !truncated || len(events) != eventRing || events[len(events)-1].Seq != n {
		t.Fatalf("since(0) = %d events, latest %d, truncated %v; want the newest %d up to %d, truncated", len(events), latest, truncated, eventRing, n)
	}
	for i := 1; i < len(events); i++ {
		if events[i].Seq != events[i-1].Seq+1 {
			t.Fatalf("ring seq %d after %d", events[i].Seq, events[i-1].Seq)
		}
	}
	stored, lost, err := st.LoadEvents(ctx, "ses-1")
	if err != nil || lost || len(stored) != eventRing || stored[len(stored)-1].Seq != n {
		t.Errorf("LoadEvents(ses-1) = %d events, lost %v, %v; want the newest %d up to %d", len(stored), lost, err, eventRing, n)
	}
	if len(savedAt) == 0 || savedAt[0] > seqSaveEvery {
		t.Errorf("saved with the ring at %v, want a save before seq %d is delivered", savedAt, seqSaveEvery+1)
	}
	if events, latest, _ := two.since(0); len(events) != 0 || latest != 0 {
		t.Errorf("the fenced session's since(0) = %d events, latest %d; want none", len(events), latest)
	}
	if stored, _, _ := st.LoadEvents(ctx, "ses-2"); len(stored) != 0 {
		t.Errorf("LoadEvents(ses-2) = %d events under a stale lease, want none", len(stored))
	}
	if other.issued != 0 {
		t.Errorf("a session not held issued seq %d, want none", other.issued)
	}
}

// TestRestoreEvents: a session taken over goes on from its newest stored
// event and replays the ring after a cursor; one whose log lost its newest
// appends goes on past its saved seq with an empty ring (truncated).
func TestRestoreEvents(t *testing.T) {
	var stored []store.EventRecord
	for seq := int64(1); seq <= 5; seq++ {
		stored = append(stored, store.EventRecord{Seq: seq, Type: gatewayv1.EventBatchProgress, Payload: []byte(`{}`)})
	}
	s := testSession("ses-1")
	s.latest = 3 // the saved seq
	s.restoreEvents(stored, false)
	if events, latest, truncated := s.since(2); len(events) != 3 || events[0].Seq != 3 || latest != 5 || truncated {
		t.Errorf("since(2) after a takeover = %d events, latest %d, truncated %v; want 3..5, latest 5", len(events), latest, truncated)
	}

	s = testSession("ses-1")
	s.latest = 260 // saved past the stored log
	s.restoreEvents(stored, true)
	if events, latest, truncated := s.since(5); len(events) != 0 || latest != 260+seqSaveEvery || !truncated {
		t.Errorf("since(5) after a takeover of a lost log = %d events, latest %d, truncated %v; want none, latest %d, truncated", len(events), latest, truncated, 260+seqSaveEvery)
	}
}
