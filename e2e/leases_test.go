package e2e_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/internal/proctest"
	"github.com/cadbridge/cadbridge/services/cadengine/store/postgres/postgrestest"
)

// testLeaseTTL is the engines' lease TTL in these tests, short so that a
// takeover comes quickly.
const testLeaseTTL = 2 * time.Second

// cluster is two engine processes on one PostgreSQL database and two
// gateway processes, each with both engines, homes crossed.
type cluster struct {
	engineA, engineB   *proctest.Process
	gatewayA, gatewayB *proctest.Process // home A, home B
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("kills processes")
	}
	db := postgrestest.URL(t)
	a, b := freeAddr(t), freeAddr(t)
	ttl := "--lease-ttl=" + testLeaseTTL.String()
	c := &cluster{
		engineA: proctest.StartEngine(t, a, db, ttl),
		engineB: proctest.StartEngine(t, b, db, ttl),
	}
	c.gatewayA = proctest.StartGateway(t, "127.0.0.1:0", a+","+b)
	c.gatewayB = proctest.StartGateway(t, "127.0.0.1:0", b+","+a)
	return c
}

// until calls method through c until it succeeds (5003 means the
// document's lease is not yet taken over), for at most a minute.
func until(t *testing.T, c client, id *int, method string, params any) response {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		*id++
		resp := call(t, c, *id, method, params)
		if resp.Error == nil || resp.Error.Code != 5003 {
			return resp
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still 5003 after a minute: %+v", method, describe(resp))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestLeaseRouting: a document made through one gateway (its home engine
// holds it) is served through the other gateway too, whose home engine
// sends it to the holder: the client never sees the routing.
func TestLeaseRouting(t *testing.T) {
	cl := startCluster(t)
	c1, c2 := dialWebSocket(t, cl.gatewayA.Addr), dialWebSocket(t, cl.gatewayB.Addr)
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c1, 1, "document.create", map[string]any{"name": "routed"}, &doc)
	var r batchResult
	mustCall(t, c2, 2, "cad.batch", pointsBatch(doc.DocumentID, "op-r-1", 100, 3, "rollback", false), &r)
	mustCall(t, c1, 3, "cad.batch", pointsBatch(doc.DocumentID, "op-r-2", 200, 2, "rollback", false), &r)
	for _, c := range []client{c1, c2} {
		counts := pointsByBatch(t, c, 4, doc.DocumentID)
		if counts[1] != 3 || counts[2] != 2 || len(counts) != 2 {
			t.Errorf("points by batch = %v, want 3 of batch 1 and 2 of batch 2", counts)
		}
	}
}

// TestLeaseFailoverKill: kill -9 of the holder while a batch runs; the
// retry of that batch with its operation id, through the same gateway,
// reaches the other engine once the lease expired, and replays it or runs
// it exactly once. No acknowledged batch is lost, none is half there.
func TestLeaseFailoverKill(t *testing.T) {
	cl := startCluster(t)
	c := dialWebSocket(t, cl.gatewayA.Addr)
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, 1, "document.create", map[string]any{"name": "failover"}, &doc)
	const acked, perBatch, last = 3, 5, 4
	id := 10
	for b := 1; b <= acked; b++ {
		id++
		var r batchResult
		mustCall(t, c, id, "cad.batch", pointsBatch(doc.DocumentID, fmt.Sprintf("op-k-%d", b), b*100, perBatch, "rollback", false), &r)
	}
	// The last batch is big, so that the kill finds it running (or, on a
	// fast machine, just committed: both must end in one copy).
	const lastSize = 900
	lastBatch := pointsBatch(doc.DocumentID, "op-k-last", last*100, lastSize, "rollback", false)
	data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 99, "method": "cad.batch", "params": lastBatch})
	if err := c.ws.Write(t.Context(), data); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	cl.engineA.Kill()
	// Its answer: ok if it committed before the kill, else 5003.
	for {
		raw, err := c.ws.Read(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var f response
		if json.Unmarshal(raw, &f) == nil && f.Method == "" && string(f.ID) == "99" {
			t.Logf("the batch the kill hit answered %+v", describe(f))
			break
		}
	}

	retry := until(t, c, &id, "cad.batch", lastBatch)
	var r struct {
		OK bool `json:"ok"`
	}
	if retry.Error != nil || json.Unmarshal(retry.Result, &r) != nil || !r.OK {
		t.Fatalf("retry of the batch the kill hit = %+v, want ok", describe(retry))
	}
	other := dialWebSocket(t, cl.gatewayB.Addr)
	for _, cc := range []client{c, other} {
		id++
		counts := pointsByBatch(t, cc, id, doc.DocumentID)
		for b := 1; b <= acked; b++ {
			if counts[b] != perBatch {
				t.Errorf("acknowledged batch %d has %d points, want %d", b, counts[b], perBatch)
			}
		}
		// x = 400..1299 counts under batches 4 to 12.
		got := 0
		for b := last; b <= last+lastSize/100; b++ {
			got += counts[b]
		}
		if got != lastSize {
			t.Errorf("the killed batch left %d points, want exactly %d (one copy, whole)", got, lastSize)
		}
	}
	id++
	var op struct {
		Status string `json:"status"`
	}
	mustCall(t, other, id, "operations.get", map[string]any{"operation_id": "op-k-last"}, &op)
	if op.Status != "succeeded" {
		t.Errorf("operations.get(op-k-last) status = %q, want succeeded", op.Status)
	}
}

