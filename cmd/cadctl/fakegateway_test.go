package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/internal/proctest"
	"github.com/cadbridge/cadbridge/internal/wsstream"
)

// fakeGateway is an in-process JSON-RPC server over WebSocket standing in
// for the gateway: each test gives the behaviour of the methods it needs
// as a function, and can drop connections to exercise resuming.
type fakeGateway struct {
	t   *testing.T
	srv *httptest.Server
	// handle serves a call on a connection; nil answers -32601.
	handle func(ctx context.Context, fc *fakeConn, req *jsonrpc.Request) (any, error)
	// unmatched receives responses to requests the connection did not
	// send: answers to replayed server requests.
	unmatched chan *jsonrpc.Response

	mu    sync.Mutex // guards conns, calls and auth
	conns []*fakeConn
	calls []recordedCall
	auth  []string // the Authorization header of each connection
}

// fakeConn is one client connection to the fake.
type fakeConn struct {
	n     int // 1 for the first connection
	rpc   *jsonrpc.Conn
	ws    *websocket.Conn
	ready chan struct{} // closed once rpc is set
}

type recordedCall struct {
	conn   int
	method string
	params json.RawMessage
}

func newFakeGateway(t *testing.T, handle func(ctx context.Context, fc *fakeConn, req *jsonrpc.Request) (any, error)) *fakeGateway {
	g := &fakeGateway{t: t, handle: handle, unmatched: make(chan *jsonrpc.Response, 16)}
	g.srv = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(func() {
		g.mu.Lock()
		for _, fc := range g.conns {
			fc.ws.CloseNow()
		}
		g.mu.Unlock()
		g.srv.Close()
	})
	return g
}

func (g *fakeGateway) serve(w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	g.mu.Lock()
	fc := &fakeConn{n: len(g.conns) + 1, ws: ws, ready: make(chan struct{})}
	g.conns = append(g.conns, fc)
	g.auth = append(g.auth, r.Header.Get("Authorization"))
	g.mu.Unlock()
	fc.rpc = jsonrpc.NewConn(r.Context(), wsstream.New(ws), jsonrpc.ConnOptions{
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			<-fc.ready
			g.mu.Lock()
			g.calls = append(g.calls, recordedCall{conn: fc.n, method: req.Method, params: req.Params})
			g.mu.Unlock()
			if g.handle == nil {
				return nil, jsonrpc.ErrNotHandled
			}
			return g.handle(ctx, fc, req)
		}),
		Unmatched: func(resp *jsonrpc.Response) { g.unmatched <- resp },
	})
	close(fc.ready)
	<-fc.rpc.Done()
}

// callsOf returns the params of every call of method, in order.
func (g *fakeGateway) callsOf(method string) []recordedCall {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []recordedCall
	for _, c := range g.calls {
		if c.method == method {
			out = append(out, c)
		}
	}
	return out
}

// conn returns the n-th connection (1-based), waiting for it.
func (g *fakeGateway) conn(n int) *fakeConn {
	g.t.Helper()
	var fc *fakeConn
	waitFor(g.t, "a connection", func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		if len(g.conns) >= n {
			fc = g.conns[n-1]
			return true
		}
		return false
	})
	return fc
}

// event sends an event notification on fc.
func (fc *fakeConn) event(t *testing.T, seq int64, typ string, payload any) {
	t.Helper()
	err := fc.rpc.Notify(context.Background(), "event", map[string]any{"session_id": "ses-1", "seq": seq, "type": typ, "payload": payload})
	if err != nil {
		t.Errorf("notify event: %v", err)
	}
}

