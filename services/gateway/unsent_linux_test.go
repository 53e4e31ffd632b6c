package gateway

import (
	"context"
	"net"
	"testing"

	"golang.org/x/sys/unix"
)

// TestConnContextLimitsUnsent: each connection the gateway accepts keeps at
// most unsentLimit bytes unsent in the kernel.
func TestConnContextLimitsUnsent(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	go func() {
		if c, err := net.Dial("tcp", lis.Addr().String()); err == nil {
			defer c.Close()
		}
	}()
	c, err := lis.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	connContext(context.Background(), c)
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var got int
	var gerr error
	raw.Control(func(fd uintptr) { got, gerr = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT) })
	if gerr != nil || got != unsentLimit {
		t.Errorf("TCP_NOTSENT_LOWAT of an accepted connection = %d, %v; want %d", got, gerr, unsentLimit)
	}
}
