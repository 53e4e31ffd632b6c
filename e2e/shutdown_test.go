package e2e_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/cadbridge/cadbridge/internal/proctest"
)

// TestGatewaySIGTERM: a stopping gateway closes its WebSockets with "going
// away" and exits; the session stays with the engine and resumes on a new
// gateway.
func TestGatewaySIGTERM(t *testing.T) {
	e := proctest.StartEngine(t, "127.0.0.1:0", "memory:")
	g1 := proctest.StartGateway(t, "127.0.0.1:0", e.Addr)
	c := dialWebSocket(t, g1.Addr)
	var s struct {
		SessionID   string `json:"session_id"`
		ResumeToken string `json:"resume_token"`
	}
	mustCall(t, c, 1, "session.create", map[string]any{}, &s)

	if err := g1.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, _, err := c.ws.Conn().Read(ctx) // the Conn's Read: the Stream's reports 1001 as io.EOF
	if websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Errorf("client read during gateway stop = %v, want close 1001 going away", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- g1.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("gateway exit = %v, want a clean exit", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("gateway did not exit within 20 s of SIGTERM")
	}
	if _, err := http.Get("http://" + g1.Addr + "/healthz"); err == nil {
		t.Errorf("the stopped gateway still answers")
	}

	g2 := proctest.StartGateway(t, "127.0.0.1:0", e.Addr)
	c2 := dialWebSocket(t, g2.Addr)
	var resumed struct {
		Session struct {
			SessionID string `json:"session_id"`
		} `json:"session"`
	}
	mustCall(t, c2, 2, "session.resume", map[string]any{"session_id": s.SessionID, "resume_token": s.ResumeToken}, &resumed)
	if resumed.Session.SessionID != s.SessionID {
		t.Errorf("resume on a new gateway = %+v, want session %s", resumed, s.SessionID)
	}
}

// TestEngineSIGTERM: a stopping engine ends its streams and exits cleanly,
// and its SQLite store opens again with everything in it.
func TestEngineSIGTERM(t *testing.T) {
	store := "sqlite:" + t.TempDir() + "/engine.db"
	e := proctest.StartEngine(t, "127.0.0.1:0", store)
	g := proctest.StartGateway(t, "127.0.0.1:0", e.Addr)
	c := dialWebSocket(t, g.Addr)
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, 1, "document.create", map[string]any{"name": "kept"}, &doc)
	mustCall(t, c, 2, "tools.call", map[string]any{"document_id": doc.DocumentID, "tool": "entity_create_circle", "args": map[string]any{"cx": 0, "cy": 0, "radius": 2}}, new(any))

	if err := e.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- e.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("engine exit = %v, want a clean exit", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("engine did not exit within 20 s of SIGTERM")
	}
	resp := call(t, c, 3, "document.get", map[string]any{"document_id": doc.DocumentID})
	if resp.Error == nil || resp.Error.Code != 5003 {
		t.Errorf("document.get with the engine down = %+v, want 5003", describe(resp))
	}

	e2 := proctest.StartEngine(t, "127.0.0.1:0", store)
	g2 := proctest.StartGateway(t, "127.0.0.1:0", e2.Addr)
	var info struct {
		Revision    int64 `json:"revision"`
		EntityCount int64 `json:"entity_count"`
	}
	mustCall(t, dialWebSocket(t, g2.Addr), 4, "document.get", map[string]any{"document_id": doc.DocumentID}, &info)
	if info.Revision != 1 || info.EntityCount != 1 {
		t.Errorf("document after restart = %+v, want revision 1 with its circle", info)
	}
}

// TestEngineSIGTERMWithdrawsRequests: a stopping engine withdraws open
// server requests with reason shutdown; the waiting step ends cancelled
// and its batch still answers before the engine exits.
func TestEngineSIGTERMWithdrawsRequests(t *testing.T) {
	e := proctest.StartEngine(t, "127.0.0.1:0", "sqlite:"+t.TempDir()+"/e.db")
	g := proctest.StartGateway(t, "127.0.0.1:0", e.Addr)
	p := newPeer(t, g.Addr)
	s, doc := interactiveSession(t, p)
	p.call(10, "cad.batch", deleteBatch(s, doc, "op-sigterm"))
	p.request("approval")
	if err := e.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var res, cancel frame
	for res.ID == nil || cancel.Method == "" {
		f := p.next("batch result and request.cancel", func(x frame) bool {
			return (x.Method == "" && string(x.ID) == "10") || x.Method == "request.cancel"
		})
		if f.Method == "request.cancel" {
			cancel = f
		} else {
			res = f
		}
	}
	if !strings.Contains(string(cancel.Params), `"reason":"shutdown"`) {
		t.Errorf("request.cancel = %s, want reason shutdown", cancel.Params)
	}
	var r batchResult
	if res.Error != nil || json.Unmarshal(res.Result, &r) != nil || r.OK || len(r.Results) == 0 || r.Results[0].Error == nil || r.Results[0].Error.Kind != "cancelled" {
		t.Errorf("batch during the engine's stop = %s %+v, want its step cancelled", res.Result, res.Error)
	}
	if err := e.Wait(); err != nil {
		t.Errorf("engine exit = %v, want clean", err)
	}
}
