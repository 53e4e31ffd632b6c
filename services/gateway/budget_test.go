package gateway

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// TestConnBudget: reads wait while the connection holds its budget, writes
// while what is queued does; a write that finds no room within its timeout
// fails; closing gives everything back to the process.
func TestConnBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var process memoryBudget
		b := newConnBudget(100, &process)
		ctx := context.Background()
		if err := b.Acquire(ctx, 60); err != nil {
			t.Fatal(err)
		}
		// Answers drain calls: a write is held back by queued writes only.
		if err := b.acquireWrite(90, nil, nil); err != nil {
			t.Fatalf("acquireWrite(90) with 60 bytes of reads held = %v, want room", err)
		}
		if got := process.used.Load(); got != 150 {
			t.Errorf("process holds %d bytes, want 150", got)
		}
		// A read waits until bytes are released.
		read := make(chan error, 1)
		go func() { read <- b.Acquire(ctx, 10) }()
		synctest.Wait()
		select {
		case err := <-read:
			t.Fatalf("Acquire with the budget spent = %v, want it to wait", err)
		default:
		}
		b.releaseWrite(90)
		b.Release(60)
		if err := <-read; err != nil {
			t.Fatalf("Acquire after release = %v", err)
		}
		// A write that finds no room in time fails.
		if err := b.acquireWrite(95, nil, nil); err != nil {
			t.Fatal(err)
		}
		timer := time.NewTimer(time.Second)
		if err := b.acquireWrite(10, func() <-chan time.Time { return timer.C }, nil); !errors.Is(err, errWriteTimeout) {
			t.Errorf("acquireWrite with the queue full = %v, want errWriteTimeout", err)
		}
		// One payload over the whole budget passes when nothing is held.
		b2 := newConnBudget(100, &process)
		if err := b2.Acquire(ctx, 1000); err != nil {
			t.Errorf("Acquire(1000) on an empty budget of 100 = %v, want room", err)
		}
		b.close()
		b2.close()
		b.Release(10) // after close: changes nothing
		if got := process.used.Load(); got != 0 {
			t.Errorf("process holds %d bytes after the connections closed, want 0", got)
		}
		if err := b.Acquire(ctx, 1); !errors.Is(err, errBudgetClosed) {
			t.Errorf("Acquire after close = %v, want errBudgetClosed", err)
		}
	})
}
