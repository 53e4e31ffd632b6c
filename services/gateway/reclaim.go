package gateway

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// The Go runtime keeps the memory a burst of work leaves behind: what a
// dropped connection held is garbage, but an idle process allocates too
// little for the collector to run, and only after a collection does the
// background scavenger give pages back, slowly. So the gateway gives memory
// back itself once connections have ended and the process retains much
// more than it did after its last give-back.
//
// What the budgets count cannot tell when to: under load most of what a
// flood of calls holds is outside them (the stacks, params and answers of
// calls being served, their contexts and timers, gRPC buffers), while the
// kernel's socket buffers take the answers off the queues they count.
// Only the runtime's own figures do.

// reclaimThreshold is how much more than its floor the process must
// retain for the gateway to give memory back.
const reclaimThreshold = 32 << 20

// reclaimDelay is how long the gateway waits after a connection ended
// before it looks at what the process retains, so that connections
// dropped together are given back together. reclaimEvery is the least
// time between two give-backs; after one that found less than
// reclaimThreshold to give back (the memory was in use) the least time
// doubles, up to reclaimEveryMax, and falls back to reclaimEvery after
// one that gave back more.
const (
	reclaimDelay    = 100 * time.Millisecond
	reclaimEvery    = time.Second
	reclaimEveryMax = 4 * time.Second
)

// reclaimer gives memory back to the operating system after connections
// end, when the process retains reclaimThreshold more than its floor: the
// least it retained after a give-back (at first, when the gateway
// started).
type reclaimer struct {
	retained func() int64 // bytes the process holds from the operating system
	free     func()       // gives what is not in use back

	mu      sync.Mutex    // guards the fields below
	timer   *time.Timer   // the look scheduled; nil when none is
	looking bool          // a look is running
	again   bool          // a connection ended while it ran: look again after it
	last    time.Time     // when memory was last given back
	every   time.Duration // the least time from last to the next give-back
	floor   int64
	closed  bool
}

// newReclaimer returns a reclaimer of the process's memory.
func newReclaimer() *reclaimer {
	return newReclaimerOf(retainedBytes, debug.FreeOSMemory)
}

func newReclaimerOf(retained func() int64, free func()) *reclaimer {
	return &reclaimer{retained: retained, free: free, every: reclaimEvery, floor: retained()}
}

// connEnded tells the reclaimer that a connection has ended and all it
// held is garbage: it looks at what the process retains reclaimDelay
// later (or reclaimEvery after the last give-back, whichever is later),
// unless a look is already scheduled.
func (r *reclaimer) connEnded() {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.closed || r.timer != nil:
	case r.looking:
		r.again = true
	default:
		r.scheduleLocked()
	}
}

// scheduleLocked schedules a look; r.mu is held.
func (r *reclaimer) scheduleLocked() {
	wait := max(reclaimDelay, time.Until(r.last.Add(r.every)))
	r.timer = time.AfterFunc(wait, r.look)
}

// look gives memory back if the process retains reclaimThreshold more than
// its floor.
func (r *reclaimer) look() {
	r.mu.Lock()
	r.timer = nil
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.looking = true
	floor := r.floor
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.looking = false
		if r.again && !r.closed {
			r.again = false
			r.scheduleLocked()
		}
	}()
	before := r.retained()
	if before-floor < reclaimThreshold {
		return
	}
	r.free()
	after := r.retained()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last = time.Now()
	r.floor = min(r.floor, after)
	if before-after < reclaimThreshold {
		r.every = min(2*r.every, reclaimEveryMax)
	} else {
		r.every = reclaimEvery
	}
}

// close stops the reclaimer.
func (r *reclaimer) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
}

// retainedBytes is the memory the Go runtime holds from the operating
// system and has not given back: about its share of the resident size.
func retainedBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()) - int64(s[1].Value.Uint64())
}
