package e2e_test

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/internal/proctest"
)

// TestEventRing: events beyond the ring are reported truncated; a cursor
// inside it gets exactly the events after it.
func TestEventRing(t *testing.T) {
	gateway, _ := startServices(t)
	p := newPeer(t, gateway)
	s, doc := interactiveSession(t, p)
	var steps []any
	for i := 0; i < 600; i++ {
		steps = append(steps, map[string]any{"tool": "document_info", "args": map[string]any{}})
	}
	p.call(10, "cad.batch", map[string]any{"session_id": s.SessionID, "document_id": doc, "steps": steps})
	if f := p.response(10); f.Error != nil {
		t.Fatalf("cad.batch = %+v", f)
	}
	var since struct {
		Events []struct {
			Seq int64 `json:"seq"`
		} `json:"events"`
		LatestSeq int64 `json:"latest_seq"`
		Truncated bool  `json:"truncated"`
	}
	p.call(11, "session.events.since", map[string]any{"session_id": s.SessionID, "last_seen": 0})
	if f := p.response(11); f.Error != nil || json.Unmarshal(f.Result, &since) != nil {
		t.Fatalf("events.since = %+v", f)
	}
	if !since.Truncated || len(since.Events) != 512 || since.Events[511].Seq != since.LatestSeq {
		t.Errorf("events.since 0 after %d events: truncated %v, %d events; want truncated with the last 512", since.LatestSeq, since.Truncated, len(since.Events))
	}
	latest := since.LatestSeq
	p.call(12, "session.events.since", map[string]any{"session_id": s.SessionID, "last_seen": latest - 10})
	if f := p.response(12); f.Error != nil || json.Unmarshal(f.Result, &since) != nil {
		t.Fatalf("events.since = %+v", f)
	}
	if since.Truncated || len(since.Events) != 10 || since.Events[0].Seq != latest-9 {
		t.Errorf("events.since latest-10: truncated %v, %d events from %v; want the 10 after it", since.Truncated, len(since.Events), since.Events)
	}
}

// TestEngineRestartEpoch: after the engine is killed with an approval open
// and restarted, a resume keeps the session, reports a new epoch and lost
// events (truncated), and withdraws the stale request with reason shutdown.
func TestEngineRestartEpoch(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	store := "sqlite:" + t.TempDir() + "/engine.db"
	addr := freeAddr(t)
	e := proctest.StartEngine(t, addr, store)
	g := proctest.StartGateway(t, "127.0.0.1:0", addr)
	p := newPeer(t, g.Addr)
	p.call(1, "session.create", map[string]any{"capabilities": map[string]any{"server_requests": []string{"approval"}}, "approval_policy": "destructive"})
	var s struct {
		SessionID   string `json:"session_id"`
		ResumeToken string `json:"resume_token"`
		Epoch       string `json:"epoch"`
	}
	if f := p.response(1); f.Error != nil || json.Unmarshal(f.Result, &s) != nil {
		t.Fatalf("session.create = %+v", f)
	}
	p.call(2, "document.create", map[string]any{})
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	json.Unmarshal(p.response(2).Result, &doc)
	p.call(3, "tools.call", map[string]any{"session_id": s.SessionID, "document_id": doc.DocumentID, "tool": "entity_create_point", "args": map[string]any{"x": 0, "y": 0}})
	p.response(3)
	p.call(4, "tools.call", map[string]any{"session_id": s.SessionID, "document_id": doc.DocumentID, "tool": "entity_delete_many", "args": map[string]any{"handles": []string{"100"}}})
	req := p.request("approval")
	var srq string
	json.Unmarshal(req.ID, &srq)

	e.Kill()
	proctest.StartEngine(t, addr, store)

	q := newPeer(t, g.Addr)
	q.call(1, "session.resume", map[string]any{"session_id": s.SessionID, "resume_token": s.ResumeToken, "last_seen": 1})
	var resumed struct {
		Epoch        string `json:"epoch"`
		Truncated    bool   `json:"truncated"`
		LatestSeq    int64  `json:"latest_seq"`
		OpenRequests []any  `json:"open_requests"`
	}
	// The withdrawal may arrive before or after the resume's result.
	var f, cancel frame
	for f.ID == nil || cancel.Method == "" {
		got := q.next("resume result and request.cancel", func(x frame) bool {
			return (x.Method == "" && string(x.ID) == "1") || x.Method == "request.cancel"
		})
		if got.Method == "request.cancel" {
			cancel = got
		} else {
			f = got
		}
	}
	if f.Error != nil || json.Unmarshal(f.Result, &resumed) != nil {
		t.Fatalf("resume after the engine restart = %+v", f)
	}
	if resumed.Epoch == s.Epoch || !resumed.Truncated || len(resumed.OpenRequests) != 0 {
		t.Errorf("resume = epoch %s (was %s), truncated %v, open %v; want a new epoch, truncated, nothing open", resumed.Epoch, s.Epoch, resumed.Truncated, resumed.OpenRequests)
	}
	var params struct {
		ID     string `json:"id"`
		Reason string `json:"reason"`
	}
	json.Unmarshal(cancel.Params, &params)
	if params.ID != srq || params.Reason != "shutdown" {
		t.Errorf("request.cancel after restart = %s, want %s withdrawn with reason shutdown", cancel.Params, srq)
	}
}

// TestReplayAfterRestart: a retry after the engine restarted (SQLite)
// returns the recorded result byte for byte, only marked replayed, and
// runs nothing.
func TestReplayAfterRestart(t *testing.T) {
	store := "sqlite:" + t.TempDir() + "/engine.db"
	addr := freeAddr(t)
	e := proctest.StartEngine(t, addr, store)
	g := proctest.StartGateway(t, "127.0.0.1:0", addr)
	c := dialWebSocket(t, g.Addr)
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, 1, "document.create", map[string]any{}, &doc)
	batch := map[string]any{"document_id": doc.DocumentID, "operation_id": "op-durable", "on_error": "continue", "steps": []any{
		map[string]any{"tool": "entity_create_circle", "args": map[string]any{"cx": 1, "cy": 2, "radius": 3}, "bind": "c"},
		map[string]any{"tool": "point_from_snap", "args": map[string]any{"handle": "$c", "snap": "quad", "ref_x": 9, "ref_y": 2}},
		map[string]any{"tool": "entity_move", "args": map[string]any{"handle": "FFFF", "dx": 1, "dy": 0}},
	}}
	first := call(t, c, 2, "cad.batch", batch)
	if first.Error != nil {
		t.Fatalf("cad.batch = %+v", describe(first))
	}

	e.Signal(syscall.SIGTERM)
	e.Wait()
	proctest.StartEngine(t, addr, store)
	var again response
	deadline := time.Now().Add(15 * time.Second)
	for id := 3; ; id++ {
		again = call(t, c, id, "cad.batch", batch)
		if again.Error == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if again.Error != nil {
		t.Fatalf("retry after restart = %+v", describe(again))
	}
	want := strings.Replace(string(first.Result), `"replayed":false`, `"replayed":true`, 1)
	if string(again.Result) != want {
		t.Errorf("replay after restart differs:\n got %s\nwant %s", again.Result, want)
	}
	var info struct {
		Revision    int64 `json:"revision"`
		EntityCount int64 `json:"entity_count"`
	}
	mustCall(t, c, 100, "document.get", map[string]any{"document_id": doc.DocumentID}, &info)
	if info.Revision != 1 || info.EntityCount != 1 {
		t.Errorf("document after the replay = %+v, want the one circle at revision 1", info)
	}
}
