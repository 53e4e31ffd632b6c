package wsstream

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// chunkReader returns data in reads of the sizes given, cycled.
type chunkReader struct {
	data  []byte
	sizes []byte
	i     int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := len(p)
	if len(r.sizes) > 0 {
		n = min(n, int(r.sizes[r.i%len(r.sizes)])%300+1)
		r.i++
	}
	n = copy(p, r.data[:min(n, len(r.data))])
	r.data = r.data[n:]
	return n, nil
}

// frame is a masked client frame with the given opcode and payload.
func frame(opcode byte, payload []byte) []byte {
	key := []byte{1, 2, 3, 4}
	f := append(frameHead(opcode, len(payload), 0x80), key...)
	for i, b := range payload {
		f = append(f, b^key[i%4])
	}
	return f
}

// serverFrame is an unmasked server frame: FIN, the opcode and payload.
func serverFrame(opcode byte, payload []byte) []byte {
	return append(frameHead(opcode, len(payload), 0), payload...)
}

// frameHead is the header of a final frame of the opcode with a payload
// of n bytes, mask its masking bit (0x80, for a client's frame, or 0);
// the masking key is not in it.
func frameHead(opcode byte, n int, mask byte) []byte {
	f := []byte{0x80 | opcode}
	switch {
	case n < 126:
		return append(f, mask|byte(n))
	case n < 1<<16:
		return binary.BigEndian.AppendUint16(append(f, mask|126), uint16(n))
	default:
		return binary.BigEndian.AppendUint64(append(f, mask|127), uint64(n))
	}
}

