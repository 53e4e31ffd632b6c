package cadengine

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// ownerOf is a session registry on st whose engine holds the session
// leases of leases, with its event log and handoffs (closed when t ends).
func ownerOf(t *testing.T, st *memory.Store, leases map[string]store.Lease) *sessions {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	fake := fakeLeases{lease: func(key string) (store.Lease, bool) { l, ok := leases[key]; return l, ok }}
	ss := newSessions(time.Now, st, log)
	ss.leases, ss.shared = fake, st
	ss.events = newEventLog(st, fake, log)
	ss.handoffs = newHandoffs(ss, log)
	t.Cleanup(func() {
		ss.handoffs.close()
		ss.events.close()
	})
	return ss
}

// TestHandoffs: the events a call hands over for a session owned
// elsewhere are stored before settle returns, in order; the owner emits
// them into the session's log once, however often it is told, and the
// append deletes them; an owner whose lease is lost emits nothing and
// leaves them to the session's next owner, which emits them once.
func TestHandoffs(t *testing.T) {
	ctx := context.Background()
	st := memory.New()
	holder := ownerOf(t, st, nil)
	call := holder.handoffs.call("ses-1")
	for step := range int32(3) {
		call.emit(gatewayv1.EventBatchProgress, progress(step+1))
	}
	call.emit(gatewayv1.EventOperationFinished, &enginev1.OperationFinishedPayload{OperationId: "op-1", Status: "completed"})
	call.settle()
	stored, err := st.HandedOverEvents(ctx, "ses-1")
	n := 0
	for _, h := range stored {
		n += len(h.Events)
	}
	if err != nil || n != 4 {
		t.Fatalf("handed over after settle: %d handoffs of %d events, %v; want 4 events", len(stored), n, err)
	}

	// An owner whose lease was let go and granted to another.
	stale, err := st.Grant(ctx, sessionKey("ses-1"), "engine-a", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Release(ctx, stale); err != nil {
		t.Fatal(err)
	}
	ours, err := st.Grant(ctx, sessionKey("ses-1"), "engine-c", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	old := ownerOf(t, st, map[string]store.Lease{sessionKey("ses-1"): stale})
	gone := testSession("ses-1")
	old.handoffs.claim(gone)
	old.settle(gone)
	if evs, _, _ := gone.since(0); len(evs) != 0 {
		t.Errorf("a fenced owner delivered %d events, want none", len(evs))
	}
	if left, _ := st.HandedOverEvents(ctx, "ses-1"); len(left) != len(stored) {
		t.Errorf("a fenced owner left %d handoffs of %d", len(left), len(stored))
	}

	// The new owner, told several times at once.
	owner := ownerOf(t, st, map[string]store.Lease{sessionKey("ses-1"): ours})
	s := testSession("ses-1")
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			owner.handoffs.claim(s)
		}()
	}
	wg.Wait()
	owner.settle(s)
	owner.handoffs.claim(s) // told after the append: nothing is left
	owner.settle(s)
	evs, latest, _ := s.since(0)
	ok := len(evs) == 4 && latest == 4
	for i := 0; ok && i < len(evs); i++ {
		ok = evs[i].Seq == int64(i+1) && (i < 3) == (evs[i].Type == gatewayv1.EventBatchProgress)
	}
	if !ok {
		t.Errorf("the owner's log = %v, latest %d; want 3 batch.progress and operation.finished, seq 1 to 4", evs, latest)
	}
	if logged, _, _ := st.LoadEvents(ctx, "ses-1"); len(logged) != 4 {
		t.Errorf("LoadEvents = %d events, want 4", len(logged))
	}
	if left, _ := st.HandedOverEvents(ctx, "ses-1"); len(left) != 0 {
		t.Errorf("%d handoffs left after the owner emitted them, want none", len(left))
	}
}
