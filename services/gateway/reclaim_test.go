package gateway

import (
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
		retained := int64(20 * mib)
		var frees int
		inUse := int64(20 * mib) // what a give-back cannot return
		var during func()        // runs while memory is given back
		var r *reclaimer
		r = newReclaimerOf(func() int64 { return retained }, func() {
			frees++
			retained = inUse
			if during != nil {
				during()
			}
		})
		defer r.close()

		// A little more than the floor: nothing to give back.
		retained = 20*mib + reclaimThreshold/2
		r.connEnded()
		time.Sleep(time.Minute)
		if frees != 0 {
			t.Fatalf("%d give-backs with %d MiB retained over a floor of 20 MiB, want 0", frees, retained>>20)
		}

		// Fifty connections dropped together leave 300 MiB: one give-back,
		// soon after they end.
		retained = 300 * mib
		for range 50 {
			r.connEnded()
		}
		time.Sleep(reclaimDelay)
		synctest.Wait()
		if frees != 1 || retained != 20*mib {
			t.Fatalf("after 50 connections ended: %d give-backs, %d MiB retained; want 1, 20 MiB", frees, retained>>20)
		}

		// The memory is in use (live connections): the give-back finds
		// little, and the next waits twice as long.
		inUse = 200 * mib
		retained = 210 * mib
		time.Sleep(time.Minute)
		r.connEnded()
		time.Sleep(reclaimDelay)
		synctest.Wait()
		if frees != 2 {
			t.Fatalf("%d give-backs, want 2", frees)
		}
		retained = 240 * mib
		r.connEnded()
		time.Sleep(reclaimEvery)
		synctest.Wait()
		if frees != 2 {
			t.Fatalf("a give-back %v after one that found the memory in use; want none before %v", reclaimEvery, 2*reclaimEvery)
		}
		time.Sleep(reclaimEvery)
		synctest.Wait()
		if frees != 3 {
			t.Fatalf("%d give-backs %v after one that found the memory in use, want 3", frees, 2*reclaimEvery)
		}

		// A connection that ends while memory is given back is looked at
		// after it.
		inUse = 20 * mib
		during = func() {
			during = nil
			retained = 100 * mib
			r.connEnded()
		}
		time.Sleep(time.Minute)
		r.connEnded()
		time.Sleep(time.Minute)
		if frees != 5 || retained != 20*mib {
			t.Fatalf("a connection ended during a give-back: %d give-backs, %d MiB retained; want 5, 20 MiB", frees, retained>>20)
		}
	})
}
