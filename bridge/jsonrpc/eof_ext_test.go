package jsonrpc_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
)

// TestConnEOFGrace: with EOFGrace, the end of the peer's input leaves the
// calls already read running with live contexts; their responses (and
// notifications meanwhile) are written, this side's pending call fails
// with ErrClosed at once, and then the Conn ends with io.EOF.
func TestConnEOFGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			select {
			case <-release:
				return req.Method, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
		c, s := fakeConn(t, jsonrpc.ConnOptions{Handler: h, EOFGrace: time.Minute})
		s.send(t, `{"jsonrpc":"2.0","id":1,"method":"first"}`)
		s.send(t, `[{"jsonrpc":"2.0","id":2,"method":"second"},{"jsonrpc":"2.0","id":3,"method":"third"}]`)
		callErr := make(chan error, 1)
		go func() { callErr <- c.Call(context.Background(), jsonrpc.StringID("srq-1"), "ask", nil, nil) }()
		if got, want := s.next(t), `{"jsonrpc":"2.0","id":"srq-1","method":"ask"}`; got != want {
			t.Fatalf("request = %s, want %s", got, want)
		}
		close(s.in) // end of input
		synctest.Wait()

		if err := <-callErr; !errors.Is(err, jsonrpc.ErrClosed) {
			t.Errorf("pending Call() at end of input = %v, want ErrClosed", err)
		}
		if err := c.Call(context.Background(), jsonrpc.ID{}, "late", nil, nil); !errors.Is(err, jsonrpc.ErrClosed) {
			t.Errorf("Call() after end of input = %v, want ErrClosed", err)
		}
		if err := c.Notify(context.Background(), "progress", nil); err != nil {
			t.Errorf("Notify() while calls finish = %v, want nil", err)
		}
		if got, want := s.next(t), `{"jsonrpc":"2.0","method":"progress"}`; got != want {
			t.Errorf("notification = %s, want %s", got, want)
		}
		select {
		case <-c.Done():
			t.Fatal("Done() before the calls read have been answered")
		default:
		}
		close(release)
		answered := map[string]string{}
		for range 2 {
			resps, _ := responses(t, s.next(t))
			for id, r := range resps {
				answered[id] = string(r.Result)
			}
		}
		for id, want := range map[string]string{"1": `"first"`, "2": `"second"`, "3": `"third"`} {
			if answered[id] != want {
				t.Errorf("answer to %s after end of input = %s, want %s", id, answered[id], want)
			}
		}
		<-c.Done()
		if err := c.Err(); err != io.EOF {
			t.Errorf("Err() = %v, want io.EOF", err)
		}
	})
}

// TestConnEOFGraceExpires: a call still running when the grace has passed
// is cancelled (cause ErrClosed), its answer is still written, and the
// Conn ends.
func TestConnEOFGraceExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const grace = 5 * time.Second
		cause := make(chan error, 1)
		h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			<-ctx.Done()
			cause <- context.Cause(ctx)
			return nil, jsonrpc.NewError(5003, "gave up")
		})
		c, s := fakeConn(t, jsonrpc.ConnOptions{Handler: h, EOFGrace: grace})
		s.send(t, `{"jsonrpc":"2.0","id":1,"method":"slow"}`)
		start := time.Now()
		close(s.in)
		if got, want := s.next(t), `{"jsonrpc":"2.0","id":1,"error":{"code":5003,"message":"gave up"}}`; got != want {
			t.Errorf("response after the grace = %s, want %s", got, want)
		}
		if err := <-cause; !errors.Is(err, jsonrpc.ErrClosed) {
			t.Errorf("handler's context.Cause = %v, want ErrClosed", err)
		}
		if waited := time.Since(start); waited != grace {
			t.Errorf("handler cancelled after %v, want the grace, %v", waited, grace)
		}
		<-c.Done()
	})
}

// TestConnEOFNoGrace: without EOFGrace the end of input cancels the calls
// at once, as before.
func TestConnEOFNoGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
		c, s := fakeConn(t, jsonrpc.ConnOptions{Handler: h})
		s.send(t, `{"jsonrpc":"2.0","id":1,"method":"slow"}`)
		start := time.Now()
		close(s.in)
		<-c.Done()
		if waited := time.Since(start); waited != 0 {
			t.Errorf("Conn ended %v after end of input, want at once", waited)
		}
	})
}
