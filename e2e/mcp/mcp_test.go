// Package mcp_test drives cadbridge's MCP surface end to end over real
// transports: the gateway binary's /mcp and "cadbridge mcp" as a
// subprocess, with the Go SDK's client, the official TypeScript SDK's
// client (run by Node) and the MCP Inspector's CLI.
package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cadbridge/cadbridge/internal/dxftest"
	"github.com/cadbridge/cadbridge/internal/proctest"
)

// TestMain builds the binaries. The servers these tests start list every
// tool (CADBRIDGE_MCP_PROFILE=full, inherited; --mcp-profile full where
// a node client starts the server, which passes it only a few variables),
// since the scenarios check the annotations of tools the default lean
// profile does not list; TestProfiles starts its own with each profile.
func TestMain(m *testing.M) {
	os.Setenv("CADBRIDGE_MCP_PROFILE", "full")
	os.Exit(proctest.Main(m, "./cmd/cadbridge"))
}

// startGateway runs an engine and a gateway binary; it returns the MCP
// endpoint.
func startGateway(t *testing.T, args ...string) string {
	t.Helper()
	engine := proctest.StartEngine(t, "127.0.0.1:0", "memory:")
	gw := proctest.StartGateway(t, "127.0.0.1:0", engine.Addr, append([]string{"--check-contracts"}, args...)...)
	return "http://" + gw.Addr + "/mcp"
}

// cadbridgeMCP is the command that runs "cadbridge mcp" on a store of its
// own.
func cadbridgeMCP(t *testing.T) *exec.Cmd {
	cmd := exec.Command(proctest.Bin("cadbridge"), "mcp", "--store", "memory:")
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+t.TempDir())
	return cmd
}

// user answers the elicitations of a Go SDK client: with decision, or
// not at all (hang) until the request is cancelled.
type user struct {
	mu       sync.Mutex
	decision string
	asked    []string
	progress []float64
	hang     chan struct{} // closed when an elicitation waits, if set
	// gaveUp, closed, ends a hanging elicitation: the Go SDK's client does
	// not cancel its handler when the server withdraws the question, and
	// its session waits for the handler.
	gaveUp chan struct{}
}

func (u *user) options() *mcpsdk.ClientOptions {
	return &mcpsdk.ClientOptions{
		ElicitationHandler: func(ctx context.Context, r *mcpsdk.ElicitRequest) (*mcpsdk.ElicitResult, error) {
			u.mu.Lock()
			u.asked = append(u.asked, r.Params.Message)
			decision, hang := u.decision, u.hang
			u.mu.Unlock()
			if hang != nil {
				close(hang)
				select {
				case <-ctx.Done():
				case <-u.gaveUp:
				}
				return nil, context.Canceled
			}
			return &mcpsdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": decision}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcpsdk.ProgressNotificationClientRequest) {
			u.mu.Lock()
			u.progress = append(u.progress, r.Params.Progress)
			u.mu.Unlock()
		},
	}
}

func dial(t *testing.T, transport mcpsdk.Transport, version string, u *user) *mcpsdk.ClientSession {
	t.Helper()
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "e2e", Version: "1"}, u.options()).Connect(context.Background(), transport, &mcpsdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("Connect at %s = %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *mcpsdk.ClientSession, name string, args map[string]any) (*mcpsdk.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s) = %v", name, err)
	}
	var out map[string]any
	if res.StructuredContent != nil {
		data, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(data, &out)
	}
	return res, out
}

func steps(more ...any) []any {
	return append([]any{
		map[string]any{"tool": "entity_create_line", "args": map[string]any{"x1": 0, "y1": 0, "x2": 10, "y2": 0}, "bind": "base"},
		map[string]any{"tool": "entity_copy", "args": map[string]any{"handle": "$base", "dx": 0, "dy": 5}, "bind": "copy"},
	}, more...)
}

var deleteBase = map[string]any{"tool": "entity_delete_many", "args": map[string]any{"handles": []any{"$base"}}}

