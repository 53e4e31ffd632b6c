package parking_test

import (
	"errors"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/internal/parking"
)

// pair returns the two ends of a loopback TCP connection, and the raw
// descriptor of the first.
func pair(t *testing.T) (parked, peer net.Conn, raw syscall.RawConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	peer, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	parked, err = ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { parked.Close(); peer.Close() })
	raw, err = parked.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	return parked, peer, raw
}

// park parks raw in lot and returns the channel closed by its wake.
func park(t *testing.T, lot *parking.Lot, raw syscall.RawConn) (parking.Ticket, chan struct{}) {
	t.Helper()
	woken := make(chan struct{})
	ticket, err := lot.Park(raw, func() { close(woken) })
	if errors.Is(err, parking.ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatalf("Park = %v", err)
	}
	return ticket, woken
}

func waitWoken(t *testing.T, woken chan struct{}, what string) {
	t.Helper()
	select {
	case <-woken:
	case <-time.After(10 * time.Second):
		t.Fatalf("not woken when %s", what)
	}
}

func notWoken(t *testing.T, woken chan struct{}, what string) {
	t.Helper()
	select {
	case <-woken:
		t.Fatalf("woken %s", what)
	case <-time.After(100 * time.Millisecond):
	}
}

func TestParkWakesWhenReadable(t *testing.T) {
	var lot parking.Lot
	parked, peer, raw := pair(t)
	_, woken := park(t, &lot, raw)
	notWoken(t, woken, "with nothing to read")
	peer.Write([]byte("x"))
	waitWoken(t, woken, "the peer wrote")
	// The bytes are still there to read: parking reads nothing.
	buf := make([]byte, 4)
	if n, err := parked.Read(buf); n != 1 || err != nil {
		t.Fatalf("Read = %d, %v, want 1, nil", n, err)
	}

	// The same connection parks again once it has been woken.
	_, again := park(t, &lot, raw)
	notWoken(t, again, "parked a second time, with nothing to read")
	peer.Write([]byte("y"))
	waitWoken(t, again, "the peer wrote again")
}

func TestParkWakesAtOnceWhenReadableAlready(t *testing.T) {
	var lot parking.Lot
	_, peer, raw := pair(t)
	peer.Write([]byte("x"))
	time.Sleep(50 * time.Millisecond) // the byte arrives
	_, woken := park(t, &lot, raw)
	waitWoken(t, woken, "parked with a byte to read")
}

func TestParkWakesWhenPeerCloses(t *testing.T) {
	var lot parking.Lot
	_, peer, raw := pair(t)
	_, woken := park(t, &lot, raw)
	peer.Close()
	waitWoken(t, woken, "the peer closed")
}

func TestLeave(t *testing.T) {
	var lot parking.Lot
	_, peer, raw := pair(t)
	ticket, woken := park(t, &lot, raw)
	if !lot.Leave(ticket) {
		t.Fatal("Leave of a parked connection = false, want true")
	}
	peer.Write([]byte("x"))
	notWoken(t, woken, "after leaving")
	if lot.Leave(ticket) {
		t.Fatal("second Leave = true, want false")
	}

	// A connection woken has left already.
	ticket, woken = park(t, &lot, raw)
	waitWoken(t, woken, "parked with a byte to read")
	if lot.Leave(ticket) {
		t.Fatal("Leave after the wake = true, want false")
	}
}

// Many connections park in one lot, and each wakes alone.
func TestParkMany(t *testing.T) {
	var lot parking.Lot
	const n = 50
	peers := make([]net.Conn, n)
	wakes := make([]chan struct{}, n)
	for i := range n {
		_, peer, raw := pair(t)
		peers[i] = peer
		_, wakes[i] = park(t, &lot, raw)
	}
	for i := 0; i < n; i += 2 {
		peers[i].Write([]byte("x"))
	}
	for i := range n {
		if i%2 == 0 {
			waitWoken(t, wakes[i], "its peer wrote")
		}
	}
	time.Sleep(100 * time.Millisecond) // time for a wrong wake to come
	for i := 1; i < n; i += 2 {
		select {
		case <-wakes[i]:
			t.Fatalf("connection %d woken, its peer wrote nothing", i)
		default:
		}
	}
}
