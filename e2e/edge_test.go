package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/cadbridge/cadbridge/internal/proctest"
)

// startWithTokens starts an engine and a gateway that authenticates
// bearer tokens: "tok-alice" is alice, "tok-bob" is bob.
func startWithTokens(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(file, []byte("# token principal\ntok-alice alice\ntok-bob bob\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := proctest.StartEngine(t, "127.0.0.1:0", "memory:")
	g := proctest.StartGateway(t, "127.0.0.1:0", e.Addr, "--tokens", file)
	return g.Addr
}

func TestAuthentication(t *testing.T) {
	gateway := startWithTokens(t)
	for _, tc := range []struct {
		name, token string
		want        int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"bad token", "tok-mallory", http.StatusUnauthorized},
	} {
		_, resp, err := dialAs(t, gateway, tc.token, nil)
		if err == nil || resp == nil || resp.StatusCode != tc.want {
			t.Errorf("%s: WebSocket dial = %v (%v), want HTTP %d", tc.name, err, status(resp), tc.want)
		}
		req, _ := http.NewRequest("POST", "http://"+gateway+"/rpc", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools.list"}`))
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		r, err := http.DefaultClient.Do(req)
		if err != nil || r.StatusCode != tc.want {
			t.Errorf("%s: POST /rpc = %v (%v), want HTTP %d", tc.name, err, status(r), tc.want)
		}
		if r != nil {
			r.Body.Close()
		}
	}
	_, resp, err := dialAs(t, gateway, "tok-alice", http.Header{"Origin": []string{"https://evil.example"}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Origin: dial = %v (%v), want HTTP 403", err, status(resp))
	}
	if _, _, err := dialAs(t, gateway, "tok-alice", nil); err != nil {
		t.Errorf("good token: dial = %v, want success", err)
	}
	req, _ := http.NewRequest("POST", "http://"+gateway+"/rpc", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools.list"}`))
	req.Header.Set("Authorization", "Bearer tok-alice")
	req.Header.Set("Origin", "https://evil.example")
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != http.StatusForbidden || !bytes.Contains(body, []byte(`"code":4003`)) {
		t.Errorf("POST from a foreign Origin = %s %s, want 403 with 4003", r.Status, body)
	}
}

func status(r *http.Response) any {
	if r == nil {
		return "no response"
	}
	return r.Status
}

// TestSessionOwnership: a session is its principal's; another principal
// cannot resume it or read its events, even with its resume token, and
// cannot tell it from a session that does not exist.
func TestSessionOwnership(t *testing.T) {
	gateway := startWithTokens(t)
	alice, _, err := dialAs(t, gateway, "tok-alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		SessionID   string `json:"session_id"`
		ResumeToken string `json:"resume_token"`
	}
	mustCall(t, alice, 1, "session.create", map[string]any{}, &s)

	bob, _, err := dialAs(t, gateway, "tok-bob", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		method string
		params map[string]any
	}{
		{"session.resume", map[string]any{"session_id": s.SessionID, "resume_token": s.ResumeToken}},
		{"session.events.since", map[string]any{"session_id": s.SessionID, "last_seen": 0}},
		{"session.close", map[string]any{"session_id": s.SessionID}},
		{"session.resume", map[string]any{"session_id": "ses-doesnotexist", "resume_token": "rt-x"}},
	} {
		resp := call(t, bob, 10+i, tc.method, tc.params)
		if resp.Error == nil || resp.Error.Code != 4001 {
			t.Errorf("bob %s = %+v, want 4001", tc.method, describe(resp))
		}
	}
	// A wrong token is refused for the owner too.
	resp := call(t, alice, 20, "session.resume", map[string]any{"session_id": s.SessionID, "resume_token": "rt-wrong"})
	if resp.Error == nil || resp.Error.Code != 4001 {
		t.Errorf("alice resume with a wrong token = %+v, want 4001", describe(resp))
	}
	var resumed struct {
		Session struct {
			SessionID string `json:"session_id"`
			Principal string `json:"principal"`
		} `json:"session"`
	}
	alice2, _, err := dialAs(t, gateway, "tok-alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	mustCall(t, alice2, 21, "session.resume", map[string]any{"session_id": s.SessionID, "resume_token": s.ResumeToken}, &resumed)
	if resumed.Session.SessionID != s.SessionID || resumed.Session.Principal != "alice" {
		t.Errorf("alice resume = %+v, want her session", resumed)
	}
}

// TestLimits: oversized messages and bad batch arrays get their typed
// errors.
func TestLimits(t *testing.T) {
	gateway, _ := startServices(t)
	big := `{"jsonrpc":"2.0","id":1,"method":"document.create","params":{"name":"` + strings.Repeat("x", 2<<20) + `"}}`

	r, err := http.Post("http://"+gateway+"/rpc", "application/json", strings.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != http.StatusRequestEntityTooLarge || !bytes.Contains(body, []byte(`"code":4013`)) {
		t.Errorf("POST of 2 MiB = %s %s, want 413 with 4013", r.Status, body)
	}

	ws := dialWebSocket(t, gateway)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws.ws.Write(ctx, []byte(big))
	_, err = ws.ws.Read(ctx)
	if websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		t.Errorf("WebSocket message of 2 MiB: read = %v, want close 1009", err)
	}

	c := dialWebSocket(t, gateway)
	for _, tc := range []struct {
		name, payload string
		code          int64
	}{
		{"empty batch", `[]`, -32600},
		{"not JSON", `{"jsonrpc":`, -32700},
	} {
		resp := c.roundTrip(t, []byte(tc.payload))
		if resp.Error == nil || resp.Error.Code != tc.code {
			t.Errorf("%s: %s = %+v, want %d", tc.name, tc.payload, describe(resp), tc.code)
		}
	}
	if err := c.ws.Write(ctx, []byte(`[{"jsonrpc":"2.0","id":"a","method":"tools.list"},{"jsonrpc":"2.0","id":"b","method":"document.list"}]`)); err != nil {
		t.Fatal(err)
	}
	data, err := c.ws.Read(ctx)
	var batch []response
	if err != nil || json.Unmarshal(data, &batch) != nil || len(batch) != 2 || batch[0].Error != nil || batch[1].Error != nil {
		t.Errorf("batch of two calls = %s (%v), want two results", data, err)
	}
}

// TestREST: the engine's unary RPCs under /v1/, strict about unknown fields.
func TestREST(t *testing.T) {
	gateway, _ := startServices(t)
	base := "http://" + gateway
	r, err := http.Post(base+"/v1/documents", "application/json", strings.NewReader(`{"name":"rest"}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Document struct {
			DocumentID string `json:"document_id"`
			Name       string `json:"name"`
		} `json:"document"`
	}
	json.NewDecoder(r.Body).Decode(&created)
	r.Body.Close()
	if r.StatusCode != 200 || created.Document.Name != "rest" {
		t.Fatalf("POST /v1/documents = %s %+v, want the new document", r.Status, created)
	}
	if status, called := restCreateLine(t, base, created.Document.DocumentID); status != 200 || !called.OK {
		t.Errorf("POST /v1/tools/entity_create_line:call = %d %+v, want ok", status, called)
	}

	r, err = http.Post(base+"/v1/documents", "application/json", strings.NewReader(`{"name":"x","colour":"red"}`))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	json.NewDecoder(r.Body).Decode(&st)
	r.Body.Close()
	if r.StatusCode != http.StatusBadRequest || st.Code != 3 || !strings.Contains(st.Message, "colour") {
		t.Errorf("POST /v1/documents with an unknown field = %s %+v, want 400 INVALID_ARGUMENT naming colour", r.Status, st)
	}

	r, err = http.Get(base + "/v1/documents/" + created.Document.DocumentID + ":export?format=svg")
	if err != nil {
		t.Fatal(err)
	}
	var exported struct {
		Format    string `json:"format"`
		MediaType string `json:"media_type"`
		Content   string `json:"content"`
	}
	json.NewDecoder(r.Body).Decode(&exported)
	r.Body.Close()
	if r.StatusCode != 200 || exported.Format != "svg" || !strings.Contains(exported.Content, "<svg") {
		t.Errorf("GET :export?format=svg = %s %+v, want the SVG", r.Status, exported.Format)
	}
	// The export options reach REST as query parameters: a PNG on A4.
	r, err = http.Get(base + "/v1/documents/" + created.Document.DocumentID + ":export?format=png&options.paper=a4&options.dpi=50")
	if err != nil {
		t.Fatal(err)
	}
	var picture struct {
		MediaType string `json:"media_type"`
		Data      []byte `json:"data"`
	}
	json.NewDecoder(r.Body).Decode(&picture)
	r.Body.Close()
	if r.StatusCode != 200 || picture.MediaType != "image/png" || !strings.HasPrefix(string(picture.Data), "\x89PNG") {
		t.Errorf("GET :export?format=png&options.paper=a4 = %s %s, %d bytes; want a PNG", r.Status, picture.MediaType, len(picture.Data))
	}
	r, err = http.Get(base + "/v1/documents/" + created.Document.DocumentID + ":export?format=svg&colour=red")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusBadRequest {
		t.Errorf("GET :export with an unknown query parameter = %s, want 400", r.Status)
	}

	r, err = http.Get(base + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var api struct {
		Paths map[string]any `json:"paths"`
	}
	json.NewDecoder(r.Body).Decode(&api)
	r.Body.Close()
	if _, ok := api.Paths["/v1/documents/{document_id}:batch"]; !ok {
		t.Errorf("/openapi.json paths = %v, want the batch route", keysOf(api.Paths))
	}
}

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestForeignAnswerIgnored: another principal's connection answering a
// session's open request changes nothing; the owner's answer still decides.
func TestForeignAnswerIgnored(t *testing.T) {
	gateway := startWithTokens(t)
	alice, _, err := dialAs(t, gateway, "tok-alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &peer{t: t, ws: alice.ws}
	s, doc := interactiveSession(t, p)
	p.call(10, "cad.batch", deleteBatch(s, doc, "op-foreign"))
	req := p.request("approval")
	var srq string
	json.Unmarshal(req.ID, &srq)

	bob, _, err := dialAs(t, gateway, "tok-bob", nil)
	if err != nil {
		t.Fatal(err)
	}
	q := &peer{t: t, ws: bob.ws}
	q.send(map[string]any{"jsonrpc": "2.0", "id": srq, "result": map[string]any{"decision": "approve"}})
	q.call(1, "session.events.since", map[string]any{"session_id": s.SessionID, "last_seen": 0})
	if f := q.response(1); f.Error == nil || f.Error.Code != 4001 {
		t.Errorf("bob reading alice's session = %+v, want 4001", f)
	}

	p.send(map[string]any{"jsonrpc": "2.0", "id": srq, "result": map[string]any{"decision": "deny"}})
	var r batchResult
	if f := p.response(10); f.Error != nil || json.Unmarshal(f.Result, &r) != nil || r.OK || r.Results[0].Error == nil || r.Results[0].Error.Kind != "denied" {
		t.Errorf("batch after bob's approve and alice's deny = %+v, want denied (bob's answer ignored)", r)
	}
}

// restCalled is the part of a REST tool call's answer the tests read.
type restCalled struct {
	OK      bool   `json:"ok"`
	Message string `json:"message"`
}

// restCreateLine calls entity_create_line on doc through the REST API at
// base and returns the HTTP status and the answer.
func restCreateLine(t *testing.T, base, doc string) (int, restCalled) {
	t.Helper()
	r, err := http.Post(base+"/v1/tools/entity_create_line:call", "application/json",
		strings.NewReader(`{"document_id":"`+doc+`","args":{"x1":0,"y1":0,"x2":1,"y2":0}}`))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var called restCalled
	json.NewDecoder(r.Body).Decode(&called)
	return r.StatusCode, called
}
