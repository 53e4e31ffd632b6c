package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

var _ store.Requests = (*Store)(nil)

// sqlNotifyRequest tells the watchers of a request's change; queued in
// (or part of) the change's transaction, it is delivered when, and only
// if, that commits.
const sqlNotifyRequest = `pg_notify('cadbridge_requests_' || current_schema(), json_build_object('i', id, 's', session_id, 't', state, 'r', reason)::text)`

// OpenRequest implements [store.Requests]: the insert and the notification
// in one implicit transaction.
func (s *Store) OpenRequest(ctx context.Context, r *store.RequestRecord) error {
	if err := s.check(); err != nil {
		return err
	}
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO server_requests (id, session_id, asker, frame, params, state) VALUES ($1, $2, $3, $4, $5, 1)
		ON CONFLICT (id) DO NOTHING`, r.ID, r.SessionID, r.Asker, notNil(r.Frame), notNil(r.Params))
	b.Queue(`SELECT `+sqlNotifyRequest+` FROM server_requests WHERE id = $1 AND state = 1`, r.ID)
	err := s.pool.SendBatch(ctx, b).Close()
	if err != nil {
		return fmt.Errorf("open request %s: %w", r.ID, err)
	}
	return nil
}

// close moves open request id to state, with answer or reason, and tells
// the watchers; false when it was not open.
func (s *Store) close(ctx context.Context, id string, state store.RequestState, answer []byte, reason int32) (bool, error) {
	if err := s.check(); err != nil {
		return false, err
	}
	var n int
	err := s.pool.QueryRow(ctx, `WITH closed AS (
			UPDATE server_requests SET state = $2, answer = $3, reason = $4 WHERE id = $1 AND state = 1
			RETURNING id, session_id, state, reason
		) SELECT count(`+sqlNotifyRequest+`) FROM closed`, id, int32(state), answer, reason).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("close request %s: %w", id, err)
	}
	return n == 1, nil
}

// AnswerRequest implements [store.Requests].
func (s *Store) AnswerRequest(ctx context.Context, id string, answer []byte) (bool, error) {
	return s.close(ctx, id, store.RequestAnswered, notNil(answer), 0)
}

// WithdrawRequest implements [store.Requests].
func (s *Store) WithdrawRequest(ctx context.Context, id string, reason int32) (bool, error) {
	return s.close(ctx, id, store.RequestWithdrawn, nil, reason)
}

const sqlRequestColumns = `id, session_id, asker, frame, params, state, answer, reason`

func scanRequest(row pgx.Row) (store.RequestRecord, error) {
	var (
		r     store.RequestRecord
		state int32
	)
	err := row.Scan(&r.ID, &r.SessionID, &r.Asker, &r.Frame, &r.Params, &state, &r.Answer, &r.Reason)
	r.State = store.RequestState(state)
	return r, err
}

// LoadRequest implements [store.Requests].
func (s *Store) LoadRequest(ctx context.Context, id string) (*store.RequestRecord, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	r, err := scanRequest(s.pool.QueryRow(ctx, `SELECT `+sqlRequestColumns+` FROM server_requests WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load request %s: %w", id, err)
	}
	return &r, nil
}

// OpenRequests implements [store.Requests].
func (s *Store) OpenRequests(ctx context.Context, sessionID string) ([]store.RequestRecord, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT `+sqlRequestColumns+` FROM server_requests
		WHERE session_id = $1 AND state = 1 ORDER BY opened_at, id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("load the open requests of %s: %w", sessionID, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.RequestRecord, error) { return scanRequest(row) })
	if err != nil {
		return nil, fmt.Errorf("load the open requests of %s: %w", sessionID, err)
	}
	return out, nil
}

// DeleteRequest implements [store.Requests].
func (s *Store) DeleteRequest(ctx context.Context, id string) error {
	if err := s.check(); err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM server_requests WHERE id = $1`, id); err != nil {
		return fmt.Errorf("delete request %s: %w", id, err)
	}
	return nil
}

// WatchRequests implements [store.Requests] with LISTEN on a connection
// of its own.
func (s *Store) WatchRequests(ctx context.Context, fn func(store.RequestChange)) error {
	return s.watch(ctx, "cadbridge_requests_", func(payload string) {
		var ch store.RequestChange
		if json.Unmarshal([]byte(payload), &ch) == nil && ch.ID != "" {
			fn(ch)
		}
	})
}
