package postgres

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

var _ store.Events = (*Store)(nil)

// sqlAppendEvents appends one session's events under its lease, as one
// row, and drops the rows whose events all fell off its log, in one
// statement that answers 1, or 0 when the lease is not the writer's (and
// nothing was written). The lease row is held FOR SHARE until the
// transaction ends, as cadbridge_fence holds it, so no grant commits
// between the check and the writes.
const sqlAppendEvents = `WITH fence AS (
		SELECT 1 FROM document_leases WHERE document_id = $1 AND holder = $2 AND epoch = $3 FOR SHARE
	), added AS (
		INSERT INTO session_events (session_id, last_seq, keep, seqs, types, payloads)
		SELECT $4, $5, $6, $7, $8, $9 WHERE EXISTS (SELECT FROM fence)
	), dropped AS (
		DELETE FROM session_events WHERE session_id = $4 AND last_seq <= $5 - $6 AND EXISTS (SELECT FROM fence)
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
		n := len(a.Events)
		seqs, types, payloads := make([]int64, n), make([]string, n), make([][]byte, n)
		last := int64(0)
		for i, ev := range a.Events {
			seqs[i], types[i], payloads[i] = ev.Seq, ev.Type, notNil(ev.Payload)
			last = max(last, ev.Seq)
		}
		b.Queue(sqlAppendEvents, a.Lease.DocumentID, a.Lease.Holder, a.Lease.Epoch, a.SessionID, last, a.Keep, seqs, types, payloads)
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

// LoadEvents implements [store.Events]: the rows in append order, each
// seq as first appended, without those that fell off the log as of the
// newest append.
func (s *Store) LoadEvents(ctx context.Context, sessionID string) ([]store.EventRecord, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT last_seq, keep, seqs, types, payloads FROM session_events WHERE session_id = $1 ORDER BY id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("load events of %s: %w", sessionID, err)
	}
	defer rows.Close()
	var (
		events       []store.EventRecord
		seen         = map[int64]bool{}
		newest, keep int64
	)
	for rows.Next() {
		var (
			last, k  int64
			seqs     []int64
			types    []string
			payloads [][]byte
		)
		if err := rows.Scan(&last, &k, &seqs, &types, &payloads); err != nil {
			return nil, fmt.Errorf("load events of %s: %w", sessionID, err)
		}
		if len(types) != len(seqs) || len(payloads) != len(seqs) {
			return nil, fmt.Errorf("load events of %s: an append of %d seqs, %d types and %d payloads", sessionID, len(seqs), len(types), len(payloads))
		}
		if last >= newest {
			newest, keep = last, k
		}
		for i, seq := range seqs {
			if !seen[seq] {
				seen[seq] = true
				events = append(events, store.EventRecord{Seq: seq, Type: types[i], Payload: payloads[i]})
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load events of %s: %w", sessionID, err)
	}
	events = slices.DeleteFunc(events, func(ev store.EventRecord) bool { return ev.Seq <= newest-keep })
	slices.SortFunc(events, func(a, b store.EventRecord) int { return cmp.Compare(a.Seq, b.Seq) })
	return events, nil
}
