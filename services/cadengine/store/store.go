// Package store is the engine's durable storage behind one small
// interface, [Store]: documents (a row and its entities' canonical
// encodings), the operation journal and sessions. Beside it, for several
// engines sharing one store, are document leases with fencing ([Leases])
// and the registry of running engines ([Registry]). Each store lives in a
// package of its own (memory, sqlite, postgres) and passes the conformance
// suite in storetest; a store never imports the engine.
package store

import (
	"context"
	"errors"
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
	// Kind names the store: "sqlite", "memory" or "postgres".
	Kind() string
	// Load calls fn for every stored document with its entities in handle
	// order.
	Load(ctx context.Context, fn func(doc *DocumentRecord, entities []EntityRecord) error) error
	// Commit applies c atomically and durably: when it returns nil, the
	// change and its journal records are on disk. A commit under a lease
	// that is no longer the writer's fails whole with an error matching
	// [ErrFenced].
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
	// Entities counts the document's entities on the layer as of the
	// row, so that a document can be described without loading it; nil
	// in rows written before the count was kept.
	Entities *int64 `json:"entities,omitempty"`
}

// EntityRecord is an entity's stored form: its handle and its canonical
// encoding (see drawing.Entity.Encode), which the engine alone reads.
type EntityRecord struct {
	Handle uint64
	Data   []byte
}

// Commit is one store transaction: upsert the document row, delete
// entities by handle, put (insert or replace) entities, and upsert journal
// records. Document is nil for a commit that only journals. Deletes apply
// before puts, and of a handle put twice the last stays.
type Commit struct {
	Document   *DocumentRecord
	Put        []EntityRecord
	Delete     []uint64
	Operations []OperationRecord
	// Lease is the lease the commit is written under: the commit applies
	// only if that lease (document, holder and epoch) is still the
	// document's, checked in the same transaction, and fails whole with
	// [ErrFenced] otherwise. Nil writes unfenced, as a single engine does.
	// With a Document, Lease.DocumentID must be its ID.
	Lease *Lease
}

// OperationRecord is an operation's row in the journal:
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

// ErrClosed is returned (possibly wrapped) by a store's methods after
// Close.
var ErrClosed = errors.New("store closed")
