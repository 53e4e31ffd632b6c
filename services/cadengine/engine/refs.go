package engine

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// References between the steps of a batch.
//
// A step with bind "edge" names its result. In a later step's args, a
// string value that is, as a whole, "$edge" stands for that result's
// handle; "$edge.field" for a field of the result, "$edge.list.0" for an
// element of a list field, with negative indexes counting from the end
// ("$edge.handles.-1" is the last). "$$" at the start is a literal "$":
// "$$5" is the string "$5". Only whole string values are references, at
// any depth of the args (inside objects and lists too); keys never are.
// Any other string that starts with a single "$" ("$", "$5", "$a..b") is
// a malformed reference, refused as unresolved_ref, so a typo never passes
// as text.
//
// Checking happens twice. Before anything runs, every reference must name
// a binding of an earlier step, and its type — read from the binding
// step's output schema — must fit the type the argument's position
// expects (see fits); a bare "$name" needs a handle field in that schema.
// When the step runs, the reference is replaced by the value and the
// arguments are checked against the schema again: a number out of range,
// or a field the result happens not to have, fails the step then.
// tools.call takes its arguments literally: "$" means nothing there.

// reference is a parsed $reference.
type reference struct {
	name string   // the binding
	path []string // fields and list indexes after it
	text string   // as written
}

var (
	refNameRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	refSegmentRE = regexp.MustCompile(`^(-?[0-9]+|[A-Za-z_][A-Za-z0-9_]*)$`)
)

// parseValue classifies a whole string value: a reference (r non-nil), a
// literal (with a leading "$$" unescaped), or a malformed reference.
func parseValue(s string) (literal string, r *reference, err error) {
	switch {
	case !strings.HasPrefix(s, "$"):
		return s, nil, nil
	case strings.HasPrefix(s, "$$"):
		return s[1:], nil, nil
	}
	parts := strings.Split(s[1:], ".")
	if !refNameRE.MatchString(parts[0]) {
		return "", nil, fmt.Errorf("%q is not a reference: a binding name follows the $ (write $$ for a literal $)", s)
	}
	for _, p := range parts[1:] {
		if !refSegmentRE.MatchString(p) {
			return "", nil, fmt.Errorf("%q is not a reference: %q is neither a field name nor a list index (write $$ for a literal $)", s, p)
		}
	}
	return "", &reference{name: parts[0], path: parts[1:], text: s}, nil
}

// index reads a path segment as a list index into a list of n elements,
// negative from the end.
func index(seg string, n int) (int, bool) {
	i, err := strconv.Atoi(seg)
	if err != nil {
		return 0, false
	}
	if i < 0 {
		i += n
	}
	return i, i >= 0 && i < n
}

// outputNode is the schema of the value r refers to, in the binding step's
// output schema; err says why there is none.
func (r *reference) outputNode(out *schemaDoc) (schemaNode, error) {
	if len(r.path) == 0 {
		if !out.hasHandle() {
			return nil, fmt.Errorf("%s: the result it names has no handle; name one of its fields ($%s.field)", r.text, r.name)
		}
		return out.property(out.root, "handle"), nil
	}
	n := out.deref(out.root)
	for _, seg := range r.path {
		switch typeOf(n) {
		case "object":
			next := out.property(n, seg)
			if next == nil {
				return nil, fmt.Errorf("%s: the result has no field %q", r.text, seg)
			}
			n = next
		case "array":
			if _, err := strconv.Atoi(seg); err != nil {
				return nil, fmt.Errorf("%s: %q indexes a list, so it must be a number", r.text, seg)
			}
			n = out.items(n)
		default:
			return nil, fmt.Errorf("%s: %q goes inside a %s", r.text, seg, typeOrValue(typeOf(n)))
		}
	}
	return n, nil
}

func typeOrValue(t string) string {
	if t == "" {
		return "value"
	}
	return t
}

// resolve reads the referenced value from a step's result (as generic
// JSON).
func (r *reference) resolve(result map[string]any) (any, error) {
	if len(r.path) == 0 {
		h, ok := result["handle"].(string)
		if !ok {
			return nil, fmt.Errorf("%s: the result has no handle", r.text)
		}
		return h, nil
	}
	var v any = result
	for _, seg := range r.path {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[seg]
			if !ok {
				return nil, fmt.Errorf("%s: the result has no field %q", r.text, seg)
			}
			v = next
		case []any:
			i, ok := index(seg, len(x))
			if !ok {
				return nil, fmt.Errorf("%s: index %s is outside the list of %d", r.text, seg, len(x))
			}
			v = x[i]
		default:
			return nil, fmt.Errorf("%s: %q goes inside a value that has no fields", r.text, seg)
		}
	}
	return v, nil
}

// visitFunc sees one string value of a step's args: its RFC 6901 pointer,
// the input schema at that position (nil if undescribed) and the string;
// it returns the value to put there.
type visitFunc func(ptr string, node schemaNode, s string) (any, error)

// mapStrings returns a copy of v with every string value replaced by
// fn's answer, walking the input schema alongside. Object keys are visited
// in sorted order, so the first error is always the same one.
func mapStrings(doc *schemaDoc, node schemaNode, v any, ptr string, fn visitFunc) (any, error) {
	switch x := v.(type) {
	case string:
		return fn(ptr, doc.deref(node), x)
	case map[string]any:
		out := make(map[string]any, len(x))
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			var child schemaNode
			if node != nil {
				child = doc.property(node, k)
			}
			nv, err := mapStrings(doc, child, x[k], ptr+"/"+escapePointer(k), fn)
			if err != nil {
				return nil, err
			}
			out[k] = nv
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		var child schemaNode
		if node != nil {
			child = doc.items(node)
		}
		for i, e := range x {
			nv, err := mapStrings(doc, child, e, ptr+"/"+strconv.Itoa(i), fn)
			if err != nil {
				return nil, err
			}
			out[i] = nv
		}
		return out, nil
	default:
		return v, nil
	}
}

// escapePointer escapes a key for an RFC 6901 pointer.
func escapePointer(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}
