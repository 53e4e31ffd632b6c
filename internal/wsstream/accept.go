package wsstream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
)

// Accept accepts a WebSocket handshake as [websocket.Accept] does and
// returns a Stream over it that lets the client end its input first: when
// the client's close frame arrives (it has sent its last message and waits
// for the answers, as RFC 6455 §5.5.1 allows), Read returns io.EOF for
// status 1000, 1001 or none, and the close frame is held back from
// coder/websocket, which would answer it at once and end the connection.
// Writes still go out; Close then completes the closing handshake with the
// held frame. Any other closing status is Read's error, a
// [websocket.CloseError], as for a dialled Stream.
func Accept(w http.ResponseWriter, r *http.Request, opts *websocket.AcceptOptions) (*Stream, error) {
	g := &closeGate{}
	gw := &gatedWriter{ResponseWriter: w, gate: g}
	c, err := websocket.Accept(gw, r, opts)
	if err != nil {
		return nil, err
	}
	return &Stream{c: c, gate: g, frames: gw.frames}, nil
}

// Ping pings the peer and waits for the pong, as [websocket.Conn.Ping]
// does, except once an accepted Stream has read the client's close frame:
// then it returns nil at once, since the pong would queue behind the held
// frame, and the closing handshake shows whether the client is there.
func (s *Stream) Ping(ctx context.Context) error {
	if s.gate != nil && s.gate.closed.Load() != nil {
		return nil
	}
	return s.c.Ping(ctx)
}

// errCloseHeld is the gate's read error at a held close frame.
var errCloseHeld = errors.New("wsstream: the client's close frame is held")

// gatedWriter lends coder/websocket a hijacked connection whose reads go
// through the gate.
type gatedWriter struct {
	http.ResponseWriter
	gate   *closeGate
	frames *frameWriter // what the connection's writes go through, once hijacked
}

// Hijack hijacks the underlying connection and puts the gate in front of
// its reads, bytes the server had already buffered included.
func (w *gatedWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	var early []byte
	if n := brw.Reader.Buffered(); n > 0 {
		b, _ := brw.Reader.Peek(n)
		early = bytes.Clone(b)
	}
	w.gate.src = io.MultiReader(bytes.NewReader(early), nc)
	w.gate.early = len(early)
	w.gate.conn = nc
	gc := &gatedConn{Conn: nc, gate: w.gate}
	// The writer net/http made for the hijacked connection (empty) writes
	// through a frameWriter, so that its frames go out whole; Reset keeps
	// its buffer.
	w.frames = &frameWriter{conn: nc}
	brw.Writer.Reset(w.frames)
	return gc, bufio.NewReadWriter(bufio.NewReader(gc), brw.Writer), nil
}

// frameWriter writes the frames coder/websocket writes through its
// buffered writer so that a frame larger than the buffer goes out in one
// write: coder/websocket buffers the header, and the buffered writer then
// flushes the buffer filled with the first bytes of the payload and
// writes the rest apart, two writes (and two reads and wake-ups for the
// client) where one does. frameWriter holds such a first write, copied
// into a pooled buffer, and writes it with the rest in one writev. It
// reads each frame's length from its header, so it needs no word from
// the writer; anything it does not expect (a rest in more writes than
// one, a header it cannot read, two frames in one write) makes it pass
// every later write straight on. It relies on what coder/websocket does:
// it writes each frame whole and flushes it, so the rest of a held write
// always comes in the next write (a frame cut short would keep its held
// start back). coder/websocket's writes take turns; a batch (see
// Stream.WriteBatch) opens and closes between them.
type frameWriter struct {
	mu   sync.Mutex // guards everything below: a batch opens and closes outside coder/websocket's write lock
	conn net.Conn
	held *[]byte // the first write of a frame, while held
	rest int64   // bytes of the held frame still to come
	off  bool    // something unexpected came: write everything as it comes
	// batch, while a batch is open, has what was written since it opened
	// and not yet written to conn: the frames of several messages, which
	// go out together.
	batch *[]byte
}

// heldWrites are frameWriter's buffers for a held write, which is at most
// a buffered writer's size (4 KiB for a hijacked connection), and for a
// batch.
var heldWrites = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// batchBytes is how much a batch holds before it writes what it has.
const batchBytes = 64 << 10

func (w *frameWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.batch != nil:
		return w.writeBatched(p)
	case w.off || len(p) == 0:
		return w.conn.Write(p)
	case w.held != nil:
		return w.writeHeld(p)
	}
	size, payload, _, ok := frameHeader(p)
	if !ok || size+payload < int64(len(p)) {
		w.off = true
		return w.conn.Write(p)
	}
	if w.rest = size + payload - int64(len(p)); w.rest == 0 {
		return w.conn.Write(p)
	}
	w.held = heldWrites.Get().(*[]byte)
	*w.held = append((*w.held)[:0], p...)
	return len(p), nil
}

