package jsonrpc

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The fast paths of DecodeMessage, DecodePayload and EncodeMessage: one
// pass over the bytes, params and results kept as the bytes they are. They
// take only what they are sure of, and leave the rest (refusals included)
// to the encoding/json paths in wire.go, so that what is accepted, what is
// refused and every error message stay exactly as they were.

// member names of a message, as indexes into fastMembers.raw.
const (
	memberJSONRPC = iota
	memberID
	memberMethod
	memberParams
	memberResult
	memberError
	numMembers
)

// memberIndex returns the index of a member name, or -1.
func memberIndex(name []byte) int {
	switch string(name) {
	case "jsonrpc":
		return memberJSONRPC
	case "id":
		return memberID
	case "method":
		return memberMethod
	case "params":
		return memberParams
	case "result":
		return memberResult
	case "error":
		return memberError
	}
	return -1
}

// decodeFast decodes the message that is all of data (whitespace around
// it allowed). ok false means the fast path does not take it: data is not
// valid JSON, not a valid message, or has something only the slow path
// reads (an escape in a member name, the method or the id, bytes that are
// not UTF-8). With keep, the caller never changes data, and the message's
// params or result are part of it rather than a copy.
func decodeFast(data []byte, keep bool) (_ Message, ok bool) {
	s := scanner{data: data, keep: keep}
	i := s.skip(0)
	end, ok := s.message(i)
	if !ok || s.skip(end) != len(data) {
		return nil, false
	}
	if s.high && !utf8.Valid(data) {
		return nil, false
	}
	return s.build()
}

// fastMessage is what scanner.message found.
type fastMessage struct {
	raw [numMembers][]byte
	has [numMembers]bool
}

