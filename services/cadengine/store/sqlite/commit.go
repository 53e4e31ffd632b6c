package sqlite

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"io"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// A commit runs on the driver's connection itself, below database/sql,
// which starts a goroutine for every transaction to watch its context and
// converts, checks and copies every argument of every statement. Starting
// and waking that goroutine (a futex call to wake an idle thread) was a
// tenth of a one-entity commit's CPU time, and the layer as a whole about
// a fifth. The driver starts a goroutine of its own for a statement only
// under a context that can be cancelled, which the engine's commits are
// not (see run.commit).

// commitConn is the driver connection commits run on, with the
// statements of commits prepared on it. The store's pool holds one
// connection, so commits use it one at a time. Should database/sql ever
// replace it (after the driver reported it broken), the statements are
// prepared again on the new one; the old ones are dropped unclosed, as
// closing a statement of a closed connection would use what its close
// freed.
type commitConn struct {
	conn  driver.Conn
	stmts map[string]driver.Stmt
}

// prepareCommits prepares the statements of commits on the store's
// connection, so that the first commit does not pay for it.
func (s *Store) prepareCommits(ctx context.Context) error {
	return s.withCommitConn(ctx, func(*commitConn) error { return nil })
}

// withCommitConn runs fn on the store's driver connection, with the
// statements of commits prepared on it.
func (s *Store) withCommitConn(ctx context.Context, fn func(*commitConn) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		if s.commits.conn != dc {
			if err := s.commits.prepare(ctx, dc.(driver.Conn)); err != nil {
				return err
			}
		}
		return fn(&s.commits)
	})
}

// prepare prepares the statements of commits on conn: a commit runs the
// same few texts, and preparing them cost as much as running them.
func (cc *commitConn) prepare(ctx context.Context, conn driver.Conn) error {
	stmts := map[string]driver.Stmt{}
	for _, text := range commitStatements() {
		st, err := conn.(driver.ConnPrepareContext).PrepareContext(ctx, text)
		if err != nil {
			for _, st := range stmts {
				st.Close()
			}
			return err
		}
		stmts[text] = st
	}
	cc.conn, cc.stmts = conn, stmts
	return nil
}

// closeCommits closes the statements of commits, if they are prepared on
// the connection still open.
func (s *Store) closeCommits() {
	conn, err := s.db.Conn(context.Background())
	if err != nil {
		return
	}
	defer conn.Close()
	conn.Raw(func(dc any) error {
		if s.commits.conn == dc {
			for _, st := range s.commits.stmts {
				st.Close()
			}
			s.commits = commitConn{}
		}
		return nil
	})
}

// Commit implements [store.Store]: one IMMEDIATE transaction, which
// holds SQLite's write lock from its start, so that no grant of the lease
// can come between the fence check and the commit.
func (s *Store) Commit(ctx context.Context, c *store.Commit) error {
	if err := store.CheckFence(c); err != nil {
		return err
	}
	if err := checkHandles(c); err != nil {
		return err
	}
	return s.withCommitConn(ctx, func(cc *commitConn) (err error) {
		dtx, err := cc.conn.(driver.ConnBeginTx).BeginTx(ctx, driver.TxOptions{})
		if err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		defer func() {
			if err != nil {
				dtx.Rollback()
				if c.Document != nil {
					s.forgetChunks(c.Document.ID)
				}
			}
		}()
		tx := &commitTx{ctx: ctx, stmts: cc.stmts}
		if c.Lease != nil {
			if err = tx.fence(c.Lease); err != nil {
				return err
			}
		}
		if c.Document != nil {
			if err = tx.writeDocument(c); err != nil {
				return err
			}
			if err = s.writeEntities(tx, c); err != nil {
				return err
			}
		}
		for i := range c.Operations {
			if err = tx.writeOperation(&c.Operations[i]); err != nil {
				return err
			}
		}
		if err = dtx.Commit(); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		return nil
	})
}

// commitTx is the statements of one commit's transaction.
type commitTx struct {
	ctx   context.Context
	stmts map[string]driver.Stmt
	args  []driver.NamedValue // exec's, reused
}

