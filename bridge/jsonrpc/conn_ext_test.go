package jsonrpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
)

func TestConnParseError(t *testing.T) {
	_, s := fakeConn(t, jsonrpc.ConnOptions{Handler: echo})
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":`)
	got := s.next(t)
	if want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error`; !strings.HasPrefix(got, want) {
		t.Errorf("response to bad JSON = %s, want prefix %s", got, want)
	}
}

func TestConnInvalidRequest(t *testing.T) {
	_, s := fakeConn(t, jsonrpc.ConnOptions{Handler: echo})
	for _, tt := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":5,"method":"echo","params":1}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,`},
		{`{"jsonrpc":"2.0","id":[5],"method":"echo"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{`"hello"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
	} {
		s.send(t, tt.in)
		if got := s.next(t); !strings.HasPrefix(got, tt.want) {
			t.Errorf("response to %s = %s, want prefix %s", tt.in, got, tt.want)
		}
	}
}

func TestConnHandlerErrors(t *testing.T) {
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case "custom":
			return nil, fmt.Errorf("wrapped: %w", jsonrpc.NewError(123, "custom").WithData([]int{1}))
		case "boom":
			return nil, errors.New("boom")
		case "unmarshalable":
			return func() {}, nil
		case "raw":
			return json.RawMessage(`{"x": 1}`), nil
		}
		return nil, jsonrpc.ErrNotHandled
	})
	_, client := connPair(t, jsonrpc.ConnOptions{Handler: h}, jsonrpc.ConnOptions{})
	ctx := context.Background()
	for _, tt := range []struct {
		method string
		code   int64
	}{
		{"custom", 123},
		{"boom", jsonrpc.CodeInternalError},
		{"unmarshalable", jsonrpc.CodeInternalError},
		{"nope", jsonrpc.CodeMethodNotFound},
	} {
		err := client.Call(ctx, jsonrpc.ID{}, tt.method, nil, nil)
		if got := errorCode(err); got != tt.code {
			t.Errorf("Call(%s) = %v, want error code %d", tt.method, err, tt.code)
		}
	}
	var e *jsonrpc.Error
	if err := client.Call(ctx, jsonrpc.ID{}, "custom", nil, nil); !errors.As(err, &e) || e.Message != "custom" || string(e.Data) != "[1]" {
		t.Errorf("Call(custom) = %v, want the handler's *Error with data [1]", err)
	}
	if err := client.Call(ctx, jsonrpc.ID{}, "boom", nil, nil); !errors.As(err, &e) || e.Message != "boom" {
		t.Errorf("Call(boom) = %v, want message boom", err)
	}
	var raw map[string]int
	if err := client.Call(ctx, jsonrpc.ID{}, "raw", nil, &raw); err != nil || raw["x"] != 1 {
		t.Errorf("Call(raw) = %v, %v, want map[x:1]", raw, err)
	}
}

