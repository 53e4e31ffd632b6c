package e2e_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/internal/proctest"
	"github.com/cadbridge/cadbridge/internal/wsstream"
)

// agent is a client as an agent's would be: a JSON-RPC Conn that reads all
// the time (so it answers pings), approves what it is asked, and hands
// events to events.
type agent struct {
	conn   *jsonrpc.Conn
	events chan json.RawMessage
}

func dialAgent(t *testing.T, addr string) *agent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := wsstream.Dial(ctx, "ws://"+addr+"/rpc", wsstream.DialOptions{ReadLimit: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	a := &agent{events: make(chan json.RawMessage, 100)}
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case "approval":
			return map[string]any{"decision": "approve"}, nil
		case "event":
			a.events <- req.Params
			return nil, nil
		}
		return nil, jsonrpc.ErrNotHandled
	})
	a.conn = jsonrpc.NewConn(context.Background(), ws, jsonrpc.ConnOptions{Handler: h})
	t.Cleanup(func() { a.conn.Close() })
	return a
}

func (a *agent) call(t *testing.T, method string, params, result any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := a.conn.Call(ctx, jsonrpc.ID{}, method, params, result); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// TestIdleSessionParks: an idle WebSocket session's reader parks in the
// gateway — no goroutine of the gateway reads its connection — and the
// session works on as if it had not: it stays up across pings (the pongs
// wake the reader), gets events, answers a server request, makes calls,
// and ends with the gateway's graceful stop.
func TestIdleSessionParks(t *testing.T) {
	e := proctest.StartEngine(t, "127.0.0.1:0", "memory:")
	g := proctest.StartGateway(t, "127.0.0.1:0", e.Addr,
		"--park-after", "50ms", "--ping-interval", "200ms", "--write-timeout", "1s", "--pprof-listen", "127.0.0.1:0")
	m := regexp.MustCompile(`gateway pprof on (http://\S+/debug/pprof/)`).FindStringSubmatch(g.Stdout())
	if m == nil {
		t.Fatalf("no pprof address in the gateway's output:\n%s", g.Stdout())
	}
	pprof := m[1]

	a := dialAgent(t, g.Addr)
	var s sessionInfo
	a.call(t, "session.create", map[string]any{"capabilities": map[string]any{"server_requests": []string{"approval"}}, "approval_policy": "destructive"}, &s)
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	a.call(t, "document.create", map[string]any{"name": "parked"}, &doc)
	for i := range 2 {
		a.call(t, "tools.call", map[string]any{"session_id": s.SessionID, "document_id": doc.DocumentID, "tool": "entity_create_point", "args": map[string]any{"x": i, "y": 0}}, nil)
	}
	a.call(t, "session.subscribe", map[string]any{"session_id": s.SessionID, "document_ids": []string{doc.DocumentID}}, nil)

	// The session is idle: soon no goroutine reads its connection (one
	// may, briefly, for a pong), while its Session stream is there. A
	// reading goroutine is in the read loop's read, whichever way it
	// started (as the read loop or as a worker: they take turns).
	var profile string
	for deadline := time.Now().Add(10 * time.Second); ; {
		profile = scrape(t, pprof+"goroutine?debug=1")
		if !strings.Contains(profile, "jsonrpc.(*Conn).read+") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a goroutine of the gateway still reads the idle session's connection:\n%s", profile)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(profile, "gateway.(*engineStream).recvLoop") {
		t.Fatalf("no Session stream for the idle session in the gateway:\n%s", profile)
	}

	// Pings every 200 ms, each unanswered for 1 s would drop the client:
	// a second and a half parked, answering them, keeps it.
	time.Sleep(1500 * time.Millisecond)
	select {
	case <-a.conn.Done():
		t.Fatalf("the parked session's connection ended: %v", a.conn.Err())
	default:
	}

	// Another client's change reaches the parked session as an event.
	b := dialWebSocket(t, g.Addr)
	var r batchResult
	mustCall(t, b, 1, "cad.batch", pointsBatch(doc.DocumentID, "op-while-parked", 100, 2, "rollback", false), &r)
	waitEvent(t, a, "document.changed", "op-while-parked")

	// A destructive batch asks the parked client; its answer wakes the
	// reader and the batch runs.
	time.Sleep(200 * time.Millisecond)
	var del batchResult
	a.call(t, "cad.batch", deleteBatch(s, doc.DocumentID, "op-approved"), &del)
	if del.Status != "completed" {
		t.Fatalf("the approved batch of the parked session = %+v, want completed", del)
	}

	// A graceful stop ends the parked session with "going away".
	time.Sleep(200 * time.Millisecond)
	g.Stop()
	if err := g.Wait(); err != nil {
		t.Fatalf("the gateway's graceful stop with a parked session = %v, want a clean exit", err)
	}
	select {
	case <-a.conn.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the parked session's connection is still open after the gateway stopped")
	}
}

// waitEvent waits for an event of type typ from the operation op.
func waitEvent(t *testing.T, a *agent, typ, op string) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case params := <-a.events:
			var ev struct {
				Type    string `json:"type"`
				Payload struct {
					OperationID string `json:"operation_id"`
				} `json:"payload"`
			}
			if json.Unmarshal(params, &ev) == nil && ev.Type == typ && ev.Payload.OperationID == op {
				return
			}
		case <-timeout:
			t.Fatalf("no %s event for %s", typ, op)
		case <-a.conn.Done():
			t.Fatalf("the connection ended waiting for %s: %v", typ, a.conn.Err())
		}
	}
}
