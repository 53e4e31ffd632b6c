package memory

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// Register implements [store.Registry].
func (s *Store) Register(_ context.Context, id, address string, ttl time.Duration) error {
	if err := store.CheckRegister(id, ttl); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.ErrClosed
	}
	now := s.now()
	s.engines[id] = store.EngineRecord{ID: id, Address: address, RegisteredAt: now, HeartbeatAt: now, ExpiresAt: now.Add(ttl)}
	return nil
}

// Heartbeat implements [store.Registry].
func (s *Store) Heartbeat(_ context.Context, id string, ttl time.Duration) error {
	if err := store.CheckRegister(id, ttl); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.ErrClosed
	}
	e, ok := s.engines[id]
	if !ok {
		return fmt.Errorf("heartbeat of %s: %w", id, store.ErrNotRegistered)
	}
	now := s.now()
	e.HeartbeatAt, e.ExpiresAt = now, now.Add(ttl)
	s.engines[id] = e
	return nil
}

// Deregister implements [store.Registry].
func (s *Store) Deregister(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.ErrClosed
	}
	delete(s.engines, id)
	return nil
}

// Engines implements [store.Registry].
func (s *Store) Engines(context.Context) ([]store.EngineRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, store.ErrClosed
	}
	now := s.now()
	var out []store.EngineRecord
	for _, id := range slices.Sorted(maps.Keys(s.engines)) {
		if e := s.engines[id]; now.Before(e.ExpiresAt) {
			out = append(out, e)
		}
	}
	return out, nil
}
