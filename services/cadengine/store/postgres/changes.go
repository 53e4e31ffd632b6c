package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

var _ store.Changes = (*Store)(nil)

// sqlNotify tells the listeners of the schema of a document commit; it
// is queued in the commit's batch, and PostgreSQL delivers it when (and
// only if) the transaction commits.
const sqlNotify = `SELECT pg_notify('cadbridge_changes_' || current_schema(), $1)`

// notifyPayload is the NOTIFY payload of a commit under a lease; "" for
// other commits (a single engine's, or journal-only ones).
func notifyPayload(c *store.Commit) string {
	if c.Document == nil || c.Lease == nil {
		return ""
	}
	ch := store.DocumentChange{DocumentID: c.Document.ID, Revision: c.Document.Revision, Holder: c.Lease.Holder}
	if len(c.Operations) > 0 {
		ch.OperationID = c.Operations[0].ID
	}
	b, _ := json.Marshal(ch) // strings and an integer: cannot fail
	return string(b)
}

// WatchChanges implements [store.Changes] with LISTEN on a connection of
// its own.
func (s *Store) WatchChanges(ctx context.Context, fn func(store.DocumentChange)) error {
	return s.watch(ctx, "cadbridge_changes_", func(payload string) {
		var ch store.DocumentChange
		if json.Unmarshal([]byte(payload), &ch) == nil && ch.DocumentID != "" {
			fn(ch)
		}
	})
}

// watch calls fn with the payload of every notification on the channel
// prefix and the schema, on a connection of its own, until ctx ends;
// a broken connection is reopened after a pause.
func (s *Store) watch(ctx context.Context, prefix string, fn func(payload string)) error {
	for {
		err := s.listen(ctx, prefix, fn)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if s.closed.Load() {
			return store.ErrClosed
		}
		_ = err // reconnect after a pause
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

func (s *Store) listen(ctx context.Context, prefix string, fn func(payload string)) error {
	pooled, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// The connection carries LISTEN state: it never goes back to the pool.
	conn := pooled.Hijack()
	defer conn.Close(context.WithoutCancel(ctx))
	var schema string
	if err := conn.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{prefix + schema}.Sanitize()); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		fn(n.Payload)
	}
}
