// Package grpclink holds what the two ends of the gateway–engine gRPC
// link set alike.
package grpclink

// StreamWindow and ConnWindow are the HTTP/2 flow-control windows each
// end receives with, per stream and per connection, set static: grpc-go's
// dynamic windows make a receiver answer each burst of data with a window
// update and a BDP ping (and the peer the ping with its ack), a write more
// on each side of every call when calls come one at a time. They are the
// most that the dynamic windows grow to, from the start.
const (
	StreamWindow = 16 << 20
	ConnWindow   = 16 << 20
)
