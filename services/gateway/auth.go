package gateway

import (
	"bufio"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
)

// tokens maps bearer tokens to principals. A nil tokens is open mode: every
// caller is localPrincipal, and only loopback callers are served.
type tokens map[string]string

// loadTokens reads a tokens file: one "TOKEN PRINCIPAL" pair per line;
// blank lines and lines starting with # are ignored.
func loadTokens(path string) (tokens, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tokens: %w", err)
	}
	defer f.Close()
	t := tokens{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			return nil, fmt.Errorf("tokens %s:%d: want \"TOKEN PRINCIPAL\"", path, n)
		}
		t[fields[0]] = fields[1]
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("tokens: %w", err)
	}
	if len(t) == 0 {
		return nil, errors.New("tokens: the file names no token")
	}
	return t, nil
}

// authenticate returns the request's principal, or the HTTP status to
// refuse it with; the token is the Authorization header's.
func (t tokens) authenticate(r *http.Request) (string, int) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return t.principal(r, token, ok)
}

// authenticateUpgrade is authenticate, but a WebSocket upgrade without an
// Authorization header may carry its token as a subprotocol (see
// [BearerSubprotocol]). Only the routes of withAuth take it: there the
// principal it names is the one the request is served as.
func (t tokens) authenticateUpgrade(r *http.Request) (string, int) {
	token, ok := bearerToken(r)
	return t.principal(r, token, ok)
}

// principal is the principal of a request that presents token (ok false:
// none), or the HTTP status to refuse it with.
func (t tokens) principal(r *http.Request, token string, ok bool) (string, int) {
	if t == nil {
		if !isLoopbackRequest(r) {
			return "", http.StatusForbidden
		}
		return localPrincipal, 0
	}
	if !ok || token == "" {
		return "", http.StatusUnauthorized
	}
	for known, principal := range t {
		if subtle.ConstantTimeCompare([]byte(known), []byte(token)) == 1 {
			return principal, 0
		}
	}
	return "", http.StatusUnauthorized
}

// Subprotocols a WebSocket client of /rpc may offer. A browser cannot set
// the Authorization header of a WebSocket, so it offers its bearer token
// as a subprotocol, BearerSubprotocolPrefix and the token in base64url
// (without padding), beside SubprotocolJSONRPC, as Kubernetes does with
// base64url.bearer.authorization.k8s.io.<token>. The gateway answers with
// SubprotocolJSONRPC only: the secret one is never echoed.
const (
	SubprotocolJSONRPC      = "cadbridge.jsonrpc"
	BearerSubprotocolPrefix = "cadbridge.bearer."
)

// wsSubprotocols are the subprotocols the gateway's WebSocket accepts (the
// first of them the client offers is chosen; a client that offers none
// gets none, as before).
var wsSubprotocols = []string{SubprotocolJSONRPC}

// BearerSubprotocol is the subprotocol that carries token.
func BearerSubprotocol(token string) string {
	return BearerSubprotocolPrefix + base64.RawURLEncoding.EncodeToString([]byte(token))
}

// bearerToken is the request's bearer token: the Authorization header's,
// else, on a WebSocket upgrade, the one a bearer subprotocol carries.
func bearerToken(r *http.Request) (string, bool) {
	if h := r.Header.Get("Authorization"); h != "" || !isWebSocketUpgrade(r) {
		return strings.CutPrefix(h, "Bearer ")
	}
	for _, v := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(v, ",") {
			enc, ok := strings.CutPrefix(strings.TrimSpace(p), BearerSubprotocolPrefix)
			if !ok {
				continue
			}
			token, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(enc, "="))
			if err != nil {
				return "", false
			}
			return string(token), true
		}
	}
	return "", false
}

func isWebSocketUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

func isLoopbackRequest(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// withAuth refuses unauthenticated requests and passes the principal on.
func (gw *Gateway) withAuth(next func(w http.ResponseWriter, r *http.Request, principal string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		principal, refuse := gw.tokens.authenticateUpgrade(r)
		if refuse != 0 {
			if refuse == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="cadbridge"`)
			}
			http.Error(w, http.StatusText(refuse), refuse)
			return
		}
		next(w, r, principal)
	}
}
