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

// Buffer is the size of the gateway's write and read buffers on its
// connection to an engine, and of the engine's write buffer, which the
// engine takes from a pool for each flush (grpc.SharedWriteBuffer): it
// serves other clients than gateways, and an idle connection then holds
// none. At grpc-go's 32 KiB a session.resume's answer (about 100 KiB) went
// out in four writes and came in in as many reads, with a wake-up of the
// gateway's reader for each.
const Buffer = 256 << 10
