package mcp_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cadbridge/cadbridge/internal/stacktest"
	"github.com/cadbridge/cadbridge/services/gateway"
	"github.com/cadbridge/cadbridge/services/gateway/mcp"
)

// The revisions the tests speak: the current one, whose clients answer
// the engine's questions in rounds (input_required), and the one before,
// whose clients get elicitation requests during the call.
var versions = []string{"2026-07-28", "2025-11-25"}

// startMCP runs an engine and a gateway serving /mcp, in process; it
// returns the MCP endpoint.
func startMCP(t *testing.T, cfg mcp.Config) string {
	t.Helper()
	st := stacktest.StartTB(t, stacktest.Options{CheckContracts: true, Surfaces: []gateway.Surface{mcp.Surface(cfg)}})
	return "http://" + st.Gateway + "/mcp"
}

// client is an MCP client session of the Go SDK with the answers its user
// gives (nil: the client cannot elicit) and what the server told it.
type client struct {
	*mcpsdk.ClientSession
	mu       sync.Mutex
	progress []float64
	updated  []string
	asked    []string
}

// connect connects the Go SDK's client to endpoint at version; answer, if
// set, answers the server's elicitations.
func connect(t *testing.T, endpoint, version string, answer func(ctx context.Context, p *mcpsdk.ElicitParams) (*mcpsdk.ElicitResult, error)) *client {
	t.Helper()
	c := &client{}
	opts := &mcpsdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcpsdk.ProgressNotificationClientRequest) {
			c.mu.Lock()
			c.progress = append(c.progress, r.Params.Progress)
			c.mu.Unlock()
		},
		ResourceUpdatedHandler: func(_ context.Context, r *mcpsdk.ResourceUpdatedNotificationRequest) {
			c.mu.Lock()
			c.updated = append(c.updated, r.Params.URI)
			c.mu.Unlock()
		},
	}
	if answer != nil {
		opts.ElicitationHandler = func(ctx context.Context, r *mcpsdk.ElicitRequest) (*mcpsdk.ElicitResult, error) {
			c.mu.Lock()
			c.asked = append(c.asked, r.Params.Message)
			c.mu.Unlock()
			return answer(ctx, r.Params)
		}
	}
	cl := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "cadbridge-test", Version: "1"}, opts)
	cs, err := cl.Connect(context.Background(), &mcpsdk.StreamableClientTransport{Endpoint: endpoint}, &mcpsdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("Connect(%s, %s) = %v", endpoint, version, err)
	}
	t.Cleanup(func() { cs.Close() })
	c.ClientSession = cs
	return c
}

func approve(context.Context, *mcpsdk.ElicitParams) (*mcpsdk.ElicitResult, error) {
	return &mcpsdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "approve"}}, nil
}

func deny(context.Context, *mcpsdk.ElicitParams) (*mcpsdk.ElicitResult, error) {
	return &mcpsdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "deny"}}, nil
}

// call calls a tool and fails the test on a protocol error.
func call(t *testing.T, c *client, name string, args any) *mcpsdk.CallToolResult {
	t.Helper()
	res, err := c.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s, %v) = %v", name, args, err)
	}
	return res
}

// structured decodes a result's structuredContent.
func structured(t *testing.T, res *mcpsdk.CallToolResult, v any) {
	t.Helper()
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("structuredContent %s: %v", data, err)
	}
}

// toolError is the typed error of a failed result (its _meta).
func toolError(t *testing.T, res *mcpsdk.CallToolResult) map[string]any {
	t.Helper()
	if !res.IsError {
		t.Fatalf("result %s: isError false, want true", text(res))
	}
	data, _ := json.Marshal(res.Meta["cadbridge/error"])
	var e map[string]any
	if err := json.Unmarshal(data, &e); err != nil || e["kind"] == nil {
		t.Fatalf("result _meta cadbridge/error = %s, want the typed error", data)
	}
	return e
}

