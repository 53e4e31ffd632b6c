package jsonrpc_test

import (
	"bytes"
	"context"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
)

// goroutineID is the id runtime.Stack prints for the calling goroutine.
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, _ := bytes.Cut(bytes.TrimPrefix(buf, []byte("goroutine ")), []byte(" "))
	return string(id)
}

// TestWorkerLingers: a request that comes right after the previous one is
// answered runs on the goroutine that served it, and one that comes after
// the connection was idle a while runs on a new one (the worker ended).
func TestWorkerLingers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ran := make(chan string, 1)
		h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			ran <- goroutineID()
			return "ok", nil
		})
		_, s := fakeConn(t, jsonrpc.ConnOptions{Handler: h})
		call := func() string {
			s.send(t, `{"jsonrpc":"2.0","id":1,"method":"m"}`)
			id := <-ran
			if got, want := s.next(t), `{"jsonrpc":"2.0","id":1,"result":"ok"}`; got != want {
				t.Fatalf("response = %s, want %s", got, want)
			}
			synctest.Wait() // the worker is lingering
			return id
		}
		first, second := call(), call()
		if first != second {
			t.Errorf("back-to-back calls ran on goroutines %s and %s, want one", first, second)
		}
		time.Sleep(time.Second)
		if third := call(); third == second {
			t.Errorf("a call after a second idle ran on goroutine %s, the one before it: the worker did not end", third)
		}
	})
}

// TestLingerEndsWithInput: once the peer's input has ended, a lingering
// worker ends at once (no request can come for it), so a connection
// closed right after a call does not wait out the linger.
func TestLingerEndsWithInput(t *testing.T) {
	for _, grace := range []time.Duration{0, time.Minute} {
		synctest.Test(t, func(t *testing.T) {
			h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) { return "ok", nil })
			c, s := fakeConn(t, jsonrpc.ConnOptions{Handler: h, EOFGrace: grace})
			s.send(t, `{"jsonrpc":"2.0","id":1,"method":"m"}`)
			s.next(t)
			synctest.Wait() // the worker is lingering
			start := time.Now()
			close(s.in) // the peer's input ends
			<-c.Done()
			if d := time.Since(start); d != 0 {
				t.Errorf("EOFGrace %v: the connection ended %v after its input, want at once: a lingering worker held it", grace, d)
			}
		})
	}
}
