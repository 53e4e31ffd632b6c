package wsstream_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"

	"github.com/cadbridge/cadbridge/internal/parking"
	"github.com/cadbridge/cadbridge/internal/wsstream"
	"github.com/cadbridge/cadbridge/internal/wsstream/wsstreamtest"
)

// The lot that parked Streams wait in has one goroutine for the process.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction(parking.WaitFunction))
}

// serve runs a WebSocket server whose connections are handled by handle,
// and returns its ws:// URL. The server stops when the test ends.
func serve(t *testing.T, handle func(r *http.Request, s *wsstream.Stream)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		handle(r, wsstream.New(c))
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/rpc"
}

// serveAccepted runs a WebSocket server whose one connection is accepted
// by Accept and handled by handle, and returns its ws:// URL and what
// served gets: Accept's error, or handle's. The server stops when the test
// ends.
func serveAccepted(t *testing.T, handle func(r *http.Request, s *wsstream.Stream) error) (url string, served chan error) {
	t.Helper()
	served = make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, err := wsstream.Accept(w, r, nil)
		if err != nil {
			served <- err
			return
		}
		served <- handle(r, s)
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http"), served
}

func dial(t *testing.T, url string, opts wsstream.DialOptions) *wsstream.Stream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, _, err := wsstream.Dial(ctx, url, opts)
	if err != nil {
		t.Fatalf("Dial(%s) = %v, want a stream", url, err)
	}
	t.Cleanup(func() { s.Conn().CloseNow() })
	return s
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestEcho: payloads go both ways as they are, and Dial sends the token
// and the headers it is given.
func TestEcho(t *testing.T) {
	url := serve(t, func(r *http.Request, s *wsstream.Stream) {
		ctx := r.Context()
		for _, h := range []string{r.Header.Get("Authorization"), r.Header.Get("X-Test")} {
			if err := s.Write(ctx, []byte(h)); err != nil {
				return
			}
		}
		for {
			payload, err := s.Read(ctx)
			if err != nil {
				return
			}
			if err := s.Write(ctx, payload); err != nil {
				return
			}
		}
	})
	header := http.Header{"X-Test": {"yes"}}
	s := dial(t, url, wsstream.DialOptions{Token: "tok-1", Header: header})
	ctx := testContext(t)
	for _, want := range []string{"Bearer tok-1", "yes"} {
		if got, err := s.Read(ctx); err != nil || string(got) != want {
			t.Errorf("Read() = %q, %v, want %q", got, err, want)
		}
	}
	if got := header.Get("Authorization"); got != "" {
		t.Errorf("DialOptions.Header after Dial: Authorization = %q, want it unchanged (none)", got)
	}
	for _, payload := range []string{`{"jsonrpc":"2.0","id":1,"method":"a"}`, `[{"jsonrpc":"2.0","method":"b"}]`} {
		if err := s.Write(ctx, []byte(payload)); err != nil {
			t.Fatalf("Write(%s) = %v, want nil", payload, err)
		}
		if got, err := s.Read(ctx); err != nil || string(got) != payload {
			t.Errorf("Read() after Write(%s) = %q, %v, want the payload back", payload, got, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close() = %v, want nil", err)
	}
}

// TestReadEnd: a normal or going-away close is the end of the stream
// (io.EOF); any other close is an error that keeps its status.
func TestReadEnd(t *testing.T) {
	for _, tc := range []struct {
		status websocket.StatusCode
		eof    bool
	}{
		{websocket.StatusNormalClosure, true},
		{websocket.StatusGoingAway, true},
		{websocket.StatusPolicyViolation, false},
		{websocket.StatusInternalError, false},
	} {
		t.Run(tc.status.String(), func(t *testing.T) {
			url := serve(t, func(r *http.Request, s *wsstream.Stream) {
				s.Conn().Close(tc.status, "bye")
			})
			s := dial(t, url, wsstream.DialOptions{})
			_, err := s.Read(testContext(t))
			switch {
			case tc.eof && err != io.EOF:
				t.Errorf("Read() after close %d = %v, want io.EOF", tc.status, err)
			case !tc.eof && websocket.CloseStatus(err) != tc.status:
				t.Errorf("Read() after close %d = %v, want an error with status %d", tc.status, err, tc.status)
			}
		})
	}
}

// TestReadContext: a context's end ends the Read that waits with it,
// closing the WebSocket at once, and fails a Read given it ended; ending
// the context of Reads that have returned leaves the stream as it was.
func TestReadContext(t *testing.T) {
	url := serve(t, func(r *http.Request, s *wsstream.Stream) {
		for _, m := range []string{"one", "two", "three"} {
			if s.Write(r.Context(), []byte(m)) != nil {
				return
			}
		}
		s.Read(r.Context()) // until the client goes
	})
	s := dial(t, url, wsstream.DialOptions{})
	first, cancelFirst := context.WithCancel(context.Background())
	for _, want := range []string{"one", "two"} {
		if got, err := s.Read(first); err != nil || string(got) != want {
			t.Fatalf("Read() = %q, %v, want %q", got, err, want)
		}
	}
	cancelFirst()
	if _, err := s.Read(first); !errors.Is(err, context.Canceled) {
		t.Errorf("Read(ended context) = %v, want context.Canceled", err)
	}

	s = dial(t, url, wsstream.DialOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	if got, err := s.Read(ctx); err != nil || string(got) != "one" {
		t.Fatalf("Read() = %q, %v, want one", got, err)
	}
	cancel() // after the Read returned: nothing to end
	other := testContext(t)
	if got, err := s.Read(other); err != nil || string(got) != "two" {
		t.Fatalf("Read() after the last Read's context ended = %q, %v, want two", got, err)
	}
	if got, err := s.Read(other); err != nil || string(got) != "three" {
		t.Fatalf("Read() = %q, %v, want three", got, err)
	}
	waiting, cancelWaiting := context.WithCancel(context.Background())
	read := make(chan error, 1)
	go func() {
		_, err := s.Read(waiting) // nothing more comes
		read <- err
	}()
	time.Sleep(20 * time.Millisecond) // let it wait (if it has not yet, it fails at once all the same)
	cancelWaiting()
	select {
	case err := <-read:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("waiting Read() after its context ended = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a waiting Read did not end with its context")
	}
	if err := s.Write(other, []byte("x")); err == nil {
		t.Error("Write() after a Read's context ended it = nil, want the WebSocket closed")
	}
}

// TestReadBinary: a binary message is not a payload.
func TestReadBinary(t *testing.T) {
	url := serve(t, func(r *http.Request, s *wsstream.Stream) {
		s.Conn().Write(r.Context(), websocket.MessageBinary, []byte("{}"))
		s.Read(r.Context()) // until the client goes
	})
	s := dial(t, url, wsstream.DialOptions{})
	if got, err := s.Read(testContext(t)); err == nil || err == io.EOF {
		t.Errorf("Read() of a binary message = %q, %v, want an error", got, err)
	}
}

// TestReadLimit: a message longer than DialOptions.ReadLimit fails Read.
func TestReadLimit(t *testing.T) {
	url := serve(t, func(r *http.Request, s *wsstream.Stream) {
		s.Write(r.Context(), []byte(strings.Repeat("x", 100)))
		s.Write(r.Context(), []byte(strings.Repeat("x", 101)))
		s.Read(r.Context())
	})
	s := dial(t, url, wsstream.DialOptions{ReadLimit: 100})
	ctx := testContext(t)
	if got, err := s.Read(ctx); err != nil || len(got) != 100 {
		t.Errorf("Read() of 100 bytes with ReadLimit 100 = %d bytes, %v, want 100 bytes", len(got), err)
	}
	if _, err := s.Read(ctx); !errors.Is(err, websocket.ErrMessageTooBig) {
		t.Errorf("Read() of 101 bytes with ReadLimit 100 = %v, want websocket.ErrMessageTooBig", err)
	}
}

// TestDialRefused: a refused handshake returns the server's response.
func TestDialRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer srv.Close()
	s, resp, err := wsstream.Dial(testContext(t), "ws"+strings.TrimPrefix(srv.URL, "http"), wsstream.DialOptions{Token: "bad"})
	if err == nil || s != nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Errorf("Dial() to a server that answers 401 = %v, HTTP %d, %v, want HTTP 401 and an error", s, status, err)
	}
}

// TestAcceptClientClosesFirst: a client that sends its close frame after
// its last message still gets the answers the server writes after reading
// io.EOF, and then the server's close frame; a ping meanwhile does not
// wait for a pong that cannot come.
func TestAcceptClientClosesFirst(t *testing.T) {
	url, served := serveAccepted(t, func(r *http.Request, s *wsstream.Stream) error {
		defer s.Conn().CloseNow()
		s.Conn().SetReadLimit(1 << 20)
		ctx := r.Context()
		var got [][]byte
		for {
			data, err := s.Read(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			got = append(got, data)
		}
		if err := s.Ping(ctx); err != nil {
			return fmt.Errorf("Ping() after the client's close = %v, want nil", err)
		}
		for _, data := range got {
			if err := s.Write(ctx, append([]byte("re: "), data...)); err != nil {
				return fmt.Errorf("Write() after the client's close = %v, want nil", err)
			}
		}
		return s.Close()
	})
	c := wsstreamtest.Dial(t, url, nil)
	for _, m := range []string{"one", "two", strings.Repeat("x", 70000)} {
		c.WriteText(t, []byte(m))
	}
	c.WriteClose(t, 1000, "done")
	var answers []string
	for {
		op, payload, err := c.ReadFrame(10 * time.Second)
		if err != nil {
			t.Fatalf("ReadFrame() = %v after answers %d, want the server's close frame", err, len(answers))
		}
		if op == wsstreamtest.OpClose {
			break
		}
		answers = append(answers, string(payload))
	}
	if len(answers) != 3 || answers[0] != "re: one" || answers[1] != "re: two" || len(answers[2]) != 70004 {
		t.Errorf("answers before the close = %d (%.20q…), want re: one, re: two and the long one", len(answers), answers)
	}
	if err := <-served; err != nil {
		t.Errorf("server: %v", err)
	}
}

// TestAcceptClientClosesWithError: a close frame with another status ends
// Read with that status.
func TestAcceptClientClosesWithError(t *testing.T) {
	url, read := serveAccepted(t, func(r *http.Request, s *wsstream.Stream) error {
		defer s.Close()
		_, err := s.Read(r.Context())
		return err
	})
	c := wsstreamtest.Dial(t, url, nil)
	c.WriteClose(t, uint16(websocket.StatusPolicyViolation), "bye")
	if err := <-read; websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
		t.Errorf("Read() after a 1008 close frame = %v, want status 1008", err)
	}
	if op, _, err := c.ReadFrame(10 * time.Second); err != nil || op != wsstreamtest.OpClose {
		t.Errorf("ReadFrame() = %x, %v, want the server's close frame", op, err)
	}
}

// TestReadSizes: messages of every size, from empty to many times the
// size of a read, arrive whole, and each stays as it was while the next
// ones are read.
func TestReadSizes(t *testing.T) {
	sizes := []int{0, 1, 100, 32 << 10, 32<<10 + 1, 300 << 10, 5, 1 << 20, 64 << 10}
	payload := func(i, n int) []byte {
		b := []byte(strings.Repeat(string(rune('a'+i)), n))
		if n > 0 {
			b[n-1] = '!'
		}
		return b
	}
	url := serve(t, func(r *http.Request, s *wsstream.Stream) {
		for i, n := range sizes {
			if err := s.Write(r.Context(), payload(i, n)); err != nil {
				return
			}
		}
		s.Read(r.Context()) // until the client goes
	})
	s := dial(t, url, wsstream.DialOptions{ReadLimit: 2 << 20})
	ctx := testContext(t)
	var got [][]byte
	for i, n := range sizes {
		b, err := s.Read(ctx)
		if err != nil || len(b) != n {
			t.Fatalf("Read() of message %d = %d bytes, %v; want %d bytes", i, len(b), err, n)
		}
		got = append(got, b)
	}
	for i, n := range sizes {
		if string(got[i]) != string(payload(i, n)) {
			t.Errorf("message %d (%d bytes) changed after the later reads", i, n)
		}
	}
}

// TestWriteBatch: an accepted Stream's batch of messages, small and
// large, reaches the client whole and in order, and so do writes after it.
func TestWriteBatch(t *testing.T) {
	sizes := []int{3, 0, 200, 5000, 150 << 10, 10, 70 << 10, 1}
	payload := func(i, n int) []byte { return []byte(strings.Repeat(string(rune('a'+i)), n)) }
	url, served := serveAccepted(t, func(r *http.Request, s *wsstream.Stream) error {
		var batch [][]byte
		for i, n := range sizes {
			batch = append(batch, payload(i, n))
		}
		if err := s.WriteBatch(time.Now().Add(10*time.Second), batch); err != nil {
			return err
		}
		if err := s.Write(r.Context(), []byte("after")); err != nil {
			return err
		}
		if _, err := s.Read(r.Context()); !errors.Is(err, io.EOF) { // until the client goes
			return err
		}
		return s.Close()
	})
	s := dial(t, url, wsstream.DialOptions{ReadLimit: 1 << 20})
	ctx := testContext(t)
	for i, n := range sizes {
		b, err := s.Read(ctx)
		if err != nil || string(b) != string(payload(i, n)) {
			t.Fatalf("Read() of message %d = %d bytes, %v; want the %d bytes written", i, len(b), err, n)
		}
	}
	if b, err := s.Read(ctx); err != nil || string(b) != "after" {
		t.Fatalf("Read() after the batch = %q, %v; want \"after\"", b, err)
	}
	s.Close()
	if err := <-served; err != nil {
		t.Errorf("server: %v", err)
	}
}

// TestWriteBatchDeadline: an accepted Stream's batch to a client that
// does not read fails once its deadline has passed, small messages and a
// large one alike, and closes the connection, whose writes would
// otherwise wait for the client.
func TestWriteBatchDeadline(t *testing.T) {
	for _, size := range []int{100, 200 << 10} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			done := make(chan error, 1)
			url, served := serveAccepted(t, func(r *http.Request, s *wsstream.Stream) error {
				payload := []byte(strings.Repeat("x", size))
				batch := make([][]byte, 1000)
				for i := range batch {
					batch[i] = payload
				}
				deadline := time.Now().Add(200 * time.Millisecond)
				var err error
				for err == nil && time.Now().Before(deadline.Add(5*time.Second)) {
					err = s.WriteBatch(deadline, batch) // until the socket buffers are full
				}
				done <- err
				if err == nil {
					return nil
				}
				if err := s.Write(r.Context(), []byte("after")); err == nil {
					return errors.New("a write after the failed batch succeeded")
				}
				return nil
			})
			dial(t, url, wsstream.DialOptions{}) // and never read
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("WriteBatch to a client that does not read never failed")
				}
			case <-time.After(10 * time.Second):
				t.Fatal("WriteBatch to a client that does not read did not return")
			}
			if err := <-served; err != nil {
				t.Error(err)
			}
		})
	}
}
