package jsonwire

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// MaxDepth is how deep a Decoder follows nested values; deeper input is
// refused (the generic decoder goes deeper).
const MaxDepth = 512

// Decoder reads one JSON document. Its methods return false at the first
// thing they do not accept: bad syntax, a value of the wrong JSON type,
// invalid UTF-8 or a lone surrogate in a string (which the generic
// decoder replaces), a number out of range.
type Decoder struct {
	data []byte
	i    int
	// Partial makes generated decoders skip their check for missing
	// required fields.
	Partial bool
	failed  bool
	first   []bool // per open object or array: no member read yet
	scratch []byte // the value of the last escaped string
	escaped bool   // the last string read had escapes

	// Extra names a key the top-level object may have beside the
	// message's fields (JSON-RPC's "_meta"); its value is kept in
	// ExtraValue, as the input has it.
	Extra      string
	ExtraValue []byte

	floats Slab[float64] // what optional doubles point to
}

// NewDecoder is a Decoder of data.
func NewDecoder(data []byte) *Decoder { return &Decoder{data: data} }

// Reset makes d read data afresh.
func (d *Decoder) Reset(data []byte) {
	d.data, d.i, d.failed, d.first, d.Partial = data, 0, false, d.first[:0], false
	d.Extra, d.ExtraValue = "", nil
}

// Offset is how many bytes of the input d has read.
func (d *Decoder) Offset() int { return d.i }

// Fork is a decoder of the same input at offset i, inside the same open
// objects and arrays as d and past the first member of each: where d
// would be had it read the input up to i, when i is at the comma before
// the next element or member of the innermost one. It shares nothing
// that changes with d, so the two may read at once; what it reads is
// what d would read from there only if that holds (its caller checks).
func (d *Decoder) Fork(i int) *Decoder {
	f := &Decoder{data: d.data, i: i, Partial: d.Partial, first: make([]bool, len(d.first))}
	if d.failed || i < 0 || i > len(d.data) {
		f.failed = true
	}
	return f
}

// Rest is the input from the next value on (after spaces), for a caller
// that reads a value itself and then moves d past it with Skip; nil once
// d has failed.
func (d *Decoder) Rest() []byte {
	if d.failed {
		return nil
	}
	d.ws()
	return d.data[d.i:]
}

// Skip moves d n bytes on: past a whole value that its caller read from
// Rest.
func (d *Decoder) Skip(n int) { d.i += n }

// Number reads a JSON number at the start of b written without an
// exponent and with at most 15 digits, as most coordinates are, and
// returns its value and its length; ok is false for anything else,
// which Float64 may still read. It reads the digits once, into the
// integer that exactFloat would make of them, and gives the value
// exactFloat gives (strconv.ParseFloat's).
func Number(b []byte) (x float64, n int, ok bool) {
	var (
		mant   uint64
		digits int
	)
	digit := func() bool {
		if n < len(b) && b[n] >= '0' && b[n] <= '9' {
			mant = mant*10 + uint64(b[n]-'0')
			digits++
			n++
			return true
		}
		return false
	}
	neg := n < len(b) && b[n] == '-'
	if neg {
		n++
	}
	switch {
	case n < len(b) && b[n] == '0':
		digit()
	case !digit():
		return 0, 0, false
	default:
		for digit() {
		}
	}
	frac := 0
	if n < len(b) && b[n] == '.' {
		n++
		for digit() {
			frac++
		}
		if frac == 0 {
			return 0, 0, false
		}
	}
	if n < len(b) && (b[n] == 'e' || b[n] == 'E') || digits > 15 {
		return 0, 0, false
	}
	x = float64(mant) / exactPowers[frac]
	if neg {
		x = -x
	}
	return x, n, true
}

// Unknown is what a generated decoder calls for a key its message does not
// have: it reads the value of Extra at the top level and reports whether
// it did.
func (d *Decoder) Unknown(key []byte) bool {
	if d.Extra == "" || len(d.first) != 1 || string(key) != d.Extra || d.ExtraValue != nil {
		return false
	}
	v, ok := d.RawValue()
	if !ok {
		return false
	}
	d.ExtraValue = v
	return true
}

// End reports whether only spaces are left.
func (d *Decoder) End() bool {
	d.ws()
	return !d.failed && d.i == len(d.data)
}

// Failed reports whether a method refused the input.
func (d *Decoder) Failed() bool { return d.failed }

// Fail marks the input refused and returns false.
func (d *Decoder) Fail() bool {
	d.failed = true
	return false
}

