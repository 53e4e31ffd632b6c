package growstack

import (
	"runtime"
	"sync"
	"testing"
)

// stacksOf is the goroutine stack memory in use while n goroutines, each
// having called f, wait.
func stacksOf(n int, f func()) uint64 {
	var started, release sync.WaitGroup
	started.Add(n)
	release.Add(1)
	for range n {
		go func() {
			f()
			started.Done()
			release.Wait()
		}()
	}
	started.Wait()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	release.Done()
	return ms.StackInuse
}

// TestGrow checks that a goroutine that called Grow holds a stack of 32
// KiB at least: if the compiler ever dropped Grow's frame, its goroutines
// would keep their small starting stacks.
func TestGrow(t *testing.T) {
	const n = 64
	base := stacksOf(n, func() {})
	grown := stacksOf(n, Grow)
	if grown < base || (grown-base)/n < 24<<10 {
		t.Fatalf("%d goroutines hold %d bytes of stack having called Grow, %d not having: %d more each, want ≥ 24 KiB (32 KiB stacks against small ones)",
			n, grown, base, (int64(grown)-int64(base))/n)
	}
}
