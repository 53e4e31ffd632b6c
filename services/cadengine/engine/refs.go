package engine

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/wirename"
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
// a binding of an earlier step and a field its result has (else
// unresolved_ref), and the type of that field — read from the result
// message — must fit the type the argument's position expects (see fits),
// else the argument is invalid_args at its path; a bare "$name" needs a
// handle field in the result. The arguments are then decoded with each
// reference standing in as a value its field's rules accept (see
// placeholder), so that every other argument is checked before anything
// runs. When the step runs, the references are replaced by their values
// and the arguments decoded and checked again: a number out of range, or a
// field the result happens not to hold, fails the step then.
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

// ---- positions in a message, by descriptor ----

// slot is a position in a tool's arguments or result: a whole message (fd
// nil), a field, or one element of a list or map field (elem).
type slot struct {
	md   protoreflect.MessageDescriptor
	fd   protoreflect.FieldDescriptor
	elem bool
}

func messageSlot(md protoreflect.MessageDescriptor) slot { return slot{md: md} }

// message is the message a slot holds, or nil when it holds another value.
func (s slot) message() protoreflect.MessageDescriptor {
	switch {
	case s.fd == nil:
		return s.md
	case (s.fd.IsList() || s.fd.IsMap()) && !s.elem:
		return nil
	case s.fd.IsMap():
		if v := s.fd.MapValue(); v.Kind() == protoreflect.MessageKind {
			return v.Message()
		}
		return nil
	case s.fd.Kind() == protoreflect.MessageKind:
		return s.fd.Message()
	}
	return nil
}

// kind is the kind of a slot's scalar value.
func (s slot) kind() protoreflect.Kind {
	if s.fd.IsMap() {
		return s.fd.MapValue().Kind()
	}
	return s.fd.Kind()
}

// jsonType is the JSON type the wire has at the slot, as the generated
// schemas say it.
func (s slot) jsonType() string {
	if s.fd != nil && (s.fd.IsList() || s.fd.IsMap()) && !s.elem {
		if s.fd.IsList() {
			return "array"
		}
		return "object"
	}
	if s.message() != nil {
		if s.message().FullName() == "google.protobuf.ListValue" {
			return "array"
		}
		if s.message().ParentFile().Package() == "google.protobuf" && s.message().FullName() != "google.protobuf.Struct" {
			return ""
		}
		return "object"
	}
	switch s.kind() {
	case protoreflect.BoolKind:
		return "boolean"
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.EnumKind:
		return "string"
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return "number"
	default:
		return "integer"
	}
}

// property is the slot of the field key of the message at s, or false.
func (s slot) property(key string) (slot, bool) {
	if s.fd != nil && s.fd.IsMap() && !s.elem {
		return slot{fd: s.fd, elem: true}, true
	}
	md := s.message()
	if md == nil {
		return slot{}, false
	}
	fd := contract.FieldByKey(md, key)
	if fd == nil {
		return slot{}, false
	}
	return slot{md: md, fd: fd}, true
}

// items is the slot of the elements of the list at s, or false.
func (s slot) items() (slot, bool) {
	if s.fd == nil || !s.fd.IsList() || s.elem {
		return slot{}, false
	}
	return slot{md: s.md, fd: s.fd, elem: true}, true
}

// rules are the field rules of the slot's field, or nil.
func (s slot) rules() *enginev1.FieldRules {
	if s.fd == nil {
		return nil
	}
	r, _ := proto.GetExtension(s.fd.Options(), enginev1.E_Rules).(*enginev1.FieldRules)
	return r
}

// isHandle says whether the slot holds an entity handle (see
// FieldRules.handle).
func (s slot) isHandle() bool {
	return (s.fd != nil && (!s.fd.IsList() || s.elem)) && s.rules().GetHandle()
}

// describe names the slot's JSON type for messages: "a number".
func (s slot) describe() string {
	switch t := s.jsonType(); t {
	case "":
		return "a value"
	case "integer", "object", "array":
		return "an " + t
	default:
		return "a " + t
	}
}

