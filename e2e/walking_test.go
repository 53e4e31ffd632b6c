package e2e_test

import (
	"encoding/json"
	"io"
	"math"
	"net/http"
	"testing"
)

// TestWalkingSkeleton drives the same flow over WebSocket, HTTP POST and
// stdio: session, document, tool catalog, a line created and read back, and
// the typed errors for bad params and unknown methods.
func TestWalkingSkeleton(t *testing.T) {
	gateway, engine := startServices(t)
	clients := map[string]func(t *testing.T) client{
		"websocket": func(t *testing.T) client { return dialWebSocket(t, gateway) },
		"http":      func(t *testing.T) client { return &httpClient{url: "http://" + gateway + "/rpc"} },
		"stdio":     func(t *testing.T) client { return startStdio(t, engine) },
	}
	for name, dial := range clients {
		t.Run(name, func(t *testing.T) {
			walk(t, dial(t))
		})
	}
}

func walk(t *testing.T, c client) {
	var session struct {
		SessionID   string `json:"session_id"`
		ResumeToken string `json:"resume_token"`
		Epoch       string `json:"epoch"`
	}
	mustCall(t, c, 1, "session.create", map[string]any{"client": map[string]any{"name": "e2e"}}, &session)
	if session.SessionID == "" || session.ResumeToken == "" || session.Epoch == "" {
		t.Errorf("session.create = %+v, want id, resume token and epoch", session)
	}

	var doc struct {
		DocumentID   string `json:"document_id"`
		Name         string `json:"name"`
		Revision     int64  `json:"revision"`
		CurrentLayer string `json:"current_layer"`
	}
	mustCall(t, c, 2, "document.create", map[string]any{"name": "walk"}, &doc)
	if doc.DocumentID == "" || doc.Name != "walk" || doc.Revision != 0 {
		t.Errorf("document.create = %+v, want a new document named walk at revision 0", doc)
	}

	var tools struct {
		Tools []struct {
			Name         string         `json:"name"`
			InputSchema  map[string]any `json:"input_schema"`
			OutputSchema map[string]any `json:"output_schema"`
		} `json:"tools"`
	}
	mustCall(t, c, 3, "tools.list", nil, &tools)
	names := map[string]bool{}
	for _, tool := range tools.Tools {
		names[tool.Name] = true
		if tool.InputSchema["type"] != "object" || tool.OutputSchema["type"] != "object" {
			t.Errorf("tool %s schemas = %v / %v, want objects", tool.Name, tool.InputSchema["type"], tool.OutputSchema["type"])
		}
	}
	for _, want := range []string{"entity_create_line", "entity_get"} {
		if !names[want] {
			t.Errorf("tools.list lacks %s", want)
		}
	}

	var created struct {
		OK       bool   `json:"ok"`
		Tool     string `json:"tool"`
		Revision int64  `json:"revision"`
		Result   struct {
			Handle string `json:"handle"`
		} `json:"result"`
	}
	mustCall(t, c, 4, "tools.call", map[string]any{
		"session_id":  session.SessionID,
		"document_id": doc.DocumentID,
		"tool":        "entity_create_line",
		"args":        map[string]any{"x1": 0, "y1": 0, "x2": 3, "y2": 4},
	}, &created)
	if !created.OK || created.Result.Handle == "" || created.Revision != 1 {
		t.Fatalf("entity_create_line = %+v, want ok with a handle at revision 1", created)
	}

	var got struct {
		OK     bool `json:"ok"`
		Result struct {
			Handle string             `json:"handle"`
			Type   string             `json:"type"`
			Start  map[string]float64 `json:"start"`
			End    map[string]float64 `json:"end"`
			Length float64            `json:"length"`
		} `json:"result"`
	}
	mustCall(t, c, 5, "tools.call", map[string]any{
		"document_id": doc.DocumentID,
		"tool":        "entity_get",
		"args":        map[string]any{"handle": created.Result.Handle},
	}, &got)
	r := got.Result
	if !got.OK || r.Handle != created.Result.Handle || r.Type != "line" || r.End["x"] != 3 || r.End["y"] != 4 || math.Abs(r.Length-5) > 1e-9 {
		t.Errorf("entity_get = %+v, want the line (0,0)-(3,4) of length 5", got)
	}

	var info struct {
		Revision    int64 `json:"revision"`
		EntityCount int64 `json:"entity_count"`
	}
	mustCall(t, c, 6, "document.get", map[string]any{"document_id": doc.DocumentID}, &info)
	if info.Revision != 1 || info.EntityCount != 1 {
		t.Errorf("document.get = %+v, want revision 1 with 1 entity", info)
	}

	badParams := []struct {
		name   string
		method string
		params any
		path   string
		reason string
	}{
		{"unknown key", "document.create", map[string]any{"nme": "x"}, "/nme", "unknown_field"},
		{"unknown arg", "tools.call", map[string]any{"document_id": doc.DocumentID, "tool": "entity_create_line", "args": map[string]any{"x1": 0, "y1": 0, "x2": 1, "y2": 1, "bogus": 1}}, "/args/bogus", "unknown_field"},
		{"wrong type", "document.get", map[string]any{"document_id": 5}, "/document_id", "wrong_type"},
		{"wrong arg type", "tools.call", map[string]any{"document_id": doc.DocumentID, "tool": "entity_create_line", "args": map[string]any{"x1": "zero", "y1": 0, "x2": 1, "y2": 1}}, "/args/x1", "wrong_type"},
		{"missing", "document.get", map[string]any{}, "/document_id", "missing"},
		{"out of range", "tools.call", map[string]any{"document_id": doc.DocumentID, "tool": "entity_create_circle", "args": map[string]any{"cx": 0, "cy": 0, "radius": -1}}, "/args/radius", "out_of_range"},
	}
	for i, tc := range badParams {
		resp := call(t, c, 100+i, tc.method, tc.params)
		var data struct {
			Path   string `json:"path"`
			Reason string `json:"reason"`
		}
		if resp.Error == nil || resp.Error.Code != 4000 || json.Unmarshal(resp.Error.Data, &data) != nil || data.Path != tc.path || data.Reason != tc.reason {
			t.Errorf("%s: %s(%v) = %+v, want 4000 at %s (%s)", tc.name, tc.method, tc.params, describe(resp), tc.path, tc.reason)
		}
	}

	if resp := call(t, c, 200, "no.such.method", nil); resp.Error == nil || resp.Error.Code != -32601 {
		t.Errorf("no.such.method = %+v, want -32601", describe(resp))
	}
	if resp := call(t, c, 201, "approval", map[string]any{}); resp.Error == nil || resp.Error.Code != -32601 {
		t.Errorf("calling the server request approval = %+v, want -32601", describe(resp))
	}
}

