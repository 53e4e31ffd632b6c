package wsstream

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// readWatch ends a Read when its context ends, as coder/websocket does
// for the context it is given, but with one watch for as long as the
// reader passes the same context (a jsonrpc.Conn passes its own to every
// Read), where coder/websocket arms one for each frame header and payload
// it reads: a context.AfterFunc, three allocations and a registration
// with the parent each.
type readWatch struct {
	mu   sync.Mutex // guards ctx, stop and watched, which Read and Close change
	ctx  context.Context
	stop func() bool
	// watched is the watch of ctx; reading is it while a Read with ctx is
	// under way. A watch's callback runs on a goroutine of its own, maybe
	// after a later Read with another context has begun: it ends only a
	// Read of its own context.
	watched *watch
	reading atomic.Pointer[watch]
}

// watch is one context's watch: its address is what tells watches apart
// (so it is not of size zero, whose values may share one).
type watch struct{ _ byte }

// start begins a Read with ctx: from now until done, ctx's end closes
// the WebSocket at once (close). It fails if ctx has already ended.
func (w *readWatch) start(ctx context.Context, close func()) error {
	if ctx.Done() == nil {
		return nil
	}
	w.mu.Lock()
	if w.ctx != ctx {
		if w.stop != nil {
			w.stop()
		}
		mine := new(watch)
		w.ctx, w.watched = ctx, mine
		w.stop = context.AfterFunc(ctx, func() {
			if w.reading.Load() == mine {
				close()
			}
		})
	}
	w.reading.Store(w.watched)
	w.mu.Unlock()
	// ctx may have ended before reading was set, its callback finding no
	// Read to end: this Read sees it here instead.
	if err := ctx.Err(); err != nil {
		w.reading.Store(nil)
		close()
		return fmt.Errorf("failed to get reader: %w", err)
	}
	return nil
}

// done ends the Read begun by start; err is its error, which becomes
// ctx's if ctx ended meanwhile (its end closed the WebSocket).
func (w *readWatch) done(ctx context.Context, err error) error {
	w.reading.Store(nil)
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("failed to read: %w", ctx.Err())
	}
	return err
}

// release drops the watch, when the Stream closes.
func (w *readWatch) release() {
	w.mu.Lock()
	if w.stop != nil {
		w.stop()
	}
	w.ctx, w.stop, w.watched = nil, nil, nil
	w.mu.Unlock()
}