func text(res *mcpsdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcpsdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// newDocument makes a document and returns its id.
func newDocument(t *testing.T, c *client) string {
	t.Helper()
	res := call(t, c, "document_create", map[string]any{"name": "t"})
	var out struct {
		Document struct {
			DocumentID string `json:"document_id"`
		} `json:"document"`
	}
	structured(t, res, &out)
	if out.Document.DocumentID == "" {
		t.Fatalf("document_create = %s, want a document id", text(res))
	}
	return out.Document.DocumentID
}

func entityCount(t *testing.T, c *client, doc string) int {
	t.Helper()
	var info struct {
		EntityCount int `json:"entity_count"`
	}
	structured(t, call(t, c, "document_info", map[string]any{"document_id": doc}), &info)
	return info.EntityCount
}

func TestListTools(t *testing.T) {
	endpoint := startMCP(t, mcp.Config{Profile: mcp.ProfileFull})
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c := connect(t, endpoint, v, nil)
			res, err := c.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			byName := map[string]*mcpsdk.Tool{}
			for _, tl := range res.Tools {
				byName[tl.Name] = tl
			}
			for _, name := range []string{"document_create", "entity_create_line", "entity_get", "entity_delete", "layer_delete", "point_pick", "cad_batch"} {
				tl := byName[name]
				if tl == nil {
					t.Fatalf("tools/list has no %s", name)
				}
				if tl.InputSchema == nil || tl.OutputSchema == nil {
					t.Errorf("%s: input schema %v, output schema %v; want both", name, tl.InputSchema != nil, tl.OutputSchema != nil)
				}
				if a := tl.Annotations; a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint {
					t.Errorf("%s: annotations %+v, want openWorldHint false", name, a)
				}
			}
			if a := byName["entity_get"].Annotations; !a.ReadOnlyHint || !a.IdempotentHint || a.DestructiveHint != nil {
				t.Errorf("entity_get annotations = %+v, want read-only, idempotent, no destructiveHint (it means nothing when read-only)", a)
			}
			if a := byName["entity_delete_many"].Annotations; a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint {
				t.Errorf("entity_delete_many annotations = %+v, want destructive", a)
			}
			in, _ := json.Marshal(byName["entity_create_line"].InputSchema)
			for _, want := range []string{`"document_id"`, `"x1"`} {
				if !strings.Contains(string(in), want) {
					t.Errorf("entity_create_line input schema %s lacks %s", in, want)
				}
			}
			batch, _ := json.Marshal(byName["cad_batch"].InputSchema)
			for _, want := range []string{`"steps"`, `"dry_run"`, `"on_error"`, `"expected_revision"`, `"preconditions"`} {
				if !strings.Contains(string(batch), want) {
					t.Errorf("cad_batch input schema lacks %s", want)
				}
			}
			if strings.Contains(string(batch), `"session_id"`) {
				t.Errorf("cad_batch input schema has session_id; the surface chooses the session")
			}
		})
	}
}

func TestCallTool(t *testing.T) {
	endpoint := startMCP(t, mcp.Config{})
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c := connect(t, endpoint, v, nil)
			doc := newDocument(t, c)
			res := call(t, c, "entity_create_line", map[string]any{"document_id": doc, "x1": 0, "y1": 0, "x2": 3, "y2": 4})
			var line struct {
				Handle string `json:"handle"`
			}
			structured(t, res, &line)
			if res.IsError || line.Handle == "" {
				t.Fatalf("entity_create_line = %s, want a handle", text(res))
			}
			var link *mcpsdk.ResourceLink
			for _, ct := range res.Content {
				if l, ok := ct.(*mcpsdk.ResourceLink); ok {
					link = l
				}
			}
			if link == nil || link.URI != mcp.DrawingURI(doc, "svg") {
				t.Errorf("entity_create_line content = %v, want a link to %s", res.Content, mcp.DrawingURI(doc, "svg"))
			}
			var got struct {
				Type   string  `json:"type"`
				Length float64 `json:"length"`
			}
			structured(t, call(t, c, "entity_get", map[string]any{"document_id": doc, "handle": line.Handle}), &got)
			if got.Type != "line" || got.Length != 5 {
				t.Errorf("entity_get = %+v, want a line of length 5", got)
			}

			bad := call(t, c, "entity_create_circle", map[string]any{"document_id": doc, "cx": 0, "cy": 0, "radius": "big"})
			if e := toolError(t, bad); e["kind"] != "invalid_args" || e["path"] != "/radius" {
				t.Errorf("entity_create_circle with radius \"big\": error %v, want invalid_args at /radius", e)
			}
			missing := call(t, c, "entity_get", map[string]any{"document_id": doc, "handle": "FFFF"})
			if e := toolError(t, missing); e["kind"] == "" || e["operation_id"] == nil {
				t.Errorf("entity_get of no entity: error %v, want a kind and the operation id", e)
			}
		})
	}
}

