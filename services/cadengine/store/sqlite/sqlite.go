// Package sqlite is the engine's default [store.Store]: one SQLite file in
// WAL mode with synchronous=FULL, so a commit that returned is on disk. A
// document's entities are kept as chunks, a row per commit, which Load
// folds (see [folded] and [chunkStats]). It also implements
// [store.Leases] and [store.Registry] in the same file, for the engines
// of one machine.
package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/store"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// Store is a [store.Store] in a SQLite file. One connection serves every
// call: SQLite has a single writer anyway, and BEGIN IMMEDIATE on one
// connection never meets SQLITE_BUSY from this process.
type Store struct {
	db  *sql.DB
	now func() time.Time // the store's clock, for leases and registrations

	commits commitConn // the connection commits run on; see withCommitConn

	chunksMu sync.Mutex             // guards chunks
	chunks   map[string]*chunkStats // by document id, once loaded or committed
}

const sqliteSchema = `
CREATE TABLE IF NOT EXISTS documents (
	id            TEXT PRIMARY KEY,
	name          TEXT NOT NULL,
	units         INTEGER NOT NULL,
	created_at    INTEGER NOT NULL, -- Unix nanoseconds
	revision      INTEGER NOT NULL,
	next_handle   INTEGER NOT NULL,
	current_layer TEXT NOT NULL,
	layers        TEXT NOT NULL,    -- JSON array of LayerRecord
	content_hash  TEXT NOT NULL
);
-- entity_chunks holds the entities of each document as chunks of
-- records (see appendPut), applied in id order.
CREATE TABLE IF NOT EXISTS entity_chunks (
	id          INTEGER PRIMARY KEY,
	document_id TEXT NOT NULL REFERENCES documents(id),
	data        BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS entity_chunks_document ON entity_chunks (document_id, id);
-- operations is a rowid table: its responses overflow pages (see
-- applySchema).
CREATE TABLE IF NOT EXISTS operations (
	principal       TEXT NOT NULL,
	id              TEXT NOT NULL,
	kind            TEXT NOT NULL,
	document_id     TEXT NOT NULL,
	request_hash    BLOB NOT NULL,
	status          INTEGER NOT NULL,  -- OperationStatus
	committed_steps TEXT NOT NULL,     -- JSON array of step indexes
	revision        INTEGER NOT NULL,
	response        BLOB,              -- proto ExecuteBatchResponse
	started_at      INTEGER NOT NULL,  -- Unix nanoseconds
	finished_at     INTEGER NOT NULL,  -- Unix nanoseconds, 0 while running
	PRIMARY KEY (principal, id)
);
CREATE INDEX IF NOT EXISTS operations_finished_at ON operations (finished_at);
CREATE TABLE IF NOT EXISTS sessions (
	id   TEXT PRIMARY KEY,
	data BLOB NOT NULL                 -- opaque to the store
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS document_leases (
	document_id TEXT PRIMARY KEY,
	holder      TEXT NOT NULL,     -- "" once released
	epoch       INTEGER NOT NULL,  -- the fencing token, +1 for every grant
	expires_at  INTEGER NOT NULL   -- Unix nanoseconds
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS engines (
	id            TEXT PRIMARY KEY,
	address       TEXT NOT NULL,
	registered_at INTEGER NOT NULL, -- Unix nanoseconds
	heartbeat_at  INTEGER NOT NULL, -- Unix nanoseconds
	expires_at    INTEGER NOT NULL  -- Unix nanoseconds
) WITHOUT ROWID;
PRAGMA user_version = 5;
`

// Open opens (creating it and its parent directories if need be) the
// SQLite file at path.
func Open(path string) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("store sqlite: empty path")
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("store sqlite: %w", err)
		}
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("_txlock", "immediate")
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store sqlite %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	db.SetConnMaxIdleTime(0)
	db.SetConnMaxLifetime(0)
	ctx := context.Background()
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		db.Close()
		return nil, fmt.Errorf("store sqlite %s: %w", path, err)
	}
	if !strings.EqualFold(mode, "wal") {
		db.Close()
		return nil, fmt.Errorf("store sqlite %s: journal mode is %s, want wal", path, mode)
	}
	if err := applySchema(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("store sqlite %s: schema: %w", path, err)
	}
	if err := presizeWAL(ctx, db, path); err != nil {
		db.Close()
		return nil, fmt.Errorf("store sqlite %s: WAL: %w", path, err)
	}
	st := &Store{db: db, now: time.Now, chunks: map[string]*chunkStats{}}
	if err := st.prepareCommits(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store sqlite %s: prepare: %w", path, err)
	}
	return st, nil
}

