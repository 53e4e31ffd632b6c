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
	// lean is true for the tools of the lean profile (ToolOptions.lean).
	lean bool
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

// documentIDSchema is the property every engine tool that works on a
// document lists besides its own arguments (tools.call's document_id).
// operation_id, which every tool takes too, is not listed: the server's
// instructions say what it is for, and the gateway checks it as on /rpc.
var documentIDSchema = map[string]any{"type": "string"}

// engineScoped are the tools that work on no document, whose listing has
// no document_id.
var engineScoped = []string{"document_create", "document_import", "system_status", "system_capabilities", "tool_search", "tool_describe"}

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
	if !slices.Contains(engineScoped, info.Name) {
		props["document_id"] = documentIDSchema
	}
	inJSON, err := json.Marshal(compactInput(in))
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(info.OutputSchema), &out); err != nil {
		return nil, fmt.Errorf("tool %s: output schema: %w", info.Name, err)
	}
	outJSON, err := json.Marshal(compactOutput(out))
	if err != nil {
		return nil, err
	}
	a := info.Annotations
	// destructiveHint means something only when readOnlyHint is false
	// (MCP's ToolAnnotations): a read-only tool's listing leaves it out.
	var destructive *bool
	if !a.GetReadOnly() {
		destructive = new(a.GetDestructive())
	}
	return &tool{
		name:         info.Name,
		group:        groupOf(info.Name),
		lean:         info.Lean,
		annotations:  a,
		paramHeaders: bytes.Contains(inJSON, []byte("x-mcp-header")),
		nameJSON:     mustJSON(info.Name),
		mcp: &mcpsdk.Tool{
			Name:         info.Name,
			Description:  info.Description,
			InputSchema:  json.RawMessage(inJSON),
			OutputSchema: json.RawMessage(outJSON),
			Annotations: &mcpsdk.ToolAnnotations{
				ReadOnlyHint:    a.GetReadOnly(),
				DestructiveHint: destructive,
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
	delete(props, "operation_id") // as for every tool: see documentIDSchema
	if req, ok := in["required"].([]any); ok {
		in["required"] = slices.DeleteFunc(req, func(v any) bool { return v == "session_id" || v == "_meta" })
	}
	inJSON, err := json.Marshal(compactInput(in))
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(info.ResultSchema), &out); err != nil {
		return nil, fmt.Errorf("%s result schema: %w", info.Name, err)
	}
	outJSON, err := json.Marshal(compactOutput(out))
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
			Description: "Run steps {tool, args, bind?} of any batchable tool in one go; " +
				`in a later step's args "$name" is the handle of the step bound as name, "$name.field" a field of its result.`,
			InputSchema:  json.RawMessage(inJSON),
			OutputSchema: json.RawMessage(outJSON),
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
