package gateway_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/cadbridge/cadbridge/internal/stacktest"
	"github.com/cadbridge/cadbridge/services/gateway"
)

// startWithTokens runs an engine and a gateway whose tokens file names
// token for principal alice.
func startWithTokens(t *testing.T, token string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(file, []byte(token+" alice\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return stacktest.StartTB(t, stacktest.Options{CheckContracts: true, Tokens: file}).Gateway
}

// TestWebSocketBearerSubprotocol: a browser, which cannot set the
// Authorization header of a WebSocket, offers its token as the
// subprotocol cadbridge.bearer.<base64url(token)> beside
// cadbridge.jsonrpc; the gateway takes it, answers cadbridge.jsonrpc only,
// and refuses a wrong token before the upgrade exactly as a wrong
// Authorization header is refused. The header still works.
func TestWebSocketBearerSubprotocol(t *testing.T) {
	const token = "s3cret/token+with=odd&chars"
	addr := startWithTokens(t, token)
	url := "ws://" + addr + "/rpc"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	// call makes one call on c and returns its raw answer.
	call := func(t *testing.T, c *websocket.Conn) string {
		t.Helper()
		if err := c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"document.list","params":{}}`)); err != nil {
			t.Fatal(err)
		}
		_, data, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}

	t.Run("subprotocol accepted", func(t *testing.T) {
		c, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{gateway.SubprotocolJSONRPC, gateway.BearerSubprotocol(token)}})
		if err != nil {
			t.Fatalf("Dial with the bearer subprotocol = %v (%v)", err, resp)
		}
		defer c.CloseNow()
		if got := resp.Header.Values("Sec-WebSocket-Protocol"); len(got) != 1 || got[0] != gateway.SubprotocolJSONRPC {
			t.Errorf("Sec-WebSocket-Protocol answered = %q, want only %q", got, gateway.SubprotocolJSONRPC)
		}
		if c.Subprotocol() != gateway.SubprotocolJSONRPC {
			t.Errorf("Subprotocol() = %q, want %q", c.Subprotocol(), gateway.SubprotocolJSONRPC)
		}
		if got := call(t, c); !strings.Contains(got, `"result"`) {
			t.Errorf("document.list = %s, want a result", got)
		}
	})

	t.Run("header still works", func(t *testing.T) {
		c, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + token}}})
		if err != nil {
			t.Fatalf("Dial with Authorization = %v (%v)", err, resp)
		}
		defer c.CloseNow()
		if c.Subprotocol() != "" {
			t.Errorf("a client that offers no subprotocol got %q, want none", c.Subprotocol())
		}
		if got := call(t, c); !strings.Contains(got, `"result"`) {
			t.Errorf("document.list = %s, want a result", got)
		}
	})

	// refusal is what the gateway answers a handshake with.
	type refusal struct {
		status                 int
		authenticate, body     string
		upgrade, wsSubprotocol string
	}
	refused := func(t *testing.T, opts *websocket.DialOptions) refusal {
		t.Helper()
		c, resp, err := websocket.Dial(ctx, url, opts)
		if err == nil {
			c.CloseNow()
			t.Fatal("Dial succeeded, want it refused")
		}
		if resp == nil {
			t.Fatalf("Dial = %v with no response, want an HTTP refusal", err)
		}
		body, _ := io.ReadAll(resp.Body)
		return refusal{resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(body), resp.Header.Get("Upgrade"), resp.Header.Get("Sec-WebSocket-Protocol")}
	}
	byHeader := refused(t, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer wrong"}}})
	if byHeader.status != http.StatusUnauthorized || byHeader.authenticate == "" {
		t.Fatalf("a wrong Authorization header: %+v, want 401 with WWW-Authenticate", byHeader)
	}
	for name, protocols := range map[string][]string{
		"wrong token":     {gateway.SubprotocolJSONRPC, gateway.BearerSubprotocol("wrong")},
		"not base64url":   {gateway.SubprotocolJSONRPC, gateway.BearerSubprotocolPrefix + "%%%"},
		"no token at all": {gateway.SubprotocolJSONRPC},
	} {
		t.Run(name+" refused", func(t *testing.T) {
			if got := refused(t, &websocket.DialOptions{Subprotocols: protocols}); got != byHeader {
				t.Errorf("subprotocols %q: refused with %+v, want %+v as for a wrong header", protocols, got, byHeader)
			}
		})
	}

	t.Run("only on an upgrade", func(t *testing.T) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/rpc", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"document.list","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Sec-WebSocket-Protocol", gateway.BearerSubprotocol(token))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("POST /rpc with the token only as a subprotocol = %d, want 401", resp.StatusCode)
		}
	})
}
