// Package memory is a [store.Store] in memory, for tests and benchmarks:
// nothing survives the process. It also implements [store.Leases] and
// [store.Registry], for the engines of one process.
package memory

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cadbridge/cadbridge/services/cadengine/pages"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// Store is a [store.Store] in memory. Records are copied in and out, so
// an engine that reopens the same Store sees what the previous one
// committed, as with a file.
type Store struct {
	now func() time.Time // the store's clock, for leases and registrations

	mu       sync.Mutex // guards the maps and closed
	docs     map[string]*memDoc
	ops      map[[2]string]store.OperationRecord // by principal and id
	sessions map[string][]byte
	events   map[string][]store.EventRecord // by session id, ascending seq
	leases   map[string]store.Lease         // by document id; Holder "" once released
	engines  map[string]store.EngineRecord
	handoffs map[string][]store.EventHandoff // by session id, oldest first
	watchers map[*handoffWatcher]struct{}
	closed   bool
}

type memDoc struct {
	rec  store.DocumentRecord
	ents pages.Table[[]byte] // the stored records (entities and blocks) by handle
}

// New returns an empty Store.
func New() *Store {
	return &Store{
		now:      time.Now,
		docs:     map[string]*memDoc{},
		ops:      map[[2]string]store.OperationRecord{},
		sessions: map[string][]byte{},
		events:   map[string][]store.EventRecord{},
		leases:   map[string]store.Lease{},
		engines:  map[string]store.EngineRecord{},
		handoffs: map[string][]store.EventHandoff{},
		watchers: map[*handoffWatcher]struct{}{},
	}
}

// Kind is "memory".
func (*Store) Kind() string { return "memory" }

// Load calls fn for every document, in id order.
func (s *Store) Load(ctx context.Context, fn func(*store.DocumentRecord, []store.EntityRecord) error) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return store.ErrClosed
	}
	type snap struct {
		rec  store.DocumentRecord
		ents []store.EntityRecord
	}
	var all []snap
	for _, id := range slices.Sorted(maps.Keys(s.docs)) {
		d := s.docs[id]
		rec := d.rec
		rec.Layers = cloneLayers(rec.Layers)
		all = append(all, snap{rec, records(&d.ents)})
	}
	s.mu.Unlock()
	for i := range all {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(&all[i].rec, all[i].ents); err != nil {
			return err
		}
	}
	return nil
}

// Commit applies c.
func (s *Store) Commit(_ context.Context, c *store.Commit) error {
	if err := store.CheckFence(c); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.ErrClosed
	}
	if l := c.Lease; l != nil {
		if cur := s.leases[l.DocumentID]; cur.Holder != l.Holder || cur.Epoch != l.Epoch {
			return store.Fenced(l, cur.Holder, cur.Epoch)
		}
	}
	if c.Document != nil {
		d := s.docs[c.Document.ID]
		if d == nil {
			d = &memDoc{}
			s.docs[c.Document.ID] = d
		}
		d.rec = *c.Document
		d.rec.Layers = cloneLayers(c.Document.Layers)
		for _, h := range c.Delete {
			d.ents.Delete(h)
		}
		// The copies share one buffer, cut so that no record can grow
		// into the next: a commit of a hundred entities makes one
		// allocation for them, not a hundred. The buffer lives while any
		// of its records does, which for a store that keeps nothing across
		// a restart costs less than an allocation per record.
		slab := make([]byte, 0, putSize(c.Put)) // not nil, even when empty
		for _, e := range c.Put {
			start := len(slab)
			slab = append(slab, e.Data...)
			d.ents.Put(e.Handle, slab[start:len(slab):len(slab)])
		}
	}
	for _, op := range c.Operations {
		s.ops[[2]string{op.Principal, op.ID}] = cloneOperation(op)
	}
	return nil
}

// records are copies of a document's stored records, in handle order.
func records(ents *pages.Table[[]byte]) []store.EntityRecord {
	out := make([]store.EntityRecord, 0, ents.Len())
	ents.Each(0, func(h uint64, data []byte) bool {
		out = append(out, store.EntityRecord{Handle: h, Data: slices.Clone(data)})
		return true
	})
	return out
}

// putSize is the size of the entity records of puts, together.
func putSize(puts []store.EntityRecord) int {
	n := 0
	for _, e := range puts {
		n += len(e.Data)
	}
	return n
}

// cloneLayers copies layer records, their counts included.
func cloneLayers(ls []store.LayerRecord) []store.LayerRecord {
	ls = slices.Clone(ls)
	for i, l := range ls {
		if l.Entities != nil {
			ls[i].Entities = new(*l.Entities)
		}
	}
	return ls
}

func cloneOperation(op store.OperationRecord) store.OperationRecord {
	op.RequestHash = slices.Clone(op.RequestHash)
	op.CommittedSteps = slices.Clone(op.CommittedSteps)
	op.Response = slices.Clone(op.Response)
	return op
}

// LoadOperations calls fn for every journal record, oldest first.
func (s *Store) LoadOperations(ctx context.Context, fn func(*store.OperationRecord) error) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return store.ErrClosed
	}
	all := make([]store.OperationRecord, 0, len(s.ops))
	for _, op := range s.ops {
		all = append(all, cloneOperation(op))
	}
	s.mu.Unlock()
	slices.SortFunc(all, func(a, b store.OperationRecord) int {
		if c := a.StartedAt.Compare(b.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Principal+"\x00"+a.ID, b.Principal+"\x00"+b.ID)
	})
	for i := range all {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(&all[i]); err != nil {
			return err
		}
	}
	return nil
}

// PruneOperations deletes records of operations that finished before t.
func (s *Store) PruneOperations(_ context.Context, before time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.ErrClosed
	}
	for k, op := range s.ops {
		if !op.FinishedAt.IsZero() && op.FinishedAt.Before(before) {
			delete(s.ops, k)
		}
	}
	return nil
}

// SaveSession stores a session's state.
func (s *Store) SaveSession(_ context.Context, id string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.ErrClosed
	}
	s.sessions[id] = slices.Clone(data)
	return nil
}

// DeleteSession forgets a session and its events.
func (s *Store) DeleteSession(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.ErrClosed
	}
	delete(s.sessions, id)
	delete(s.events, id)
	delete(s.handoffs, id)
	return nil
}

// LoadSessions returns every session's state.
func (s *Store) LoadSessions(context.Context) (map[string][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, store.ErrClosed
	}
	out := make(map[string][]byte, len(s.sessions))
	for id, data := range s.sessions {
		out[id] = slices.Clone(data)
	}
	return out, nil
}

// Close makes later calls fail.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}