// stmt is query's prepared statement.
func (tx *commitTx) stmt(query string) driver.Stmt {
	st := tx.stmts[query]
	if st == nil {
		panic("store sqlite: statement not prepared: " + query) // a commit statement missing from commitStatements
	}
	return st
}

// exec runs query's prepared statement with the values given, each a
// driver.Value (int64, not int32).
func (tx *commitTx) exec(query string, vals ...driver.Value) error {
	tx.bind(vals...)
	return tx.execBound(query)
}

// bind appends vals to the values of the next execBound.
func (tx *commitTx) bind(vals ...driver.Value) {
	for _, v := range vals {
		tx.args = append(tx.args, driver.NamedValue{Ordinal: len(tx.args) + 1, Value: v})
	}
}

// execBound runs query's prepared statement with the values bound, which
// it then unbinds.
func (tx *commitTx) execBound(query string) error {
	_, err := tx.stmt(query).(driver.StmtExecContext).ExecContext(tx.ctx, tx.args)
	tx.args = tx.args[:0]
	return err
}

// query runs query's prepared statement with the values given and calls
// fn with each row it returns, whose values are fn's only until it
// returns (blobs excepted: the driver copies each out).
func (tx *commitTx) query(query string, vals []driver.Value, fn func(row []driver.Value) error) error {
	tx.bind(vals...)
	rows, err := tx.stmt(query).(driver.StmtQueryContext).QueryContext(tx.ctx, tx.args)
	tx.args = tx.args[:0]
	if err != nil {
		return err
	}
	defer rows.Close()
	row := make([]driver.Value, len(rows.Columns()))
	for {
		switch err := rows.Next(row); err {
		case io.EOF:
			return nil
		case nil:
			if err := fn(row); err != nil {
				return err
			}
		default:
			return err
		}
	}
}

