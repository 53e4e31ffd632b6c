package gateway

import (
	"bufio"
	"crypto/subtle"
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
// refuse it with.
func (t tokens) authenticate(r *http.Request) (string, int) {
	if t == nil {
		if !isLoopbackRequest(r) {
			return "", http.StatusForbidden
		}
		return localPrincipal, 0
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
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
		principal, refuse := gw.tokens.authenticate(r)
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
