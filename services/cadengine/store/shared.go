package store

import (
	"context"
	"errors"
	"time"
)

// Shared is a store that several engines may share (PostgreSQL; memory,
// for the engines of one process): besides [Store], it hands out document
// leases, keeps the registry of engines and sessions' event logs
// ([Events]), and reads one document, journal record or session at a
// time, for an engine that takes one over from another and must see what
// that one committed. Its DeleteSession forgets the session's events too.
type Shared interface {
	Store
	Leases
	Registry
	Events
	// LoadDocument reads one document with its entities in handle order,
	// in one snapshot. It fails with an error matching [ErrNoDocument]
	// when the document does not exist.
	LoadDocument(ctx context.Context, id string) (*DocumentRecord, []EntityRecord, error)
	// LoadOperation reads one journal record, or returns nil when the
	// journal has none of principal and id.
	LoadOperation(ctx context.Context, principal, id string) (*OperationRecord, error)
	// LoadSession reads one session's state, or returns nil when the store
	// has no session id.
	LoadSession(ctx context.Context, id string) ([]byte, error)
	// ListDocuments reads the rows of the store's documents, whichever
	// engine created them, without their entities: at most limit of
	// them, in creation order (CreatedAt, then ID), after after (the
	// zero DocumentKey: from the first).
	ListDocuments(ctx context.Context, after DocumentKey, limit int) ([]DocumentRecord, error)
}

// DocumentKey is where a document is in creation order.
type DocumentKey struct {
	CreatedAt time.Time
	ID        string
}

// Before reports whether k comes before the document rec.
func (k DocumentKey) Before(rec *DocumentRecord) bool {
	if k == (DocumentKey{}) {
		return true
	}
	at, other := k.CreatedAt.UnixNano(), rec.CreatedAt.UnixNano()
	return at < other || at == other && k.ID < rec.ID
}

// ErrNoDocument is returned (wrapped) by [Shared.LoadDocument] for a
// document that does not exist.
var ErrNoDocument = errors.New("no such document")

// Changes is a shared store that tells every engine sharing it of the
// document commits of all of them, for document.changed across engines
// (PostgreSQL: LISTEN/NOTIFY, sent in the commit's transaction, so only
// commits that happened are told, and carrying ids only).
type Changes interface {
	// WatchChanges calls fn, from one goroutine, for every document
	// commit under a lease by any engine sharing the store (the caller's
	// own included), until ctx ends; a broken connection is reopened, and
	// what was committed meanwhile is not told. It returns ctx's error.
	WatchChanges(ctx context.Context, fn func(DocumentChange)) error
}

// DocumentChange is one commit of a document, as [Changes] tells it.
type DocumentChange struct {
	DocumentID string `json:"d"`
	Revision   int64  `json:"r"`
	// OperationID is the first journal record's operation of the commit.
	OperationID string `json:"o,omitempty"`
	// Holder is the engine that committed (the lease's holder).
	Holder string `json:"h"`
}
