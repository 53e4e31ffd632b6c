package gateway

import (
	"context"
	"errors"
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
}

// over reports whether the process holds more than its budget: new calls
// are then turned away with 4029.
func (m *memoryBudget) over() bool { return m.limit > 0 && m.used.Load() > m.limit }

func (m *memoryBudget) add(n int64) { m.used.Add(n) }

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
// for room until the channel timeout returns fires (timeout is called only
// to wait) or done is closed.
func (b *connBudget) acquireWrite(n int, timeout func() <-chan time.Time, done <-chan struct{}) error {
	return b.acquire(done, timeout, int64(n), true)
}

// releaseWrite gives back a payload written (or dropped).
func (b *connBudget) releaseWrite(n int) { b.release(int64(n), true) }

// errWriteTimeout is acquire's error when its timeout fired.
var errWriteTimeout = errors.New("no room for the client's answers within the write timeout")

func (b *connBudget) acquire(done <-chan struct{}, timeout func() <-chan time.Time, n int64, write bool) error {
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
		var expired <-chan time.Time // nil: no timeout
		if timeout != nil {
			expired = timeout()
		}
		var err error
		select {
		case <-wake:
		case <-done:
			err = errBudgetClosed
		case <-expired:
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
}