// batchArgs is a batch on doc: a line, a copy of it moved by $references,
// and the steps given.
func batchArgs(doc string, more ...map[string]any) map[string]any {
	steps := []any{
		map[string]any{"tool": "entity_create_line", "args": map[string]any{"x1": 0, "y1": 0, "x2": 10, "y2": 0}, "bind": "base"},
		map[string]any{"tool": "entity_copy", "args": map[string]any{"handle": "$base", "dx": 0, "dy": 5}, "bind": "copy"},
	}
	for _, m := range more {
		steps = append(steps, m)
	}
	return map[string]any{"document_id": doc, "steps": steps}
}

func TestBatch(t *testing.T) {
	endpoint := startMCP(t, mcp.Config{})
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c := connect(t, endpoint, v, nil)
			doc := newDocument(t, c)
			res := call(t, c, "cad_batch", batchArgs(doc))
			var out struct {
				Status   string            `json:"status"`
				Bindings map[string]string `json:"bindings"`
			}
			structured(t, res, &out)
			if res.IsError || out.Status != "completed" || out.Bindings["copy"] == "" {
				t.Fatalf("cad_batch = %s, want completed with a binding for copy", text(res))
			}

			failing := batchArgs(doc, map[string]any{"tool": "entity_move", "args": map[string]any{"handle": "FFFF", "dx": 1, "dy": 1}})
			failing["on_error"] = "rollback"
			res = call(t, c, "cad_batch", failing)
			var failed struct {
				Status  string `json:"status"`
				Results []struct {
					Status string         `json:"status"`
					Error  map[string]any `json:"error"`
				} `json:"results"`
			}
			structured(t, res, &failed)
			if !res.IsError || failed.Status != "rolled_back" || len(failed.Results) != 3 || failed.Results[2].Error["kind"] == nil {
				t.Fatalf("cad_batch with a failing step = %s, want rolled_back, isError, the step's typed error", text(res))
			}
			if n := entityCount(t, c, doc); n != 2 {
				t.Errorf("entities after the rolled-back batch = %d, want 2", n)
			}
		})
	}
}

// deleteArgs is a batch that makes two points and deletes the first, a
// destructive step that asks for approval, with rollback on error.
func deleteArgs(doc, op string) map[string]any {
	args := batchArgs(doc, map[string]any{"tool": "entity_delete_many", "args": map[string]any{"handles": []any{"$base"}}})
	args["on_error"] = "rollback"
	if op != "" {
		args["operation_id"] = op
	}
	return args
}

func TestApprovalByElicitation(t *testing.T) {
	endpoint := startMCP(t, mcp.Config{})
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			for _, tc := range []struct {
				name     string
				answer   func(context.Context, *mcpsdk.ElicitParams) (*mcpsdk.ElicitResult, error)
				status   string
				entities int
			}{
				{"approve", approve, "completed", 1},
				{"deny", deny, "rolled_back", 0},
			} {
				t.Run(tc.name, func(t *testing.T) {
					c := connect(t, endpoint, v, tc.answer)
					doc := newDocument(t, c)
					res := call(t, c, "cad_batch", deleteArgs(doc, ""))
					var out struct {
						Status string `json:"status"`
					}
					structured(t, res, &out)
					if out.Status != tc.status {
						t.Fatalf("cad_batch with an approval answered %s = %s, want %s", tc.name, text(res), tc.status)
					}
					if len(c.asked) != 1 || !strings.Contains(c.asked[0], "entity_delete_many") {
						t.Errorf("elicitations = %q, want one about entity_delete_many", c.asked)
					}
					if n := entityCount(t, c, doc); n != tc.entities {
						t.Errorf("entities after %s = %d, want %d", tc.name, n, tc.entities)
					}
				})
			}
		})
	}
}

