package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/proto"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// fakeClient is a Client whose answers come from a function; it records
// the requests it was asked.
type fakeClient struct {
	answer func(ctx context.Context, req *enginev1.ServerRequest) (*enginev1.ServerRequestAnswer, error)

	mu   sync.Mutex // guards asks
	asks []*enginev1.ServerRequest
}

func (c *fakeClient) Ask(ctx context.Context, req *enginev1.ServerRequest) (*enginev1.ServerRequestAnswer, error) {
	c.mu.Lock()
	c.asks = append(c.asks, req)
	c.mu.Unlock()
	return c.answer(ctx, req)
}

func (c *fakeClient) requests() []*enginev1.ServerRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*enginev1.ServerRequest(nil), c.asks...)
}

func decide(d enginev1.Decision) *fakeClient {
	return &fakeClient{answer: func(context.Context, *enginev1.ServerRequest) (*enginev1.ServerRequestAnswer, error) {
		return &enginev1.ServerRequestAnswer{Result: &enginev1.ServerRequestAnswer_Approval{Approval: &enginev1.ApprovalResult{Decision: d}}}, nil
	}}
}

func pointAnswer(x, y float64) *enginev1.ServerRequestAnswer {
	return &enginev1.ServerRequestAnswer{Result: &enginev1.ServerRequestAnswer_PickPoint{PickPoint: &enginev1.PickPointResult{X: x, Y: y}}}
}

func picks(x, y float64) *fakeClient {
	return &fakeClient{answer: func(context.Context, *enginev1.ServerRequest) (*enginev1.ServerRequestAnswer, error) {
		return pointAnswer(x, y), nil
	}}
}

func destructive(c engine.Client) engine.Caller {
	return engine.Caller{Principal: "tester", Client: c, ApprovalPolicy: enginev1.ApprovalPolicy_APPROVAL_POLICY_DESTRUCTIVE}
}

func TestApproval(t *testing.T) {
	setup := func(t *testing.T) (*fixture, []string) {
		f := newFixture(t)
		f.ok(enginev1.ToolLayerCreate, obj{"name": "tmp"})
		var hs []string
		for i := range 3 {
			hs = append(hs, f.handle(enginev1.ToolEntityCreatePoint, obj{"x": i, "y": 0, "layer": "tmp"}))
		}
		return f, hs
	}
	del := st(enginev1.ToolEntityDeleteMany, obj{"layers": []any{"tmp"}})

	t.Run("approve", func(t *testing.T) {
		f, hs := setup(t)
		c := decide(enginev1.Decision_DECISION_APPROVE)
		resp := runBatch(t, f.e, destructive(c), f.batchReq(st(enginev1.ToolEntityCreatePoint, obj{"x": 9, "y": 9}), del))
		if !resp.Ok || f.info().EntityCount != 1 {
			t.Fatalf("approved delete = %v %v, %d entities left; want ok, 1", resp.Status, resp.Results, f.info().EntityCount)
		}
		asks := c.requests()
		if len(asks) != 1 || asks[0].Method != "approval" {
			t.Fatalf("requests = %v, want one approval (create is not destructive)", asks)
		}
		p := asks[0].GetApproval()
		if p.GetOperationId() != resp.OperationId+".1" || p.GetTool() != enginev1.ToolEntityDeleteMany || p.GetSummary() == "" ||
			p.GetAffected().GetCount() != 3 || strings.Join(p.GetAffected().GetHandles(), ",") != strings.Join(hs, ",") {
			t.Errorf("approval params = %v, want step operation id, tool, a summary and the 3 points %v", p, hs)
		}
	})
	t.Run("deny", func(t *testing.T) {
		f, _ := setup(t)
		before := f.info()
		resp := runBatch(t, f.e, destructive(decide(enginev1.Decision_DECISION_DENY)), f.batchReq(del))
		if resp.Ok || resp.Results[0].Error.GetKind() != kindDenied {
			t.Fatalf("denied delete = %v, want step error denied", resp.Results[0])
		}
		if after := f.info(); after.EntityCount != 3 || after.Revision != before.Revision {
			t.Errorf("a denied step changed the document: %v → %v", before, after)
		}
		// tools.call asks the same way.
		resp2, err := f.e.CallTool(context.Background(), destructive(decide(enginev1.Decision_DECISION_DENY)), &enginev1.CallToolRequest{
			DocumentId: &f.doc, Tool: enginev1.ToolLayerDelete, Args: mustStruct(t, obj{"name": "tmp"}),
		})
		if err != nil || resp2.Ok || resp2.Error.GetKind() != kindDenied {
			t.Errorf("tools.call layer_delete denied = %v, %v; want error denied", resp2, err)
		}
	})
	t.Run("policy none", func(t *testing.T) {
		f, _ := setup(t)
		c := decide(enginev1.Decision_DECISION_DENY)
		resp := runBatch(t, f.e, engine.Caller{Principal: "tester", Client: c, ApprovalPolicy: enginev1.ApprovalPolicy_APPROVAL_POLICY_NONE}, f.batchReq(del))
		if !resp.Ok || len(c.requests()) != 0 {
			t.Errorf("policy none = %v, %d requests; want ok without asking", resp.Status, len(c.requests()))
		}
	})
	t.Run("no client", func(t *testing.T) {
		f, _ := setup(t)
		resp := runBatch(t, f.e, destructive(nil), f.batchReq(del))
		if e := resp.Results[0].Error; e.GetKind() != kindUnsupported || e.GetCapability() != "server_request:approval" {
			t.Errorf("approval without a client = %v, want unsupported server_request:approval", e)
		}
	})
}

