package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"slices"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// obj is a JSON object literal.
type obj = map[string]any

// dialEngine connects to the engine's gRPC address directly, as an
// internal service would: one HTTP/2 connection shared by every caller.
func dialEngine(addr string) (enginev1.EngineServiceClient, func(), error) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, nil, fmt.Errorf("dial engine %s: %w", addr, err)
	}
	return enginev1.NewEngineServiceClient(conn), func() { conn.Close() }, nil
}

// sessionInfo is the result of session.create.
type sessionInfo struct {
	SessionID   string `json:"session_id"`
	ResumeToken string `json:"resume_token"`
	LatestSeq   int64  `json:"latest_seq"`
}

// createSession calls session.create with params (nil for none).
func createSession(ctx context.Context, c *Client, params obj) (sessionInfo, error) {
	if params == nil {
		params = obj{}
	}
	var s sessionInfo
	if err := c.Call(ctx, gatewayv1.MethodSessionCreate, params, &s); err != nil {
		return s, fmt.Errorf("session.create: %w", err)
	}
	return s, nil
}

// createDocument calls document.create and returns the new document's id.
func createDocument(ctx context.Context, c *Client) (string, error) {
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	if err := c.Call(ctx, gatewayv1.MethodDocumentCreate, obj{}, &doc); err != nil {
		return "", fmt.Errorf("document.create: %w", err)
	}
	return doc.DocumentID, nil
}

// createLine draws a line with tools.call and returns its handle.
func createLine(ctx context.Context, c *Client, doc string) (string, error) {
	var res struct {
		OK     bool `json:"ok"`
		Result struct {
			Handle string `json:"handle"`
		} `json:"result"`
	}
	params := obj{"document_id": doc, "tool": enginev1.ToolEntityCreateLine, "args": obj{"x1": 0, "y1": 0, "x2": 3, "y2": 4}}
	if err := c.Call(ctx, gatewayv1.MethodToolsCall, params, &res); err != nil {
		return "", fmt.Errorf("tools.call entity_create_line: %w", err)
	}
	if !res.OK {
		return "", fmt.Errorf("tools.call entity_create_line failed")
	}
	return res.Result.Handle, nil
}

// mustJSON marshals params once, so that a timed loop sends the same bytes
// without marshalling them again.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("bench: marshal %T: %v", v, err)) // literals built here always marshal
	}
	return b
}

// okPrefix starts every successful tools.call and cad.batch result: ok
// is field 1 of both messages and the wire keeps field order.
var okPrefix = []byte(`{"ok":true`)

// checkOK checks that a tools.call or cad.batch result reports ok without
// decoding it (a timed loop should not pay for a full decode).
// runBatch sends batch (cad.batch params) on c; an answer that is not ok
// is an error.
func runBatch(ctx context.Context, c *Client, batch any) error {
	raw, err := c.CallRaw(ctx, gatewayv1.MethodCadBatch, batch)
	if err != nil {
		return err
	}
	return checkOK(gatewayv1.MethodCadBatch, raw)
}

func checkOK(what string, raw json.RawMessage) error {
	if bytes.HasPrefix(raw, okPrefix) {
		return nil
	}
	var res struct {
		OK     bool            `json:"ok"`
		Status string          `json:"status"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("%s: decode result: %w", what, err)
	}
	if res.OK {
		return nil
	}
	return fmt.Errorf("%s failed (%s): %s", what, res.Status, res.Error)
}

// jsonOf is the JSON of an object literal.
func jsonOf(v obj) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("bench: JSON of %v: %v", v, err)) // literals built here always encode
	}
	return b
}

// resultOf is a tool result's JSON as an object.
func resultOf(data []byte) obj {
	var v obj
	_ = json.Unmarshal(data, &v)
	return v
}

// step is one cad.batch step on the JSON wire.
func step(tool string, args obj) obj { return obj{"tool": tool, "args": args} }

// lineArgs are the arguments of the i-th line of a drawing.
func lineArgs(i int) obj {
	x, y := float64(i%1000), float64(i/1000)
	return obj{"x1": x, "y1": y, "x2": x + 0.5, "y2": y + 0.5}
}

// lineSteps are n entity_create_line steps.
func lineSteps(n int) []obj {
	steps := make([]obj, n)
	for i := range steps {
		steps[i] = step(enginev1.ToolEntityCreateLine, lineArgs(i))
	}
	return steps
}

func ptr[T any](v T) *T { return &v }

// p50Of runs op n times, one after another, and returns the median
// latency: a reference figure for a row's notes, not a side.
func p50Of(ctx context.Context, n int, op func(ctx context.Context) error) (time.Duration, error) {
	lat := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if err := op(ctx); err != nil {
			return 0, err
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	return percentile(lat, 0.5), nil
}

// coreEngine is an engine core on a memory store with one document, for
// in-process reference figures.
func coreEngine(ctx context.Context) (*engine.Engine, string, error) {
	eng, err := engine.New(memory.New(), engine.Options{})
	if err != nil {
		return nil, "", err
	}
	info, err := eng.CreateDocument(ctx, &enginev1.CreateDocumentRequest{})
	if err != nil {
		eng.Close()
		return nil, "", err
	}
	return eng, info.GetDocumentId(), nil
}

// principal owns the operations of in-process calls.
const principal = "cadbench"

// engineAlone is the median latency of op on an engine core in process
// (no network, no gateway), after setup, over n runs.
func engineAlone(ctx context.Context, n int, op, setup func(ctx context.Context, eng *engine.Engine, doc string) error) (time.Duration, error) {
	eng, doc, err := coreEngine(ctx)
	if err != nil {
		return 0, err
	}
	defer eng.Close()
	if setup != nil {
		if err := setup(ctx, eng, doc); err != nil {
			return 0, err
		}
	}
	return p50Of(ctx, n, func(ctx context.Context) error { return op(ctx, eng, doc) })
}

// okCall turns a failed in-process tool call into an error.
func okCall(resp *enginev1.CallToolResponse, err error) error {
	if err != nil {
		return err
	}
	if !resp.GetOk() {
		return fmt.Errorf("%s failed: %v", resp.GetTool(), resp.GetError())
	}
	return nil
}

// okBatch turns a failed in-process batch into an error.
func okBatch(resp *enginev1.ExecuteBatchResponse, err error) error {
	if err != nil {
		return err
	}
	if !resp.GetOk() {
		return fmt.Errorf("cad.batch %v: %v", resp.GetStatus(), resp.GetError())
	}
	return nil
}

// plural is "1 connection" or "64 connections".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// loopbackRoundTrip is the median time of n round trips of one byte
// between two goroutines over a loopback TCP connection: what the
// machine's network stack and scheduler cost a message, for scale.
func loopbackRoundTrip(ctx context.Context, n int) (time.Duration, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer lis.Close()
	echoed := make(chan struct{})
	go func() {
		defer close(echoed)
		if c, err := lis.Accept(); err == nil {
			io.Copy(c, c) // until the client closes
			c.Close()
		}
	}()
	c, err := net.Dial("tcp", lis.Addr().String())
	if err != nil {
		return 0, err
	}
	b := []byte{0}
	d, err := p50Of(ctx, n, func(context.Context) error {
		if _, err := c.Write(b); err != nil {
			return err
		}
		_, err := io.ReadFull(c, b)
		return err
	})
	c.Close()
	<-echoed
	return d, err
}
