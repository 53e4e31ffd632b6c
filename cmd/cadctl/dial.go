package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/cadbridge/cadbridge/internal/wsstream"
)

// readLimit is the largest message cadctl accepts from the gateway; exports
// of big drawings are single messages.
const readLimit = 256 << 20

// dialWebSocket opens the gateway's /rpc WebSocket, with the token as a
// bearer credential when there is one.
func dialWebSocket(ctx context.Context, rawURL, token string) (*wsstream.Stream, error) {
	u, err := rpcURL(rawURL)
	if err != nil {
		return nil, err
	}
	s, resp, err := wsstream.Dial(ctx, u, wsstream.DialOptions{Token: token, ReadLimit: readLimit})
	if err != nil {
		if resp != nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
			return nil, fmt.Errorf("dial %s: %s (check --token or CADBRIDGE_TOKEN): %w", u, resp.Status, errUnauthorized)
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("no gateway at %s (start one with go run ./cmd/cadbridge, or set --url): %w", u, err)
		}
		return nil, fmt.Errorf("dial %s: %w", u, err)
	}
	return s, nil
}

// errUnauthorized is a refused credential; reconnecting cannot help.
var errUnauthorized = errors.New("unauthorized")

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

// viewerURL is the address of the gateway's viewer showing document doc
// (none if empty), attached to session ses with its resume token; with
// bearer, the gateway's bearer token, which the page presents on its
// WebSockets. Both tokens are in the fragment, which a browser never
// sends to the server.
func viewerURL(raw, doc string, ses *sessionState, bearer string) (string, error) {
	link, err := httpURL(raw, "/viewer/")
	if err != nil {
		return "", err
	}
	u, err := url.Parse(link)
	if err != nil {
		return "", err
	}
	if doc != "" {
		u.RawQuery = url.Values{"document": {doc}}.Encode()
	}
	frag := url.Values{"session": {ses.ID}, "token": {ses.ResumeToken}}
	if bearer != "" {
		frag.Set("bearer", bearer)
	}
	return u.String() + "#" + frag.Encode(), nil
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
