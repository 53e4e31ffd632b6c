package e2e_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/internal/proctest"
)

// freeAddr returns a loopback address that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	return lis.Addr().String()
}

// pointsBatch is a batch that creates n points at x = base+i on layer "0"
// and, in rollback mode, ends with a step that fails when fail is set.
func pointsBatch(doc, opID string, base, n int, onError string, fail bool) map[string]any {
	var steps []any
	for i := 0; i < n; i++ {
		steps = append(steps, map[string]any{"tool": "entity_create_point", "args": map[string]any{"x": base + i, "y": 0}})
	}
	if fail {
		steps = append(steps, map[string]any{"tool": "entity_move", "args": map[string]any{"handle": "FFFFFF", "dx": 1, "dy": 0}})
	}
	return map[string]any{"document_id": doc, "operation_id": opID, "on_error": onError, "steps": steps}
}

// pointsByBatch counts the document's points by the batch that made them
// (x / 100).
func pointsByBatch(t *testing.T, c client, id int, doc string) map[int]int {
	t.Helper()
	var list struct {
		Result struct {
			Entities []struct {
				Location struct{ X float64 } `json:"location"`
			} `json:"entities"`
			NextPageToken string `json:"next_page_token"`
		} `json:"result"`
	}
	mustCall(t, c, id, "tools.call", map[string]any{"document_id": doc, "tool": "entity_list", "args": map[string]any{"page_size": 10000}}, &list)
	if list.Result.NextPageToken != "" {
		t.Fatalf("entity_list has more than one page")
	}
	counts := map[int]int{}
	for _, e := range list.Result.Entities {
		counts[int(e.Location.X)/100]++
	}
	return counts
}

// TestEngineKill9: batches stream into the engine while it is killed at
// random points; after a restart every acknowledged batch is there, none is
// half-applied, the journal agrees with the document, and retries replay
// or report what committed.
func TestEngineKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	store := "sqlite:" + t.TempDir() + "/engine.db"
	engineAddr := freeAddr(t)
	startEngine := func() *proctest.Process {
		return proctest.StartEngine(t, engineAddr, store)
	}
	engine := startEngine()
	gw := proctest.StartGateway(t, "127.0.0.1:0", engineAddr)
	c := dialWebSocket(t, gw.Addr)
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, 1, "document.create", map[string]any{"name": "kill9"}, &doc)

	const perBatch = 5
	acked := map[int]bool{}   // batch → acknowledged ok
	modes := map[int]string{} // batch → on_error
	next, id := 1, 10
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	for round := 0; round < 3; round++ {
		killAt := time.Now().Add(time.Duration(20+rng.Intn(200)) * time.Millisecond)
		killed := make(chan struct{})
		go func() {
			time.Sleep(time.Until(killAt))
			engine.Kill()
			close(killed)
		}()
	sending:
		for {
			select {
			case <-killed:
				break sending
			default:
			}
			b := next
			next++
			mode := []string{"stop", "rollback"}[b%2]
			modes[b] = mode
			id++
			resp := call(t, c, id, "cad.batch", pointsBatch(doc.DocumentID, fmt.Sprintf("op-k-%d", b), b*100, perBatch, mode, false))
			if resp.Error != nil {
				if resp.Error.Code != 5003 {
					t.Fatalf("batch %d: error %+v, want a result or 5003", b, describe(resp))
				}
				break // the engine is gone; this batch is unacknowledged
			}
			var r batchResult
			json.Unmarshal(resp.Result, &r)
			if !r.OK {
				t.Fatalf("batch %d = %s, want ok", b, resp.Result)
			}
			acked[b] = true
		}
		<-killed
		engine = startEngine()
		// The gateway reconnects on the next call.
		id = awaitEngine(t, c, id, doc.DocumentID)
	}

	id++
	counts := pointsByBatch(t, c, id, doc.DocumentID)
	t.Logf("%d batches sent, %d acknowledged, across 3 kills", next-1, len(acked))
	for b := 1; b < next; b++ {
		n := counts[b]
		if n != 0 && n != perBatch {
			t.Errorf("batch %d (%s) left %d of %d points: half-applied", b, modes[b], n, perBatch)
		}
		if acked[b] && n != perBatch {
			t.Errorf("acknowledged batch %d has %d points, want %d", b, n, perBatch)
		}
		id++
		var op struct {
			Status         string `json:"status"`
			CommittedSteps []int  `json:"committed_steps"`
		}
		resp := call(t, c, id, "operations.get", map[string]any{"operation_id": fmt.Sprintf("op-k-%d", b)})
		switch {
		case resp.Error != nil && resp.Error.Code == 4004:
			if n != 0 {
				t.Errorf("batch %d: no journal record, but %d points", b, n)
			}
		case resp.Error != nil:
			t.Errorf("operations.get op-k-%d = %+v", b, describe(resp))
		default:
			json.Unmarshal(resp.Result, &op)
			if committed := len(op.CommittedSteps) == perBatch; committed != (n == perBatch) {
				t.Errorf("batch %d: journal %s with committed steps %v, document has %d points", b, op.Status, op.CommittedSteps, n)
			}
		}
		// A retry with the same operation id never runs the batch twice.
		id++
		retry := call(t, c, id, "cad.batch", pointsBatch(doc.DocumentID, fmt.Sprintf("op-k-%d", b), b*100, perBatch, modes[b], false))
		if acked[b] {
			var r struct {
				OK       bool `json:"ok"`
				Replayed bool `json:"replayed"`
			}
			if retry.Error != nil || json.Unmarshal(retry.Result, &r) != nil || !r.OK || !r.Replayed {
				t.Errorf("retry of acknowledged batch %d = %+v, want its replay", b, describe(retry))
			}
		}
	}
	id++
	after := pointsByBatch(t, c, id, doc.DocumentID)
	for b, n := range after {
		if n > perBatch {
			t.Errorf("batch %d has %d points after retries: ran twice", b, n)
		}
	}
}

