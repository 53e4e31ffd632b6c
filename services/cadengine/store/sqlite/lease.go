package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

var (
	_ store.Store    = (*Store)(nil)
	_ store.Leases   = (*Store)(nil)
	_ store.Registry = (*Store)(nil)
)

// Grant implements [store.Leases]: one conditional upsert that increments
// the epoch, in an IMMEDIATE transaction so that a refusal reports the
// lease that caused it.
func (s *Store) Grant(ctx context.Context, documentID, holder string, ttl time.Duration) (_ store.Lease, err error) {
	if err := store.CheckGrant(documentID, holder, ttl); err != nil {
		return store.Lease{}, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return store.Lease{}, fmt.Errorf("grant lease on %s: %w", documentID, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	now := s.now()
	l := store.Lease{DocumentID: documentID, Holder: holder, ExpiresAt: now.Add(ttl)}
	err = tx.QueryRowContext(ctx, `INSERT INTO document_leases (document_id, holder, epoch, expires_at) VALUES (?, ?, 1, ?)
		ON CONFLICT(document_id) DO UPDATE SET holder = excluded.holder, epoch = epoch + 1, expires_at = excluded.expires_at
		WHERE holder = '' OR holder = excluded.holder OR expires_at <= ?
		RETURNING epoch`, documentID, holder, l.ExpiresAt.UnixNano(), now.UnixNano()).Scan(&l.Epoch)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		held := &store.LeaseHeldError{Lease: store.Lease{DocumentID: documentID}}
		var expires int64
		if err = tx.QueryRowContext(ctx, `SELECT l.holder, l.epoch, l.expires_at, coalesce(e.address, '')
			FROM document_leases l LEFT JOIN engines e ON e.id = l.holder AND e.expires_at > ?
			WHERE l.document_id = ?`, now.UnixNano(), documentID).Scan(&held.Lease.Holder, &held.Lease.Epoch, &expires, &held.Address); err != nil {
			return store.Lease{}, fmt.Errorf("grant lease on %s: %w", documentID, err)
		}
		held.Lease.ExpiresAt = time.Unix(0, expires).UTC()
		err = held
		return store.Lease{}, err
	case err != nil:
		return store.Lease{}, fmt.Errorf("grant lease on %s: %w", documentID, err)
	}
	if err = tx.Commit(); err != nil {
		return store.Lease{}, fmt.Errorf("grant lease on %s: %w", documentID, err)
	}
	return l, nil
}

// Renew implements [store.Leases].
func (s *Store) Renew(ctx context.Context, l store.Lease, ttl time.Duration) (store.Lease, error) {
	if err := store.CheckGrant(l.DocumentID, l.Holder, ttl); err != nil {
		return store.Lease{}, err
	}
	l.ExpiresAt = s.now().Add(ttl)
	if err := s.updateLease(ctx, "renew", l, l.Holder, l.ExpiresAt); err != nil {
		return store.Lease{}, err
	}
	return l, nil
}

// Release implements [store.Leases].
func (s *Store) Release(ctx context.Context, l store.Lease) error {
	return s.updateLease(ctx, "release", l, "", s.now())
}

// updateLease sets holder and expires on l's row while it is still l, and
// fails with [store.ErrLeaseLost] when it is not.
func (s *Store) updateLease(ctx context.Context, what string, l store.Lease, holder string, expires time.Time) error {
	res, err := s.db.ExecContext(ctx, `UPDATE document_leases SET holder = ?, expires_at = ?
		WHERE document_id = ? AND holder = ? AND epoch = ? AND holder != ''`,
		holder, expires.UnixNano(), l.DocumentID, l.Holder, l.Epoch)
	if err != nil {
		return fmt.Errorf("%s lease on %s: %w", what, l.DocumentID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("%s lease on %s: %w", what, l.DocumentID, err)
	} else if n == 0 {
		return fmt.Errorf("%s lease on %s, epoch %d of %q: %w", what, l.DocumentID, l.Epoch, l.Holder, store.ErrLeaseLost)
	}
	return nil
}

// Holder implements [store.Leases].
func (s *Store) Holder(ctx context.Context, documentID string) (*store.Lease, error) {
	l := store.Lease{DocumentID: documentID}
	var expires int64
	err := s.db.QueryRowContext(ctx, `SELECT holder, epoch, expires_at FROM document_leases
		WHERE document_id = ? AND holder != '' AND expires_at > ?`, documentID, s.now().UnixNano()).Scan(&l.Holder, &l.Epoch, &expires)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("lease holder of %s: %w", documentID, err)
	}
	l.ExpiresAt = time.Unix(0, expires).UTC()
	return &l, nil
}
