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
const sqlAppendEvents = sqlFencedAppend + `
	SELECT count(*) FROM fence`

// sqlFencedAppend is the fence and the writes of sqlAppendEvents.
const sqlFencedAppend = `WITH fence AS (
		SELECT 1 FROM document_leases WHERE document_id = $1 AND holder = $2 AND epoch = $3 AND holder <> '' FOR SHARE
	), added AS (
		INSERT INTO session_events (session_id, last_seq, keep, seqs, types, payloads)
		SELECT $4, $5, $6, $7, $8, $9 WHERE EXISTS (SELECT FROM fence)
	), dropped AS (
		DELETE FROM session_events WHERE session_id = $4 AND last_seq <= $5 - $6 AND EXISTS (SELECT FROM fence)
	)`

// sqlAppendHandedEvents is sqlAppendEvents that also deletes the
// handoffs ($10) whose events it emits, under the same fence.
const sqlAppendHandedEvents = sqlFencedAppend + `, handed AS (
		DELETE FROM event_handoffs WHERE id = ANY($10) AND EXISTS (SELECT FROM fence)
	)
	SELECT count(*) FROM fence`

// sqlLazyCommit makes the transaction it runs in commit with
// synchronous_commit off: the commit is visible to every connection at
// once, and on disk at the next synchronous commit of any connection or
// within three wal_writer_delay, without waiting for the WAL's flush.
const sqlLazyCommit = `SELECT set_config('synchronous_commit', 'off', true)`

// AppendEvents implements [store.Events]: one statement per append, all
// in one batch, which PostgreSQL runs as one implicit transaction,
// committed lazily (sqlLazyCommit). Waiting for the WAL's flush would
// double the fsyncs of a session's batch (its events are appended while
// it runs, and its operation.finished after its own commit); what a lazy
// commit risks is the newest events on a crash of the server, which
// LoadEvents then reports (the rows' server_start).
func (s *Store) AppendEvents(ctx context.Context, appends []store.EventAppend) ([]int, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if len(appends) == 0 {
		return nil, nil
	}
	b := &pgx.Batch{}
	b.Queue(sqlLazyCommit)
	for _, a := range appends {
		n := len(a.Events)
		seqs, types, payloads := make([]int64, n), make([]string, n), make([][]byte, n)
		last := int64(0)
		for i, ev := range a.Events {
			seqs[i], types[i], payloads[i] = ev.Seq, ev.Type, notNil(ev.Payload)
			last = max(last, ev.Seq)
		}
		if len(a.Handoffs) > 0 {
			b.Queue(sqlAppendHandedEvents, a.Lease.DocumentID, a.Lease.Holder, a.Lease.Epoch, a.SessionID, last, a.Keep, seqs, types, payloads, a.Handoffs)
			continue
		}
		b.Queue(sqlAppendEvents, a.Lease.DocumentID, a.Lease.Holder, a.Lease.Epoch, a.SessionID, last, a.Keep, seqs, types, payloads)
	}
	br := s.pool.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		br.Close()
		return nil, fmt.Errorf("append events: %w", err)
	}
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
// newest append; lost when the newest append is older than the server's
// start.
func (s *Store) LoadEvents(ctx context.Context, sessionID string) ([]store.EventRecord, bool, error) {
	if err := s.check(); err != nil {
		return nil, false, err
	}
	rows, err := s.pool.Query(ctx, `SELECT last_seq, keep, seqs, types, payloads, server_start < pg_postmaster_start_time()
		FROM session_events WHERE session_id = $1 ORDER BY id`, sessionID)
	if err != nil {
		return nil, false, fmt.Errorf("load events of %s: %w", sessionID, err)
	}
	defer rows.Close()
	var (
		events       []store.EventRecord
		seen         = map[int64]bool{}
		newest, keep int64
		lost         bool
	)
	for rows.Next() {
		var (
			last, k  int64
			seqs     []int64
			types    []string
			payloads [][]byte
			before   bool
		)
		if err := rows.Scan(&last, &k, &seqs, &types, &payloads, &before); err != nil {
			return nil, false, fmt.Errorf("load events of %s: %w", sessionID, err)
		}
		if len(types) != len(seqs) || len(payloads) != len(seqs) {
			return nil, false, fmt.Errorf("load events of %s: an append of %d seqs, %d types and %d payloads", sessionID, len(seqs), len(types), len(payloads))
		}
		if last >= newest {
			newest, keep, lost = last, k, before
		}
		for i, seq := range seqs {
			if !seen[seq] {
				seen[seq] = true
				events = append(events, store.EventRecord{Seq: seq, Type: types[i], Payload: payloads[i]})
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("load events of %s: %w", sessionID, err)
	}
	events = slices.DeleteFunc(events, func(ev store.EventRecord) bool { return ev.Seq <= newest-keep })
	slices.SortFunc(events, func(a, b store.EventRecord) int { return cmp.Compare(a.Seq, b.Seq) })
	return events, lost, nil
}
