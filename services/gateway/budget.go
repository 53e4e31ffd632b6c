package gateway

import (
	"context"
	"errors"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Memory is bounded in bytes, not messages (DESIGN §4): each connection
// has a budget for what it holds for its client — calls read and not yet
// answered, answers and events queued and not yet written — and the
// process has one for all of them together.

// Defaults of Config.ConnBudget and Config.MemoryBudget: hundreds of
// clients that send and never read hold a few GiB at most, and the gateway
// turns calls away past 1 GiB.
const (
	defaultConnBudget   = 4 << 20
	defaultMemoryBudget = 1 << 30
)

// newConnBudget returns a budget for a new connection.
func (gw *Gateway) newConnBudget() *connBudget {
	return newConnBudget(gw.cfg.ConnBudget, &gw.memory)
}

// errBudgetClosed is returned for a connection whose budget was freed.
var errBudgetClosed = errors.New("connection closed")

// memoryBudget is the process-wide count of bytes held for clients.
type memoryBudget struct {
	limit int64 // <= 0: none
	used  atomic.Int64
	// peak is the most used since the memory was last given back to the
	// operating system.
	peak atomic.Int64

	mu      sync.Mutex    // guards free, pending and again
	free    *time.Timer   // gives memory back; nil until first needed
	pending time.Time     // when the free now scheduled was first asked for
	again   time.Duration // the wait before the next of a series of frees; 0 after the last
}

// over reports whether the process holds more than its budget: new calls
// are then turned away with 4029.
func (m *memoryBudget) over() bool { return m.limit > 0 && m.used.Load() > m.limit }

func (m *memoryBudget) add(n int64) {
	if used := m.used.Add(n); n > 0 && used > m.peak.Load() {
		m.peak.Store(used)
	}
}

// freeThreshold is how much the bytes held must have fallen since their
// peak for the gateway to give memory back to the operating system.
const freeThreshold = 32 << 20

// settleDelay is how long the gateway waits, after what it held has fallen,
// before it gives memory back: the goroutines of a dropped connection let
// go of its buffers only after its budget is closed, and a free before that
// would find them still in use. It gives memory back again after twice
// as long, and so on up to settleLast, for what is let go later still
// (calls of the dropped connection still running, their streams).
// settleMax bounds the first wait while clients keep being dropped.
const (
	settleDelay = time.Second
	settleLast  = 64 * time.Second
	settleMax   = 5 * time.Second
)

// settle gives memory back to the operating system once what is held has
// fallen by freeThreshold from its peak (say, slow clients were dropped):
// the Go runtime would otherwise keep the pages for minutes. It does so
// settleDelay after the last fall (at the latest settleMax after the
// first), then again 2, 4, … 64 s after that.
func (m *memoryBudget) settle() {
	if m.peak.Load()-m.used.Load() < freeThreshold {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.again = settleDelay
	switch {
	case m.free == nil:
		m.free = time.AfterFunc(settleDelay, m.giveBack)
		m.pending = now
	case m.pending.IsZero():
		m.free.Reset(settleDelay)
		m.pending = now
	case now.Sub(m.pending) < settleMax:
		m.free.Reset(settleDelay)
	}
}

// giveBack returns the memory the heap no longer uses to the operating
// system.
func (m *memoryBudget) giveBack() {
	m.mu.Lock()
	m.pending = time.Time{}
	if m.again *= 2; m.again <= settleLast {
		m.free.Reset(m.again)
	} else {
		m.again = 0
	}
	m.mu.Unlock()
	m.peak.Store(m.used.Load())
	debug.FreeOSMemory()
}

// connBudget is one connection's budget. Reading waits while what the
// connection holds (reads and writes) is over the limit; queueing an
// answer or event waits while the bytes queued alone are over it, so that
// answers always drain the calls that made them. A single payload larger
// than the limit passes when nothing else is held.
//
// It implements jsonrpc.Budget for the reads.
type connBudget struct {
	limit   int64
	process *memoryBudget

	mu      sync.Mutex // guards reads, writes, closed and wake
	reads   int64      // payloads read and not done with
	writes  int64      // payloads queued for the client and not written
	closed  bool
	waiters int
	wake    chan struct{} // closed (and replaced) when bytes are released and someone waits
}

func newConnBudget(limit int64, process *memoryBudget) *connBudget {
	return &connBudget{limit: limit, process: process}
}

// Acquire implements jsonrpc.Budget: it takes n bytes for a payload read.
func (b *connBudget) Acquire(ctx context.Context, n int) error {
	return b.acquire(ctx.Done(), nil, int64(n), false)
}

// Release implements jsonrpc.Budget.
func (b *connBudget) Release(n int) { b.release(int64(n), false) }

// acquireWrite takes n bytes for a payload queued for the client, waiting
// for room until timeout fires or done is closed.
func (b *connBudget) acquireWrite(n int, timeout <-chan time.Time, done <-chan struct{}) error {
	return b.acquire(done, timeout, int64(n), true)
}

// releaseWrite gives back a payload written (or dropped).
func (b *connBudget) releaseWrite(n int) { b.release(int64(n), true) }

// errWriteTimeout is acquire's error when its timeout fired.
var errWriteTimeout = errors.New("no room for the client's answers within the write timeout")

func (b *connBudget) acquire(done <-chan struct{}, timeout <-chan time.Time, n int64, write bool) error {
	b.mu.Lock()
	for {
		if b.closed {
			b.mu.Unlock()
			return errBudgetClosed
		}
		held := b.reads + b.writes
		if write {
			held = b.writes
		}
		if held == 0 || b.limit <= 0 || held+n <= b.limit {
			if write {
				b.writes += n
			} else {
				b.reads += n
			}
			b.mu.Unlock()
			b.process.add(n)
			return nil
		}
		if b.wake == nil {
			b.wake = make(chan struct{})
		}
		wake := b.wake
		b.waiters++
		b.mu.Unlock()
		var err error
		select {
		case <-wake:
		case <-done:
			err = errBudgetClosed
		case <-timeout:
			err = errWriteTimeout
		}
		b.mu.Lock()
		b.waiters--
		if err != nil {
			b.mu.Unlock()
			return err
		}
	}
}

func (b *connBudget) release(n int64, write bool) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return // close gave everything back
	}
	if write {
		b.writes -= n
	} else {
		b.reads -= n
	}
	if b.wake != nil && b.waiters > 0 {
		close(b.wake)
		b.wake = nil
	}
	b.mu.Unlock()
	b.process.add(-n)
}

// close gives back everything the connection still holds; later releases
// change nothing and acquisitions fail.
func (b *connBudget) close() {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	held := b.reads + b.writes
	b.reads, b.writes = 0, 0
	if b.wake != nil {
		close(b.wake)
		b.wake = nil
	}
	b.mu.Unlock()
	b.process.add(-held)
	b.process.settle()
}
