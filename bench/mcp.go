package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/gateway"
	"github.com/cadbridge/cadbridge/services/gateway/mcp"
)

// mcpCall measures what the MCP surface costs: entity_get as an MCP
// tools/call over Streamable HTTP (client → /mcp → the gateway's relay →
// Session stream → engine and back) against the same call as a JSON-RPC
// tools.call over HTTP POST /rpc — the same shape, one HTTP request per
// call — on the same gateway, one call after another. Both sides use the
// same plain HTTP client, so the row compares the two surfaces, not two
// client libraries: the MCP side sends the bytes the Go SDK's client sends
// and decodes the answer as the SDK does (the SSE event's JSON-RPC
// response, the result's isError). The notes hold the SDK's own client
// against POST /rpc (what an agent built on it sees), the same against
// WebSocket /rpc, and MCP at the revision before 2026-07-28 (a session
// kept across requests).
func mcpCall(ctx context.Context, e *env, row *Row) error {
	rounds, calls := e.sizes.HopRounds, e.sizes.HopCalls
	row.Title = "entity_get: MCP tools/call (Streamable HTTP /mcp) vs JSON-RPC tools.call (HTTP POST /rpc), same gateway, same plain HTTP client"
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
	mcpBody := mustJSON(obj{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": obj{
		"_meta": obj{
			"io.modelcontextprotocol/protocolVersion":    version,
			"io.modelcontextprotocol/clientInfo":         obj{"name": "cadbench", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": obj{},
		},
		"name":      enginev1.ToolEntityGet,
		"arguments": obj{"document_id": doc, "handle": handle},
	}})
	mcpHeader := http.Header{
		"Accept":               {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {version},
		"Mcp-Method":           {"tools/call"},
		"Mcp-Name":             {enginev1.ToolEntityGet},
	}
	httpc := &http.Client{}
	post := &contender{
		name: "POST /rpc tools.call entity_get", unit: "call", perBlock: calls,
		op: func(ctx context.Context, _ int) error {
			body, err := postJSON(ctx, httpc, "http://"+st.Gateway+"/rpc", nil, postBody)
			if err != nil {
				return err
			}
			var out struct {
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(body, &out); err != nil {
				return err
			}
			return checkOK("POST tools.call entity_get", out.Result)
		},
	}
	subject := &contender{
		name: "MCP tools/call entity_get", unit: "call", perBlock: calls,
		op: func(ctx context.Context, _ int) error {
			body, err := postJSON(ctx, httpc, "http://"+st.Gateway+"/mcp", mcpHeader, mcpBody)
			if err != nil {
				return err
			}
			return checkMCPEvent(body)
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
	e.ready()
	b, s, err := compare(ctx, rounds, 20, post, subject)
	if err != nil {
		return err
	}
	row.Baseline, row.Subject = &b, &s
	// For the notes: fewer rounds.
	sb, ss2, err := compare(ctx, max(rounds/2, 1), 5, post, mcpSide("MCP tools/call entity_get (Go SDK client)", cs))
	if err != nil {
		return err
	}
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
		fmt.Sprintf("The Go SDK's client negotiated protocol revision %s: each call is one stateless HTTP POST (keep-alive) answered as an SSE stream, relayed as the same tools.call over the principal's shared Session stream; POST /rpc makes one HTTP request per call too, with a Session stream of its own. Both sides of the row send their requests with net/http and decode the answers with encoding/json.", version),
		fmt.Sprintf("With the Go SDK's own client on the MCP side (its request and response handling cost the client several times what net/http and encoding/json do), measured after: p50 %s (%s vs %s), throughput %s.",
			fmtValue(ratio(float64(ss2.P50), float64(sb.P50)), "x"), fmtDur(ss2.P50), fmtDur(sb.P50), fmtValue(ratio(ss2.Throughput, sb.Throughput), "x")),
		fmt.Sprintf("Against WebSocket /rpc (one connection, no HTTP per call), measured after: p50 %s (%s vs %s), throughput %s.",
			fmtValue(ratio(float64(ws2.P50), float64(wb.P50)), "x"), fmtDur(ws2.P50), fmtDur(wb.P50), fmtValue(ratio(ws2.Throughput, wb.Throughput), "x")),
		fmt.Sprintf("MCP at 2025-11-25 (an SDK session kept across requests, answers as SSE) against POST /rpc: p50 %s (%s vs %s), throughput %s.",
			fmtValue(ratio(float64(os2.P50), float64(ob.P50)), "x"), fmtDur(os2.P50), fmtDur(ob.P50), fmtValue(ratio(os2.Throughput, ob.Throughput), "x")),
		"Client, gateway and engine share one process and its cores, on loopback TCP; allocations count all three. The calls are stateless on every side (no engine session), so all do the same engine work.",
	}
	return nil
}

// postJSON POSTs body as JSON to url with header's fields added and
// returns the answer's body; an answer other than 200 OK is an error.
func postJSON(ctx context.Context, c *http.Client, url string, header http.Header, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	maps.Copy(req.Header, header)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("POST %s: %s: %s", url, resp.Status, data)
	}
	return data, nil
}

// checkMCPEvent checks an SSE answer to an MCP tools/call as the SDK's
// client reads it: a message event whose data is a JSON-RPC response with
// a result that is not an error.
func checkMCPEvent(body []byte) error {
	_, data, ok := bytes.Cut(body, []byte("\ndata: "))
	if !bytes.HasPrefix(body, []byte("event: message")) || !ok {
		return fmt.Errorf("MCP tools/call: not a message event: %.200s", body)
	}
	data, _, _ = bytes.Cut(data, []byte("\n"))
	var resp struct {
		Result *struct {
			IsError           bool            `json:"isError"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &resp); err != nil {
		return fmt.Errorf("MCP tools/call: %w", err)
	}
	if resp.Result == nil || resp.Result.IsError || len(resp.Result.StructuredContent) == 0 {
		return fmt.Errorf("MCP tools/call failed: %.300s", data)
	}
	return nil
}
