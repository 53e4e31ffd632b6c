package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/internal/proctest"
	"github.com/cadbridge/cadbridge/internal/wsstream"
)

func TestMain(m *testing.M) {
	// Every gateway the tests start checks what it sends against the
	// contracts (flag --check-contracts); a violation fails the test.
	os.Setenv("CADBRIDGE_CHECK_CONTRACTS", "true")
	os.Exit(proctest.Main(m, "./cmd/cadctl"))
}

// startServices starts an engine on the memory store and a gateway in front
// of it, both on free loopback ports; it returns the gateway's address and
// the engine's.
func startServices(t *testing.T) (gateway, engine string) {
	t.Helper()
	g, e := startProcesses(t)
	return g.Addr, e.Addr
}

// startProcesses is startServices returning the processes.
func startProcesses(t *testing.T) (gateway, engine *proctest.Process) {
	t.Helper()
	e := proctest.StartEngine(t, "127.0.0.1:0", "memory:")
	g := proctest.StartGateway(t, "127.0.0.1:0", e.Addr)
	return g, e
}

// rssBytes is a process's resident memory.
func rssBytes(t *testing.T, p *proctest.Process) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Pid()))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), &kb)
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", p.Pid())
	return 0
}

// rpcError is a JSON-RPC error object as a client sees it.
type rpcError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

type response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
	Method string          `json:"method"`
}

// client sends one JSON-RPC request and returns its response.
type client interface {
	roundTrip(t *testing.T, payload []byte) response
}

// call sends method with params and returns the response.
func call(t *testing.T, c client, id int, method string, params any) response {
	t.Helper()
	req := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		req["params"] = params
	}
	payload, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	resp := c.roundTrip(t, payload)
	if string(resp.ID) != fmt.Sprint(id) {
		t.Fatalf("%s: response id = %s, want %d", method, resp.ID, id)
	}
	return resp
}

// mustCall is call for requests that must succeed; it decodes the result.
func mustCall(t *testing.T, c client, id int, method string, params any, result any) {
	t.Helper()
	resp := call(t, c, id, method, params)
	if resp.Error != nil {
		t.Fatalf("%s(%v) error = %d %s %s", method, params, resp.Error.Code, resp.Error.Message, resp.Error.Data)
	}
	if err := json.Unmarshal(resp.Result, result); err != nil {
		t.Fatalf("%s result %s: %v", method, resp.Result, err)
	}
}

// wsClient is a JSON-RPC client over a WebSocket that sees raw frames.
type wsClient struct{ ws *wsstream.Stream }

// dialWebSocket connects to the gateway at addr; the WebSocket is closed
// when the test ends.
func dialWebSocket(t *testing.T, addr string) *wsClient {
	t.Helper()
	c, _, err := dialAs(t, addr, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// dialAs is dialWebSocket with a bearer token (none if empty) and more
// handshake headers, returning the handshake's response.
func dialAs(t *testing.T, addr, token string, header http.Header) (*wsClient, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, resp, err := wsstream.Dial(ctx, "ws://"+addr+"/rpc", wsstream.DialOptions{Token: token, Header: header, ReadLimit: 16 << 20})
	if err != nil {
		return nil, resp, err
	}
	t.Cleanup(func() { ws.Close() })
	return &wsClient{ws: ws}, resp, nil
}

func (w *wsClient) roundTrip(t *testing.T, payload []byte) response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := w.ws.Write(ctx, payload); err != nil {
		t.Fatal(err)
	}
	for {
		data, err := w.ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var resp response
		if err := json.Unmarshal(data, &resp); err != nil {
			t.Fatalf("frame %s: %v", data, err)
		}
		if resp.Method == "" { // skip notifications
			return resp
		}
	}
}

type httpClient struct{ url string }

func (h *httpClient) roundTrip(t *testing.T, payload []byte) response {
	t.Helper()
	resp, err := http.Post(h.url, "application/json", bytes.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("HTTP %d body %q: %v", resp.StatusCode, body, err)
	}
	return r
}

type stdioClient struct {
	in  io.WriteCloser
	out *bufio.Scanner
}

// startStdio runs a gateway speaking JSON-RPC on its stdin and stdout.
func startStdio(t *testing.T, engine string) *stdioClient {
	t.Helper()
	cmd := exec.Command(proctest.Bin("gateway"), "--stdio", "--engine", engine)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr proctest.SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close() // end of input ends the gateway
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("gateway --stdio did not exit at end of input; stderr:\n%s", stderr.String())
		}
	})
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 8<<20)
	return &stdioClient{in: in, out: sc}
}

func (s *stdioClient) roundTrip(t *testing.T, payload []byte) response {
	t.Helper()
	if _, err := s.in.Write(append(payload, '\n')); err != nil {
		t.Fatal(err)
	}
	for s.out.Scan() {
		var resp response
		if err := json.Unmarshal(s.out.Bytes(), &resp); err != nil {
			t.Fatalf("line %q: %v", s.out.Text(), err)
		}
		if resp.Method == "" {
			return resp
		}
	}
	t.Fatalf("stdout ended: %v", s.out.Err())
	return response{}
}
