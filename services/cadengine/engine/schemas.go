package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// schemaDoc is a tool's generated JSON Schema (input or output) as a tree,
// for the questions validation asks beside contract.Schema.Validate: what
// type a result field has, what type an argument position expects, which
// argument fields hold entity handles. The generated schemas use only
// type, properties, required, items, $ref into $defs, enum, the numeric
// and length bounds and "x-cad-handle", so that is all it reads.
type schemaDoc struct {
	root map[string]any
}

// schemaNode is one (sub)schema of a schemaDoc; nil means "not described".
type schemaNode = map[string]any

func parseSchemaDoc(name, doc string) (*schemaDoc, error) {
	var root map[string]any
	if err := json.Unmarshal([]byte(doc), &root); err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	return &schemaDoc{root: root}, nil
}

// deref follows $ref (only "#/$defs/…" occurs) to the schema it names.
func (s *schemaDoc) deref(n schemaNode) schemaNode {
	for range 16 {
		ref, ok := n["$ref"].(string)
		if !ok {
			return n
		}
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		if !ok {
			return nil
		}
		defs, _ := s.root["$defs"].(map[string]any)
		n, _ = defs[name].(map[string]any)
	}
	return nil
}

// property is the schema of an object's property, or nil.
func (s *schemaDoc) property(n schemaNode, name string) schemaNode {
	props, _ := s.deref(n)["properties"].(map[string]any)
	p, _ := props[name].(map[string]any)
	return s.deref(p)
}

// items is the schema of an array's elements, or nil.
func (s *schemaDoc) items(n schemaNode) schemaNode {
	it, _ := s.deref(n)["items"].(map[string]any)
	return s.deref(it)
}

// typeOf is the node's JSON type ("" when it does not say).
func typeOf(n schemaNode) string {
	t, _ := n["type"].(string)
	return t
}

// isHandle says whether the node holds an entity handle.
func isHandle(n schemaNode) bool {
	b, _ := n["x-cad-handle"].(bool)
	return b
}

// hasHandle says whether a result schema has a top-level handle field, the
// one a bare "$name" reference and the short step result use.
func (s *schemaDoc) hasHandle() bool {
	return isHandle(s.property(s.root, "handle"))
}

// fits reports whether a value valid under out (a field of a step's result
// schema, in doc od) may stand where in (a position in another step's
// argument schema, in doc id) expects a value — by JSON type, since the
// value itself is known only when the step runs: an integer fits a number
// but a number does not fit an integer; objects fit when every property
// the argument requires exists in the result and every result property is
// one the argument accepts, with fitting types; arrays when their elements
// fit. An undescribed position fits anything (the schema check reports an
// unknown field there).
func fits(od *schemaDoc, out schemaNode, id *schemaDoc, in schemaNode) bool {
	return fitsDepth(od, od.deref(out), id, id.deref(in), 0)
}

func fitsDepth(od *schemaDoc, out schemaNode, id *schemaDoc, in schemaNode, depth int) bool {
	if in == nil {
		return true
	}
	if out == nil || depth > 16 {
		return false
	}
	want, got := typeOf(in), typeOf(out)
	switch want {
	case "":
		return true
	case "number":
		return got == "number" || got == "integer"
	case "object":
		if got != "object" {
			return false
		}
		outProps, _ := out["properties"].(map[string]any)
		if req, ok := in["required"].([]any); ok {
			for _, r := range req {
				if _, ok := outProps[r.(string)]; !ok {
					return false
				}
			}
		}
		for name := range outProps {
			inProp := id.property(in, name)
			if inProp == nil || !fitsDepth(od, od.property(out, name), id, inProp, depth+1) {
				return false
			}
		}
		return true
	case "array":
		return got == "array" && fitsDepth(od, od.items(out), id, id.items(in), depth+1)
	default:
		return got == want
	}
}

// placeholder is a value valid under n, standing in for a $reference
// while the step's arguments are checked against their schema before
// anything runs: the reference's type was checked by fits, and its value
// is checked again, against the same schema, when the step runs.
func (s *schemaDoc) placeholder(n schemaNode) any {
	return s.placeholderDepth(s.deref(n), 0)
}

func (s *schemaDoc) placeholderDepth(n schemaNode, depth int) any {
	if enum, ok := n["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	// A value domain: its members are listed as examples (names) or as an
	// enum under allOf (integers).
	if ex, ok := n["examples"].([]any); ok && len(ex) > 0 {
		return ex[0]
	}
	if all, ok := n["allOf"].([]any); ok {
		for _, sub := range all {
			if enum, ok := sub.(map[string]any)["enum"].([]any); ok && len(enum) > 0 {
				return enum[0]
			}
		}
	}
	num := func(key string) (float64, bool) {
		f, ok := n[key].(float64)
		return f, ok
	}
	switch typeOf(n) {
	case "integer", "number":
		v := 0.0
		if lo, ok := num("minimum"); ok && v < lo {
			v = lo
		}
		if lo, ok := num("exclusiveMinimum"); ok && v <= lo {
			v = math.Floor(lo) + 1
		}
		if hi, ok := num("maximum"); ok && v > hi {
			v = hi
		}
		if typeOf(n) == "integer" {
			v = math.Ceil(v)
		}
		return v
	case "boolean":
		return false
	case "object":
		obj := map[string]any{}
		if depth < 8 {
			req, _ := n["required"].([]any)
			for _, r := range req {
				name := r.(string)
				obj[name] = s.placeholderDepth(s.property(n, name), depth+1)
			}
		}
		return obj
	case "array":
		arr := []any{}
		if lo, ok := num("minItems"); ok && depth < 8 {
			for range int(lo) {
				arr = append(arr, s.placeholderDepth(s.items(n), depth+1))
			}
		}
		return arr
	default:
		str := "1" // a valid handle, for handle positions
		if lo, ok := num("minLength"); ok && lo > 1 {
			str = strings.Repeat("1", int(lo))
		}
		return str
	}
}
