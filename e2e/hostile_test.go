package e2e_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/internal/proctest"
)

// TestHostileInput sends malformed and abusive payloads; each gets its typed
// error and the connection keeps serving.
func TestHostileInput(t *testing.T) {
	gateway, _ := startServices(t)
	c := dialWebSocket(t, gateway)
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, 1, "document.create", map[string]any{"name": "target"}, &doc)

	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	nested := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	batch := "[" + strings.TrimSuffix(strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"tools.list"},`, 10000), ",") + "]"
	tests := []struct {
		name, payload string
		code          int64
	}{
		{"nesting beyond the parser's depth", `{"jsonrpc":"2.0","id":2,"method":"document.create","params":{"name":` + deep + `}}`, -32700},
		{"deep nesting in params", `{"jsonrpc":"2.0","id":2,"method":"document.create","params":{"name":` + nested + `}}`, 4000},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"document.create\",\"params\":{\"name\":\"\xff\xfe\"}}", -32700},
		{"duplicate keys", `{"jsonrpc":"2.0","id":2,"method":"document.create","params":{"name":"a","name":"b"}}`, 4000},
		{"huge number", `{"jsonrpc":"2.0","id":2,"method":"tools.call","params":{"document_id":"` + doc.DocumentID + `","tool":"entity_create_point","args":{"x":1e999,"y":0}}}`, 4000},
		{"huge integer", `{"jsonrpc":"2.0","id":2,"method":"document.list","params":{"page_size":123456789012345678901234567890}}`, 4000},
		{"10k-element batch array", batch, -32600},
		{"params not an object", `{"jsonrpc":"2.0","id":2,"method":"document.create","params":[1,2]}`, 4000},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"tools.list"}`, -32600},
	}
	for _, tc := range tests {
		resp := c.roundTrip(t, []byte(tc.payload))
		if resp.Error == nil || resp.Error.Code != tc.code {
			t.Errorf("%s: got %+v, want error %d", tc.name, describe(resp), tc.code)
		}
	}
	var info struct {
		Revision    int64 `json:"revision"`
		EntityCount int64 `json:"entity_count"`
	}
	mustCall(t, c, 3, "document.get", map[string]any{"document_id": doc.DocumentID}, &info)
	if info.Revision != 0 || info.EntityCount != 0 {
		t.Errorf("document after hostile input = %+v, want untouched", info)
	}
}

// TestSlowReader floods the gateway with calls and reads nothing: the
// gateway drops the connection instead of buffering without bound, keeps
// its memory bounded, and serves others meanwhile.
func TestSlowReader(t *testing.T) {
	e := proctest.StartEngine(t, "127.0.0.1:0", "memory:")
	gw := proctest.StartGateway(t, "127.0.0.1:0", e.Addr, "--write-timeout", "500ms")
	before := rssBytes(t, gw)
	flood := dialWebSocket(t, gw.Addr)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}`)
	// Write calls and never read: the gateway must give up on this client
	// by itself, which the client notices as a failed write.
	var err error
	for err == nil && ctx.Err() == nil {
		err = flood.ws.Write(ctx, req)
	}
	if ctx.Err() != nil {
		t.Fatalf("the flooding client was never disconnected")
	}
	other := dialWebSocket(t, gw.Addr)
	var tools struct {
		Tools []any `json:"tools"`
	}
	mustCall(t, other, 1, "tools.list", nil, &tools)
	if len(tools.Tools) == 0 {
		t.Errorf("tools.list after the flood = no tools")
	}
	if after := rssBytes(t, gw); after-before > 256<<20 {
		t.Errorf("gateway RSS grew from %d MiB to %d MiB during the flood, want bounded (< 256 MiB growth)", before>>20, after>>20)
	}
}

// TestHugeBatch: a batch over the step limit is refused before anything
// runs.
func TestHugeBatch(t *testing.T) {
	gateway, _ := startServices(t)
	c := dialWebSocket(t, gateway)
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, 1, "document.create", map[string]any{}, &doc)
	steps := make([]any, 10000)
	for i := range steps {
		steps[i] = map[string]any{"tool": "entity_create_point", "args": map[string]any{"x": i, "y": 0}}
	}
	var r struct {
		OK     bool   `json:"ok"`
		Status string `json:"status"`
		Error  *struct {
			Kind string `json:"kind"`
			Path string `json:"path"`
		} `json:"error"`
	}
	mustCall(t, c, 2, "cad.batch", map[string]any{"document_id": doc.DocumentID, "steps": steps}, &r)
	if r.OK || r.Status != "refused" || r.Error == nil || r.Error.Path != "/steps" {
		t.Errorf("10k-step batch = %+v, want refused at /steps", r)
	}
	var info struct {
		Revision int64 `json:"revision"`
	}
	mustCall(t, c, 3, "document.get", map[string]any{"document_id": doc.DocumentID}, &info)
	if info.Revision != 0 {
		t.Errorf("revision after the refused batch = %d, want 0", info.Revision)
	}
}