// TestConcurrentRetries: 64 concurrent calls with one operation id, from
// several sessions, execute the batch exactly once.
func TestConcurrentRetries(t *testing.T) {
	gateway, _ := startServices(t)
	setup := dialWebSocket(t, gateway)
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, setup, 1, "document.create", map[string]any{"name": "retries"}, &doc)
	batch := pointsBatch(doc.DocumentID, "op-once", 0, 3, "stop", false)

	const conns, perConn = 8, 8
	var wg sync.WaitGroup
	handles := make(chan string, conns*perConn)
	errs := make(chan string, conns*perConn)
	for i := 0; i < conns; i++ {
		c := dialWebSocket(t, gateway)
		var mu sync.Mutex // one roundTrip at a time per connection
		for j := 0; j < perConn; j++ {
			wg.Add(1)
			go func(id int) {
				defer wg.Done()
				for attempt := 0; attempt < 200; attempt++ {
					mu.Lock()
					resp := call(t, c, id, "cad.batch", batch)
					mu.Unlock()
					if resp.Error != nil {
						errs <- fmt.Sprintf("error %d %s", resp.Error.Code, resp.Error.Message)
						return
					}
					var r struct {
						OK      bool                      `json:"ok"`
						Error   *struct{ Kind string }    `json:"error"`
						Results []struct{ Handle string } `json:"results"`
					}
					json.Unmarshal(resp.Result, &r)
					if r.Error != nil && r.Error.Kind == "busy" {
						time.Sleep(10 * time.Millisecond)
						continue
					}
					if !r.OK || len(r.Results) != 3 {
						errs <- string(resp.Result)
						return
					}
					handles <- r.Results[0].Handle
					return
				}
				errs <- "still busy after 200 attempts"
			}(1000 + i*perConn + j)
		}
	}
	wg.Wait()
	close(handles)
	close(errs)
	for e := range errs {
		t.Errorf("retry: %s", e)
	}
	first := ""
	for h := range handles {
		if first == "" {
			first = h
		}
		if h != first {
			t.Errorf("retries returned handles %s and %s, want one execution", first, h)
		}
	}
	var info struct {
		Revision    int64 `json:"revision"`
		EntityCount int64 `json:"entity_count"`
	}
	mustCall(t, setup, 2, "document.get", map[string]any{"document_id": doc.DocumentID}, &info)
	if info.EntityCount != 3 || info.Revision != 3 {
		t.Errorf("document after 64 retries = %+v, want 3 points at revision 3 (one execution)", info)
	}
}

