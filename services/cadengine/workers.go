package cadengine

import (
	"slices"
	"sync"
	"time"

	"github.com/cadbridge/cadbridge/internal/growstack"
)

// workers runs a Session stream's calls, each on a goroutine of its own. A
// goroutine that ran a call lingers workerLinger for the stream's next call
// before it ends: a call goes deep (the engine, the store, gRPC's send),
// and a new goroutine grows and copies its stack on each one, while one
// that ran a call before has grown it already; a client's next call often
// comes within microseconds, and under load milliseconds apart (see the
// gateway's jsonrpc workers, which linger as long). An idle stream keeps
// none.
type workers struct {
	mu        sync.Mutex
	lingering []chan func() // the lingering goroutines, each by the channel that hands it a call
}

// workerLinger is how long a goroutine waits for the next call.
const workerLinger = 10 * time.Millisecond

// run runs f on a lingering goroutine, or on a new one.
func (w *workers) run(f func()) {
	w.mu.Lock()
	if n := len(w.lingering); n > 0 {
		next := w.lingering[n-1] // the latest: the warmest stack
		w.lingering = w.lingering[:n-1]
		w.mu.Unlock()
		next <- f
		return
	}
	w.mu.Unlock()
	go w.loop(f)
}

// loop runs f, then each call run hands it while it lingers.
func (w *workers) loop(f func()) {
	growstack.Grow() // a call goes deep (see above)
	next := make(chan func(), 1)
	timer := time.NewTimer(workerLinger)
	defer timer.Stop()
	for {
		f()
		w.mu.Lock()
		w.lingering = append(w.lingering, next)
		w.mu.Unlock()
		timer.Reset(workerLinger)
		select {
		case f = <-next:
			continue
		case <-timer.C:
		}
		w.mu.Lock()
		i := slices.Index(w.lingering, next)
		if i >= 0 {
			w.lingering = slices.Delete(w.lingering, i, i+1)
		}
		w.mu.Unlock()
		if i >= 0 {
			return
		}
		f = <-next // run handed it a call as it stopped waiting
	}
}
