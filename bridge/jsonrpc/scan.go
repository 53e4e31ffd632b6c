package jsonrpc

import (
	"encoding/binary"
	"math/bits"
)

// A one-pass JSON scanner for the wire's fast paths: it checks syntax as
// encoding/json's scanner does (json.Valid), without building values, so
// that params and results pass from the wire to the handler, and from the
// handler to the wire, as the bytes they are. Whatever the fast paths do
// not take (an escape in a member name, a message they would refuse,
// invalid JSON) goes the encoding/json way, which says what is wrong; a
// differential fuzz test keeps the two in agreement.

// maxNestingDepth is encoding/json's limit on nesting: json.Valid refuses
// deeper values.
const maxNestingDepth = 10000

// scanner checks the syntax of JSON values in data.
type scanner struct {
	data []byte
	// high is set when a byte of 0x80 or above was seen (in a string: it
	// is a syntax error anywhere else), so that UTF-8 needs checking.
	high bool
	// spaced is set when whitespace was seen between or around tokens:
	// the value is not compact.
	spaced bool
	// keep says that data never changes: a message decoded from it may
	// hold parts of it.
	keep bool
	// msg holds the members scanner.message found.
	msg fastMessage
}

// isSpace reports whether c is JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skip returns the index of the first byte at or after i that is not
// whitespace.
func (s *scanner) skip(i int) int {
	if i < len(s.data) && s.data[i] > ' ' {
		return i // compact JSON: no whitespace here
	}
	for i < len(s.data) && isSpace(s.data[i]) {
		i++
		s.spaced = true
	}
	return i
}

// value checks the value that starts at i (no whitespace before it) and
// returns the index just past it, or -1 if it is not valid JSON.
func (s *scanner) value(i, depth int) int {
	if i >= len(s.data) {
		return -1
	}
	switch c := s.data[i]; {
	case c == '"':
		end, _ := s.str(i)
		return end
	case c == '{':
		return s.object(i, depth+1)
	case c == '[':
		return s.array(i, depth+1)
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number(i)
	case c == 't':
		return s.literal(i, "true")
	case c == 'f':
		return s.literal(i, "false")
	case c == 'n':
		return s.literal(i, "null")
	}
	return -1
}

func (s *scanner) literal(i int, lit string) int {
	if len(s.data)-i < len(lit) || string(s.data[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// str checks the string that starts at i and returns the index just past
// its closing quote (or -1) and whether it holds an escape.
func (s *scanner) str(i int) (int, bool) {
	data := s.data
	escaped := false
	i++
	for i < len(data) {
		i = plainRun(data, i)
		if i >= len(data) {
			break
		}
		c := data[i]
		if plain[c] {
			i++
			continue
		}
		switch {
		case c == '"':
			return i + 1, escaped
		case c == '\\':
			escaped = true
			if i+1 >= len(data) {
				return -1, escaped
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) || !isHex(data[i+2]) || !isHex(data[i+3]) || !isHex(data[i+4]) || !isHex(data[i+5]) {
					return -1, escaped
				}
				i += 6
			default:
				return -1, escaped
			}
		case c < 0x20:
			return -1, escaped
		default:
			if c >= 0x80 {
				s.high = true
			}
			i++
		}
	}
	return -1, escaped
}

// plainRun skips, eight bytes at a time, the bytes from i on that stand
// for themselves in a string, and returns the index of the first quote,
// backslash, control character or byte of 0x80 and above, or where fewer
// than eight bytes are left; str goes on from there a byte at a time
// (and sets s.high for a byte of 0x80 and above). Strings are most of a
// large result, and nearly all of them ASCII.
func plainRun(data []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		// The high bit of each byte that is below 0x20, a quote, a
		// backslash or 0x80 and above; a borrow may mark bytes past the
		// first such byte, never one before it.
		quote, backslash := w^(ones*'"'), w^(ones*'\\')
		if special := ((w-ones*0x20)&^w | (quote-ones)&^quote | (backslash-ones)&^backslash | w) & highs; special != 0 {
			return i + bits.TrailingZeros64(special)/8
		}
	}
	return i
}

// plain marks the bytes that stand for themselves in a string: not a
// quote, a backslash, a control character or a byte of 0x80 and above.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// number checks the number that starts at i.
func (s *scanner) number(i int) int {
	data := s.data
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		i = digits(data, i)
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		j := digits(data, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := digits(data, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

// digits returns the index of the first byte at or after i that is not a
// decimal digit.
func digits(data []byte, i int) int {
	for i < len(data) && data[i] >= '0' && data[i] <= '9' {
		i++
	}
	return i
}

// object checks the object that starts at i.
func (s *scanner) object(i, depth int) int {
	if depth > maxNestingDepth {
		return -1
	}
	i = s.skip(i + 1)
	if i < len(s.data) && s.data[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(s.data) || s.data[i] != '"' {
			return -1
		}
		if i, _ = s.str(i); i < 0 {
			return -1
		}
		i = s.skip(i)
		if i >= len(s.data) || s.data[i] != ':' {
			return -1
		}
		if i = s.value(s.skip(i+1), depth); i < 0 {
			return -1
		}
		i = s.skip(i)
		if i >= len(s.data) {
			return -1
		}
		switch s.data[i] {
		case ',':
			i = s.skip(i + 1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

// array checks the array that starts at i.
func (s *scanner) array(i, depth int) int {
	if depth > maxNestingDepth {
		return -1
	}
	i = s.skip(i + 1)
	if i < len(s.data) && s.data[i] == ']' {
		return i + 1
	}
	for {
		if i = s.value(i, depth); i < 0 {
			return -1
		}
		i = s.skip(i)
		if i >= len(s.data) {
			return -1
		}
		switch s.data[i] {
		case ',':
			i = s.skip(i + 1)
		case ']':
			return i + 1
		default:
			return -1
		}
	}
}

// whole checks that data is one JSON value with optional whitespace
// around it, as json.Valid does (bytes of invalid UTF-8 in strings
// included), and returns where the value starts and ends.
func (s *scanner) whole() (start, end int, ok bool) {
	start = s.skip(0)
	end = s.value(start, 0)
	if end < 0 || s.skip(end) != len(s.data) {
		return 0, 0, false
	}
	return start, end, true
}

// appendCompact appends the JSON value raw to dst without insignificant
// whitespace, as encoding/json writes a json.RawMessage when it does not
// escape HTML. ok is false (and dst unchanged) if raw is not valid JSON.
func appendCompact(dst, raw []byte) (_ []byte, ok bool) {
	s := scanner{data: raw}
	start, end, ok := s.whole()
	if !ok {
		return dst, false
	}
	if !s.spaced {
		return append(dst, raw...), true
	}
	raw = raw[start:end]
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if isSpace(c) {
			continue
		}
		if c != '"' {
			dst = append(dst, c)
			continue
		}
		j, _ := s.strAt(raw, i)
		dst = append(dst, raw[i:j]...)
		i = j - 1
	}
	return dst, true
}

// strAt returns the index just past the (valid) string that starts at i
// of data.
func (s *scanner) strAt(data []byte, i int) (int, bool) {
	t := scanner{data: data}
	return t.str(i)
}

// compactRaw returns raw without insignificant whitespace (raw itself if
// it has none), or ok false if it is not valid JSON.
func compactRaw(raw []byte) (_ []byte, ok bool) {
	s := scanner{data: raw}
	start, end, ok := s.whole()
	if !ok {
		return nil, false
	}
	if !s.spaced {
		return raw, true
	}
	if out, ok := appendCompact(make([]byte, 0, end-start), raw); ok {
		return out, true
	}
	return nil, false
}
