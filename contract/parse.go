package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cadbridge/cadbridge/contract/jsonwire"
)

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

// escape escapes a key for an RFC 6901 pointer.
func escape(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// AppendGeneric appends the wire JSON of a generic value (as ParseJSON
// returns it): object keys sorted, strings as Marshal writes them, numbers
// as they were written.
func AppendGeneric(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case json.Number:
		return append(b, x...), nil
	case float64:
		return jsonwire.AppendFloat(b, x), nil
	case string:
		return jsonwire.AppendString(b, x), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = AppendGeneric(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		b = append(b, '{')
		for i, k := range sortedKeys(x) {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonwire.AppendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = AppendGeneric(b, x[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	return nil, fmt.Errorf("contract: %T is not a generic JSON value", v)
}
