package jsonrpc

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// Releaser is a Stream that says when it is done with what it is given to
// write. WriteRelease sends payload as Write does, and calls release once
// it no longer refers to payload: before it returns if it wrote payload
// then, later if it queued it, and also when it drops it unwritten (a
// stream that stopped). It calls release at most once, and a payload it
// never releases is left to the garbage collector. A Conn answers over a
// Releaser from buffers it reuses when the answer is large (a session
// resumed with its events, an export): such a buffer is the largest
// allocation of the call, and allocating it afresh each time cost the
// garbage collector and the page faults of new memory. Such a buffer may
// hold a quarter more than the payload's length: a Releaser that bounds
// the bytes it holds counts the payload's capacity.
type Releaser interface {
	Stream
	WriteRelease(ctx context.Context, payload []byte, release func()) error
}

// Answers of minPooled to maxKept bytes are encoded into reused buffers,
// of which the process keeps maxKept bytes at most: what a burst of large
// answers (a flood of them to clients that do not read, say) leaves
// beyond it is garbage, not kept for the next burst.
const (
	minPooled = 32 << 10
	maxKept   = 8 << 20
)

// payloads are the buffers kept for reuse.
var payloads payloadPool

// payloadPool keeps buffers given back, oldest first. An answer is
// encoded into the smallest kept buffer that holds it with at most a
// quarter to spare, or else into a new one of its size (rounded up to
// 4 KiB): answers of one size (a session resumed again and again) reuse
// one buffer, and none holds much more memory than its answer needs.
type payloadPool struct {
	mu    sync.Mutex // guards free and bytes
	free  [][]byte
	bytes int // the capacity of every buffer kept
}

// get is an empty buffer that holds n bytes, kept or new.
func (p *payloadPool) get(n int) []byte {
	p.mu.Lock()
	best := -1
	for i, b := range p.free {
		if c := cap(b); c >= n && c <= n+n/4 && (best < 0 || c < cap(p.free[best])) {
			best = i
		}
	}
	if best < 0 {
		p.mu.Unlock()
		return make([]byte, 0, (n+4095)&^4095)
	}
	b := p.free[best]
	p.free = slices.Delete(p.free, best, best+1)
	p.bytes -= cap(b)
	p.mu.Unlock()
	return b[:0]
}

// put keeps b for reuse, letting go of the oldest kept buffers if the
// pool would keep more than maxKept bytes otherwise.
func (p *payloadPool) put(b []byte) {
	if cap(b) > maxKept {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	drop := 0
	for p.bytes+cap(b) > maxKept {
		p.bytes -= cap(p.free[drop])
		drop++
	}
	p.free = append(slices.Delete(p.free, 0, drop), b)
	p.bytes += cap(b)
}

// writeAnswers encodes the answers of a payload and writes them, into a
// reused buffer when they are large and the stream is a Releaser.
func (c *Conn) writeAnswers(resps []*Response, batch bool) {
	rel, ok := c.stream.(Releaser)
	size := answersSize(resps)
	if !ok || size < minPooled || size > maxKept {
		c.write(encodeResponses(make([]byte, 0, size), resps, batch))
		return
	}
	out := encodeResponses(payloads.get(size), resps, batch)
	if err := rel.WriteRelease(c.writeCtx, out, func() { payloads.put(out) }); err != nil {
		c.report(fmt.Errorf("jsonrpc: writing response: %w", err))
	}
}
