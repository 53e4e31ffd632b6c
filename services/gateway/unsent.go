package gateway

import (
	"context"
	"net"
)

// unsentLimit bounds the bytes the kernel keeps for a client that it has
// not yet sent (TCP_NOTSENT_LOWAT, where the system has it): past it a
// write to the socket waits, as for a client that does not read. Without
// it the kernel's send buffer (autotuned to 4 MiB) takes megabytes of
// answers off the queue that the connection's budget counts, and a client
// that never reads is answered at full speed — 4029s of its excess calls
// included — until both are full. It does not bound the bytes in flight,
// so a reading client's throughput is not capped.
const unsentLimit = 128 << 10

// connContext is the HTTP server's ConnContext: it bounds the unsent bytes
// of each connection accepted.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if tc, ok := c.(*net.TCPConn); ok {
		limitUnsent(tc, unsentLimit)
	}
	return ctx
}
