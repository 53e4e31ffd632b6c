package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/gateway"
	"github.com/cadbridge/cadbridge/services/gateway/mcp"
)

// mcpCall measures what the MCP surface costs: entity_get as an MCP
// tools/call with the Go SDK's client over Streamable HTTP (client → /mcp
// → the gateway's relay → Session stream → engine and back) against the
// same call as a JSON-RPC tools.call over HTTP POST /rpc — the same
// shape, one HTTP request per call — on the same gateway, one call after
// another. The notes hold the same against WebSocket /rpc, and MCP at the
// revision before 2026-07-28 (a session kept across requests).
func mcpCall(ctx context.Context, e *env, row *Row) error {
	rounds, calls := e.sizes.HopRounds, e.sizes.HopCalls
	row.Title = "entity_get: MCP tools/call (Go SDK client, Streamable HTTP /mcp) vs JSON-RPC tools.call (HTTP POST /rpc), same gateway"
	row.Size = fmt.Sprintf("1 client each, %d calls per side", rounds*calls)
	st, err := Start(Options{Surfaces: []gateway.Surface{mcp.Surface(mcp.Config{})}})
	if err != nil {
		return err
	}
	defer st.Close()
	ws, err := Dial(ctx, st.Gateway, nil)
	if err != nil {
		return err
	}
	defer ws.Close()
	raw, err := ws.CallRaw(ctx, gatewayv1.MethodDocumentCreate, obj{})
	if err != nil {
		return err
	}
	doc, _ := resultOf(raw)["document_id"].(string)
	raw, err = ws.CallRaw(ctx, gatewayv1.MethodToolsCall, obj{"document_id": doc, "tool": enginev1.ToolEntityCreateLine, "args": obj{"x1": 0, "y1": 0, "x2": 3, "y2": 4}})
	if err != nil {
		return err
	}
	var created struct {
		Result struct {
			Handle string `json:"handle"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &created); err != nil || created.Result.Handle == "" {
		return fmt.Errorf("entity_create_line = %s, %v", raw, err)
	}
	handle := created.Result.Handle

	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "cadbench", Version: "1"}, nil).Connect(ctx, &mcpsdk.StreamableClientTransport{Endpoint: "http://" + st.Gateway + "/mcp"}, nil)
	if err != nil {
		return fmt.Errorf("MCP connect: %w", err)
	}
	defer cs.Close()
	version := cs.InitializeResult().ProtocolVersion
	older, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "cadbench", Version: "1"}, nil).Connect(ctx, &mcpsdk.StreamableClientTransport{Endpoint: "http://" + st.Gateway + "/mcp"}, &mcpsdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		return fmt.Errorf("MCP connect at 2025-11-25: %w", err)
	}
	defer older.Close()

	rpcParams := mustJSON(obj{"document_id": doc, "tool": enginev1.ToolEntityGet, "args": obj{"handle": handle}})
	postBody := mustJSON(obj{"jsonrpc": "2.0", "id": 1, "method": gatewayv1.MethodToolsCall, "params": rpcParams})
	httpc := &http.Client{}
	post := &contender{
		name: "POST /rpc tools.call entity_get", unit: "call", perBlock: calls,
		op: func(ctx context.Context, _ int) error {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+st.Gateway+"/rpc", bytes.NewReader(postBody))
			if err != nil {
				return err
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := httpc.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			var out struct {
				Result json.RawMessage `json:"result"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
				return err
			}
			return checkOK("POST tools.call entity_get", out.Result)
		},
	}
	websocket := &contender{
		name: "WebSocket tools.call entity_get", unit: "call", perBlock: calls,
		op: func(ctx context.Context, _ int) error {
			raw, err := ws.CallRaw(ctx, gatewayv1.MethodToolsCall, rpcParams)
			if err != nil {
				return err
			}
			return checkOK("tools.call entity_get", raw)
		},
	}
	mcpSide := func(name string, cs *mcpsdk.ClientSession) *contender {
		// Params of its own: the SDK's client writes its _meta keys into
		// the params it sends.
		mcpParams := &mcpsdk.CallToolParams{Name: enginev1.ToolEntityGet, Arguments: map[string]any{"document_id": doc, "handle": handle}}
		return &contender{
			name: name, unit: "call", perBlock: calls,
			op: func(ctx context.Context, _ int) error {
				res, err := cs.CallTool(ctx, mcpParams)
				if err != nil {
					return err
				}
				if res.IsError {
					return fmt.Errorf("MCP entity_get: isError: %v", res.Content)
				}
				return nil
			},
		}
	}
	subject := mcpSide("MCP tools/call entity_get", cs)
	e.ready()
	b, s, err := compare(ctx, rounds, 20, post, subject)
	if err != nil {
		return err
	}
	row.Baseline, row.Subject = &b, &s
	// For the notes: fewer rounds.
	wb, ws2, err := compare(ctx, max(rounds/2, 1), 5, websocket, subject)
	if err != nil {
		return err
	}
	ob, os2, err := compare(ctx, max(rounds/2, 1), 5, post, mcpSide("MCP 2025-11-25 tools/call entity_get", older))
	if err != nil {
		return err
	}
	row.Checks = []Check{
		check("p50-ratio", "p50 latency, MCP ÷ POST /rpc (lower is better)", ratio(float64(s.P50), float64(b.P50)), "x", Goal{"<=", 1.3}),
		check("throughput-ratio", "throughput, MCP ÷ POST /rpc (higher is better)", ratio(s.Throughput, b.Throughput), "x", Goal{">=", 0.75}),
	}
	row.Notes = []string{
		fmt.Sprintf("The MCP client negotiated protocol revision %s: each call is one stateless HTTP POST (keep-alive) answered as an SSE stream, decoded by the SDK on both ends, then relayed as the same tools.call over the principal's shared Session stream; POST /rpc makes one HTTP request per call too, with a Session stream of its own.", version),
		fmt.Sprintf("Against WebSocket /rpc (one connection, no HTTP per call), measured after: p50 %s (%s vs %s), throughput %s.",
			fmtValue(ratio(float64(ws2.P50), float64(wb.P50)), "x"), fmtDur(ws2.P50), fmtDur(wb.P50), fmtValue(ratio(ws2.Throughput, wb.Throughput), "x")),
		fmt.Sprintf("MCP at 2025-11-25 (an SDK session kept across requests, answers as SSE) against POST /rpc: p50 %s (%s vs %s), throughput %s.",
			fmtValue(ratio(float64(os2.P50), float64(ob.P50)), "x"), fmtDur(os2.P50), fmtDur(ob.P50), fmtValue(ratio(os2.Throughput, ob.Throughput), "x")),
		"Client, gateway and engine share one process and its cores, on loopback TCP; allocations count all three. The calls are stateless on every side (no engine session), so all do the same engine work.",
	}
	return nil
}
