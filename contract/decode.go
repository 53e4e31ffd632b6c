package contract

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/cadbridge/cadbridge/internal/wirename"
)

// Decode sets m from a generic JSON value (as ParseJSON returns). It is
// strict: an unknown key, a wrong type, a missing required field or an
// unknown enum name returns a *Violation with the path.
func Decode(v any, m proto.Message) error {
	proto.Reset(m)
	return decoder{}.message(v, m.ProtoReflect(), "")
}

// DecodePartial is Decode without the check for missing required fields,
// for inputs completed afterwards (REST requests, whose path parameters are
// set after the body is decoded).
func DecodePartial(v any, m proto.Message) error {
	proto.Reset(m)
	return decoder{partial: true}.message(v, m.ProtoReflect(), "")
}

type decoder struct {
	partial bool // skip the missing-required check
}

func (d decoder) message(v any, m protoreflect.Message, path string) error {
	md := m.Descriptor()
	w := wireOf(md)
	if w.wellKnown {
		return decodeWellKnown(v, m, path)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return wrongType(path, "an object", v)
	}
	for _, key := range sortedKeys(obj) {
		f := w.byKey[key]
		if f == nil {
			return &Violation{Path: path + "/" + escape(key), Reason: ReasonUnknownField, Message: fmt.Sprintf("%s has no field %q", md.Name(), key)}
		}
		if f.oneof != nil {
			if set := m.WhichOneof(f.oneof); set != nil {
				return &Violation{Path: path + "/" + escape(key), Reason: ReasonInvalid, Message: fmt.Sprintf("%s and %s exclude each other", set.Name(), key)}
			}
		}
		if f.raw != "" {
			if err := decodeRaw(obj[key], m, f, path+"/"+escape(key)); err != nil {
				return err
			}
			continue
		}
		if err := d.field(obj[key], m, f.fd, path+"/"+escape(key)); err != nil {
			return err
		}
	}
	if !d.partial {
		for _, i := range w.required {
			f := &w.fields[i]
			if _, ok := obj[f.key]; !ok {
				return &Violation{Path: path + "/" + escape(f.key), Reason: ReasonMissing, Message: fmt.Sprintf("%s is required", f.key)}
			}
		}
	}
	return nil
}

// decodeRaw sets a raw field to the JSON encoding of v, which must be of
// the field's JSON type.
func decodeRaw(v any, m protoreflect.Message, f *wireField, path string) error {
	switch v.(type) {
	case map[string]any:
		if f.raw != "object" {
			return wrongType(path, "an array", v)
		}
	case []any:
		if f.raw != "array" {
			return wrongType(path, "an object", v)
		}
	default:
		return wrongType(path, "an "+f.raw, v)
	}
	data, err := AppendGeneric(nil, v)
	if err != nil {
		return &Violation{Path: path, Reason: ReasonInvalid, Message: err.Error()}
	}
	m.Set(f.fd, protoreflect.ValueOfBytes(data))
	return nil
}

func (d decoder) field(v any, m protoreflect.Message, fd protoreflect.FieldDescriptor, path string) error {
	switch {
	case fd.IsList():
		arr, ok := v.([]any)
		if !ok {
			return wrongType(path, "an array", v)
		}
		list := m.Mutable(fd).List()
		for i, e := range arr {
			ev, err := d.singular(e, fd, list.NewElement, path+"/"+strconv.Itoa(i))
			if err != nil {
				return err
			}
			list.Append(ev)
		}
		return nil
	case fd.IsMap():
		obj, ok := v.(map[string]any)
		if !ok {
			return wrongType(path, "an object", v)
		}
		mp := m.Mutable(fd).Map()
		for _, k := range sortedKeys(obj) {
			ev, err := d.singular(obj[k], fd.MapValue(), mp.NewValue, path+"/"+escape(k))
			if err != nil {
				return err
			}
			mp.Set(protoreflect.ValueOfString(k).MapKey(), ev)
		}
		return nil
	default:
		ev, err := d.singular(v, fd, func() protoreflect.Value { return m.NewField(fd) }, path)
		if err != nil {
			return err
		}
		m.Set(fd, ev)
		return nil
	}
}