func TestConnNilHandler(t *testing.T) {
	_, s := fakeConn(t, jsonrpc.ConnOptions{})
	s.send(t, `{"jsonrpc":"2.0","method":"note"}`)
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"m"}`)
	if got, want := s.next(t), `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: \"m\""}}`; got != want {
		t.Errorf("response = %s, want %s", got, want)
	}
}

// TestConnConcurrent checks that calls are served concurrently and that
// responses arriving out of order reach the right callers.
func TestConnConcurrent(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "slow" {
			close(started)
			<-release
			return "slow", nil
		}
		return echo(ctx, req)
	})
	_, client := connPair(t, jsonrpc.ConnOptions{Handler: h}, jsonrpc.ConnOptions{})
	unblock := sync.OnceFunc(func() { close(release) })
	t.Cleanup(unblock) // before Close, even if the test fails
	ctx := context.Background()

	slow := make(chan error, 1)
	var slowResult string
	go func() { slow <- client.Call(ctx, jsonrpc.StringID("srq-slow"), "slow", nil, &slowResult) }()
	<-started

	var wg sync.WaitGroup
	for i := range 20 {
		id := jsonrpc.ID{}
		if i%2 == 0 {
			id = jsonrpc.StringID(fmt.Sprintf("srq-%d", i))
		}
		wg.Go(func() {
			var got []int
			if err := client.Call(ctx, id, "echo", []int{i}, &got); err != nil || len(got) != 1 || got[0] != i {
				t.Errorf("Call(echo, [%d]) = %v, %v, want [%d]", i, got, err, i)
			}
		})
	}
	wg.Wait() // all answered while "slow" is still running

	unblock()
	if err := <-slow; err != nil || slowResult != "slow" {
		t.Errorf("Call(slow) = %q, %v, want slow", slowResult, err)
	}
}

func TestConnCallIDInUse(t *testing.T) {
	started := make(chan struct{})
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	_, client := connPair(t, jsonrpc.ConnOptions{Handler: h}, jsonrpc.ConnOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() { first <- client.Call(ctx, jsonrpc.StringID("x"), "wait", nil, nil) }()
	<-started // the first call is pending
	if err := client.Call(context.Background(), jsonrpc.StringID("x"), "wait", nil, nil); err == nil || !strings.Contains(err.Error(), "already in use") {
		t.Errorf("Call(x) while x is pending = %v, want an in-use error", err)
	}
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Errorf("Call(x) after cancel = %v, want context.Canceled", err)
	}
}

// TestConnNoDeadlock checks that a handler may call the peer and wait for
// the answer even when it uses the only handler slot and more calls are
// queued: responses are routed in the read loop, ahead of the queue.
func TestConnNoDeadlock(t *testing.T) {
	var server *jsonrpc.Conn
	outer := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var n int
		if err := server.Call(ctx, jsonrpc.StringID(fmt.Sprintf("srq-%v", req.ID.Raw())), "inner", nil, &n); err != nil {
			return nil, err
		}
		return n + 1, nil
	})
	inner := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return 41, nil
	})
	server, client := connPair(t,
		jsonrpc.ConnOptions{Handler: outer, MaxConcurrent: 1},
		jsonrpc.ConnOptions{Handler: inner, MaxConcurrent: 1})

	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			var got int
			if err := client.Call(context.Background(), jsonrpc.Int64ID(int64(i)), "outer", nil, &got); err != nil || got != 42 {
				t.Errorf("Call(outer) = %d, %v, want 42", got, err)
			}
		})
	}
	wg.Wait()
}

func TestConnCancelRequest(t *testing.T) {
	started := make(chan struct{})
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, errors.New("gave up") // not a context error: still answered as cancelled
	})
	_, client := connPair(t, jsonrpc.ConnOptions{Handler: h}, jsonrpc.ConnOptions{})
	ctx := context.Background()

	done := make(chan error, 1)
	go func() { done <- client.Call(ctx, jsonrpc.StringID("c-1"), "wait", nil, nil) }()
	<-started
	if err := client.Notify(ctx, jsonrpc.MethodCancelRequest, map[string]any{"id": "unknown"}); err != nil {
		t.Fatalf("Notify(cancel unknown) = %v, want nil", err)
	}
	if err := client.Notify(ctx, jsonrpc.MethodCancelRequest, map[string]any{"id": "c-1"}); err != nil {
		t.Fatalf("Notify(cancel c-1) = %v, want nil", err)
	}
	if err := <-done; errorCode(err) != jsonrpc.CodeRequestCancelled {
		t.Errorf("Call(wait) = %v, want error code %d", err, jsonrpc.CodeRequestCancelled)
	}
}

// TestConnBreak checks that when the peer goes away, handler contexts are
// cancelled and pending calls fail with ErrClosed.
func TestConnBreak(t *testing.T) {
	started := make(chan struct{})
	handlerErr := make(chan error, 1)
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		close(started)
		<-ctx.Done()
		handlerErr <- ctx.Err()
		return nil, ctx.Err()
	})
	writeErrs := make(chan error, 10)
	server, peer := rawConn(t, jsonrpc.ConnOptions{Handler: h, OnError: func(err error) { writeErrs <- err }}, jsonrpc.LineStreamOptions{})
	peer.send(t, `{"jsonrpc":"2.0","id":1,"method":"wait"}`)
	<-started

	callErr := make(chan error, 1)
	go func() { callErr <- server.Call(context.Background(), jsonrpc.StringID("srq-1"), "ask", nil, nil) }()
	if got, want := peer.recv(t), `{"jsonrpc":"2.0","id":"srq-1","method":"ask"}`; got != want {
		t.Fatalf("request = %s, want %s", got, want)
	}
	peer.stream.Close()

	if err := <-handlerErr; !errors.Is(err, context.Canceled) {
		t.Errorf("handler ctx.Err() = %v, want context.Canceled", err)
	}
	if err := <-callErr; !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("pending Call() = %v, want ErrClosed", err)
	}
	<-server.Done()
	if err := server.Err(); err != io.EOF {
		t.Errorf("Err() = %v, want io.EOF", err)
	}
	if err := server.Call(context.Background(), jsonrpc.ID{}, "late", nil, nil); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("Call() after the end = %v, want ErrClosed", err)
	}
	if err := server.Notify(context.Background(), "late", nil); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("Notify() after the end = %v, want ErrClosed", err)
	}
	if err := server.Close(); err != nil {
		t.Errorf("Close() = %v, want nil", err)
	}
	if err := <-writeErrs; err == nil {
		t.Errorf("OnError got nil, want the failed write of the response")
	}
}

// TestConnClose checks that Close cancels running handlers and waits for
// them, and that a cancelled parent context ends the connection.
func TestConnClose(t *testing.T) {
	started := make(chan struct{})
	var finished bool // set by the handler; Close must wait for it
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		close(started)
		<-ctx.Done()
		finished = true
		return nil, ctx.Err()
	})
	c, s := fakeConn(t, jsonrpc.ConnOptions{Handler: h})
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"wait"}`)
	<-started
	if err := c.Close(); err != nil {
		t.Errorf("Close() = %v, want nil", err)
	}
	if !finished {
		t.Errorf("Close() returned before the handler did")
	}
	if err := c.Err(); err != nil {
		t.Errorf("Err() after Close = %v, want nil", err)
	}

	ctx, cancel := context.WithCancelCause(context.Background())
	errStop := errors.New("stop")
	c2 := jsonrpc.NewConn(ctx, newFakeStream(), jsonrpc.ConnOptions{})
	cancel(errStop)
	<-c2.Done()
	if err := c2.Err(); err != errStop {
		t.Errorf("Err() after cancelling ctx = %v, want %v", err, errStop)
	}
	c2.Close()
}

