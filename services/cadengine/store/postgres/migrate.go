package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrationFiles are the schema's migrations, NNNN_what.sql, numbered
// from 0001 without gaps. A migration, once released, is never edited:
// a change to the schema is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one step of the schema.
type migration struct {
	version int
	name    string // the file name
	sql     string
}

// migrations returns the embedded migrations in version order, or an
// error when their numbering has a gap, a duplicate or a bad name.
func migrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, name := range names { // Glob sorts
		base := path.Base(name)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || len(num) != 4 {
			return nil, fmt.Errorf("migration %s: want NNNN_what.sql", base)
		}
		if v != len(out)+1 {
			return nil, fmt.Errorf("migration %s: version %d, want %d", base, v, len(out)+1)
		}
		sql, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: base, sql: string(sql)})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no migrations")
	}
	return out, nil
}

// migrateLock is the first key of the advisory lock that migrations take;
// the second is the hash of the schema they migrate, so that engines on
// different schemas of one database do not wait for each other.
const migrateLock = 0x43414442 // "CADB"

// migrate brings the schema (the first of the search_path) up to the
// latest migration, in one transaction under a transaction-scoped
// advisory lock: of engines starting at once, one applies what is
// missing, and the others, waiting on the lock, then find nothing left
// to do. The schema_migrations table records each version applied.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	all, err := migrations(migrationFiles)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(coalesce(current_schema(), '')))`, migrateLock); err != nil {
		return fmt.Errorf("migrate: lock: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    integer PRIMARY KEY,
		name       text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now()
	)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var current int
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if current > len(all) {
		return fmt.Errorf("migrate: the schema is at version %d, newer than this binary's %d", current, len(all))
	}
	for _, m := range all[current:] {
		// The simple protocol runs a file of several statements.
		if _, err := tx.Exec(ctx, m.sql, pgx.QueryExecModeSimpleProtocol); err != nil {
			return fmt.Errorf("migrate: %s: %w", m.name, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
			return fmt.Errorf("migrate: %s: %w", m.name, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("migrate: commit: %w", err)
	}
	return nil
}