func (d decoder) singular(v any, fd protoreflect.FieldDescriptor, newValue func() protoreflect.Value, path string) (protoreflect.Value, error) {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		b, ok := v.(bool)
		if !ok {
			return protoreflect.Value{}, wrongType(path, "a boolean", v)
		}
		return protoreflect.ValueOfBool(b), nil
	case protoreflect.StringKind:
		s, ok := v.(string)
		if !ok {
			return protoreflect.Value{}, wrongType(path, "a string", v)
		}
		return protoreflect.ValueOfString(s), nil
	case protoreflect.BytesKind:
		s, ok := v.(string)
		if !ok {
			return protoreflect.Value{}, wrongType(path, "a base64 string", v)
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return protoreflect.Value{}, &Violation{Path: path, Reason: ReasonInvalid, Message: "not base64"}
		}
		return protoreflect.ValueOfBytes(b), nil
	case protoreflect.EnumKind:
		s, ok := v.(string)
		if !ok {
			return protoreflect.Value{}, wrongType(path, "a string", v)
		}
		values := fd.Enum().Values()
		for i := 0; i < values.Len(); i++ {
			ev := values.Get(i)
			if !wirename.IsUnspecified(ev) && EnumName(ev) == s {
				return protoreflect.ValueOfEnum(ev.Number()), nil
			}
		}
		return protoreflect.Value{}, &Violation{Path: path, Reason: ReasonInvalid, Message: fmt.Sprintf("%q is not a %s", s, fd.Enum().Name())}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		nv := newValue()
		if err := d.message(v, nv.Message(), path); err != nil {
			return protoreflect.Value{}, err
		}
		return nv, nil
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		f, err := number(v, path)
		if err != nil {
			return protoreflect.Value{}, err
		}
		x, perr := f.Float64()
		if perr != nil || math.IsInf(x, 0) {
			return protoreflect.Value{}, &Violation{Path: path, Reason: ReasonOutOfRange, Message: "number too large"}
		}
		if fd.Kind() == protoreflect.FloatKind {
			return protoreflect.ValueOfFloat32(float32(x)), nil
		}
		return protoreflect.ValueOfFloat64(x), nil
	default:
		return decodeInteger(v, fd, path)
	}
}

func decodeInteger(v any, fd protoreflect.FieldDescriptor, path string) (protoreflect.Value, error) {
	n, err := number(v, path)
	if err != nil {
		return protoreflect.Value{}, err
	}
	s := n.String()
	if strings.ContainsAny(s, ".eE") {
		// 3.0 and 1e3 are integers in JSON Schema; accept them when exact.
		f, ferr := n.Float64()
		switch {
		case ferr != nil || math.IsInf(f, 0):
			return protoreflect.Value{}, &Violation{Path: path, Reason: ReasonOutOfRange, Message: "number too large"}
		case f != math.Trunc(f):
			return protoreflect.Value{}, wrongType(path, "an integer", v)
		}
		s = strconv.FormatFloat(f, 'f', 0, 64)
	}
	switch fd.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		i, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return protoreflect.Value{}, &Violation{Path: path, Reason: ReasonOutOfRange, Message: "outside 32-bit range"}
		}
		return protoreflect.ValueOfInt32(int32(i)), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return protoreflect.Value{}, &Violation{Path: path, Reason: ReasonOutOfRange, Message: "outside 64-bit range"}
		}
		return protoreflect.ValueOfInt64(i), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		i, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			return protoreflect.Value{}, &Violation{Path: path, Reason: ReasonOutOfRange, Message: "outside unsigned 32-bit range"}
		}
		return protoreflect.ValueOfUint32(uint32(i)), nil
	default:
		i, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return protoreflect.Value{}, &Violation{Path: path, Reason: ReasonOutOfRange, Message: "outside unsigned 64-bit range"}
		}
		return protoreflect.ValueOfUint64(i), nil
	}
}

func number(v any, path string) (json.Number, error) {
	switch n := v.(type) {
	case json.Number:
		return n, nil
	case float64:
		return json.Number(strconv.FormatFloat(n, 'g', -1, 64)), nil
	default:
		return "", wrongType(path, "a number", v)
	}
}

func decodeWellKnown(v any, m protoreflect.Message, path string) error {
	switch dst := m.Interface().(type) {
	case *structpb.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return wrongType(path, "an object", v)
		}
		fields, err := structFields(obj, path)
		if err != nil {
			return err
		}
		dst.Fields = fields
		return nil
	case *structpb.Value:
		val, err := structValue(v, path)
		if err != nil {
			return err
		}
		dst.Kind = val.Kind
		return nil
	case *structpb.ListValue:
		arr, ok := v.([]any)
		if !ok {
			return wrongType(path, "an array", v)
		}
		list, err := structList(arr, path)
		if err != nil {
			return err
		}
		dst.Values = list.Values
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return &Violation{Path: path, Reason: ReasonInvalid, Message: err.Error()}
	}
	if err := protojson.Unmarshal(data, m.Interface()); err != nil {
		return &Violation{Path: path, Reason: ReasonInvalid, Message: err.Error()}
	}
	return nil
}

func wrongType(path, want string, got any) *Violation {
	return &Violation{Path: path, Reason: ReasonWrongType, Message: fmt.Sprintf("want %s, got %s", want, jsonType(got))}
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

func sortedKeys(obj map[string]any) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