func TestConnBatch(t *testing.T) {
	_, s := fakeConn(t, jsonrpc.ConnOptions{Handler: echo})
	s.send(t, `[
		{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]},
		{"jsonrpc":"2.0","method":"note"},
		{"jsonrpc":"2.0","id":"x","method":"echo","params":"bad"},
		5,
		{"jsonrpc":"2.0","id":2,"method":"echo","params":{"a":2}}
	]`)
	resps, batch := responses(t, s.next(t))
	if !batch {
		t.Errorf("response to a batch is not an array")
	}
	if got, want := strings.Join(keys(resps), " "), `"x" 1 2 null#0`; got != want {
		t.Fatalf("response ids = %s, want %s", got, want)
	}
	if got := string(resps["1"].Result); got != "[1]" {
		t.Errorf("result 1 = %s, want [1]", got)
	}
	if got := string(resps["2"].Result); got != `{"a":2}` {
		t.Errorf("result 2 = %s, want {\"a\":2}", got)
	}
	for k, r := range resps {
		if k != "1" && k != "2" && (r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidRequest) {
			t.Errorf("response %s = %+v, want error code %d", k, r, jsonrpc.CodeInvalidRequest)
		}
	}
}

func TestConnBatchLimits(t *testing.T) {
	_, s := fakeConn(t, jsonrpc.ConnOptions{Handler: echo, MaxBatch: 2})
	for _, tt := range []struct{ in, want string }{
		{`[]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: empty batch"}}`},
		{`[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"},{"jsonrpc":"2.0","method":"c"}]`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large: 3 elements, at most 2"}}`},
		{`[{"jsonrpc":"2.0","id":1,"method":"a"}]`, `[{"jsonrpc":"2.0","id":1,"result":"ok"}]`},
	} {
		s.send(t, tt.in)
		if got := s.next(t); got != tt.want {
			t.Errorf("response to %s = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestConnBatchOnlyNotifications(t *testing.T) {
	notes := make(chan string, 2)
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		notes <- req.Method
		return nil, nil
	})
	c, s := fakeConn(t, jsonrpc.ConnOptions{Handler: h})
	s.send(t, `[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"},{"jsonrpc":"2.0","id":"r","result":1}]`)
	<-notes
	<-notes
	c.Close()
	s.noMore(t)
}

// TestConnBatchRoutesResponses checks that responses inside a batch reach
// the pending Calls, and the calls beside them are answered.
func TestConnBatchRoutesResponses(t *testing.T) {
	c, s := fakeConn(t, jsonrpc.ConnOptions{Handler: echo})
	done := make(chan error, 1)
	var got int
	go func() { done <- c.Call(context.Background(), jsonrpc.StringID("srq-1"), "ask", []string{"q"}, &got) }()
	if req, want := s.next(t), `{"jsonrpc":"2.0","id":"srq-1","method":"ask","params":["q"]}`; req != want {
		t.Fatalf("request = %s, want %s", req, want)
	}
	s.send(t, `[{"jsonrpc":"2.0","id":"srq-1","result":42},{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}]`)
	if err := <-done; err != nil || got != 42 {
		t.Errorf("Call(ask) = %d, %v, want 42", got, err)
	}
	if resp, want := s.next(t), `[{"jsonrpc":"2.0","id":1,"result":[1]}]`; resp != want {
		t.Errorf("response = %s, want %s", resp, want)
	}
}

func TestConnDuplicateID(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "block" {
			close(started)
			<-release
		}
		return req.Method, nil
	})
	_, s := fakeConn(t, jsonrpc.ConnOptions{Handler: h})
	unblock := sync.OnceFunc(func() { close(release) })
	t.Cleanup(unblock) // before Close, even if the test fails
	s.send(t, `{"jsonrpc":"2.0","id":7,"method":"block"}`)
	<-started
	s.send(t, `{"jsonrpc":"2.0","id":7,"method":"again"}`)
	if got, want := s.next(t), `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"duplicate request id 7"}}`; got != want {
		t.Errorf("response to duplicate = %s, want %s", got, want)
	}
	unblock()
	if got, want := s.next(t), `{"jsonrpc":"2.0","id":7,"result":"block"}`; got != want {
		t.Errorf("response to first = %s, want %s", got, want)
	}
	// Once answered, the id may be used again.
	s.send(t, `{"jsonrpc":"2.0","id":7,"method":"again"}`)
	if got, want := s.next(t), `{"jsonrpc":"2.0","id":7,"result":"again"}`; got != want {
		t.Errorf("response to reuse = %s, want %s", got, want)
	}
}

