// Package wsstreamtest is a WebSocket client for tests that speaks the
// frames of RFC 6455 itself, so that a test can do what coder/websocket's
// client does not: send a close frame and then go on reading the messages
// the server still sends before it answers the close.
package wsstreamtest

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// Opcodes of the frames a Raw client sees.
const (
	OpContinuation = 0x0
	OpText         = 0x1
	OpClose        = 0x8
	OpPing         = 0x9
	OpPong         = 0xa
)

// Raw is a WebSocket client connection without a library in between.
type Raw struct {
	conn net.Conn
	r    *bufio.Reader
}

// Dial opens a WebSocket to rawURL (ws://host:port/path) with the headers
// given (nil for none); the connection is closed when the test ends.
func Dial(t testing.TB, rawURL string, header http.Header) *Raw {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	key := make([]byte, 16)
	rand.Read(key)
	req := &http.Request{Method: http.MethodGet, URL: u, Host: u.Host, Header: http.Header{}}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", base64.StdEncoding.EncodeToString(key))
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("WebSocket handshake with %s = %s, want 101", rawURL, resp.Status)
	}
	conn.SetDeadline(time.Time{})
	return &Raw{conn: conn, r: r}
}

// WriteText sends payload as one masked text frame.
func (c *Raw) WriteText(t testing.TB, payload []byte) {
	t.Helper()
	c.write(t, OpText, payload)
}

// WriteClose sends a close frame with status code and reason.
func (c *Raw) WriteClose(t testing.TB, code uint16, reason string) {
	t.Helper()
	p := binary.BigEndian.AppendUint16(nil, code)
	c.write(t, OpClose, append(p, reason...))
}

// WriteFrame sends one masked frame with opcode (a ping, a pong…).
func (c *Raw) WriteFrame(t testing.TB, opcode byte, payload []byte) {
	t.Helper()
	c.write(t, opcode, payload)
}

// WritePart sends one masked frame of a fragmented message: opcode is
// OpText for the first, OpContinuation for the others, and last marks
// the last.
func (c *Raw) WritePart(t testing.TB, opcode byte, payload []byte, last bool) {
	t.Helper()
	first := opcode
	if last {
		first |= fin
	}
	c.writeFrame(t, first, payload)
}

// fin is the bit of a frame's first byte that marks a message's last frame.
const fin = 0x80

// write sends a whole message or control frame.
func (c *Raw) write(t testing.TB, opcode byte, payload []byte) {
	t.Helper()
	c.writeFrame(t, fin|opcode, payload)
}

// writeFrame sends one masked frame whose first byte (FIN and opcode) is
// first.
func (c *Raw) writeFrame(t testing.TB, first byte, payload []byte) {
	t.Helper()
	frame := []byte{first}
	switch n := len(payload); {
	case n < 126:
		frame = append(frame, 0x80|byte(n))
	case n < 1<<16:
		frame = binary.BigEndian.AppendUint16(append(frame, 0x80|126), uint16(n))
	default:
		frame = binary.BigEndian.AppendUint64(append(frame, 0x80|127), uint64(n))
	}
	var key [4]byte
	rand.Read(key[:])
	frame = append(frame, key[:]...)
	for i, b := range payload {
		frame = append(frame, b^key[i%4])
	}
	c.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.conn.Write(frame); err != nil {
		t.Fatalf("write frame: %v", err)
	}
}

// ReadFrame reads the next frame the server sends (servers do not mask),
// waiting at most timeout.
func (c *Raw) ReadFrame(timeout time.Duration) (opcode byte, payload []byte, err error) {
	c.conn.SetReadDeadline(time.Now().Add(timeout))
	var h [2]byte
	if _, err := io.ReadFull(c.r, h[:]); err != nil {
		return 0, nil, err
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		if _, err := io.ReadFull(c.r, b[:]); err != nil {
			return 0, nil, err
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err := io.ReadFull(c.r, b[:]); err != nil {
			return 0, nil, err
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	if h[1]&0x80 != 0 || n > 64<<20 {
		return 0, nil, fmt.Errorf("frame header %x: masked or too long", h)
	}
	payload = make([]byte, n)
	if _, err := io.ReadFull(c.r, payload); err != nil {
		return 0, nil, err
	}
	return h[0] & 0x0f, payload, nil
}

// Close closes the TCP connection.
func (c *Raw) Close() error { return c.conn.Close() }
