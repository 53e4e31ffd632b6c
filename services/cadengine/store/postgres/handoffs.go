package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

var _ store.Handoffs = (*Store)(nil)

// sqlHandOver stores one handoff and, when it was not stored already,
// queues the notification of its session, in one statement.
const sqlHandOver = `WITH added AS (
		INSERT INTO event_handoffs (id, session_id, types, payloads) VALUES ($1, $2, $3, $4)
		ON CONFLICT (id) DO NOTHING RETURNING session_id
	) SELECT count(pg_notify('cadbridge_handoffs_' || current_schema(), session_id)) FROM added`

// HandOverEvents implements [store.Handoffs]: one statement per handoff,
// in one batch (one implicit transaction), committed lazily, as the
// session's log is (see AppendEvents): a handoff outlives any engine, not
// a crash of the server.
func (s *Store) HandOverEvents(ctx context.Context, handoffs []store.EventHandoff) error {
	if err := s.check(); err != nil {
		return err
	}
	if len(handoffs) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	b.Queue(sqlLazyCommit)
	for _, h := range handoffs {
		types, payloads := make([]string, len(h.Events)), make([][]byte, len(h.Events))
		for i, ev := range h.Events {
			types[i], payloads[i] = ev.Type, notNil(ev.Payload)
		}
		b.Queue(sqlHandOver, h.ID, h.SessionID, types, payloads)
	}
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("hand over events: %w", err)
	}
	return nil
}

// HandedOverEvents implements [store.Handoffs].
func (s *Store) HandedOverEvents(ctx context.Context, sessionID string) ([]store.EventHandoff, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT id, types, payloads FROM event_handoffs WHERE session_id = $1 ORDER BY n`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("load the events handed over to %s: %w", sessionID, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.EventHandoff, error) {
		var (
			h        = store.EventHandoff{SessionID: sessionID}
			types    []string
			payloads [][]byte
		)
		if err := row.Scan(&h.ID, &types, &payloads); err != nil {
			return h, err
		}
		if len(payloads) != len(types) {
			return h, fmt.Errorf("handoff %s of %d types and %d payloads", h.ID, len(types), len(payloads))
		}
		for i := range types {
			h.Events = append(h.Events, store.EventRecord{Type: types[i], Payload: payloads[i]})
		}
		return h, nil
	})
	if err != nil {
		return nil, fmt.Errorf("load the events handed over to %s: %w", sessionID, err)
	}
	return out, nil
}

// WatchHandoffs implements [store.Handoffs] with LISTEN on a connection
// of its own.
func (s *Store) WatchHandoffs(ctx context.Context, fn func(sessionID string)) error {
	return s.watch(ctx, "cadbridge_handoffs_", func(payload string) {
		if payload != "" {
			fn(payload)
		}
	})
}
