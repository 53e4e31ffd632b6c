package contract

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/cadbridge/cadbridge/internal/wirename"
)

// EnumName is the wire name of an enum value ("stale_revision").
func EnumName(ev protoreflect.EnumValueDescriptor) string {
	return wirename.EnumValue(ev)
}

// Marshal encodes m as wire JSON. Required fields are always written (zero
// values included); optional fields only when set; empty lists and maps are
// left out.
func Marshal(m proto.Message) ([]byte, error) {
	var buf bytes.Buffer
	if err := encodeMessage(&buf, m.ProtoReflect()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

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
	fds := m.Descriptor().Fields()
	for i := 0; i < fds.Len(); i++ {
		fd := fds.Get(i)
		if !shouldEncode(m, fd) {
			continue
		}
		v, err := structOfField(fd, m.Get(fd))
		if err != nil {
			return nil, err
		}
		fields[string(fd.Name())] = v
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

func isWellKnown(md protoreflect.MessageDescriptor) bool {
	return md.ParentFile().Package() == "google.protobuf"
}

func encodeMessage(buf *bytes.Buffer, m protoreflect.Message) error {
	md := m.Descriptor()
	switch v := m.Interface().(type) {
	case *structpb.Struct:
		return encodeStruct(buf, v)
	case *structpb.Value:
		return encodeValue(buf, v)
	case *structpb.ListValue:
		return encodeList(buf, v)
	}
	if isWellKnown(md) {
		data, err := protojson.Marshal(m.Interface())
		if err != nil {
			return fmt.Errorf("contract: encode %s: %w", md.FullName(), err)
		}
		return json.Compact(buf, data)
	}
	buf.WriteByte('{')
	first := true
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if !shouldEncode(m, fd) {
			continue
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		writeString(buf, string(fd.Name()))
		buf.WriteByte(':')
		if err := encodeField(buf, fd, m.Get(fd)); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

func shouldEncode(m protoreflect.Message, fd protoreflect.FieldDescriptor) bool {
	switch {
	case fd.IsList():
		return m.Get(fd).List().Len() > 0
	case fd.IsMap():
		return m.Get(fd).Map().Len() > 0
	case wirename.Required(fd):
		return true
	default:
		return m.Has(fd)
	}
}

func encodeField(buf *bytes.Buffer, fd protoreflect.FieldDescriptor, v protoreflect.Value) error {
	switch {
	case fd.IsList():
		list := v.List()
		buf.WriteByte('[')
		for i := 0; i < list.Len(); i++ {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := encodeSingular(buf, fd, list.Get(i)); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case fd.IsMap():
		mp := v.Map()
		keys := make([]protoreflect.MapKey, 0, mp.Len())
		mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
			keys = append(keys, k)
			return true
		})
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k.String())
			buf.WriteByte(':')
			if err := encodeSingular(buf, fd.MapValue(), mp.Get(k)); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	default:
		return encodeSingular(buf, fd, v)
	}
}

func encodeSingular(buf *bytes.Buffer, fd protoreflect.FieldDescriptor, v protoreflect.Value) error {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		buf.WriteString(strconv.FormatBool(v.Bool()))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		buf.WriteString(strconv.FormatInt(v.Int(), 10))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		buf.WriteString(strconv.FormatUint(v.Uint(), 10))
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("contract: %s is %v, which JSON cannot carry", fd.FullName(), f)
		}
		buf.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	case protoreflect.StringKind:
		writeString(buf, v.String())
	case protoreflect.BytesKind:
		writeString(buf, base64.StdEncoding.EncodeToString(v.Bytes()))
	case protoreflect.EnumKind:
		ev := fd.Enum().Values().ByNumber(v.Enum())
		if ev == nil {
			buf.WriteString(strconv.Itoa(int(v.Enum())))
			return nil
		}
		writeString(buf, EnumName(ev))
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return encodeMessage(buf, v.Message())
	}
	return nil
}

// encodeStruct, encodeValue and encodeList write google.protobuf.Struct
// and its parts as plain JSON (keys sorted), as protojson does, without its
// detour through a second buffer.
func encodeStruct(buf *bytes.Buffer, st *structpb.Struct) error {
	keys := make([]string, 0, len(st.GetFields()))
	for k := range st.GetFields() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeString(buf, k)
		buf.WriteByte(':')
		if err := encodeValue(buf, st.GetFields()[k]); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

func encodeList(buf *bytes.Buffer, l *structpb.ListValue) error {
	buf.WriteByte('[')
	for i, v := range l.GetValues() {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := encodeValue(buf, v); err != nil {
			return err
		}
	}
	buf.WriteByte(']')
	return nil
}

func encodeValue(buf *bytes.Buffer, v *structpb.Value) error {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NullValue, nil:
		buf.WriteString("null")
	case *structpb.Value_BoolValue:
		buf.WriteString(strconv.FormatBool(k.BoolValue))
	case *structpb.Value_NumberValue:
		if math.IsNaN(k.NumberValue) || math.IsInf(k.NumberValue, 0) {
			return fmt.Errorf("contract: %v in a Struct, which JSON cannot carry", k.NumberValue)
		}
		buf.WriteString(strconv.FormatFloat(k.NumberValue, 'g', -1, 64))
	case *structpb.Value_StringValue:
		writeString(buf, k.StringValue)
	case *structpb.Value_StructValue:
		return encodeStruct(buf, k.StructValue)
	case *structpb.Value_ListValue:
		return encodeList(buf, k.ListValue)
	}
	return nil
}

// writeString writes s as a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced by U+FFFD, nothing else.
func writeString(buf *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	buf.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			buf.WriteString(s[start:i])
			switch c {
			case '"', '\\':
				buf.WriteByte('\\')
				buf.WriteByte(c)
			case '\n':
				buf.WriteString(`\n`)
			case '\r':
				buf.WriteString(`\r`)
			case '\t':
				buf.WriteString(`\t`)
			default:
				buf.WriteString(`\u00`)
				buf.WriteByte(hex[c>>4])
				buf.WriteByte(hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf.WriteString(s[start:i])
			buf.WriteString(`\ufffd`)
			i += size
			start = i
			continue
		}
		i += size
	}
	buf.WriteString(s[start:])
	buf.WriteByte('"')
}

// ParseJSON decodes a JSON document into the generic form that Schema and
// Decode take (objects as map[string]any, numbers as json.Number). It
// rejects trailing data and, unlike encoding/json, an object with the same
// key twice (a *Violation at the key's path).
func ParseJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec, "")
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

