package telemetry_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/cadbridge/cadbridge/bench"
	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/internal/telemetry"
)

// recorded returns providers for one service whose spans go to rec.
func recorded(rec *tracetest.SpanRecorder) *telemetry.Providers {
	p := telemetry.Disabled()
	p.Tracer = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	p.Meter = metricnoop.NewMeterProvider()
	return p
}

func traceparent(traceID, spanID string) map[string]any {
	return map[string]any{"traceparent": "00-" + traceID + "-" + spanID + "-01"}
}

// approve answers every approval with approve.
var approve = jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
	return map[string]any{"decision": "approve"}, nil
})

// TestOneTraceFromClientToSteps runs the gateway and the engine in one
// process, each with its own SDK provider feeding one span recorder, and
// follows a 5-step batch with an approval from the client's traceparent to
// the last step.
func TestOneTraceFromClientToSteps(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	st := bench.StartTB(t, bench.Options{EngineTelemetry: recorded(rec), GatewayTelemetry: recorded(rec), CheckContracts: true})
	ctx := context.Background()
	c, err := bench.Dial(ctx, st.Gateway, approve)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var s struct {
		SessionID string `json:"session_id"`
	}
	if err := c.Call(ctx, "session.create", map[string]any{"capabilities": map[string]any{"server_requests": []string{"approval"}}, "approval_policy": "destructive"}, &s); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	if err := c.Call(ctx, "document.create", map[string]any{}, &doc); err != nil {
		t.Fatal(err)
	}

	const traceID, clientSpan = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	var res json.RawMessage
	if err := c.Call(ctx, "cad.batch", map[string]any{
		"session_id": s.SessionID, "document_id": doc.DocumentID, "on_error": "continue",
		"steps": []any{
			map[string]any{"tool": "entity_create_point", "args": map[string]any{"x": 0, "y": 0}, "bind": "a"},
			map[string]any{"tool": "entity_create_point", "args": map[string]any{"x": 1, "y": 0}, "bind": "b"},
			map[string]any{"tool": "entity_delete_many", "args": map[string]any{"handles": []any{"$a"}}},
			map[string]any{"tool": "entity_move", "args": map[string]any{"handle": "FFFFFF", "dx": 1, "dy": 1}},
			map[string]any{"tool": "entity_get", "args": map[string]any{"handle": "$b"}},
		},
		"_meta": traceparent(traceID, clientSpan),
	}, &res); err != nil {
		t.Fatal(err)
	}

	spans := byTrace(rec.Ended(), traceID)
	if len(spans) == 0 {
		t.Fatalf("no span has the client's trace id %s", traceID)
	}
	for _, sp := range rec.Ended() {
		if sp.Name() == "cad.batch" && sp.SpanContext().TraceID().String() != traceID {
			t.Errorf("span %s has trace id %s, want the client's %s", sp.Name(), sp.SpanContext().TraceID(), traceID)
		}
	}
	rpcSpan := one(t, spans, "cad.batch", trace.SpanKindServer)
	if rpcSpan.Parent().SpanID().String() != clientSpan || !hasAttr(rpcSpan, "rpc.system", "jsonrpc") || !hasAttr(rpcSpan, "rpc.method", "cad.batch") {
		t.Errorf("JSON-RPC span parent %s attrs %v, want parent %s with rpc.system=jsonrpc, rpc.method=cad.batch", rpcSpan.Parent().SpanID(), rpcSpan.Attributes(), clientSpan)
	}
	frame := one(t, spans, "EngineService.Session/execute_batch", trace.SpanKindClient)
	childOf(t, frame, rpcSpan)
	if !hasAttr(frame, "rpc.service", "cad.engine.v1.EngineService") || !hasAttr(frame, "rpc.method", "Session") {
		t.Errorf("frame span attrs %v, want rpc.service=cad.engine.v1.EngineService, rpc.method=Session", frame.Attributes())
	}
	call := one(t, spans, "cad.engine/execute_batch", trace.SpanKindServer)
	childOf(t, call, frame)
	if !hasAttr(call, "rpc.system", "grpc") || !hasAttr(call, "cad.call", "execute_batch") {
		t.Errorf("engine call span attrs %v, want rpc.system=grpc, cad.call=execute_batch", call.Attributes())
	}
	batch := one(t, spans, "cad.batch.run", trace.SpanKindInternal)
	childOf(t, batch, call)
	steps := map[int64]sdktrace.ReadOnlySpan{}
	for _, sp := range spans {
		if sp.Name() == "cad.step" {
			childOf(t, sp, batch)
			for _, kv := range sp.Attributes() {
				if kv.Key == "cad.step.index" {
					steps[kv.Value.AsInt64()] = sp
				}
			}
		}
	}
	if len(steps) != 5 {
		t.Fatalf("step spans = %d, want 5", len(steps))
	}
	if !hasAttr(steps[2], "cad.tool", "entity_delete_many") {
		t.Errorf("step 2 attrs = %v, want cad.tool entity_delete_many", steps[2].Attributes())
	}
	wait := one(t, spans, "cad.wait approval", trace.SpanKindClient)
	childOf(t, wait, steps[2])
	if steps[3].Status().Code != codes.Error || !hasAttr(steps[3], "cad.error.kind", "failed") {
		t.Errorf("failing step status %v attrs %v, want error with cad.error.kind=failed", steps[3].Status(), steps[3].Attributes())
	}
	if !hasAttrKey(steps[0], "cad.document.revision") {
		t.Errorf("step 0 attrs = %v, want cad.document.revision", steps[0].Attributes())
	}
}