func TestConnUnknownResponse(t *testing.T) {
	errs := make(chan error, 1)
	c, s := fakeConn(t, jsonrpc.ConnOptions{Handler: echo, OnError: func(err error) { errs <- err }})
	s.send(t, `{"jsonrpc":"2.0","id":"nope","result":1}`)
	if err := <-errs; err == nil || !strings.Contains(err.Error(), `unknown id "nope"`) {
		t.Errorf("OnError(%v), want an unknown-id error", err)
	}
	c.Close()
	s.noMore(t)
}

type preempter func(ctx context.Context, req *jsonrpc.Request) (any, error)

func (p preempter) Preempt(ctx context.Context, req *jsonrpc.Request) (any, error) {
	return p(ctx, req)
}

// TestConnPreempter checks that the Preempter answers while the only
// handler slot is busy.
func TestConnPreempter(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		close(started)
		<-release
		return "handled", nil
	})
	p := preempter(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "status" {
			return "busy", nil
		}
		return nil, jsonrpc.ErrNotHandled
	})
	_, s := fakeConn(t, jsonrpc.ConnOptions{Handler: h, Preempter: p, MaxConcurrent: 1})
	unblock := sync.OnceFunc(func() { close(release) })
	t.Cleanup(unblock) // before Close, even if the test fails
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"work"}`)
	<-started
	s.send(t, `{"jsonrpc":"2.0","id":2,"method":"status"}`)
	if got, want := s.next(t), `{"jsonrpc":"2.0","id":2,"result":"busy"}`; got != want {
		t.Errorf("response to status = %s, want %s", got, want)
	}
	unblock()
	if got, want := s.next(t), `{"jsonrpc":"2.0","id":1,"result":"handled"}`; got != want {
		t.Errorf("response to work = %s, want %s", got, want)
	}
}

// TestConnMaxConcurrent checks that no more than MaxConcurrent handlers run
// at once, that queued requests are served when running ones finish, and
// that a queued request cancelled by the peer is answered without running
// the handler.
func TestConnMaxConcurrent(t *testing.T) {
	started := make(chan string, 10)
	release := make(chan struct{})
	var mu sync.Mutex
	running, most := 0, 0
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		started <- req.ID.String()
		<-release
		mu.Lock()
		running--
		mu.Unlock()
		return "done", nil
	})
	_, s := fakeConn(t, jsonrpc.ConnOptions{Handler: h, MaxConcurrent: 2})
	unblock := sync.OnceFunc(func() { close(release) })
	t.Cleanup(unblock) // before Close, even if the test fails
	for i := range 4 {
		s.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"work"}`, i))
	}
	<-started
	<-started
	// Requests 2 and 3 are queued; cancel 3 before it starts.
	s.send(t, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3}}`)
	// Once the read loop takes the next payload, it is done with the cancel.
	s.send(t, `{"jsonrpc":"2.0","id":4,"method":"work"}`)
	// Now the queue is longer than MaxConcurrent: the read loop waits for
	// room before reading more.
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := 5; i < 8; i++ {
			s.in <- fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"work"}`, i)
		}
	}()
	unblock()
	got := map[string]string{}
	for range 8 {
		resps, _ := responses(t, s.next(t))
		for k, r := range resps {
			got[k] = string(r.Result)
			if r.Error != nil {
				got[k] = r.Error.Message
			}
		}
	}
	<-sent
	want := map[string]string{"0": `"done"`, "1": `"done"`, "2": `"done"`, "3": "request cancelled",
		"4": `"done"`, "5": `"done"`, "6": `"done"`, "7": `"done"`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("responses = %v, want %v", got, want)
	}
	close(started)
	for id := range started {
		if id == "3" {
			t.Errorf("the handler ran for the cancelled request 3")
		}
	}
	if most != 2 {
		t.Errorf("most handlers running at once = %d, want 2", most)
	}
}

