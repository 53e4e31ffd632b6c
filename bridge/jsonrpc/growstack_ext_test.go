package jsonrpc_test

import (
	"runtime"
	"sync"
	"testing"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
)

// TestGrowStack checks that readers and workers start with a stack of
// 32 KiB at least: were growStack's frame ever dropped by the compiler,
// its goroutines would keep their small starting stacks.
func TestGrowStack(t *testing.T) {
	const n = 64
	stacks := func(f func()) uint64 { // stack memory while n goroutines that called f wait
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
	base := stacks(func() {})
	grown := stacks(jsonrpc.GrowStack)
	if grown < base || (grown-base)/n < 24<<10 {
		t.Fatalf("%d goroutines hold %d bytes of stack having grown it, %d not: want ≥ 24 KiB more each", n, grown, base)
	}
}