// TestInterleavedCallsStaySeparate: two calls in flight at once on one
// session stream belong to their own traces.
func TestInterleavedCallsStaySeparate(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	st := bench.StartTB(t, bench.Options{EngineTelemetry: recorded(rec), GatewayTelemetry: recorded(rec), CheckContracts: true})
	ctx := context.Background()
	c, err := bench.Dial(ctx, st.Gateway, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	if err := c.Call(ctx, "document.create", map[string]any{}, &doc); err != nil {
		t.Fatal(err)
	}
	traces := []string{"11111111111111111111111111111111", "22222222222222222222222222222222"}
	var wg sync.WaitGroup
	for i, tr := range traces {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 10; j++ {
				if err := c.Call(ctx, "tools.call", map[string]any{"document_id": doc.DocumentID, "tool": "entity_create_point", "args": map[string]any{"x": i, "y": j},
					"_meta": traceparent(tr, "00f067aa0ba902b7")}, nil); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for _, tr := range traces {
		spans := byTrace(rec.Ended(), tr)
		var calls int
		for _, sp := range spans {
			if sp.Name() == "cad.engine/call_tool" {
				calls++
				// Walking up within this trace reaches its JSON-RPC span.
				p := sp
				for p != nil && p.Name() != "tools.call" {
					p = parentOf(spans, p)
				}
				if p == nil {
					t.Errorf("trace %s: engine call span %s does not lead up to a tools.call span of the same trace", tr, sp.SpanContext().SpanID())
				}
			}
		}
		if calls != 10 {
			t.Errorf("trace %s has %d engine call spans, want its own 10", tr, calls)
		}
	}
}

func byTrace(spans []sdktrace.ReadOnlySpan, traceID string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, sp := range spans {
		if sp.SpanContext().TraceID().String() == traceID {
			out = append(out, sp)
		}
	}
	return out
}

func one(t *testing.T, spans []sdktrace.ReadOnlySpan, name string, kind trace.SpanKind) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, sp := range spans {
		if sp.Name() == name && sp.SpanKind() == kind {
			found = append(found, sp)
		}
	}
	if len(found) != 1 {
		var names []string
		for _, sp := range spans {
			names = append(names, sp.Name())
		}
		t.Fatalf("spans named %q (%s) = %d, want 1; spans: %v", name, kind, len(found), names)
	}
	return found[0]
}

func childOf(t *testing.T, child, parent sdktrace.ReadOnlySpan) {
	t.Helper()
	if child.Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Errorf("span %q parent = %s, want %q (%s)", child.Name(), child.Parent().SpanID(), parent.Name(), parent.SpanContext().SpanID())
	}
}

func parentOf(spans []sdktrace.ReadOnlySpan, sp sdktrace.ReadOnlySpan) sdktrace.ReadOnlySpan {
	for _, p := range spans {
		if p.SpanContext().SpanID() == sp.Parent().SpanID() {
			return p
		}
	}
	return nil
}

func hasAttr(sp sdktrace.ReadOnlySpan, key, value string) bool {
	for _, kv := range sp.Attributes() {
		if kv.Key == attribute.Key(key) && kv.Value.Emit() == value {
			return true
		}
	}
	return false
}

func hasAttrKey(sp sdktrace.ReadOnlySpan, key string) bool {
	for _, kv := range sp.Attributes() {
		if kv.Key == attribute.Key(key) {
			return true
		}
	}
	return false
}
