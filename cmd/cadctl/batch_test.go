package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

const deleteBatch = `{"steps":[{"tool":"entity_delete_many","args":{"layers":["scratch"]}}]}`

var approvalRequest = map[string]any{
	"session_id": "ses-1", "operation_id": "op-x/0", "tool": "entity_delete_many",
	"summary": "Delete 2 entities on layer scratch", "affected": map[string]any{"count": 2, "handles": []string{"64", "65"}},
}

// batchOpID is the operation_id cadctl sent with cad.batch.
func batchOpID(t *testing.T, params json.RawMessage) string {
	t.Helper()
	var p struct {
		OperationID string `json:"operation_id"`
		SessionID   string `json:"session_id"`
		DocumentID  string `json:"document_id"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.OperationID == "" || p.SessionID != "ses-1" || p.DocumentID == "" {
		t.Fatalf("cad.batch params %s: want operation_id, session_id ses-1 and a document_id", params)
	}
	return p.OperationID
}

func TestBatchApprovalAnsweredAtPrompt(t *testing.T) {
	decisions := make(chan string, 1)
	g := newFakeGateway(t, sessionMethods(func(ctx context.Context, fc *fakeConn, req *jsonrpc.Request) (any, error) {
		if req.Method != "cad.batch" {
			return nil, jsonrpc.ErrNotHandled
		}
		opID := batchOpID(t, req.Params)
		fc.event(t, 1, "batch.progress", map[string]any{"operation_id": opID, "step": 0, "total": 1})
		var answer struct {
			Decision string `json:"decision"`
		}
		if err := fc.rpc.Call(ctx, jsonrpc.StringID("srq-1"), "approval", approvalRequest, &answer); err != nil {
			return nil, err
		}
		decisions <- answer.Decision
		fc.event(t, 2, "batch.progress", map[string]any{"operation_id": opID, "step": 1, "total": 1})
		return batchResultFor(opID, "completed"), nil
	}))
	term := newTerminal(t)
	go func() {
		term.waitOutput(t, "Approve? [y/N]", 1)
		term.typeLine(t, "y")
	}()
	code, stdout := runCadctl(t, g, term, true, "batch", writeBatch(t, "cleanup.json", deleteBatch))
	if code != exitOK {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, term.out.String())
	}
	if d := <-decisions; d != "approve" {
		t.Errorf("decision = %q, want approve", d)
	}
	out := term.out.String()
	for _, want := range []string{"created document doc-1", "viewer: " + g.srv.URL + "/viewer/?document=doc-1#session=ses-1&token=rt-1", "approval: entity_delete_many: Delete 2 entities on layer scratch (2 entities: 64 65)", "progress 1/1"} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stdout, "completed") || !strings.Contains(stdout, "entity_delete_many") {
		t.Errorf("summary:\n%s\nwant the completed step", stdout)
	}
	create := g.callsOf("session.create")
	if len(create) != 1 {
		t.Fatalf("session.create calls = %d, want 1", len(create))
	}
	var sp struct {
		Capabilities struct {
			ServerRequests []string `json:"server_requests"`
		} `json:"capabilities"`
		ApprovalPolicy string `json:"approval_policy"`
	}
	json.Unmarshal(create[0].params, &sp)
	if !slices.Equal(sp.Capabilities.ServerRequests, []string{"approval", "pick.point", "pick.entities"}) || sp.ApprovalPolicy != "destructive" {
		t.Errorf("session.create params %s: want all three server requests and policy destructive", create[0].params)
	}
	if n := len(g.callsOf("session.close")); n != 1 {
		t.Errorf("session.close calls = %d, want 1", n)
	}
}

func TestBatchUnattendedDecisions(t *testing.T) {
	for _, tc := range []struct {
		flag, want string
	}{{"--yes", "approve"}, {"--no", "deny"}} {
		t.Run(tc.flag, func(t *testing.T) {
			decisions := make(chan string, 1)
			g := newFakeGateway(t, sessionMethods(func(ctx context.Context, fc *fakeConn, req *jsonrpc.Request) (any, error) {
				opID := batchOpID(t, req.Params)
				var answer struct {
					Decision string `json:"decision"`
				}
				if err := fc.rpc.Call(ctx, jsonrpc.StringID("srq-1"), "approval", approvalRequest, &answer); err != nil {
					return nil, err
				}
				decisions <- answer.Decision
				return batchResultFor(opID, "completed"), nil
			}))
			term := newTerminal(t)
			code, _ := runCadctl(t, g, term, false, "batch", writeBatch(t, "b.json", deleteBatch), tc.flag, "--document", "doc-7")
			if code != exitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, term.out.String())
			}
			if d := <-decisions; d != tc.want {
				t.Errorf("decision = %q, want %q", d, tc.want)
			}
			if strings.Contains(term.out.String(), "Approve?") {
				t.Errorf("asked although %s was given:\n%s", tc.flag, term.out.String())
			}
			var sp struct {
				Capabilities struct {
					ServerRequests []string `json:"server_requests"`
				} `json:"capabilities"`
				ApprovalPolicy string `json:"approval_policy"`
			}
			json.Unmarshal(g.callsOf("session.create")[0].params, &sp)
			if !slices.Equal(sp.Capabilities.ServerRequests, []string{"approval"}) || sp.ApprovalPolicy != "destructive" {
				t.Errorf("session.create = %+v, want approval only (no terminal to pick at), policy destructive", sp)
			}
			var bp struct {
				DocumentID string `json:"document_id"`
			}
			json.Unmarshal(g.callsOf("cad.batch")[0].params, &bp)
			if bp.DocumentID != "doc-7" || len(g.callsOf("document.create")) != 0 {
				t.Errorf("document = %q (created %d), want doc-7 from --document", bp.DocumentID, len(g.callsOf("document.create")))
			}
		})
	}
}

// TestBatchWithoutTerminal checks that with no terminal and no --yes/--no
// the session declares no server requests and policy none.
func TestBatchWithoutTerminal(t *testing.T) {
	g := newFakeGateway(t, sessionMethods(func(ctx context.Context, fc *fakeConn, req *jsonrpc.Request) (any, error) {
		return batchResultFor(batchOpID(t, req.Params), "completed"), nil
	}))
	code, _ := runCadctl(t, g, newTerminal(t), false, "batch", writeBatch(t, "b.json", deleteBatch))
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var sp struct {
		Capabilities struct {
			ServerRequests []string `json:"server_requests"`
		} `json:"capabilities"`
		ApprovalPolicy string `json:"approval_policy"`
	}
	json.Unmarshal(g.callsOf("session.create")[0].params, &sp)
	if len(sp.Capabilities.ServerRequests) != 0 || sp.ApprovalPolicy != "none" {
		t.Errorf("session.create = %+v, want no server requests and policy none", sp)
	}
}

// TestBatchResumesMidPrompt drops the connection while the approval prompt
// is on screen: cadctl reconnects, resumes the session from the last event
// it saw, sends the answer typed after the drop as a response frame with
// the request's id on the new connection, and sends cad.batch again with
// the same operation id — without asking twice.
func TestBatchResumesMidPrompt(t *testing.T) {
	var mu sync.Mutex // guards opIDs
	var opIDs []string
	resumed := make(chan json.RawMessage, 1)
	answers := make(chan *jsonrpc.Response, 1)
	var g *fakeGateway
	g = newFakeGateway(t, sessionMethods(func(ctx context.Context, fc *fakeConn, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case "session.resume":
			resumed <- req.Params
			mu.Lock()
			first := opIDs[0]
			mu.Unlock()
			return map[string]any{
				"session": session, "latest_seq": 2, "truncated": false, "epoch": "ep-1",
				"events":        []any{map[string]any{"session_id": "ses-1", "seq": 2, "type": "batch.progress", "payload": map[string]any{"operation_id": first, "step": 1, "total": 2}}},
				"open_requests": []any{map[string]any{"id": "srq-1", "method": "approval", "params": approvalRequest}},
			}, nil
		case "cad.batch":
			opID := batchOpID(t, req.Params)
			mu.Lock()
			opIDs = append(opIDs, opID)
			mu.Unlock()
			if fc.n == 1 {
				fc.event(t, 1, "batch.progress", map[string]any{"operation_id": opID, "step": 0, "total": 2})
				// The answer never comes on this connection: it drops.
				fc.rpc.Call(ctx, jsonrpc.StringID("srq-1"), "approval", approvalRequest, nil)
				return nil, ctx.Err()
			}
			// Like the engine, finish the batch once the approval came.
			select {
			case resp := <-g.unmatched:
				answers <- resp
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return batchResultFor(opID, "completed"), nil
		}
		return nil, jsonrpc.ErrNotHandled
	}))
	term := newTerminal(t)
	go func() {
		if !term.waitOutput(t, "Approve? [y/N]", 1) {
			return
		}
		g.conn(1).ws.CloseNow() // the connection drops mid-prompt
		if term.waitOutput(t, "reconnected", 1) {
			term.typeLine(t, "y")
		}
	}()
	code, stdout := runCadctl(t, g, term, true, "batch", writeBatch(t, "b.json", deleteBatch))
	if code != exitOK {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, term.out.String())
	}
	var rp struct {
		SessionID   string `json:"session_id"`
		ResumeToken string `json:"resume_token"`
		LastSeen    int64  `json:"last_seen"`
	}
	json.Unmarshal(<-resumed, &rp)
	if rp.SessionID != "ses-1" || rp.ResumeToken != "rt-1" || rp.LastSeen != 1 {
		t.Errorf("session.resume params = %+v, want ses-1, rt-1, last_seen 1", rp)
	}
	select {
	case resp := <-answers:
		if resp.ID != jsonrpc.StringID("srq-1") || string(resp.Result) != `{"decision":"approve"}` {
			t.Errorf("answer on the new connection = %v %s %v, want srq-1 approve", resp.ID, resp.Result, resp.Error)
		}
	default:
		t.Errorf("no answer to srq-1 reached the new connection")
	}
	if len(opIDs) != 2 || opIDs[0] != opIDs[1] {
		t.Errorf("cad.batch operation ids = %v, want the same one twice", opIDs)
	}
	if n := strings.Count(term.out.String(), "Approve?"); n != 1 {
		t.Errorf("asked %d times, want once:\n%s", n, term.out.String())
	}
}

// TestBatchResumeAsksForReplayedRequest checks a request first seen in the
// resume's open requests: it is asked, and answered on the new connection.
func TestBatchResumeAsksForReplayedRequest(t *testing.T) {
	answered := make(chan struct{})
	g := newFakeGateway(t, sessionMethods(func(ctx context.Context, fc *fakeConn, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case "session.resume":
			return map[string]any{
				"session": session, "latest_seq": 0, "truncated": true, "epoch": "ep-2",
				"open_requests": []any{map[string]any{"id": "srq-9", "method": "approval", "params": approvalRequest}},
			}, nil
		case "cad.batch":
			opID := batchOpID(t, req.Params)
			if fc.n == 1 {
				fc.ws.CloseNow()
				return nil, ctx.Err()
			}
			select {
			case <-answered:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return batchResultFor(opID, "completed"), nil
		}
		return nil, jsonrpc.ErrNotHandled
	}))
	term := newTerminal(t)
	go func() {
		term.waitOutput(t, "Approve? [y/N]", 1)
		term.typeLine(t, "n")
		resp := <-g.unmatched
		if resp.ID != jsonrpc.StringID("srq-9") || string(resp.Result) != `{"decision":"deny"}` {
			t.Errorf("answer = %v %s, want srq-9 deny", resp.ID, resp.Result)
		}
		close(answered)
	}()
	code, _ := runCadctl(t, g, term, true, "batch", writeBatch(t, "b.json", deleteBatch))
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, term.out.String())
	}
	out := term.out.String()
	for _, want := range []string{"the engine restarted", "some events were lost"} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
}

// TestWithdrawnPromptDoesNotTakeTheNextAnswer checks request.cancel: the
// prompt on screen is withdrawn, and the next question gets the next line.
func TestWithdrawnPromptDoesNotTakeTheNextAnswer(t *testing.T) {
	second := make(chan string, 1)
	asked := make(chan struct{})
	g := newFakeGateway(t, sessionMethods(func(ctx context.Context, fc *fakeConn, req *jsonrpc.Request) (any, error) {
		opID := batchOpID(t, req.Params)
		first, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- fc.rpc.Call(first, jsonrpc.StringID("srq-1"), "approval", approvalRequest, nil) }()
		<-asked
		fc.rpc.Notify(ctx, "request.cancel", map[string]any{"session_id": "ses-1", "id": "srq-1", "method": "approval", "reason": "timeout"})
		cancel()
		<-done
		var answer struct {
			Decision string `json:"decision"`
		}
		if err := fc.rpc.Call(ctx, jsonrpc.StringID("srq-2"), "approval", approvalRequest, &answer); err != nil {
			return nil, err
		}
		second <- answer.Decision
		return batchResultFor(opID, "completed"), nil
	}))
	term := newTerminal(t)
	go func() {
		term.waitOutput(t, "Approve? [y/N]", 1)
		close(asked)
		term.waitOutput(t, "withdrawn by the engine: timeout", 1)
		term.waitOutput(t, "Approve? [y/N]", 2)
		term.typeLine(t, "y")
	}()
	code, _ := runCadctl(t, g, term, true, "batch", writeBatch(t, "b.json", deleteBatch))
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, term.out.String())
	}
	if d := <-second; d != "approve" {
		t.Errorf("second decision = %q, want approve", d)
	}
}

func TestPicksAtPrompt(t *testing.T) {
	type picks struct {
		Point    map[string]float64
		Entities []string
	}
	got := make(chan picks, 1)
	g := newFakeGateway(t, sessionMethods(func(ctx context.Context, fc *fakeConn, req *jsonrpc.Request) (any, error) {
		opID := batchOpID(t, req.Params)
		var p picks
		if err := fc.rpc.Call(ctx, jsonrpc.StringID("srq-1"), "pick.point", map[string]any{"session_id": "ses-1", "prompt": "Centre of the hole", "base": map[string]any{"x": 1, "y": 2}}, &p.Point); err != nil {
			return nil, err
		}
		var ents struct {
			Handles []string `json:"handles"`
		}
		if err := fc.rpc.Call(ctx, jsonrpc.StringID("srq-2"), "pick.entities", map[string]any{"session_id": "ses-1", "prompt": "Edges to keep", "max": 2}, &ents); err != nil {
			return nil, err
		}
		p.Entities = ents.Handles
		got <- p
		return batchResultFor(opID, "completed"), nil
	}))
	term := newTerminal(t)
	go func() {
		term.waitOutput(t, "x,y> ", 1)
		term.typeLine(t, "three, four")
		term.waitOutput(t, "type two numbers", 1)
		term.typeLine(t, "3, 4.5")
		term.waitOutput(t, "handles> ", 1)
		term.typeLine(t, "9a 9B 9C")
		term.waitOutput(t, "at most 2", 1)
		term.typeLine(t, "9a,9B")
	}()
	code, _ := runCadctl(t, g, term, true, "batch", writeBatch(t, "b.json", deleteBatch))
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, term.out.String())
	}
	p := <-got
	if p.Point["x"] != 3 || p.Point["y"] != 4.5 || !slices.Equal(p.Entities, []string{"9A", "9B"}) {
		t.Errorf("picks = %+v, want (3, 4.5) and [9A 9B]", p)
	}
	if !strings.Contains(term.out.String(), "pick.point: Centre of the hole (from 1,2)") {
		t.Errorf("prompt missing:\n%s", term.out.String())
	}
}

// TestBatchWaitsWhileBusy checks that a batch whose operation is still
// running elsewhere is asked again until its result can be replayed.
func TestBatchWaitsWhileBusy(t *testing.T) {
	var calls atomic.Int32
	g := newFakeGateway(t, sessionMethods(func(ctx context.Context, fc *fakeConn, req *jsonrpc.Request) (any, error) {
		opID := batchOpID(t, req.Params)
		var p struct {
			DryRun  bool   `json:"dry_run"`
			OnError string `json:"on_error"`
		}
		json.Unmarshal(req.Params, &p)
		if !p.DryRun || p.OnError != "rollback" {
			t.Errorf("params %s: want dry_run and on_error rollback from the flags", req.Params)
		}
		if calls.Add(1) < 3 {
			return map[string]any{
				"ok": false, "status": "refused", "operation_id": opID,
				"counts":   map[string]any{"executed": 0, "succeeded": 0, "failed": 0, "skipped": 0},
				"revision": map[string]any{"checked": 0, "after": 0}, "replayed": false,
				"atomicity": map[string]any{"mode": "stop", "guarantee": "undo_log", "transaction": false, "rolled_back": false, "verified": false, "note": ""},
				"error":     map[string]any{"kind": "busy", "message": "still running", "retry_after_ms": 1},
			}, nil
		}
		res := batchResultFor(opID, "completed")
		res["replayed"] = true
		return res, nil
	}))
	code, stdout := runCadctl(t, g, newTerminal(t), false, "batch", writeBatch(t, "b.json", deleteBatch), "--dry-run", "--on-error", "rollback", "--operation-id", "op-fixed", "--json")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	sent := g.callsOf("cad.batch")
	if len(sent) != 3 {
		t.Fatalf("cad.batch sent %d times, want 3", len(sent))
	}
	for _, c := range sent {
		if id := batchOpID(t, c.params); id != "op-fixed" {
			t.Errorf("operation id = %q, want op-fixed", id)
		}
	}
	var res enginev1.ExecuteBatchResponse
	if err := contract.Unmarshal([]byte(stdout), &res); err != nil || !res.GetReplayed() || res.GetStatus() != enginev1.BatchStatus_BATCH_STATUS_COMPLETED {
		t.Errorf("--json output %q: want the replayed result (%v)", stdout, err)
	}
}

func TestBatchUsageErrors(t *testing.T) {
	g := newFakeGateway(t, nil)
	file := writeBatch(t, "b.json", deleteBatch)
	for _, args := range [][]string{
		{"batch"},
		{"batch", file, file},
		{"batch", file, "--yes", "--no"},
		{"batch", file, "--on-error", "sometimes"},
		{"frobnicate"},
	} {
		if code, _ := runCadctl(t, g, newTerminal(t), false, args...); code != exitUsage {
			t.Errorf("cadctl %v: exit %d, want %d", args, code, exitUsage)
		}
	}
	bad := writeBatch(t, "bad.json", `{"steps": [`)
	term := newTerminal(t)
	if code, _ := runCadctl(t, g, term, false, "batch", bad); code != exitFailure || !strings.Contains(term.out.String(), "not a JSON object") {
		t.Errorf("malformed file: exit %d, stderr %q; want %d and a message", code, term.out.String(), exitFailure)
	}
}

// TestBatchInvalidParams shows a 4000 with its path.
func TestBatchInvalidParams(t *testing.T) {
	g := newFakeGateway(t, sessionMethods(func(ctx context.Context, fc *fakeConn, req *jsonrpc.Request) (any, error) {
		return nil, jsonrpc.NewError(4000, "invalid params: radius must be > 0").WithData(map[string]any{"path": "/steps/0/args/radius", "reason": "out_of_range"})
	}))
	term := newTerminal(t)
	code, _ := runCadctl(t, g, term, false, "batch", writeBatch(t, "b.json", deleteBatch))
	want := "error 4000: invalid params: radius must be > 0 (at /steps/0/args/radius: out_of_range)"
	if code != exitFailure || !strings.Contains(term.out.String(), want) {
		t.Errorf("exit %d, stderr %q; want %d and %q", code, term.out.String(), exitFailure, want)
	}
}
