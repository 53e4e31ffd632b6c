package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Error codes defined by JSON-RPC 2.0, and CodeRequestCancelled from the
// Language Server Protocol. Codes from -32768 to -32000 are reserved;
// applications choose theirs outside that range.
const (
	// CodeParseError means the payload is not valid JSON.
	CodeParseError = -32700
	// CodeInvalidRequest means the payload is JSON but not a valid message.
	CodeInvalidRequest = -32600
	// CodeMethodNotFound means no handler serves the method.
	CodeMethodNotFound = -32601
	// CodeInvalidParams means the method's parameters are not acceptable.
	CodeInvalidParams = -32602
	// CodeInternalError means the handler failed.
	CodeInternalError = -32603
	// CodeRequestCancelled means the call was cancelled by the caller with
	// MethodCancelRequest.
	CodeRequestCancelled = -32800
)

// ErrNotHandled is returned by a Preempter to pass a request on to the
// Handler. A Handler that returns it answers a call with CodeMethodNotFound.
var ErrNotHandled = errors.New("jsonrpc: not handled")

// ErrClosed is returned, possibly wrapped, by Call and Notify once the
// connection has ended.
var ErrClosed = errors.New("jsonrpc: connection closed")

// Error is a JSON-RPC error object. It implements error: a Handler returns it
// to choose the error sent to the peer, and Call returns it when the peer
// answers with an error.
type Error struct {
	// Code says what kind of error it is; see the Code constants.
	Code int64 `json:"code"`
	// Message is a short description of the error.
	Message string `json:"message"`
	// Data holds additional information as JSON; nil means none.
	Data json.RawMessage `json:"data,omitempty"`
}

// NewError returns an Error with the given code and message and no data.
func NewError(code int64, message string) *Error {
	return &Error{Code: code, Message: message}
}

// Error returns the message and code, e.g. "jsonrpc error -32601: method not found".
func (e *Error) Error() string {
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// WithData sets e's Data to v marshalled with encoding/json, or to nil if v
// cannot be marshalled, and returns e for chaining. It modifies e.
func (e *Error) WithData(v any) *Error {
	data, err := marshalJSON(v)
	if err != nil {
		data = nil
	}
	e.Data = data
	return e
}
