package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// version is the value of the "jsonrpc" member of every message.
const version = "2.0"

// wireRequest is the JSON form of a Request.
type wireRequest struct {
	Version string          `json:"jsonrpc"`
	ID      ID              `json:"id,omitzero"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// wireResponse is the JSON form of a Response.
type wireResponse struct {
	Version string          `json:"jsonrpc"`
	ID      ID              `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// DecodeError reports a message that could not be decoded, with what is
// needed to answer it. It unwraps to Err.
type DecodeError struct {
	// ID is the message's id if it could be read, else the zero ID (which
	// is sent as null).
	ID ID
	// Err is the error to answer with; its code is CodeParseError or
	// CodeInvalidRequest.
	Err *Error
}

// Error returns the message of Err, with the id if there is one.
func (e *DecodeError) Error() string {
	if e.ID.IsValid() {
		return fmt.Sprintf("message %v: %v", e.ID, e.Err)
	}
	return e.Err.Error()
}

// Unwrap returns Err.
func (e *DecodeError) Unwrap() error { return e.Err }

// BatchError lists the elements of a batch that are not valid messages.
// DecodePayload returns it together with the batch's valid messages.
type BatchError struct {
	// Invalid holds one DecodeError per invalid element, in batch order.
	Invalid []*DecodeError
}

// Error summarizes the invalid elements.
func (e *BatchError) Error() string {
	return fmt.Sprintf("jsonrpc: %d invalid batch elements, the first: %v", len(e.Invalid), e.Invalid[0])
}

// EncodeMessage returns the JSON encoding of m: compact (so never containing
// a raw newline), with "jsonrpc":"2.0". It fails for a message that
// DecodeMessage would reject: a Request whose Params is not an object or
// array, or a Response without exactly one of Result and Error, or with a
// Result but no ID.
func EncodeMessage(m Message) ([]byte, error) { return encodeMessage(m, true) }

// encodeMessage is EncodeMessage; fast false takes the encoding/json path
// for every message.
func encodeMessage(m Message, fast bool) ([]byte, error) {
	var v any
	switch m := m.(type) {
	case *Request:
		if m == nil {
			return nil, errors.New("jsonrpc: encoding a nil *Request")
		}
		if len(m.Params) > 0 && !isStructured(m.Params) {
			return nil, fmt.Errorf("jsonrpc: encoding request %q: params must be a JSON object or array", m.Method)
		}
		v = wireRequest{Version: version, ID: m.ID, Method: m.Method, Params: m.Params}
	case *Response:
		if m == nil {
			return nil, errors.New("jsonrpc: encoding a nil *Response")
		}
		hasResult := len(m.Result) > 0
		if hasResult == (m.Error != nil) {
			return nil, fmt.Errorf("jsonrpc: encoding response %v: need exactly one of result and error", m.ID)
		}
		if hasResult && !m.ID.IsValid() {
			return nil, errors.New("jsonrpc: encoding response: a result needs an id")
		}
		v = wireResponse{Version: version, ID: m.ID, Result: m.Result, Error: m.Error}
	default:
		return nil, fmt.Errorf("jsonrpc: cannot encode %T", m)
	}
	if data, ok := appendFast(nil, m, false); fast && ok {
		return data, nil
	}
	data, err := marshalJSON(v)
	if err != nil {
		return nil, fmt.Errorf("jsonrpc: encoding message: %w", err)
	}
	return data, nil
}

// DecodeMessage decodes a single message, strictly: "jsonrpc" must be "2.0";
// a request has a string "method", an optional "id" and optional "params"
// that must be an object or array; a response has an "id" and exactly one of
// "result" and "error"; ids are strings or integers; no other members and no
// duplicate members are allowed. (Members of an error object other than
// "code", "message" and "data" are ignored.) A response may have a null id
// only if it is an error.
//
// The error is a *DecodeError, which unwraps to an *Error with
// CodeParseError if data is not JSON or CodeInvalidRequest if it is JSON but
// not a valid message.
func DecodeMessage(data []byte) (Message, error) {
	if m, ok := decodeFast(data, false); ok {
		return m, nil
	}
	return decodeMessageSlow(data)
}

// decodeMessageSlow is DecodeMessage with encoding/json.
func decodeMessageSlow(data []byte) (Message, error) {
	if !json.Valid(data) {
		return nil, parseError(data)
	}
	m, derr := decodeMessage(data)
	if derr != nil {
		return nil, derr
	}
	return m, nil
}

// DecodePayload decodes a payload: a single message, or a batch array of
// them (batch reports which). Whitespace around the payload is allowed.
//
// An invalid element does not fail a batch: msgs holds the valid elements in
// order, and err is a *BatchError listing the invalid ones, each to be
// answered on its own. Any other error is a *DecodeError for the payload as
// a whole (it is not JSON or not UTF-8, it is an empty array, or it is a single invalid
// message), to be answered with one error response.
func DecodePayload(data []byte) (msgs []Message, batch bool, err error) {
	return decodePayload(data, false)
}

// decodePayload is DecodePayload; with keep, the caller never changes
// data (a payload a Stream read), and the messages' params and results
// may be parts of it rather than copies.
func decodePayload(data []byte, keep bool) (msgs []Message, batch bool, err error) {
	if taken, msgs, batch, err := decodePayloadFast(data, keep); taken {
		return msgs, batch, err
	}
	return decodePayloadSlow(data)
}

// decodePayloadSlow is DecodePayload with encoding/json.
func decodePayloadSlow(data []byte) (msgs []Message, batch bool, err error) {
	if !json.Valid(data) || !utf8.Valid(data) {
		return nil, false, parseError(data)
	}
	data = bytes.TrimLeft(data, " \t\r\n")
	if data[0] != '[' {
		m, derr := decodeMessage(data)
		if derr != nil {
			return nil, false, derr
		}
		return []Message{m}, false, nil
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(data, &elems); err != nil {
		return nil, true, parseError(data) // unreachable: data is a valid array
	}
	if len(elems) == 0 {
		return nil, true, invalid(ID{}, "empty batch")
	}
	var bad []*DecodeError
	for _, elem := range elems {
		m, derr := decodeMessage(elem)
		if derr != nil {
			bad = append(bad, derr)
			continue
		}
		msgs = append(msgs, m)
	}
	if len(bad) > 0 {
		return msgs, true, &BatchError{Invalid: bad}
	}
	return msgs, true, nil
}

// parseError returns the error for data that is not JSON.
func parseError(data []byte) *DecodeError {
	msg := "parse error"
	if err := json.Unmarshal(data, new(json.RawMessage)); err != nil {
		msg += ": " + err.Error()
	} else if !utf8.Valid(data) {
		msg += ": invalid UTF-8"
	}
	return &DecodeError{Err: NewError(CodeParseError, msg)}
}

// invalid returns the error for a message that is not valid.
func invalid(id ID, msg string) *DecodeError {
	return &DecodeError{ID: id, Err: NewError(CodeInvalidRequest, "invalid request: "+msg)}
}

// decodeMessage decodes one message from valid JSON.
func decodeMessage(data []byte) (Message, *DecodeError) {
	members, names, err := objectMembers(data)
	if err != nil {
		return nil, invalid(ID{}, err.Error())
	}
	rawID, hasID := members["id"]
	var id ID // stays the zero ID unless the id is valid
	var idErr error
	if hasID {
		idErr = id.UnmarshalJSON(rawID)
	}
	for _, name := range names { // the first unknown one, in the message's order
		switch name {
		case "jsonrpc", "id", "method", "params", "result", "error":
		default:
			return nil, invalid(id, fmt.Sprintf("unknown member %.64q", name))
		}
	}
	if v, ok := members["jsonrpc"]; !ok || !isString(v, version) {
		return nil, invalid(id, `"jsonrpc" must be "2.0"`)
	}
	rawResult, hasResult := members["result"]
	rawError, hasError := members["error"]

	if rawMethod, ok := members["method"]; ok {
		var method string
		if rawMethod[0] != '"' || json.Unmarshal(rawMethod, &method) != nil {
			return nil, invalid(id, `"method" must be a string`)
		}
		if hasResult || hasError {
			return nil, invalid(id, `a request cannot have "result" or "error"`)
		}
		if hasID && idErr != nil {
			return nil, invalid(id, idErr.Error())
		}
		params, hasParams := members["params"]
		if hasParams && !isStructured(params) {
			return nil, invalid(id, `"params" must be an object or an array`)
		}
		return &Request{ID: id, Method: method, Params: params}, nil
	}

	if !hasResult && !hasError {
		return nil, invalid(id, `need "method", "result" or "error"`)
	}
	if hasResult && hasError {
		return nil, invalid(id, `a response cannot have both "result" and "error"`)
	}
	if _, ok := members["params"]; ok {
		return nil, invalid(id, `a response cannot have "params"`)
	}
	if !hasID {
		return nil, invalid(id, `a response needs an "id"`)
	}
	if idErr != nil && !(hasError && string(rawID) == "null") {
		return nil, invalid(id, idErr.Error())
	}
	if hasResult {
		return &Response{ID: id, Result: rawResult}, nil
	}
	e, err := decodeError(rawError)
	if err != nil {
		return nil, invalid(id, err.Error())
	}
	return &Response{ID: id, Error: e}, nil
}

// decodeError decodes an error object from valid JSON. Members other than
// code, message and data are ignored.
func decodeError(data []byte) (*Error, error) {
	members, _, err := objectMembers(data)
	if err != nil {
		return nil, fmt.Errorf(`"error": %w`, err)
	}
	code, ok := parseInteger(members["code"])
	if !ok {
		return nil, errors.New(`"error" needs an integer "code"`)
	}
	e := &Error{Code: code, Data: members["data"]}
	rawMessage := members["message"]
	if len(rawMessage) == 0 || rawMessage[0] != '"' || json.Unmarshal(rawMessage, &e.Message) != nil {
		return nil, errors.New(`"error" needs a string "message"`)
	}
	return e, nil
}

// objectMembers splits valid JSON that must be an object into its members,
// and lists their names in order. It rejects duplicate member names.
func objectMembers(data []byte) (map[string]json.RawMessage, []string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, errors.New("not a JSON object")
	}
	members := make(map[string]json.RawMessage)
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		name, ok := tok.(string)
		if err != nil || !ok {
			return nil, nil, errors.New("malformed object") // unreachable for valid JSON
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, nil, fmt.Errorf("member %.64q: %w", name, err)
		}
		if _, dup := members[name]; dup {
			return nil, nil, fmt.Errorf("duplicate member %.64q", name)
		}
		members[name] = value
		names = append(names, name)
	}
	return members, names, nil
}