// TestLeaseFencingStop: the holder is stopped (SIGSTOP) while its batch
// waits on the client, past its lease TTL; a batch through the other
// gateway takes the document over; the holder is continued (SIGCONT) and
// its commit is refused by the database: its caller gets 5003 with the
// operation id, the document is exactly the second batch's result, and
// operations.get says the first batch never happened.
func TestLeaseFencingStop(t *testing.T) {
	cl := startCluster(t)
	p := newPeer(t, cl.gatewayA.Addr)
	p.call(1, "session.create", map[string]any{"capabilities": map[string]any{"server_requests": []string{"pick.point"}}})
	var s sessionInfo
	if f := p.response(1); f.Error != nil || json.Unmarshal(f.Result, &s) != nil {
		t.Fatalf("session.create = %+v", f)
	}
	p.call(2, "document.create", map[string]any{"name": "fenced"})
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	if f := p.response(2); f.Error != nil || json.Unmarshal(f.Result, &doc) != nil {
		t.Fatalf("document.create = %+v", f)
	}
	p.call(3, "cad.batch", map[string]any{
		"session_id": s.SessionID, "document_id": doc.DocumentID, "operation_id": "op-first",
		"steps": []any{
			map[string]any{"tool": "point_pick", "args": map[string]any{"prompt": "where?"}, "bind": "p"},
			map[string]any{"tool": "entity_create_point", "args": map[string]any{"x": "$p.x", "y": "$p.y"}},
		},
	})
	req := p.request("pick.point")

	if err := cl.engineA.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	continued := false
	defer func() {
		if !continued {
			cl.engineA.Signal(syscall.SIGCONT)
		}
	}()
	time.Sleep(testLeaseTTL + 1500*time.Millisecond)
	c2 := dialWebSocket(t, cl.gatewayB.Addr)
	id := 10
	second := until(t, c2, &id, "cad.batch", pointsBatch(doc.DocumentID, "op-second", 100, 3, "rollback", false))
	if second.Error != nil {
		t.Fatalf("second batch = %+v", describe(second))
	}

	p.send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(req.ID), "result": map[string]any{"x": 777, "y": 0}})
	if err := cl.engineA.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	continued = true
	first := p.response(3)
	var data struct {
		OperationID string `json:"operation_id"`
	}
	if first.Error == nil || first.Error.Code != 5003 || json.Unmarshal(first.Error.Data, &data) != nil || data.OperationID != "op-first" {
		t.Fatalf("the stopped holder's batch = %s %+v, want 5003 with operation_id op-first", first.Result, first.Error)
	}
	id++
	counts := pointsByBatch(t, c2, id, doc.DocumentID)
	if counts[1] != 3 || len(counts) != 1 {
		t.Errorf("points by batch = %v, want exactly the second batch's 3", counts)
	}
	for name, c := range map[string]client{"first gateway": &peerClient{p}, "second gateway": c2} {
		id++
		resp := call(t, c, id, "operations.get", map[string]any{"operation_id": "op-first"})
		if resp.Error == nil || resp.Error.Code != 4004 {
			t.Errorf("operations.get(op-first) through the %s = %+v, want 4004 (it never committed)", name, describe(resp))
		}
		id++
		var op struct {
			Status string `json:"status"`
		}
		mustCall(t, c, id, "operations.get", map[string]any{"operation_id": "op-second"}, &op)
		if op.Status != "succeeded" {
			t.Errorf("operations.get(op-second) through the %s = %q, want succeeded", name, op.Status)
		}
	}
}

