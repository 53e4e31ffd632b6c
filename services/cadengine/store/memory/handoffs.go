package memory

import (
	"context"
	"slices"
	"sync"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

var _ store.Handoffs = (*Store)(nil)

// handoffWatcher is one WatchHandoffs: the sessions told and not yet
// passed to its fn.
type handoffWatcher struct {
	mu    sync.Mutex // guards told
	told  []string
	ready chan struct{} // 1-buffered: told has sessions
}

// HandOverEvents implements [store.Handoffs].
func (s *Store) HandOverEvents(_ context.Context, handoffs []store.EventHandoff) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return store.ErrClosed
	}
	var told []string
	for _, h := range handoffs {
		if s.handedOver(h.ID) {
			continue
		}
		s.handoffs[h.SessionID] = append(s.handoffs[h.SessionID], cloneHandoff(h))
		told = append(told, h.SessionID)
	}
	watchers := make([]*handoffWatcher, 0, len(s.watchers))
	for w := range s.watchers {
		watchers = append(watchers, w)
	}
	s.mu.Unlock()
	for _, w := range watchers {
		w.mu.Lock()
		w.told = append(w.told, told...)
		w.mu.Unlock()
		select {
		case w.ready <- struct{}{}:
		default:
		}
	}
	return nil
}

// handedOver reports whether a handoff of id is stored; s.mu is held.
func (s *Store) handedOver(id string) bool {
	for _, hs := range s.handoffs {
		for _, h := range hs {
			if h.ID == id {
				return true
			}
		}
	}
	return false
}

func cloneHandoff(h store.EventHandoff) store.EventHandoff {
	h.Events = slices.Clone(h.Events)
	for i := range h.Events {
		h.Events[i].Payload = slices.Clone(h.Events[i].Payload)
	}
	return h
}

// HandedOverEvents implements [store.Handoffs].
func (s *Store) HandedOverEvents(_ context.Context, sessionID string) ([]store.EventHandoff, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, store.ErrClosed
	}
	var out []store.EventHandoff
	for _, h := range s.handoffs[sessionID] {
		out = append(out, cloneHandoff(h))
	}
	return out, nil
}

// WatchHandoffs implements [store.Handoffs].
func (s *Store) WatchHandoffs(ctx context.Context, fn func(sessionID string)) error {
	w := &handoffWatcher{ready: make(chan struct{}, 1)}
	s.mu.Lock()
	s.watchers[w] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.watchers, w)
		s.mu.Unlock()
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-w.ready:
		}
		w.mu.Lock()
		told := w.told
		w.told = nil
		w.mu.Unlock()
		for _, id := range told {
			fn(id)
		}
	}
}