// scenario is what an agent does, checked step by step: the catalog, a
// tool call, a batch with $references, a failing step, a destructive step
// approved and one denied by elicitation, progress, a replayed retry and
// the drawing as a resource.
func scenario(t *testing.T, cs *mcpsdk.ClientSession, u *user) {
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	annotations := map[string]*mcpsdk.ToolAnnotations{}
	for _, tl := range tools.Tools {
		if tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Errorf("tool %s: input schema %v, output schema %v; want both", tl.Name, tl.InputSchema != nil, tl.OutputSchema != nil)
		}
		annotations[tl.Name] = tl.Annotations
	}
	if a := annotations["entity_delete_many"]; a == nil || !*a.DestructiveHint || *a.OpenWorldHint {
		t.Errorf("entity_delete_many annotations = %+v, want destructive, not open-world", a)
	}
	if a := annotations["cad_batch"]; a == nil {
		t.Fatalf("tools/list has no cad_batch")
	}

	_, created := callTool(t, cs, "document_create", map[string]any{"name": "e2e"})
	doc, _ := created["document"].(map[string]any)["document_id"].(string)
	if res, line := callTool(t, cs, "entity_create_line", map[string]any{"document_id": doc, "x1": 0, "y1": 0, "x2": 3, "y2": 4}); res.IsError || line["handle"] == nil {
		t.Errorf("entity_create_line = %+v, want a handle", res)
	}
	if _, batch := callTool(t, cs, "cad_batch", map[string]any{"document_id": doc, "steps": steps()}); batch["status"] != "completed" {
		t.Errorf("cad_batch with $references: status %v, want completed", batch["status"])
	}
	res, failed := callTool(t, cs, "cad_batch", map[string]any{"document_id": doc, "steps": steps(map[string]any{"tool": "entity_move", "args": map[string]any{"handle": "FFFF", "dx": 1, "dy": 1}})})
	if e, _ := res.Meta["cadbridge/error"].(map[string]any); !res.IsError || failed["status"] != "failed" || e["kind"] == nil || e["operation_id"] == nil {
		t.Errorf("cad_batch with a failing step = isError %v, status %v, error %v; want failed with a typed error", res.IsError, failed["status"], e)
	}

	for _, tc := range []struct{ decision, status string }{{"approve", "completed"}, {"deny", "rolled_back"}} {
		u.mu.Lock()
		u.decision, u.asked = tc.decision, nil
		u.mu.Unlock()
		_, out := callTool(t, cs, "cad_batch", map[string]any{"document_id": doc, "on_error": "rollback", "steps": steps(deleteBase)})
		if out["status"] != tc.status || len(u.asked) != 1 {
			t.Errorf("delete answered %s: status %v, asked %q; want %s after one elicitation", tc.decision, out["status"], u.asked, tc.status)
		}
	}

	if _, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "cad_batch", Arguments: map[string]any{"document_id": doc, "steps": steps()}, Meta: mcpsdk.Meta{"progressToken": 7}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "progress up to step 2", func() bool {
		u.mu.Lock()
		defer u.mu.Unlock()
		return len(u.progress) >= 2 && u.progress[len(u.progress)-1] == 2
	})

	replay := map[string]any{"document_id": doc, "steps": steps(), "operation_id": "op-replay-" + doc}
	callTool(t, cs, "cad_batch", replay)
	if _, again := callTool(t, cs, "cad_batch", replay); again["replayed"] != true {
		t.Errorf("retry with the same operation id: replayed %v, want true", again["replayed"])
	}

	svg, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "cad://documents/" + doc + "/drawing.svg"})
	if err != nil || len(svg.Contents) != 1 || !strings.Contains(svg.Contents[0].Text, "<svg") {
		t.Errorf("read the SVG drawing = %v, %v; want an SVG", svg, err)
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func TestGoClient(t *testing.T) {
	endpoint := startGateway(t)
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run("mcp-http/"+version, func(t *testing.T) {
			u := &user{}
			scenario(t, dial(t, &mcpsdk.StreamableClientTransport{Endpoint: endpoint}, version, u), u)
		})
		t.Run("cadbridge-mcp/"+version, func(t *testing.T) {
			u := &user{}
			scenario(t, dial(t, &mcpsdk.CommandTransport{Command: cadbridgeMCP(t)}, version, u), u)
		})
	}
}

