package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// BatchTool is the MCP name of cad.batch.
const BatchTool = "cad_batch"

// tool is one MCP tool: its MCP declaration and how a call of it reaches
// the gateway.
type tool struct {
	name  string
	group string
	mcp   *mcpsdk.Tool
	// batch is true for cad_batch, which is relayed as cad.batch with the
	// arguments as its params; every other tool is a tools.call.
	batch bool
	// annotations are the engine's, nil for cad_batch.
	annotations *enginev1.ToolAnnotations
	// nameJSON is name as a JSON string.
	nameJSON json.RawMessage
	// paramHeaders is true when the input schema binds an argument to an
	// HTTP header (x-mcp-header), which the SDK checks and the fast path
	// does not.
	paramHeaders bool
}

// Catalog is every tool the MCP surface can serve, in the engine's order,
// then cad_batch: each built from the generated contracts (enginev1.Tools
// and the cad.batch declaration in gatewayv1.Methods).
func Catalog() ([]*tool, error) {
	var out []*tool
	for _, info := range enginev1.Tools {
		t, err := engineTool(info)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	b, err := batchTool()
	if err != nil {
		return nil, err
	}
	return append(out, b), nil
}

// groupOf is a tool's group: the first word of its name.
func groupOf(name string) string {
	g, _, _ := strings.Cut(name, "_")
	return g
}

// documentIDSchema and operationIDSchema are the properties every engine
// tool takes besides its own arguments (tools.call's document_id and
// operation_id, as cadbridge's contracts declare them).
var (
	documentIDSchema  = map[string]any{"type": "string", "description": "The document to work on (doc-…); document_create and the system tools need none."}
	operationIDSchema = map[string]any{"type": "string", "minLength": 1, "maxLength": 128, "pattern": `^[\x21-\x7E]+$`, "description": "Makes a retry safe: the same id with the same call replays the recorded result."}
)

func engineTool(info enginev1.ToolInfo) (*tool, error) {
	var in map[string]any
	if err := json.Unmarshal([]byte(info.InputSchema), &in); err != nil {
		return nil, fmt.Errorf("tool %s: input schema: %w", info.Name, err)
	}
	props, _ := in["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		in["properties"] = props
	}
	for name := range map[string]bool{"document_id": true, "operation_id": true} {
		if _, clash := props[name]; clash {
			return nil, fmt.Errorf("tool %s: its arguments have %s, which MCP calls carry beside them", info.Name, name)
		}
	}
	props["document_id"] = documentIDSchema
	props["operation_id"] = operationIDSchema
	inJSON, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	a := info.Annotations
	destructive := a.GetDestructive()
	return &tool{
		name:         info.Name,
		group:        groupOf(info.Name),
		annotations:  a,
		paramHeaders: bytes.Contains(inJSON, []byte("x-mcp-header")),
		nameJSON:     mustJSON(info.Name),
		mcp: &mcpsdk.Tool{
			Name:         info.Name,
			Description:  info.Description,
			InputSchema:  json.RawMessage(inJSON),
			OutputSchema: json.RawMessage(info.OutputSchema),
			Annotations: &mcpsdk.ToolAnnotations{
				ReadOnlyHint:    a.GetReadOnly(),
				DestructiveHint: &destructive,
				IdempotentHint:  a.GetIdempotent(),
				OpenWorldHint:   new(false),
			},
		},
	}, nil
}

// batchTool is cad_batch: cad.batch's params schema without session_id
// (the surface chooses the session) and _meta (MCP has its own), and its
// result schema.
func batchTool() (*tool, error) {
	var info *gatewayv1.MethodInfo
	for i := range gatewayv1.Methods {
		if gatewayv1.Methods[i].Name == gatewayv1.MethodCadBatch {
			info = &gatewayv1.Methods[i]
		}
	}
	if info == nil {
		return nil, fmt.Errorf("%s is not declared", gatewayv1.MethodCadBatch)
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(info.ParamsSchema), &in); err != nil {
		return nil, fmt.Errorf("%s params schema: %w", info.Name, err)
	}
	props, _ := in["properties"].(map[string]any)
	delete(props, "session_id")
	delete(props, "_meta")
	if req, ok := in["required"].([]any); ok {
		in["required"] = slices.DeleteFunc(req, func(v any) bool { return v == "session_id" || v == "_meta" })
	}
	inJSON, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	return &tool{
		name:         BatchTool,
		group:        groupOf(BatchTool),
		batch:        true,
		paramHeaders: bytes.Contains(inJSON, []byte("x-mcp-header")),
		nameJSON:     mustJSON(BatchTool),
		mcp: &mcpsdk.Tool{
			Name: BatchTool,
			Description: info.Summary + " Steps are {tool, args, bind?}: any batchable tool of this server, with its own arguments; " +
				`a later argument "$name" is the handle of the step bound as name, "$name.field" a field of its result. ` +
				"Validation runs first and refuses the whole batch on any error; dry_run previews without running; " +
				"expected_revision and preconditions run it only if nothing moved; on_error is stop, continue or rollback.",
			InputSchema:  json.RawMessage(inJSON),
			OutputSchema: json.RawMessage(info.ResultSchema),
			Annotations: &mcpsdk.ToolAnnotations{
				DestructiveHint: new(true),
				OpenWorldHint:   new(false),
			},
		},
	}, nil
}

// Select is the tools of catalog that patterns choose: each pattern a
// group name or a path.Match pattern on tool names; no patterns choose
// every tool. A pattern that chooses nothing is an error, so that a typo
// does not serve an empty catalog.
func Select(catalog []*tool, patterns []string) ([]*tool, error) {
	if len(patterns) == 0 {
		return catalog, nil
	}
	chosen := map[string]bool{}
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("mcp tools: bad pattern %q: %w", p, err)
		}
		n := 0
		for _, t := range catalog {
			if ok, _ := path.Match(p, t.name); ok || p == t.group {
				chosen[t.name] = true
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("mcp tools: %q names no tool or group (groups: %s)", p, strings.Join(Groups(catalog), ", "))
		}
	}
	var out []*tool
	for _, t := range catalog {
		if chosen[t.name] {
			out = append(out, t)
		}
	}
	return out, nil
}

