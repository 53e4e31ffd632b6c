package jsonrpc_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
)

// countingBudget is a Budget of limit bytes that records what it holds.
type countingBudget struct {
	limit int

	mu       sync.Mutex // guards held and acquired
	held     int
	acquired int
	room     chan struct{} // signalled on Release
}

func (b *countingBudget) Acquire(ctx context.Context, n int) error {
	for {
		b.mu.Lock()
		if b.held == 0 || b.held+n <= b.limit {
			b.held += n
			b.acquired++
			b.mu.Unlock()
			return nil
		}
		b.mu.Unlock()
		select {
		case <-b.room:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (b *countingBudget) Release(n int) {
	b.mu.Lock()
	b.held -= n
	b.mu.Unlock()
	select {
	case b.room <- struct{}{}:
	default:
	}
}

func (b *countingBudget) state() (held, acquired int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held, b.acquired
}

// TestConnBudget: a payload is held from when it is read until its calls
// are answered and its notifications served; a spent budget stops the
// read loop until the handler finishes.
func TestConnBudget(t *testing.T) {
	release := make(chan struct{})
	started := make(chan string, 10)
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		started <- req.Method
		if req.Method == "wait" {
			<-release
		}
		return "ok", nil
	})
	first := `{"jsonrpc":"2.0","id":1,"method":"wait"}`
	b := &countingBudget{limit: len(first), room: make(chan struct{}, 1)}
	_, s := fakeConn(t, jsonrpc.ConnOptions{Handler: h, Budget: b})

	s.send(t, first)
	if got := <-started; got != "wait" {
		t.Fatalf("handler started %s, want wait", got)
	}
	// The budget is spent: the next payload is read but not served until
	// the first call is answered.
	s.send(t, `[{"jsonrpc":"2.0","id":2,"method":"m"},{"jsonrpc":"2.0","method":"note"}]`)
	select {
	case got := <-started:
		t.Fatalf("handler started %s with the budget spent, want it held back", got)
	default:
	}
	if held, _ := b.state(); held != len(first) {
		t.Errorf("budget holds %d bytes, want %d (the first payload)", held, len(first))
	}
	close(release)
	if got := s.next(t); got != `{"jsonrpc":"2.0","id":1,"result":"ok"}` {
		t.Errorf("first answer = %s", got)
	}
	if got := s.next(t); got != `[{"jsonrpc":"2.0","id":2,"result":"ok"}]` {
		t.Errorf("batch answer = %s", got)
	}
	// Every payload is given back once served.
	s.send(t, `{"jsonrpc":"2.0","method":"note"}`) // behind the batch's release, in the read loop
	<-started
	<-started
	<-started
	deadline := time.Now().Add(hangGuard)
	for {
		held, acquired := b.state()
		if held == 0 && acquired == 3 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("budget holds %d bytes after %d payloads were served, want 0", held, acquired)
		}
		time.Sleep(time.Millisecond)
	}
}
