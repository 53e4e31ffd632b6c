package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

var _ store.Shared = (*Store)(nil)

// LoadDocument implements [store.Shared]: the row and the entities in one
// snapshot.
func (s *Store) LoadDocument(ctx context.Context, id string) (*store.DocumentRecord, []store.EntityRecord, error) {
	if err := s.check(); err != nil {
		return nil, nil, err
	}
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, nil, fmt.Errorf("load document %s: %w", id, err)
	}
	defer tx.Rollback(ctx)
	d, err := scanDocument(tx.QueryRow(ctx, `SELECT `+sqlDocumentColumns+` FROM documents WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, fmt.Errorf("load document %s: %w", id, store.ErrNoDocument)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load document %s: %w", id, err)
	}
	rows, err := tx.Query(ctx, `SELECT handle, data FROM entities WHERE document_id = $1 ORDER BY handle`, id)
	if err != nil {
		return nil, nil, fmt.Errorf("load entities of %s: %w", id, err)
	}
	defer rows.Close()
	var ents []store.EntityRecord
	for rows.Next() {
		var (
			h    int64
			data []byte
		)
		if err := rows.Scan(&h, &data); err != nil {
			return nil, nil, fmt.Errorf("load entities of %s: %w", id, err)
		}
		ents = append(ents, store.EntityRecord{Handle: uint64(h), Data: data})
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("load entities of %s: %w", id, err)
	}
	return &d, ents, nil
}

const sqlDocumentColumns = `id, name, units, created_at, revision, next_handle, current_layer, layers, content_hash`

// scanDocument reads a row of sqlDocumentColumns.
func scanDocument(row pgx.Row) (store.DocumentRecord, error) {
	var (
		d       store.DocumentRecord
		units   int32
		created int64
		next    int64
	)
	err := row.Scan(&d.ID, &d.Name, &units, &created, &d.Revision, &next, &d.CurrentLayer, &d.Layers, &d.ContentHash)
	d.Units = enginev1.Units(units)
	d.CreatedAt = time.Unix(0, created).UTC()
	d.NextHandle = uint64(next)
	return d, err
}

// ListDocuments implements [store.Shared].
func (s *Store) ListDocuments(ctx context.Context, after store.DocumentKey, limit int) ([]store.DocumentRecord, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	var at int64
	first := after == (store.DocumentKey{})
	if !first {
		at = after.CreatedAt.UnixNano()
	}
	rows, err := s.pool.Query(ctx, `SELECT `+sqlDocumentColumns+` FROM documents
		WHERE $1 OR (created_at, id) > ($2, $3) ORDER BY created_at, id LIMIT $4`, first, at, after.ID, limit)
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.DocumentRecord, error) { return scanDocument(row) })
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	return out, nil
}

// LoadOperation implements [store.Shared].
func (s *Store) LoadOperation(ctx context.Context, principal, id string) (*store.OperationRecord, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	var (
		op                store.OperationRecord
		status            int32
		started, finished int64
	)
	err := s.pool.QueryRow(ctx, `SELECT principal, id, kind, document_id, request_hash, status, committed_steps, revision, response, started_at, finished_at
		FROM operations WHERE principal = $1 AND id = $2`, principal, id).Scan(&op.Principal, &op.ID, &op.Kind, &op.DocumentID, &op.RequestHash,
		&status, &op.CommittedSteps, &op.Revision, &op.Response, &started, &finished)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load operation %s: %w", id, err)
	}
	op.Status = enginev1.OperationStatus(status)
	op.StartedAt = time.Unix(0, started).UTC()
	if finished != 0 {
		op.FinishedAt = time.Unix(0, finished).UTC()
	}
	return &op, nil
}

// LoadSession implements [store.Shared].
func (s *Store) LoadSession(ctx context.Context, id string) ([]byte, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	var data []byte
	err := s.pool.QueryRow(ctx, `SELECT data FROM sessions WHERE id = $1`, id).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", id, err)
	}
	return notNil(data), nil
}
