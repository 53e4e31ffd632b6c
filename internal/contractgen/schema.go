package contractgen

import (
	"math"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cadbridge/cadbridge/internal/wirename"
)

const schemaDialect = "https://json-schema.org/draft/2020-12/schema"

// schemas builds JSON Schemas of messages as contract.Marshal encodes them.
// Nested messages become definitions referenced under refPrefix.
type schemas struct {
	opts      *options
	refPrefix string
	defs      map[string]any
}

func newSchemas(opts *options, refPrefix string) *schemas {
	return &schemas{opts: opts, refPrefix: refPrefix, defs: map[string]any{}}
}

// document is a self-contained schema of md: its object schema with the
// definitions it uses.
func document(opts *options, md protoreflect.MessageDescriptor, extra map[string]any) map[string]any {
	s := newSchemas(opts, "#/$defs/")
	root := s.object(md)
	if props, ok := root["properties"].(map[string]any); ok {
		for k, v := range extra {
			props[k] = v
		}
	}
	root["$schema"] = schemaDialect
	if len(s.defs) > 0 {
		root["$defs"] = s.defs
	}
	return root
}

// object is the schema of a message, inline.
func (s *schemas) object(md protoreflect.MessageDescriptor) map[string]any {
	if wk := wellKnown(md); wk != nil {
		return wk
	}
	props := map[string]any{}
	var required []string
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		key, raw, hidden := s.opts.wireField(fd)
		switch {
		case hidden:
			continue
		case raw != "":
			props[key] = map[string]any{"type": raw}
		default:
			props[key] = s.field(fd)
		}
		if wirename.Required(fd) {
			required = append(required, key)
		}
	}
	obj := map[string]any{
		"type":                 "object",
		"properties":           props,
		"additionalProperties": false,
	}
	if len(required) > 0 {
		obj["required"] = required
	}
	return obj
}

// ref is a reference to md's definition, added on first use.
func (s *schemas) ref(md protoreflect.MessageDescriptor) map[string]any {
	if wk := wellKnown(md); wk != nil {
		return wk
	}
	name := string(md.FullName())
	if _, ok := s.defs[name]; !ok {
		s.defs[name] = nil // placeholder: recursive messages terminate
		s.defs[name] = s.object(md)
	}
	return map[string]any{"$ref": s.refPrefix + name}
}

func (s *schemas) field(fd protoreflect.FieldDescriptor) map[string]any {
	var item map[string]any
	if fd.IsMap() {
		item = s.singular(fd.MapValue())
	} else {
		item = s.singular(fd)
	}
	rules := s.opts.get(fd, rulesOption)
	if rules != nil {
		s.applyValueRules(item, rules)
	}
	switch {
	case fd.IsList():
		list := map[string]any{"type": "array", "items": item}
		if rules != nil {
			if v, ok := field(rules, "min_items"); ok {
				list["minItems"] = v.Uint()
			}
			if v, ok := field(rules, "max_items"); ok {
				list["maxItems"] = v.Uint()
			}
		}
		return list
	case fd.IsMap():
		return map[string]any{"type": "object", "additionalProperties": item}
	default:
		return item
	}
}

func (s *schemas) applyValueRules(item map[string]any, rules protoreflect.Message) {
	for rule, keyword := range map[string]string{
		"minimum":           "minimum",
		"maximum":           "maximum",
		"exclusive_minimum": "exclusiveMinimum",
	} {
		if v, ok := field(rules, rule); ok {
			item[keyword] = number(v.Float())
		}
	}
	if v, ok := field(rules, "min_length"); ok {
		item["minLength"] = v.Uint()
	}
	if v, ok := field(rules, "max_length"); ok {
		item["maxLength"] = v.Uint()
	}
	if p := str(rules, "pattern"); p != "" {
		item["pattern"] = p
	}
	if boolean(rules, "handle") {
		item["x-cad-handle"] = true
	}
	// checkFieldDomains made sure the domain exists and fits the field.
	if d, ok := s.opts.domains[protoreflect.EnumNumber(enumNumber(rules, "domain"))]; ok {
		if len(d.names) > 0 {
			item["pattern"] = namesPattern(d.names)
			item["examples"] = d.names
		} else {
			// Under allOf: a failed enum ends validation of its schema
			// object, and the bounds beside it must still be checked, so
			// that a value outside them is out_of_range, not invalid.
			item["allOf"] = []any{map[string]any{"enum": d.integers}}
		}
	}
}

// number keeps integral bounds integral in the JSON output.
func number(f float64) any {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f)
	}
	return f
}

func (s *schemas) singular(fd protoreflect.FieldDescriptor) map[string]any {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return map[string]any{"type": "boolean"}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return map[string]any{"type": "integer", "minimum": math.MinInt32, "maximum": math.MaxInt32}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return map[string]any{"type": "integer", "minimum": 0, "maximum": math.MaxUint32}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return map[string]any{"type": "integer"}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return map[string]any{"type": "integer", "minimum": 0}
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return map[string]any{"type": "number"}
	case protoreflect.StringKind:
		return map[string]any{"type": "string"}
	case protoreflect.BytesKind:
		return map[string]any{"type": "string", "contentEncoding": "base64"}
	case protoreflect.EnumKind:
		var names []string
		values := fd.Enum().Values()
		for i := 0; i < values.Len(); i++ {
			if ev := values.Get(i); !wirename.IsUnspecified(ev) {
				names = append(names, wirename.EnumValue(ev))
			}
		}
		return map[string]any{"type": "string", "enum": names}
	default:
		return s.ref(fd.Message())
	}
}

// wellKnown is the schema of a google.protobuf type as protojson writes it,
// or nil for other messages.
func wellKnown(md protoreflect.MessageDescriptor) map[string]any {
	if md.ParentFile().Package() != "google.protobuf" {
		return nil
	}
	switch md.Name() {
	case "Struct", "Empty":
		return map[string]any{"type": "object"}
	case "ListValue":
		return map[string]any{"type": "array"}
	case "Timestamp":
		return map[string]any{"type": "string", "format": "date-time"}
	default:
		return map[string]any{}
	}
}
