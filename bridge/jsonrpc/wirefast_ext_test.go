package jsonrpc_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
)

// describe renders a decode error with everything a peer would see of it.
func describe(err error) string {
	var berr *jsonrpc.BatchError
	var derr *jsonrpc.DecodeError
	switch {
	case err == nil:
		return "<nil>"
	case errors.As(err, &berr):
		var b strings.Builder
		for _, d := range berr.Invalid {
			fmt.Fprintf(&b, "[%v %d %q]", d.ID, d.Err.Code, d.Err.Message)
		}
		return "batch " + b.String()
	case errors.As(err, &derr):
		return fmt.Sprintf("%v %d %q", derr.ID, derr.Err.Code, derr.Err.Message)
	default:
		return "other " + err.Error()
	}
}

var wireSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools.call","params":{"document_id":"d","tool":"entity_get","args":{"handle":"1F"}}}`,
	` { "jsonrpc" : "2.0" , "id" : "a" , "method" : "m" , "params" : [ 1 , 2.5e-3 , "x" ] } `,
	`{"jsonrpc":"2.0","id":"x","result":{"a":[true,false,null,-0,1E+400,123456789012345678901234567890]}}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m","data":{"k":[]}}}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":5,"message":"<&>","data":"\u2028"}}`,
	`[{"jsonrpc":"2.0","id":1,"method":"m"},5,{"jsonrpc":"2.0","id":"r","result":1.50}]`,
	`[]`, ` [ ] `, `[`, `{}`, `{"jsonrpc":"2.0"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","method":"n"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","extra":1}`,
	`{"jsonr\u0070c":"2.0","id":1,"method":"m"}`,
	`{"jsonrpc":"2\u002e0","id":"\u003c","method":"\u006d"}`,
	`{"jsonrpc":"2.0","id":9223372036854775808,"method":"m"}`,
	`{"jsonrpc":"2.0","id":-9223372036854775808,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1.0,"method":"m"}`,
	`{"jsonrpc":"2.0","id":"<a&b>","method":"m","params":{}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":null}`,
	`{"jsonrpc":"2.0","id":"a","result":1,"error":{"code":1,"message":"x"}}`,
	`{"jsonrpc":"2.0","id":null,"result":1}`,
	"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\",\"params\":[\"\xfe\"]}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"é\",\"params\":[\"\u2028\"]}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":[\"\t\"]}",
	`{"jsonrpc":"2.0","method":"m","params":[` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `]}`,
	`{"jsonrpc":"2.0","method":"m","params":[` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `]}`,
	`not json`, ``, `  `, `"x"`, `1`, `{"jsonrpc":"2.0","id":1,"method":"m"} x`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":01}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"\x"}}`,
}

// FuzzDecodeAgrees checks that the fast decoders accept and refuse what
// the encoding/json ones do, with the same errors and equal messages, and
// that both encoders write the same bytes for them.
func FuzzDecodeAgrees(f *testing.F) {
	for _, seed := range wireSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := jsonrpc.DecodeMessage(data)
		m2, err2 := jsonrpc.DecodeMessageSlow(data)
		if describe(err) != describe(err2) || !reflect.DeepEqual(m, m2) {
			t.Fatalf("DecodeMessage(%q) = %+v, %s; the encoding/json way = %+v, %s", data, m, describe(err), m2, describe(err2))
		}
		msgs, batch, err := jsonrpc.DecodePayload(data)
		msgs2, batch2, err2 := jsonrpc.DecodePayloadSlow(data)
		if describe(err) != describe(err2) || batch != batch2 || !reflect.DeepEqual(msgs, msgs2) {
			t.Fatalf("DecodePayload(%q) = %+v, %v, %s; the encoding/json way = %+v, %v, %s", data, msgs, batch, describe(err), msgs2, batch2, describe(err2))
		}
		for _, m := range msgs {
			checkEncodeAgrees(t, m)
		}
	})
}

