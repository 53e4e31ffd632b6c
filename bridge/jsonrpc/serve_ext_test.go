package jsonrpc_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
)

func TestServePayload(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name, in, want string
	}{
		{"call", `{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`, `{"jsonrpc":"2.0","id":1,"result":[1]}`},
		{"notification", `{"jsonrpc":"2.0","method":"echo"}`, ``},
		{"response", `{"jsonrpc":"2.0","id":1,"result":1}`, ``},
		{"parse error", `{`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: unexpected end of JSON input"}}`},
		{"invalid", `{"jsonrpc":"2.0","id":"a","method":"m","params":true}`,
			`{"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"invalid request: \"params\" must be an object or an array"}}`},
		{"empty batch", `[]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: empty batch"}}`},
		{"batch too large", `[1,2,3,4,5]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large: 5 elements, at most 4"}}`},
		{"batch of notifications", `[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]`, ``},
		{"mixed batch",
			`[{"jsonrpc":"2.0","id":2,"method":"echo","params":{"b":2}},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":1,"method":"echo"},7]`,
			`[{"jsonrpc":"2.0","id":2,"result":{"b":2}},{"jsonrpc":"2.0","id":1,"result":"ok"},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: not a JSON object"}}]`},
		{"duplicate ids in batch",
			`[{"jsonrpc":"2.0","id":1,"method":"echo"},{"jsonrpc":"2.0","id":1,"method":"echo"}]`,
			`[{"jsonrpc":"2.0","id":1,"result":"ok"},{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"duplicate request id 1"}}]`},
	} {
		if got := string(jsonrpc.ServePayload(ctx, []byte(tt.in), echo, 4)); got != tt.want {
			t.Errorf("%s: ServePayload(%s) = %s, want %s", tt.name, tt.in, got, tt.want)
		}
	}

	in := `{"jsonrpc":"2.0","id":1,"method":"m"}`
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: \"m\""}}`
	if got := string(jsonrpc.ServePayload(ctx, []byte(in), nil, 0)); got != want {
		t.Errorf("ServePayload(%s, nil handler) = %s, want %s", in, got, want)
	}
}

// TestResultForms: a json.RawMessage result is compacted, a Compact one
// goes out as it is, anything else through encoding/json.
func TestResultForms(t *testing.T) {
	for _, tt := range []struct {
		name   string
		result any
		want   string
	}{
		{"raw", json.RawMessage(`{ "a" : [1, 2] }`), `{"a":[1,2]}`},
		{"compact", jsonrpc.Compact(`{"a": [1,2]}`), `{"a": [1,2]}`}, // not even checked
		{"value", map[string]int{"a": 1}, `{"a":1}`},
	} {
		h := jsonrpc.HandlerFunc(func(context.Context, *jsonrpc.Request) (any, error) { return tt.result, nil })
		got := string(jsonrpc.ServePayload(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"m"}`), h, 0))
		if want := `{"jsonrpc":"2.0","id":1,"result":` + tt.want + `}`; got != want {
			t.Errorf("%s: %s, want %s", tt.name, got, want)
		}
	}
}

// TestLentResult: a Lent result goes out as it is, and is returned once,
// after it is copied into the payload: what the handler does with its
// bytes afterwards does not change what was sent.
func TestLentResult(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"call", `{"jsonrpc":"2.0","id":1,"method":"m"}`, `{"jsonrpc":"2.0","id":1,"result":{"a": [1,2]}}`},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"m"},{"jsonrpc":"2.0","id":2,"method":"m"}]`,
			`[{"jsonrpc":"2.0","id":1,"result":{"a": [1,2]}},{"jsonrpc":"2.0","id":2,"result":{"a": [1,2]}}]`},
	} {
		var lent, returned atomic.Int32
		h := jsonrpc.HandlerFunc(func(context.Context, *jsonrpc.Request) (any, error) {
			lent.Add(1)
			buf := []byte(`{"a": [1,2]}`)
			return jsonrpc.Lent{JSON: buf, Return: func() {
				returned.Add(1)
				copy(buf, "xxxxxxxxxxxx") // reused at once
			}}, nil
		})
		got := string(jsonrpc.ServePayload(context.Background(), []byte(tt.in), h, 0))
		if got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
		if lent.Load() != returned.Load() {
			t.Errorf("%s: %d results lent, %d returned; want each returned once", tt.name, lent.Load(), returned.Load())
		}
	}
}
