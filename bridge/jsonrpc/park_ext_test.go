package jsonrpc_test

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
)

// parkingStream is a fakeStream that parks: its Read returns
// jsonrpc.ErrParked when nothing is queued, and push and Close wake the
// reader that Park left.
type parkingStream struct {
	*fakeStream

	mu     sync.Mutex // guards the fields below
	queued [][]byte   // payloads pushed and not yet read
	wake   func()     // the parked reader's, until it is woken
	parks  int        // the calls of Park
}

var _ jsonrpc.Parker = (*parkingStream)(nil)

func (s *parkingStream) Read(context.Context) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if isDone(s.closed) {
		return nil, errFakeClosed
	}
	if len(s.queued) == 0 {
		return nil, jsonrpc.ErrParked
	}
	p := s.queued[0]
	s.queued = s.queued[1:]
	return p, nil
}

func (s *parkingStream) Park(wake func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.parks++
	if len(s.queued) > 0 || isDone(s.closed) {
		go wake()
		return
	}
	s.wake = wake
}

// push queues a payload and wakes a parked reader.
func (s *parkingStream) push(payload string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queued = append(s.queued, []byte(payload))
	s.wakeLocked()
}

func (s *parkingStream) Close() error {
	s.fakeStream.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wakeLocked()
	return nil
}

func (s *parkingStream) wakeLocked() {
	if s.wake != nil {
		go s.wake()
		s.wake = nil
	}
}

func (s *parkingStream) parked() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.parks
}

func isDone(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// reading reports whether any goroutine is reading for a Conn: in its
// read loop's read, not merely below readLoop (a goroutine that read a
// request serves it, and lingers, there; see passReadLoop).
func reading() bool {
	return bytes.Contains(allStacks(), []byte("jsonrpc.(*Conn).read("))
}

// TestConnParks: over a Parker, a Conn with nothing to read holds no
// goroutine reading; a payload that comes wakes it and is served, and Close
// ends a parked Conn.
func TestConnParks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &parkingStream{fakeStream: newFakeStream()}
		h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) { return "ok", nil })
		c := jsonrpc.NewConn(context.Background(), s, jsonrpc.ConnOptions{Handler: h})
		synctest.Wait()
		if n := s.parked(); n != 1 || reading() {
			t.Fatalf("a new Conn with nothing to read: %d parks, reading %v; want 1 park and no reader", n, reading())
		}
		for i := 2; i <= 3; i++ {
			s.push(`{"jsonrpc":"2.0","id":1,"method":"m"}`)
			if got, want := s.next(t), `{"jsonrpc":"2.0","id":1,"result":"ok"}`; got != want {
				t.Fatalf("response = %s, want %s", got, want)
			}
			synctest.Wait()
			if n := s.parked(); n != i || reading() {
				t.Fatalf("after call %d: %d parks, reading %v; want %d parks and no reader", i-1, n, reading(), i)
			}
		}
		c.Close()
		<-c.Done()
		if err := c.Err(); err != nil {
			t.Errorf("Err() after Close = %v, want nil", err)
		}
	})
}
