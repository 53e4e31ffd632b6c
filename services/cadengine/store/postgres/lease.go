package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// sqlGrant takes a document's lease for a holder when it is free,
// released, expired or already the holder's: one conditional upsert that
// increments the epoch, atomic against any other grant, renewal or
// fenced commit of the document (they all lock the lease row).
const sqlGrant = `INSERT INTO document_leases AS l (document_id, holder, epoch, expires_at)
	VALUES ($1, $2, 1, now() + $3::bigint * interval '1 microsecond')
	ON CONFLICT (document_id) DO UPDATE SET holder = excluded.holder, epoch = l.epoch + 1, expires_at = excluded.expires_at
	WHERE l.holder = '' OR l.holder = excluded.holder OR l.expires_at <= now()
	RETURNING epoch, expires_at`

// sqlLiveLease reads a document's live lease and the address of its
// holder, when the holder is a live registered engine.
const sqlLiveLease = `SELECT l.holder, l.epoch, l.expires_at, coalesce(e.address, '')
	FROM document_leases l LEFT JOIN engines e ON e.id = l.holder AND e.expires_at > now()
	WHERE l.document_id = $1 AND l.holder <> '' AND l.expires_at > now()`

// grantAttempts bounds the retries of a grant whose refusal could not
// name the lease that refused it, because that lease was released or
// expired in between.
const grantAttempts = 3

// Grant implements [store.Leases]. Expiry is the server's clock.
func (s *Store) Grant(ctx context.Context, documentID, holder string, ttl time.Duration) (store.Lease, error) {
	if err := store.CheckGrant(documentID, holder, ttl); err != nil {
		return store.Lease{}, err
	}
	if err := s.check(); err != nil {
		return store.Lease{}, err
	}
	for range grantAttempts {
		l := store.Lease{DocumentID: documentID, Holder: holder}
		err := s.pool.QueryRow(ctx, sqlGrant, documentID, holder, micros(ttl)).Scan(&l.Epoch, &l.ExpiresAt)
		if err == nil {
			return l, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return store.Lease{}, fmt.Errorf("grant lease on %s: %w", documentID, err)
		}
		held := &store.LeaseHeldError{Lease: store.Lease{DocumentID: documentID}}
		err = s.pool.QueryRow(ctx, sqlLiveLease, documentID).Scan(&held.Lease.Holder, &held.Lease.Epoch, &held.Lease.ExpiresAt, &held.Address)
		if err == nil {
			return store.Lease{}, held
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return store.Lease{}, fmt.Errorf("grant lease on %s: %w", documentID, err)
		}
	}
	return store.Lease{}, fmt.Errorf("grant lease on %s: contended %d times", documentID, grantAttempts)
}

// Renew implements [store.Leases].
func (s *Store) Renew(ctx context.Context, l store.Lease, ttl time.Duration) (store.Lease, error) {
	if err := store.CheckGrant(l.DocumentID, l.Holder, ttl); err != nil {
		return store.Lease{}, err
	}
	if err := s.check(); err != nil {
		return store.Lease{}, err
	}
	err := s.pool.QueryRow(ctx, `UPDATE document_leases SET expires_at = now() + $4::bigint * interval '1 microsecond'
		WHERE document_id = $1 AND holder = $2 AND epoch = $3 AND holder <> ''
		RETURNING expires_at`, l.DocumentID, l.Holder, l.Epoch, micros(ttl)).Scan(&l.ExpiresAt)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return store.Lease{}, fmt.Errorf("renew lease on %s, epoch %d of %q: %w", l.DocumentID, l.Epoch, l.Holder, store.ErrLeaseLost)
	case err != nil:
		return store.Lease{}, fmt.Errorf("renew lease on %s: %w", l.DocumentID, err)
	}
	return l, nil
}

// Release implements [store.Leases]: the row keeps its epoch, so the
// next grant still raises it.
func (s *Store) Release(ctx context.Context, l store.Lease) error {
	if err := s.check(); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `UPDATE document_leases SET holder = '', expires_at = now()
		WHERE document_id = $1 AND holder = $2 AND epoch = $3 AND holder <> ''`, l.DocumentID, l.Holder, l.Epoch)
	if err != nil {
		return fmt.Errorf("release lease on %s: %w", l.DocumentID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("release lease on %s, epoch %d of %q: %w", l.DocumentID, l.Epoch, l.Holder, store.ErrLeaseLost)
	}
	return nil
}

// Holder implements [store.Leases].
func (s *Store) Holder(ctx context.Context, documentID string) (*store.Lease, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	l := store.Lease{DocumentID: documentID}
	var address string
	err := s.pool.QueryRow(ctx, sqlLiveLease, documentID).Scan(&l.Holder, &l.Epoch, &l.ExpiresAt, &address)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("lease holder of %s: %w", documentID, err)
	}
	return &l, nil
}