// peerClient makes a peer a client for call.
type peerClient struct{ p *peer }

func (c *peerClient) roundTrip(t *testing.T, payload []byte) response {
	t.Helper()
	var req struct {
		ID int `json:"id"`
	}
	json.Unmarshal(payload, &req)
	var raw map[string]any
	json.Unmarshal(payload, &raw)
	c.p.send(raw)
	f := c.p.response(req.ID)
	return response{ID: f.ID, Result: f.Result, Error: f.Error}
}

// TestLeaseChangesAcrossEngines: a client subscribed through engine A
// (its gateway's home) gets document.changed for a change made through
// engine B, which holds the document.
func TestLeaseChangesAcrossEngines(t *testing.T) {
	cl := startCluster(t)
	c2 := dialWebSocket(t, cl.gatewayB.Addr)
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c2, 1, "document.create", map[string]any{"name": "watched"}, &doc)

	p := newPeer(t, cl.gatewayA.Addr)
	p.call(1, "session.create", map[string]any{})
	var s sessionInfo
	if f := p.response(1); f.Error != nil || json.Unmarshal(f.Result, &s) != nil {
		t.Fatalf("session.create = %+v", f)
	}
	p.call(2, "session.subscribe", map[string]any{"session_id": s.SessionID, "document_ids": []string{doc.DocumentID}})
	if f := p.response(2); f.Error != nil {
		t.Fatalf("session.subscribe = %+v", f)
	}
	var r batchResult
	mustCall(t, c2, 2, "cad.batch", pointsBatch(doc.DocumentID, "op-watched", 100, 2, "rollback", false), &r)
	ev := p.next("document.changed", func(f frame) bool {
		if f.Method != "event" {
			return false
		}
		var e struct {
			Type    string `json:"type"`
			Payload struct {
				DocumentID  string `json:"document_id"`
				OperationID string `json:"operation_id"`
			} `json:"payload"`
		}
		return json.Unmarshal(f.Params, &e) == nil && e.Type == "document.changed" && e.Payload.DocumentID == doc.DocumentID && e.Payload.OperationID == "op-watched"
	})
	t.Logf("event through engine A: %s", ev.Params)
}