func TestPickPoint(t *testing.T) {
	f := newFixture(t)
	c := picks(3, 4)
	req := f.batchReq(
		st(enginev1.ToolPointPick, obj{"prompt": "centre?", "base": obj{"x": 1, "y": 1}}, "p"),
		st(enginev1.ToolEntityCreateCircle, obj{"cx": "$p.x", "cy": "$p.y", "radius": 1}),
	)
	resp := runBatch(t, f.e, engine.Caller{Principal: "tester", Client: c}, req)
	if !resp.Ok {
		t.Fatalf("pick batch = %v", resp.Results)
	}
	if got := pt(f.get(resp.Results[1].GetHandle())["center"]); !nearPt(got, [2]float64{3, 4}) {
		t.Errorf("circle centre = %v, want the picked (3, 4)", got)
	}
	asks := c.requests()
	if len(asks) != 1 || asks[0].Method != "pick.point" || asks[0].GetPickPoint().GetPrompt() != "centre?" || asks[0].GetPickPoint().GetBase().GetX() != 1 {
		t.Errorf("requests = %v, want one pick.point with prompt and base", asks)
	}
	if f.info().Revision != 1 {
		t.Errorf("revision = %d, want 1 (point_pick is read-only)", f.info().Revision)
	}

	// tools.call works the same way.
	call, err := f.e.CallTool(context.Background(), engine.Caller{Principal: "tester", Client: picks(5, 6)}, &enginev1.CallToolRequest{
		DocumentId: &f.doc, Tool: enginev1.ToolPointPick, Args: mustStruct(t, obj{"prompt": "p"}),
	})
	if err != nil || !call.Ok || resultObj(call.ResultJson)["x"] != 5.0 || resultObj(call.ResultJson)["y"] != 6.0 {
		t.Errorf("tools.call point_pick = %v, %v; want {x: 5, y: 6}", call, err)
	}

	unsupportedBy := map[string]engine.Client{
		"no client": nil,
		"ErrUnsupported": &fakeClient{answer: func(context.Context, *enginev1.ServerRequest) (*enginev1.ServerRequestAnswer, error) {
			return nil, fmt.Errorf("session s1: %w", engine.ErrUnsupported)
		}},
		"-32601": &fakeClient{answer: func(context.Context, *enginev1.ServerRequest) (*enginev1.ServerRequestAnswer, error) {
			return &enginev1.ServerRequestAnswer{Result: &enginev1.ServerRequestAnswer_Error{Error: &status.Status{Code: -32601, Message: "method not found"}}}, nil
		}},
	}
	for name, client := range unsupportedBy {
		t.Run(name, func(t *testing.T) {
			resp := runBatch(t, f.e, engine.Caller{Principal: "tester", Client: client}, req)
			if e := resp.Results[0].Error; e.GetKind() != kindUnsupported || e.GetCapability() != "server_request:pick.point" || statuses(resp) != "e-" {
				t.Errorf("pick with %s = %s %v, want unsupported server_request:pick.point and the rest skipped", name, statuses(resp), e)
			}
		})
	}
}