// message scans the object that starts at i, noting its members in s.msg.
func (s *scanner) message(i int) (int, bool) {
	s.msg = fastMessage{}
	data := s.data
	if i >= len(data) || data[i] != '{' {
		return 0, false
	}
	i = s.skip(i + 1)
	for {
		if i >= len(data) || data[i] != '"' {
			return 0, false // also the empty object, which is refused
		}
		end, escaped := s.str(i)
		if end < 0 || escaped {
			return 0, false
		}
		m := memberIndex(data[i+1 : end-1])
		if m < 0 || s.msg.has[m] {
			return 0, false // unknown or duplicate: the slow path says which
		}
		i = s.skip(end)
		if i >= len(data) || data[i] != ':' {
			return 0, false
		}
		i = s.skip(i + 1)
		end = s.value(i, 0)
		if end < 0 {
			return 0, false
		}
		s.msg.raw[m], s.msg.has[m] = data[i:end:end], true
		i = s.skip(end)
		if i >= len(data) {
			return 0, false
		}
		switch data[i] {
		case ',':
			i = s.skip(i + 1)
		case '}':
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// build makes the message s.message found, if it is valid and the fast
// path reads everything in it.
func (s *scanner) build() (Message, bool) {
	m := &s.msg
	if !m.has[memberJSONRPC] || string(m.raw[memberJSONRPC]) != `"2.0"` {
		return nil, false
	}
	var id ID
	if m.has[memberID] {
		var ok bool
		if id, ok = plainID(m.raw[memberID]); !ok && !(string(m.raw[memberID]) == "null" && m.has[memberError] && !m.has[memberMethod]) {
			return nil, false
		}
	}
	if m.has[memberMethod] {
		method, ok := plainString(m.raw[memberMethod])
		if !ok || m.has[memberResult] || m.has[memberError] {
			return nil, false
		}
		req := &Request{ID: id, Method: method}
		if m.has[memberParams] {
			if c := m.raw[memberParams][0]; c != '{' && c != '[' {
				return nil, false
			}
			req.Params = s.own(m.raw[memberParams])
		}
		return req, true
	}
	if m.has[memberResult] == m.has[memberError] || m.has[memberParams] || !m.has[memberID] {
		return nil, false
	}
	if m.has[memberResult] {
		return &Response{ID: id, Result: s.own(m.raw[memberResult])}, true
	}
	e, err := decodeError(m.raw[memberError]) // copies what it keeps
	if err != nil {
		return nil, false
	}
	return &Response{ID: id, Error: e}, true
}

// own returns raw, a part of s.data, for a message to hold: raw itself if
// the caller keeps data as it is, else a copy.
func (s *scanner) own(raw []byte) []byte {
	if s.keep {
		return raw
	}
	return bytes.Clone(raw)
}

// plainString returns the JSON string raw without its quotes, if it has
// no escapes.
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || bytes.IndexByte(raw, '\\') >= 0 {
		return "", false
	}
	return string(raw[1 : len(raw)-1]), true
}

// plainID reads an id that is a string without escapes or an integer.
func plainID(raw []byte) (ID, bool) {
	if s, ok := plainString(raw); ok {
		return StringID(s), true
	}
	if n, ok := parseInteger(raw); ok {
		return Int64ID(n), true
	}
	return ID{}, false
}

// decodePayloadFast is DecodePayload's fast path; ok false sends the
// payload the slow way.
func decodePayloadFast(data []byte, keep bool) (taken bool, msgs []Message, batch bool, err error) {
	i := 0
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	if i == len(data) || data[i] != '[' {
		m, ok := decodeFast(data, keep)
		if !ok {
			return false, nil, false, nil
		}
		return true, []Message{m}, false, nil
	}
	s := scanner{data: data}
	start, _, valid := s.whole()
	if !valid || (s.high && !utf8.Valid(data)) {
		return false, nil, false, nil
	}
	// The elements, each decoded on its own.
	var bad []*DecodeError
	i = s.skip(start + 1)
	if data[i] == ']' {
		return true, nil, true, invalid(ID{}, "empty batch")
	}
	for {
		end := s.value(i, 0)
		elem := data[i:end:end]
		if m, ok := decodeFast(elem, keep); ok {
			msgs = append(msgs, m)
		} else if m, derr := decodeMessage(elem); derr != nil {
			bad = append(bad, derr)
		} else {
			msgs = append(msgs, m)
		}
		i = s.skip(end)
		if data[i] == ']' {
			break
		}
		i = s.skip(i + 1)
	}
	if len(bad) > 0 {
		return true, msgs, true, &BatchError{Invalid: bad}
	}
	return true, msgs, true, nil
}

// appendString appends s as a JSON string, as marshalJSON writes it; ok
// false if s needs escaping, which the fast path leaves to encoding/json.
func appendString(dst []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return dst, false
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"'), true
}

// appendID appends id as ID.MarshalJSON writes it; ok false if the fast
// path leaves it to encoding/json.
func appendID(dst []byte, id ID) ([]byte, bool) {
	switch v := id.value.(type) {
	case int64:
		return strconv.AppendInt(dst, v, 10), true
	case string:
		// json.Marshal escapes <, > and & in the id.
		if strings.ContainsAny(v, "<>&") {
			return dst, false
		}
		return appendString(dst, v)
	default:
		return append(dst, "null"...), true
	}
}

// appendRequest appends the encoding of r, which EncodeMessage checked. A
// trusted r's params are compact valid JSON already. ok false leaves r to
// the slow path.
func appendRequest(dst []byte, r *Request, trusted bool) (_ []byte, ok bool) {
	dst = append(dst, `{"jsonrpc":"2.0"`...)
	if r.ID.IsValid() {
		dst = append(dst, `,"id":`...)
		if dst, ok = appendID(dst, r.ID); !ok {
			return dst, false
		}
	}
	dst = append(dst, `,"method":`...)
	if dst, ok = appendString(dst, r.Method); !ok {
		return dst, false
	}
	if len(r.Params) > 0 {
		dst = append(dst, `,"params":`...)
		if trusted {
			dst = append(dst, r.Params...)
		} else if dst, ok = appendCompact(dst, r.Params); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// appendResponse appends the encoding of r, which EncodeMessage checked.
// With trustedResult, r's result is compact valid JSON already. ok false
// leaves r to the slow path.
func appendResponse(dst []byte, r *Response, trustedResult bool) (_ []byte, ok bool) {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	if dst, ok = appendID(dst, r.ID); !ok {
		return dst, false
	}
	if len(r.Result) > 0 {
		dst = append(dst, `,"result":`...)
		if trustedResult {
			dst = append(dst, r.Result...)
		} else if dst, ok = appendCompact(dst, r.Result); !ok {
			return dst, false
		}
		return append(dst, '}'), true
	}
	e := r.Error
	dst = append(dst, `,"error":{"code":`...)
	dst = strconv.AppendInt(dst, e.Code, 10)
	dst = append(dst, `,"message":`...)
	if dst, ok = appendString(dst, e.Message); !ok {
		return dst, false
	}
	if len(e.Data) > 0 {
		dst = append(dst, `,"data":`...)
		if dst, ok = appendCompact(dst, e.Data); !ok {
			return dst, false
		}
	}
	return append(dst, "}}"...), true
}

// appendFast appends the encoding of m, a message EncodeMessage accepts,
// to dst; ok false (dst unchanged) leaves it to the slow path. trusted
// says that m's params or result are compact valid JSON already.
func appendFast(dst []byte, m Message, trusted bool) (_ []byte, ok bool) {
	n := len(dst)
	var out []byte
	switch m := m.(type) {
	case *Request:
		out, ok = appendRequest(dst, m, trusted)
	case *Response:
		if (len(m.Result) > 0) == (m.Error != nil) || (len(m.Result) > 0 && !m.ID.IsValid()) {
			return dst, false
		}
		out, ok = appendResponse(dst, m, trusted)
	}
	if !ok {
		return dst[:n], false
	}
	return out, true
}
