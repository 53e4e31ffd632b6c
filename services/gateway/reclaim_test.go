package gateway

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestReclaimer: memory is given back once after connections end together,
// if the process retains reclaimThreshold more than its floor; a give-back
// that finds the memory in use makes the next one wait longer.
func TestReclaimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const mib = 1 << 20
		// The fake memory is read by the reclaimer's timer goroutines and
		// set by the test: atomics, so that the race detector sees the
		// order synctest gives them.
		var retained, inUse atomic.Int64 // inUse: what a give-back cannot return
		var frees atomic.Int32
		var during atomic.Pointer[func()] // runs while memory is given back
		retained.Store(20 * mib)
		inUse.Store(20 * mib)
		var r *reclaimer
		r = newReclaimerOf(retained.Load, func() {
			frees.Add(1)
			retained.Store(inUse.Load())
			if f := during.Swap(nil); f != nil {
				(*f)()
			}
		})
		defer r.close()

		// A little more than the floor: nothing to give back.
		retained.Store(20*mib + reclaimThreshold/2)
		r.connEnded()
		time.Sleep(time.Minute)
		if frees.Load() != 0 {
			t.Fatalf("%d give-backs with %d MiB retained over a floor of 20 MiB, want 0", frees.Load(), retained.Load()>>20)
		}

		// Fifty connections dropped together leave 300 MiB: one give-back,
		// soon after they end.
		retained.Store(300 * mib)
		for range 50 {
			r.connEnded()
		}
		time.Sleep(reclaimDelay)
		synctest.Wait()
		if frees.Load() != 1 || retained.Load() != 20*mib {
			t.Fatalf("after 50 connections ended: %d give-backs, %d MiB retained; want 1, 20 MiB", frees.Load(), retained.Load()>>20)
		}

		// The memory is in use (live connections): the give-back finds
		// little, and the next waits twice as long.
		inUse.Store(200 * mib)
		retained.Store(210 * mib)
		time.Sleep(time.Minute)
		r.connEnded()
		time.Sleep(reclaimDelay)
		synctest.Wait()
		if frees.Load() != 2 {
			t.Fatalf("%d give-backs, want 2", frees.Load())
		}
		retained.Store(240 * mib)
		r.connEnded()
		time.Sleep(reclaimEvery)
		synctest.Wait()
		if frees.Load() != 2 {
			t.Fatalf("a give-back %v after one that found the memory in use; want none before %v", reclaimEvery, 2*reclaimEvery)
		}
		time.Sleep(reclaimEvery)
		synctest.Wait()
		if frees.Load() != 3 {
			t.Fatalf("%d give-backs %v after one that found the memory in use, want 3", frees.Load(), 2*reclaimEvery)
		}

		// A connection that ends while memory is given back is looked at
		// after it.
		inUse.Store(20 * mib)
		during.Store(new(func() {
			retained.Store(100 * mib)
			r.connEnded()
		}))
		time.Sleep(time.Minute)
		r.connEnded()
		time.Sleep(time.Minute)
		if frees.Load() != 5 || retained.Load() != 20*mib {
			t.Fatalf("a connection ended during a give-back: %d give-backs, %d MiB retained; want 5, 20 MiB", frees.Load(), retained.Load()>>20)
		}
	})
}