// TestDecodeAgreesOnStringBytes puts each kind of byte a string scan
// tells apart (a quote, a backslash, control characters, plain ASCII, the
// bytes of valid and invalid UTF-8) at each position of strings up to 20
// bytes long, before and after a run of plain bytes, so that every
// alignment of the scan that reads eight bytes at a time meets each.
func TestDecodeAgreesOnStringBytes(t *testing.T) {
	kinds := []string{`"`, `\`, `\"`, `\n`, `\u0041`, "\x00", "\x1f", "\x7f", " ", "é", "\u2028", "\xc3", "\xff", "\x80"}
	for _, kind := range kinds {
		for n := range 20 {
			for at := 0; at <= n; at++ {
				str := strings.Repeat("a", at) + kind + strings.Repeat("b", n-at)
				data := []byte(`{"jsonrpc":"2.0","method":"m","params":["` + str + `",1]}`)
				m, err := jsonrpc.DecodeMessage(data)
				m2, err2 := jsonrpc.DecodeMessageSlow(data)
				if describe(err) != describe(err2) || !reflect.DeepEqual(m, m2) {
					t.Fatalf("DecodeMessage(%q) = %+v, %s; the encoding/json way = %+v, %s", data, m, describe(err), m2, describe(err2))
				}
				msgs, _, err := jsonrpc.DecodePayload(data) // which also checks UTF-8
				msgs2, _, err2 := jsonrpc.DecodePayloadSlow(data)
				if describe(err) != describe(err2) || !reflect.DeepEqual(msgs, msgs2) {
					t.Fatalf("DecodePayload(%q) = %+v, %s; the encoding/json way = %+v, %s", data, msgs, describe(err), msgs2, describe(err2))
				}
			}
		}
	}
}

func checkEncodeAgrees(t *testing.T, m jsonrpc.Message) {
	t.Helper()
	got, err := jsonrpc.EncodeMessage(m)
	want, err2 := jsonrpc.EncodeMessageSlow(m)
	if fmt.Sprint(err) != fmt.Sprint(err2) || !bytes.Equal(got, want) {
		t.Fatalf("EncodeMessage(%+v) = %s, %v; the encoding/json way = %s, %v", m, got, err, want, err2)
	}
}

// FuzzEncodeAgrees checks that the fast encoders write what encoding/json
// writes, and refuse what it refuses with the same errors.
func FuzzEncodeAgrees(f *testing.F) {
	f.Add("m", "id", int64(0), []byte(` { "a" : [1, 2] } `), int64(-32000), "<&>", []byte(`null`))
	f.Add("\u2028", "<", int64(7), []byte(`[1,`), int64(1), "é\x00", []byte(` "\xff" `))
	f.Add("", "", int64(-1), []byte(``), int64(0), "", []byte(``))
	f.Fuzz(func(t *testing.T, method, sid string, nid int64, raw []byte, code int64, message string, data []byte) {
		ids := []jsonrpc.ID{{}, jsonrpc.StringID(sid), jsonrpc.Int64ID(nid)}
		for _, id := range ids {
			checkEncodeAgrees(t, &jsonrpc.Request{ID: id, Method: method, Params: raw})
			checkEncodeAgrees(t, &jsonrpc.Request{ID: id, Method: method})
			checkEncodeAgrees(t, &jsonrpc.Response{ID: id, Result: raw})
			checkEncodeAgrees(t, &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: message, Data: data}})
		}
		got, err := jsonrpc.MarshalCompact(json.RawMessage(raw))
		want, err2 := jsonrpc.MarshalJSONSlow(json.RawMessage(raw))
		if (err == nil) != (err2 == nil) || !bytes.Equal(got, want) {
			t.Fatalf("marshalCompact(%q) = %s, %v; marshalJSON = %s, %v", raw, got, err, want, err2)
		}
	})
}

// BenchmarkWire compares the fast and the encoding/json paths on a
// tools.call request and on a response with a 100 KiB result.
func BenchmarkWire(b *testing.B) {
	call := []byte(wireSeeds[0])
	var events []string
	for i := range 512 {
		events = append(events, fmt.Sprintf(`{"session_id":"s-0123456789","seq":%d,"type":"batch.progress","payload":{"operation_id":"op-0123456789abcdef","step":%d,"total":100}}`, i, i%100))
	}
	result := json.RawMessage(`{"events":[` + strings.Join(events, ",") + `],"latest_seq":605}`)
	resp := &jsonrpc.Response{ID: jsonrpc.Int64ID(7), Result: result}
	payload, _ := jsonrpc.EncodeMessage(resp)
	for _, bm := range []struct {
		name string
		fn   func() error
	}{
		{"decode-call/fast", func() error { _, _, err := jsonrpc.DecodePayload(call); return err }},
		{"decode-call/json", func() error { _, _, err := jsonrpc.DecodePayloadSlow(call); return err }},
		{"decode-result/fast", func() error { _, _, err := jsonrpc.DecodePayload(payload); return err }},
		{"decode-result/json", func() error { _, _, err := jsonrpc.DecodePayloadSlow(payload); return err }},
		{"encode-result/fast", func() error { _, err := jsonrpc.EncodeMessage(resp); return err }},
		{"encode-result/json", func() error { _, err := jsonrpc.EncodeMessageSlow(resp); return err }},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := bm.fn(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