// TestConnUnmatched: a response whose id no pending call has goes to
// Unmatched (answers to requests an earlier connection sent).
func TestConnUnmatched(t *testing.T) {
	got := make(chan *jsonrpc.Response, 1)
	_, s := fakeConn(t, jsonrpc.ConnOptions{Unmatched: func(r *jsonrpc.Response) { got <- r }})
	s.send(t, `{"jsonrpc":"2.0","id":"srq-earlier","result":{"decision":"approve"}}`)
	r := <-got
	if r.ID != jsonrpc.StringID("srq-earlier") || string(r.Result) != `{"decision":"approve"}` {
		t.Errorf("Unmatched got id %v result %s, want srq-earlier with the answer", r.ID, r.Result)
	}
}

// queuingStream is a fakeStream that is a Queuer: what is queued goes to
// queued, not to the written payloads.
type queuingStream struct {
	*fakeStream
	queued chan []byte
}

func (s *queuingStream) Queue(p []byte) error {
	s.queued <- bytes.Clone(p)
	return nil
}

// TestNotifyQueues: on a Queuer, Notify queues the notification (it does
// not write it); a call's request is still written.
func TestNotifyQueues(t *testing.T) {
	s := &queuingStream{fakeStream: newFakeStream(), queued: make(chan []byte, 1)}
	c := jsonrpc.NewConn(context.Background(), s, jsonrpc.ConnOptions{})
	t.Cleanup(func() { c.Close() })
	if err := c.Notify(context.Background(), "event", map[string]int{"seq": 1}); err != nil {
		t.Fatalf("Notify = %v", err)
	}
	select {
	case p := <-s.queued:
		if want := `{"jsonrpc":"2.0","method":"event","params":{"seq":1}}`; string(p) != want {
			t.Errorf("queued %s, want %s", p, want)
		}
	default:
		t.Fatal("Notify queued nothing")
	}
	select {
	case p := <-s.out:
		t.Fatalf("Notify wrote %s; want it queued only", p)
	default:
	}
}

// TestUnwrittenAnswersStopReading: a peer that sends calls and never
// reads, each answered in the read loop (as a Preempter answers), gets the
// read loop to stop once more than MaxConcurrent answers wait to be
// written, instead of a goroutine waiting to write for each call it sends.
func TestUnwrittenAnswersStopReading(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &floodStream{left: 200, closed: make(chan struct{})}
		refuse := preempter(func(context.Context, *jsonrpc.Request) (any, error) {
			return nil, jsonrpc.NewError(-32000, "overloaded")
		})
		c := jsonrpc.NewConn(context.Background(), s, jsonrpc.ConnOptions{Preempter: refuse, MaxConcurrent: 2})
		synctest.Wait()
		if got := s.reads(); got > 2*2+2 {
			t.Errorf("the read loop read %d calls whose answers could not be written, want it to stop after about MaxConcurrent (2)", got)
		}
		c.Close()
	})
}

// floodStream is a peer that sends left calls and never reads: a Write
// waits until the stream is closed, and so does a Read once the calls are
// sent.
type floodStream struct {
	mu     sync.Mutex // guards left and read
	left   int
	read   int
	closed chan struct{}
	once   sync.Once
}

func (s *floodStream) Read(context.Context) ([]byte, error) {
	s.mu.Lock()
	if s.left > 0 {
		s.left--
		s.read++
		id := s.read
		s.mu.Unlock()
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"m"}`, id), nil
	}
	s.mu.Unlock()
	<-s.closed
	return nil, io.EOF
}

func (s *floodStream) Write(context.Context, []byte) error {
	<-s.closed
	return errors.New("closed")
}

func (s *floodStream) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

func (s *floodStream) reads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.read
}
