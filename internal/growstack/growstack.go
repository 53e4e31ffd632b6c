// Package growstack gives a new goroutine, while its stack is still
// shallow, the stack that a deep call path needs.
//
// A goroutine starts with a small stack, which the runtime doubles each
// time a call does not fit: it copies the stack and adjusts every frame on
// it, looking up each frame's pointer map. Deep in a call path (a reader
// parsing a message, a worker running a call through the gateway or the
// engine) there are many frames to adjust, and a goroutine that serves
// one call meets three or four such copies on its way down. Grow, called
// first thing, has the runtime grow the stack to 32 KiB in one copy of
// the frames of Grow's caller alone.
package growstack

// Grow grows the calling goroutine's stack to at least 32 KiB. It costs
// the zeroing of its 16 KiB frame (a few hundred nanoseconds), and one
// copy of the caller's stack the first time. The stack stays that large
// until the garbage collector, finding it mostly unused, halves it, so
// Grow is for goroutines that go that deep anyway and end when idle (a
// worker that lingers, then ends), not for ones that wait idle as long as
// their session does (a server's stream receiver): those would hold the
// 32 KiB for every idle session.
//
//go:noinline
func Grow() {
	var frame [16 << 10]byte
	keep(frame[:])
}

// keep uses Grow's frame, so that the compiler keeps it.
//
//go:noinline
func keep([]byte) {}
