package wsstream

import (
	"sync"
	"syscall"
	"time"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/internal/parking"
)

// lot holds the parked Streams of the process.
var lot parking.Lot

// parker is what an accepted Stream needs to park its reader.
type parker struct {
	raw syscall.RawConn // the connection's descriptor; nil: the Stream never parks

	mu      sync.Mutex // guards the fields below
	stopped bool       // StopParking was called: Park wakes at once
	ticket  parking.Ticket
	wake    func() // the wake of the last Park, until StopParking
}

var _ jsonrpc.Parker = (*Stream)(nil)

// ParkAfter makes Read return [jsonrpc.ErrParked] when no message has
// begun to arrive for d, so that the reader may end and [Stream.Park]
// call it back when one does. Only a Stream from Accept over a plain TCP
// connection parks: a TLS connection may hold bytes the system does not
// see waiting. ParkAfter reports whether this Stream parks.
func (s *Stream) ParkAfter(d time.Duration) bool {
	if s.gate == nil || d <= 0 {
		return false
	}
	sc, ok := s.gate.conn.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil || lot.Open() != nil {
		return false
	}
	s.park.mu.Lock()
	defer s.park.mu.Unlock()
	if s.park.stopped {
		return false
	}
	s.park.raw = raw
	s.gate.idle.Store(int64(d))
	return true
}

// Park calls wake, once and on a goroutine of its own, when the WebSocket
// has something to read, or has failed, or StopParking is called; at once
// if StopParking was called already, or the Stream cannot park.
func (s *Stream) Park(wake func()) {
	s.park.mu.Lock()
	defer s.park.mu.Unlock()
	if !s.park.stopped && s.park.raw != nil {
		t, err := lot.Park(s.park.raw, wake)
		if err == nil {
			s.park.ticket, s.park.wake = t, wake
			return
		}
		s.gate.idle.Store(0) // cannot park: Read waits as it would have
	}
	go wake()
}

// StopParking ends parking for good: Read waits for messages however long
// they take, and a parked reader is woken. Call it before the WebSocket
// is closed, as a parked Stream closed on this side is never woken.
func (s *Stream) StopParking() {
	s.park.mu.Lock()
	defer s.park.mu.Unlock()
	s.park.stopped = true
	if s.gate != nil {
		s.gate.idle.Store(0)
	}
	if s.park.wake != nil && lot.Leave(s.park.ticket) {
		go s.park.wake()
	}
	s.park.wake = nil
}