// declared are the slots of the fields of the message at s: none for a
// map, a Struct or a value that is not a message (their schemas declare
// no properties).
func (s slot) declared() []slot {
	md := s.message()
	if md == nil || md.ParentFile().Package() == "google.protobuf" || s.fd != nil && s.fd.IsMap() && !s.elem {
		return nil
	}
	fields := md.Fields()
	out := make([]slot, 0, fields.Len())
	for i := range fields.Len() {
		if contract.FieldByKey(md, contract.Key(fields.Get(i))) != nil { // not hidden
			out = append(out, slot{md: md, fd: fields.Get(i)})
		}
	}
	return out
}

// declaredField is the declared field key of the message at s, or false.
func (s slot) declaredField(key string) (slot, bool) {
	for _, f := range s.declared() {
		if contract.Key(f.fd) == key {
			return f, true
		}
	}
	return slot{}, false
}

func (s slot) declares(key string) bool {
	_, ok := s.declaredField(key)
	return ok
}

// outputSlot is the position in a result message that r refers to; err
// says why there is none.
func (r *reference) outputSlot(out protoreflect.MessageDescriptor) (slot, error) {
	root := messageSlot(out)
	if len(r.path) == 0 {
		h, ok := root.property("handle")
		if !ok || !h.isHandle() {
			return slot{}, fmt.Errorf("%s: the result it names has no handle; name one of its fields ($%s.field)", r.text, r.name)
		}
		return h, nil
	}
	s := root
	for _, seg := range r.path {
		switch s.jsonType() {
		case "object":
			next, ok := s.property(seg)
			if !ok {
				return slot{}, fmt.Errorf("%s: the result has no field %q", r.text, seg)
			}
			s = next
		case "array":
			if _, err := strconv.Atoi(seg); err != nil {
				return slot{}, fmt.Errorf("%s: %q indexes a list, so it must be a number", r.text, seg)
			}
			next, ok := s.items()
			if !ok {
				return slot{}, fmt.Errorf("%s: %q goes inside a value", r.text, seg)
			}
			s = next
		default:
			t := s.jsonType()
			if t == "" {
				t = "value"
			}
			return slot{}, fmt.Errorf("%s: %q goes inside a %s", r.text, seg, t)
		}
	}
	return s, nil
}

// fits reports whether a value of the result slot out may stand where the
// argument slot in expects one — by JSON type, since the value itself is
// known only when the step runs: an integer fits a number but a number
// does not fit an integer; objects fit when every field the argument
// requires exists in the result and every result field is one the
// argument accepts, with fitting types; lists when their elements fit.
func fits(out, in slot) bool { return fitsDepth(out, in, 0) }

func fitsDepth(out, in slot, depth int) bool {
	if depth > 16 {
		return false
	}
	want, got := in.jsonType(), out.jsonType()
	switch want {
	case "":
		return true
	case "number":
		return got == "number" || got == "integer"
	case "object":
		if got != "object" {
			return false
		}
		for _, f := range in.declared() {
			if wirename.Required(f.fd) && !out.declares(contract.Key(f.fd)) {
				return false
			}
		}
		for _, f := range out.declared() {
			p, ok := in.declaredField(contract.Key(f.fd))
			if !ok || !fitsDepth(f, p, depth+1) {
				return false
			}
		}
		return true
	case "array":
		if got != "array" {
			return false
		}
		oi, ok1 := out.items()
		ii, ok2 := in.items()
		return !ok1 || !ok2 || fitsDepth(oi, ii, depth+1)
	default:
		return got == want
	}
}

// placeholder is a value (generic JSON) that the argument slot s accepts
// under its field rules, standing in for a reference while the step's
// arguments are checked before anything runs: the reference's type was
// checked by fits, and its value is checked when the step runs.
func placeholder(s slot) any { return placeholderDepth(s, 0) }

