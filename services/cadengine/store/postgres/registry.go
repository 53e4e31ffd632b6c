package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// Register implements [store.Registry]. Times are the server's clock.
func (s *Store) Register(ctx context.Context, id, address string, ttl time.Duration) error {
	if err := store.CheckRegister(id, ttl); err != nil {
		return err
	}
	if err := s.check(); err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO engines (id, address, registered_at, heartbeat_at, expires_at)
		VALUES ($1, $2, now(), now(), now() + $3::bigint * interval '1 microsecond')
		ON CONFLICT (id) DO UPDATE SET address = excluded.address, registered_at = excluded.registered_at,
			heartbeat_at = excluded.heartbeat_at, expires_at = excluded.expires_at`, id, address, micros(ttl)); err != nil {
		return fmt.Errorf("register engine %s: %w", id, err)
	}
	return nil
}

// Heartbeat implements [store.Registry].
func (s *Store) Heartbeat(ctx context.Context, id string, ttl time.Duration) error {
	if err := store.CheckRegister(id, ttl); err != nil {
		return err
	}
	if err := s.check(); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `UPDATE engines SET heartbeat_at = now(), expires_at = now() + $2::bigint * interval '1 microsecond'
		WHERE id = $1`, id, micros(ttl))
	if err != nil {
		return fmt.Errorf("heartbeat of %s: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("heartbeat of %s: %w", id, store.ErrNotRegistered)
	}
	return nil
}

// Deregister implements [store.Registry].
func (s *Store) Deregister(ctx context.Context, id string) error {
	if err := s.check(); err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM engines WHERE id = $1`, id); err != nil {
		return fmt.Errorf("deregister engine %s: %w", id, err)
	}
	return nil
}

// Engines implements [store.Registry].
func (s *Store) Engines(ctx context.Context) ([]store.EngineRecord, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT id, address, registered_at, heartbeat_at, expires_at FROM engines
		WHERE expires_at > now() ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list engines: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.EngineRecord, error) {
		var e store.EngineRecord
		err := row.Scan(&e.ID, &e.Address, &e.RegisteredAt, &e.HeartbeatAt, &e.ExpiresAt)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("list engines: %w", err)
	}
	return out, nil
}
