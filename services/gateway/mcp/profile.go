package mcp

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Profiles: which tools tools/list shows (DESIGN §13). Every tool of the
// catalog stays callable under every profile, by name in tools/call (for
// a client that learned it from tool_describe) or as a cad_batch step.
const (
	// ProfileFull lists every tool.
	ProfileFull = "full"
	// ProfileLean lists the base tools and the ~25 most drafting needs
	// (ToolOptions.lean in the contracts). The default.
	ProfileLean = "lean"
	// ProfileDiscover lists the base tools and the four document tools:
	// an agent finds the rest with tool_search.
	ProfileDiscover = "discover"
)

// Profiles are the profile names, the default first.
var Profiles = []string{ProfileLean, ProfileFull, ProfileDiscover}

// baseTools are listed by every profile: the batch, the two catalog tools
// and view_render (listed once the catalog has it).
var baseTools = []string{BatchTool, "tool_search", "tool_describe", "view_render"}

// discoverTools are what the discover profile adds to the base.
var discoverTools = []string{"document_create", "document_info", "document_import", "document_export"}

// Listed is the tools of catalog that tools/list shows: those patterns
// choose (see [Select]) when there are any, else those of profile (empty
// means [ProfileLean]), in catalog order.
func Listed(catalog []*tool, profile string, patterns []string) ([]*tool, error) {
	if len(patterns) > 0 {
		return Select(catalog, patterns)
	}
	var keep func(*tool) bool
	switch profile {
	case ProfileFull:
		return catalog, nil
	case ProfileLean, "":
		keep = func(t *tool) bool { return t.lean || slices.Contains(baseTools, t.name) }
	case ProfileDiscover:
		keep = func(t *tool) bool {
			return slices.Contains(baseTools, t.name) || slices.Contains(discoverTools, t.name)
		}
	default:
		return nil, fmt.Errorf("mcp: profile %q, want one of %s", profile, strings.Join(Profiles, ", "))
	}
	var out []*tool
	for _, t := range catalog {
		if keep(t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// The MCP listing of a tool is its contract, compacted: what an agent
// pays for on every turn is kept to what helps it call the tool, and the
// engine still validates every call against the full schema (tools.list
// on /rpc and tool_describe serve that one). compactInput and
// compactOutput say what goes.

// compactInput is the listing of an input schema: without $schema (2020-12
// is MCP's default), x-cad-handle (an engine matter), additionalProperties
// false, the bounds that only restate a field's integer width, limits of
// lengths and counts (minLength, maxLength, minItems, maxItems: an
// argument past one is refused with the limit named), and regular
// expressions (a value domain of names, whose examples say the
// names and keep only the base ones, not the …2 and …X2 sizes; a bind
// name's).
// Definitions used once are inlined, and the others' names shortened
// (Point, not cad.engine.v1.Point).
func compactInput(s map[string]any) map[string]any {
	return compact(inlineDefs(s)).(map[string]any)
}

// inlineDefs puts each definition of s that is referenced once, and does
// not refer to itself, in place of its reference, and names the others by
// their last word; the schema validates the same values.
func inlineDefs(s map[string]any) map[string]any {
	defs, _ := s["$defs"].(map[string]any)
	if len(defs) == 0 {
		return s
	}
	const prefix = "#/$defs/"
	uses := map[string]int{}
	var count func(v any)
	count = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if r, ok := x["$ref"].(string); ok {
				uses[strings.TrimPrefix(r, prefix)]++
			}
			for _, e := range x {
				count(e)
			}
		case []any:
			for _, e := range x {
				count(e)
			}
		}
	}
	count(s)
	short := map[string]string{}
	taken := map[string]bool{}
	for name := range defs {
		base := name[strings.LastIndex(name, ".")+1:]
		if taken[base] {
			base = name
		}
		taken[base] = true
		short[name] = base
	}
	var rewrite func(v any, depth int) any
	rewrite = func(v any, depth int) any {
		switch x := v.(type) {
		case map[string]any:
			if r, ok := x["$ref"].(string); ok && len(x) == 1 {
				name := strings.TrimPrefix(r, prefix)
				if def, ok := defs[name].(map[string]any); ok && uses[name] == 1 && depth < 8 {
					return rewrite(def, depth+1)
				}
				return map[string]any{"$ref": prefix + short[name]}
			}
			out := map[string]any{}
			for k, e := range x {
				if k != "$defs" {
					out[k] = rewrite(e, depth)
				}
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = rewrite(e, depth)
			}
			return out
		}
		return v
	}
	out := rewrite(s, 0).(map[string]any)
	kept := map[string]any{}
	for name, def := range defs {
		if uses[name] != 1 {
			kept[short[name]] = rewrite(def, 0)
		}
	}
	if len(kept) > 0 {
		out["$defs"] = kept
	}
	return out
}

// compactOutput is the listing of an output schema: its fields, each
// with its type only — no enum, items, nested fields (a message is
// {"type":"object"}), required or examples. An agent reads the result
// itself; the listing tells it which fields to expect, and tool_describe
// serves the whole schema. A field whose schema has no type (a
// google.protobuf.Value) lists every JSON type: bare {} would be
// cheaper, but clients flag a schema that constrains nothing (the MCP
// Inspector warns about each).
func compactOutput(s map[string]any) map[string]any {
	out := map[string]any{"type": "object"}
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		return out
	}
	typed := map[string]any{}
	for k, p := range props {
		p, _ := p.(map[string]any)
		switch t, ok := p["type"]; {
		case ok:
			typed[k] = map[string]any{"type": t}
		case p["$ref"] != nil:
			typed[k] = map[string]any{"type": "object"}
		default:
			typed[k] = map[string]any{"type": []any{"object", "array", "string", "number", "boolean", "null"}}
		}
	}
	out["properties"] = typed
	return out
}

// compact drops, everywhere in a schema, what compactInput says goes.
func compact(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			switch {
			case k == "$schema", k == "x-cad-handle", k == "pattern":
			case k == "maxLength" || k == "maxItems" || k == "minItems" || k == "minLength":
			case k == "additionalProperties" && e == false:
			case (k == "minimum" || k == "maximum") && widthBound(e):
			case k == "examples":
				out[k] = baseNames(e)
			default:
				out[k] = compact(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = compact(e)
		}
		return out
	}
	return v
}

// widthBound reports whether a bound is that of a 32-bit integer.
func widthBound(v any) bool {
	f, ok := v.(float64)
	return ok && (f == math.MinInt32 || f == math.MaxInt32 || f == math.MaxUint32)
}

// baseNames drops from a list of names those that are another name of
// the list with "2" or "X2" after it (linetypes' half and double sizes).
func baseNames(v any) any {
	names, ok := v.([]any)
	if !ok {
		return v
	}
	has := map[any]bool{}
	for _, n := range names {
		has[n] = true
	}
	var out []any
	for _, n := range names {
		s, _ := n.(string)
		if b, ok := strings.CutSuffix(s, "X2"); ok && has[b] {
			continue
		}
		if b, ok := strings.CutSuffix(s, "2"); ok && has[b] {
			continue
		}
		out = append(out, n)
	}
	return out
}