// fence fails with [store.ErrFenced] unless l is still its document's
// lease. The transaction holds the write lock (BEGIN IMMEDIATE), so the
// lease cannot change before it commits.
func (tx *commitTx) fence(l *store.Lease) error {
	var (
		holder string // "" and 0 when no lease was ever granted on the document
		epoch  int64
	)
	err := tx.query(selectLease, []driver.Value{l.DocumentID}, func(row []driver.Value) error {
		var ok1, ok2 bool
		holder, ok1 = row[0].(string)
		epoch, ok2 = row[1].(int64)
		if !ok1 || !ok2 {
			return fmt.Errorf("lease row of types %T, %T", row[0], row[1])
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("fence %s: %w", l.DocumentID, err)
	}
	if holder != l.Holder || epoch != l.Epoch {
		return store.Fenced(l, holder, epoch)
	}
	return nil
}

func (tx *commitTx) writeDocument(c *store.Commit) error {
	layers, err := json.Marshal(c.Document.Layers)
	if err != nil {
		return fmt.Errorf("encode layers: %w", err)
	}
	d := c.Document
	if err := tx.exec(putDocument,
		d.ID, d.Name, int64(d.Units), d.CreatedAt.UnixNano(), d.Revision, int64(d.NextHandle), d.CurrentLayer, string(layers), d.ContentHash); err != nil {
		return fmt.Errorf("write document: %w", err)
	}
	return nil
}

// writeEntities writes the entities c deletes and puts as a chunk of
// their document, or, when that leaves more than half of what its chunks
// hold stale, compacts the document with them (see chunkStats). Should
// the commit fail after, its caller forgets the document's statistics.
func (s *Store) writeEntities(tx *commitTx, c *store.Commit) error {
	if len(c.Delete) == 0 && len(c.Put) == 0 {
		return nil
	}
	s.chunksMu.Lock()
	defer s.chunksMu.Unlock()
	id := c.Document.ID
	stats := s.chunks[id]
	var f *folded // the document's chunks, once read
	if stats == nil {
		// The first commit of the document since the store opened, and
		// not loaded: a new document, or one another store wrote.
		var err error
		if f, err = tx.foldChunks(id); err != nil {
			return err
		}
		stats = f.stats()
		s.chunks[id] = stats
	}
	stats.apply(c)
	chunks := chunksOf(c.Delete, c.Put)
	if !stats.due() {
		return tx.insertChunks(id, chunks)
	}
	if f == nil {
		var err error
		if f, err = tx.foldChunks(id); err != nil {
			return err
		}
	}
	if err := tx.compact(id, f, chunks); err != nil {
		return err
	}
	s.chunks[id] = f.stats()
	return nil
}

// forgetChunks drops the statistics of document id, which its next
// commit counts again from its chunks: a commit that failed counted
// records that were not written.
func (s *Store) forgetChunks(id string) {
	s.chunksMu.Lock()
	delete(s.chunks, id)
	s.chunksMu.Unlock()
}

// foldChunks folds the chunks of document id.
func (tx *commitTx) foldChunks(id string) (*folded, error) {
	f := &folded{}
	err := tx.query(selectChunks, []driver.Value{id}, func(row []driver.Value) error {
		chunk, ok := row[0].([]byte)
		if !ok {
			return fmt.Errorf("a chunk of type %T", row[0])
		}
		return f.fold(chunk)
	})
	if err != nil {
		return nil, fmt.Errorf("read the entities of %s: %w", id, err)
	}
	return f, nil
}

// compact rewrites the chunks of document id, folded as f, as the
// entities they and a commit's chunks leave, with no stale record; f is
// then what the document's chunks hold.
func (tx *commitTx) compact(id string, f *folded, chunks [][]byte) error {
	for _, chunk := range chunks {
		if err := f.fold(chunk); err != nil {
			return err
		}
	}
	if err := tx.exec(deleteChunks, id); err != nil {
		return fmt.Errorf("compact the entities of %s: %w", id, err)
	}
	ents := f.entities()
	if err := tx.insertChunks(id, chunksOf(nil, ents)); err != nil {
		return err
	}
	f.records = len(ents)
	return nil
}

// insertChunks adds chunks to document id's, in order.
func (tx *commitTx) insertChunks(id string, chunks [][]byte) error {
	for _, chunk := range chunks {
		if err := tx.exec(insertChunk, id, chunk); err != nil {
			return fmt.Errorf("write the entities of %s: %w", id, err)
		}
	}
	return nil
}

func (tx *commitTx) writeOperation(op *store.OperationRecord) error {
	steps, err := json.Marshal(op.CommittedSteps)
	if err != nil {
		return fmt.Errorf("encode committed steps: %w", err)
	}
	if op.CommittedSteps == nil {
		steps = []byte("[]")
	}
	var finished int64
	if !op.FinishedAt.IsZero() {
		finished = op.FinishedAt.UnixNano()
	}
	if err := tx.exec(putOperation,
		op.Principal, op.ID, op.Kind, op.DocumentID, op.RequestHash, int64(op.Status), string(steps), op.Revision,
		op.Response, op.StartedAt.UnixNano(), finished); err != nil {
		return fmt.Errorf("write operation %s: %w", op.ID, err)
	}
	return nil
}

// The statements of a commit, prepared once on the store's connection
// (see commitConn).
const (
	selectLease = `SELECT holder, epoch FROM document_leases WHERE document_id = ?`
	putDocument = `INSERT INTO documents (id, name, units, created_at, revision, next_handle, current_layer, layers, content_hash)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET name = excluded.name, units = excluded.units, revision = excluded.revision,
			next_handle = excluded.next_handle, current_layer = excluded.current_layer, layers = excluded.layers,
			content_hash = excluded.content_hash`
	selectChunks = `SELECT data FROM entity_chunks WHERE document_id = ? ORDER BY id`
	insertChunk  = `INSERT INTO entity_chunks (document_id, data) VALUES (?, ?)`
	deleteChunks = `DELETE FROM entity_chunks WHERE document_id = ?`
	putOperation = `INSERT INTO operations (principal, id, kind, document_id, request_hash, status, committed_steps, revision, response, started_at, finished_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(principal, id) DO UPDATE SET kind = excluded.kind, document_id = excluded.document_id,
			request_hash = excluded.request_hash, status = excluded.status, committed_steps = excluded.committed_steps,
			revision = excluded.revision, response = excluded.response, started_at = excluded.started_at,
			finished_at = excluded.finished_at`
)

// commitStatements are the texts commitConn prepares.
func commitStatements() []string {
	return []string{selectLease, putDocument, putOperation, selectChunks, insertChunk, deleteChunks}
}
