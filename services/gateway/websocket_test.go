package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/cadbridge/cadbridge/internal/wsstream"
)

// acceptedStream serves one WebSocket and returns the gateway's stream of
// it and the client's connection; both end with the test.
func acceptedStream(t *testing.T, cfg Config) (*wsStream, *websocket.Conn) {
	t.Helper()
	streams := make(chan *wsStream, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := wsstream.Accept(w, r, nil)
		if err != nil {
			t.Error(err)
			return
		}
		streams <- newWSStream(context.Background(), ws, cfg, newConnBudget(0, &memoryBudget{}))
	}))
	t.Cleanup(srv.Close)
	client, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	client.SetReadLimit(-1)
	t.Cleanup(func() { client.CloseNow() })
	s := <-streams
	t.Cleanup(func() { s.Close() })
	return s, client
}

// TestWriteReleaseOnce: every payload given to WriteRelease is released
// once and only once, whether the caller wrote it, the writer took it from
// the queue, or the stream dropped it when it stopped; one given after the
// stream stopped, at once.
func TestWriteReleaseOnce(t *testing.T) {
	s, client := acceptedStream(t, Config{WriteTimeout: 5 * time.Second, SendQueue: 4, PingInterval: time.Hour})
	const writers, each = 4, 30
	var released [writers * each]atomic.Int32
	payload := []byte(`"` + strings.Repeat("x", 200<<10) + `"`) // several fill the socket's buffers
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				k := w*each + i
				s.WriteRelease(context.Background(), payload, func() { released[k].Add(1) })
			}
		})
	}
	for range 10 { // read some, slowly, then stop reading: later payloads queue, and the last are dropped
		if _, _, err := client.Read(context.Background()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	s.cancel() // stops the stream: what is queued is dropped
	client.CloseNow()
	wg.Wait()
	s.wait()
	for k := range released {
		if n := released[k].Load(); n != 1 {
			t.Errorf("payload %d was released %d times, want once", k, n)
		}
	}
	var late atomic.Int32
	if err := s.WriteRelease(context.Background(), payload, func() { late.Add(1) }); err == nil || late.Load() != 1 {
		t.Errorf("WriteRelease after the stream stopped = %v, released %d times; want an error and once", err, late.Load())
	}
}
