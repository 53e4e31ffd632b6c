package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/internal/proctest"
	"github.com/cadbridge/cadbridge/internal/wsstream/wsstreamtest"
)

// endOfInputRequests are the lines a client sends before it ends its
// input, for the document doc: a long cad.batch, a tool call, a call
// whose params are wrong (4000), an unknown method (-32601), a
// notification and a batch array of two calls. want is each id's answer:
// "ok" for a result, else the error code.
func endOfInputRequests(doc string) (lines []string, want map[string]string) {
	steps := make([]any, 300)
	for i := range steps {
		steps[i] = map[string]any{"tool": "entity_create_point", "args": map[string]any{"x": i, "y": 0}}
	}
	line := func(id any, method string, params any) string {
		m := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
		if id != nil {
			m["id"] = id
		}
		data, _ := json.Marshal(m)
		return string(data)
	}
	lines = []string{
		line(1, "cad.batch", map[string]any{"document_id": doc, "steps": steps, "operation_id": "eoi-batch-" + doc}),
		line(2, "tools.call", map[string]any{"document_id": doc, "tool": "entity_create_circle", "args": map[string]any{"cx": 0, "cy": 0, "radius": 1}}),
		line(3, "tools.call", map[string]any{"document_id": doc, "tool": "entity_create_circle", "args": map[string]any{"cx": 0, "cy": 0, "radius": "big"}}),
		line(4, "no.such.method", map[string]any{}),
		line(nil, "$/cancelRequest", map[string]any{"id": 99}),
		"[" + line("a", "document.get", map[string]any{"document_id": doc}) + "," + line("b", "tools.list", map[string]any{}) + "]",
	}
	return lines, map[string]string{"1": "ok", "2": "ok", "3": "4000", "4": "-32601", `"a"`: "ok", `"b"`: "ok"}
}

// endOfInputDocument makes, through the gateway at addr over HTTP, the
// document the requests write to, and returns the client and the document.
func endOfInputDocument(t *testing.T, addr string) (*httpClient, string) {
	t.Helper()
	c := &httpClient{url: "http://" + addr + "/rpc"}
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, 1, "document.create", map[string]any{"name": "end of input"}, &doc)
	return c, doc.DocumentID
}

// answers records the answer to each id in a payload (a response or an
// array of them): "ok" or the error code.
func answers(t *testing.T, payload []byte, got map[string]string, results map[string]json.RawMessage) {
	t.Helper()
	var list []response
	if bytes.HasPrefix(payload, []byte("[")) {
		if err := json.Unmarshal(payload, &list); err != nil {
			t.Fatalf("answer %s: %v", payload, err)
		}
	} else {
		var r response
		if err := json.Unmarshal(payload, &r); err != nil {
			t.Fatalf("answer %s: %v", payload, err)
		}
		list = []response{r}
	}
	for _, r := range list {
		if r.Method != "" {
			continue // a notification
		}
		id := string(r.ID)
		if _, dup := got[id]; dup {
			t.Errorf("id %s answered twice", id)
		}
		got[id] = "ok"
		if r.Error != nil {
			got[id] = fmt.Sprint(r.Error.Code)
		}
		results[id] = r.Result
	}
}

// checkEndOfInput checks the answers against want, that the batch ran
// whole, and that the document holds what the calls made.
func checkEndOfInput(t *testing.T, c client, doc string, got, want map[string]string, results map[string]json.RawMessage) {
	t.Helper()
	for id, w := range want {
		if got[id] != w {
			t.Errorf("answer to id %s = %q, want %q (all answers: %v)", id, got[id], w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("answered ids %v, want %v", got, want)
	}
	var b struct {
		Status string `json:"status"`
		Counts struct {
			Succeeded int `json:"succeeded"`
		} `json:"counts"`
	}
	if json.Unmarshal(results["1"], &b); b.Status != "completed" || b.Counts.Succeeded != 300 {
		t.Errorf("cad.batch answer = %s, want completed with 300 steps", results["1"])
	}
	var info struct {
		EntityCount int `json:"entity_count"`
	}
	mustCall(t, c, 100, "document.get", map[string]any{"document_id": doc}, &info)
	if info.EntityCount != 301 {
		t.Errorf("entity_count after the input ended = %d, want 301 (the batch's 300 and the circle)", info.EntityCount)
	}
}

// TestStdioEndOfInput pipes a file of requests into gateway --stdio: at the
// end of the file it stops reading, finishes every call already read,
// writes every answer, and exits 0.
func TestStdioEndOfInput(t *testing.T) {
	gateway, engine := startServices(t)
	c, doc := endOfInputDocument(t, gateway)
	lines, want := endOfInputRequests(doc)
	file := filepath.Join(t.TempDir(), "requests.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cmd := exec.Command(proctest.Bin("gateway"), "--stdio", "--engine", engine)
	cmd.Stdin = in
	var stdout bytes.Buffer
	var stderr proctest.SyncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("gateway --stdio exit = %v, want 0; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("gateway --stdio did not exit after its input ended; stderr:\n%s", stderr.String())
	}
	got, results := map[string]string{}, map[string]json.RawMessage{}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 8<<20)
	for sc.Scan() {
		answers(t, sc.Bytes(), got, results)
	}
	checkEndOfInput(t, c, doc, got, want, results)
}

// TestWebSocketCloseAfterLastRequest: a WebSocket client that sends its
// close frame right after its last request still receives every answer,
// then the gateway's close frame.
func TestWebSocketCloseAfterLastRequest(t *testing.T) {
	gateway, _ := startServices(t)
	c, doc := endOfInputDocument(t, gateway)
	lines, want := endOfInputRequests(doc)
	ws := wsstreamtest.Dial(t, "ws://"+gateway+"/rpc", nil)
	for _, l := range lines {
		ws.WriteText(t, []byte(l))
	}
	ws.WriteClose(t, 1000, "that was all")
	got, results := map[string]string{}, map[string]json.RawMessage{}
	for {
		op, payload, err := ws.ReadFrame(30 * time.Second)
		if err != nil {
			t.Fatalf("reading after the close frame: %v (answers so far %v)", err, got)
		}
		if op == wsstreamtest.OpClose {
			break
		}
		if op == wsstreamtest.OpText {
			answers(t, payload, got, results)
		}
	}
	checkEndOfInput(t, c, doc, got, want, results)
}
