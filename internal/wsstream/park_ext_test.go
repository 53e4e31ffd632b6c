package wsstream_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/internal/wsstream"
	"github.com/cadbridge/cadbridge/internal/wsstream/wsstreamtest"
)

const parkAfter = 50 * time.Millisecond

// parkingServer serves one WebSocket from Accept that parks after
// parkAfter: it echoes each message, and at each park it sends the Stream
// on parks and waits for Park's wake before it reads on. It sends the
// error that ended reading (io.EOF for a clean end) on ended.
func parkingServer(t *testing.T) (url string, parks chan *wsstream.Stream, ended chan error) {
	parks = make(chan *wsstream.Stream, 1)
	url, ended = serveAccepted(t, func(r *http.Request, s *wsstream.Stream) error {
		defer s.Close()
		if !s.ParkAfter(parkAfter) {
			return errors.New("ParkAfter() = false on a plain TCP connection, want true")
		}
		ctx := r.Context()
		for {
			data, err := s.Read(ctx)
			if errors.Is(err, jsonrpc.ErrParked) {
				woken := make(chan struct{})
				s.Park(func() { close(woken) })
				parks <- s
				<-woken
				continue
			}
			if err != nil {
				return err
			}
			s.Write(ctx, data)
		}
	})
	return url, parks, ended
}

// nextPark waits for the server to park.
func nextPark(t *testing.T, parks chan *wsstream.Stream, after string) *wsstream.Stream {
	t.Helper()
	select {
	case s := <-parks:
		return s
	case <-time.After(10 * time.Second):
		t.Fatalf("the server did not park after %s", after)
		return nil
	}
}

// readFrame reads the server's next frame and checks it.
func readFrame(t *testing.T, c *wsstreamtest.Raw, wantOp byte, want string) {
	t.Helper()
	op, payload, err := c.ReadFrame(10 * time.Second)
	if err != nil || op != wantOp || string(payload) != want {
		t.Fatalf("ReadFrame() = %x %q, %v, want %x %q", op, payload, err, wantOp, want)
	}
}

// TestParkedReaderWakes: an accepted Stream's Read gives up with
// jsonrpc.ErrParked once no message has come for its time, and Park wakes
// its reader for each thing the client sends: a message, a ping (answered),
// the pong to the server's ping, and its close frame (io.EOF).
func TestParkedReaderWakes(t *testing.T) {
	url, parks, ended := parkingServer(t)
	c := wsstreamtest.Dial(t, url, nil)
	c.WriteText(t, []byte("one"))
	readFrame(t, c, wsstreamtest.OpText, "one")
	nextPark(t, parks, "the first message")

	c.WriteText(t, []byte("two"))
	readFrame(t, c, wsstreamtest.OpText, "two")
	nextPark(t, parks, "the second message")

	c.WriteFrame(t, wsstreamtest.OpPing, []byte("are you there"))
	readFrame(t, c, wsstreamtest.OpPong, "are you there")
	s := nextPark(t, parks, "the client's ping")

	pinged := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		pinged <- s.Ping(ctx)
	}()
	op, payload, err := c.ReadFrame(10 * time.Second)
	if err != nil || op != wsstreamtest.OpPing {
		t.Fatalf("ReadFrame() = %x, %v, want the server's ping", op, err)
	}
	c.WriteFrame(t, wsstreamtest.OpPong, payload)
	if err := <-pinged; err != nil {
		t.Fatalf("the server's Ping() of a client that answers = %v, want nil", err)
	}
	nextPark(t, parks, "the client's pong")

	c.WriteClose(t, 1000, "done")
	if err := <-ended; err != io.EOF {
		t.Fatalf("Read() after the client's close frame = %v, want io.EOF", err)
	}
	op, _, err = c.ReadFrame(10 * time.Second)
	if err != nil || op != wsstreamtest.OpClose {
		t.Fatalf("ReadFrame() = %x, %v, want the server's close frame", op, err)
	}
}

// TestStopParking: StopParking wakes a parked reader, and from then on
// Read waits for a message however long it takes.
func TestStopParking(t *testing.T) {
	url, parks, ended := parkingServer(t)
	c := wsstreamtest.Dial(t, url, nil)
	s := nextPark(t, parks, "the handshake")
	s.StopParking()
	time.Sleep(4 * parkAfter)
	select {
	case <-parks:
		t.Fatal("the server parked again after StopParking")
	default:
	}
	c.WriteText(t, []byte("late"))
	readFrame(t, c, wsstreamtest.OpText, "late")
	c.WriteClose(t, 1000, "done")
	if err := <-ended; err != io.EOF {
		t.Fatalf("Read() after the client's close frame = %v, want io.EOF", err)
	}
}

// TestParkAfterDialled: only an accepted Stream parks.
func TestParkAfterDialled(t *testing.T) {
	url := serve(t, func(r *http.Request, s *wsstream.Stream) {
		if s.ParkAfter(parkAfter) {
			t.Error("ParkAfter() on a Stream from New = true, want false")
		}
		s.Read(r.Context())
	})
	if s := dial(t, url, wsstream.DialOptions{}); s.ParkAfter(parkAfter) {
		t.Error("ParkAfter() on a dialled Stream = true, want false")
	}
}

// TestNoParkMidMessage: between the frames of a fragmented message the
// reader does not park, however long the client pauses (a ping between
// them included), and the message arrives whole.
func TestNoParkMidMessage(t *testing.T) {
	url, parks, ended := parkingServer(t)
	c := wsstreamtest.Dial(t, url, nil)
	nextPark(t, parks, "the handshake")
	c.WritePart(t, wsstreamtest.OpText, []byte("one "), false)
	time.Sleep(4 * parkAfter)
	c.WriteFrame(t, wsstreamtest.OpPing, []byte("p"))
	readFrame(t, c, wsstreamtest.OpPong, "p")
	time.Sleep(4 * parkAfter)
	c.WritePart(t, wsstreamtest.OpContinuation, []byte("two "), false)
	time.Sleep(4 * parkAfter)
	select {
	case <-parks:
		t.Fatal("the server parked in the middle of a message")
	default:
	}
	c.WritePart(t, wsstreamtest.OpContinuation, []byte("three"), true)
	readFrame(t, c, wsstreamtest.OpText, "one two three")
	nextPark(t, parks, "the whole message")
	c.WriteClose(t, 1000, "done")
	if err := <-ended; err != io.EOF {
		t.Fatalf("Read() after the client's close frame = %v, want io.EOF", err)
	}
}
