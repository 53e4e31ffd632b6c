package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cadbridge/cadbridge/internal/proctest"
)

// surface is a peer that keeps the frames it skips, so that a frame that
// arrives before the one awaited is still there for a later wait (the
// order of a result and a request.cancel is not fixed).
type surface struct {
	*peer
	backlog []frame
}

// newSurface dials the gateway at addr as the principal of token.
func newSurface(t *testing.T, addr, token string) *surface {
	t.Helper()
	c, _, err := dialAs(t, addr, token, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &surface{peer: &peer{t: t, ws: c.ws}}
}

// next returns the first frame, kept or new, that satisfies keep.
func (p *surface) next(what string, keep func(frame) bool) frame {
	p.t.Helper()
	for i, f := range p.backlog {
		if keep(f) {
			p.backlog = append(p.backlog[:i:i], p.backlog[i+1:]...)
			return f
		}
	}
	return p.peer.next(what, func(f frame) bool {
		if keep(f) {
			return true
		}
		p.backlog = append(p.backlog, f)
		return false
	})
}

func (p *surface) response(id int) frame {
	p.t.Helper()
	return p.next(fmt.Sprintf("response %d", id), func(f frame) bool { return f.Method == "" && string(f.ID) == fmt.Sprint(id) })
}

func (p *surface) request(method string) frame {
	p.t.Helper()
	return p.next("server request "+method, func(f frame) bool { return f.Method == method && len(f.ID) > 0 })
}

// cancelOf reads frames until request.cancel of id and returns its reason.
func (p *surface) cancelOf(id string) string {
	p.t.Helper()
	f := p.next("request.cancel of "+id, func(f frame) bool {
		var c struct{ ID string }
		return f.Method == "request.cancel" && json.Unmarshal(f.Params, &c) == nil && c.ID == id
	})
	var c struct{ Reason string }
	json.Unmarshal(f.Params, &c)
	return c.Reason
}

// quiet calls document.get and fails the test if a frame for server
// request id (the request itself or its cancel) came, or comes before the
// answer.
func (p *surface) quiet(callID int, doc, id string) {
	p.t.Helper()
	p.call(callID, "document.get", map[string]any{"document_id": doc})
	p.response(callID)
	for _, f := range p.backlog {
		var c struct{ ID string }
		json.Unmarshal(f.Params, &c)
		if requestID(f) == id || (f.Method == "request.cancel" && c.ID == id) {
			p.t.Errorf("unexpected frame for %s: %s %s", id, f.Method, f.Params)
		}
	}
}

func requestID(f frame) string {
	var id string
	json.Unmarshal(f.ID, &id)
	return id
}

// TestAttach drives session.attach through two gateways in front of one
// engine, with tokens: a person (alice) attaches a second surface to her
// agent's session through the other gateway; bob cannot; the agent's
// approval reaches both surfaces, the first answer wins and reaches the
// engine once, the other surface is told the request was resolved; when
// both answer at once exactly one answer counts; session.resume takes the
// session over from the agent's connection but not from the surface.
func TestAttach(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(file, []byte("tok-alice alice\ntok-alice-2 alice\ntok-bob bob\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := proctest.StartEngine(t, "127.0.0.1:0", "memory:")
	g1 := proctest.StartGateway(t, "127.0.0.1:0", e.Addr, "--tokens", file)
	g2 := proctest.StartGateway(t, "127.0.0.1:0", e.Addr, "--tokens", file)

	agent := newSurface(t, g1.Addr, "tok-alice")
	s, doc := interactiveSession(t, agent.peer)
	attach := map[string]any{"session_id": s.SessionID, "resume_token": s.ResumeToken, "capabilities": map[string]any{"server_requests": []string{"approval", "pick.point"}}}

	bob := newSurface(t, g2.Addr, "tok-bob")
	bob.call(1, "session.attach", attach)
	if f := bob.response(1); f.Error == nil || f.Error.Code != 4001 {
		t.Fatalf("bob's session.attach to alice's session = %+v, want error 4001", f)
	}

	viewer := newSurface(t, g2.Addr, "tok-alice-2") // another token of the same principal
	viewer.call(1, "session.attach", attach)
	if f := viewer.response(1); f.Error != nil {
		t.Fatalf("alice's session.attach = %+v, want a result", f.Error)
	}

	// The approval reaches both; the viewer's answer wins.
	agent.call(10, "cad.batch", deleteBatch(s, doc, "op-attach"))
	id := requestID(agent.request("approval"))
	if got := requestID(viewer.request("approval")); got != id {
		t.Fatalf("the viewer got approval %s, want the agent's %s", got, id)
	}
	viewer.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"decision": "approve"}})
	var res batchResult
	if f := agent.response(10); f.Error != nil || json.Unmarshal(f.Result, &res) != nil || res.Status != "completed" {
		t.Fatalf("cad.batch approved on the other surface = %+v (%+v), want completed", f, res)
	}
	if reason := agent.cancelOf(id); reason != "resolved" {
		t.Errorf("the agent's request.cancel reason = %q, want resolved", reason)
	}
	// A late answer of the agent changes nothing; the viewer is told
	// nothing more about the request it answered.
	agent.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"decision": "deny"}})
	viewer.quiet(2, doc, id)
	agent.call(11, "operations.get", map[string]any{"operation_id": "op-attach"})
	var op struct {
		Status string `json:"status"`
	}
	if f := agent.response(11); f.Error != nil || json.Unmarshal(f.Result, &op) != nil || op.Status != "succeeded" {
		t.Errorf("operations.get(op-attach) = %+v, want succeeded", op)
	}

	// Both answer at once: one answer counts, the other surface is told.
	agent.call(12, "tools.call", map[string]any{"session_id": s.SessionID, "document_id": doc, "tool": "point_pick", "args": map[string]any{"prompt": "both"}})
	id = requestID(agent.request("pick.point"))
	viewer.request("pick.point")
	agent.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"x": 1, "y": 1}})
	viewer.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"x": 2, "y": 2}})
	var pick struct {
		Result struct{ X, Y float64 } `json:"result"`
	}
	if f := agent.response(12); f.Error != nil || json.Unmarshal(f.Result, &pick) != nil {
		t.Fatalf("point_pick = %+v", f)
	}
	winner, loser := agent, viewer
	switch pick.Result.X {
	case 1:
	case 2:
		winner, loser = viewer, agent
	default:
		t.Fatalf("point_pick answered twice = %+v, want one of the two answers", pick.Result)
	}
	if reason := loser.cancelOf(id); reason != "resolved" {
		t.Errorf("the losing surface's request.cancel reason = %q, want resolved", reason)
	}
	winner.quiet(20, doc, id)

	// session.resume on a new connection takes the session over from the
	// agent's; the attached viewer stays.
	taker := newSurface(t, g1.Addr, "tok-alice")
	taker.call(1, "session.resume", map[string]any{"session_id": s.SessionID, "resume_token": s.ResumeToken})
	if f := taker.response(1); f.Error != nil {
		t.Fatalf("session.resume = %+v", f.Error)
	}
	taker.call(2, "tools.call", map[string]any{"session_id": s.SessionID, "document_id": doc, "tool": "point_pick", "args": map[string]any{"prompt": "after"}})
	id = requestID(taker.request("pick.point"))
	if got := requestID(viewer.request("pick.point")); got != id {
		t.Fatalf("the viewer got pick.point %s, want %s", got, id)
	}
	agent.quiet(30, doc, id) // detached: it gets nothing of the session
	viewer.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"x": 3, "y": 4}})
	if f := taker.response(2); f.Error != nil || json.Unmarshal(f.Result, &pick) != nil || pick.Result.X != 3 || pick.Result.Y != 4 {
		t.Fatalf("point_pick answered by the viewer = %+v, want (3, 4)", f)
	}
	if reason := taker.cancelOf(id); reason != "resolved" {
		t.Errorf("the taker's request.cancel reason = %q, want resolved", reason)
	}
}
