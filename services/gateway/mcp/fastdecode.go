package mcp

import (
	"bytes"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// fastCall is what the fast path reads of a tools/call request.
type fastCall struct {
	id        jsonrpc.ID
	name      string
	arguments []byte // the raw value; nil when absent
	meta      []byte // the raw _meta object; nil when absent
}

// maxDepth is the SDK's bound on the nesting of a message.
const maxDepth = 1000

// decodeToolsCall reads body as a JSON-RPC tools/call request in one pass
// without allocating beyond the result, or reports false. It is strict
// where the SDK is lenient, so that whatever it takes the SDK's decoders
// (jsonrpc.DecodeMessage, then the params) take too and read the same
// way: it refuses what is not valid UTF-8 JSON, anything after the
// object, duplicate keys, keys with escapes, members other than jsonrpc,
// id, method, params (and name, arguments, _meta in params), an id that
// is not a plain string or an integer of at most 15 digits, and strings
// it reads (the version, method, id, name) with escapes or bytes outside
// printable ASCII. FuzzDecodeToolsCall holds it to the SDK.
func decodeToolsCall(body []byte) (fastCall, bool) {
	var c fastCall
	if !utf8.Valid(body) {
		return c, false
	}
	s := &scanner{b: body}
	s.ws()
	var version, method, params, id []byte
	if !s.openObject() {
		return c, false
	}
	for first := true; ; first = false {
		key, end, ok := s.member(first)
		if !ok {
			return c, false
		}
		if end {
			break
		}
		var dst *[]byte
		switch string(key) {
		case "jsonrpc":
			dst = &version
		case "id":
			dst = &id
		case "method":
			dst = &method
		case "params":
			dst = &params
		default:
			return c, false
		}
		start := s.i
		if *dst != nil || !s.value() {
			return c, false
		}
		*dst = s.b[start:s.i]
	}
	if !s.end() {
		return c, false
	}
	if v, ok := plainString(version); !ok || v != "2.0" {
		return c, false
	}
	if m, ok := plainString(method); !ok || m != "tools/call" {
		return c, false
	}
	var ok bool
	if c.id, ok = plainID(id); !ok {
		return c, false
	}
	if len(params) == 0 || params[0] != '{' {
		return c, false
	}
	p := &scanner{b: params, depth: 1}
	var name []byte
	p.openObject()
	for first := true; ; first = false {
		key, end, ok := p.member(first)
		if !ok {
			return c, false
		}
		if end {
			break
		}
		var dst *[]byte
		switch string(key) {
		case "name":
			dst = &name
		case "arguments":
			dst = &c.arguments
		case "_meta":
			dst = &c.meta
		default:
			return c, false
		}
		start := p.i
		if *dst != nil || !p.value() {
			return c, false
		}
		*dst = p.b[start:p.i]
	}
	n, ok := plainString(name)
	if !ok {
		return c, false
	}
	c.name = n
	if c.meta != nil {
		if c.meta[0] != '{' || !metaNumbersPlain(c.meta) {
			return c, false
		}
	}
	return c, true
}

// plainString is the JSON string value v if it has no escapes and only
// printable ASCII.
func plainString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	for _, c := range v[1 : len(v)-1] {
		if c < 0x20 || c > 0x7e || c == '\\' || c == '"' {
			return "", false
		}
	}
	return string(v[1 : len(v)-1]), true
}

// plainID is a request id that is a plain string or an integer of at
// most 15 digits (exact as the float64 the SDK decodes it into).
func plainID(v []byte) (jsonrpc.ID, bool) {
	if s, ok := plainString(v); ok {
		id, err := jsonrpc.MakeID(s)
		return id, err == nil
	}
	digits := v
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && len(digits) > 1) {
		return jsonrpc.ID{}, false
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return jsonrpc.ID{}, false
		}
		n = n*10 + int64(c-'0')
	}
	if v[0] == '-' {
		n = -n
	}
	id, err := jsonrpc.MakeID(float64(n))
	return id, err == nil
}