func parseValue(dec *json.Decoder, path string) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := map[string]any{}
			for dec.More() {
				keyTok, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key := keyTok.(string) // object keys are always strings
				if _, dup := obj[key]; dup {
					return nil, &Violation{Path: path + "/" + escape(key), Reason: ReasonInvalid, Message: fmt.Sprintf("key %q appears twice", key)}
				}
				v, err := parseValue(dec, path+"/"+escape(key))
				if err != nil {
					return nil, err
				}
				obj[key] = v
			}
			_, err := dec.Token() // '}'
			return obj, err
		case '[':
			arr := []any{}
			for i := 0; dec.More(); i++ {
				v, err := parseValue(dec, path+"/"+strconv.Itoa(i))
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token() // ']'
			return arr, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return tok, nil
	}
}

// Unmarshal decodes wire JSON into m strictly (see Decode).
func Unmarshal(data []byte, m proto.Message) error {
	v, err := ParseJSON(data)
	var violation *Violation
	if errors.As(err, &violation) {
		return violation
	}
	if err != nil {
		return &Violation{Reason: ReasonInvalid, Message: err.Error()}
	}
	return Decode(v, m)
}

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
	if isWellKnown(md) {
		return decodeWellKnown(v, m, path)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return wrongType(path, "an object", v)
	}
	fields := md.Fields()
	for _, key := range sortedKeys(obj) {
		fd := fields.ByName(protoreflect.Name(key))
		if fd == nil || fd.Name() != protoreflect.Name(key) {
			return &Violation{Path: path + "/" + escape(key), Reason: ReasonUnknownField, Message: fmt.Sprintf("%s has no field %q", md.Name(), key)}
		}
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			if set := m.WhichOneof(od); set != nil {
				return &Violation{Path: path + "/" + escape(key), Reason: ReasonInvalid, Message: fmt.Sprintf("%s and %s exclude each other", set.Name(), key)}
			}
		}
		if err := d.field(obj[key], m, fd, path+"/"+escape(key)); err != nil {
			return err
		}
	}
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if _, ok := obj[string(fd.Name())]; !ok && wirename.Required(fd) && !d.partial {
			return &Violation{Path: path + "/" + string(fd.Name()), Reason: ReasonMissing, Message: fmt.Sprintf("%s is required", fd.Name())}
		}
	}
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

// escape escapes a key for an RFC 6901 pointer.
func escape(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}