func placeholderDepth(s slot, depth int) any {
	rules := s.rules()
	switch s.jsonType() {
	case "array":
		arr := []any{}
		if it, ok := s.items(); ok && depth < 8 {
			for range rules.GetMinItems() {
				arr = append(arr, placeholderDepth(it, depth+1))
			}
		}
		return arr
	case "object":
		obj := map[string]any{}
		if md := s.message(); md != nil && depth < 8 && md.ParentFile().Package() != "google.protobuf" {
			fields := md.Fields()
			for i := range fields.Len() {
				if f := fields.Get(i); wirename.Required(f) {
					obj[contract.Key(f)] = placeholderDepth(slot{md: md, fd: f}, depth+1)
				}
			}
		}
		return obj
	case "boolean":
		return false
	case "integer", "number":
		if d, ok := domainOf(rules); ok && len(d.Integers) > 0 {
			return float64(d.Integers[0])
		}
		v := 0.0
		if rules == nil {
			rules = &enginev1.FieldRules{}
		}
		if rules.Minimum != nil && v < rules.GetMinimum() {
			v = rules.GetMinimum()
		}
		if rules.ExclusiveMinimum != nil && v <= rules.GetExclusiveMinimum() {
			v = math.Floor(rules.GetExclusiveMinimum()) + 1
		}
		if rules.Maximum != nil && v > rules.GetMaximum() {
			v = rules.GetMaximum()
		}
		if s.jsonType() == "integer" {
			v = math.Ceil(v)
		}
		return v
	default:
		if s.kind() == protoreflect.EnumKind {
			values := s.enum().Values()
			for i := range values.Len() {
				if ev := values.Get(i); !wirename.IsUnspecified(ev) {
					return wirename.EnumValue(ev)
				}
			}
		}
		if d, ok := domainOf(rules); ok && len(d.Names) > 0 {
			return d.Names[0]
		}
		str := "1" // a valid handle, for handle positions
		if n := rules.GetMinLength(); n > 1 {
			str = strings.Repeat("1", int(n))
		}
		return str
	}
}

func (s slot) enum() protoreflect.EnumDescriptor {
	if s.fd.IsMap() {
		return s.fd.MapValue().Enum()
	}
	return s.fd.Enum()
}

// domainOf is the value domain a field's rules name.
func domainOf(rules *enginev1.FieldRules) (enginev1.DomainInfo, bool) {
	if rules.GetDomain() == enginev1.ValueDomain_VALUE_DOMAIN_UNSPECIFIED {
		return enginev1.DomainInfo{}, false
	}
	return enginev1.LookupDomain(rules.GetDomain())
}

// ---- walking generic arguments ----

// visitFunc sees one string value of a step's args: its RFC 6901 pointer,
// the slot at that position (ok false if no field is there) and the
// string; it returns the value to put there.
type visitFunc func(ptr string, s slot, ok bool, str string) (any, error)

// mapStrings returns a copy of v with every string value replaced by
// fn's answer, walking the argument message alongside. Object keys are
// visited in sorted order, so the first error is always the same one.
func mapStrings(s slot, known bool, v any, ptr string, fn visitFunc) (any, error) {
	switch x := v.(type) {
	case string:
		return fn(ptr, s, known, x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range sortedKeys(x) {
			child, ok := slot{}, false
			if known {
				child, ok = s.property(k)
			}
			nv, err := mapStrings(child, ok, x[k], ptr+"/"+escapePointer(k), fn)
			if err != nil {
				return nil, err
			}
			out[k] = nv
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		child, ok := slot{}, false
		if known {
			child, ok = s.items()
		}
		for i, e := range x {
			nv, err := mapStrings(child, ok, e, ptr+"/"+strconv.Itoa(i), fn)
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

func sortedKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}

// escapePointer escapes a key for an RFC 6901 pointer.
func escapePointer(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}
