package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

var _ store.Events = (*Store)(nil)

// sqlAppendEvents appends one session's events under its lease and drops
// those that fell off its log, in one statement that answers 1, or 0 when
// the lease is not the writer's (and nothing was written). The lease row
// is held FOR SHARE until the transaction ends, as cadbridge_fence holds
// it, so no grant commits between the check and the writes. The
// statement's parts see one snapshot: the DELETE does not see the rows
// the INSERT adds, so an append carries no more events than the log keeps.
const sqlAppendEvents = `WITH fence AS (
		SELECT 1 FROM document_leases WHERE document_id = $1 AND holder = $2 AND epoch = $3 FOR SHARE
	), added AS (
		INSERT INTO session_events (session_id, seq, type, payload)
		SELECT $4, e.seq, e.type, e.payload FROM unnest($5::bigint[], $6::text[], $7::bytea[]) AS e (seq, type, payload)
		WHERE EXISTS (SELECT FROM fence)
		ON CONFLICT (session_id, seq) DO NOTHING
	), dropped AS (
		DELETE FROM session_events WHERE session_id = $4 AND seq <= $8 AND EXISTS (SELECT FROM fence)
	)
	SELECT count(*) FROM fence`

// AppendEvents implements [store.Events]: one statement per append, all
// in one batch, which PostgreSQL runs as one implicit transaction.
func (s *Store) AppendEvents(ctx context.Context, appends []store.EventAppend) ([]int, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	b := &pgx.Batch{}
	for _, a := range appends {
		evs := a.Events
		if int64(len(evs)) > a.Keep {
			evs = evs[int64(len(evs))-a.Keep:]
		}
		seqs, types, payloads := make([]int64, len(evs)), make([]string, len(evs)), make([][]byte, len(evs))
		for i, ev := range evs {
			seqs[i], types[i], payloads[i] = ev.Seq, ev.Type, notNil(ev.Payload)
		}
		oldest := int64(0) // what falls off the log: seq up to the newest less Keep
		if len(evs) > 0 {
			oldest = evs[len(evs)-1].Seq - a.Keep
		}
		b.Queue(sqlAppendEvents, a.Lease.DocumentID, a.Lease.Holder, a.Lease.Epoch, a.SessionID, seqs, types, payloads, oldest)
	}
	if b.Len() == 0 {
		return nil, nil
	}
	br := s.pool.SendBatch(ctx, b)
	var fenced []int
	for i := range appends {
		var held int
		if err := br.QueryRow().Scan(&held); err != nil {
			br.Close()
			return nil, fmt.Errorf("append events of %s: %w", appends[i].SessionID, err)
		}
		if held == 0 {
			fenced = append(fenced, i)
		}
	}
	if err := br.Close(); err != nil {
		return nil, fmt.Errorf("append events: %w", err)
	}
	return fenced, nil
}

// LoadEvents implements [store.Events].
func (s *Store) LoadEvents(ctx context.Context, sessionID string) ([]store.EventRecord, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT seq, type, payload FROM session_events WHERE session_id = $1 ORDER BY seq`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("load events of %s: %w", sessionID, err)
	}
	events, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.EventRecord, error) {
		var ev store.EventRecord
		err := row.Scan(&ev.Seq, &ev.Type, &ev.Payload)
		return ev, err
	})
	if err != nil {
		return nil, fmt.Errorf("load events of %s: %w", sessionID, err)
	}
	return events, nil
}