// ws skips spaces. Every space is at most ' ' and most bytes are above
// it, so the common case is one comparison.
func (d *Decoder) ws() {
	for d.i < len(d.data) && d.data[d.i] <= ' ' {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek is the next byte after spaces, or 0 at the end.
func (d *Decoder) peek() byte {
	d.ws()
	if d.i < len(d.data) {
		return d.data[d.i]
	}
	return 0
}

func (d *Decoder) open(c byte) bool {
	if d.failed || d.peek() != c || len(d.first) >= MaxDepth {
		return d.Fail()
	}
	d.i++
	d.first = append(d.first, true)
	return true
}

// next moves to the next member or element of the innermost open object
// (close '}') or array (close ']'): false at its end, which it consumes,
// or at a failure.
func (d *Decoder) next(close byte) bool {
	if d.failed {
		return false
	}
	top := len(d.first) - 1
	c := d.peek()
	if c == close {
		d.i++
		d.first = d.first[:top]
		return false
	}
	if d.first[top] {
		d.first[top] = false
		return true
	}
	if c != ',' {
		return d.Fail()
	}
	d.i++
	d.ws()
	return true
}

// OpenObject reads the '{' of an object.
func (d *Decoder) OpenObject() bool { return d.open('{') }

// NextKey reads the next key of the innermost open object and the colon
// after it. At the end of the object it consumes the '}' and returns
// false, as it does at a failure (see Failed). The key is valid until the
// next string is read.
func (d *Decoder) NextKey() ([]byte, bool) {
	if !d.next('}') {
		return nil, false
	}
	key, ok := d.stringBytes()
	if !ok {
		return nil, d.Fail()
	}
	if d.peek() != ':' {
		return nil, d.Fail()
	}
	d.i++
	d.ws()
	return key, true
}

// OpenArray reads the '[' of an array.
func (d *Decoder) OpenArray() bool { return d.open('[') }

// NextElement moves to the next element of the innermost open array. At
// the end of the array it consumes the ']' and returns false, as it does
// at a failure (see Failed).
func (d *Decoder) NextElement() bool { return d.next(']') }

// EmptyArrayNext reports whether an empty array comes next (for lists with
// a min_items rule, which CheckRules cannot tell from absent ones).
func (d *Decoder) EmptyArrayNext() bool {
	if d.peek() != '[' {
		return false
	}
	j := d.i + 1
	for j < len(d.data) && (d.data[j] == ' ' || d.data[j] == '\t' || d.data[j] == '\n' || d.data[j] == '\r') {
		j++
	}
	return j < len(d.data) && d.data[j] == ']'
}

// Bool reads true or false.
func (d *Decoder) Bool() (bool, bool) {
	switch {
	case d.literal("true"):
		return true, true
	case d.literal("false"):
		return false, true
	}
	return false, d.Fail()
}

func (d *Decoder) literal(word string) bool {
	d.ws()
	if d.failed || !bytes.HasPrefix(d.data[d.i:], []byte(word)) {
		return false
	}
	d.i += len(word)
	return true
}

// String reads a string.
func (d *Decoder) String() (string, bool) {
	s, ok := d.stringBytes()
	if !ok {
		return "", d.Fail()
	}
	return string(s), true
}

// Bytes reads a base64 string (standard encoding, padded).
func (d *Decoder) Bytes() ([]byte, bool) {
	s, ok := d.stringBytes()
	if !ok {
		return nil, d.Fail()
	}
	b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(b, s)
	if err != nil {
		return nil, d.Fail()
	}
	return b[:n], true
}

// Enum reads an enum value's wire name, one of names (the unspecified
// value is never on the wire).
func (d *Decoder) Enum(names map[string]int32) (int32, bool) {
	s, ok := d.stringBytes()
	if !ok {
		return 0, d.Fail()
	}
	n, ok := names[string(s)]
	if !ok {
		return 0, d.Fail()
	}
	return n, true
}

// Float64 reads a number that fits a float64.
func (d *Decoder) Float64() (float64, bool) {
	num, ok := d.number()
	if !ok {
		return 0, d.Fail()
	}
	if x, ok := exactFloat(num); ok {
		return x, true
	}
	x, err := strconv.ParseFloat(string(num), 64)
	if err != nil || math.IsInf(x, 0) {
		return 0, d.Fail()
	}
	return x, true
}

// exactFloat is the value of num, a valid JSON number, when it has no
// exponent and at most 15 digits, as most coordinates have: its digits
// are then an integer that a float64 holds exactly, divided by a power of
// ten that a float64 holds exactly, and one IEEE division rounds that
// quotient correctly, as strconv.ParseFloat does (the fast path of its
// own, exact, conversion). ok is false for any other number.
func exactFloat(num []byte) (x float64, ok bool) {
	neg := num[0] == '-'
	if neg {
		num = num[1:]
	}
	if len(num) > 16 { // more than 15 digits and a point
		return 0, false
	}
	var mant uint64
	digits, point := 0, -1
	for i, c := range num {
		switch {
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			digits++
		case c == '.':
			point = i
		default:
			return 0, false // an exponent
		}
	}
	if digits > 15 {
		return 0, false
	}
	x = float64(mant)
	if point >= 0 {
		x /= exactPowers[len(num)-1-point]
	}
	if neg {
		x = -x
	}
	return x, true
}

// exactPowers are the powers of ten that exactFloat divides by.
var exactPowers = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// Float32 reads a number that fits a float64, as a float32.
func (d *Decoder) Float32() (float32, bool) {
	x, ok := d.Float64()
	return float32(x), ok
}

// integer is the decimal text of an integer number: one written with a
// fraction or an exponent counts when its value is integral.
func (d *Decoder) integer() (string, bool) {
	num, ok := d.number()
	if !ok {
		return "", false
	}
	if !bytes.ContainsAny(num, ".eE") {
		return string(num), true
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil || math.IsInf(f, 0) || f != math.Trunc(f) {
		return "", false
	}
	return strconv.FormatFloat(f, 'f', 0, 64), true
}

// Int32 reads an integer in int32's range.
func (d *Decoder) Int32() (int32, bool) {
	s, ok := d.integer()
	i, err := strconv.ParseInt(s, 10, 32)
	if !ok || err != nil {
		return 0, d.Fail()
	}
	return int32(i), true
}

// Int64 reads an integer in int64's range.
func (d *Decoder) Int64() (int64, bool) {
	s, ok := d.integer()
	i, err := strconv.ParseInt(s, 10, 64)
	if !ok || err != nil {
		return 0, d.Fail()
	}
	return i, true
}

// Uint32 reads an integer in uint32's range.
func (d *Decoder) Uint32() (uint32, bool) {
	s, ok := d.integer()
	i, err := strconv.ParseUint(s, 10, 32)
	if !ok || err != nil {
		return 0, d.Fail()
	}
	return uint32(i), true
}

// Uint64 reads an integer in uint64's range.
func (d *Decoder) Uint64() (uint64, bool) {
	s, ok := d.integer()
	i, err := strconv.ParseUint(s, 10, 64)
	if !ok || err != nil {
		return 0, d.Fail()
	}
	return i, true
}

// number reads a JSON number and returns its text.
func (d *Decoder) number() ([]byte, bool) {
	if d.failed {
		return nil, false
	}
	d.ws()
	data, start, i := d.data, d.i, d.i
	digits := func() bool {
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			return false
		}
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		return true
	}
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case !digits():
		return nil, false
	}
	if i < len(data) && data[i] == '.' {
		i++
		if !digits() {
			return nil, false
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if !digits() {
			return nil, false
		}
	}
	d.i = i
	return data[start:i], true
}

// stringBytes reads a JSON string and returns its value: a slice of the
// input when it has no escapes, else of the decoder's scratch space (valid
// until the next string).
func (d *Decoder) stringBytes() ([]byte, bool) {
	if d.failed {
		return nil, false
	}
	d.ws()
	data := d.data
	if d.i >= len(data) || data[d.i] != '"' {
		return nil, false
	}
	start := d.i + 1
	i := start
	for i < len(data) && plain[data[i]] {
		i++
	}
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			d.i, d.escaped = i+1, false
			return data[start:i], true
		case c == '\\':
			d.escaped = true
			return d.unescape(start)
		case c < 0x20:
			return nil, false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				return nil, false
			}
			i += size
		}
	}
	return nil, false
}

