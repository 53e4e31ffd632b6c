package cadengine

import (
	"bytes"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// goroutineID is the id runtime.Stack prints for the calling goroutine.
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, _ := bytes.Cut(bytes.TrimPrefix(buf, []byte("goroutine ")), []byte(" "))
	return string(id)
}

// TestWorkersLinger: a call run right after another ran finishes runs on
// the same goroutine, one run after a second of nothing on a new one (the
// lingering goroutine ended; synctest.Test fails if one is left at the
// end).
func TestWorkersLinger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var w workers
		call := func() string {
			ran := make(chan string, 1)
			w.run(func() { ran <- goroutineID() })
			id := <-ran
			synctest.Wait() // the goroutine is lingering
			return id
		}
		first, second := call(), call()
		if first != second {
			t.Errorf("back-to-back calls ran on goroutines %s and %s, want one", first, second)
		}
		time.Sleep(time.Second)
		if third := call(); third == second {
			t.Errorf("a call after a second of nothing ran on goroutine %s, the one before it: it did not end", third)
		}
		time.Sleep(time.Second) // the last one ends
	})
}

// TestWorkersRunEachOnce runs calls from many goroutines at once, with
// lingering goroutines taking some: each runs exactly once.
func TestWorkersRunEachOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var w workers
		const callers, calls = 8, 200
		var mu sync.Mutex
		counts := map[int]int{}
		var wg sync.WaitGroup
		for c := range callers {
			wg.Go(func() {
				for i := range calls {
					wg.Add(1)
					w.run(func() {
						defer wg.Done()
						mu.Lock()
						counts[c*calls+i]++
						mu.Unlock()
					})
					if i%50 == 0 {
						time.Sleep(workerLinger / 2)
					}
				}
			})
		}
		wg.Wait()
		for i := range callers * calls {
			if counts[i] != 1 {
				t.Fatalf("call %d ran %d times, want once", i, counts[i])
			}
		}
		time.Sleep(time.Second) // the lingering ones end
	})
}