// isStructured reports whether the JSON value data is an object or an array.
func isStructured(data []byte) bool {
	data = bytes.TrimLeft(data, " \t\r\n")
	return len(data) > 0 && (data[0] == '{' || data[0] == '[')
}

// isString reports whether the JSON value data is the string s.
func isString(data []byte, s string) bool {
	var got string
	return len(data) > 0 && data[0] == '"' && json.Unmarshal(data, &got) == nil && got == s
}

// marshalJSON is json.Marshal without escaping <, > and & in strings.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// encodeResponses appends responses to buf (nil for a new buffer) as one
// payload: a batch array if batch is set, else the single response. It
// returns nil if there are none. A response that cannot be encoded (say,
// its Error.Data is not valid JSON) is replaced by a CodeInternalError
// response. Every result must come from response, which leaves it compact
// and valid; a Lent one is returned once it is copied.
func encodeResponses(buf []byte, resps []*Response, batch bool) []byte {
	if len(resps) == 0 {
		return nil
	}
	if buf == nil {
		buf = make([]byte, 0, answersSize(resps))
	}
	if batch {
		buf = append(buf, '[')
	}
	for i, resp := range resps {
		if i > 0 {
			buf = append(buf, ',')
		}
		if out, ok := appendFast(buf, resp, true); ok {
			buf = out
		} else {
			data, err := EncodeMessage(resp)
			if err != nil {
				data, _ = EncodeMessage(&Response{ID: resp.ID, Error: NewError(CodeInternalError, err.Error())})
			}
			buf = append(buf, data...)
		}
		if !batch {
			break
		}
	}
	if batch {
		buf = append(buf, ']')
	}
	for _, resp := range resps {
		if ret := resp.lent; ret != nil {
			resp.Result, resp.lent = nil, nil
			ret() // copied into buf
		}
	}
	return buf
}

// answersSize is about the size of resps encoded as one payload: their
// results, and room for the rest of each response.
func answersSize(resps []*Response) int {
	size := 2
	for _, resp := range resps {
		size += len(resp.Result) + 64
	}
	return size
}