func (d *Decoder) unescape(start int) ([]byte, bool) {
	data := d.data
	out := d.scratch[:0]
	if n := len(data) - start; n > 1024 && cap(out) < n {
		// Room for the rest of the input at once (the string is at most
		// that long): growing as it is copied copied a long text (a DXF
		// file) several times over.
		out = make([]byte, 0, n)
	}
	defer func() { d.scratch = out[:0] }()
	for i := start; i < len(data); {
		c := data[i]
		switch {
		case c == '"':
			d.i = i + 1
			return out, true
		case c < 0x20:
			return nil, false
		case c == '\\':
			if i+1 >= len(data) {
				return nil, false
			}
			i++
			switch data[i] {
			case '"', '\\', '/':
				out = append(out, data[i])
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(data, i+1)
				if !ok {
					return nil, false
				}
				i += 4
				if utf16.IsSurrogate(r) {
					if i+6 >= len(data) || data[i+1] != '\\' || data[i+2] != 'u' {
						return nil, false
					}
					r2, ok := hex4(data, i+3)
					if !ok {
						return nil, false
					}
					if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
						return nil, false
					}
					i += 6
				}
				out = utf8.AppendRune(out, r)
			default:
				return nil, false
			}
			i++
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				return nil, false
			}
			out = append(out, data[i:i+size]...)
			i += size
		}
	}
	return nil, false
}

