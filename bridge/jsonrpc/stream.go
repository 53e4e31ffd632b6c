package jsonrpc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
)

// Stream carries whole JSON-RPC payloads: each Read returns, and each Write
// sends, one message or one batch array.
//
// A Conn calls Read from one goroutine at a time, and Write from many
// goroutines at once. Close may be called concurrently with both and must
// make a blocked Read return.
type Stream interface {
	// Read returns the next payload, which is the Conn's from then on: the
	// Stream must not change or reuse its bytes (the Conn's messages keep
	// parts of it rather than copies). It returns io.EOF when the peer has
	// ended the stream cleanly. An error wrapping ErrMessageTooLarge means
	// that a payload was dropped and the stream can still be read; any other
	// error ends the stream.
	Read(ctx context.Context) ([]byte, error)
	// Write sends one payload.
	Write(ctx context.Context, payload []byte) error
	// Close closes the stream.
	Close() error
}

// ErrMessageTooLarge is returned, wrapped, by a Stream's Read for a payload
// it dropped because it was too large. The stream stays usable. A Conn
// answers it with CodeInvalidRequest and a null id, and keeps reading.
var ErrMessageTooLarge = errors.New("jsonrpc: message too large")

// ErrParked is returned by a Parker's Read when no payload has come for a
// while and the reader may end: it is not an end of the stream.
var ErrParked = errors.New("jsonrpc: the stream parked its reader")

// Parker is a Stream that lets its reader end while no payload comes, so
// that an idle connection holds no goroutine waiting to read. Its Read
// may return ErrParked; the Conn then calls Park and its reader ends, and
// wake, which Park calls once, on a goroutine of its own, when a payload
// may have come or the stream is closing, reads on. Close must wake a
// parked reader (that Read then ends the stream).
type Parker interface {
	Stream
	Park(wake func())
}

// Queuer is a Stream that takes a notification without waiting for it to
// be written: Queue puts payload behind everything written or queued
// before it and returns, and the stream writes it in its own time, with
// whatever queued behind it, in as few writes as it can. Notify uses it,
// so that a burst of notifications (the events of a batch) does not cost
// its sender a write each.
type Queuer interface {
	Stream
	Queue(payload []byte) error
}

// defaultMaxLineSize is the default for LineStreamOptions.MaxLineSize.
const defaultMaxLineSize = 4 << 20

// LineStreamOptions configures NewLineStream.
type LineStreamOptions struct {
	// MaxLineSize is the longest line Read accepts, in bytes, not counting
	// the newline; zero means 4 MiB. For a longer line Read returns an error
	// wrapping ErrMessageTooLarge, and the next Read skips the rest of that
	// line and returns the line after it.
	MaxLineSize int
}

// NewLineStream returns a Stream that carries newline-delimited JSON: it
// reads payloads from r, one per line (blank lines are skipped, and a last
// line without a newline counts), and writes each payload to w followed by a
// newline. Writes are serialized, one w.Write per payload; the payload must
// not contain a newline (compact JSON never does).
//
// Read and Write check their context only before starting: a blocked Read
// or Write is interrupted only by Close. Close closes w
// and then r, each if it is an io.Closer (once if they are the same value,
// such as a net.Conn). Closing must make a blocked read of r return, as it
// does for a net.Conn or an os.Pipe, for Conn.Close to return.
func NewLineStream(r io.Reader, w io.Writer, opts LineStreamOptions) Stream {
	maxLine := opts.MaxLineSize
	if maxLine <= 0 {
		maxLine = defaultMaxLineSize
	}
	return &lineStream{
		r:       r,
		w:       w,
		in:      bufio.NewReaderSize(r, min(maxLine+1, 64<<10)),
		maxLine: maxLine,
	}
}

// lineStream is the Stream returned by NewLineStream.
type lineStream struct {
	r       io.Reader
	w       io.Writer
	maxLine int

	readMu   sync.Mutex    // serializes Read; protects in and skipping
	in       *bufio.Reader // buffers r
	skipping bool          // the rest of an over-long line is still to be discarded

	writeMu sync.Mutex // serializes writes to w

	closeOnce sync.Once
	closeErr  error // set by closeOnce
}

func (s *lineStream) Read(ctx context.Context) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.readMu.Lock()
	defer s.readMu.Unlock()
	for {
		line, err := s.readLine()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
	}
}

// readLine returns the next line, without its newline.
func (s *lineStream) readLine() ([]byte, error) {
	for s.skipping {
		_, err := s.in.ReadSlice('\n')
		switch err {
		case nil:
			s.skipping = false
		case bufio.ErrBufferFull:
		default:
			s.skipping = false
			return nil, readError(err)
		}
	}
	var line []byte
	for {
		chunk, err := s.in.ReadSlice('\n')
		line = append(line, chunk...)
		n := len(line)
		if err == nil {
			n-- // the newline
		}
		if n > s.maxLine {
			s.skipping = err == bufio.ErrBufferFull
			return nil, fmt.Errorf("jsonrpc: line longer than %d bytes: %w", s.maxLine, ErrMessageTooLarge)
		}
		switch {
		case err == nil:
			return line[:n], nil
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && n > 0:
			return line, nil // the last line, without a newline; the next read reports EOF
		default:
			return nil, readError(err)
		}
	}
}

// readError returns io.EOF as is, for a clean end, and wraps other errors.
func readError(err error) error {
	if err == io.EOF {
		return err
	}
	return fmt.Errorf("jsonrpc: reading: %w", err)
}

func (s *lineStream) Write(ctx context.Context, payload []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if bytes.IndexByte(payload, '\n') >= 0 {
		return errors.New("jsonrpc: writing: payload contains a newline")
	}
	buf := make([]byte, 0, len(payload)+1)
	buf = append(append(buf, payload...), '\n')
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if _, err := s.w.Write(buf); err != nil {
		return fmt.Errorf("jsonrpc: writing: %w", err)
	}
	return nil
}

func (s *lineStream) Close() error {
	s.closeOnce.Do(func() {
		var errs []error
		if c, ok := s.w.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
		if c, ok := s.r.(io.Closer); ok && !same(s.r, s.w) {
			errs = append(errs, c.Close())
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// same reports whether a and b are the same value, without panicking on
// values that cannot be compared.
func same(a, b any) bool {
	t := reflect.TypeOf(a)
	return t == reflect.TypeOf(b) && t.Comparable() && a == b
}