func TestNoElicitationIsUnsupported(t *testing.T) {
	endpoint := startMCP(t, mcp.Config{})
	c := connect(t, endpoint, versions[0], nil)
	doc := newDocument(t, c)
	// unsupported, not timed_out: the engine refuses the pick at once
	// instead of asking a client that cannot answer and waiting out the
	// request's timeout.
	res := call(t, c, "point_pick", map[string]any{"document_id": doc, "prompt": "where?"})
	if e := toolError(t, res); e["kind"] != "unsupported" {
		t.Errorf("point_pick without elicitation: error %v, want unsupported", e)
	}
	// Without elicitation there is no approval policy: the delete runs.
	res = call(t, c, "cad_batch", deleteArgs(doc, ""))
	var out struct {
		Status string `json:"status"`
	}
	structured(t, res, &out)
	if out.Status != "completed" {
		t.Errorf("cad_batch with a delete, no elicitation = %s, want completed", text(res))
	}
}

func TestPick(t *testing.T) {
	endpoint := startMCP(t, mcp.Config{})
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c := connect(t, endpoint, v, func(context.Context, *mcpsdk.ElicitParams) (*mcpsdk.ElicitResult, error) {
				return &mcpsdk.ElicitResult{Action: "accept", Content: map[string]any{"x": 2.5, "y": -1}}, nil
			})
			doc := newDocument(t, c)
			var p struct{ X, Y float64 }
			res := call(t, c, "point_pick", map[string]any{"document_id": doc, "prompt": "where?"})
			structured(t, res, &p)
			if res.IsError || p.X != 2.5 || p.Y != -1 {
				t.Errorf("point_pick = %s, want (2.5, -1)", text(res))
			}
		})
	}
}

func TestProgress(t *testing.T) {
	endpoint := startMCP(t, mcp.Config{})
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c := connect(t, endpoint, v, nil)
			doc := newDocument(t, c)
			res, err := c.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "cad_batch", Arguments: batchArgs(doc), Meta: mcpsdk.Meta{"progressToken": "p1"}})
			if err != nil || res.IsError {
				t.Fatalf("cad_batch with a progress token = %v, %v", res, err)
			}
			// The client handles notifications on their own goroutines:
			// the last may come after the result.
			var got []float64
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				c.mu.Lock()
				got = slices.Clone(c.progress)
				c.mu.Unlock()
				if slices.Contains(got, 2) {
					break
				}
			}
			if !slices.Contains(got, 1) || !slices.Contains(got, 2) {
				t.Errorf("progress = %v, want up to step 2", got)
			}
		})
	}
}

func TestReplay(t *testing.T) {
	endpoint := startMCP(t, mcp.Config{})
	c := connect(t, endpoint, versions[0], nil)
	doc := newDocument(t, c)
	args := batchArgs(doc)
	args["operation_id"] = "op-replay-1"
	first := call(t, c, "cad_batch", args)
	again := call(t, c, "cad_batch", args)
	if again.Meta["cadbridge/replayed"] != true {
		t.Errorf("retry with the same operation id: replayed = %v, want true", again.Meta["cadbridge/replayed"])
	}
	a, _ := json.Marshal(first.StructuredContent)
	b, _ := json.Marshal(again.StructuredContent)
	if strings.Replace(string(b), `"replayed":true`, `"replayed":false`, 1) != string(a) {
		t.Errorf("replayed result = %s, want the first %s", b, a)
	}
	if n := entityCount(t, c, doc); n != 2 {
		t.Errorf("entities after a replayed retry = %d, want 2", n)
	}
	// _meta.operation_id does the same for a single tool.
	res, err := c.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "entity_create_point", Arguments: map[string]any{"document_id": doc, "x": 1, "y": 1}, Meta: mcpsdk.Meta{"operation_id": "op-replay-2"}})
	if err != nil {
		t.Fatal(err)
	}
	res2, _ := c.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "entity_create_point", Arguments: map[string]any{"document_id": doc, "x": 1, "y": 1}, Meta: mcpsdk.Meta{"operation_id": "op-replay-2"}})
	if res.Meta["cadbridge/operation_id"] != "op-replay-2" || res2.Meta["cadbridge/replayed"] != true {
		t.Errorf("_meta.operation_id: first %v, retry %v; want op-replay-2, replayed", res.Meta, res2.Meta)
	}
}

