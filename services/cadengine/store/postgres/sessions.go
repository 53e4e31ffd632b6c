package postgres

import (
	"context"
	"fmt"
)

// SaveSession implements [store.Store].
func (s *Store) SaveSession(ctx context.Context, id string, data []byte) error {
	if err := s.check(); err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO sessions (id, data) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET data = excluded.data`,
		id, notNil(data)); err != nil {
		return fmt.Errorf("save session %s: %w", id, err)
	}
	return nil
}

// DeleteSession implements [store.Store]: the session and its events.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	if err := s.check(); err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, `WITH events AS (DELETE FROM session_events WHERE session_id = $1),
		handoffs AS (DELETE FROM event_handoffs WHERE session_id = $1)
		DELETE FROM sessions WHERE id = $1`, id); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil
}

// LoadSessions implements [store.Store].
func (s *Store) LoadSessions(ctx context.Context) (map[string][]byte, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT id, data FROM sessions`)
	if err != nil {
		return nil, fmt.Errorf("load sessions: %w", err)
	}
	defer rows.Close()
	out := map[string][]byte{}
	for rows.Next() {
		var (
			id   string
			data []byte
		)
		if err := rows.Scan(&id, &data); err != nil {
			return nil, fmt.Errorf("load sessions: %w", err)
		}
		out[id] = notNil(data)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load sessions: %w", err)
	}
	return out, nil
}