// writeBatched adds p to the open batch, and writes the batch once it
// holds batchBytes: p with it in one writev, else a copy of p (the
// buffered writer reuses its buffer) waits in the batch.
func (w *frameWriter) writeBatched(p []byte) (int, error) {
	if len(*w.batch)+len(p) < batchBytes {
		*w.batch = append(*w.batch, p...)
		return len(p), nil
	}
	bufs := net.Buffers{*w.batch, p}
	_, err := bufs.WriteTo(w.conn)
	*w.batch = (*w.batch)[:0]
	if err != nil {
		return 0, w.fail(err)
	}
	return len(p), nil
}

// fail closes the connection after a batch's write failed, and returns
// err. Such a write may have stopped in the middle of a frame, so nothing
// more can go on the connection; and a deadline's error, unlike
// coder/websocket's own write timeout, leaves the connection open, where
// its closing handshake would wait for the peer that does not read.
func (w *frameWriter) fail(err error) error {
	w.conn.Close()
	return err
}

// openBatch makes the writes that follow wait for closeBatch, and bounds
// every write of the connection until then by deadline (if not zero),
// which is what bounds a batch's writes (see Stream.WriteBatch). It
// reports whether it opened one: it opens none while a frame's first
// write is held, which only a frame cut short leaves behind.
func (w *frameWriter) openBatch(deadline time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.held != nil || w.batch != nil {
		return false
	}
	w.batch = heldWrites.Get().(*[]byte)
	*w.batch = (*w.batch)[:0]
	w.conn.SetWriteDeadline(deadline)
	return true
}

// closeBatch writes what the batch holds, in one write, and lifts the
// batch's deadline.
func (w *frameWriter) closeBatch() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.batch
	if b == nil {
		return nil
	}
	w.batch = nil
	defer putHeld(b)
	defer w.conn.SetWriteDeadline(time.Time{})
	if len(*b) == 0 {
		return nil
	}
	if _, err := w.conn.Write(*b); err != nil {
		return w.fail(err)
	}
	return nil
}

// putHeld returns a buffer to heldWrites, unless a batch grew it past
// what is worth keeping.
func putHeld(b *[]byte) {
	if cap(*b) <= 2*batchBytes {
		heldWrites.Put(b)
	}
}

// writeHeld writes the held first write of a frame and p, its rest.
func (w *frameWriter) writeHeld(p []byte) (int, error) {
	held := w.held
	w.held = nil
	defer putHeld(held)
	if w.rest -= int64(len(p)); w.rest != 0 {
		w.off = true
	}
	bufs := net.Buffers{*held, p}
	if _, err := bufs.WriteTo(w.conn); err != nil {
		return 0, err
	}
	return len(p), nil
}

// gatedConn is a net.Conn whose reads come through a closeGate.
type gatedConn struct {
	net.Conn
	gate *closeGate
}

func (c *gatedConn) Read(p []byte) (int, error) { return c.gate.Read(p) }

// closeGate passes a client's WebSocket frames through, reading their
// headers, until the next frame is a close frame: then one Read returns
// errCloseHeld instead of it, and later reads pass it on (the closing
// handshake reads it). With an idle time set, a Read that waits that long
// for a next message returns [jsonrpc.ErrParked], as nothing of it has
// been read. Only coder/websocket's reading goroutine, one at a time,
// calls Read; closed and idle may be used from any goroutine.
type closeGate struct {
	src   io.Reader
	early int      // bytes still to come from the start of src, which the server had buffered
	conn  net.Conn // the connection src reads, whose read deadline bounds an idle wait
	// idle, when not zero, is how long a Read between messages waits for
	// the next frame's first byte before it returns jsonrpc.ErrParked.
	idle atomic.Int64
	// midMessage is set between the frames of a fragmented message, where
	// a Read never parks (coder/websocket ends a message cut short).
	midMessage bool
	// buf is what was read from src and not yet passed on, in space; it
	// starts at a frame header when pass is 0. A header is read into it
	// with what follows it in the same read, up to the size of space: a
	// small message (most calls) in one read; the rest of a larger frame
	// goes from src straight to the reader's buffer.
	buf   []byte
	space [gateSpace]byte
	pass  int64 // bytes of the current frame still to pass on before the next header
	err   error // src's read error, returned once buf is empty
	open  bool  // the held close frame was reported: pass everything on
	// closed is the client's close frame, once it has been held.
	closed atomic.Pointer[websocket.CloseError]
}

