package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// ID is a JSON-RPC request id: a string or an integer, never null.
// The zero ID means "no id": a Request with the zero ID is a notification.
//
// IDs are comparable and may be used as map keys. StringID("7") and
// Int64ID(7) are different ids.
type ID struct {
	value any // nil (the zero ID), string or int64
}

// StringID returns the ID for the string s.
func StringID(s string) ID { return ID{value: s} }

// Int64ID returns the ID for the integer i.
func Int64ID(i int64) ID { return ID{value: i} }

// IsValid reports whether id is a real id rather than the zero ID.
func (id ID) IsValid() bool { return id.value != nil }

// Raw returns the id's value: a string, an int64, or nil for the zero ID.
func (id ID) Raw() any { return id.value }

// String formats id for logs and error messages: a string id quoted, an
// integer id in decimal, and the zero ID as null.
func (id ID) String() string {
	switch v := id.value.(type) {
	case string:
		return strconv.Quote(v)
	case int64:
		return strconv.FormatInt(v, 10)
	default:
		return "null"
	}
}

// MarshalJSON encodes id as a JSON string or number. The zero ID encodes as
// null, which is only meaningful in an error response to a request whose id
// could not be read.
func (id ID) MarshalJSON() ([]byte, error) {
	return json.Marshal(id.value)
}

// UnmarshalJSON decodes a JSON string or integer into id. It rejects null and
// every other kind of value, including numbers with a fraction or an exponent
// and integers that do not fit in an int64.
func (id *ID) UnmarshalJSON(data []byte) error {
	if !json.Valid(data) {
		return errors.New("jsonrpc: id is not valid JSON")
	}
	data = bytes.TrimSpace(data)
	if data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("jsonrpc: decoding string id: %w", err)
		}
		*id = StringID(s)
		return nil
	}
	n, ok := parseInteger(data)
	if !ok {
		return fmt.Errorf("jsonrpc: id must be a string or an integer, not %.40s", data)
	}
	*id = Int64ID(n)
	return nil
}

// parseInteger parses a valid JSON value that must be an integer: a number
// without fraction or exponent that fits in an int64.
func parseInteger(data []byte) (int64, bool) {
	if len(data) == 0 || bytes.ContainsAny(data, ".eE") {
		return 0, false
	}
	if c := data[0]; c != '-' && (c < '0' || c > '9') {
		return 0, false
	}
	n, err := strconv.ParseInt(string(data), 10, 64)
	return n, err == nil
}