func TestCancelledBatchRollsBack(t *testing.T) {
	endpoint := startMCP(t, mcp.Config{})
	asked, gaveUp := make(chan struct{}, 1), make(chan struct{})
	c := connect(t, endpoint, "2025-11-25", func(ctx context.Context, _ *mcpsdk.ElicitParams) (*mcpsdk.ElicitResult, error) {
		asked <- struct{}{}
		select { // the user never answers
		case <-ctx.Done():
		case <-gaveUp:
		}
		return nil, context.Canceled
	})
	doc := newDocument(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, &mcpsdk.CallToolParams{Name: "cad_batch", Arguments: deleteArgs(doc, "op-cancel")})
		errc <- err
	}()
	<-asked
	cancel()
	defer close(gaveUp)
	if err := <-errc; err == nil {
		t.Fatalf("cancelled cad_batch = nil error, want cancelled")
	}
	deadline := time.Now().Add(10 * time.Second)
	for entityCount(t, c, doc) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("entities after the cancelled batch = %d, want 0 (rolled back)", entityCount(t, c, doc))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDrawingResource(t *testing.T) {
	endpoint := startMCP(t, mcp.Config{})
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c := connect(t, endpoint, v, nil)
			doc := newDocument(t, c)
			call(t, c, "entity_create_circle", map[string]any{"document_id": doc, "cx": 0, "cy": 0, "radius": 5})
			res, err := c.ReadResource(context.Background(), &mcpsdk.ReadResourceParams{URI: mcp.DrawingURI(doc, "svg")})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Contents) != 1 || res.Contents[0].MIMEType != "image/svg+xml" || !strings.Contains(res.Contents[0].Text, "<svg") || !strings.Contains(res.Contents[0].Text, "circle") {
				t.Errorf("read %s = %+v, want an SVG with the circle", mcp.DrawingURI(doc, "svg"), res.Contents)
			}
			if _, err := c.ReadResource(context.Background(), &mcpsdk.ReadResourceParams{URI: mcp.DrawingURI("doc-none", "svg")}); err == nil {
				t.Errorf("read the drawing of no document: nil error, want not found")
			}
		})
	}
}