func (g *closeGate) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if g.open || g.pass > 0 {
			limit := int64(len(p))
			if !g.open {
				limit = min(limit, g.pass)
			}
			n, err := g.take(p[:limit])
			if !g.open {
				g.pass -= int64(n)
			}
			return n, err
		}
		size, payload, opcode, ok := frameHeader(g.buf)
		switch {
		case !ok && g.err == nil:
			if !g.fill() {
				return 0, jsonrpc.ErrParked
			}
			continue
		case !ok:
			g.open = true // a broken or cut-off frame: coder/websocket reports it
			continue
		case opcode != opClose:
			g.pass = size + payload
			if opcode&opControl == 0 {
				g.midMessage = g.buf[0]&finBit == 0
			}
			continue
		case payload > maxControl:
			g.open = true // no close frame is this long: coder/websocket reports it
			continue
		case int64(len(g.buf)) < size+payload && g.err == nil:
			g.fill()
			continue
		case int64(len(g.buf)) < size+payload:
			g.open = true
			continue
		}
		ce := closePayload(g.buf[:size], g.buf[size:size+payload])
		g.closed.Store(&ce)
		g.open = true
		return 0, errCloseHeld
	}
}

// take passes on bytes: those buffered first, then from src.
func (g *closeGate) take(p []byte) (int, error) {
	if len(g.buf) > 0 {
		n := copy(p, g.buf)
		g.buf = g.buf[n:]
		return n, nil
	}
	if g.err != nil {
		return 0, g.err
	}
	return g.read(p)
}

// read reads src, counting down the bytes from the server's buffer.
func (g *closeGate) read(p []byte) (int, error) {
	n, err := g.src.Read(p)
	g.early = max(g.early-n, 0)
	return n, err
}

// fill reads more of src into buf (moved to the front of space first).
// buf never needs more than space: fill is called only while buf holds
// less than a whole header, or a close frame, which is at most
// maxHeader + maxControl bytes.
// Between messages, with an idle time set, it waits that long at most,
// and reports false if nothing came (the connection is as it was).
func (g *closeGate) fill() bool {
	idle := time.Duration(g.idle.Load())
	wait := idle > 0 && len(g.buf) == 0 && g.early == 0 && !g.midMessage
	if wait {
		g.conn.SetReadDeadline(time.Now().Add(idle))
	}
	g.buf = g.space[:copy(g.space[:], g.buf)]
	n, err := g.read(g.space[len(g.buf):])
	g.buf = g.space[:len(g.buf)+n]
	if wait {
		g.conn.SetReadDeadline(time.Time{})
		if n == 0 && errors.Is(err, os.ErrDeadlineExceeded) {
			return false
		}
	}
	if err != nil {
		g.err = err
	}
	return true
}

// The largest frame header (RFC 6455 §5.2: 2 bytes, 8 of extended length,
// 4 of masking key) and the largest payload of a control frame (§5.5).
const (
	maxHeader  = 14
	maxControl = 125
)

// gateSpace is how much a gate reads at a frame header: room for the
// header and a close frame's payload, and for the whole of a small
// message, so that one read takes it rather than a read for its first
// maxHeader + maxControl bytes and another for the rest (a tools.call
// entity_get is about 160 bytes). Every accepted connection has it.
const gateSpace = 512

// opClose is the opcode of a close frame (RFC 6455 §5.5.1), opControl the
// bit every control frame's opcode has (§5.5), and finBit the bit of a
// frame's first byte that marks a message's last frame (§5.2).
const (
	opClose   = 0x8
	opControl = 0x8
	finBit    = 0x80
)

// frameHeader parses the WebSocket frame header at the start of b: its
// size in bytes, the payload's length and the opcode; ok is false while b
// holds less than the whole header, or a length no frame can have.
func frameHeader(b []byte) (size, payload int64, opcode byte, ok bool) {
	if len(b) < 2 {
		return 0, 0, 0, false
	}
	opcode = b[0] & 0x0f
	size, payload = 2, int64(b[1]&0x7f)
	switch payload {
	case 126:
		size += 2
	case 127:
		size += 8
	}
	if b[1]&0x80 != 0 {
		size += 4 // the masking key
	}
	if int64(len(b)) < size {
		return 0, 0, 0, false
	}
	switch payload {
	case 126:
		payload = int64(binary.BigEndian.Uint16(b[2:4]))
	case 127:
		u := binary.BigEndian.Uint64(b[2:10])
		if u > 1<<62 {
			return 0, 0, 0, false
		}
		payload = int64(u)
	}
	return size, payload, opcode, true
}

// closePayload decodes a close frame's status and reason, unmasking them
// with the key at the end of header when it has one.
func closePayload(header, payload []byte) websocket.CloseError {
	p := bytes.Clone(payload)
	if header[1]&0x80 != 0 {
		key := header[len(header)-4:]
		for i := range p {
			p[i] ^= key[i%4]
		}
	}
	if len(p) < 2 {
		return websocket.CloseError{Code: websocket.StatusNoStatusRcvd}
	}
	return websocket.CloseError{Code: websocket.StatusCode(binary.BigEndian.Uint16(p)), Reason: string(p[2:])}
}