// applySchema creates what the file lacks of sqliteSchema, in one
// IMMEDIATE transaction, so that engines opening one file at once apply
// it once and a file is either brought up to date or left as it was.
//
// A file of user_version 3 or before has its operations table rebuilt as
// a rowid table. It was WITHOUT ROWID, and there a record that overflows
// its page, as a batch's response does, is read back whole, overflow
// pages and all, by every comparison an insert makes on its way down the
// b-tree: each commit read several whole records of the journal's
// history, more as it grew. Whether to rebuild is read from the table's
// DDL, not the version, which an older binary may have written back.
func applySchema(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var ddl string
	err = tx.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'operations'`).Scan(&ddl)
	if err != nil && !errors.Is(err, sql.ErrNoRows) { // no rows: a new file
		return err
	}
	stmts := []string{sqliteSchema}
	if strings.Contains(ddl, "WITHOUT ROWID") {
		stmts = []string{
			`ALTER TABLE operations RENAME TO operations_without_rowid`,
			`DROP INDEX IF EXISTS operations_finished_at`, // the schema makes it anew, on the new table
			sqliteSchema,
			`INSERT INTO operations SELECT * FROM operations_without_rowid`,
			`DROP TABLE operations_without_rowid`,
		}
	}
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	if err := moveEntityRows(ctx, tx); err != nil {
		return fmt.Errorf("move entities into chunks: %w", err)
	}
	return tx.Commit()
}

// moveEntityRows moves the entities of a file of user_version 4 or
// before, a row each in the entities table, into chunks (see chunksOf),
// a document at a time, and drops the table.
func moveEntityRows(ctx context.Context, tx *sql.Tx) error {
	var tables int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'entities'`).Scan(&tables); err != nil || tables == 0 {
		return err
	}
	ids, err := column[string](ctx, tx, `SELECT DISTINCT document_id FROM entities`)
	if err != nil {
		return err
	}
	for _, id := range ids {
		ents, err := entityRows(ctx, tx, id)
		if err != nil {
			return err
		}
		for _, chunk := range chunksOf(nil, ents) {
			if _, err := tx.ExecContext(ctx, insertChunk, id, chunk); err != nil {
				return err
			}
		}
	}
	_, err = tx.ExecContext(ctx, `DROP TABLE entities`)
	return err
}

