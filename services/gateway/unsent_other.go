//go:build !linux

package gateway

import "net"

// limitUnsent does nothing where TCP_NOTSENT_LOWAT is not known.
func limitUnsent(*net.TCPConn, int) {}