func TestEntityPick(t *testing.T) {
	f := newFixture(t)
	h := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 1})
	l := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 0})
	answer := func(hs ...string) *fakeClient {
		return &fakeClient{answer: func(context.Context, *enginev1.ServerRequest) (*enginev1.ServerRequestAnswer, error) {
			return &enginev1.ServerRequestAnswer{Result: &enginev1.ServerRequestAnswer_PickEntities{PickEntities: &enginev1.PickEntitiesResult{Handles: hs}}}, nil
		}}
	}
	req := f.batchReq(
		st(enginev1.ToolEntityPick, obj{"prompt": "which?", "types": []any{"circle"}, "max": 1}, "e"),
		st(enginev1.ToolEntityMove, obj{"handle": "$e", "dx": 2, "dy": 0}),
	)
	c := answer(strings.ToLower(h))
	resp := runBatch(t, f.e, engine.Caller{Principal: "tester", Client: c}, req)
	if !resp.Ok || resp.Results[1].GetHandle() != h || !nearPt(pt(f.get(h)["center"]), [2]float64{2, 0}) {
		t.Fatalf("pick and move = %v", resp.Results)
	}
	p := c.requests()[0].GetPickEntities()
	if c.requests()[0].Method != "pick.entities" || p.GetPrompt() != "which?" || p.GetMax() != 1 || len(p.GetFilter()) != 1 || p.GetFilter()[0] != enginev1.EntityType_ENTITY_TYPE_CIRCLE {
		t.Errorf("pick.entities params = %v", p)
	}
	for name, client := range map[string]*fakeClient{"unknown handle": answer("FFFF"), "wrong type": answer(l), "too many": answer(h, h)} {
		resp := runBatch(t, f.e, engine.Caller{Principal: "tester", Client: client}, req)
		if resp.Results[0].Error.GetKind() != kindFailed {
			t.Errorf("pick answer %s = %v, want failed", name, resp.Results[0])
		}
	}
}