// entityRows reads the entities of document id from the entities table
// of user_version 4 or before.
func entityRows(ctx context.Context, tx *sql.Tx, id string) ([]store.EntityRecord, error) {
	rows, err := tx.QueryContext(ctx, `SELECT handle, data FROM entities WHERE document_id = ? ORDER BY handle`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.EntityRecord
	for rows.Next() {
		var (
			h    int64
			data []byte
		)
		if err := rows.Scan(&h, &data); err != nil {
			return nil, err
		}
		out = append(out, store.EntityRecord{Handle: uint64(h), Data: data})
	}
	return out, rows.Err()
}

// column is the first column of the rows query returns.
func column[T any](ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Kind is "sqlite".
func (*Store) Kind() string { return "sqlite" }

// Close closes the file.
func (s *Store) Close() error {
	s.closeCommits()
	return s.db.Close()
}

// Load implements [store.Store].
func (s *Store) Load(ctx context.Context, fn func(*store.DocumentRecord, []store.EntityRecord) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT id, name, units, created_at, revision, next_handle, current_layer, layers, content_hash FROM documents ORDER BY id`)
	if err != nil {
		return fmt.Errorf("load documents: %w", err)
	}
	var docs []*store.DocumentRecord
	for rows.Next() {
		var (
			d       store.DocumentRecord
			units   int32
			created int64
			next    int64
			layers  string
		)
		if err := rows.Scan(&d.ID, &d.Name, &units, &created, &d.Revision, &next, &d.CurrentLayer, &layers, &d.ContentHash); err != nil {
			rows.Close()
			return fmt.Errorf("load documents: %w", err)
		}
		d.Units = enginev1.Units(units)
		d.CreatedAt = time.Unix(0, created).UTC()
		d.NextHandle = uint64(next)
		if err := json.Unmarshal([]byte(layers), &d.Layers); err != nil {
			rows.Close()
			return fmt.Errorf("load document %s: layers: %w", d.ID, err)
		}
		docs = append(docs, &d)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("load documents: %w", err)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load documents: %w", err)
	}
	for _, d := range docs {
		ents, err := s.loadEntities(ctx, d.ID)
		if err != nil {
			return err
		}
		if err := fn(d, ents); err != nil {
			return err
		}
	}
	return nil
}

// loadEntities folds the chunks of document id into its entities, and
// keeps their statistics for its commits.
func (s *Store) loadEntities(ctx context.Context, id string) ([]store.EntityRecord, error) {
	chunks, err := column[[]byte](ctx, s.db, selectChunks, id)
	if err != nil {
		return nil, fmt.Errorf("load entities of %s: %w", id, err)
	}
	f := &folded{}
	for _, chunk := range chunks {
		if err := f.fold(chunk); err != nil {
			return nil, fmt.Errorf("load entities of %s: %w", id, err)
		}
	}
	s.chunksMu.Lock()
	s.chunks[id] = f.stats()
	s.chunksMu.Unlock()
	return f.entities(), nil
}

// LoadOperations implements [store.Store].
func (s *Store) LoadOperations(ctx context.Context, fn func(*store.OperationRecord) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT principal, id, kind, document_id, request_hash, status, committed_steps, revision, response, started_at, finished_at
		FROM operations ORDER BY started_at, principal, id`)
	if err != nil {
		return fmt.Errorf("load operations: %w", err)
	}
	var all []*store.OperationRecord
	for rows.Next() {
		var (
			op                store.OperationRecord
			status            int32
			steps             string
			started, finished int64
		)
		if err := rows.Scan(&op.Principal, &op.ID, &op.Kind, &op.DocumentID, &op.RequestHash, &status, &steps, &op.Revision, &op.Response, &started, &finished); err != nil {
			rows.Close()
			return fmt.Errorf("load operations: %w", err)
		}
		if err := json.Unmarshal([]byte(steps), &op.CommittedSteps); err != nil {
			rows.Close()
			return fmt.Errorf("load operation %s: committed steps: %w", op.ID, err)
		}
		op.Status = enginev1.OperationStatus(status)
		op.StartedAt = time.Unix(0, started).UTC()
		if finished != 0 {
			op.FinishedAt = time.Unix(0, finished).UTC()
		}
		all = append(all, &op)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("load operations: %w", err)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load operations: %w", err)
	}
	for _, op := range all {
		if err := fn(op); err != nil {
			return err
		}
	}
	return nil
}

// PruneOperations implements [store.Store].
func (s *Store) PruneOperations(ctx context.Context, before time.Time) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM operations WHERE finished_at != 0 AND finished_at < ?`, before.UnixNano()); err != nil {
		return fmt.Errorf("prune operations: %w", err)
	}
	return nil
}

// SaveSession implements [store.Store].
func (s *Store) SaveSession(ctx context.Context, id string, data []byte) error {
	if data == nil {
		data = []byte{}
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO sessions (id, data) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data`, id, data); err != nil {
		return fmt.Errorf("save session %s: %w", id, err)
	}
	return nil
}

// DeleteSession implements [store.Store].
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil
}

// LoadSessions implements [store.Store].
func (s *Store) LoadSessions(ctx context.Context) (map[string][]byte, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, data FROM sessions`)
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
		if data == nil {
			data = []byte{}
		}
		out[id] = data
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load sessions: %w", err)
	}
	return out, nil
}
