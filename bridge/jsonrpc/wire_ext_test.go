package jsonrpc_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
)

func TestIDJSON(t *testing.T) {
	for _, tt := range []struct {
		id   jsonrpc.ID
		json string
		str  string
		raw  any
	}{
		{jsonrpc.StringID("srq-1"), `"srq-1"`, `"srq-1"`, "srq-1"},
		{jsonrpc.StringID(""), `""`, `""`, ""},
		{jsonrpc.Int64ID(7), `7`, `7`, int64(7)},
		{jsonrpc.Int64ID(-9223372036854775808), `-9223372036854775808`, `-9223372036854775808`, int64(-9223372036854775808)},
		{jsonrpc.ID{}, `null`, `null`, nil},
	} {
		got, err := json.Marshal(tt.id)
		if err != nil || string(got) != tt.json {
			t.Errorf("json.Marshal(%v) = %s, %v, want %s", tt.id, got, err, tt.json)
		}
		if got := tt.id.String(); got != tt.str {
			t.Errorf("ID.String() = %s, want %s", got, tt.str)
		}
		if got := tt.id.Raw(); got != tt.raw {
			t.Errorf("%v.Raw() = %#v, want %#v", tt.id, got, tt.raw)
		}
		if got, want := tt.id.IsValid(), tt.raw != nil; got != want {
			t.Errorf("%v.IsValid() = %v, want %v", tt.id, got, want)
		}
		if !tt.id.IsValid() {
			continue
		}
		var back jsonrpc.ID
		if err := json.Unmarshal(got, &back); err != nil || back != tt.id {
			t.Errorf("json.Unmarshal(%s) = %v, %v, want %v", got, back, err, tt.id)
		}
	}
	if jsonrpc.StringID("7") == jsonrpc.Int64ID(7) {
		t.Errorf(`StringID("7") == Int64ID(7), want different ids`)
	}

	for _, bad := range []string{`null`, `1.5`, `1.0`, `1e3`, `-0.0`, `true`, `{}`, `[]`, `9223372036854775808`, `"unterminated`, ``} {
		var id jsonrpc.ID
		if err := id.UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("ID.UnmarshalJSON(%s) = nil, want an error (id %v)", bad, id)
		}
		if err := json.Unmarshal([]byte(bad), &id); err == nil {
			t.Errorf("json.Unmarshal(%s) = nil, want an error (id %v)", bad, id)
		}
	}
}

