package postgres

import (
	"context"
	"fmt"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// LoadOperations implements [store.Store].
func (s *Store) LoadOperations(ctx context.Context, fn func(*store.OperationRecord) error) error {
	if err := s.check(); err != nil {
		return err
	}
	rows, err := s.pool.Query(ctx, `SELECT principal, id, kind, document_id, request_hash, status, committed_steps, revision, response, started_at, finished_at
		FROM operations ORDER BY started_at, principal, id`)
	if err != nil {
		return fmt.Errorf("load operations: %w", err)
	}
	defer rows.Close()
	var all []*store.OperationRecord
	for rows.Next() {
		var (
			op                store.OperationRecord
			status            int32
			started, finished int64
		)
		if err := rows.Scan(&op.Principal, &op.ID, &op.Kind, &op.DocumentID, &op.RequestHash, &status, &op.CommittedSteps,
			&op.Revision, &op.Response, &started, &finished); err != nil {
			return fmt.Errorf("load operations: %w", err)
		}
		op.Status = enginev1.OperationStatus(status)
		op.StartedAt = time.Unix(0, started).UTC()
		if finished != 0 {
			op.FinishedAt = time.Unix(0, finished).UTC()
		}
		all = append(all, &op)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load operations: %w", err)
	}
	rows.Close()
	for _, op := range all {
		if err := fn(op); err != nil {
			return err
		}
	}
	return nil
}

// PruneOperations implements [store.Store].
func (s *Store) PruneOperations(ctx context.Context, before time.Time) error {
	if err := s.check(); err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM operations WHERE finished_at <> 0 AND finished_at < $1`, before.UnixNano()); err != nil {
		return fmt.Errorf("prune operations: %w", err)
	}
	return nil
}
