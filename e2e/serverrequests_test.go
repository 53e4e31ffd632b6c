package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/internal/wsstream"
)

// frame is any JSON-RPC message as a client sees it.
type frame struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

// peer is a WebSocket client that sees every frame, for conversations with
// server requests.
type peer struct {
	t  *testing.T
	ws *wsstream.Stream
}

func newPeer(t *testing.T, addr string) *peer {
	return &peer{t: t, ws: dialWebSocket(t, addr).ws}
}

func (p *peer) send(v any) {
	p.t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		p.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.ws.Write(ctx, data); err != nil {
		p.t.Fatal(err)
	}
}

func (p *peer) call(id int, method string, params any) {
	p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

// next returns the next frame that satisfies keep, skipping others.
func (p *peer) next(what string, keep func(frame) bool) frame {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	for {
		data, err := p.ws.Read(ctx)
		if err != nil {
			p.t.Fatalf("waiting for %s: %v", what, err)
		}
		var f frame
		if err := json.Unmarshal(data, &f); err != nil {
			p.t.Fatalf("frame %s: %v", data, err)
		}
		if keep(f) {
			return f
		}
	}
}

func (p *peer) response(id int) frame {
	p.t.Helper()
	return p.next(fmt.Sprintf("response %d", id), func(f frame) bool { return f.Method == "" && string(f.ID) == fmt.Sprint(id) })
}

func (p *peer) request(method string) frame {
	p.t.Helper()
	return p.next("server request "+method, func(f frame) bool { return f.Method == method && len(f.ID) > 0 })
}

func (p *peer) notification(method string) frame {
	p.t.Helper()
	return p.next("notification "+method, func(f frame) bool { return f.Method == method && len(f.ID) == 0 })
}

type sessionInfo struct {
	SessionID   string `json:"session_id"`
	ResumeToken string `json:"resume_token"`
}

// interactiveSession creates a session that answers approvals and picks,
// with approval policy destructive, and a document with two points.
func interactiveSession(t *testing.T, p *peer) (sessionInfo, string) {
	t.Helper()
	p.call(1, "session.create", map[string]any{"capabilities": map[string]any{"server_requests": []string{"approval", "pick.point"}}, "approval_policy": "destructive"})
	var s sessionInfo
	if f := p.response(1); f.Error != nil || json.Unmarshal(f.Result, &s) != nil {
		t.Fatalf("session.create = %+v", f)
	}
	p.call(2, "document.create", map[string]any{"name": "srq"})
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	if f := p.response(2); f.Error != nil || json.Unmarshal(f.Result, &doc) != nil {
		t.Fatalf("document.create = %+v", f)
	}
	for i := 0; i < 2; i++ {
		p.call(3+i, "tools.call", map[string]any{"session_id": s.SessionID, "document_id": doc.DocumentID, "tool": "entity_create_point", "args": map[string]any{"x": i, "y": 0}})
		if f := p.response(3 + i); f.Error != nil {
			t.Fatalf("entity_create_point = %+v", f)
		}
	}
	return s, doc.DocumentID
}

type batchResult struct {
	OK      bool   `json:"ok"`
	Status  string `json:"status"`
	Results []struct {
		Status string `json:"status"`
		Error  *struct {
			Kind string `json:"kind"`
		} `json:"error"`
	} `json:"results"`
}

// deleteBatch is a batch whose one destructive step needs an approval.
func deleteBatch(s sessionInfo, doc, opID string) map[string]any {
	return map[string]any{
		"session_id": s.SessionID, "document_id": doc, "operation_id": opID,
		"steps": []any{map[string]any{"tool": "entity_delete_many", "args": map[string]any{"handles": []string{"100", "101"}}}},
	}
}

// TestApproval: a destructive step asks the client; approve runs it, deny
// fails it denied, -32601 fails it unsupported; the request carries the
// session, the tool, what it affects and the trace context.
func TestApproval(t *testing.T) {
	gateway, _ := startServices(t)
	for _, tc := range []struct {
		name   string
		answer func(p *peer, req frame)
		status string
		kind   string
	}{
		{"approve", func(p *peer, req frame) {
			p.send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(req.ID), "result": map[string]any{"decision": "approve"}})
		}, "completed", ""},
		{"deny", func(p *peer, req frame) {
			p.send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(req.ID), "result": map[string]any{"decision": "deny"}})
		}, "failed", "denied"},
		{"not implemented", func(p *peer, req frame) {
			p.send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(req.ID), "error": map[string]any{"code": -32601, "message": "no"}})
		}, "failed", "unsupported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPeer(t, gateway)
			s, doc := interactiveSession(t, p)
			p.call(10, "cad.batch", deleteBatch(s, doc, "op-approval-"+strings.ReplaceAll(tc.name, " ", "-")))
			req := p.request("approval")
			var params struct {
				SessionID string `json:"session_id"`
				Tool      string `json:"tool"`
				Affected  struct {
					Count int `json:"count"`
				} `json:"affected"`
				Meta struct {
					Traceparent string `json:"traceparent"`
				} `json:"_meta"`
			}
			json.Unmarshal(req.Params, &params)
			var id string
			json.Unmarshal(req.ID, &id)
			if !strings.HasPrefix(id, "srq-") || params.SessionID != s.SessionID || params.Tool != "entity_delete_many" || params.Affected.Count != 2 || params.Meta.Traceparent == "" {
				t.Errorf("approval request id %s params %s, want srq- id, the session, the tool, 2 affected and a traceparent", req.ID, req.Params)
			}
			tc.answer(p, req)
			var res batchResult
			if f := p.response(10); f.Error != nil || json.Unmarshal(f.Result, &res) != nil {
				t.Fatalf("cad.batch = %+v", f)
			}
			if res.Status != tc.status || (tc.kind != "" && (res.Results[0].Error == nil || res.Results[0].Error.Kind != tc.kind)) {
				t.Errorf("batch after %s = %+v, want status %s with kind %q", tc.name, res, tc.status, tc.kind)
			}
		})
	}
}

