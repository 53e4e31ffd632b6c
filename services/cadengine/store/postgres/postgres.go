// Package postgres is the [store.Store] that several engines share: a
// PostgreSQL database reached through a jackc/pgx connection pool, with
// document leases and fencing ([store.Leases]) and the registry of
// engines ([store.Registry]) beside the documents, in the same database.
//
// [Open] creates and migrates the schema from versioned migrations
// embedded in the binary, under a lock, so that engines starting at once
// agree. Each [Store.Commit] is one transaction sent in one round trip:
// the fence check (for a commit under a lease), the document row, the
// deleted and the put entities as two statements over arrays whatever
// their number, and the journal records; it returns once PostgreSQL has
// committed it durably (synchronous_commit on).
package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// Store is a [store.Store], [store.Leases] and [store.Registry] on
// PostgreSQL. It is safe for concurrent use, and any number of Stores,
// in any number of processes, may share one database schema.
type Store struct {
	pool   *pgxpool.Pool
	closed atomic.Bool
}

var (
	_ store.Store    = (*Store)(nil)
	_ store.Leases   = (*Store)(nil)
	_ store.Registry = (*Store)(nil)
)

// Open connects to the database that connString names (a postgres:// or
// postgresql:// URL, or key=value pairs, as pgx reads them; parameters
// pgx does not know, such as search_path, are set on every connection;
// pool_max_conns sizes the pool) and creates or migrates the schema in the first schema of the
// search_path. It fails when the schema is newer than this binary knows.
func Open(ctx context.Context, connString string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("store postgres: %w", err)
	}
	where := fmt.Sprintf("store postgres %s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	if _, ok := cfg.ConnConfig.RuntimeParams["synchronous_commit"]; !ok {
		// A commit that returned is on disk, whatever the server's default.
		cfg.ConnConfig.RuntimeParams["synchronous_commit"] = "on"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return &Store{pool: pool}, nil
}

// Kind is "postgres".
func (*Store) Kind() string { return "postgres" }

// Close closes the pool, waiting for the calls in flight; calls after it
// fail with [store.ErrClosed].
func (s *Store) Close() error {
	if !s.closed.Swap(true) {
		s.pool.Close()
	}
	return nil
}

// check returns [store.ErrClosed] once the store is closed.
func (s *Store) check() error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	return nil
}

// fencedCode is the SQLSTATE that cadbridge_fence raises (see the
// migration that creates it).
const fencedCode = "CBF01"

// isFenced reports whether err is cadbridge_fence's refusal.
func isFenced(err error) (*pgconn.PgError, bool) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == fencedCode {
		return pgErr, true
	}
	return nil, false
}

// micros is ttl in whole microseconds, PostgreSQL's resolution, rounded
// up so that a positive ttl stays positive.
func micros(ttl time.Duration) int64 {
	return int64((ttl + time.Microsecond - 1) / time.Microsecond)
}
