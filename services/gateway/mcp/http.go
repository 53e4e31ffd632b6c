package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler serves Streamable HTTP for the MCP surface (mounted at /mcp),
// behind the gateway's authentication and Origin check, with its read
// limit as the body limit. The SDK serves protocol revision 2026-07-28
// only statelessly (each request on its own, no Mcp-Session-Id) and the
// older revisions only with sessions, so requests go to one of two SDK
// handlers: a POST that names revision 2026-07-28 or later (header
// Mcp-Protocol-Version, or the body's _meta) to the stateless one,
// everything else (initialize, a session's requests, GET streams, DELETE)
// to the one with sessions.
func (s *Server) Handler() http.Handler { return s.handler(true) }

// handler is [Server.Handler], with the fast path for plain tools/call
// requests of revision 2026-07-28 (see [Server.serveFast]) or without.
func (s *Server) handler(fast bool) http.Handler {
	limit := s.gw.ReadLimit()
	getServer := func(*http.Request) *mcpsdk.Server { return s.sdk }
	sdkLog := slog.New(atLeast{slog.LevelWarn, s.log.Handler()})
	stateful := mcpsdk.NewStreamableHTTPHandler(getServer, &mcpsdk.StreamableHTTPOptions{
		Logger: sdkLog, MaxRequestBodyBytes: limit, SessionTimeout: s.cfg.SessionTimeout,
	})
	stateless := mcpsdk.NewStreamableHTTPHandler(getServer, &mcpsdk.StreamableHTTPOptions{
		Logger: sdkLog, MaxRequestBodyBytes: limit, Stateless: true, PropagateRequestCancellation: true,
	})
	route := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.gw.OriginAllowed(r) {
			http.Error(w, "forbidden: foreign Origin", http.StatusForbidden)
			return
		}
		stateless2026, err := wantsStateless(r, limit)
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				http.Error(w, "message too large", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if stateless2026 {
			if fast {
				if f, ok := s.decodeFast(r, limit); ok {
					s.serveFast(w, r, f)
					return
				}
			}
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
	return s.authenticate(route)
}

// metaProtocolVersion is the _meta key of a request's protocol revision
// (2026-07-28 and later).
const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// wantsStateless reports whether r is a request of revision 2026-07-28 or
// later; when its header does not say, it reads the body (bounded by
// limit) and puts it back.
func wantsStateless(r *http.Request, limit int64) (bool, error) {
	if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
		return false, nil
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
		return v >= mrtrVersion, nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	if err != nil {
		return false, err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if !bytes.Contains(body, []byte(metaProtocolVersion)) {
		return false, nil
	}
	var msg struct {
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return false, nil
	}
	v, _ := msg.Params.Meta[metaProtocolVersion].(string)
	return v >= mrtrVersion, nil
}

// authenticate lets through the requests the gateway's authentication
// accepts. A request with a bearer token then carries the principal as
// the SDK's TokenInfo.UserID, which tool handlers read and which binds a
// Streamable HTTP session to its principal (another principal's request
// on it is refused); in open mode the caller is the local principal.
func (s *Server) authenticate(next http.Handler) http.Handler {
	withToken := auth.RequireBearerToken(func(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		principal, refuse := s.gw.Authenticate(r)
		if refuse != 0 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: principal}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, refuse := s.gw.Authenticate(r); refuse != 0 {
			if refuse == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="cadbridge"`)
			}
			http.Error(w, http.StatusText(refuse), refuse)
			return
		}
		if r.Header.Get("Authorization") == "" {
			next.ServeHTTP(w, r) // open mode
			return
		}
		withToken.ServeHTTP(w, r)
	})
}