// TestRoundStateSealed drives the rounds of 2026-07-28 by hand: the state
// an input_required result hands the client is refused when altered, when
// used twice and when expired, and nothing reaches the engine then.
func TestRoundStateSealed(t *testing.T) {
	endpoint := startMCP(t, mcp.Config{StateTTL: time.Second})
	cl := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "by-hand", Version: "1"}, &mcpsdk.ClientOptions{
		MultiRoundTrip: &mcpsdk.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(ctx context.Context, r *mcpsdk.ElicitRequest) (*mcpsdk.ElicitResult, error) {
			return approve(ctx, r.Params)
		},
	})
	cs, err := cl.Connect(context.Background(), &mcpsdk.StreamableClientTransport{Endpoint: endpoint}, &mcpsdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	c := &client{ClientSession: cs}
	doc := newDocument(t, c)
	args := deleteArgs(doc, "op-sealed")
	first := call(t, c, "cad_batch", args)
	if !first.NeedsInput() || first.RequestState == "" || len(first.InputRequests) != 1 {
		t.Fatalf("cad_batch with an approval = %+v, want input_required with a request state", first)
	}
	var reqID string
	for id := range first.InputRequests {
		reqID = id
	}
	answers := mcpsdk.InputResponseMap{reqID: &mcpsdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "approve"}}}
	retry := func(state string) (*mcpsdk.CallToolResult, error) {
		return cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "cad_batch", Arguments: args, InputResponses: answers, RequestState: state})
	}
	body, sig, _ := strings.Cut(first.RequestState, ".")
	tampered := []string{
		body[:len(body)-2] + "xy." + sig,
		body + "." + sig[:len(sig)-2] + "AA",
		"not-a-state",
	}
	for _, st := range tampered {
		if res, err := retry(st); err == nil || !strings.Contains(err.Error(), "requestState refused") {
			t.Errorf("retry with state %q = %v, %v; want refused", st, res, err)
		}
	}
	if n := entityCount(t, c, doc); n != 2 {
		t.Errorf("entities while the approval waits = %d, want 2 (nothing deleted)", n)
	}
	done, err := retry(first.RequestState)
	if err != nil || done.NeedsInput() || done.IsError {
		t.Fatalf("retry with the sealed state = %v, %v; want the completed batch", done, err)
	}
	if _, err := retry(first.RequestState); err == nil {
		t.Errorf("second retry with the same state: nil error, want refused (answered once)")
	}
	if n := entityCount(t, c, doc); n != 1 {
		t.Errorf("entities after the approved delete = %d, want 1", n)
	}

	// A state past its expiry is refused, and the call it held is cancelled.
	args = deleteArgs(doc, "op-expired")
	first = call(t, c, "cad_batch", args)
	if !first.NeedsInput() {
		t.Fatalf("cad_batch = %+v, want input_required", first)
	}
	for id := range first.InputRequests {
		answers = mcpsdk.InputResponseMap{id: &mcpsdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "approve"}}}
	}
	time.Sleep(1100 * time.Millisecond)
	if _, err := retry(first.RequestState); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("retry after expiry = %v, want refused: expired", err)
	}
	if n := entityCount(t, c, doc); n != 1 {
		t.Errorf("entities after the expired batch = %d, want 1 (rolled back)", n)
	}
}

func TestResourceUpdated(t *testing.T) {
	endpoint := startMCP(t, mcp.Config{})
	c := connect(t, endpoint, "2025-11-25", nil)
	doc := newDocument(t, c)
	uri := mcp.DrawingURI(doc, "svg")
	if err := c.Subscribe(context.Background(), &mcpsdk.SubscribeParams{URI: uri}); err != nil {
		t.Fatalf("Subscribe(%s) = %v", uri, err)
	}
	call(t, c, "entity_create_point", map[string]any{"document_id": doc, "x": 1, "y": 2})
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		c.mu.Lock()
		got := slices.Contains(c.updated, uri)
		c.mu.Unlock()
		if got {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no notifications/resources/updated for %s after a change", uri)
		}
	}
}

// TestUnlistedToolCallable: the discover profile lists a few tools, and a
// tool it does not list is still called by name.
func TestUnlistedToolCallable(t *testing.T) {
	endpoint := startMCP(t, mcp.Config{Profile: mcp.ProfileDiscover})
	c := connect(t, endpoint, versions[0], nil)
	res, err := c.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, tl := range res.Tools {
		listed = append(listed, tl.Name)
	}
	if slices.Contains(listed, "entity_create_line") || !slices.Contains(listed, "tool_search") || len(listed) > 8 {
		t.Fatalf("discover lists %v, want the base and document tools", listed)
	}
	var created struct {
		Document struct {
			DocumentID string `json:"document_id"`
		} `json:"document"`
	}
	structured(t, call(t, c, "document_create", map[string]any{"name": "d"}), &created)
	var line struct {
		Handle string `json:"handle"`
	}
	structured(t, call(t, c, "entity_create_line", map[string]any{"document_id": created.Document.DocumentID, "x1": 0, "y1": 0, "x2": 1, "y2": 0}), &line)
	if line.Handle == "" {
		t.Errorf("entity_create_line by name gave no handle")
	}
}