func TestEncodeMessage(t *testing.T) {
	for _, tt := range []struct {
		msg  jsonrpc.Message
		want string
	}{
		{&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "m", Params: json.RawMessage(` { "a" : [1, 2] } `)},
			`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1,2]}}`},
		{&jsonrpc.Request{ID: jsonrpc.StringID(""), Method: "m"}, `{"jsonrpc":"2.0","id":"","method":"m"}`},
		{&jsonrpc.Request{Method: "note", Params: json.RawMessage(`["<&>"]`)}, `{"jsonrpc":"2.0","method":"note","params":["<&>"]}`},
		{&jsonrpc.Response{ID: jsonrpc.StringID("x"), Result: json.RawMessage("null")}, `{"jsonrpc":"2.0","id":"x","result":null}`},
		{&jsonrpc.Response{ID: jsonrpc.Int64ID(2), Error: jsonrpc.NewError(-1, "bad").WithData(map[string]int{"n": 1})},
			`{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"bad","data":{"n":1}}}`},
		{&jsonrpc.Response{Error: jsonrpc.NewError(jsonrpc.CodeParseError, "parse error")},
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`},
	} {
		got, err := jsonrpc.EncodeMessage(tt.msg)
		if err != nil || string(got) != tt.want {
			t.Errorf("EncodeMessage(%+v) = %s, %v, want %s", tt.msg, got, err, tt.want)
		}
	}

	for _, bad := range []jsonrpc.Message{
		nil,
		&jsonrpc.Request{Method: "m", Params: json.RawMessage(`1`)},
		&jsonrpc.Request{Method: "m", Params: json.RawMessage(`{`)},
		&jsonrpc.Response{ID: jsonrpc.Int64ID(1)},
		&jsonrpc.Response{ID: jsonrpc.Int64ID(1), Result: json.RawMessage(`1`), Error: jsonrpc.NewError(1, "x")},
		&jsonrpc.Response{Result: json.RawMessage(`1`)},
		&jsonrpc.Response{ID: jsonrpc.Int64ID(1), Error: &jsonrpc.Error{Data: json.RawMessage(`{`)}},
	} {
		if got, err := jsonrpc.EncodeMessage(bad); err == nil {
			t.Errorf("EncodeMessage(%+v) = %s, nil, want an error", bad, got)
		}
	}
}

func TestDecodeMessage(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want jsonrpc.Message
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}`,
			&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "m", Params: json.RawMessage(`[1]`)}},
		{` {"method":"m","jsonrpc":"2.0","params":{}} `, &jsonrpc.Request{Method: "m", Params: json.RawMessage(`{}`)}},
		{`{"jsonrpc":"2.0","id":"a","result":null}`, &jsonrpc.Response{ID: jsonrpc.StringID("a"), Result: json.RawMessage(`null`)}},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x","extra":1}}`,
			&jsonrpc.Response{Error: jsonrpc.NewError(-32700, "x")}},
		{`{"jsonrpc":"2.0","id":3,"error":{"code":5,"message":"x","data":[1]}}`,
			&jsonrpc.Response{ID: jsonrpc.Int64ID(3), Error: &jsonrpc.Error{Code: 5, Message: "x", Data: json.RawMessage(`[1]`)}}},
	} {
		got, err := jsonrpc.DecodeMessage([]byte(tt.in))
		if err != nil {
			t.Errorf("DecodeMessage(%s) = %v, want %+v", tt.in, err, tt.want)
			continue
		}
		gotJSON, _ := jsonrpc.EncodeMessage(got)
		wantJSON, _ := jsonrpc.EncodeMessage(tt.want)
		if !bytes.Equal(gotJSON, wantJSON) {
			t.Errorf("DecodeMessage(%s) = %s, want %s", tt.in, gotJSON, wantJSON)
		}
	}

	for _, tt := range []struct {
		in   string
		code int64
		id   jsonrpc.ID // the id that could be read
	}{
		{`{"jsonrpc":"2.0","id":1,"method":`, jsonrpc.CodeParseError, jsonrpc.ID{}},
		{`not json`, jsonrpc.CodeParseError, jsonrpc.ID{}},
		{``, jsonrpc.CodeParseError, jsonrpc.ID{}},
		{`[1]`, jsonrpc.CodeInvalidRequest, jsonrpc.ID{}},
		{`"x"`, jsonrpc.CodeInvalidRequest, jsonrpc.ID{}},
		{`{"id":1,"method":"m"}`, jsonrpc.CodeInvalidRequest, jsonrpc.Int64ID(1)},                              // missing jsonrpc
		{`{"jsonrpc":"1.0","id":1,"method":"m"}`, jsonrpc.CodeInvalidRequest, jsonrpc.Int64ID(1)},              // wrong version
		{`{"jsonrpc":2.0,"id":1,"method":"m"}`, jsonrpc.CodeInvalidRequest, jsonrpc.Int64ID(1)},                // version not a string
		{`{"jsonrpc":"2.0","id":1,"method":"m","extra":true}`, jsonrpc.CodeInvalidRequest, jsonrpc.Int64ID(1)}, // unknown member
		{`{"jsonrpc":"2.0","id":1,"Method":"m"}`, jsonrpc.CodeInvalidRequest, jsonrpc.Int64ID(1)},              // names are case-sensitive
		{`{"jsonrpc":"2.0","id":1,"method":"m","method":"n"}`, jsonrpc.CodeInvalidRequest, jsonrpc.ID{}},       // duplicate member
		{`{"jsonrpc":"2.0","id":1,"method":"m","params":1}`, jsonrpc.CodeInvalidRequest, jsonrpc.Int64ID(1)},
		{`{"jsonrpc":"2.0","id":1,"method":"m","params":"s"}`, jsonrpc.CodeInvalidRequest, jsonrpc.Int64ID(1)},
		{`{"jsonrpc":"2.0","id":1,"method":"m","params":null}`, jsonrpc.CodeInvalidRequest, jsonrpc.Int64ID(1)},
		{`{"jsonrpc":"2.0","id":1,"method":1}`, jsonrpc.CodeInvalidRequest, jsonrpc.Int64ID(1)},
		{`{"jsonrpc":"2.0","id":1,"method":null}`, jsonrpc.CodeInvalidRequest, jsonrpc.Int64ID(1)},
		{`{"jsonrpc":"2.0","id":null,"method":"m"}`, jsonrpc.CodeInvalidRequest, jsonrpc.ID{}},
		{`{"jsonrpc":"2.0","id":1.5,"method":"m"}`, jsonrpc.CodeInvalidRequest, jsonrpc.ID{}},
		{`{"jsonrpc":"2.0","id":{},"method":"m"}`, jsonrpc.CodeInvalidRequest, jsonrpc.ID{}},
		{`{"jsonrpc":"2.0","id":"a","method":"m","result":1}`, jsonrpc.CodeInvalidRequest, jsonrpc.StringID("a")},
		{`{"jsonrpc":"2.0","id":"a","result":1,"error":{"code":1,"message":"x"}}`, jsonrpc.CodeInvalidRequest, jsonrpc.StringID("a")},
		{`{"jsonrpc":"2.0","id":"a"}`, jsonrpc.CodeInvalidRequest, jsonrpc.StringID("a")},
		{`{"jsonrpc":"2.0","result":1}`, jsonrpc.CodeInvalidRequest, jsonrpc.ID{}},
		{`{"jsonrpc":"2.0","id":null,"result":1}`, jsonrpc.CodeInvalidRequest, jsonrpc.ID{}},
		{`{"jsonrpc":"2.0","id":"a","result":1,"params":[]}`, jsonrpc.CodeInvalidRequest, jsonrpc.StringID("a")},
		{`{"jsonrpc":"2.0","id":"a","error":{"code":1.5,"message":"x"}}`, jsonrpc.CodeInvalidRequest, jsonrpc.StringID("a")},
		{`{"jsonrpc":"2.0","id":"a","error":{"code":1}}`, jsonrpc.CodeInvalidRequest, jsonrpc.StringID("a")},
		{`{"jsonrpc":"2.0","id":"a","error":"boom"}`, jsonrpc.CodeInvalidRequest, jsonrpc.StringID("a")},
	} {
		m, err := jsonrpc.DecodeMessage([]byte(tt.in))
		var derr *jsonrpc.DecodeError
		if !errors.As(err, &derr) {
			t.Errorf("DecodeMessage(%s) = %+v, %v, want a *DecodeError", tt.in, m, err)
			continue
		}
		if got := errorCode(err); got != tt.code || derr.ID != tt.id {
			t.Errorf("DecodeMessage(%s) = error code %d, id %v, want code %d, id %v", tt.in, got, derr.ID, tt.code, tt.id)
		}
	}
}

