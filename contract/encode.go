package contract

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"sync"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/cadbridge/cadbridge/contract/jsonwire"
)

// Marshal encodes m as wire JSON. Required fields are always written (zero
// values included); optional fields only when set; empty lists and maps are
// left out. A raw field (see enginev1.JSONOptions) is written as the JSON
// its bytes hold.
func Marshal(m proto.Message) ([]byte, error) {
	wm, ok := m.(jsonwire.Message)
	if !ok {
		return AppendMarshal(nil, m)
	}
	// The encoding grows in a scratch encoder and is copied out once, at
	// its size: one allocation, not one per doubling.
	e := encoders.Get().(*jsonwire.Encoder)
	defer putEncoder(e)
	wm.MarshalWire(e)
	return bytes.Clone(e.Bytes()), e.Err()
}

// encoders are scratch encoders for Marshal.
var encoders = sync.Pool{New: func() any { return jsonwire.NewEncoder(make([]byte, 0, 1024)) }}

// putEncoder returns e to encoders, unless it grew past what is worth
// keeping.
func putEncoder(e *jsonwire.Encoder) {
	if cap(e.Bytes()) <= 64<<10 {
		e.Reset()
		encoders.Put(e)
	}
}

// AppendMarshal is Marshal appending to b.
func AppendMarshal(b []byte, m proto.Message) ([]byte, error) {
	if wm, ok := m.(jsonwire.Message); ok {
		e := jsonwire.NewEncoder(b)
		wm.MarshalWire(e)
		return e.Bytes(), e.Err()
	}
	buf := bytes.NewBuffer(b)
	if err := encodeMessage(buf, m.ProtoReflect()); err != nil {
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
	w := wireOf(md)
	if w.wellKnown {
		data, err := protojson.Marshal(m.Interface())
		if err != nil {
			return fmt.Errorf("contract: encode %s: %w", md.FullName(), err)
		}
		return json.Compact(buf, data)
	}
	buf.WriteByte('{')
	first := true
	for i := range w.fields {
		f := &w.fields[i]
		if !shouldEncode(m, f) {
			continue
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		buf.Write(f.keyJSON)
		if f.raw != "" {
			encodeRaw(buf, f, m.Get(f.fd).Bytes())
			continue
		}
		if err := encodeField(buf, f.fd, m.Get(f.fd)); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

// encodeRaw writes a raw field's JSON, or an empty value of its type for a
// required field that holds none.
func encodeRaw(buf *bytes.Buffer, f *wireField, data []byte) {
	switch {
	case len(data) > 0:
		buf.Write(data)
	case f.raw == "array":
		buf.WriteString("[]")
	default:
		buf.WriteString("{}")
	}
}

func shouldEncode(m protoreflect.Message, f *wireField) bool {
	fd := f.fd
	switch {
	case fd.IsList():
		return m.Get(fd).List().Len() > 0
	case fd.IsMap():
		return m.Get(fd).Map().Len() > 0
	case f.required:
		return true
	case f.raw != "" && !fd.HasPresence():
		return len(m.Get(fd).Bytes()) > 0
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
		buf.Write(strconv.AppendInt(buf.AvailableBuffer(), v.Int(), 10))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		buf.Write(strconv.AppendUint(buf.AvailableBuffer(), v.Uint(), 10))
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("contract: %s is %v, which JSON cannot carry", fd.FullName(), f)
		}
		buf.Write(jsonwire.AppendFloat(buf.AvailableBuffer(), f))
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

// writeString writes s as a JSON string (see jsonwire.AppendString).
func writeString(buf *bytes.Buffer, s string) {
	buf.Write(jsonwire.AppendString(buf.AvailableBuffer(), s))
}