// sessionMethods answers session.create and session.close as a gateway
// would; other methods go to next.
func sessionMethods(next func(ctx context.Context, fc *fakeConn, req *jsonrpc.Request) (any, error)) func(ctx context.Context, fc *fakeConn, req *jsonrpc.Request) (any, error) {
	return func(ctx context.Context, fc *fakeConn, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case "session.create":
			return map[string]any{"session_id": "ses-1", "resume_token": "rt-1", "epoch": "ep-1", "latest_seq": 0}, nil
		case "session.close":
			return map[string]any{}, nil
		case "document.create":
			var p struct {
				Name string `json:"name"`
			}
			json.Unmarshal(req.Params, &p)
			return map[string]any{"document_id": "doc-1", "name": p.Name, "units": "mm", "revision": 0, "content_hash": "0", "entity_count": 0, "current_layer": "0"}, nil
		}
		return next(ctx, fc, req)
	}
}

// session is the session of the fake's session.resume results.
var session = map[string]any{
	"session_id": "ses-1", "principal": "anonymous", "capabilities": map[string]any{"server_requests": []string{"approval"}},
	"approval_policy": "destructive", "created_at": "2026-01-01T00:00:00Z",
}

// batchResultFor is a completed batch result for one step.
func batchResultFor(opID string, status string) map[string]any {
	return map[string]any{
		"ok": status == "completed", "status": status, "operation_id": opID,
		"counts":    map[string]any{"executed": 1, "succeeded": 1, "failed": 0, "skipped": 0},
		"results":   []any{map[string]any{"i": 0, "tool": "entity_delete_many", "status": "ok", "operation_id": opID + "/0", "result": map[string]any{"count": 2, "handles": []string{"64", "65"}}}},
		"revision":  map[string]any{"checked": 0, "after": 1},
		"atomicity": map[string]any{"mode": "stop", "guarantee": "undo_log", "transaction": false, "rolled_back": false, "verified": false, "note": ""},
		"replayed":  false,
	}
}

// terminal is a scripted user at a terminal: what cadctl writes to stderr
// is captured, and lines are typed into its stdin.
type terminal struct {
	out proctest.SyncBuffer
	in  *io.PipeWriter
	r   *io.PipeReader
}

func newTerminal(t *testing.T) *terminal {
	r, w := io.Pipe()
	t.Cleanup(func() { w.Close() })
	return &terminal{in: w, r: r}
}

// typeLine types line and a newline. Like the other helpers of the
// scripted terminal, it may be called from any goroutine.
func (term *terminal) typeLine(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(term.in, line+"\n"); err != nil {
		t.Errorf("typing %q: %v", line, err)
	}
}

// waitOutput waits until the terminal shows text n times in all.
func (term *terminal) waitOutput(t *testing.T, text string, n int) bool {
	t.Helper()
	return waitFor(t, "output "+text, func() bool { return strings.Count(term.out.String(), text) >= n })
}

// runCadctl runs cadctl in process against the fake, with term as the
// terminal (stdin a TTY when tty is true) and returns the exit code and
// stdout.
func runCadctl(t *testing.T, g *fakeGateway, term *terminal, tty bool, args ...string) (int, string) {
	t.Helper()
	return runCadctlEnv(t, g, term, tty, nil, args...)
}

// runCadctlEnv is runCadctl with more environment variables.
func runCadctlEnv(t *testing.T, g *fakeGateway, term *terminal, tty bool, vars map[string]string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stdout proctest.SyncBuffer
	e := env{
		stdin:     term.r,
		stdout:    &stdout,
		stderr:    &term.out,
		stdinTTY:  tty,
		stderrTTY: false,
		getenv: func(k string) string {
			if k == "CADBRIDGE_URL" {
				return g.srv.URL
			}
			return vars[k]
		},
	}
	code := run(ctx, args, e)
	return code, stdout.String()
}

// writeBatch writes a batch file and returns its path.
func writeBatch(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitFor polls cond until it holds and reports true, or marks the test
// failed after 20 s and reports false. It may be called from any goroutine.
func waitFor(t *testing.T, what string, cond func() bool) bool {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Errorf("timed out waiting for %s", what)
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}