func TestInterleavedWrites(t *testing.T) {
	for _, rollback := range []bool{false, true} {
		t.Run(fmt.Sprintf("rollback=%v", rollback), func(t *testing.T) {
			var mu sync.Mutex
			var commits []string
			e, err := engine.New(memory.New(), engine.Options{OnCommit: func(doc string, rev int64, op string) {
				mu.Lock()
				defer mu.Unlock()
				commits = append(commits, fmt.Sprintf("%d:%s", rev, op))
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			info, _ := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{})
			f := &fixture{t: t, e: e, doc: info.DocumentId}
			before := f.info()

			// While the batch waits on its client, another writer moves the
			// batch's first entity and creates one of its own.
			var other []string
			var otherPoint string
			c := &fakeClient{answer: func(ctx context.Context, req *enginev1.ServerRequest) (*enginev1.ServerRequestAnswer, error) {
				mv := f.call(enginev1.ToolEntityMove, obj{"handle": "100", "dx": 0, "dy": 5})
				cr := f.call(enginev1.ToolEntityCreatePoint, obj{"x": 7, "y": 7})
				if !mv.Ok || !cr.Ok {
					t.Errorf("interleaved writes failed: %v %v", mv.Error, cr.Error)
				}
				other = []string{mv.OperationId, cr.OperationId}
				otherPoint = resultObj(cr.ResultJson)["handle"].(string)
				return pointAnswer(1, 1), nil
			}}
			req := f.batchReq(
				st(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0}),
				st(enginev1.ToolPointPick, obj{"prompt": "p"}),
				st(enginev1.ToolEntityCreatePoint, obj{"x": 1, "y": 0}),
			)
			if rollback {
				req.Steps = append(req.Steps, st(enginev1.ToolEntityMove, obj{"handle": "FFFF", "dx": 1, "dy": 0}))
				req.OnError = enginev1.OnError_ON_ERROR_ROLLBACK.Enum()
			}
			resp := runBatch(t, e, engine.Caller{Principal: "tester", Client: c}, req)
			if got := strings.Join(resp.Revision.GetInterleaved(), " "); got != strings.Join(other, " ") {
				t.Errorf("interleaved = %q, want the other writer's operations %q", got, strings.Join(other, " "))
			}
			after := f.info()
			if !rollback {
				// 1 (step 0, committed before the wait), 2 and 3 (the others), 4 (step 2).
				if !resp.Ok || after.Revision != 4 || resp.Revision.GetAfter() != 4 || after.EntityCount != 3 {
					t.Errorf("batch = %v, revision %d (reported %d), %d entities; want ok, 4, 3", resp.Status, after.Revision, resp.Revision.GetAfter(), after.EntityCount)
				}
				mu.Lock()
				want := fmt.Sprintf("1:%s 2:%s 3:%s 4:%s", resp.OperationId, other[0], other[1], resp.OperationId)
				if got := strings.Join(commits, " "); got != want {
					t.Errorf("OnCommit calls = %s, want %s", got, want)
				}
				mu.Unlock()
				return
			}
			// The rollback undoes the batch's own steps only, newest first:
			// the other writer's point stays; the entity both touched is
			// back to the batch's before-state (gone).
			if resp.Status != statusRolledBack || after.EntityCount != 1 || f.call(enginev1.ToolEntityGet, obj{"handle": otherPoint}).Ok != true {
				t.Errorf("rolled back = %v with %d entities; want only the other writer's point %s", resp.Status, after.EntityCount, otherPoint)
			}
			if got := f.call(enginev1.ToolEntityGet, obj{"handle": "100"}); got.Ok {
				t.Errorf("entity 100 (created by the batch, moved by the other) = %v, want it undone", resultObj(got.ResultJson))
			}
			a := resp.Atomicity
			if a.Verified || !a.RolledBack || strings.Join(a.Undone, " ") != resp.OperationId+".2 "+resp.OperationId+".0" {
				t.Errorf("atomicity = %v, want rolled back, not verified (others changed the document), undone [.2 .0]", a)
			}
			// 1 committed at the wait, 2 and 3 the others; the rollback of
			// stored work is one more commit.
			if after.Revision != 4 || after.ContentHash == before.ContentHash {
				t.Errorf("revision after rollback = %d, want 4", after.Revision)
			}
		})
	}
}

func TestBusyWhileWaiting(t *testing.T) {
	f := newFixture(t)
	asked := make(chan struct{})
	release := make(chan struct{})
	c := &fakeClient{answer: func(ctx context.Context, _ *enginev1.ServerRequest) (*enginev1.ServerRequestAnswer, error) {
		close(asked)
		select {
		case <-release:
			return pointAnswer(1, 2), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}
	req := f.batchReq(
		st(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0}),
		st(enginev1.ToolPointPick, obj{"prompt": "p"}),
	)
	req.OperationId = ptr("op-busy")
	caller := engine.Caller{Principal: "tester", Client: c}
	done := make(chan *enginev1.ExecuteBatchResponse)
	go func() {
		resp, err := f.e.ExecuteBatch(context.Background(), caller, req)
		if err != nil {
			t.Errorf("ExecuteBatch: %v", err)
		}
		done <- resp
	}()
	<-asked

	busy := runBatch(t, f.e, caller, req)
	if e := busy.Error; busy.Status != statusRefused || e.GetKind() != enginev1.ErrorKind_ERROR_KIND_BUSY || e.GetRetryAfterMs() <= 0 {
		t.Errorf("retry while running = %v %v, want refused busy with retry_after_ms", busy.Status, e)
	}
	other := proto.Clone(req).(*enginev1.ExecuteBatchRequest)
	other.Steps = other.Steps[:1]
	if e := runBatch(t, f.e, caller, other).Error; e.GetKind() != enginev1.ErrorKind_ERROR_KIND_OPERATION_CONFLICT {
		t.Errorf("another request with the id while running = %v, want operation_conflict", e)
	}
	op, err := f.e.GetOperation(context.Background(), "tester", "op-busy")
	if err != nil || op.Status != enginev1.OperationStatus_OPERATION_STATUS_RUNNING || fmt.Sprint(op.CommittedSteps) != "[0]" || op.Result != nil {
		t.Errorf("operation while waiting = %v, %v; want running, committed [0], no result yet", op, err)
	}
	// Others may read the document meanwhile.
	if info := f.info(); info.Revision != 1 || info.EntityCount != 1 {
		t.Errorf("document while the batch waits = %v, want step 0 committed", info)
	}
	close(release)
	first := <-done
	if !first.Ok {
		t.Fatalf("first run = %v", first.Results)
	}
	again := runBatch(t, f.e, caller, req)
	if !again.Replayed || again.Status != first.Status {
		t.Errorf("retry after the run = replayed %v %v, want the recorded result", again.Replayed, again.Status)
	}
}

func TestCancelWhileWaiting(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	c := &fakeClient{answer: func(ctx context.Context, _ *enginev1.ServerRequest) (*enginev1.ServerRequestAnswer, error) {
		cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	req := f.batchReq(
		st(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0}),
		st(enginev1.ToolPointPick, obj{"prompt": "p"}),
		st(enginev1.ToolEntityCreatePoint, obj{"x": 1, "y": 0}),
	)
	req.OnError = enginev1.OnError_ON_ERROR_CONTINUE.Enum()
	resp, err := f.e.ExecuteBatch(ctx, engine.Caller{Principal: "tester", Client: c}, req)
	if err != nil {
		t.Fatal(err)
	}
	if statuses(resp) != "oe-" || resp.Results[1].Error.GetKind() != enginev1.ErrorKind_ERROR_KIND_CANCELLED || resp.Status != statusFailed {
		t.Errorf("cancelled while waiting = %v %s %v, want step 1 cancelled and the rest skipped even under continue", resp.Status, statuses(resp), resp.Results[1].Error)
	}
	op, err := f.e.GetOperation(context.Background(), "tester", resp.OperationId)
	if err != nil || op.Status != enginev1.OperationStatus_OPERATION_STATUS_FAILED || fmt.Sprint(op.CommittedSteps) != "[0]" {
		t.Errorf("operation = %v, %v; want failed with step 0 committed", op, err)
	}
}

func TestEvents(t *testing.T) {
	f := newFixture(t)
	var events []string
	caller := engine.Caller{Principal: "tester", Events: func(typ string, p proto.Message) {
		switch p := p.(type) {
		case *enginev1.BatchProgressPayload:
			events = append(events, fmt.Sprintf("%s %s %d/%d", typ, p.OperationId, p.Step, p.Total))
		case *enginev1.OperationFinishedPayload:
			events = append(events, fmt.Sprintf("%s %s %s", typ, p.OperationId, p.Status))
		}
	}}
	req := f.batchReq(st(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0}), st(enginev1.ToolEntityDelete, obj{"handle": "FFFF"}), st(enginev1.ToolDocumentInfo, nil))
	req.OperationId = ptr("ev")
	runBatch(t, f.e, caller, req)
	want := "batch.progress ev 1/3, batch.progress ev 2/3, operation.finished ev failed"
	if got := strings.Join(events, ", "); got != want {
		t.Errorf("events = %s, want %s", got, want)
	}
	events = nil
	runBatch(t, f.e, caller, req) // a replay runs nothing and announces nothing
	if len(events) != 0 {
		t.Errorf("replay events = %v, want none", events)
	}
}
