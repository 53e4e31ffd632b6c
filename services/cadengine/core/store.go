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

// Store keeps documents, the operation journal and sessions durably. The
// engine keeps every document in memory and writes through: each commit
// point of a tool call or batch is one Commit, holding the document's row,
// only the entities that changed, and the journal records of the
// operations it concludes. Load and LoadOperations run once, when the
// engine starts.
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
	// change and its journal records are on disk.
	Commit(ctx context.Context, c *Commit) error
	// LoadOperations calls fn for every journal record, oldest first.
	LoadOperations(ctx context.Context, fn func(op *OperationRecord) error) error
	// PruneOperations deletes the records of operations that finished
	// before t; records of running operations stay.
	PruneOperations(ctx context.Context, before time.Time) error
	// SaveSession stores a session's opaque state under id, replacing any
	// earlier state, durably.
	SaveSession(ctx context.Context, id string, data []byte) error
	// DeleteSession forgets a session; deleting an unknown id is not an
	// error.
	DeleteSession(ctx context.Context, id string) error
	// LoadSessions returns every stored session's state by id.
	LoadSessions(ctx context.Context) (map[string][]byte, error)
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
// replace) entities, delete entities by handle, and upsert journal
// records. Document is nil for a commit that only journals.
type Commit struct {
	Document   *DocumentRecord
	Put        []EntityRecord
	Delete     []uint64
	Operations []OperationRecord
}

// OperationRecord is an operation's row in the journal (see operations.go):
// who ran what, whether it finished, which of its steps are on disk, and —
// once it finished, or at a commit point it reached — its result.
// Records are keyed by principal and id.
type OperationRecord struct {
	Principal   string
	ID          string
	Kind        string // "cad.batch" or the tool name
	DocumentID  string // "" for engine tools
	RequestHash []byte // SHA-256 of the canonical request, see requestHash
	Status      enginev1.OperationStatus
	// CommittedSteps are the steps whose changes are on disk, ascending.
	CommittedSteps []int32
	// Revision is the document's revision as of this record.
	Revision int64
	// Response is the proto encoding of the ExecuteBatchResponse: the
	// final result, or while running the result the operation would have
	// if it stopped now (see run.partial).
	Response   []byte
	StartedAt  time.Time
	FinishedAt time.Time // zero while running
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
	mu       sync.Mutex // guards docs, ops, sessions and closed
	docs     map[string]*memDoc
	ops      map[[2]string]OperationRecord // by principal and id
	sessions map[string][]byte
	closed   bool
}

type memDoc struct {
	rec  DocumentRecord
	ents map[uint64][]byte
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{docs: map[string]*memDoc{}, ops: map[[2]string]OperationRecord{}, sessions: map[string][]byte{}}
}

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
	if c.Document != nil {
		d := s.docs[c.Document.ID]
		if d == nil {
			d = &memDoc{ents: map[uint64][]byte{}}
			s.docs[c.Document.ID] = d
		}
		d.rec = *c.Document
		d.rec.Layers = slices.Clone(c.Document.Layers)
		for _, h := range c.Delete {
			delete(d.ents, h)
		}
		for _, e := range c.Put {
			d.ents[e.Handle] = slices.Clone(e.Data)
		}
	}
	for _, op := range c.Operations {
		s.ops[[2]string{op.Principal, op.ID}] = cloneOperation(op)
	}
	return nil
}

func cloneOperation(op OperationRecord) OperationRecord {
	op.RequestHash = slices.Clone(op.RequestHash)
	op.CommittedSteps = slices.Clone(op.CommittedSteps)
	op.Response = slices.Clone(op.Response)
	return op
}

// LoadOperations calls fn for every journal record, oldest first.
func (s *MemoryStore) LoadOperations(ctx context.Context, fn func(*OperationRecord) error) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errStoreClosed
	}
	all := make([]OperationRecord, 0, len(s.ops))
	for _, op := range s.ops {
		all = append(all, cloneOperation(op))
	}
	s.mu.Unlock()
	slices.SortFunc(all, func(a, b OperationRecord) int {
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
func (s *MemoryStore) PruneOperations(_ context.Context, before time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errStoreClosed
	}
	for k, op := range s.ops {
		if !op.FinishedAt.IsZero() && op.FinishedAt.Before(before) {
			delete(s.ops, k)
		}
	}
	return nil
}

// SaveSession stores a session's state.
func (s *MemoryStore) SaveSession(_ context.Context, id string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errStoreClosed
	}
	s.sessions[id] = slices.Clone(data)
	return nil
}

// DeleteSession forgets a session.
func (s *MemoryStore) DeleteSession(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errStoreClosed
	}
	delete(s.sessions, id)
	return nil
}

// LoadSessions returns every session's state.
func (s *MemoryStore) LoadSessions(context.Context) (map[string][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errStoreClosed
	}
	out := make(map[string][]byte, len(s.sessions))
	for id, data := range s.sessions {
		out[id] = slices.Clone(data)
	}
	return out, nil
}

// Close makes later calls fail.
func (s *MemoryStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

var errStoreClosed = fmt.Errorf("store closed")
