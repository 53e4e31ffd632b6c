package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Handler serves incoming calls and notifications.
type Handler interface {
	// Handle serves req. For a call, result is marshalled with encoding/json
	// (a json.RawMessage passes through) and sent to the peer, unless err is
	// not nil. Then err is sent instead: an *Error (possibly wrapped) as is,
	// ErrNotHandled as CodeMethodNotFound, and anything else as
	// CodeInternalError with err's text as message; but if the peer
	// cancelled the call (see MethodCancelRequest), any error is sent as
	// CodeRequestCancelled. For a notification, the results are ignored.
	//
	// ctx is cancelled when the peer cancels the call, or when the
	// connection ends.
	Handle(ctx context.Context, req *Request) (result any, err error)
}

// HandlerFunc adapts a function to the Handler interface.
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle returns f(ctx, req).
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) {
	return f(ctx, req)
}

// Preempter sees every incoming request in a Conn's read loop, before it is
// queued for the Handler, and so must not block. To pass a request on to the
// Handler it returns ErrNotHandled; any other results answer the request as
// if the Handler had returned them.
type Preempter interface {
	// Preempt serves req or returns ErrNotHandled. ctx is cancelled when
	// the connection ends.
	Preempt(ctx context.Context, req *Request) (result any, err error)
}

// ErrCancelledByPeer is the cause (context.Cause) of a handler context
// cancelled by the peer's MethodCancelRequest; a handler context ended
// because the connection ended has cause ErrClosed.
var ErrCancelledByPeer = errors.New("jsonrpc: request cancelled by the peer")

// response returns the response to the call req from a handler's results.
// ctx is the handler's context.
func response(ctx context.Context, req *Request, result any, err error) *Response {
	if err != nil {
		return &Response{ID: req.ID, Error: toError(ctx, req, err)}
	}
	if l, ok := result.(Lent); ok {
		return &Response{ID: req.ID, Result: l.JSON, lent: l.Return}
	}
	data, err := marshalCompact(result)
	if err != nil {
		return &Response{ID: req.ID, Error: NewError(CodeInternalError, fmt.Sprintf("marshalling result: %v", err))}
	}
	return &Response{ID: req.ID, Result: data}
}

// Compact is a handler's result that is compact, valid JSON already, as a
// generated encoder writes it: it goes out as it is. (A json.RawMessage
// result is checked and compacted first.)
type Compact []byte

// MarshalJSON returns c.
func (c Compact) MarshalJSON() ([]byte, error) { return c, nil }

// Lent is a handler's result that is compact, valid JSON already, as
// Compact, in bytes the handler lends: Return, if not nil, is called once
// they have been copied into the payload that answers the call, after
// which the Conn does not refer to them (the handler may reuse them, a
// pooled buffer say). A result the Conn never encodes (its connection
// ended first) is never returned.
type Lent struct {
	JSON   []byte
	Return func()
}

// MarshalJSON returns l.JSON.
func (l Lent) MarshalJSON() ([]byte, error) { return l.JSON, nil }

// marshalCompact marshals a handler's result, compact and valid: a Compact
// passes through as it is, a json.RawMessage as its bytes (without the
// whitespace it may have), anything else goes through encoding/json.
func marshalCompact(result any) (json.RawMessage, error) {
	switch v := result.(type) {
	case Compact:
		return json.RawMessage(v), nil
	case json.RawMessage:
		if data, ok := compactRaw(v); ok {
			return data, nil
		}
	}
	return marshalJSON(result)
}

// toError returns the error object sent for a handler's error.
func toError(ctx context.Context, req *Request, err error) *Error {
	var e *Error
	switch {
	case errors.Is(context.Cause(ctx), ErrCancelledByPeer):
		return NewError(CodeRequestCancelled, "request cancelled")
	case errors.As(err, &e):
		return e
	case errors.Is(err, ErrNotHandled):
		return methodNotFound(req)
	default:
		return NewError(CodeInternalError, err.Error())
	}
}

// methodNotFound returns the error for a call that no handler serves.
func methodNotFound(req *Request) *Error {
	return NewError(CodeMethodNotFound, fmt.Sprintf("method not found: %q", req.Method))
}