// TestGatewayKill9: a gateway killed while approvals are open; a new gateway
// process; the clients resume, see their requests and answer; each answer
// is applied exactly once.
func TestGatewayKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	e := proctest.StartEngine(t, "127.0.0.1:0", "memory:")
	g1 := proctest.StartGateway(t, "127.0.0.1:0", e.Addr)
	const clients = 3
	type pending struct {
		s    sessionInfo
		doc  string
		srq  string
		opID string
	}
	var open []pending
	for i := 0; i < clients; i++ {
		p := newPeer(t, g1.Addr)
		s, doc := interactiveSession(t, p)
		opID := fmt.Sprintf("op-gw-kill-%d", i)
		p.call(10, "cad.batch", deleteBatch(s, doc, opID))
		req := p.request("approval")
		var srq string
		json.Unmarshal(req.ID, &srq)
		open = append(open, pending{s, doc, srq, opID})
	}
	g1.Kill()

	g2 := proctest.StartGateway(t, "127.0.0.1:0", e.Addr)
	for i, o := range open {
		q := newPeer(t, g2.Addr)
		q.call(1, "session.resume", map[string]any{"session_id": o.s.SessionID, "resume_token": o.s.ResumeToken})
		var resumed struct {
			OpenRequests []struct{ ID string } `json:"open_requests"`
		}
		if f := q.response(1); f.Error != nil || json.Unmarshal(f.Result, &resumed) != nil || len(resumed.OpenRequests) != 1 || resumed.OpenRequests[0].ID != o.srq {
			t.Fatalf("client %d resume = %s, want its open approval %s", i, f.Result, o.srq)
		}
		answer := map[string]any{"jsonrpc": "2.0", "id": o.srq, "result": map[string]any{"decision": "approve"}}
		q.send(answer)
		q.send(answer)
		waitOperation(t, q, o.opID, "succeeded")
		q.call(50, "document.get", map[string]any{"document_id": o.doc})
		var info struct {
			EntityCount int `json:"entity_count"`
			Revision    int `json:"revision"`
		}
		if f := q.response(50); json.Unmarshal(f.Result, &info) != nil || info.EntityCount != 0 || info.Revision != 3 {
			t.Errorf("client %d document = %s, want the delete applied once (no entities, revision 3)", i, f.Result)
		}
	}
}

