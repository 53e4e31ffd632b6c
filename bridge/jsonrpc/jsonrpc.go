// Package jsonrpc implements JSON-RPC 2.0 (https://www.jsonrpc.org/specification)
// in both directions over one connection.
//
// The package has three layers:
//
//   - Messages. A Message is a *Request (a call, or a notification when its
//     ID is the zero ID) or a *Response. EncodeMessage writes compact JSON;
//     DecodeMessage and DecodePayload are strict and report problems as
//     JSON-RPC errors ready to be sent back.
//   - Streams. A Stream carries whole payloads, each one message or one batch
//     array. NewLineStream frames payloads as newline-delimited JSON, for
//     stdio and sockets.
//   - Connections. A Conn reads a Stream, serves the peer's requests with a
//     Handler, and sends its own requests with Call and Notify. ServePayload
//     serves a single payload without a connection, for request/response
//     transports such as HTTP.
//
// A Conn runs each incoming request in its own goroutine (at most
// ConnOptions.MaxConcurrent at once): the goroutine that read it serves it,
// while another, lingering from an earlier request or new, reads on.
// Responses to the Conn's own calls, and
// MethodCancelRequest notifications, are handled in the read loop as soon as
// they are read, ahead of any queued requests, so a handler that calls the
// peer and waits for the answer cannot deadlock the connection.
package jsonrpc

// MethodCancelRequest is the notification by which a peer cancels one of its
// calls still in flight; its params are {"id": <id of the call>}. A Conn
// handles it itself, before any Preempter or Handler: it cancels the context
// of that call's handler, and the call is answered with CodeRequestCancelled
// if the handler then fails. Unknown ids are ignored.
const MethodCancelRequest = "$/cancelRequest"
