package store

import "context"

// Events keeps sessions' event logs in a shared store, so that a session
// that moves to another engine (its owner died or let it go) replays the
// events after its client's cursor there, and its seq goes on as one
// sequence whichever engine emits. A session's log is bounded: each append
// keeps only the newest events of the session.
//
// Only the engine that holds a session's lease writes its events: every
// append is fenced by that lease, as a document's commit is, so an owner
// that was paused or cut off while another took the session over never
// writes into the new owner's log.
//
// An append outlives the engine that made it: once AppendEvents returns,
// every engine sharing the store reads it. It need not outlive the store
// itself: a store may make appends durable lazily (PostgreSQL writes them
// with synchronous_commit off, so the next synchronous commit, or the WAL
// writer within a moment, flushes them), and after its own crash it may
// have lost the newest ones. LoadEvents then says so.
//
// Events must be safe for concurrent use, also by several processes
// sharing the storage.
type Events interface {
	// AppendEvents stores each of appends, all in one transaction (one
	// round trip on PostgreSQL, whatever their number). An append whose
	// lease is no longer the session's writes nothing, and its index is
	// in fenced; the others are stored. An event already stored (same
	// session and seq) stays as it was, so a retry of an append that may
	// have landed changes nothing.
	AppendEvents(ctx context.Context, appends []EventAppend) (fenced []int, err error)
	// LoadEvents returns the stored events of the session, oldest first.
	// lost reports that the newest appends may be gone: the store
	// restarted (crashed) since the newest append it still has.
	LoadEvents(ctx context.Context, sessionID string) (events []EventRecord, lost bool, err error)
}

// EventAppend is events of one session, appended under the session's
// lease.
type EventAppend struct {
	// Lease is the session's lease (its DocumentID is the lease's key,
	// not the session id): the append applies only while it is still the
	// lease's holder and epoch, checked in the append's transaction.
	Lease     Lease
	SessionID string
	// Events are in ascending seq.
	Events []EventRecord
	// Keep is how many of the session's newest events the log keeps,
	// counted by seq from the newest appended: older ones are deleted.
	Keep int64
	// Handoffs are the ids of the handoffs ([Handoffs]) whose events
	// this append emits: deleted with it, and only if it is not fenced.
	Handoffs []string
}

// EventRecord is one event of a session's log: its seq, its type and its
// payload (JSON, opaque to the store).
type EventRecord struct {
	Seq     int64
	Type    string
	Payload []byte
}
