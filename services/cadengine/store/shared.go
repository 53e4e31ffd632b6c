package store

import (
	"context"
	"errors"
)

// Shared is a store that several engines may share (PostgreSQL; memory,
// for the engines of one process): besides [Store], it hands out document
// leases, keeps the registry of engines, and reads one document or one
// journal record at a time, for an engine that takes a document over from
// another and must see what that one committed.
type Shared interface {
	Store
	Leases
	Registry
	// LoadDocument reads one document with its entities in handle order,
	// in one snapshot. It fails with an error matching [ErrNoDocument]
	// when the document does not exist.
	LoadDocument(ctx context.Context, id string) (*DocumentRecord, []EntityRecord, error)
	// LoadOperation reads one journal record, or returns nil when the
	// journal has none of principal and id.
	LoadOperation(ctx context.Context, principal, id string) (*OperationRecord, error)
}

// ErrNoDocument is returned (wrapped) by [Shared.LoadDocument] for a
// document that does not exist.
var ErrNoDocument = errors.New("no such document")