// Groups are the groups of catalog, in catalog order.
func Groups(catalog []*tool) []string {
	var out []string
	for _, t := range catalog {
		if !slices.Contains(out, t.group) {
			out = append(out, t.group)
		}
	}
	return out
}

// Cost is what a set of tools costs a model: the bytes of their entries
// in a tools/list result and an estimate of the tokens (bytes/4, the usual
// rule of thumb for JSON with English descriptions).
type Cost struct {
	// Name is a group's name, or "all".
	Name string
	// Tools is how many tools.
	Tools int
	// Bytes is the JSON size of the tools in a tools/list result.
	Bytes int
	// Tokens estimates the tokens, Bytes/4.
	Tokens int
}

// CatalogCost measures the cost of each group of catalog and of the whole,
// the last entry being "all". The sizes are those of the JSON the SDK
// sends, tool by tool.
func CatalogCost(catalog []*tool) ([]Cost, error) {
	var out []Cost
	all := Cost{Name: "all"}
	for _, g := range Groups(catalog) {
		c := Cost{Name: g}
		for _, t := range catalog {
			if t.group != g {
				continue
			}
			data, err := json.Marshal(t.mcp)
			if err != nil {
				return nil, err
			}
			c.Tools++
			c.Bytes += len(data) + 1 // the comma between entries
		}
		c.Tokens = c.Bytes / 4
		all.Tools += c.Tools
		all.Bytes += c.Bytes
		out = append(out, c)
	}
	all.Bytes += len(`{"tools":[]}`) - 1
	all.Tokens = all.Bytes / 4
	return append(out, all), nil
}

// Name is the tool's MCP name.
func (t *tool) Name() string { return t.name }

// mayAsk reports whether a call of t with these relay params may send the
// client a server request under policy: an interactive tool always, a
// destructive one under the destructive policy, and cad_batch when any of
// its steps may.
func (t *tool) mayAsk(params []byte, policy string, byName func(string) *enginev1.ToolAnnotations) bool {
	asks := func(a *enginev1.ToolAnnotations) bool {
		return a.GetInteractive() || (policy == PolicyDestructive && a.GetDestructive())
	}
	if !t.batch {
		return asks(t.annotations)
	}
	var batch struct {
		Steps []struct {
			Tool string `json:"tool"`
		} `json:"steps"`
	}
	if json.Unmarshal(params, &batch) != nil {
		return false // the gateway refuses it
	}
	for _, s := range batch.Steps {
		if asks(byName(s.Tool)) {
			return true
		}
	}
	return false
}

func mustJSON(s string) json.RawMessage {
	data, _ := json.Marshal(s)
	return data
}