// waitOperation polls operations.get until the operation leaves running.
func waitOperation(t *testing.T, p *peer, opID, want string) {
	t.Helper()
	var op struct {
		Status string `json:"status"`
	}
	deadline := time.Now().Add(20 * time.Second)
	for i := 1000; time.Now().Before(deadline); i++ {
		p.call(i, "operations.get", map[string]any{"operation_id": opID})
		f := p.response(i)
		if f.Error == nil && json.Unmarshal(f.Result, &op) == nil && op.Status != "running" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if op.Status != want {
		t.Fatalf("operation %s = %q, want %s", opID, op.Status, want)
	}
}

// TestLinkCut: the gateway↔engine link is sliced into tiny writes, then
// reset while a batch waits on the client. The client never sees success for
// the unacknowledged batch: it gets 5003 with the operation id, resumes, and
// operations.get resolves it.
func TestLinkCut(t *testing.T) {
	e := proctest.StartEngine(t, "127.0.0.1:0", "memory:")
	link := startProxy(t, e.Addr)
	g := proctest.StartGateway(t, "127.0.0.1:0", link.addr())
	link.setSlice(true)
	p := newPeer(t, g.Addr)
	s, doc := interactiveSession(t, p) // every frame crossed the link in slices
	link.setSlice(false)

	p.call(10, "cad.batch", map[string]any{
		"session_id": s.SessionID, "document_id": doc, "operation_id": "op-cut",
		"steps": []any{
			map[string]any{"tool": "point_pick", "args": map[string]any{"prompt": "where?"}, "bind": "p"},
			map[string]any{"tool": "entity_create_circle", "args": map[string]any{"cx": "$p.x", "cy": "$p.y", "radius": 1}},
		},
	})
	pick := p.request("pick.point")
	link.reset()
	f := p.response(10)
	var data struct {
		OperationID string `json:"operation_id"`
	}
	if f.Error == nil || f.Error.Code != 5003 || json.Unmarshal(f.Error.Data, &data) != nil || data.OperationID != "op-cut" {
		t.Fatalf("cad.batch across a cut link = %+v, want 5003 with operation_id op-cut", describe(response{Result: f.Result, Error: f.Error}))
	}
	// Resume over the restored link and answer the pick there.
	p.call(11, "session.resume", map[string]any{"session_id": s.SessionID, "resume_token": s.ResumeToken})
	var resumed struct {
		OpenRequests []struct{ ID string } `json:"open_requests"`
	}
	var srq string
	json.Unmarshal(pick.ID, &srq)
	if r := p.response(11); r.Error != nil || json.Unmarshal(r.Result, &resumed) != nil || len(resumed.OpenRequests) != 1 || resumed.OpenRequests[0].ID != srq {
		t.Fatalf("resume after the cut = %+v, want the open pick %s", r, srq)
	}
	p.send(map[string]any{"jsonrpc": "2.0", "id": srq, "result": map[string]any{"x": 4, "y": 2}})
	waitOperation(t, p, "op-cut", "succeeded")
	p.call(12, "document.get", map[string]any{"document_id": doc})
	var info struct {
		EntityCount int `json:"entity_count"`
	}
	if r := p.response(12); json.Unmarshal(r.Result, &info) != nil || info.EntityCount != 3 {
		t.Errorf("document after the resolved batch = %s, want its circle added once (3 entities)", r.Result)
	}
}

// TestLinkStall: the gateway↔engine link stops forwarding (no reset) while a
// batch waits on the client. Keepalive pings go unanswered, the gateway
// declares the link dead, and the client gets 5003 with the operation id;
// once the link works again it resumes and finishes the batch.
func TestLinkStall(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for keepalive (about 15 s)")
	}
	e := proctest.StartEngine(t, "127.0.0.1:0", "memory:")
	link := startProxy(t, e.Addr)
	g := proctest.StartGateway(t, "127.0.0.1:0", link.addr())
	p := newPeer(t, g.Addr)
	s, doc := interactiveSession(t, p)
	p.call(10, "cad.batch", map[string]any{
		"session_id": s.SessionID, "document_id": doc, "operation_id": "op-stall",
		"steps": []any{map[string]any{"tool": "point_pick", "args": map[string]any{"prompt": "where?"}}},
	})
	pick := p.request("pick.point")
	link.stall()
	f := p.response(10) // within keepalive time + timeout
	var data struct {
		OperationID string `json:"operation_id"`
	}
	if f.Error == nil || f.Error.Code != 5003 || json.Unmarshal(f.Error.Data, &data) != nil || data.OperationID != "op-stall" {
		t.Fatalf("cad.batch across a stalled link = %+v %s, want 5003 with operation_id op-stall", f.Error, f.Result)
	}
	link.unstall()
	link.reset()
	var srq string
	json.Unmarshal(pick.ID, &srq)
	p.call(11, "session.resume", map[string]any{"session_id": s.SessionID, "resume_token": s.ResumeToken})
	if r := p.response(11); r.Error != nil || !strings.Contains(string(r.Result), srq) {
		t.Fatalf("resume after the stall = %+v, want the open pick %s", r, srq)
	}
	p.send(map[string]any{"jsonrpc": "2.0", "id": srq, "result": map[string]any{"x": 1, "y": 2}})
	waitOperation(t, p, "op-stall", "succeeded")
}

// awaitEngine calls document.get on doc through c (ids after id) until it
// succeeds, as it does once a restarted engine serves again, and returns
// the last id used.
func awaitEngine(t *testing.T, c client, id int, doc string) int {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		id++
		resp := call(t, c, id, "document.get", map[string]any{"document_id": doc})
		if resp.Error == nil {
			return id
		}
		if time.Now().After(deadline) {
			t.Fatalf("engine did not come back: %+v", describe(resp))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
