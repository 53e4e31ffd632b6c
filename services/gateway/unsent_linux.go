package gateway

import (
	"net"

	"golang.org/x/sys/unix"
)

// limitUnsent sets TCP_NOTSENT_LOWAT on c; failing, it leaves c as it is.
func limitUnsent(c *net.TCPConn, n int) {
	raw, err := c.SyscallConn()
	if err != nil {
		return
	}
	raw.Control(func(fd uintptr) {
		unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT, n)
	})
}