// TestGoClientCancel: cancelling the request of a batch that waits on an
// approval cancels the batch in the engine, which rolls it back.
func TestGoClientCancel(t *testing.T) {
	u := &user{hang: make(chan struct{}), gaveUp: make(chan struct{})}
	cs := dial(t, &mcpsdk.StreamableClientTransport{Endpoint: startGateway(t)}, "2025-11-25", u)
	_, created := callTool(t, cs, "document_create", nil)
	doc := created["document"].(map[string]any)["document_id"].(string)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "cad_batch", Arguments: map[string]any{"document_id": doc, "on_error": "rollback", "steps": steps(deleteBase)}})
		errc <- err
	}()
	<-u.hang
	cancel()
	defer close(u.gaveUp)
	if err := <-errc; err == nil {
		t.Fatalf("cancelled cad_batch: nil error")
	}
	waitFor(t, "the cancelled batch rolled back", func() bool {
		_, info := callTool(t, cs, "document_info", map[string]any{"document_id": doc})
		return info["entity_count"] == float64(0)
	})
}

// TestGoClientCancelRunaway: an export that would draw 10^10 lines (the
// engine's expansion limit raised so that it runs) stops when the client
// cancels its request, and the engine is idle a second later.
func TestGoClientCancelRunaway(t *testing.T) {
	engine := proctest.StartEngine(t, "127.0.0.1:0", "memory:", "--expansion-limit", "1000000000000000000")
	gw := proctest.StartGateway(t, "127.0.0.1:0", engine.Addr)
	cs := dial(t, &mcpsdk.StreamableClientTransport{Endpoint: "http://" + gw.Addr + "/mcp"}, "2025-11-25", &user{})
	_, imported := callTool(t, cs, "document_import", map[string]any{"name": "bomb", "format": "dxf", "content": dxftest.NestedBomb(10, 10)})
	doc := imported["document"].(map[string]any)["document_id"].(string)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "document_export", Arguments: map[string]any{"document_id": doc, "format": "svg"}})
		errc <- err
	}()
	engine.Busy(t)
	cancel()
	stopped := time.Now()
	if err := <-errc; err == nil {
		t.Error("the cancelled document_export succeeded")
	}
	engine.IdleWithinASecond(t, stopped)
}

// TestGoClientTamperedState: on 2026-07-28, a requestState altered by the
// client is refused and changes nothing; the sealed one goes on.
func TestGoClientTamperedState(t *testing.T) {
	opts := (&user{decision: "approve"}).options()
	opts.MultiRoundTrip = &mcpsdk.MultiRoundTripOptions{Disabled: true}
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "e2e", Version: "1"}, opts).Connect(context.Background(), &mcpsdk.StreamableClientTransport{Endpoint: startGateway(t)}, &mcpsdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	_, created := callTool(t, cs, "document_create", nil)
	doc := created["document"].(map[string]any)["document_id"].(string)
	args := map[string]any{"document_id": doc, "on_error": "rollback", "steps": steps(deleteBase)}
	first, _ := callTool(t, cs, "cad_batch", args)
	if !first.NeedsInput() {
		t.Fatalf("cad_batch with an approval = %+v, want input_required", first)
	}
	answers := mcpsdk.InputResponseMap{}
	for id := range first.InputRequests {
		answers[id] = &mcpsdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "approve"}}
	}
	state := []byte(first.RequestState)
	state[3] ^= 1
	if _, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "cad_batch", Arguments: args, InputResponses: answers, RequestState: string(state)}); err == nil || !strings.Contains(err.Error(), "requestState refused") {
		t.Errorf("retry with a tampered state = %v, want refused", err)
	}
	done, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "cad_batch", Arguments: args, InputResponses: answers, RequestState: first.RequestState})
	if err != nil || done.IsError {
		t.Fatalf("retry with the sealed state = %+v, %v; want completed", done, err)
	}
}

// nodeDir is the Node project of the TypeScript tests.
var nodeDir = filepath.Join("testdata", "node")

