package jsonrpc

import (
	"testing"
	"unsafe"
)

// TestPayloadPool: a buffer given back holds the next answer it fits with
// at most a quarter to spare, the smallest such; a new buffer is the
// answer's size rounded up to 4 KiB; the pool lets go of its oldest
// buffers past maxKept bytes.
func TestPayloadPool(t *testing.T) {
	var p payloadPool
	if got := cap(p.get(100_000)); got != 102_400 {
		t.Errorf("a new buffer for 100000 bytes has capacity %d, want 102400", got)
	}
	big, small := p.get(120_000), p.get(100_000)
	p.put(big)
	p.put(small)
	if got := p.get(99_000); unsafe.SliceData(got) != unsafe.SliceData(small) {
		t.Errorf("an answer of 99000 bytes got a buffer of %d, want the smallest that fits (%d)", cap(got), cap(small))
	}
	if got := p.get(90_000); unsafe.SliceData(got) == unsafe.SliceData(big) {
		t.Errorf("an answer of 90000 bytes got the buffer of %d, more than a quarter to spare", cap(big))
	}
	if got := p.get(123_000); unsafe.SliceData(got) == unsafe.SliceData(big) { // big holds 122880
		t.Error("an answer got a buffer too small for it")
	}
	if got := p.get(120_000); unsafe.SliceData(got) != unsafe.SliceData(big) {
		t.Error("a buffer given back was not reused")
	}

	first := p.get(1 << 20)
	p.put(first)
	for range maxKept/(1<<20) + 2 {
		p.put(make([]byte, 0, 1<<20))
	}
	if p.bytes != maxKept || len(p.free) != maxKept>>20 {
		t.Errorf("the pool keeps %d bytes in %d buffers of 1 MiB, want %d in %d", p.bytes, len(p.free), maxKept, maxKept>>20)
	}
	for _, b := range p.free {
		if unsafe.SliceData(b) == unsafe.SliceData(first) {
			t.Error("the pool kept its oldest buffer past maxKept and let newer ones go")
		}
	}
}
