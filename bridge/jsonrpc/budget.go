package jsonrpc

import "context"

// Budget accounts for the bytes a Conn holds for its peer: each payload it
// has read, from before it is served until every call in it has been
// answered and the answers written to the stream. A Budget that is spent
// stops the Conn from reading (back-pressure).
//
// A Budget is used by one Conn; Acquire is called from its read loop and
// Release from any goroutine.
type Budget interface {
	// Acquire takes n bytes for a payload just read. It may wait for room,
	// and so hold the read loop back, until ctx is done (the connection is
	// ending), when it returns ctx's error and the Conn stops reading.
	Acquire(ctx context.Context, n int) error
	// Release gives back the n bytes of a payload the Conn is done with.
	Release(n int)
}
