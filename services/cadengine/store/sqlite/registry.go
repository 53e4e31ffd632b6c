package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// Register implements [store.Registry].
func (s *Store) Register(ctx context.Context, id, address string, ttl time.Duration) error {
	if err := store.CheckRegister(id, ttl); err != nil {
		return err
	}
	now := s.now()
	if _, err := s.db.ExecContext(ctx, `INSERT INTO engines (id, address, registered_at, heartbeat_at, expires_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET address = excluded.address, registered_at = excluded.registered_at,
			heartbeat_at = excluded.heartbeat_at, expires_at = excluded.expires_at`,
		id, address, now.UnixNano(), now.UnixNano(), now.Add(ttl).UnixNano()); err != nil {
		return fmt.Errorf("register engine %s: %w", id, err)
	}
	return nil
}

// Heartbeat implements [store.Registry].
func (s *Store) Heartbeat(ctx context.Context, id string, ttl time.Duration) error {
	if err := store.CheckRegister(id, ttl); err != nil {
		return err
	}
	now := s.now()
	res, err := s.db.ExecContext(ctx, `UPDATE engines SET heartbeat_at = ?, expires_at = ? WHERE id = ?`, now.UnixNano(), now.Add(ttl).UnixNano(), id)
	if err != nil {
		return fmt.Errorf("heartbeat of %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("heartbeat of %s: %w", id, err)
	} else if n == 0 {
		return fmt.Errorf("heartbeat of %s: %w", id, store.ErrNotRegistered)
	}
	return nil
}

// Deregister implements [store.Registry].
func (s *Store) Deregister(ctx context.Context, id string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM engines WHERE id = ?`, id); err != nil {
		return fmt.Errorf("deregister engine %s: %w", id, err)
	}
	return nil
}

// Engines implements [store.Registry].
func (s *Store) Engines(ctx context.Context) ([]store.EngineRecord, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, address, registered_at, heartbeat_at, expires_at FROM engines WHERE expires_at > ? ORDER BY id`, s.now().UnixNano())
	if err != nil {
		return nil, fmt.Errorf("list engines: %w", err)
	}
	defer rows.Close()
	var out []store.EngineRecord
	for rows.Next() {
		var (
			e                     store.EngineRecord
			registered, beat, exp int64
		)
		if err := rows.Scan(&e.ID, &e.Address, &registered, &beat, &exp); err != nil {
			return nil, fmt.Errorf("list engines: %w", err)
		}
		e.RegisteredAt, e.HeartbeatAt, e.ExpiresAt = time.Unix(0, registered).UTC(), time.Unix(0, beat).UTC(), time.Unix(0, exp).UTC()
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list engines: %w", err)
	}
	return out, nil
}
