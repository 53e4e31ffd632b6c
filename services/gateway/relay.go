package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// LocalPrincipal is the principal of every caller when the gateway runs
// without tokens (loopback only), and of stdio.
const LocalPrincipal = localPrincipal

// Relay is one client connection of a surface that does not speak the
// gateway's JSON-RPC (the MCP surface): its calls go through the same
// method table, contract checks, limits and tracing as the calls of a
// /rpc connection, over its own Session stream to the engine, opened on
// first use; what the engine sends its client (server requests, their
// withdrawals, events) reaches the surface through [RelayHooks] instead of
// JSON-RPC frames, and the client's answers go back with [Relay.Answer].
//
// A Relay is safe for concurrent use. Close it when done.
type Relay struct {
	c      *clientConn
	nextID atomic.Int64
}

// RelayHooks receive what the engine sends a relay's client. They are
// called on the goroutine that reads the engine's stream, one frame at a
// time, and must not block. A nil hook drops what it would receive.
type RelayHooks struct {
	// ServerRequest receives a server request of the relay's session
	// (approval, pick.point, pick.entities). The surface answers it, at
	// most once, with [Relay.Answer].
	ServerRequest func(*enginev1.ServerRequest)
	// RequestCancel receives the withdrawal of a server request; an answer
	// to it afterwards changes nothing.
	RequestCancel func(*enginev1.RequestCancelParams)
	// Event receives an event of the relay's session.
	Event func(*enginev1.Event)
}

// NewRelay returns a relay for principal; headers are those of the HTTP
// request that opened the surface's connection (nil for stdio), for
// tracing.
func (gw *Gateway) NewRelay(principal string, headers http.Header, hooks RelayHooks) *Relay {
	c := gw.newClientConn(principal, headers)
	c.hooks = &hooks
	return &Relay{c: c}
}

// Call makes one call as a /rpc client's call would be made: method is a
// client→gateway wire method ("tools.call", "cad.batch", …), params its
// params as JSON (with _meta if any). It returns the result as JSON, or
// the *jsonrpc.Error a /rpc client would get. A ctx cancelled with cause
// [jsonrpc.ErrCancelledByPeer] cancels the call's work in the engine, as
// $/cancelRequest does; any other end of ctx only stops the wait.
func (r *Relay) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	req := &jsonrpc.Request{ID: jsonrpc.Int64ID(r.nextID.Add(1)), Method: method, Params: params}
	result, err := r.c.Handle(ctx, req)
	if err != nil {
		return nil, rpcError(err, "")
	}
	switch v := result.(type) {
	case jsonrpc.Lent:
		data := bytes.Clone(v.JSON)
		if v.Return != nil {
			v.Return()
		}
		return data, nil
	case jsonrpc.Compact:
		return json.RawMessage(v), nil
	case json.RawMessage:
		return v, nil
	case nil:
		return json.RawMessage("null"), nil
	default:
		data, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encode %s result: %w", method, err)
		}
		return data, nil
	}
}

// Answer forwards the client's answer to the server request id of method:
// result (wire JSON of the method's result), or callErr, the error the
// client answered with (-32601 if it does not implement the method).
// The answer is checked against the method's contract and reaches the
// engine exactly as a /rpc client's answer does: once, and only while
// the request is open.
func (r *Relay) Answer(id, method string, result json.RawMessage, callErr *jsonrpc.Error) {
	m := r.c.gw.serverMethods[method]
	if m == nil {
		return
	}
	var err error
	if callErr != nil {
		err = callErr
	}
	r.c.answer(id, m, result, err)
}

// Close detaches the relay's stream from the engine; its session, if it
// made one, stays with the engine until closed or expired.
func (r *Relay) Close() { r.c.close("client_closed") }

// Authenticate authenticates r as the gateway's other HTTP surfaces do: it
// returns the principal its bearer token names (or [LocalPrincipal] in
// open mode, for loopback callers), or the HTTP status to refuse it with.
func (gw *Gateway) Authenticate(r *http.Request) (principal string, refuse int) {
	return gw.tokens.authenticate(r)
}

// OriginAllowed reports whether r's Origin, if any, is one the gateway
// serves (its own host or loopback), as for /rpc.
func (gw *Gateway) OriginAllowed(r *http.Request) bool { return originAllowed(r) }

// ReadLimit is the largest message the gateway reads, in bytes.
func (gw *Gateway) ReadLimit() int64 { return gw.cfg.ReadLimit }

// MaxInFlight is how many calls one connection may have running.
func (gw *Gateway) MaxInFlight() int { return gw.cfg.MaxInFlight }

// Logger is the gateway's logger.
func (gw *Gateway) Logger() *slog.Logger { return gw.log }

// deliverHooked hands an engine frame to a relay's hooks.
func (c *clientConn) deliverHooked(resp *enginev1.SessionResponse) {
	switch f := resp.GetFrame().(type) {
	case *enginev1.SessionResponse_Event:
		if c.hooks.Event != nil {
			c.hooks.Event(f.Event)
		}
	case *enginev1.SessionResponse_ServerRequest:
		if c.hooks.ServerRequest != nil {
			c.hooks.ServerRequest(f.ServerRequest)
		}
	case *enginev1.SessionResponse_ServerRequestCancel:
		if c.hooks.RequestCancel != nil {
			c.hooks.RequestCancel(f.ServerRequestCancel)
		}
	}
}
