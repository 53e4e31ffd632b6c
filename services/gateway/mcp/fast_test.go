package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cadbridge/cadbridge/internal/stacktest"
	"github.com/cadbridge/cadbridge/services/gateway"
)

// twoWays mounts one MCP server twice: /mcp with the fast path, /mcp-sdk
// without it (every request through the SDK's handlers).
type twoWays struct {
	mu sync.Mutex
	s  *Server
}

func (tw *twoWays) Mount(gw *gateway.Gateway, mux *http.ServeMux) error {
	s, err := New(gw, Config{})
	if err != nil {
		return err
	}
	tw.mu.Lock()
	tw.s = s
	tw.mu.Unlock()
	mux.Handle("/mcp", s.handler(true))
	mux.Handle("/mcp-sdk", s.handler(false))
	return nil
}

// post sends body to url as the Go SDK's client sends a tools/call of
// revision 2026-07-28 named name (the Mcp-Name header).
func post(t *testing.T, url, name string, body []byte, header map[string]string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", name)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, data
}

const clientMeta = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"difftest","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}`

// toolsCall is a tools/call request body.
func toolsCall(id, name, arguments, meta string) []byte {
	if meta == "" {
		meta = clientMeta
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"_meta":{%s},"name":%q,"arguments":%s}}`, id, meta, name, arguments)
}

// engineMade are the ids made per call, which differ between two runs of
// one call: operation ids of the engine and of the surface, server
// request ids and sealed states.
var engineMade = regexp.MustCompile(`op-[0-9a-f]{16}|mcp-[0-9a-f]{24}|srq-[0-9a-f]{32}|"requestState":"[^"]*"`)