// metaNumbersPlain reports whether every number in the _meta value v is
// an integer of at most 15 digits: the SDK decodes _meta into a
// map[string]any, which refuses numbers out of float64's range, and
// exact integers are what clients put there (progress tokens).
func metaNumbersPlain(v []byte) bool {
	inString, escaped := false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
		case c == '-' || (c >= '0' && c <= '9'):
			j := i
			if c == '-' {
				j++
			}
			k := j
			for k < len(v) && v[k] >= '0' && v[k] <= '9' {
				k++
			}
			if k-j > 15 || (k < len(v) && (v[k] == '.' || v[k] == 'e' || v[k] == 'E')) {
				return false
			}
			i = k - 1
		}
	}
	return true
}

// scanner walks JSON, checking it as RFC 8259 does.
type scanner struct {
	b     []byte
	i     int
	depth int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// end reports whether only whitespace is left.
func (s *scanner) end() bool {
	s.ws()
	return s.i == len(s.b)
}

// openObject reads the '{' that opens an object at s.i.
func (s *scanner) openObject() bool {
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return false
	}
	s.i++
	return true
}

// member reads up to the next member's value in an object opened with
// openObject (first: no member read yet): its key, without quotes, and
// the colon, leaving s.i at the value, which the caller reads; or the
// '}' that closes the object (end). A key with escapes refuses it.
func (s *scanner) member(first bool) (key []byte, end, ok bool) {
	s.ws()
	if s.i >= len(s.b) {
		return nil, false, false
	}
	switch c := s.b[s.i]; {
	case c == '}':
		s.i++
		return nil, true, true
	case !first && c == ',':
		s.i++
		s.ws()
	case !first:
		return nil, false, false
	}
	start := s.i
	if !s.str() {
		return nil, false, false
	}
	key = s.b[start+1 : s.i-1]
	if bytes.IndexByte(key, '\\') >= 0 {
		return nil, false, false
	}
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != ':' {
		return nil, false, false
	}
	s.i++
	s.ws()
	return key, false, true
}

// value reads any JSON value at s.i; in objects it reads, duplicate keys
// are refused.
func (s *scanner) value() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		if s.depth++; s.depth > maxDepth {
			return false
		}
		s.i++
		var buf [8][]byte
		seen := buf[:0]
		for first := true; ; first = false {
			key, end, ok := s.member(first)
			if !ok {
				return false
			}
			if end {
				break
			}
			for _, k := range seen {
				if bytes.Equal(k, key) {
					return false
				}
			}
			seen = append(seen, key)
			if !s.value() {
				return false
			}
		}
		s.depth--
		return true
	case c == '[':
		if s.depth++; s.depth > maxDepth {
			return false
		}
		s.i++
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == ']' {
			s.i++
			s.depth--
			return true
		}
		for {
			s.ws()
			if !s.value() {
				return false
			}
			s.ws()
			if s.i >= len(s.b) {
				return false
			}
			if s.b[s.i] == ']' {
				s.i++
				s.depth--
				return true
			}
			if s.b[s.i] != ',' {
				return false
			}
			s.i++
		}
	case c == '"':
		return s.str()
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return false
}

func (s *scanner) lit(word string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		return false
	}
	s.i += len(word)
	return true
}

// str reads a string: no control characters, valid escapes.
func (s *scanner) str() bool {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return false
	}
	s.i++
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			s.i++
			if s.i >= len(s.b) {
				return false
			}
			switch s.b[s.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i++
			case 'u':
				if s.i+5 > len(s.b) {
					return false
				}
				for _, h := range s.b[s.i+1 : s.i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				s.i += 5
			default:
				return false
			}
		default:
			s.i++
		}
	}
	return false
}

// number reads a number as RFC 8259 writes them.
func (s *scanner) number() bool {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == j {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == j {
			return false
		}
	}
	s.i = i
	return true
}