// TestReplayAcrossConnections: an approval left open when the connection
// drops is returned by session.resume on a new connection, with the same
// id; the answer sent there reaches the engine exactly once, and a second
// answer changes nothing.
func TestReplayAcrossConnections(t *testing.T) {
	gateway, _ := startServices(t)
	p := newPeer(t, gateway)
	s, doc := interactiveSession(t, p)
	p.call(10, "cad.batch", deleteBatch(s, doc, "op-replay"))
	req := p.request("approval")
	p.ws.Close() // gone without answering

	q := newPeer(t, gateway)
	q.call(1, "session.resume", map[string]any{"session_id": s.SessionID, "resume_token": s.ResumeToken, "last_seen": 0})
	var resumed struct {
		OpenRequests []struct {
			ID     string `json:"id"`
			Method string `json:"method"`
		} `json:"open_requests"`
	}
	if f := q.response(1); f.Error != nil || json.Unmarshal(f.Result, &resumed) != nil {
		t.Fatalf("session.resume = %+v", f)
	}
	var id string
	json.Unmarshal(req.ID, &id)
	if len(resumed.OpenRequests) != 1 || resumed.OpenRequests[0].ID != id || resumed.OpenRequests[0].Method != "approval" {
		t.Fatalf("open_requests = %+v, want the approval %s", resumed.OpenRequests, id)
	}
	approveTwice(t, q, id, "op-replay", doc)
	q.call(101, "session.events.since", map[string]any{"session_id": s.SessionID, "last_seen": 0})
	var events struct {
		OpenRequests []any `json:"open_requests"`
	}
	if f := q.response(101); f.Error != nil || json.Unmarshal(f.Result, &events) != nil || len(events.OpenRequests) != 0 {
		t.Errorf("open requests after the answer = %s, want none", f.Result)
	}
}

