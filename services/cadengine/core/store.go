package core

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// Store keeps documents durably. The engine keeps every document in memory
// and writes through: each committed tool call is one Commit, holding the
// document's row and only the entities that changed. Load runs once, when
// the engine starts.
//
// A Store must be safe for concurrent use; the engine commits documents
// concurrently, one writer per document.
type Store interface {
	// Kind names the store: "sqlite" or "memory".
	Kind() string
	// Load calls fn for every stored document with its entities in handle
	// order.
	Load(ctx context.Context, fn func(doc *DocumentRecord, entities []EntityRecord) error) error
	// Commit applies c atomically and durably: when it returns nil, the
	// change is on disk.
	Commit(ctx context.Context, c *Commit) error
	// Close releases the store.
	Close() error
}

// DocumentRecord is a document's row: everything but its entities.
type DocumentRecord struct {
	ID           string
	Name         string
	Units        enginev1.Units
	CreatedAt    time.Time
	Revision     int64
	NextHandle   uint64 // the next entity handle to give out
	CurrentLayer string
	Layers       []LayerRecord // in creation order
	ContentHash  string
}

// LayerRecord is a layer's stored state.
type LayerRecord struct {
	Name       string `json:"name"`
	Color      int32  `json:"color"`
	Linetype   string `json:"linetype"`
	Lineweight int32  `json:"lineweight"`
	On         bool   `json:"on"`
	Frozen     bool   `json:"frozen"`
	Locked     bool   `json:"locked"`
}

// EntityRecord is an entity's stored form: its handle and its canonical
// encoding (see encoding.go), which the engine alone reads.
type EntityRecord struct {
	Handle uint64
	Data   []byte
}

// Commit is one store transaction: upsert the document row, put (insert or
// replace) entities, delete entities by handle.
type Commit struct {
	Document DocumentRecord
	Put      []EntityRecord
	Delete   []uint64
}

// OpenStore opens a store from its spec: "sqlite:PATH" (a SQLite file in WAL
// mode with synchronous=FULL; missing parent directories are created) or
// "memory:" (nothing survives the process; for tests).
func OpenStore(spec string) (Store, error) {
	kind, rest, ok := strings.Cut(spec, ":")
	if !ok {
		return nil, fmt.Errorf("store %q: want sqlite:PATH or memory:", spec)
	}
	switch kind {
	case "memory":
		if rest != "" {
			return nil, fmt.Errorf("store %q: memory: takes no path", spec)
		}
		return NewMemoryStore(), nil
	case "sqlite":
		return openSQLite(rest)
	default:
		return nil, fmt.Errorf("store %q: unknown kind %q (want sqlite or memory)", spec, kind)
	}
}

// MemoryStore is a Store in memory. Records are copied in and out, so an
// engine that reopens the same MemoryStore sees what the previous one
// committed, as with a file.
type MemoryStore struct {
	mu     sync.Mutex // guards docs, closed
	docs   map[string]*memDoc
	closed bool
}

type memDoc struct {
	rec  DocumentRecord
	ents map[uint64][]byte
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{docs: map[string]*memDoc{}} }

// Kind is "memory".
func (*MemoryStore) Kind() string { return "memory" }

// Load calls fn for every document, in id order.
func (s *MemoryStore) Load(ctx context.Context, fn func(*DocumentRecord, []EntityRecord) error) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errStoreClosed
	}
	type snap struct {
		rec  DocumentRecord
		ents []EntityRecord
	}
	var all []snap
	for _, id := range slices.Sorted(maps.Keys(s.docs)) {
		d := s.docs[id]
		rec := d.rec
		rec.Layers = slices.Clone(rec.Layers)
		ents := make([]EntityRecord, 0, len(d.ents))
		for _, h := range slices.Sorted(maps.Keys(d.ents)) {
			ents = append(ents, EntityRecord{Handle: h, Data: slices.Clone(d.ents[h])})
		}
		all = append(all, snap{rec, ents})
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
func (s *MemoryStore) Commit(_ context.Context, c *Commit) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errStoreClosed
	}
	d := s.docs[c.Document.ID]
	if d == nil {
		d = &memDoc{ents: map[uint64][]byte{}}
		s.docs[c.Document.ID] = d
	}
	d.rec = c.Document
	d.rec.Layers = slices.Clone(c.Document.Layers)
	for _, h := range c.Delete {
		delete(d.ents, h)
	}
	for _, e := range c.Put {
		d.ents[e.Handle] = slices.Clone(e.Data)
	}
	return nil
}

// Close makes later calls fail.
func (s *MemoryStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

var errStoreClosed = fmt.Errorf("store closed")