// TestLeaseSessionResumedElsewhere: a session with an open approval,
// made through one gateway (its engine A owns the session and holds the
// document), is resumed through the other gateway, whose home is engine
// B: the resume reaches A, the approval is replayed with its id, its
// answer lands exactly once, and seq never goes back.
func TestLeaseSessionResumedElsewhere(t *testing.T) {
	cl := startCluster(t)
	p := newPeer(t, cl.gatewayA.Addr)
	s, doc := interactiveSession(t, p)
	p.call(10, "cad.batch", deleteBatch(s, doc, "op-elsewhere"))
	req := p.request("approval")
	var seen struct {
		LatestSeq int64 `json:"latest_seq"`
	}
	p.call(11, "session.events.since", map[string]any{"session_id": s.SessionID, "last_seen": 0})
	if f := p.response(11); f.Error != nil || json.Unmarshal(f.Result, &seen) != nil || seen.LatestSeq == 0 {
		t.Fatalf("session.events.since = %+v, want events", f)
	}
	p.ws.Close() // gone without answering

	q := newPeer(t, cl.gatewayB.Addr)
	q.call(1, "session.resume", map[string]any{"session_id": s.SessionID, "resume_token": s.ResumeToken, "last_seen": 0})
	var resumed struct {
		LatestSeq    int64 `json:"latest_seq"`
		OpenRequests []struct {
			ID     string `json:"id"`
			Method string `json:"method"`
		} `json:"open_requests"`
	}
	if f := q.response(1); f.Error != nil || json.Unmarshal(f.Result, &resumed) != nil {
		t.Fatalf("session.resume through the other gateway = %+v", f)
	}
	var id string
	json.Unmarshal(req.ID, &id)
	if len(resumed.OpenRequests) != 1 || resumed.OpenRequests[0].ID != id || resumed.OpenRequests[0].Method != "approval" {
		t.Fatalf("open_requests = %+v, want the approval %s", resumed.OpenRequests, id)
	}
	if resumed.LatestSeq < seen.LatestSeq {
		t.Errorf("latest_seq after the resume = %d, before %d: seq went back", resumed.LatestSeq, seen.LatestSeq)
	}
	approveTwice(t, q, id, "op-elsewhere", doc)
	q.call(101, "session.events.since", map[string]any{"session_id": s.SessionID, "last_seen": resumed.LatestSeq})
	var after struct {
		LatestSeq    int64 `json:"latest_seq"`
		OpenRequests []any `json:"open_requests"`
		Events       []struct {
			Seq int64 `json:"seq"`
		} `json:"events"`
	}
	if f := q.response(101); f.Error != nil || json.Unmarshal(f.Result, &after) != nil || len(after.OpenRequests) != 0 {
		t.Fatalf("events after the answer = %+v, want no open requests", f)
	}
	if after.LatestSeq <= resumed.LatestSeq {
		t.Errorf("latest_seq after the batch = %d, at the resume %d: want it to grow", after.LatestSeq, resumed.LatestSeq)
	}
	for _, ev := range after.Events {
		if ev.Seq <= resumed.LatestSeq {
			t.Errorf("event seq %d after the resume at %d", ev.Seq, resumed.LatestSeq)
		}
	}
}