// FuzzCloseGate feeds data frames and then a close frame through the gate
// in reads of arbitrary sizes, read by buffers of arbitrary sizes: the
// gate passes every data frame's bytes on unchanged, then holds the close
// frame (reporting its status), then passes the close frame on.
func FuzzCloseGate(f *testing.F) {
	f.Add([]byte{5, 200, 0, 1}, []byte{1, 7}, uint16(1000), uint16(4096))
	f.Add([]byte{0, 0, 0}, []byte{}, uint16(1001), uint16(1))
	f.Add([]byte{255, 255, 255, 255, 255}, []byte{13}, uint16(4000), uint16(7))
	f.Fuzz(func(t *testing.T, lengths, sizes []byte, code, readSize uint16) {
		var data []byte
		for i, l := range lengths {
			n := int(l) * (i%3*100 + 1) // up to about 50 KiB, so that every length encoding appears
			data = append(data, frame(0x1, bytes.Repeat([]byte{byte(i)}, n))...)
		}
		closing := frame(opClose, binary.BigEndian.AppendUint16(nil, code))
		g := &closeGate{src: &chunkReader{data: append(bytes.Clone(data), closing...), sizes: sizes}}
		buf := make([]byte, int(readSize)%5000+1)
		var got []byte
		for {
			n, err := g.Read(buf)
			got = append(got, buf[:n]...)
			if errors.Is(err, errCloseHeld) {
				break
			}
			if err != nil {
				t.Fatalf("read before the close frame: %v (after %d of %d bytes)", err, len(got), len(data))
			}
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("passed on %d bytes before the close frame, want the %d of the data frames", len(got), len(data))
		}
		if ce := g.closed.Load(); ce == nil || ce.Code != websocket.StatusCode(code) {
			t.Fatalf("held close frame %v, want status %d", ce, code)
		}
		rest, err := io.ReadAll(readerFunc(g.Read))
		if err != nil || !bytes.Equal(rest, closing) {
			t.Fatalf("after the held close frame: %x, %v; want the close frame %x", rest, err, closing)
		}
	})
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// countingReader counts the reads of its reader.
type countingReader struct {
	r     io.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	return c.r.Read(p)
}

// TestCloseGateReadsSmallMessageOnce: a message that fits gateSpace,
// header and all, comes through the gate in one read of its source, as a
// call of about 160 bytes does (not one read for the gate's header room
// and another for the rest).
func TestCloseGateReadsSmallMessageOnce(t *testing.T) {
	msg := frame(0x1, bytes.Repeat([]byte{'x'}, 160))
	src := &countingReader{r: bytes.NewReader(msg)}
	g := &closeGate{src: src}
	buf := make([]byte, 4096) // coder/websocket's read buffer
	var got []byte
	for len(got) < len(msg) {
		n, err := g.Read(buf)
		if err != nil {
			t.Fatalf("after %d of %d bytes: %v", len(got), len(msg), err)
		}
		got = append(got, buf[:n]...)
	}
	if !bytes.Equal(got, msg) {
		t.Fatalf("passed on %x, want %x", got, msg)
	}
	if src.reads != 1 {
		t.Errorf("the %d-byte message took %d reads of the connection, want 1", len(msg), src.reads)
	}
}

// recordingConn is a net.Conn that keeps what is written to it.
type recordingConn struct {
	net.Conn
	written bytes.Buffer
}

func (c *recordingConn) Write(p []byte) (int, error) { return c.written.Write(p) }

// SetWriteDeadline does nothing: the recorded writes never wait.
func (c *recordingConn) SetWriteDeadline(time.Time) error { return nil }

// TestFrameWriterHoldsFirstWrite: a frame larger than the buffered
// writer reaches the connection only whole, its first 4 KiB held until
// the rest comes (so that both go out in one writev); smaller frames go
// at once; the bytes are those written, in order.
func TestFrameWriterHoldsFirstWrite(t *testing.T) {
	conn := &recordingConn{}
	fw := &frameWriter{conn: conn}
	bw := bufio.NewWriterSize(fw, 4096)
	var want []byte
	for _, n := range []int{0, 125, 126, 4000, 4092, 4093, 4096, 6000, 8192, 9000, 70_000} {
		f := serverFrame(0x1, bytes.Repeat([]byte{byte(n)}, n))
		header := len(f) - n
		before := conn.written.Len()
		if _, err := bw.Write(f[:header]); err != nil {
			t.Fatal(err)
		}
		if _, err := bw.Write(f[header:]); err != nil {
			t.Fatal(err)
		}
		if got := conn.written.Len() - before; got != 0 && got != len(f) {
			t.Errorf("a %d-byte frame: %d bytes reached the connection before the flush, want none or all", len(f), got)
		}
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		want = append(want, f...)
		if !bytes.Equal(conn.written.Bytes(), want) {
			t.Fatalf("after a %d-byte frame the connection has %d bytes, not the %d written", len(f), conn.written.Len(), len(want))
		}
	}
	if fw.off || fw.held != nil {
		t.Errorf("after whole frames the writer is off %v, holds %v; want neither", fw.off, fw.held != nil)
	}
}

// FuzzFrameWriter writes whole frames of arbitrary sizes, each in
// arbitrary pieces and then flushed (as coder/websocket writes them),
// through a buffered writer of arbitrary size over a frameWriter: after
// each flush the connection has exactly the bytes written. Garbage after
// them (a cut frame, bytes no header describes) may be held back, but what
// reaches the connection is always a prefix of what was written.
func FuzzFrameWriter(f *testing.F) {
	f.Add([]byte{0, 200, 17, 255}, []byte{3, 200, 17}, uint16(4096), []byte{0x81, 126, 0x20, 0})
	f.Add([]byte{120, 3}, []byte{2, 255}, uint16(4096), []byte{})
	f.Add([]byte{9, 9, 9}, []byte{10}, uint16(64), []byte{0x81, 127, 0, 0, 0, 0, 0, 0, 0x40, 0})
	f.Fuzz(func(t *testing.T, lengths, pieces []byte, size uint16, garbage []byte) {
		conn := &recordingConn{}
		bw := bufio.NewWriterSize(&frameWriter{conn: conn}, int(size)%8192+16)
		write := func(b []byte, i int) {
			for len(b) > 0 {
				n := len(b)
				if len(pieces) > 0 {
					n = min(n, int(pieces[i%len(pieces)])*37+1)
				}
				if _, err := bw.Write(b[:n]); err != nil {
					t.Fatal(err)
				}
				b, i = b[n:], i+1
			}
		}
		lengths = lengths[:min(len(lengths), 32)] // up to 2.5 MB of frames: an input stays quick to run
		var want []byte
		for i, l := range lengths {
			fr := serverFrame(0x1+byte(i%2), bytes.Repeat([]byte{byte(i)}, int(l)*(i%3*150+1)))
			write(fr, i)
			if err := bw.Flush(); err != nil {
				t.Fatal(err)
			}
			// The bytes before fr were checked after the frame before it,
			// and the connection only ever appends: check fr's.
			want = append(want, fr...)
			if got := conn.written.Bytes(); len(got) != len(want) || !bytes.Equal(got[len(want)-len(fr):], fr) {
				t.Fatalf("after frame %d the connection has %d bytes, not the %d written", i, conn.written.Len(), len(want))
			}
		}
		write(garbage, 0)
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		if all := append(want, garbage...); !bytes.HasPrefix(all, conn.written.Bytes()) {
			t.Fatalf("the connection got %d bytes that are not a prefix of the %d written", conn.written.Len(), len(all))
		}
	})
}

// TestFrameWriterBatch: while a batch is open the frames written wait,
// and closing it writes them in one write, in order; a batch past
// batchBytes writes what it holds before it closes.
func TestFrameWriterBatch(t *testing.T) {
	conn := &countingConn{}
	fw := &frameWriter{conn: conn}
	bw := bufio.NewWriterSize(fw, 4096)
	write := func(f []byte) {
		if _, err := bw.Write(f); err != nil {
			t.Fatal(err)
		}
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	var want []byte
	fw.openBatch(time.Time{})
	for _, n := range []int{10, 200, 6000, 0, 30} {
		f := serverFrame(0x1, bytes.Repeat([]byte{byte(n)}, n))
		write(f)
		want = append(want, f...)
	}
	if conn.writes != 0 {
		t.Fatalf("%d writes while the batch was open, want none", conn.writes)
	}
	if err := fw.closeBatch(); err != nil {
		t.Fatal(err)
	}
	if conn.writes != 1 || !bytes.Equal(conn.written.Bytes(), want) {
		t.Fatalf("closing the batch made %d writes of %d bytes; want 1 of the %d written", conn.writes, conn.written.Len(), len(want))
	}

	fw.openBatch(time.Time{})
	big := serverFrame(0x1, bytes.Repeat([]byte{'b'}, batchBytes+1))
	write(big)
	want = append(want, big...)
	if !bytes.Equal(conn.written.Bytes(), want) {
		t.Fatalf("a frame past batchBytes: the connection has %d bytes, want the %d written at once", conn.written.Len(), len(want))
	}
	writes := conn.writes
	if err := fw.closeBatch(); err != nil || conn.writes != writes {
		t.Fatalf("closing an empty batch: %v, %d writes more; want nil and none", err, conn.writes-writes)
	}
}

// TestFrameWriterBatchDeadline: a batch's writes, the last of which comes
// after every message's Write returned, end at the deadline the batch
// opened with when the peer does not read; the failed write closes the
// connection (its closing handshake would wait for the peer), and closing
// the batch lifts the deadline.
func TestFrameWriterBatchDeadline(t *testing.T) {
	conn := &stalledConn{}
	fw := &frameWriter{conn: conn}
	bw := bufio.NewWriterSize(fw, 4096)
	fw.openBatch(time.Now().Add(10 * time.Millisecond))
	if _, err := bw.Write(serverFrame(0x1, []byte("held in the batch"))); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := fw.closeBatch(); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("closing the batch on a peer that does not read = %v, want the deadline exceeded", err)
	}
	if !conn.closed {
		t.Error("the connection is open after a batch's write failed, want it closed")
	}
	if !conn.deadline.IsZero() {
		t.Errorf("after the batch the write deadline is %v, want none", conn.deadline)
	}
}

// stalledConn is a net.Conn whose peer never reads: a write waits for the
// write deadline (a minute at most, so that a write with none fails the
// test instead of hanging it).
type stalledConn struct {
	net.Conn
	deadline time.Time
	closed   bool
}

func (c *stalledConn) Close() error {
	c.closed = true
	return nil
}

func (c *stalledConn) SetWriteDeadline(t time.Time) error {
	c.deadline = t
	return nil
}

func (c *stalledConn) Write([]byte) (int, error) {
	if c.deadline.IsZero() {
		time.Sleep(time.Minute)
		return 0, errors.New("a write with no deadline never ends")
	}
	time.Sleep(time.Until(c.deadline))
	return 0, os.ErrDeadlineExceeded
}

// countingConn is a recordingConn that counts its writes.
type countingConn struct {
	recordingConn
	writes int
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.writes++
	return c.recordingConn.Write(p)
}
