package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

var (
	_ store.Store    = (*Store)(nil)
	_ store.Leases   = (*Store)(nil)
	_ store.Registry = (*Store)(nil)
)

// Grant implements [store.Leases].
func (s *Store) Grant(_ context.Context, documentID, holder string, ttl time.Duration) (store.Lease, error) {
	if err := store.CheckGrant(documentID, holder, ttl); err != nil {
		return store.Lease{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.Lease{}, store.ErrClosed
	}
	now := s.now()
	cur := s.leases[documentID]
	if cur.Holder != "" && cur.Holder != holder && now.Before(cur.ExpiresAt) {
		return store.Lease{}, &store.LeaseHeldError{Lease: cur, Address: s.liveAddress(cur.Holder, now)}
	}
	l := store.Lease{DocumentID: documentID, Holder: holder, Epoch: cur.Epoch + 1, ExpiresAt: now.Add(ttl)}
	s.leases[documentID] = l
	return l, nil
}

// liveAddress is the address of the live engine id, or "". s.mu is held.
func (s *Store) liveAddress(id string, now time.Time) string {
	if e, ok := s.engines[id]; ok && now.Before(e.ExpiresAt) {
		return e.Address
	}
	return ""
}

// current returns l's document's lease if it is still l (holder and
// epoch), or an error matching [store.ErrLeaseLost]. s.mu is held.
func (s *Store) current(l store.Lease) (store.Lease, error) {
	if s.closed {
		return store.Lease{}, store.ErrClosed
	}
	cur, ok := s.leases[l.DocumentID]
	if !ok || cur.Holder != l.Holder || cur.Epoch != l.Epoch || l.Holder == "" {
		return store.Lease{}, fmt.Errorf("lease on %s, epoch %d of %q: %w", l.DocumentID, l.Epoch, l.Holder, store.ErrLeaseLost)
	}
	return cur, nil
}

// Renew implements [store.Leases].
func (s *Store) Renew(_ context.Context, l store.Lease, ttl time.Duration) (store.Lease, error) {
	if err := store.CheckGrant(l.DocumentID, l.Holder, ttl); err != nil {
		return store.Lease{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, err := s.current(l)
	if err != nil {
		return store.Lease{}, err
	}
	cur.ExpiresAt = s.now().Add(ttl)
	s.leases[l.DocumentID] = cur
	return cur, nil
}

// Release implements [store.Leases].
func (s *Store) Release(_ context.Context, l store.Lease) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, err := s.current(l)
	if err != nil {
		return err
	}
	cur.Holder, cur.ExpiresAt = "", s.now()
	s.leases[l.DocumentID] = cur
	return nil
}

// Holder implements [store.Leases].
func (s *Store) Holder(_ context.Context, documentID string) (*store.Lease, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, store.ErrClosed
	}
	cur, ok := s.leases[documentID]
	if !ok || cur.Holder == "" || !s.now().Before(cur.ExpiresAt) {
		return nil, nil
	}
	return &cur, nil
}