func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// Raw reads a JSON value of the type kind ("object" or "array") — with
// no key twice in any object — and returns a copy of it without the spaces
// between its tokens.
func (d *Decoder) Raw(kind string) ([]byte, bool) {
	want := byte('{')
	if kind == "array" {
		want = '['
	}
	if d.peek() != want {
		return nil, d.Fail()
	}
	v, ok := d.RawValue()
	if !ok {
		return nil, false
	}
	return compact(v), true
}

// RawValue reads any JSON value (with no key twice in any object) and
// returns its bytes as the input has them.
func (d *Decoder) RawValue() ([]byte, bool) {
	d.ws()
	start := d.i
	if !d.skip() {
		return nil, d.Fail()
	}
	return d.data[start:d.i], true
}

func (d *Decoder) skip() bool {
	switch d.peek() {
	case '{':
		if !d.OpenObject() {
			return false
		}
		var room [8][]byte // most objects have few keys: no allocation
		keys := room[:0]
		for {
			key, ok := d.NextKey()
			if !ok {
				return !d.failed
			}
			if d.escaped {
				key = bytes.Clone(key) // keep it past the next string
			}
			for _, prev := range keys {
				if bytes.Equal(prev, key) {
					return d.Fail()
				}
			}
			keys = append(keys, key)
			if !d.skip() {
				return false
			}
		}
	case '[':
		if !d.OpenArray() {
			return false
		}
		for d.NextElement() {
			if !d.skip() {
				return false
			}
		}
		return !d.failed
	case '"':
		_, ok := d.stringBytes()
		return ok
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	default:
		_, ok := d.number()
		return ok
	}
}

// compact is a copy of v, a valid JSON value, without the spaces between
// its tokens.
func compact(v []byte) []byte {
	if !hasSpace(v) {
		return bytes.Clone(v) // the common case: nothing to take out
	}
	out := make([]byte, 0, len(v))
	in := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case in:
			out = append(out, c)
			if c == '\\' && i+1 < len(v) {
				i++
				out = append(out, v[i])
			} else if c == '"' {
				in = false
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			if c == '"' {
				in = true
			}
			out = append(out, c)
		}
	}
	return out
}

// hasSpace reports whether v holds a space (in a string or not).
func hasSpace(v []byte) bool {
	for _, c := range v {
		if c <= ' ' && (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			return true
		}
	}
	return false
}

// Timestamp reads a google.protobuf.Timestamp as protojson does (an RFC
// 3339 string).
func (d *Decoder) Timestamp() (*timestamppb.Timestamp, bool) {
	v, ok := d.RawValue()
	if !ok || v[0] != '"' {
		return nil, d.Fail()
	}
	t := new(timestamppb.Timestamp)
	if protojson.Unmarshal(v, t) != nil {
		return nil, d.Fail()
	}
	return t, true
}

// Struct reads a google.protobuf.Struct: a JSON object.
func (d *Decoder) Struct() (*structpb.Struct, bool) {
	v, ok := d.generic()
	obj, isObj := v.(map[string]any)
	if !ok || !isObj {
		return nil, d.Fail()
	}
	st, err := structpb.NewStruct(obj)
	if err != nil {
		return nil, d.Fail()
	}
	return st, true
}

// StructValue reads a google.protobuf.Value: any JSON value.
func (d *Decoder) StructValue() (*structpb.Value, bool) {
	v, ok := d.generic()
	if !ok {
		return nil, false
	}
	sv, err := structpb.NewValue(v)
	if err != nil {
		return nil, d.Fail()
	}
	return sv, true
}

// ListValue reads a google.protobuf.ListValue: a JSON array.
func (d *Decoder) ListValue() (*structpb.ListValue, bool) {
	v, ok := d.generic()
	arr, isArr := v.([]any)
	if !ok || !isArr {
		return nil, d.Fail()
	}
	l, err := structpb.NewList(arr)
	if err != nil {
		return nil, d.Fail()
	}
	return l, true
}

// generic reads any JSON value into encoding/json's generic form.
func (d *Decoder) generic() (any, bool) {
	raw, ok := d.RawValue()
	if !ok {
		return nil, false
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil, d.Fail()
	}
	return v, true
}