func describe(r response) any {
	if r.Error != nil {
		return map[string]any{"error": r.Error.Code, "message": r.Error.Message, "data": string(r.Error.Data)}
	}
	return map[string]any{"result": string(r.Result)}
}

// TestOpenRPC checks that rpc.discover and /openrpc.json serve the same
// OpenRPC document, listing every method with server requests marked.
func TestOpenRPC(t *testing.T) {
	gateway, _ := startServices(t)
	resp, err := http.Get("http://" + gateway + "/openrpc.json")
	if err != nil {
		t.Fatal(err)
	}
	served, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	var discovered json.RawMessage
	mustCall(t, dialWebSocket(t, gateway), 1, "rpc.discover", nil, &discovered)
	var a, b any
	if json.Unmarshal(served, &a) != nil || json.Unmarshal(discovered, &b) != nil {
		t.Fatalf("documents do not parse")
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("rpc.discover differs from /openrpc.json")
	}
	var doc struct {
		OpenRPC string `json:"openrpc"`
		Methods []struct {
			Name      string `json:"name"`
			Direction string `json:"x-direction"`
		} `json:"methods"`
	}
	if err := json.Unmarshal(served, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenRPC < "1.3" {
		t.Errorf("openrpc = %q, want 1.3 or later", doc.OpenRPC)
	}
	direction := map[string]string{}
	for _, m := range doc.Methods {
		direction[m.Name] = m.Direction
	}
	// DESIGN §4's methods, server requests and notifications.
	for _, name := range []string{"rpc.discover", "session.create", "session.resume", "session.events.since", "session.subscribe", "session.interrupt", "session.close", "tools.list", "tools.call", "cad.batch", "document.create", "document.get", "document.list", "document.export", "document.import", "operations.get", "system.status", "$/cancelRequest"} {
		if d, ok := direction[name]; !ok || d != "" {
			t.Errorf("method %s: listed %v, x-direction %q; want listed, client to server", name, ok, d)
		}
	}
	for _, name := range []string{"approval", "pick.point", "pick.entities", "request.cancel", "event"} {
		if d := direction[name]; d != "server-to-client" {
			t.Errorf("server method %s: x-direction %q, want server-to-client", name, d)
		}
	}
}