// sessionEvent is an event as session.resume and session.events.since
// list it.
type sessionEvent struct {
	Seq     int64           `json:"seq"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

// String is the event as a failure message shows it.
func (e sessionEvent) String() string { return fmt.Sprintf("%d %s %s", e.Seq, e.Type, e.Payload) }

// sameEvent reports whether a and b are one event: seq, type and payload
// (compared as JSON values).
func sameEvent(a, b sessionEvent) bool {
	var pa, pb any
	json.Unmarshal(a.Payload, &pa)
	json.Unmarshal(b.Payload, &pb)
	ja, _ := json.Marshal(pa)
	jb, _ := json.Marshal(pb)
	return a.Seq == b.Seq && a.Type == b.Type && string(ja) == string(jb)
}

// TestLeaseSessionEventsElsewhere: a session's events, emitted on engine
// A (which owns the session and holds its document), survive A — killed
// or stopped: the session resumed through the other gateway on engine B
// with an old cursor replays exactly the events after it (not
// truncated), and B's events go on with the next seq.
func TestLeaseSessionEventsElsewhere(t *testing.T) {
	for _, end := range []struct {
		name string
		fn   func(*proctest.Process)
	}{
		{"kill -9", (*proctest.Process).Kill},
		{"stop", (*proctest.Process).Stop},
	} {
		t.Run(end.name, func(t *testing.T) {
			cl := startCluster(t)
			c := dialWebSocket(t, cl.gatewayA.Addr)
			var s sessionInfo
			mustCall(t, c, 1, "session.create", map[string]any{}, &s)
			var doc struct {
				DocumentID string `json:"document_id"`
			}
			mustCall(t, c, 2, "document.create", map[string]any{"name": "events"}, &doc)
			var subscribed struct{}
			mustCall(t, c, 3, "session.subscribe", map[string]any{"session_id": s.SessionID, "document_ids": []string{doc.DocumentID}}, &subscribed)
			batch := pointsBatch(doc.DocumentID, "op-ev-1", 100, 4, "rollback", false)
			batch["session_id"] = s.SessionID
			var r batchResult
			mustCall(t, c, 4, "cad.batch", batch, &r)
			var before struct {
				Events    []sessionEvent `json:"events"`
				LatestSeq int64          `json:"latest_seq"`
			}
			mustCall(t, c, 5, "session.events.since", map[string]any{"session_id": s.SessionID, "last_seen": 0}, &before)
			// 4 × batch.progress, document.changed, operation.finished.
			if len(before.Events) != 6 || before.LatestSeq != before.Events[5].Seq {
				t.Fatalf("events on engine A = %v, latest %d; want 6 events up to latest", before.Events, before.LatestSeq)
			}
			cursor := before.Events[1].Seq
			end.fn(cl.engineA)

			q := dialWebSocket(t, cl.gatewayB.Addr)
			id := 10
			resume := map[string]any{"session_id": s.SessionID, "resume_token": s.ResumeToken, "last_seen": cursor}
			var resumed struct {
				Events    []sessionEvent `json:"events"`
				LatestSeq int64          `json:"latest_seq"`
				Truncated bool           `json:"truncated"`
			}
			// 5003 until the session's lease, after a kill, has expired.
			if resp := until(t, q, &id, "session.resume", resume); resp.Error != nil || json.Unmarshal(resp.Result, &resumed) != nil {
				t.Fatalf("session.resume on engine B = %+v", describe(resp))
			}
			wantSameEvents(t, fmt.Sprintf("the resume on engine B after seq %d", cursor), resumed.Events, before.Events[2:])
			if resumed.Truncated || resumed.LatestSeq != before.LatestSeq {
				t.Errorf("resume on engine B after seq %d: truncated %v, latest %d; want not truncated, latest %d",
					cursor, resumed.Truncated, resumed.LatestSeq, before.LatestSeq)
			}

			batch = pointsBatch(doc.DocumentID, "op-ev-2", 200, 2, "rollback", false)
			batch["session_id"] = s.SessionID
			if resp := until(t, q, &id, "cad.batch", batch); resp.Error != nil {
				t.Fatalf("batch on engine B = %+v", describe(resp))
			}
			var after struct {
				Events []sessionEvent `json:"events"`
			}
			id++
			mustCall(t, q, id, "session.events.since", map[string]any{"session_id": s.SessionID, "last_seen": before.LatestSeq}, &after)
			next := true
			for i, ev := range after.Events {
				next = next && ev.Seq == before.LatestSeq+1+int64(i)
			}
			if !next || !finishes(after.Events, "op-ev-2") {
				t.Errorf("events on engine B after seq %d = %v, want seq %d on, one by one, up to op-ev-2's operation.finished",
					before.LatestSeq, after.Events, before.LatestSeq+1)
			}
		})
	}
}

// TestLeaseListAcrossEngines: document.list through engine A lists a
// document created, and since changed, through engine B, as stored.
func TestLeaseListAcrossEngines(t *testing.T) {
	cl := startCluster(t)
	c2 := dialWebSocket(t, cl.gatewayB.Addr)
	var doc documentRef
	mustCall(t, c2, 1, "document.create", map[string]any{"name": "made through B"}, &doc)
	for i := range 2 {
		var r struct{}
		mustCall(t, c2, 2+i, "tools.call", map[string]any{"document_id": doc.DocumentID, "tool": "entity_create_point", "args": map[string]any{"x": i, "y": 0}}, &r)
	}
	c1 := dialWebSocket(t, cl.gatewayA.Addr)
	var list struct {
		Documents []struct {
			DocumentID  string `json:"document_id"`
			Name        string `json:"name"`
			Revision    int64  `json:"revision"`
			EntityCount int64  `json:"entity_count"`
		} `json:"documents"`
	}
	mustCall(t, c1, 1, "document.list", map[string]any{}, &list)
	var found bool
	for _, d := range list.Documents {
		if d.DocumentID == doc.DocumentID {
			found = true
			if d.Name != "made through B" || d.EntityCount != 2 || d.Revision < 2 {
				t.Errorf("document.list through A has %+v, want its name, 2 entities and revision 2 or more", d)
			}
		}
	}
	if !found {
		t.Errorf("document.list through A = %+v, want %s, created through B", list.Documents, doc.DocumentID)
	}
}

// acrossEngines creates, with params, a session through gateway A,
// which engine A owns, and a document through gateway B, which engine B
// holds: the session's peer, the session, a client of gateway B and the
// document.
func acrossEngines(t *testing.T, cl *cluster, params map[string]any) (*peer, sessionInfo, *wsClient, documentRef) {
	t.Helper()
	p := newPeer(t, cl.gatewayA.Addr)
	p.call(1, "session.create", params)
	var s sessionInfo
	if f := p.response(1); f.Error != nil || json.Unmarshal(f.Result, &s) != nil {
		t.Fatalf("session.create = %+v", f)
	}
	c2 := dialWebSocket(t, cl.gatewayB.Addr)
	var doc documentRef
	mustCall(t, c2, 1, "document.create", map[string]any{"name": "held by B"}, &doc)
	return p, s, c2, doc
}

// documentRef is a document as document.create answers it.
type documentRef struct {
	DocumentID string `json:"document_id"`
}

// TestLeaseAskAcrossEngines: a batch whose document engine B holds, for a
// session engine A owns (the client's gateway's home), asks the session's
// client: B opens the approval in the store, A relays it on the client's
// connection, the client's answer goes back to B exactly once, and the
// batch applies once.
func TestLeaseAskAcrossEngines(t *testing.T) {
	cl := startCluster(t)
	p, s, c2, doc := acrossEngines(t, cl, map[string]any{"capabilities": map[string]any{"server_requests": []string{"approval"}}, "approval_policy": "destructive"})
	for i := range 2 {
		var r struct{}
		mustCall(t, c2, 2+i, "tools.call", map[string]any{"document_id": doc.DocumentID, "tool": "entity_create_point", "args": map[string]any{"x": i, "y": 0}}, &r)
	}

	p.call(10, "cad.batch", deleteBatch(s, doc.DocumentID, "op-across"))
	req := p.request("approval")
	var params struct {
		SessionID   string `json:"session_id"`
		OperationID string `json:"operation_id"`
	}
	if json.Unmarshal(req.Params, &params) != nil || params.SessionID != s.SessionID || !strings.HasPrefix(params.OperationID, "op-across") {
		t.Errorf("approval params = %s, want the session and a step of op-across", req.Params)
	}
	var id string
	json.Unmarshal(req.ID, &id)
	approveTwice(t, p, id, "op-across", doc.DocumentID)
	p.call(200, "session.events.since", map[string]any{"session_id": s.SessionID, "last_seen": 0})
	var since struct {
		OpenRequests []any `json:"open_requests"`
	}
	if f := p.response(200); f.Error != nil || json.Unmarshal(f.Result, &since) != nil || len(since.OpenRequests) != 0 {
		t.Errorf("session.events.since after the answer = %+v, want no open request", f)
	}

	// Withdrawn by the asker: the call is cancelled on engine B, and the
	// client is told through engine A.
	mustCall(t, c2, 4, "document.create", map[string]any{"name": "held by B, 2"}, &doc)
	for i := range 2 {
		var r struct{}
		mustCall(t, c2, 5+i, "tools.call", map[string]any{"document_id": doc.DocumentID, "tool": "entity_create_point", "args": map[string]any{"x": i, "y": 0}}, &r)
	}
	p.call(20, "cad.batch", deleteBatch(s, doc.DocumentID, "op-across-cancel"))
	req = p.request("approval")
	p.send(map[string]any{"jsonrpc": "2.0", "method": "$/cancelRequest", "params": map[string]any{"id": 20}})
	got := frames(p, map[string]func(frame) bool{
		"the batch's answer": func(f frame) bool { return f.Method == "" && string(f.ID) == "20" },
		"request.cancel":     cancelOf(req),
	})
	if f := got["the batch's answer"]; f.Error == nil || f.Error.Code != -32800 {
		t.Errorf("cancelled cad.batch = %+v, want -32800", f)
	}

	// Withdrawn by the owner (session.interrupt on engine A): the step on
	// engine B ends cancelled.
	p.call(30, "cad.batch", deleteBatch(s, doc.DocumentID, "op-across-interrupt"))
	req = p.request("approval")
	p.call(31, "session.interrupt", map[string]any{"session_id": s.SessionID})
	got = frames(p, map[string]func(frame) bool{
		"the batch's answer": func(f frame) bool { return f.Method == "" && string(f.ID) == "30" },
		"request.cancel":     cancelOf(req),
		"the interrupt":      func(f frame) bool { return f.Method == "" && string(f.ID) == "31" },
	})
	var res batchResult
	if f := got["the batch's answer"]; f.Error != nil || json.Unmarshal(f.Result, &res) != nil || res.OK || len(res.Results) == 0 || res.Results[0].Error == nil || res.Results[0].Error.Kind != "cancelled" {
		t.Errorf("interrupted cad.batch = %s %+v, want its step cancelled", f.Result, f.Error)
	}
	if c := got["request.cancel"]; !strings.Contains(string(c.Params), `"interrupted"`) {
		t.Errorf("request.cancel = %s, want reason interrupted", c.Params)
	}
	if counts := pointsByBatch(t, c2, 10, doc.DocumentID); counts[0] != 2 {
		t.Errorf("points after the cancelled and the interrupted delete = %v, want both", counts)
	}

	// Withdrawn by the asker's stop (SIGINT to engine B): the client is
	// told shutdown.
	p.call(40, "cad.batch", deleteBatch(s, doc.DocumentID, "op-across-stop"))
	req = p.request("approval")
	cl.engineB.Stop()
	if c := p.next("request.cancel", cancelOf(req)); !strings.Contains(string(c.Params), `"shutdown"`) {
		t.Errorf("request.cancel = %s, want reason shutdown", c.Params)
	}
}

// TestLeaseEventsAcrossEngines: a batch whose document engine B holds,
// for a session engine A owns (the client's gateway's home), emits its
// events into the session through A: the client receives batch.progress
// per step and operation.finished live, once each and in order, and
// session.events.since through one gateway and a resume through the
// other replay them with the same seqs. With A killed before the batch,
// the events B hands over wait in the store and the engine that takes
// the session over emits them.
func TestLeaseEventsAcrossEngines(t *testing.T) {
	cl := startCluster(t)
	p, s, c2, doc := acrossEngines(t, cl, map[string]any{})
	const steps = 3
	batch := pointsBatch(doc.DocumentID, "op-across-events", 100, steps, "rollback", false)
	batch["session_id"] = s.SessionID
	p.call(10, "cad.batch", batch)
	var (
		live     []sessionEvent
		answered bool
	)
	for !answered || !finishes(live, "op-across-events") {
		f := p.next("the batch's answer and its operation.finished", func(f frame) bool {
			return f.Method == "event" || f.Method == "" && string(f.ID) == "10"
		})
		if f.Method == "" {
			var r batchResult
			if f.Error != nil || json.Unmarshal(f.Result, &r) != nil || !r.OK {
				t.Fatalf("cad.batch on engine B = %s %+v", f.Result, f.Error)
			}
			answered = true
			continue
		}
		var ev sessionEvent
		if err := json.Unmarshal(f.Params, &ev); err != nil {
			t.Fatalf("event %s: %v", f.Params, err)
		}
		live = append(live, ev)
	}
	wantBatchEvents(t, "live", live, "op-across-events", steps)

	var since struct {
		Events []sessionEvent `json:"events"`
	}
	p.call(11, "session.events.since", map[string]any{"session_id": s.SessionID, "last_seen": 0})
	if f := p.response(11); f.Error != nil || json.Unmarshal(f.Result, &since) != nil {
		t.Fatalf("session.events.since through gateway A = %+v", f)
	}
	wantSameEvents(t, "session.events.since through gateway A", since.Events, live)
	q := dialWebSocket(t, cl.gatewayB.Addr)
	var resumed struct {
		Events []sessionEvent `json:"events"`
	}
	mustCall(t, q, 1, "session.resume", map[string]any{"session_id": s.SessionID, "resume_token": s.ResumeToken, "last_seen": 0}, &resumed)
	wantSameEvents(t, "session.resume through gateway B", resumed.Events, live)

	// The session's owner killed: B's next batch for it is handed over
	// with nobody to emit it (or, once A's lease has expired, B owns the
	// session itself); a resume through gateway A, which takes the
	// session over, replays its events after the first batch's.
	cl.engineA.Kill()
	batch = pointsBatch(doc.DocumentID, "op-across-orphan", 200, steps, "rollback", false)
	batch["session_id"] = s.SessionID
	var r batchResult
	mustCall(t, c2, 2, "cad.batch", batch, &r)
	q2 := dialWebSocket(t, cl.gatewayA.Addr)
	id := 1
	last := live[len(live)-1].Seq
	resume := map[string]any{"session_id": s.SessionID, "resume_token": s.ResumeToken, "last_seen": last}
	var after struct {
		Events    []sessionEvent `json:"events"`
		Truncated bool           `json:"truncated"`
	}
	if resp := until(t, q2, &id, "session.resume", resume); resp.Error != nil || json.Unmarshal(resp.Result, &after) != nil {
		t.Fatalf("session.resume after A's kill = %+v", describe(resp))
	}
	if after.Truncated || len(after.Events) == 0 || after.Events[0].Seq != last+1 {
		t.Errorf("events after seq %d once A is gone = %v, truncated %v; want seq %d on", last, after.Events, after.Truncated, last+1)
	}
	wantBatchEvents(t, "after A's kill", after.Events, "op-across-orphan", steps)
}

// finishes reports whether evs hold the operation.finished of op.
func finishes(evs []sessionEvent, op string) bool {
	for _, ev := range evs {
		if ev.Type == "operation.finished" && strings.Contains(string(ev.Payload), `"`+op+`"`) {
			return true
		}
	}
	return false
}

// wantBatchEvents checks that evs are, once each, the batch.progress of
// each of the steps of op and then its operation.finished, with seqs one
// by one.
func wantBatchEvents(t *testing.T, what string, evs []sessionEvent, op string, steps int) {
	t.Helper()
	ok := len(evs) == steps+1
	for i := 0; ok && i < len(evs); i++ {
		var p struct {
			OperationID string `json:"operation_id"`
			Step, Total int
		}
		ok = json.Unmarshal(evs[i].Payload, &p) == nil && p.OperationID == op && (i == 0 || evs[i].Seq == evs[i-1].Seq+1)
		if i < steps {
			ok = ok && evs[i].Type == "batch.progress" && p.Step == i+1 && p.Total == steps
		} else {
			ok = ok && evs[i].Type == "operation.finished"
		}
	}
	if !ok {
		t.Errorf("events %s = %v, want batch.progress of steps 1 to %d of %s and its operation.finished, seq one by one", what, evs, steps, op)
	}
}

// wantSameEvents checks that got are the events want.
func wantSameEvents(t *testing.T, what string, got, want []sessionEvent) {
	t.Helper()
	same := len(got) == len(want)
	for i := 0; same && i < len(want); i++ {
		same = sameEvent(got[i], want[i])
	}
	if !same {
		t.Errorf("events of %s = %v, want %v", what, got, want)
	}
}

// cancelOf matches the request.cancel of server request req.
func cancelOf(req frame) func(frame) bool {
	return func(f frame) bool {
		return f.Method == "request.cancel" && strings.Contains(string(f.Params), string(req.ID))
	}
}

// frames reads p's frames until it has seen one of each of want (by
// name), and returns them.
func frames(p *peer, want map[string]func(frame) bool) map[string]frame {
	p.t.Helper()
	got := map[string]frame{}
	for len(got) < len(want) {
		var missing []string
		for name := range want {
			if _, seen := got[name]; !seen {
				missing = append(missing, name)
			}
		}
		p.next(strings.Join(missing, " and "), func(f frame) bool {
			for name, match := range want {
				if _, seen := got[name]; !seen && match(f) {
					got[name] = f
					return true
				}
			}
			return false
		})
	}
	return got
}
