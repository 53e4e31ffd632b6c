package jsonwire

import (
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Encoder writes wire JSON into a growing buffer. The first value it
// cannot write (a NaN, an infinity) is its error; it writes on regardless.
type Encoder struct {
	buf []byte
	err error
}

// NewEncoder is an Encoder appending to buf.
func NewEncoder(buf []byte) *Encoder { return &Encoder{buf: buf} }

// Bytes is what was written.
func (e *Encoder) Bytes() []byte { return e.buf }

// Reset empties e for reuse, keeping its buffer.
func (e *Encoder) Reset() { e.buf, e.err = e.buf[:0], nil }

// Err is the first value e could not write, or nil.
func (e *Encoder) Err() error { return e.err }

// OpenObject writes '{'.
func (e *Encoder) OpenObject() { e.buf = append(e.buf, '{') }

// CloseObject writes '}'.
func (e *Encoder) CloseObject() { e.buf = append(e.buf, '}') }

// Key writes a member's key: key is the key as a JSON string with its
// colon (`"name":`); a comma goes before it unless it is the first.
func (e *Encoder) Key(key string) {
	if n := len(e.buf); n > 0 && e.buf[n-1] != '{' {
		e.buf = append(e.buf, ',')
	}
	e.buf = append(e.buf, key...)
}

// OpenArray writes '['.
func (e *Encoder) OpenArray() { e.buf = append(e.buf, '[') }

// CloseArray writes ']'.
func (e *Encoder) CloseArray() { e.buf = append(e.buf, ']') }

// Element starts an array element: a comma unless it is the first.
func (e *Encoder) Element() {
	if n := len(e.buf); n > 0 && e.buf[n-1] != '[' {
		e.buf = append(e.buf, ',')
	}
}

// Bool writes true or false.
func (e *Encoder) Bool(v bool) { e.buf = strconv.AppendBool(e.buf, v) }

// Int64 writes an integer.
func (e *Encoder) Int64(v int64) { e.buf = strconv.AppendInt(e.buf, v, 10) }

// Uint64 writes an unsigned integer.
func (e *Encoder) Uint64(v uint64) { e.buf = strconv.AppendUint(e.buf, v, 10) }

// Float64 writes a number; field names the field for the error of a NaN
// or an infinity, which JSON cannot carry.
func (e *Encoder) Float64(v float64, field string) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		if e.err == nil {
			e.err = fmt.Errorf("contract: %s is %v, which JSON cannot carry", field, v)
		}
		v = 0
	}
	e.buf = AppendFloat(e.buf, v)
}

// AppendFloat appends v as strconv.AppendFloat(dst, v, 'g', -1, 64) does:
// a whole number below 1e6 in magnitude (most coordinates of a drawing)
// as the integer it is, without the search for the shortest digits ('g'
// writes no exponent below 1e6), and any other number through strconv.
func AppendFloat(dst []byte, v float64) []byte {
	if v > -1e6 && v < 1e6 {
		if i := int64(v); float64(i) == v && (i != 0 || !math.Signbit(v)) {
			return strconv.AppendInt(dst, i, 10)
		}
	}
	return strconv.AppendFloat(dst, v, 'g', -1, 64)
}

// String writes a JSON string (see AppendString).
func (e *Encoder) String(s string) { e.buf = AppendString(e.buf, s) }

// BytesBase64 writes b as a base64 string.
func (e *Encoder) BytesBase64(b []byte) {
	e.buf = append(e.buf, '"')
	e.buf = base64.StdEncoding.AppendEncode(e.buf, b)
	e.buf = append(e.buf, '"')
}

// Raw writes a raw field's JSON, or an empty value of its kind ("object"
// or "array") when there is none.
func (e *Encoder) Raw(v []byte, kind string) {
	switch {
	case len(v) > 0:
		e.buf = append(e.buf, v...)
	case kind == "array":
		e.buf = append(e.buf, "[]"...)
	default:
		e.buf = append(e.buf, "{}"...)
	}
}

// Timestamp writes t as protojson does (an RFC 3339 string).
func (e *Encoder) Timestamp(t *timestamppb.Timestamp) {
	if t == nil {
		t = &timestamppb.Timestamp{}
	}
	b, err := protojson.Marshal(t)
	if err != nil {
		if e.err == nil {
			e.err = fmt.Errorf("contract: encode timestamp: %w", err)
		}
		b = []byte(`""`)
	}
	e.buf = append(e.buf, b...)
}

// Struct writes a google.protobuf.Struct as plain JSON, keys sorted.
func (e *Encoder) Struct(st *structpb.Struct) {
	keys := make([]string, 0, len(st.GetFields()))
	for k := range st.GetFields() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	e.OpenObject()
	for _, k := range keys {
		if n := len(e.buf); e.buf[n-1] != '{' {
			e.buf = append(e.buf, ',')
		}
		e.String(k)
		e.buf = append(e.buf, ':')
		e.Value(st.GetFields()[k])
	}
	e.CloseObject()
}

// ListValue writes a google.protobuf.ListValue as a JSON array.
func (e *Encoder) ListValue(l *structpb.ListValue) {
	e.OpenArray()
	for _, v := range l.GetValues() {
		e.Element()
		e.Value(v)
	}
	e.CloseArray()
}

// Value writes a google.protobuf.Value as plain JSON.
func (e *Encoder) Value(v *structpb.Value) {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NullValue, nil:
		e.buf = append(e.buf, "null"...)
	case *structpb.Value_BoolValue:
		e.Bool(k.BoolValue)
	case *structpb.Value_NumberValue:
		f := k.NumberValue
		if math.IsNaN(f) || math.IsInf(f, 0) {
			if e.err == nil {
				e.err = fmt.Errorf("contract: %v in a Struct, which JSON cannot carry", f)
			}
			f = 0
		}
		e.buf = AppendFloat(e.buf, f)
	case *structpb.Value_StringValue:
		e.String(k.StringValue)
	case *structpb.Value_StructValue:
		e.Struct(k.StructValue)
	case *structpb.Value_ListValue:
		e.ListValue(k.ListValue)
	}
}

// plain are the bytes AppendString copies as they are, and that a string
// the Decoder reads holds as they are: ASCII but for control characters,
// quotes and backslashes.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendString appends s as a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced by U+FFFD, nothing else.
func AppendString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	if len(s) > 1024 {
		// Room for it and some escapes at once: growing as the runs
		// between escapes are appended copied a long text (a DXF file)
		// several times over.
		buf = slices.Grow(buf, len(s)+len(s)/8+2)
	}
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, `\n`...)
			case '\r':
				buf = append(buf, `\r`...)
			case '\t':
				buf = append(buf, `\t`...)
			default:
				buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