// needNode finds node and npm and the project's packages; without them the
// test is skipped, except under CI, where it fails.
func needNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = exec.LookPath("npm")
	}
	if err == nil {
		if _, statErr := os.Stat(filepath.Join(nodeDir, "node_modules", "@modelcontextprotocol", "sdk")); statErr != nil {
			cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
			cmd.Dir = nodeDir
			if out, ciErr := cmd.CombinedOutput(); ciErr != nil {
				err = ciErr
				t.Logf("npm ci:\n%s", out)
			}
		}
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Node tests need node, npm and %s/node_modules (npm ci): %v", nodeDir, err)
		}
		t.Skipf("no Node here: %v", err)
	}
	return node
}

func runNode(t *testing.T, node string, args ...string) string {
	t.Helper()
	return runNodeEnv(t, node, nil, args...)
}

// runNodeEnv runs node with env added to the test's environment.
func runNodeEnv(t *testing.T, node string, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = nodeDir
	cmd.Env = append(append(os.Environ(), "XDG_DATA_HOME="+t.TempDir(), "MCP_CATALOG_PATH="+filepath.Join(t.TempDir(), "inspector.json")), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

func TestTypeScriptClient(t *testing.T) {
	node := needNode(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"mcp-http", []string{startGateway(t)}},
		{"cadbridge-mcp", []string{"stdio", proctest.Bin("cadbridge"), "mcp", "--store", "memory:", "--mcp-profile", "full"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := runNode(t, node, append([]string{"client.mjs"}, tc.args...)...)
			if !strings.Contains(out, " passed, 0 failed") || strings.Contains(out, "FAIL") {
				t.Errorf("TypeScript client:\n%s", out)
			}
			t.Logf("TypeScript client:\n%s", out)
		})
	}
}

// TestTypeScriptDiscover: an agent on the discover profile, with the
// TypeScript SDK's client (testdata/node/discover.mjs), on /mcp of a
// gateway run with --mcp-profile discover and on "cadbridge mcp" run with
// CADBRIDGE_MCP_PROFILE=discover. tools/list is exactly the eight tools
// of the profile; tool_search finds entity_fillet for "round this corner"
// and entity_array_polar for "put six holes around the flange" (top 3),
// and tool_describe their schemas; a cad_batch draws with them and tools
// it was not listed (two lines, their fillet by $references, a circle, a
// polar array of six), and entity_get shows the arc, the trimmed lines
// and the six holes where they belong; view_render is one image content,
// a PNG 768 px wide, with a one-line text; document_export png is image
// content and dxf a resource link that reads; no result carries a string
// over 20,000 characters in structuredContent or text.
func TestTypeScriptDiscover(t *testing.T) {
	node := needNode(t)
	const checks = 11 // the checks discover.mjs makes
	for _, tc := range []struct {
		name string
		env  []string
		args []string
	}{
		{"mcp-http", nil, []string{startGateway(t, "--mcp-profile", "discover")}},
		{"cadbridge-mcp", []string{"CADBRIDGE_MCP_PROFILE=discover"}, []string{"stdio", proctest.Bin("cadbridge"), "mcp", "--store", "memory:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := runNodeEnv(t, node, tc.env, append([]string{"discover.mjs"}, tc.args...)...)
			if !strings.Contains(out, fmt.Sprintf("\n%d passed, 0 failed", checks)) || strings.Contains(out, "FAIL") {
				t.Errorf("TypeScript client, discover profile:\n%s", out)
			}
			t.Logf("TypeScript client, discover profile:\n%s", out)
		})
	}
}

func TestInspectorCLI(t *testing.T) {
	node := needNode(t)
	inspector := filepath.Join("node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	server := []string{proctest.Bin("cadbridge"), "mcp", "--store", "memory:", "--mcp-profile", "full"}
	list := runNode(t, node, append(append([]string{inspector, "--cli"}, server...), "--method", "tools/list")...)
	var tools struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(list), &tools); err != nil || len(tools.Tools) < 40 {
		t.Fatalf("inspector tools/list = %d tools, %v; want the catalog:\n%.2000s", len(tools.Tools), err, list)
	}
	called := runNode(t, node, append(append([]string{inspector, "--cli"}, server...), "--method", "tools/call", "--tool-name", "document_create", "--tool-arg", "name=inspected")...)
	if !strings.Contains(called, `"document_id": "doc-`) || !strings.Contains(called, "resource_link") {
		t.Errorf("inspector tools/call document_create =\n%s\nwant a document and a link to its drawing", called)
	}
}