func TestDecodePayload(t *testing.T) {
	msgs, batch, err := jsonrpc.DecodePayload([]byte("\n\t [" +
		`{"jsonrpc":"2.0","id":1,"method":"m"},` +
		`{"jsonrpc":"2.0","id":2,"method":"m","params":3},` +
		`5,` +
		`{"jsonrpc":"2.0","method":"n"},` +
		`{"jsonrpc":"2.0","id":"r","result":{}}` +
		"] \n"))
	var berr *jsonrpc.BatchError
	if !batch || !errors.As(err, &berr) {
		t.Fatalf("DecodePayload(mixed batch) = batch %v, error %v, want a batch and a *BatchError", batch, err)
	}
	if len(msgs) != 3 || len(berr.Invalid) != 2 {
		t.Fatalf("DecodePayload(mixed batch) = %d messages, %d invalid, want 3, 2", len(msgs), len(berr.Invalid))
	}
	if got := berr.Invalid[0].ID; got != jsonrpc.Int64ID(2) {
		t.Errorf("DecodePayload(mixed batch): first invalid id = %v, want 2", got)
	}
	if got := berr.Invalid[1].ID; got.IsValid() {
		t.Errorf("DecodePayload(mixed batch): second invalid id = %v, want null", got)
	}
	if r, ok := msgs[1].(*jsonrpc.Request); !ok || r.IsCall() {
		t.Errorf("DecodePayload(mixed batch)[1] = %+v, want a notification", msgs[1])
	}

	for _, tt := range []struct {
		in    string
		batch bool
		code  int64
	}{
		{`[]`, true, jsonrpc.CodeInvalidRequest},
		{` [ ] `, true, jsonrpc.CodeInvalidRequest},
		{`[{"jsonrpc":"2.0","method":"m"}`, false, jsonrpc.CodeParseError},
		{`{"jsonrpc":"2.0","method":"m","x":1}`, false, jsonrpc.CodeInvalidRequest},
		{`3`, false, jsonrpc.CodeInvalidRequest},
	} {
		msgs, batch, err := jsonrpc.DecodePayload([]byte(tt.in))
		var derr *jsonrpc.DecodeError
		if !errors.As(err, &derr) || errorCode(err) != tt.code || batch != tt.batch || msgs != nil {
			t.Errorf("DecodePayload(%s) = %v, %v, %v, want nil, %v, error code %d", tt.in, msgs, batch, err, tt.batch, tt.code)
		}
	}
}

