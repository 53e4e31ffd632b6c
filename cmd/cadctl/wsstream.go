package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/coder/websocket"
)

// readLimit is the largest message cadctl accepts from the gateway; exports
// of big drawings are single messages.
const readLimit = 256 << 20

// wsStream is a jsonrpc.Stream over a WebSocket: one JSON-RPC payload per
// text message. coder/websocket allows one reader and any number of
// concurrent writers, as jsonrpc.Conn needs.
type wsStream struct {
	c *websocket.Conn
}

// dialWebSocket opens the gateway's /rpc WebSocket, with the token as a
// bearer credential when there is one.
func dialWebSocket(ctx context.Context, rawURL, token string) (*wsStream, error) {
	u, err := rpcURL(rawURL)
	if err != nil {
		return nil, err
	}
	opts := &websocket.DialOptions{}
	if token != "" {
		opts.HTTPHeader = http.Header{"Authorization": {"Bearer " + token}}
	}
	c, resp, err := websocket.Dial(ctx, u, opts)
	if err != nil {
		if resp != nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
			return nil, fmt.Errorf("dial %s: %s (check --token or CADBRIDGE_TOKEN): %w", u, resp.Status, errUnauthorized)
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("no gateway at %s (start one with go run ./cmd/cadbridge, or set --url): %w", u, err)
		}
		return nil, fmt.Errorf("dial %s: %w", u, err)
	}
	c.SetReadLimit(readLimit)
	return &wsStream{c: c}, nil
}

// errUnauthorized is a refused credential; reconnecting cannot help.
var errUnauthorized = errors.New("unauthorized")

func (s *wsStream) Read(ctx context.Context) ([]byte, error) {
	typ, data, err := s.c.Read(ctx)
	if err != nil {
		if st := websocket.CloseStatus(err); st == websocket.StatusNormalClosure || st == websocket.StatusGoingAway {
			return nil, io.EOF
		}
		return nil, err
	}
	if typ != websocket.MessageText {
		return nil, errors.New("binary WebSocket message: not JSON-RPC")
	}
	return data, nil
}

func (s *wsStream) Write(ctx context.Context, payload []byte) error {
	return s.c.Write(ctx, websocket.MessageText, payload)
}

func (s *wsStream) Close() error {
	return s.c.Close(websocket.StatusNormalClosure, "")
}

// abort drops the connection without a closing handshake.
func (s *wsStream) abort() error {
	return s.c.CloseNow()
}

// rpcURL turns what the user gave (ws://host:port/rpc, http://host:port,
// or just host:port) into the WebSocket URL of the gateway's /rpc.
func rpcURL(raw string) (string, error) {
	u, err := baseURL(raw)
	if err != nil {
		return "", err
	}
	switch u.Scheme {
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/rpc"
	}
	return u.String(), nil
}

// httpURL is the gateway's HTTP URL for path (/healthz, /readyz).
func httpURL(raw, path string) (string, error) {
	u, err := baseURL(raw)
	if err != nil {
		return "", err
	}
	switch u.Scheme {
	case "ws":
		u.Scheme = "http"
	case "wss":
		u.Scheme = "https"
	}
	u.Path = path
	return u.String(), nil
}

func baseURL(raw string) (*url.URL, error) {
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("--url %q: %w", raw, err)
	}
	switch u.Scheme {
	case "ws", "wss", "http", "https":
	default:
		return nil, fmt.Errorf("--url %q: scheme must be ws, wss, http or https", raw)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("--url %q: no host", raw)
	}
	return u, nil
}
