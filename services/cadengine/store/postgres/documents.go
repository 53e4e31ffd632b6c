package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// The statements of a commit. Each has one text whatever the commit's
// size (entities travel as arrays), so each connection prepares it once.
const (
	sqlFence = `SELECT cadbridge_fence($1, $2, $3)`

	sqlPutDocument = `INSERT INTO documents (id, name, units, created_at, revision, next_handle, current_layer, layers, content_hash)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, units = excluded.units, revision = excluded.revision,
			next_handle = excluded.next_handle, current_layer = excluded.current_layer, layers = excluded.layers,
			content_hash = excluded.content_hash`

	sqlDeleteEntities = `DELETE FROM entities WHERE document_id = $1 AND handle = ANY($2::bigint[])`

	sqlPutEntities = `INSERT INTO entities (document_id, handle, data)
		SELECT $1, e.handle, e.data FROM unnest($2::bigint[], $3::bytea[]) AS e (handle, data)
		ON CONFLICT (document_id, handle) DO UPDATE SET data = excluded.data`

	sqlPutOperation = `INSERT INTO operations (principal, id, kind, document_id, request_hash, status, committed_steps, revision, response, started_at, finished_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
		ON CONFLICT (principal, id) DO UPDATE SET kind = excluded.kind, document_id = excluded.document_id,
			request_hash = excluded.request_hash, status = excluded.status, committed_steps = excluded.committed_steps,
			revision = excluded.revision, response = excluded.response, started_at = excluded.started_at,
			finished_at = excluded.finished_at`
)

// Commit implements [store.Store]. The commit's statements go as one
// batch, in one round trip, without BEGIN: PostgreSQL runs the statements
// before a Sync as one implicit transaction, which commits at the Sync
// when all of them succeeded and rolls back whole when any failed. A
// commit under a lease starts with cadbridge_fence, so a stale lease
// fails it before anything is written.
func (s *Store) Commit(ctx context.Context, c *store.Commit) error {
	if err := s.check(); err != nil {
		return err
	}
	if err := store.CheckFence(c); err != nil {
		return err
	}
	b := &pgx.Batch{}
	if l := c.Lease; l != nil {
		b.Queue(sqlFence, l.DocumentID, l.Holder, l.Epoch)
	}
	if d := c.Document; d != nil {
		b.Queue(sqlPutDocument, d.ID, d.Name, int32(d.Units), d.CreatedAt.UnixNano(), d.Revision, int64(d.NextHandle),
			d.CurrentLayer, layersOf(d), d.ContentHash)
		if len(c.Delete) > 0 {
			handles := make([]int64, len(c.Delete))
			for i, h := range c.Delete {
				handles[i] = int64(h)
			}
			b.Queue(sqlDeleteEntities, d.ID, handles)
		}
		if put := lastPuts(c.Put); len(put) > 0 {
			handles, data := make([]int64, len(put)), make([][]byte, len(put))
			for i, e := range put {
				handles[i], data[i] = int64(e.Handle), e.Data
			}
			b.Queue(sqlPutEntities, d.ID, handles, data)
		}
	}
	if payload := notifyPayload(c); payload != "" {
		b.Queue(sqlNotify, payload)
	}
	for i := range c.Operations {
		op := &c.Operations[i]
		var finished int64
		if !op.FinishedAt.IsZero() {
			finished = op.FinishedAt.UnixNano()
		}
		b.Queue(sqlPutOperation, op.Principal, op.ID, op.Kind, op.DocumentID, notNil(op.RequestHash), int32(op.Status),
			notNil(op.CommittedSteps), op.Revision, op.Response, op.StartedAt.UnixNano(), finished)
	}
	if b.Len() == 0 {
		return nil
	}
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		if pgErr, ok := isFenced(err); ok {
			return fmt.Errorf("commit: %s: %w", pgErr.Message, store.ErrFenced)
		}
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// layersOf is d's layers, never nil, which pgx stores as JSON.
func layersOf(d *store.DocumentRecord) []store.LayerRecord {
	if d.Layers == nil {
		return []store.LayerRecord{}
	}
	return d.Layers
}

// notNil is v, or an empty slice for nil, for NOT NULL columns.
func notNil[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}

// lastPuts is put with only the last of each handle put more than once,
// as one INSERT … ON CONFLICT may touch a row only once. It returns put
// itself when its handles are ascending, as a whole document's are.
func lastPuts(put []store.EntityRecord) []store.EntityRecord {
	ascending := true
	for i := 1; i < len(put) && ascending; i++ {
		ascending = put[i-1].Handle < put[i].Handle
	}
	if ascending {
		return put
	}
	last := make(map[uint64]int, len(put))
	for i, e := range put {
		last[e.Handle] = i
	}
	if len(last) == len(put) {
		return put
	}
	out := make([]store.EntityRecord, 0, len(last))
	for i, e := range put {
		if last[e.Handle] == i {
			out = append(out, e)
		}
	}
	return out
}

// Load implements [store.Store]: the documents, then every entity in one
// query ordered as they are, read in one snapshot.
func (s *Store) Load(ctx context.Context, fn func(*store.DocumentRecord, []store.EntityRecord) error) error {
	if err := s.check(); err != nil {
		return err
	}
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("load documents: %w", err)
	}
	defer tx.Rollback(ctx)
	docs, err := loadDocuments(ctx, tx)
	if err != nil {
		return err
	}
	rows, err := tx.Query(ctx, `SELECT document_id, handle, data FROM entities ORDER BY document_id, handle`)
	if err != nil {
		return fmt.Errorf("load entities: %w", err)
	}
	defer rows.Close()
	var (
		// next is the entity row read ahead; more is false past the last.
		next struct {
			doc    string
			handle int64
			data   []byte
		}
		more bool
	)
	advance := func() error {
		if more = rows.Next(); more {
			return rows.Scan(&next.doc, &next.handle, &next.data)
		}
		return rows.Err()
	}
	if err := advance(); err != nil {
		return fmt.Errorf("load entities: %w", err)
	}
	for _, d := range docs {
		var ents []store.EntityRecord
		for more && next.doc == d.ID {
			ents = append(ents, store.EntityRecord{Handle: uint64(next.handle), Data: next.data})
			if err := advance(); err != nil {
				return fmt.Errorf("load entities of %s: %w", d.ID, err)
			}
		}
		if err := fn(d, ents); err != nil {
			return err
		}
	}
	if more {
		return fmt.Errorf("load entities: entity %x of %s, a document that is not loaded", next.handle, next.doc)
	}
	return nil
}

func loadDocuments(ctx context.Context, tx pgx.Tx) ([]*store.DocumentRecord, error) {
	rows, err := tx.Query(ctx, `SELECT id, name, units, created_at, revision, next_handle, current_layer, layers, content_hash
		FROM documents ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("load documents: %w", err)
	}
	defer rows.Close()
	var docs []*store.DocumentRecord
	for rows.Next() {
		var (
			d       store.DocumentRecord
			units   int32
			created int64
			next    int64
		)
		if err := rows.Scan(&d.ID, &d.Name, &units, &created, &d.Revision, &next, &d.CurrentLayer, &d.Layers, &d.ContentHash); err != nil {
			return nil, fmt.Errorf("load documents: %w", err)
		}
		d.Units = enginev1.Units(units)
		d.CreatedAt = time.Unix(0, created).UTC()
		d.NextHandle = uint64(next)
		docs = append(docs, &d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load documents: %w", err)
	}
	return docs, nil
}
