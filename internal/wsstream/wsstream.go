// Package wsstream carries JSON-RPC over a WebSocket: a [jsonrpc.Stream] on
// a coder/websocket connection, one payload per text message. The gateway
// serves it, and cadctl, the benchmarks and the tests dial it.
package wsstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
)

// Stream is a [jsonrpc.Stream] over a WebSocket. As coder/websocket allows,
// Read may be called from one goroutine at a time and Write from many at
// once; Close may be called concurrently with both and ends a blocked Read.
type Stream struct {
	c      *websocket.Conn
	gate   *closeGate   // holds the client's close frame back; nil for a dialled or New Stream
	frames *frameWriter // what an accepted Stream's writes go through; nil for a dialled or New Stream
	park   parker       // parks the reader of an idle accepted Stream (see ParkAfter)
	watch  readWatch    // ends a Read when its context ends
}

var _ jsonrpc.Stream = (*Stream)(nil)

// New returns a Stream over c. The caller sets c's read limit, if it wants
// another than coder/websocket's default of 32 KiB.
func New(c *websocket.Conn) *Stream { return &Stream{c: c} }

// DialOptions configure Dial.
type DialOptions struct {
	// Token, when not empty, is sent as a bearer credential
	// (Authorization: Bearer Token).
	Token string
	// Header holds more headers for the opening handshake (Origin…); nil
	// means none. Dial does not change it.
	Header http.Header
	// ReadLimit is the largest message Read accepts, in bytes; zero means
	// coder/websocket's default of 32 KiB. A longer message fails Read and
	// closes the WebSocket with status 1009 (message too big).
	ReadLimit int64
}

// Dial opens a WebSocket to url (ws://host:port/rpc) and returns a Stream
// over it. The response is the server's answer to the handshake, when there
// was one, also on failure (a 401 for a refused token); the error is
// coder/websocket's, as it is.
func Dial(ctx context.Context, url string, opts DialOptions) (*Stream, *http.Response, error) {
	header := opts.Header.Clone()
	if opts.Token != "" {
		if header == nil {
			header = http.Header{}
		}
		header.Set("Authorization", "Bearer "+opts.Token)
	}
	c, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: header})
	if err != nil {
		return nil, resp, err
	}
	if opts.ReadLimit != 0 {
		c.SetReadLimit(opts.ReadLimit)
	}
	return New(c), resp, nil
}

// errBinary is Read's error for a binary message.
var errBinary = errors.New("wsstream: a binary WebSocket message is not JSON-RPC")

// Read returns the next text message. It returns io.EOF when the peer
// closed the WebSocket with status 1000 (normal closure) or 1001 (going
// away), and coder/websocket's error, as it is, for any other end, so that
// [websocket.CloseStatus] tells its status; a connection that ends without
// a close frame is io.ErrUnexpectedEOF, not io.EOF. On a Stream from Accept the
// client's close frame (1000, 1001 or no status) is io.EOF before it is
// answered, so that writes still reach the client (see Accept). A binary
// message ends the stream with an error. Cancelling ctx closes the
// WebSocket at once, without a closing handshake.
func (s *Stream) Read(ctx context.Context) ([]byte, error) {
	typ, data, err := s.read(ctx)
	if err != nil {
		if errors.Is(err, jsonrpc.ErrParked) {
			return nil, jsonrpc.ErrParked // unwrapped from coder/websocket's error
		}
		if errors.Is(err, errCloseHeld) {
			ce := s.gate.closed.Load()
			switch ce.Code {
			case websocket.StatusNormalClosure, websocket.StatusGoingAway, websocket.StatusNoStatusRcvd:
				return nil, io.EOF
			}
			return nil, fmt.Errorf("wsstream: the client closed the WebSocket: %w", *ce)
		}
		if st := websocket.CloseStatus(err); st == websocket.StatusNormalClosure || st == websocket.StatusGoingAway {
			return nil, io.EOF
		}
		if errors.Is(err, io.EOF) {
			// The connection ended without a close frame: a broken one,
			// not a clean end of input.
			return nil, fmt.Errorf("wsstream: the connection ended without a close frame: %w", io.ErrUnexpectedEOF)
		}
		return nil, err
	}
	if typ != websocket.MessageText {
		return nil, errBinary
	}
	return data, nil
}

// read reads the next message as [websocket.Conn.Read] does, but into a
// pooled scratch buffer in few large reads, copied out once at its size: a
// 100 KiB message costs one allocation of its size and a few reads, not
// io.ReadAll's growing chunks (twice its size) and a read per chunk. A
// connection waiting for a message holds no scratch buffer.
func (s *Stream) read(ctx context.Context) (_ websocket.MessageType, _ []byte, err error) {
	if err := s.watch.start(ctx, func() { s.c.CloseNow() }); err != nil {
		return 0, nil, err
	}
	defer func() { err = s.watch.done(ctx, err) }()
	typ, r, err := s.c.Reader(context.Background()) // ctx is watched
	if err != nil {
		return 0, nil, err
	}
	buf := scratches.Get().(*bytes.Buffer)
	defer putScratch(buf)
	if _, err := buf.ReadFrom(r); err != nil {
		return 0, nil, err
	}
	return typ, bytes.Clone(buf.Bytes()), nil
}

// scratches are read's scratch buffers.
var scratches = sync.Pool{New: func() any { return bytes.NewBuffer(make([]byte, 0, 32<<10)) }}

// putScratch empties a scratch buffer and returns it to scratches, unless
// it grew past what is worth keeping.
func putScratch(b *bytes.Buffer) {
	if b.Cap() <= 1<<20 {
		b.Reset()
		scratches.Put(b)
	}
}

// Write sends payload as one text message.
func (s *Stream) Write(ctx context.Context, payload []byte) error {
	return s.c.Write(ctx, websocket.MessageText, payload)
}

// WriteBatch sends each payload as one text message, in order, and fails
// if they have not all gone by deadline (none if zero); the first error
// ends the batch. On an accepted Stream the messages go out together, a
// write of the connection per 64 KiB (a large message's payload in one
// writev with what waits before it), where Write would make a write each,
// and the connection's write deadline bounds them, not a context:
// coder/websocket arms a context's cancellation for every message it
// writes (a context.AfterFunc, three allocations and a registration with
// the parent), where a deadline is a timer. A write the deadline cuts
// short closes the connection (it may have stopped in a frame).
func (s *Stream) WriteBatch(deadline time.Time, payloads [][]byte) error {
	if s.frames == nil || !s.frames.openBatch(deadline) {
		ctx := context.Background()
		if !deadline.IsZero() {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, deadline)
			defer cancel()
		}
		for _, p := range payloads {
			if err := s.Write(ctx, p); err != nil {
				return err
			}
		}
		return nil
	}
	for _, p := range payloads {
		// The frames go to the batch, and the writes the batch makes of
		// them are bounded by the deadline: nothing here waits for the
		// peer.
		if err := s.Write(context.Background(), p); err != nil {
			s.frames.closeBatch()
			return err
		}
	}
	return s.frames.closeBatch()
}

// Close closes the WebSocket with status 1000 (normal closure). After an
// accepted Stream's Read returned io.EOF, the closing handshake completes
// with the client's held close frame.
func (s *Stream) Close() error {
	defer s.watch.release()
	return s.c.Close(websocket.StatusNormalClosure, "")
}

// Conn returns the WebSocket, for what a Stream does not do: pings, other
// closing statuses, or reading a closing status that Read reports as
// io.EOF.
func (s *Stream) Conn() *websocket.Conn { return s.c }