func FuzzDecodePayload(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"m","params":[1,{"a":"\u00e9"}]}`,
		`{"jsonrpc":"2.0","method":"note"}`,
		`{"jsonrpc":"2.0","id":"x","result":null}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m","data":{"k":[]}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"m"},5,{"jsonrpc":"2.0","id":"r","result":1.50}]`,
		`[]`,
		`  {"jsonrpc":"2.0","id":-0,"method":"m"}`,
		`{"jsonrpc":"2.0","id":1e2,"method":"m"}`,
		"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\",\"params\":[\"\xfe\"]}",
		`not json`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, _, err := jsonrpc.DecodePayload(data)
		var berr *jsonrpc.BatchError
		var derr *jsonrpc.DecodeError
		if err != nil && !errors.As(err, &berr) && !errors.As(err, &derr) {
			t.Fatalf("DecodePayload(%q) = %v, want a *BatchError or *DecodeError", data, err)
		}
		if err != nil && !errors.As(err, &berr) && msgs != nil {
			t.Fatalf("DecodePayload(%q) = %v with error %v, want no messages", data, msgs, err)
		}
		for _, m := range msgs {
			enc, err := jsonrpc.EncodeMessage(m)
			if err != nil {
				t.Fatalf("EncodeMessage(%+v) = %v, want nil error (decoded from %q)", m, err, data)
			}
			if bytes.IndexByte(enc, '\n') >= 0 {
				t.Fatalf("EncodeMessage(%+v) = %q, want no newline", m, enc)
			}
			m2, err := jsonrpc.DecodeMessage(enc)
			if err != nil {
				t.Fatalf("DecodeMessage(%s) = %v, want nil error (decoded from %q)", enc, err, data)
			}
			enc2, err := jsonrpc.EncodeMessage(m2)
			if err != nil || !bytes.Equal(enc, enc2) {
				t.Fatalf("EncodeMessage(DecodeMessage(%s)) = %s, %v, want the same", enc, enc2, err)
			}
		}
	})
}

func FuzzIDUnmarshal(f *testing.F) {
	for _, seed := range []string{`"a"`, `""`, `7`, `-0`, ` 12 `, `1.0`, `1e3`, `null`, `true`, `{}`, `"\ud800"`, `99999999999999999999`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var id jsonrpc.ID
		err := id.UnmarshalJSON(data)
		var viaJSON jsonrpc.ID
		if json.Valid(data) {
			if err2 := json.Unmarshal(data, &viaJSON); (err2 == nil) != (err == nil) || viaJSON != id {
				t.Fatalf("json.Unmarshal(%q) = %v, %v; ID.UnmarshalJSON = %v, %v; want the same", data, viaJSON, err2, id, err)
			}
		}
		if err != nil {
			return
		}
		if !id.IsValid() {
			t.Fatalf("ID.UnmarshalJSON(%q) = zero ID, nil, want a valid id or an error", data)
		}
		enc, err := id.MarshalJSON()
		if err != nil {
			t.Fatalf("%v.MarshalJSON() = %v, want nil error", id, err)
		}
		var back jsonrpc.ID
		if err := back.UnmarshalJSON(enc); err != nil || back != id {
			t.Fatalf("ID.UnmarshalJSON(%s) = %v, %v, want %v", enc, back, err, id)
		}
	})
}

func TestErrorWithData(t *testing.T) {
	e := jsonrpc.NewError(1, "x").WithData(map[string]string{"a": "<b>"})
	if got, want := string(e.Data), `{"a":"<b>"}`; got != want {
		t.Errorf("WithData(map).Data = %s, want %s", got, want)
	}
	if e := jsonrpc.NewError(1, "x").WithData(func() {}); e.Data != nil {
		t.Errorf("WithData(func).Data = %s, want nil", e.Data)
	}
	if got, want := jsonrpc.NewError(-32601, "method not found").Error(), "jsonrpc error -32601: method not found"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
