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

// lingering counts the goroutines in a Conn's work: workers, serving or
// lingering.
func lingering() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return bytes.Count(buf, []byte("jsonrpc.(*Conn).work("))
}

// TestWorkerLingers: requests that come right after the previous one is
// answered run on goroutines that served or read before, the read loop's
// and one lingering worker's in turn, not on a new goroutine each; after
// the connection was idle a while, no worker is left.
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
		ran6 := map[string]bool{}
		for range 6 {
			ran6[call()] = true
		}
		if len(ran6) != 2 {
			t.Errorf("six back-to-back calls ran on %d goroutines, want 2 (the read loop's and a lingering worker's, in turn)", len(ran6))
		}
		if n := lingering(); n != 1 {
			t.Errorf("after a call, %d workers, want 1 lingering", n)
		}
		time.Sleep(time.Second)
		if n := lingering(); n != 0 {
			t.Errorf("after a second idle, %d workers, want none: the worker did not end", n)
		}
		call()
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