// TestFastPathAgrees sends each request to the fast path and to the SDK
// and wants the same status, headers that matter and body, byte for byte
// once the operation ids the engine makes per call are blanked; and the
// fast path to take exactly the requests it is meant to.
func TestFastPathAgrees(t *testing.T) {
	tw := &twoWays{}
	st := stacktest.StartTB(t, stacktest.Options{CheckContracts: true, Surfaces: []gateway.Surface{tw}})
	base := "http://" + st.Gateway

	// A document with a line, for reads.
	_, _, data := post(t, base+"/mcp-sdk", "document_create", toolsCall("1", "document_create", `{}`, ""), nil)
	doc := regexp.MustCompile(`doc-[0-9A-Za-z]+`).Find(data)
	if doc == nil {
		t.Fatalf("document_create = %s", data)
	}
	_, _, data = post(t, base+"/mcp-sdk", "entity_create_line", toolsCall("2", "entity_create_line", fmt.Sprintf(`{"document_id":%q,"x1":0,"y1":0,"x2":3,"y2":4}`, doc), ""), nil)
	handle := regexp.MustCompile(`"handle":"([0-9A-F]+)"`).FindSubmatch(data)
	if handle == nil {
		t.Fatalf("entity_create_line = %s", data)
	}
	get := fmt.Sprintf(`{"document_id":%q,"handle":%q}`, doc, handle[1])
	batch := func(steps string, more string) string {
		return fmt.Sprintf(`{"document_id":%q,"steps":%s%s}`, doc, steps, more)
	}

	cases := []struct {
		name     string
		tool     string
		body     []byte
		header   map[string]string
		wantFast bool
	}{
		{"ok", "entity_get", toolsCall("3", "entity_get", get, ""), nil, true},
		{"string id", "entity_get", toolsCall(`"call-7"`, "entity_get", get, ""), nil, true},
		{"html in text", "entity_get", toolsCall("4", "entity_get", fmt.Sprintf(`{"document_id":%q,"handle":"<&>"}`, doc), ""), nil, true},
		{"tool failure", "entity_get", toolsCall("5", "entity_get", fmt.Sprintf(`{"document_id":%q,"handle":"FFFF"}`, doc), ""), nil, true},
		{"missing argument", "entity_get", toolsCall("6", "entity_get", fmt.Sprintf(`{"document_id":%q}`, doc), ""), nil, true},
		{"unknown argument", "entity_get", toolsCall("7", "entity_get", fmt.Sprintf(`{"document_id":%q,"handle":"1","colour":1}`, doc), ""), nil, true},
		{"unknown document", "document_info", toolsCall("8", "document_info", `{"document_id":"doc-nosuch"}`, ""), nil, true},
		{"arguments not an object", "entity_get", toolsCall("9", "entity_get", `[1,2]`, ""), nil, true},
		{"no arguments", "system_capabilities", []byte(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"_meta":{` + clientMeta + `},"name":"system_capabilities"}}`), nil, true},
		{"progress token on a tool", "entity_get", toolsCall("11", "entity_get", get, clientMeta+`,"progressToken":3`), nil, true},
		{"traceparent", "entity_get", toolsCall("12", "entity_get", get, clientMeta+`,"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"`), nil, true},
		{"batch dry run", "cad_batch", toolsCall("13", "cad_batch", batch(`[{"tool":"entity_get","args":{"handle":"`+string(handle[1])+`"}}]`, `,"dry_run":true`), ""), nil, true},
		{"batch refused", "cad_batch", toolsCall("14", "cad_batch", batch(`[{"tool":"entity_get","args":{}}]`, ""), ""), nil, true},
		{"batch with progress", "cad_batch", toolsCall("15", "cad_batch", batch(`[{"tool":"entity_get","args":{"handle":"`+string(handle[1])+`"}}]`, `,"dry_run":true`), clientMeta+`,"progressToken":"p"`), nil, false},
		{"unknown tool", "no_such_tool", toolsCall("16", "no_such_tool", `{}`, ""), nil, false},
		{"Mcp-Name differs", "entity_get", toolsCall("17", "document_info", get, ""), nil, false},
		{"no client capabilities", "entity_get", toolsCall("18", "entity_get", get, `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`), nil, false},
		{"bad client info", "entity_get", toolsCall("19", "entity_get", get, clientMeta+`,"io.modelcontextprotocol/clientInfo":7`), nil, false},
		{"_meta version differs", "entity_get", toolsCall("20", "entity_get", get, `"io.modelcontextprotocol/protocolVersion":"2026-07-29","io.modelcontextprotocol/clientCapabilities":{}`), nil, false},
		{"no _meta", "entity_get", []byte(`{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"entity_get","arguments":` + get + `}}`), nil, false},
		{"request state", "entity_get", []byte(`{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"_meta":{` + clientMeta + `},"name":"entity_get","arguments":` + get + `,"requestState":"forged"}}`), nil, false},
		{"escaped id", "entity_get", toolsCall(`"c\u0061ll"`, "entity_get", get, ""), nil, false},
		{"fractional id", "entity_get", toolsCall("1.5", "entity_get", get, ""), nil, false},
		{"notification", "entity_get", []byte(`{"jsonrpc":"2.0","method":"tools/call","params":{"_meta":{` + clientMeta + `},"name":"entity_get"}}`), nil, false},
		{"batch of messages", "entity_get", []byte(`[` + string(toolsCall("23", "entity_get", get, "")) + `]`), nil, false},
		{"malformed", "entity_get", []byte(`{"jsonrpc":"2.0","id":24,`), nil, false},
		{"wrong content type", "entity_get", toolsCall("25", "entity_get", get, ""), map[string]string{"Content-Type": "text/plain"}, false},
		{"no Mcp-Method", "entity_get", toolsCall("26", "entity_get", get, ""), map[string]string{"Mcp-Method": ""}, false},
		{"elicitation and a destructive tool", "entity_delete", toolsCall("27", "entity_delete", fmt.Sprintf(`{"document_id":%q,"handle":"FFFF"}`, doc), `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}`), nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": c.tool} {
				h.Set(k, v)
			}
			for k, v := range c.header {
				h.Set(k, v)
			}
			r, _ := http.NewRequest(http.MethodPost, base+"/mcp", bytes.NewReader(c.body))
			r.Header = h
			_, fast := tw.s.decodeFast(r, 1<<20)
			if fast != c.wantFast {
				t.Errorf("fast path takes it = %v, want %v", fast, c.wantFast)
			}
			fs, fh, fb := post(t, base+"/mcp", c.tool, c.body, c.header)
			ss, sh, sb := post(t, base+"/mcp-sdk", c.tool, c.body, c.header)
			fb, sb = engineMade.ReplaceAll(fb, []byte("…")), engineMade.ReplaceAll(sb, []byte("…"))
			if fs != ss || !bytes.Equal(fb, sb) {
				t.Errorf("fast path: %d %s\nSDK:       %d %s", fs, fb, ss, sb)
			}
			for _, k := range []string{"Content-Type", "Cache-Control", "Connection"} {
				if fh.Get(k) != sh.Get(k) {
					t.Errorf("header %s: fast path %q, SDK %q", k, fh.Get(k), sh.Get(k))
				}
			}
		})
	}
}

// FuzzDecodeToolsCall holds decodeToolsCall to the SDK's decoders: what
// it takes, jsonrpc.DecodeMessage and the SDK's params decoding take too,
// and read as the same call.
func FuzzDecodeToolsCall(f *testing.F) {
	for _, seed := range []string{
		string(toolsCall("1", "entity_get", `{"document_id":"doc-1","handle":"1A"}`, "")),
		string(toolsCall(`"x"`, "cad_batch", `{"steps":[{"tool":"entity_get","args":{"handle":"$a.handle"}}],"dry_run":true}`, clientMeta+`,"progressToken":7`)),
		`{"jsonrpc":"2.0","id":-3,"method":"tools/call","params":{"name":"system_info"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"a":[1,2,{"b":null}]},"name":"a","arguments":null}}  `,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"s":"\u00e9\n","n":-0.5e+3}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"x":1e400},"name":"a"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c, ok := decodeToolsCall(body)
		if !ok {
			return
		}
		msg, err := jsonrpc.DecodeMessage(body)
		if err != nil {
			t.Fatalf("decodeToolsCall(%q) took it, jsonrpc.DecodeMessage = %v", body, err)
		}
		req, isReq := msg.(*jsonrpc.Request)
		if !isReq || req.Method != "tools/call" || !req.IsCall() || len(req.Params) == 0 {
			t.Fatalf("decodeToolsCall(%q) took it, the SDK read %#v", body, msg)
		}
		if req.ID != c.id {
			t.Fatalf("decodeToolsCall(%q): id %v, SDK %v", body, c.id.Raw(), req.ID.Raw())
		}
		var p mcpsdk.CallToolParamsRaw
		if err := sdkUnmarshal(req.Params, &p); err != nil {
			t.Fatalf("decodeToolsCall(%q) took it, the SDK's params decoding = %v", body, err)
		}
		if p.Name != c.name || p.RequestState != "" || p.InputResponses != nil {
			t.Fatalf("decodeToolsCall(%q): name %q, SDK %+v", body, c.name, p)
		}
		if a, b := argsOf(c.arguments), argsOf(p.Arguments); a != b {
			t.Fatalf("decodeToolsCall(%q): arguments %s, SDK %s", body, a, b)
		}
		var meta mcpsdk.Meta
		if c.meta != nil {
			if err := sdkUnmarshal(c.meta, &meta); err != nil {
				t.Fatalf("decodeToolsCall(%q): _meta %s does not decode: %v", body, c.meta, err)
			}
		}
		if !reflect.DeepEqual(meta, p.Meta) {
			t.Fatalf("decodeToolsCall(%q): _meta %v, SDK %v", body, meta, p.Meta)
		}
	})
}

// argsOf is arguments as buildCall reads them.
func argsOf(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "invalid: " + string(raw)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// TestAppendResponseAgrees: the fast path's encoder writes what the SDK's
// writes for the results the surface makes, and declines the rest.
func TestAppendResponseAgrees(t *testing.T) {
	s := &Server{impl: &mcpsdk.Implementation{Name: "cadbridge", Title: "<cad> & co", Version: "1"}}
	s.implJSON, _ = json.Marshal(s.impl)
	text := func(t string) []mcpsdk.Content { return []mcpsdk.Content{&mcpsdk.TextContent{Text: t}} }
	for i, res := range []*mcpsdk.CallToolResult{
		{Meta: mcpsdk.Meta{metaOperationID: "op-1", metaRevision: int64(-3), metaReplayed: true}, Content: text("ok\n{\"a\":\"<b>&\"}"), StructuredContent: json.RawMessage(`{"a" : "<b>&\u2028", "n": [1, 2.5e3]}`)},
		{Meta: mcpsdk.Meta{metaError: json.RawMessage(` {"kind":"failed", "message":"x > y"} `)}, IsError: true, Content: text("tab\there \x01 \u2029 \xff é 😀")},
		{Content: append(text("made"), drawingLink("doc-<1>"), &mcpsdk.ResourceLink{URI: "cad://x", Name: "n", Description: "d"})},
		{Content: text("\u2028\u2029\"\\/\b\f\r\x7f\u00e9"), StructuredContent: json.RawMessage("{\n\t\"s\": \"\u2028 \u2029 <\\\" \\u2028 \xe2\x80\", \"t\" :[ true , null ]\r\n}")},
		{Meta: mcpsdk.Meta{mcpsdk.MetaKeyServerInfo: "mine"}},
		{},
	} {
		for _, id := range []any{float64(7), float64(-12), "call-<1>"} {
			jid, _ := jsonrpc.MakeID(id)
			want, _, err := s.encodeResponse(jid, res, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := appendResponse(nil, jid, res, s.implJSON)
			if !ok {
				t.Errorf("result %d, id %v: appendResponse declined", i, id)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("result %d, id %v:\nappendResponse %s\nSDK            %s", i, id, got, want)
			}
		}
	}
	for i, res := range []*mcpsdk.CallToolResult{
		{Content: []mcpsdk.Content{&mcpsdk.ImageContent{Data: []byte("x"), MIMEType: "image/png"}}},
		{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "x", Annotations: &mcpsdk.Annotations{Priority: 1}}}},
		{Meta: mcpsdk.Meta{"x": 1.5}},
		{StructuredContent: map[string]any{"a": 1}},
		{RequestState: "s"},
	} {
		id, _ := jsonrpc.MakeID(float64(1))
		if _, ok := appendResponse(nil, id, res, s.implJSON); ok {
			t.Errorf("declined result %d: appendResponse took it", i)
		}
	}
}

// FuzzBuildToolsCall holds the one-pass buildToolsCall to buildCallMap:
// where it builds a call, the map's way builds the same one (params that
// decode to equal JSON, the same document).
func FuzzBuildToolsCall(f *testing.F) {
	for _, seed := range []string{
		`{"document_id":"doc-1","handle":"1A"}`,
		`{"operation_id":"op-x","document_id":"d\u0031","z":[1,{"a":"<&>"}],"a":null}`,
		`{ "b" : 1 , "a" : { "c" : [ ] } }`,
		`{"a":1,"a":2}`,
		`{"a":{"b":1,"b":2}}`,
		`[1]`, `{}`, `{"document_id":7}`,
	} {
		f.Add([]byte(seed))
	}
	catalog, err := Catalog()
	if err != nil {
		f.Fatal(err)
	}
	t := catalog[0]
	meta := json.RawMessage(`{"traceparent":"00-x"}`)
	f.Fuzz(func(tt *testing.T, arguments []byte) {
		fast, ok := buildToolsCall(t, arguments, meta)
		if !ok {
			return
		}
		slow, bad := buildCallMap(t, arguments, meta)
		if bad != nil {
			tt.Fatalf("buildToolsCall(%q) built a call, buildCallMap refused it: %v", arguments, bad)
		}
		var a, b any
		if err := json.Unmarshal(fast.encoded, &a); err != nil {
			tt.Fatalf("buildToolsCall(%q) = %s, not JSON: %v", arguments, fast.encoded, err)
		}
		json.Unmarshal(slow.encoded, &b)
		if !reflect.DeepEqual(a, b) || fast.documentID != slow.documentID || fast.method != slow.method {
			tt.Fatalf("arguments %q:\nbuildToolsCall %s (document %q)\nbuildCallMap   %s (document %q)", arguments, fast.encoded, fast.documentID, slow.encoded, slow.documentID)
		}
		if fast.operationID() != slow.operationID() || string(fast.encode("ses-1")) != string(slow.encode("ses-1")) && !sameJSON(fast.encode("ses-1"), slow.encode("ses-1")) {
			tt.Fatalf("arguments %q: operation ids or session params differ", arguments)
		}
	})
}

func sameJSON(x, y []byte) bool {
	var a, b any
	return json.Unmarshal(x, &a) == nil && json.Unmarshal(y, &b) == nil && reflect.DeepEqual(a, b)
}

// FuzzAppendJSON holds appendJSON to encoding/json's Marshal, for strings
// and for the raw JSON it takes.
func FuzzAppendJSON(f *testing.F) {
	for _, seed := range []string{"plain", "<a & b>", "tab\t\x01\x7f", "\u2028\u2029", "\xff\xe2\x80", `{"a" : [1, "<\u2028>"] }`, " null ", `"\\\""`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got, _ := appendJSON(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("appendJSON(%q) = %s, json.Marshal %s", s, got, want)
		}
		got, ok := appendJSON(nil, json.RawMessage(s))
		if !ok {
			return
		}
		want, err := json.Marshal(json.RawMessage(s))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("appendJSON(raw %q) = %s, json.Marshal %s, %v", s, got, want, err)
		}
	})
}
