package jsonrpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
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
	return bytes.Count(allStacks(), []byte("jsonrpc.(*Conn).work("))
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
		goroutines := map[string]bool{}
		for range 6 {
			goroutines[call()] = true
		}
		if len(goroutines) != 2 {
			t.Errorf("six back-to-back calls ran on %d goroutines, want 2 (the read loop's and a lingering worker's, in turn)", len(goroutines))
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

// TestTurnsUnderLoad: requests that come singly and in batches, while
// others are served, some at once and some after a while, are each
// answered once, by never more than MaxConcurrent handlers at a time,
// whichever goroutines read and serve them in turn; and the connection
// then ends cleanly, its goroutines gone (Done).
func TestTurnsUnderLoad(t *testing.T) {
	const calls, maxConcurrent = 3000, 3
	var running, most atomic.Int64
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		if len(req.Params) > 0 && req.Params[1] == '1' {
			time.Sleep(50 * time.Microsecond)
		}
		return req.ID.String(), nil
	})
	c, s := fakeConn(t, jsonrpc.ConnOptions{Handler: h, MaxConcurrent: maxConcurrent})
	answered := make(map[string]int)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for len(answered) < calls {
			var resps []struct {
				ID     json.RawMessage `json:"id"`
				Result string          `json:"result"`
			}
			var p string
			select {
			case b := <-s.out:
				p = string(b)
			case <-time.After(hangGuard):
				t.Errorf("%d of %d requests answered, then none", len(answered), calls)
				return
			}
			if p[0] != '[' {
				p = "[" + p + "]"
			}
			if err := json.Unmarshal([]byte(p), &resps); err != nil {
				t.Errorf("answer %s: %v", p, err)
				return
			}
			for _, r := range resps {
				if r.Result != string(r.ID) {
					t.Errorf("answer %s to request %s", r.Result, r.ID)
				}
				answered[string(r.ID)]++
			}
		}
	}()
	rng := rand.New(rand.NewPCG(1, 2))
	for id := 1; id <= calls; {
		n := 1
		if rng.IntN(4) == 0 {
			n = min(1+rng.IntN(5), calls-id+1)
		}
		var msgs []string
		for range n {
			msgs = append(msgs, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"m","params":[%d]}`, id, rng.IntN(2)))
			id++
		}
		if n == 1 {
			s.send(t, msgs[0])
		} else {
			s.send(t, "["+strings.Join(msgs, ",")+"]")
		}
	}
	<-done
	for id := 1; id <= calls; id++ {
		if got := answered[fmt.Sprint(id)]; got != 1 {
			t.Errorf("request %d answered %d times", id, got)
		}
	}
	if m := most.Load(); m > maxConcurrent {
		t.Errorf("%d handlers ran at once, want at most MaxConcurrent (%d)", m, maxConcurrent)
	}
	close(s.in)
	select {
	case <-c.Done(): // every goroutine of the connection has ended
	case <-time.After(hangGuard):
		t.Fatal("the connection did not end after its input: a goroutine of it waits")
	}
	if err := c.Err(); !errors.Is(err, io.EOF) {
		t.Errorf("Err() = %v, want io.EOF after a clean end of input", err)
	}
}
