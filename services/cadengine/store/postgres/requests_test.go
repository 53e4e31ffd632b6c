package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/postgres/postgrestest"
)

// TestRequests: a request one store opens is told to a watcher on
// another store of the schema, which reads it; only the first answer or
// withdrawal lands, and each is told; a session's open requests are
// listed oldest first.
func TestRequests(t *testing.T) {
	url := postgrestest.URL(t)
	asker, owner := open(t, url), open(t, url)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan store.RequestChange, 100)
	go owner.WatchRequests(ctx, func(ch store.RequestChange) { got <- ch })

	request := func(i int) *store.RequestRecord {
		return &store.RequestRecord{ID: fmt.Sprintf("srq-%d", i), SessionID: "ses-1", Asker: "eng-b", Frame: []byte{byte(i)}, Params: []byte(`{"session_id":"ses-1"}`)}
	}
	// LISTEN runs on the watcher's own goroutine: open until it hears.
	var first store.RequestChange
	opened := 0
	for first.ID == "" {
		opened++
		if err := asker.OpenRequest(ctx, request(opened)); err != nil {
			t.Fatal(err)
		}
		select {
		case first = <-got:
		case <-time.After(200 * time.Millisecond):
		}
	}
	if first.SessionID != "ses-1" || first.State != store.RequestOpen {
		t.Errorf("change = %+v, want an open request of ses-1", first)
	}
	for len(got) > 0 {
		<-got
	}
	if err := asker.OpenRequest(ctx, request(100)); err != nil {
		t.Fatal(err)
	}
	if ch := <-got; ch.ID != "srq-100" || ch.State != store.RequestOpen {
		t.Errorf("change = %+v, want srq-100 open", ch)
	}
	// Opening it again tells it again, and changes nothing.
	again := request(100)
	again.Params = []byte(`{}`)
	if err := asker.OpenRequest(ctx, again); err != nil {
		t.Fatal(err)
	}
	if ch := <-got; ch.ID != "srq-100" || ch.State != store.RequestOpen {
		t.Errorf("change = %+v, want srq-100 open, told again", ch)
	}
	r, err := owner.LoadRequest(ctx, "srq-100")
	if err != nil || r == nil || r.Asker != "eng-b" || string(r.Params) != `{"session_id":"ses-1"}` || r.State != store.RequestOpen {
		t.Fatalf("LoadRequest(srq-100) = %+v, %v", r, err)
	}

	for i, try := range []struct {
		answer bool
		want   bool
	}{{true, true}, {true, false}, {false, false}} {
		var ok bool
		if try.answer {
			ok, err = owner.AnswerRequest(ctx, "srq-100", []byte(fmt.Sprint("answer ", i)))
		} else {
			ok, err = asker.WithdrawRequest(ctx, "srq-100", 4)
		}
		if err != nil || ok != try.want {
			t.Errorf("try %d (answer %v) = %v, %v; want %v", i, try.answer, ok, err, try.want)
		}
	}
	if ch := <-got; ch.ID != "srq-100" || ch.State != store.RequestAnswered {
		t.Errorf("change = %+v, want srq-100 answered (and nothing of the later tries)", ch)
	}
	if r, err := asker.LoadRequest(ctx, "srq-100"); err != nil || r.State != store.RequestAnswered || string(r.Answer) != "answer 0" {
		t.Errorf("LoadRequest(srq-100) = %+v, %v; want the first answer", r, err)
	}
	if ok, err := asker.WithdrawRequest(ctx, "srq-1", 4); !ok || err != nil {
		t.Errorf("WithdrawRequest(srq-1) = %v, %v; want true", ok, err)
	}
	if ch := <-got; ch.ID != "srq-1" || ch.State != store.RequestWithdrawn || ch.Reason != 4 {
		t.Errorf("change = %+v, want srq-1 withdrawn for reason 4", ch)
	}
	if r, _ := owner.LoadRequest(ctx, "srq-1"); r == nil || r.Reason != 4 {
		t.Errorf("LoadRequest(srq-1) = %+v, want reason 4", r)
	}
	list, err := owner.OpenRequests(ctx, "ses-1")
	if err != nil || len(list) != opened-1 || (len(list) > 0 && list[0].ID != "srq-2") {
		t.Errorf("OpenRequests(ses-1) = %d, %v; want the %d still open from srq-2", len(list), err, opened-1)
	}
	if err := asker.DeleteRequest(ctx, "srq-100"); err != nil {
		t.Fatal(err)
	}
	if r, err := owner.LoadRequest(ctx, "srq-100"); r != nil || err != nil {
		t.Errorf("LoadRequest after DeleteRequest = %+v, %v; want nil, nil", r, err)
	}
	if ok, err := owner.AnswerRequest(ctx, "srq-100", nil); ok || err != nil {
		t.Errorf("AnswerRequest of a deleted request = %v, %v; want false", ok, err)
	}
}
