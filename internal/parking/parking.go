// Package parking lets an idle connection's reader end instead of waiting:
// the connection is parked in a [Lot], and one goroutine, waiting for every
// parked connection at once, starts a function when one has something to
// read. A thousand idle connections then hold one goroutine for reading,
// not a thousand.
package parking

import (
	"errors"
	"sync"
	"syscall"
)

// ErrUnsupported is Park's error where the system has no way to wait for
// many connections at once (anything but Linux): the caller keeps its
// reader waiting instead.
var ErrUnsupported = errors.New("parking: not supported on this system")

// WaitFunction names the function of a lot's goroutine, which lives as
// long as the process, for leak checks to let it be.
const WaitFunction = "github.com/cadbridge/cadbridge/internal/parking.(*Lot).wait"

// Lot waits for the connections parked in it. The zero value is ready to
// use; its goroutine starts when it is opened, by Open or the first Park.
// Its methods may be called concurrently.
type Lot struct {
	start sync.Once
	err   error // why the lot cannot wait, if it cannot; set by start

	mu     sync.Mutex        // guards next and parked
	next   Ticket            // the last ticket given
	parked map[Ticket]parked // the connections waited for, by ticket

	poller // the system's side: parking_linux.go, parking_other.go
}

// parked is one parked connection: what to wake and how to reach its
// descriptor.
type parked struct {
	conn syscall.RawConn
	wake func()
}

// Ticket names one Park, for Leave.
type Ticket uint64

// Open makes the lot ready to park connections and starts its goroutine,
// once; Park opens it too. It fails where the system cannot park
// ([ErrUnsupported]).
func (l *Lot) Open() error {
	l.start.Do(func() {
		l.parked = map[Ticket]parked{}
		if l.err = l.open(); l.err == nil {
			go l.wait()
		}
	})
	return l.err
}

// Park waits for conn to have something to read (or to be closed by its
// peer, or to fail), then starts wake on a goroutine of its own, once. If
// conn is readable already, wake starts at once. A connection closed on
// this side while parked is not noticed: Leave it first.
func (l *Lot) Park(conn syscall.RawConn, wake func()) (Ticket, error) {
	if err := l.Open(); err != nil {
		return 0, err
	}
	l.mu.Lock()
	l.next++
	t := l.next
	l.parked[t] = parked{conn, wake}
	l.mu.Unlock()
	if err := l.add(conn, t); err != nil {
		l.mu.Lock()
		delete(l.parked, t)
		l.mu.Unlock()
		return 0, err
	}
	return t, nil
}

// Leave takes a parked connection out of the lot before its wake has
// started, and reports whether it did: false means wake has started, or
// is about to.
func (l *Lot) Leave(t Ticket) bool {
	p, ok := l.take(t)
	if ok {
		l.remove(p.conn)
	}
	return ok
}

// take removes ticket t from the lot, reporting whether it was there.
func (l *Lot) take(t Ticket) (parked, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p, ok := l.parked[t]
	delete(l.parked, t)
	return p, ok
}

// ready wakes the connection parked under ticket t, unless it has left.
func (l *Lot) ready(t Ticket) {
	if p, ok := l.take(t); ok {
		l.remove(p.conn)
		go p.wake()
	}
}
