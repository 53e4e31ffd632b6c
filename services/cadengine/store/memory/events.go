package memory

import (
	"cmp"
	"context"
	"slices"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

var _ store.Events = (*Store)(nil)

// AppendEvents implements [store.Events].
func (s *Store) AppendEvents(_ context.Context, appends []store.EventAppend) ([]int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, store.ErrClosed
	}
	var fenced []int
	for i, a := range appends {
		if _, err := s.current(a.Lease); err != nil {
			fenced = append(fenced, i)
			continue
		}
		log := s.events[a.SessionID]
		for _, ev := range a.Events {
			at, found := slices.BinarySearchFunc(log, ev.Seq, func(e store.EventRecord, seq int64) int { return cmp.Compare(e.Seq, seq) })
			if !found {
				ev.Payload = slices.Clone(ev.Payload)
				log = slices.Insert(log, at, ev)
			}
		}
		if n := len(a.Events); n > 0 {
			oldest := a.Events[n-1].Seq - a.Keep
			log = slices.DeleteFunc(log, func(e store.EventRecord) bool { return e.Seq <= oldest })
		}
		s.events[a.SessionID] = log
		if len(a.Handoffs) > 0 {
			s.handoffs[a.SessionID] = slices.DeleteFunc(s.handoffs[a.SessionID], func(h store.EventHandoff) bool { return slices.Contains(a.Handoffs, h.ID) })
		}
	}
	return fenced, nil
}

// LoadEvents implements [store.Events].
func (s *Store) LoadEvents(_ context.Context, sessionID string) ([]store.EventRecord, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, false, store.ErrClosed
	}
	out := slices.Clone(s.events[sessionID])
	for i := range out {
		out[i].Payload = slices.Clone(out[i].Payload)
	}
	return out, false, nil
}
