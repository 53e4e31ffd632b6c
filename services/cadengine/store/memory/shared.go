package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

var _ store.Shared = (*Store)(nil)

// LoadDocument implements [store.Shared].
func (s *Store) LoadDocument(_ context.Context, id string) (*store.DocumentRecord, []store.EntityRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, store.ErrClosed
	}
	d := s.docs[id]
	if d == nil {
		return nil, nil, fmt.Errorf("load document %s: %w", id, store.ErrNoDocument)
	}
	rec := d.rec
	rec.Layers = cloneLayers(rec.Layers)
	return &rec, records(&d.ents), nil
}

// LoadOperation implements [store.Shared].
func (s *Store) LoadOperation(_ context.Context, principal, id string) (*store.OperationRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, store.ErrClosed
	}
	op, ok := s.ops[[2]string{principal, id}]
	if !ok {
		return nil, nil
	}
	op = cloneOperation(op)
	return &op, nil
}

// LoadSession implements [store.Shared].
func (s *Store) LoadSession(_ context.Context, id string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, store.ErrClosed
	}
	data, ok := s.sessions[id]
	if !ok {
		return nil, nil
	}
	return append([]byte{}, data...), nil
}

// ListDocuments implements [store.Shared].
func (s *Store) ListDocuments(_ context.Context, after store.DocumentKey, limit int) ([]store.DocumentRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, store.ErrClosed
	}
	var out []store.DocumentRecord
	for _, d := range s.docs {
		if after.Before(&d.rec) {
			rec := d.rec
			rec.Layers = cloneLayers(rec.Layers)
			out = append(out, rec)
		}
	}
	slices.SortFunc(out, func(a, b store.DocumentRecord) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out[:min(len(out), limit)], nil
}
