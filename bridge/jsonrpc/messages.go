package jsonrpc

import "encoding/json"

// Message is a JSON-RPC message: a *Request or a *Response. The set is
// closed; no other type implements Message.
type Message interface {
	isMessage()
}

// Request is a call, which expects a Response, or a notification, which does
// not. Which one it is depends on ID: a valid ID makes a call, the zero ID a
// notification.
type Request struct {
	// ID is the call's id, or the zero ID for a notification.
	ID ID
	// Method is the name of the method to invoke.
	Method string
	// Params holds the parameters as a JSON object or array; nil means none.
	Params json.RawMessage
}

// IsCall reports whether r is a call (it has an id) rather than a
// notification.
func (r *Request) IsCall() bool { return r.ID.IsValid() }

func (*Request) isMessage() {}

// Response answers a call. Exactly one of Result and Error is set.
type Response struct {
	// ID is the id of the call answered. It is the zero ID only in an error
	// response to a request whose id could not be read.
	ID ID
	// Result is the call's result as JSON; nil (or empty) means none. A null
	// result is json.RawMessage("null").
	Result json.RawMessage
	// Error is the error the call failed with; nil means success.
	Error *Error
	// lent returns Result to the handler that lent it (Lent), once it is
	// encoded; nil for a Result of the Response's own.
	lent func()
}

func (*Response) isMessage() {}
