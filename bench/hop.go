package bench

import (
	"context"
	"fmt"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
)

// gatewayHop measures what the gateway costs: entity_get as a WebSocket
// JSON-RPC tools.call (client → gateway → Session stream → engine and
// back) against the same call made on the engine's gRPC API directly, by
// one session making calls one after another, or by many at once.
func gatewayHop(ctx context.Context, e *env, row *Row, sessions int) error {
	rounds, calls := e.sizes.HopRounds, e.sizes.HopCalls
	if sessions > 1 {
		rounds, calls = e.sizes.HopConcurrentRounds, e.sizes.HopConcurrentCalls
	}
	row.Title = "entity_get: WebSocket JSON-RPC tools.call through the gateway vs direct gRPC CallTool on the engine"
	if sessions == 1 {
		row.Size = fmt.Sprintf("1 session, %d calls per side", rounds*calls)
	} else {
		row.Size = fmt.Sprintf("%d sessions at once, %d calls per side", sessions, rounds*calls*sessions)
	}
	st, err := Start(Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	direct, closeEngine, err := dialEngine(st.Engine)
	if err != nil {
		return err
	}
	defer closeEngine()

	info, err := direct.CreateDocument(ctx, &enginev1.CreateDocumentRequest{})
	if err != nil {
		return fmt.Errorf("CreateDocument: %w", err)
	}
	doc := info.GetDocument().GetDocumentId()
	created, err := direct.CallTool(ctx, &enginev1.CallToolRequest{
		DocumentId: &doc, Tool: enginev1.ToolEntityCreateLine, ArgsJson: jsonOf(obj{"x1": 0, "y1": 0, "x2": 3, "y2": 4}),
	})
	if err != nil || !created.GetOk() {
		return fmt.Errorf("CallTool entity_create_line: %v %v", created.GetError(), err)
	}
	handle, _ := resultOf(created.GetResultJson())["handle"].(string)

	clients := make([]*Client, sessions)
	params := make([]any, sessions)   // stateless calls
	withSess := make([]any, sessions) // calls naming the connection's session
	defer func() {
		for _, c := range clients {
			if c != nil {
				c.Close()
			}
		}
	}()
	for i := range clients {
		c, err := Dial(ctx, st.Gateway, nil)
		if err != nil {
			return err
		}
		clients[i] = c
		s, err := createSession(ctx, c, nil)
		if err != nil {
			return err
		}
		params[i] = mustJSON(obj{"document_id": doc, "tool": enginev1.ToolEntityGet, "args": obj{"handle": handle}})
		withSess[i] = mustJSON(obj{"session_id": s.SessionID, "document_id": doc, "tool": enginev1.ToolEntityGet, "args": obj{"handle": handle}})
	}
	req := &enginev1.CallToolRequest{DocumentId: &doc, Tool: enginev1.ToolEntityGet, ArgsJson: jsonOf(obj{"handle": handle})}

	baseline := &contender{
		name: "gRPC CallTool entity_get", unit: "call", workers: sessions, perBlock: calls,
		op: func(ctx context.Context, _ int) error {
			resp, err := direct.CallTool(ctx, req)
			if err != nil {
				return err
			}
			if !resp.GetOk() {
				return fmt.Errorf("CallTool entity_get: %v", resp.GetError())
			}
			return nil
		},
	}
	ws := func(name string, params []any) *contender {
		return &contender{
			name: name, unit: "call", workers: sessions, perBlock: calls,
			op: func(ctx context.Context, w int) error {
				raw, err := clients[w].CallRaw(ctx, gatewayv1.MethodToolsCall, params[w])
				if err != nil {
					return err
				}
				return checkOK("tools.call entity_get", raw)
			},
		}
	}
	e.ready()
	b, s, err := compare(ctx, rounds, 20, baseline, ws("WebSocket tools.call entity_get", params))
	if err != nil {
		return err
	}
	// The same with session_id, for the notes: fewer rounds.
	b2, s2, err := compare(ctx, max(rounds/2, 1), 5, baseline, ws("WebSocket tools.call entity_get, with session_id", withSess))
	if err != nil {
		return err
	}
	row.Baseline, row.Subject = &b, &s
	alone, err := engineAlone(ctx, 200, func(ctx context.Context, eng *engine.Engine, doc string) error {
		req := &enginev1.CallToolRequest{DocumentId: &doc, Tool: enginev1.ToolEntityGet, ArgsJson: jsonOf(obj{"handle": "100"})}
		return okCall(eng.CallTool(ctx, engine.Caller{Principal: principal}, req))
	}, func(ctx context.Context, eng *engine.Engine, doc string) error {
		req := &enginev1.CallToolRequest{DocumentId: &doc, Tool: enginev1.ToolEntityCreateLine, ArgsJson: jsonOf(obj{"x1": 0, "y1": 0, "x2": 3, "y2": 4})}
		return okCall(eng.CallTool(ctx, engine.Caller{Principal: principal}, req))
	})
	if err != nil {
		return err
	}
	echo, err := loopbackRoundTrip(ctx, 2000)
	if err != nil {
		return err
	}
	row.Checks = []Check{
		check("p50-ratio", "p50 latency, WebSocket ÷ gRPC (lower is better)", ratio(float64(s.P50), float64(b.P50)), "x", Goal{"<=", 1.5}),
		check("throughput-ratio", "throughput, WebSocket ÷ gRPC (higher is better)", ratio(s.Throughput, b.Throughput), "x", Goal{">=", 0.6}),
	}
	row.Notes = []string{
		fmt.Sprintf("Client, gateway and engine share one process and its cores, on loopback TCP; allocations count all three. For scale, the engine core alone (Engine.CallTool in process, no network) takes %s (p50) for this call.", fmtDur(alone)),
		fmt.Sprintf("For scale, a one-byte round trip between two goroutines over loopback TCP takes %s (p50 of 2000) here; a call makes one such round trip on the gRPC side and two on the WebSocket side (client to gateway, gateway to engine), and each side's read and write system calls per call are in the table.", fmtDur(echo)),
		fmt.Sprintf("The WebSocket side has %s, each with a session and its own Session stream to the engine; the gRPC side shares one grpc.ClientConn, as an internal service would. The calls are stateless on both sides (no session_id), so both do the same engine work.", plural(sessions, "connection")),
		fmt.Sprintf("With session_id on the WebSocket side (the engine then also emits, and the gateway relays, an operation.finished event per call), measured after: p50 %s (%s vs %s), throughput %s.",
			fmtValue(ratio(float64(s2.P50), float64(b2.P50)), "x"), fmtDur(s2.P50), fmtDur(b2.P50), fmtValue(ratio(s2.Throughput, b2.Throughput), "x")),
	}
	if sessions > 1 {
		row.Notes = append(row.Notes, "Throughput is calls per second of wall time with every session calling back to back; blocks of the two sides alternate.")
	}
	return nil
}