// TestInterruptCancelsRequest: session.interrupt withdraws the open request
// with one request.cancel (reason interrupted); a late answer is ignored.
func TestInterruptCancelsRequest(t *testing.T) {
	gateway, _ := startServices(t)
	p := newPeer(t, gateway)
	s, doc := interactiveSession(t, p)
	p.call(10, "cad.batch", deleteBatch(s, doc, "op-interrupt"))
	req := p.request("approval")

	other := newPeer(t, gateway)
	other.call(1, "session.interrupt", map[string]any{"session_id": s.SessionID})
	// A different connection of the same principal may interrupt.
	if f := other.response(1); f.Error != nil {
		t.Fatalf("session.interrupt = %+v", f)
	}
	cancel := p.notification("request.cancel")
	var params struct {
		ID     string `json:"id"`
		Reason string `json:"reason"`
	}
	json.Unmarshal(cancel.Params, &params)
	var id string
	json.Unmarshal(req.ID, &id)
	if params.ID != id || params.Reason != "interrupted" {
		t.Errorf("request.cancel = %s, want id %s reason interrupted", cancel.Params, id)
	}
	p.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"decision": "approve"}})
	var res batchResult
	if f := p.response(10); f.Error != nil || json.Unmarshal(f.Result, &res) != nil {
		t.Fatalf("cad.batch = %+v", f)
	}
	if res.OK || len(res.Results) == 0 || res.Results[0].Error == nil || res.Results[0].Error.Kind != "cancelled" {
		t.Errorf("interrupted batch = %+v, want its step cancelled", res)
	}
	p.call(11, "document.get", map[string]any{"document_id": doc})
	var info struct {
		EntityCount int `json:"entity_count"`
	}
	if f := p.response(11); json.Unmarshal(f.Result, &info) != nil || info.EntityCount != 2 {
		t.Errorf("document after the interrupted delete = %s, want both points", f.Result)
	}
}

// TestCancelRequest: $/cancelRequest on a batch that waits on the client
// answers the call -32800 and cancels the batch in the engine: its open
// request is withdrawn and its step ends cancelled.
func TestCancelRequest(t *testing.T) {
	gateway, _ := startServices(t)
	p := newPeer(t, gateway)
	s, doc := interactiveSession(t, p)
	p.call(10, "cad.batch", deleteBatch(s, doc, "op-cancel"))
	p.request("approval")
	p.send(map[string]any{"jsonrpc": "2.0", "method": "$/cancelRequest", "params": map[string]any{"id": 10}})
	// The answer comes from the gateway, the withdrawal from the engine:
	// either may be written first.
	var resp, cancel *frame
	for resp == nil || cancel == nil {
		f := p.next("response 10 and request.cancel", func(f frame) bool {
			return f.Method == "" && string(f.ID) == "10" || f.Method == "request.cancel" && len(f.ID) == 0
		})
		if f.Method == "" {
			resp = &f
		} else {
			cancel = &f
		}
	}
	if resp.Error == nil || resp.Error.Code != -32800 {
		t.Fatalf("cancelled cad.batch = %+v, want -32800", *resp)
	}
	if !strings.Contains(string(cancel.Params), `"approval"`) {
		t.Errorf("request.cancel = %s, want the approval withdrawn", cancel.Params)
	}
	waitOperation(t, p, "op-cancel", "failed")
	p.call(11, "document.get", map[string]any{"document_id": doc})
	var info struct {
		EntityCount int `json:"entity_count"`
	}
	if f := p.response(11); json.Unmarshal(f.Result, &info) != nil || info.EntityCount != 2 {
		t.Errorf("document after the cancelled delete = %s, want both points", f.Result)
	}
}

// approveTwice answers the approval id twice on q, waits for operation opID
// to end and checks that it succeeded and that the delete it approved
// applied once (no entities, revision 3).
func approveTwice(t *testing.T, q *peer, id, opID, doc string) {
	t.Helper()
	answer := map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"decision": "approve"}}
	q.send(answer)
	q.send(answer) // a second answer changes nothing

	var op struct {
		Status string `json:"status"`
	}
	deadline := time.Now().Add(20 * time.Second)
	for i := 2; time.Now().Before(deadline); i++ {
		q.call(i, "operations.get", map[string]any{"operation_id": opID})
		f := q.response(i)
		if f.Error == nil && json.Unmarshal(f.Result, &op) == nil && op.Status != "running" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if op.Status != "succeeded" {
		t.Fatalf("operation %s after the answer = %+v, want succeeded", opID, op)
	}
	q.call(100, "document.get", map[string]any{"document_id": doc})
	var info struct {
		EntityCount int `json:"entity_count"`
		Revision    int `json:"revision"`
	}
	if f := q.response(100); f.Error != nil || json.Unmarshal(f.Result, &info) != nil || info.EntityCount != 0 || info.Revision != 3 {
		t.Errorf("document after the approved delete = %s, want no entities at revision 3 (applied once)", f.Result)
	}
}
