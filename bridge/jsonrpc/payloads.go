package jsonrpc

import (
	"context"
	"fmt"
	"math/bits"
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
// garbage collector and the page faults of new memory.
type Releaser interface {
	Stream
	WriteRelease(ctx context.Context, payload []byte, release func()) error
}

// Answers of at least minPooled and at most maxPooled bytes are encoded into
// reused buffers, of a size class per power of two.
const (
	minPooledBits = 15 // 32 KiB
	maxPooledBits = 23 // 8 MiB
)

// payloads are the reused buffers, by size class: payloads[k] holds
// buffers of capacity 1<<(minPooledBits+k).
var payloads [maxPooledBits - minPooledBits + 1]sync.Pool

// sizeClass is the class of buffers that hold n bytes, and whether there
// is one.
func sizeClass(n int) (int, bool) {
	if n > 1<<maxPooledBits {
		return 0, false
	}
	k := bits.Len(uint(max(n, 1<<minPooledBits) - 1)) // the capacity 1<<k holds n
	return k - minPooledBits, true
}

// getPayload is an empty buffer that holds n bytes, from its size class.
func getPayload(n int) []byte {
	k, _ := sizeClass(n)
	if b, ok := payloads[k].Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return make([]byte, 0, 1<<(minPooledBits+k))
}

// putPayload gives b back to its size class, if its capacity is one.
func putPayload(b []byte) {
	k, ok := sizeClass(cap(b))
	if !ok || cap(b) != 1<<(minPooledBits+k) {
		return // grown past its class by an estimate that fell short
	}
	payloads[k].Put(&b)
}

// writeAnswers encodes the answers of a payload and writes them, into a
// reused buffer when they are large and the stream is a Releaser.
func (c *Conn) writeAnswers(resps []*Response, batch bool) {
	rel, ok := c.stream.(Releaser)
	size := answersSize(resps)
	if !ok || size < 1<<minPooledBits || size > 1<<maxPooledBits {
		c.write(encodeResponses(nil, resps, batch))
		return
	}
	out := encodeResponses(getPayload(size), resps, batch)
	if err := rel.WriteRelease(c.writeCtx, out, func() { putPayload(out) }); err != nil {
		c.report(fmt.Errorf("jsonrpc: writing response: %w", err))
	}
}
