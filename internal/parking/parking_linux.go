package parking

import (
	"errors"
	"syscall"
)

// poller is an epoll instance the lot's goroutine waits on. Each parked
// connection's descriptor is in it once, for one readiness (EPOLLONESHOT),
// under its ticket.
type poller struct {
	epfd int
}

func (p *poller) open() error {
	fd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return err
	}
	p.epfd = fd
	return nil
}

// add waits for conn to be readable, to be hung up on, or to fail. Level
// triggered, it reports a conn that is readable already at once.
func (l *Lot) add(conn syscall.RawConn, t Ticket) error {
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP | syscall.EPOLLONESHOT, Fd: int32(t), Pad: int32(t >> 32)}
	var err error
	cerr := conn.Control(func(fd uintptr) {
		err = syscall.EpollCtl(l.epfd, syscall.EPOLL_CTL_ADD, int(fd), &ev)
	})
	return errors.Join(cerr, err)
}

// remove takes conn's descriptor out of the epoll instance. It goes
// through Control, so that the descriptor cannot be closed (and its number
// given to another connection) meanwhile; a conn closed already left the
// instance when it was closed.
func (l *Lot) remove(conn syscall.RawConn) {
	conn.Control(func(fd uintptr) {
		syscall.EpollCtl(l.epfd, syscall.EPOLL_CTL_DEL, int(fd), nil)
	})
}

// wait wakes the connections that become ready, for good.
func (l *Lot) wait() {
	events := make([]syscall.EpollEvent, 128)
	for {
		n, err := syscall.EpollWait(l.epfd, events, -1)
		if err != nil {
			continue // EINTR; the instance itself cannot fail
		}
		for _, ev := range events[:n] {
			l.ready(Ticket(uint32(ev.Fd)) | Ticket(uint32(ev.Pad))<<32)
		}
	}
}
