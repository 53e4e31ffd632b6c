package bench_test

import (
	"context"
	"testing"

	"go.uber.org/goleak"

	"github.com/cadbridge/cadbridge/bench"
	"github.com/cadbridge/cadbridge/internal/parking"
)

// TestNoGoroutineLeaks runs both services in process, opens sessions and
// streams, stops everything with connections still open, and checks that
// no goroutine is left behind.
func TestNoGoroutineLeaks(t *testing.T) {
	// The lot that parked WebSockets wait in has one goroutine for the
	// process, from the first connection on.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), goleak.IgnoreAnyFunction(parking.WaitFunction))
	ctx := context.Background()
	st, err := bench.Start(bench.Options{Store: "sqlite:" + t.TempDir() + "/leak.db"})
	if err != nil {
		t.Fatal(err)
	}
	var clients []*bench.Client
	for i := 0; i < 4; i++ {
		c, err := bench.Dial(ctx, st.Gateway, nil)
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
		var s struct {
			SessionID string `json:"session_id"`
		}
		if err := c.Call(ctx, "session.create", map[string]any{}, &s); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			DocumentID string `json:"document_id"`
		}
		if err := c.Call(ctx, "document.create", map[string]any{}, &doc); err != nil {
			t.Fatal(err)
		}
		if err := c.Call(ctx, "cad.batch", map[string]any{"session_id": s.SessionID, "document_id": doc.DocumentID, "steps": []any{
			map[string]any{"tool": "entity_create_line", "args": map[string]any{"x1": 0, "y1": 0, "x2": 1, "y2": 1}},
		}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	st.Close() // with the clients still connected
	for _, c := range clients {
		c.Close()
	}
}
