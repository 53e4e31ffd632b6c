package contract

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
)

// ToStruct is m's wire JSON as a google.protobuf.Struct (what Marshal
// writes, built directly).
func ToStruct(m proto.Message) (*structpb.Struct, error) {
	v, err := structOfMessage(m.ProtoReflect())
	if err != nil {
		return nil, fmt.Errorf("contract: struct from %s: %w", m.ProtoReflect().Descriptor().FullName(), err)
	}
	st := v.GetStructValue()
	if st == nil {
		return nil, fmt.Errorf("contract: %s is not a JSON object", m.ProtoReflect().Descriptor().FullName())
	}
	return st, nil
}

// structOfMessage follows encodeMessage's rules, producing a Value.
func structOfMessage(m protoreflect.Message) (*structpb.Value, error) {
	switch v := m.Interface().(type) {
	case *structpb.Struct:
		return structpb.NewStructValue(proto.Clone(v).(*structpb.Struct)), nil
	case *structpb.Value:
		return proto.Clone(v).(*structpb.Value), nil
	case *structpb.ListValue:
		return structpb.NewListValue(proto.Clone(v).(*structpb.ListValue)), nil
	}
	if isWellKnown(m.Descriptor()) { // timestamps and the like: as JSON
		var buf bytes.Buffer
		if err := encodeMessage(&buf, m); err != nil {
			return nil, err
		}
		var v any
		if err := json.Unmarshal(buf.Bytes(), &v); err != nil {
			return nil, err
		}
		return structValue(v, "")
	}
	fields := map[string]*structpb.Value{}
	w := wireOf(m.Descriptor())
	for i := range w.fields {
		f := &w.fields[i]
		if !shouldEncode(m, f) {
			continue
		}
		if f.raw != "" {
			var buf bytes.Buffer
			encodeRaw(&buf, f, m.Get(f.fd).Bytes())
			v, err := ParseJSON(buf.Bytes())
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.fd.FullName(), err)
			}
			sv, err := structValue(v, "")
			if err != nil {
				return nil, err
			}
			fields[f.key] = sv
			continue
		}
		v, err := structOfField(f.fd, m.Get(f.fd))
		if err != nil {
			return nil, err
		}
		fields[f.key] = v
	}
	return structpb.NewStructValue(&structpb.Struct{Fields: fields}), nil
}

func structOfField(fd protoreflect.FieldDescriptor, v protoreflect.Value) (*structpb.Value, error) {
	switch {
	case fd.IsList():
		list := v.List()
		values := make([]*structpb.Value, list.Len())
		for i := range values {
			e, err := structOfSingular(fd, list.Get(i))
			if err != nil {
				return nil, err
			}
			values[i] = e
		}
		return structpb.NewListValue(&structpb.ListValue{Values: values}), nil
	case fd.IsMap():
		fields := map[string]*structpb.Value{}
		var err error
		v.Map().Range(func(k protoreflect.MapKey, e protoreflect.Value) bool {
			fields[k.String()], err = structOfSingular(fd.MapValue(), e)
			return err == nil
		})
		if err != nil {
			return nil, err
		}
		return structpb.NewStructValue(&structpb.Struct{Fields: fields}), nil
	default:
		return structOfSingular(fd, v)
	}
}

func structOfSingular(fd protoreflect.FieldDescriptor, v protoreflect.Value) (*structpb.Value, error) {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return structpb.NewBoolValue(v.Bool()), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return structpb.NewNumberValue(float64(v.Int())), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return structpb.NewNumberValue(float64(v.Uint())), nil
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%s is %v, which JSON cannot carry", fd.FullName(), f)
		}
		return structpb.NewNumberValue(f), nil
	case protoreflect.StringKind:
		return structpb.NewStringValue(strings.ToValidUTF8(v.String(), "\uFFFD")), nil
	case protoreflect.BytesKind:
		return structpb.NewStringValue(base64.StdEncoding.EncodeToString(v.Bytes())), nil
	case protoreflect.EnumKind:
		ev := fd.Enum().Values().ByNumber(v.Enum())
		if ev == nil {
			return structpb.NewNumberValue(float64(v.Enum())), nil
		}
		return structpb.NewStringValue(EnumName(ev)), nil
	default:
		return structOfMessage(v.Message())
	}
}

// structValue converts a generic JSON value into a google.protobuf.Value.
func structValue(v any, path string) (*structpb.Value, error) {
	switch x := v.(type) {
	case nil:
		return structpb.NewNullValue(), nil
	case bool:
		return structpb.NewBoolValue(x), nil
	case string:
		return structpb.NewStringValue(x), nil
	case json.Number, float64:
		n, _ := number(x, path)
		f, err := n.Float64()
		if err != nil || math.IsInf(f, 0) {
			return nil, &Violation{Path: path, Reason: ReasonOutOfRange, Message: "number too large"}
		}
		return structpb.NewNumberValue(f), nil
	case map[string]any:
		fields, err := structFields(x, path)
		if err != nil {
			return nil, err
		}
		return structpb.NewStructValue(&structpb.Struct{Fields: fields}), nil
	case []any:
		list, err := structList(x, path)
		if err != nil {
			return nil, err
		}
		return structpb.NewListValue(list), nil
	default:
		return nil, &Violation{Path: path, Reason: ReasonInvalid, Message: fmt.Sprintf("not JSON: %T", v)}
	}
}

func structFields(obj map[string]any, path string) (map[string]*structpb.Value, error) {
	fields := make(map[string]*structpb.Value, len(obj))
	for k, e := range obj {
		val, err := structValue(e, path+"/"+escape(k))
		if err != nil {
			return nil, err
		}
		fields[k] = val
	}
	return fields, nil
}

func structList(arr []any, path string) (*structpb.ListValue, error) {
	list := &structpb.ListValue{Values: make([]*structpb.Value, len(arr))}
	for i, e := range arr {
		val, err := structValue(e, path+"/"+strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		list.Values[i] = val
	}
	return list, nil
}
