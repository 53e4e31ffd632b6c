package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Leases hands out document leases: one writer per document among the
// engines that share a store. A lease has a fencing token, its epoch,
// that only grows: every grant of a document's lease increments it, and a
// [Commit] under a lease applies only while that lease is still the
// document's, checked by the store in the commit's own transaction. So a
// holder that was paused or cut off while another took over can never
// commit afterwards, whatever its clock says.
//
// Expiry is measured on the store's clock (the database server's for a
// shared store), never the caller's. An expired lease stays the
// document's, and its holder may still renew it and commit under it,
// until another holder is granted the lease.
//
// Leases must be safe for concurrent use, also by several processes
// sharing the storage.
type Leases interface {
	// Grant takes the lease on documentID for holder for ttl, when it is
	// free, released, expired or already holder's, incrementing its epoch
	// in one conditional write. When another holder's lease is live, it
	// fails with a *[LeaseHeldError] (matching [ErrLeaseHeld]).
	Grant(ctx context.Context, documentID, holder string, ttl time.Duration) (Lease, error)
	// Renew extends l by ttl from now, while l is still the document's
	// lease (same holder and epoch), and returns the renewed lease. It
	// fails with [ErrLeaseLost] when another holder was granted the lease
	// since, or l was released.
	Renew(ctx context.Context, l Lease, ttl time.Duration) (Lease, error)
	// Release gives up l, so that another holder may be granted the lease
	// at once. It fails with [ErrLeaseLost] when l is no longer the
	// document's lease.
	Release(ctx context.Context, l Lease) error
	// Holder returns the live (granted, unreleased and unexpired) lease on
	// documentID, or nil when there is none.
	Holder(ctx context.Context, documentID string) (*Lease, error)
}

// Lease is a holder's right to write a document, until ExpiresAt unless
// renewed.
type Lease struct {
	DocumentID string
	// Holder names who holds the lease: an engine's id (see [Registry]).
	Holder string
	// Epoch is the fencing token: it grows with every grant of the
	// document's lease, and is never 0.
	Epoch int64
	// ExpiresAt is when the lease expires unless renewed, on the store's
	// clock.
	ExpiresAt time.Time
}

// ErrFenced is returned (wrapped) by [Store.Commit] for a commit whose
// lease is no longer the document's: nothing of the commit was applied.
var ErrFenced = errors.New("commit fenced: the lease is no longer the writer's")

// ErrLeaseHeld is matched by the *[LeaseHeldError] that [Leases.Grant]
// returns when another holder's lease is live.
var ErrLeaseHeld = errors.New("lease held by another holder")

// ErrLeaseLost is returned (wrapped) by [Leases.Renew] and
// [Leases.Release] for a lease that is no longer the document's.
var ErrLeaseLost = errors.New("lease lost")

// LeaseHeldError is the error of a [Leases.Grant] refused because another
// holder's lease on the document is live.
type LeaseHeldError struct {
	// Lease is the live lease.
	Lease Lease
	// Address is the address its holder advertises in the [Registry], or
	// "" when the holder is not a live registered engine.
	Address string
}

// Error names the document, the holder and its address.
func (e *LeaseHeldError) Error() string {
	at := ""
	if e.Address != "" {
		at = " at " + e.Address
	}
	return fmt.Sprintf("lease on %s held by %s%s until %s", e.Lease.DocumentID, e.Lease.Holder, at, e.Lease.ExpiresAt.Format(time.RFC3339Nano))
}

// Is reports whether target is [ErrLeaseHeld].
func (e *LeaseHeldError) Is(target error) bool { return target == ErrLeaseHeld }

// CheckGrant checks the arguments of a [Leases.Grant], for the stores to
// share: a document id, a holder and a positive ttl.
func CheckGrant(documentID, holder string, ttl time.Duration) error {
	switch {
	case documentID == "":
		return errors.New("grant lease: empty document id")
	case holder == "":
		return fmt.Errorf("grant lease on %s: empty holder", documentID)
	case ttl <= 0:
		return fmt.Errorf("grant lease on %s: ttl %v is not positive", documentID, ttl)
	}
	return nil
}

// CheckFence checks a commit's lease against its document, for the stores
// to share: with a Document, the lease must be on that document.
func CheckFence(c *Commit) error {
	if c.Lease == nil {
		return nil
	}
	if c.Lease.DocumentID == "" || c.Lease.Holder == "" || c.Lease.Epoch == 0 {
		return fmt.Errorf("commit under lease %+v: no document, holder or epoch: %w", *c.Lease, ErrFenced)
	}
	if c.Document != nil && c.Document.ID != c.Lease.DocumentID {
		return fmt.Errorf("commit of %s under the lease on %s", c.Document.ID, c.Lease.DocumentID)
	}
	return nil
}

// Fenced is the error of a commit under l refused because the document's
// lease is at epoch of holder ("" when released or never granted), for the
// stores to share. It matches [ErrFenced].
func Fenced(l *Lease, holder string, epoch int64) error {
	return fmt.Errorf("commit of %s under epoch %d of %q (the lease is at epoch %d of %q): %w",
		l.DocumentID, l.Epoch, l.Holder, epoch, holder, ErrFenced)
}
