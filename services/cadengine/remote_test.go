package cadengine

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// fakeRequests is a store of requests in memory that counts its reads
// and tells no watcher.
type fakeRequests struct {
	byID         map[string]store.RequestRecord
	loads, lists int
}

func (f *fakeRequests) OpenRequest(_ context.Context, r *store.RequestRecord) error {
	if _, ok := f.byID[r.ID]; !ok {
		f.byID[r.ID] = *r
	}
	return nil
}

func (f *fakeRequests) AnswerRequest(context.Context, string, []byte) (bool, error) {
	return false, nil
}

func (f *fakeRequests) WithdrawRequest(_ context.Context, id string, reason int32) (bool, error) {
	r, ok := f.byID[id]
	if !ok || r.State != store.RequestOpen {
		return false, nil
	}
	r.State, r.Reason = store.RequestWithdrawn, reason
	f.byID[id] = r
	return true, nil
}

func (f *fakeRequests) LoadRequest(_ context.Context, id string) (*store.RequestRecord, error) {
	f.loads++
	r, ok := f.byID[id]
	if !ok {
		return nil, nil
	}
	return &r, nil
}

func (f *fakeRequests) OpenRequests(_ context.Context, sessionID string) ([]store.RequestRecord, error) {
	f.lists++
	var out []store.RequestRecord
	for _, r := range f.byID {
		if r.SessionID == sessionID && r.State == store.RequestOpen {
			out = append(out, r)
		}
	}
	return out, nil
}

func (f *fakeRequests) DeleteRequest(_ context.Context, id string) error {
	delete(f.byID, id)
	return nil
}

func (f *fakeRequests) WatchRequests(ctx context.Context, _ func(store.RequestChange)) error {
	<-ctx.Done()
	return ctx.Err()
}

// TestRecheckRelayed: the periodic recheck of the requests relayed to a
// session withdraws those closed in the store while no notification came
// (one withdrawn, one its asker is done with) and keeps the open ones,
// with one read of the session's open requests and one of each closed
// request, not one read per request.
func TestRecheckRelayed(t *testing.T) {
	ctx := context.Background()
	st := &fakeRequests{byID: map[string]store.RequestRecord{}}
	ss := ownerOf(t, memory.New(), nil)
	s := testSession("ses-1")
	ss.byID["ses-1"] = s
	rr := &remoteRequests{st: st, self: "engine-a", ss: ss, log: slog.New(slog.NewTextHandler(io.Discard, nil)), waiting: map[string]chan struct{}{}}
	ids := []string{"req-1", "req-2", "req-3", "req-4", "req-5"}
	for _, id := range ids {
		frame, err := proto.Marshal(&enginev1.ServerRequest{Id: id, Method: gatewayv1.MethodApproval})
		if err != nil {
			t.Fatal(err)
		}
		r := &store.RequestRecord{ID: id, SessionID: "ses-1", Asker: "engine-b", Frame: frame, Params: []byte(`{}`), State: store.RequestOpen}
		if err := st.OpenRequest(ctx, r); err != nil {
			t.Fatal(err)
		}
		rr.relay(s, r)
	}
	if _, err := st.WithdrawRequest(ctx, "req-2", int32(enginev1.CancelReason_CANCEL_REASON_TIMEOUT)); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteRequest(ctx, "req-4"); err != nil {
		t.Fatal(err)
	}
	st.loads = 0
	rr.recheck(ctx)
	if got, want := s.relayedIDs(), []string{"req-1", "req-3", "req-5"}; !slices.Equal(got, want) {
		t.Errorf("relayed after the recheck: %v, want %v", got, want)
	}
	if st.lists != 1 || st.loads != 2 {
		t.Errorf("the recheck read the open requests %d times and %d requests, want once and 2", st.lists, st.loads)
	}
}
