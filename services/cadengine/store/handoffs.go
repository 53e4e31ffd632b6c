package store

import "context"

// Handoffs is a shared store that carries sessions' events between
// engines: a batch that runs on the engine holding its document, while its
// session is owned by another engine, hands the events it emits for the
// session (batch.progress, operation.finished) to the session's owner
// through it. The owner, told by WatchHandoffs, reads them
// (HandedOverEvents), emits them into the session's log, which gives them
// their seqs, and deletes them in the same transaction as that append
// ([EventAppend.Handoffs]): a handoff is emitted exactly once, by
// whichever engine owns the session when it is emitted. Changes carry
// session ids only; the rest is read.
type Handoffs interface {
	// HandOverEvents stores each of handoffs, all in one transaction,
	// unless a handoff of its id is stored already (so a retry of one
	// that may have landed changes nothing), and tells the watchers of
	// their sessions. A handoff stored later is read after one stored
	// earlier.
	HandOverEvents(ctx context.Context, handoffs []EventHandoff) error
	// HandedOverEvents lists the stored handoffs of the session, in the
	// order they were stored.
	HandedOverEvents(ctx context.Context, sessionID string) ([]EventHandoff, error)
	// WatchHandoffs calls fn, from one goroutine, with the session of
	// every handoff stored by any engine sharing the store, until ctx
	// ends; a broken connection is reopened, and what was stored
	// meanwhile is not told. It returns ctx's error.
	WatchHandoffs(ctx context.Context, fn func(sessionID string)) error
}

// EventHandoff is events of one session handed to its owner, in the order
// they were emitted. Their Seq is not set: the owner gives them theirs.
type EventHandoff struct {
	// ID is unique (chosen by the engine that hands them over).
	ID        string
	SessionID string
	Events    []EventRecord
}
