package jsonrpc_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
)

// hangGuard bounds waits that would otherwise hang a broken test. It is
// never a timing assertion.
const hangGuard = 10 * time.Second

// TestMain checks that the tests leave no goroutines behind.
func TestMain(m *testing.M) {
	before := runtime.NumGoroutine()
	code := m.Run()
	if fuzz := flag.Lookup("test.fuzz"); code == 0 && (fuzz == nil || fuzz.Value.String() == "") {
		if n := settledGoroutines(before); n > before {
			fmt.Fprintf(os.Stderr, "leaked goroutines: %d after the tests, want at most %d\n%s", n, before, allStacks())
			code = 1
		}
	}
	os.Exit(code)
}

// settledGoroutines returns the number of goroutines once it is at most
// want, or after a while.
func settledGoroutines(want int) int {
	deadline := time.Now().Add(hangGuard)
	for {
		n := runtime.NumGoroutine()
		if n <= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var errFakeClosed = errors.New("fake stream closed")

// fakeStream is a Stream driven by the test: Read returns the payloads the
// test sends, and Write records payloads for the test to receive.
type fakeStream struct {
	in     chan []byte // payloads for Read; closing it makes Read return io.EOF
	out    chan []byte // payloads written
	closed chan struct{}
	once   sync.Once
}

func newFakeStream() *fakeStream {
	return &fakeStream{
		in:     make(chan []byte),
		out:    make(chan []byte, 100),
		closed: make(chan struct{}),
	}
}

func (s *fakeStream) Read(ctx context.Context) ([]byte, error) {
	select {
	case p, ok := <-s.in:
		if !ok {
			return nil, io.EOF
		}
		return p, nil
	case <-s.closed:
		return nil, errFakeClosed
	}
}

func (s *fakeStream) Write(ctx context.Context, p []byte) error {
	select {
	case <-s.closed:
		return errFakeClosed
	default:
	}
	select {
	case s.out <- bytes.Clone(p):
		return nil
	case <-s.closed:
		return errFakeClosed
	}
}

func (s *fakeStream) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

// send hands payload to the connection's read loop.
func (s *fakeStream) send(t *testing.T, payload string) {
	t.Helper()
	select {
	case s.in <- []byte(payload):
	case <-time.After(hangGuard):
		t.Fatalf("timed out sending %s", payload)
	}
}

// next returns the next payload the connection writes.
func (s *fakeStream) next(t *testing.T) string {
	t.Helper()
	select {
	case p := <-s.out:
		return string(p)
	case <-time.After(hangGuard):
		t.Fatal("timed out waiting for a payload")
		return ""
	}
}

// noMore checks that nothing more was written; call it after Close.
func (s *fakeStream) noMore(t *testing.T) {
	t.Helper()
	select {
	case p := <-s.out:
		t.Errorf("unexpected payload written: %s", p)
	default:
	}
}

// fakeConn returns a Conn over a fakeStream, closed at the end of the test.
func fakeConn(t *testing.T, opts jsonrpc.ConnOptions) (*jsonrpc.Conn, *fakeStream) {
	t.Helper()
	s := newFakeStream()
	c := jsonrpc.NewConn(context.Background(), s, opts)
	t.Cleanup(func() { c.Close() })
	return c, s
}

// connPair returns two Conns talking over a net.Pipe, closed at the end of
// the test.
func connPair(t *testing.T, a, b jsonrpc.ConnOptions) (*jsonrpc.Conn, *jsonrpc.Conn) {
	t.Helper()
	pa, pb := net.Pipe()
	ca := jsonrpc.NewConn(context.Background(), jsonrpc.NewLineStream(pa, pa, jsonrpc.LineStreamOptions{}), a)
	cb := jsonrpc.NewConn(context.Background(), jsonrpc.NewLineStream(pb, pb, jsonrpc.LineStreamOptions{}), b)
	t.Cleanup(func() {
		ca.Close()
		cb.Close()
	})
	return ca, cb
}

// rawPeer is the far end of a Conn, speaking raw payloads over a net.Pipe.
type rawPeer struct {
	pipe   net.Conn
	stream jsonrpc.Stream
}

// rawConn returns a Conn using lineOpts over a net.Pipe, and its raw peer.
func rawConn(t *testing.T, opts jsonrpc.ConnOptions, lineOpts jsonrpc.LineStreamOptions) (*jsonrpc.Conn, *rawPeer) {
	t.Helper()
	a, b := net.Pipe()
	c := jsonrpc.NewConn(context.Background(), jsonrpc.NewLineStream(a, a, lineOpts), opts)
	p := &rawPeer{pipe: b, stream: jsonrpc.NewLineStream(b, b, jsonrpc.LineStreamOptions{})}
	t.Cleanup(func() {
		p.stream.Close()
		c.Close()
	})
	return c, p
}

func (p *rawPeer) send(t *testing.T, payload string) {
	t.Helper()
	p.pipe.SetWriteDeadline(time.Now().Add(hangGuard))
	if err := p.stream.Write(context.Background(), []byte(payload)); err != nil {
		t.Fatalf("Write(%.40s) = %v, want nil", payload, err)
	}
}

func (p *rawPeer) recv(t *testing.T) string {
	t.Helper()
	p.pipe.SetReadDeadline(time.Now().Add(hangGuard))
	data, err := p.stream.Read(context.Background())
	if err != nil {
		t.Fatalf("Read() = %v, want a payload", err)
	}
	return string(data)
}

// responses decodes a payload of responses into a map by id, as
// ID.String gives it; responses with a null id are keyed null#0, null#1...
func responses(t *testing.T, payload string) (resps map[string]*jsonrpc.Response, batch bool) {
	t.Helper()
	msgs, batch, err := jsonrpc.DecodePayload([]byte(payload))
	if err != nil {
		t.Fatalf("DecodePayload(%s) = %v, want nil error", payload, err)
	}
	resps = make(map[string]*jsonrpc.Response)
	nulls := 0
	for _, m := range msgs {
		resp, ok := m.(*jsonrpc.Response)
		if !ok {
			t.Fatalf("DecodePayload(%s) holds %T, want only responses", payload, m)
		}
		key := resp.ID.String()
		if !resp.ID.IsValid() {
			key = fmt.Sprintf("null#%d", nulls)
			nulls++
		}
		if _, dup := resps[key]; dup {
			t.Fatalf("DecodePayload(%s) has two responses for id %s", payload, key)
		}
		resps[key] = resp
	}
	return resps, batch
}

// keys returns the sorted keys of m.
func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// errorCode returns the code of the *Error in err, or 0.
func errorCode(err error) int64 {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// echo is a Handler that returns the params of every call, and "ok" when
// there are none.
var echo = jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if req.Params == nil {
		return "ok", nil
	}
	return req.Params, nil
})

// allStacks is the stacks of every goroutine, as runtime.Stack writes them.
func allStacks() []byte {
	buf := make([]byte, 1<<20)
	return buf[:runtime.Stack(buf, true)]
}
