package contract

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/cadbridge/cadbridge/internal/wirename"
)

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
