package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/postgres"
	"github.com/cadbridge/cadbridge/services/cadengine/store/postgres/postgrestest"
)

// connect opens a plain connection on url, closed when t ends.
func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// applied returns the schema_migrations rows, "version name", in order.
func applied(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT version, name FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatalf("schema_migrations: %v", err)
	}
	got, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (string, error) {
		var (
			v    int
			name string
		)
		err := row.Scan(&v, &name)
		return fmt.Sprintf("%d %s", v, name), err
	})
	if err != nil {
		t.Fatalf("schema_migrations: %v", err)
	}
	return got
}

// wantMigrations is every migration in this package, as applied returns
// them.
func wantMigrations(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("migrations/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("migrations/*.sql = %v, %v", files, err)
	}
	var want []string
	for i, f := range files {
		want = append(want, fmt.Sprintf("%d %s", i+1, filepath.Base(f)))
	}
	return want
}

// TestOpenRace starts several engines at once on a fresh schema: every
// Open succeeds and the schema is applied once. (A migration applied
// twice would fail: the migrations create their tables without IF NOT
// EXISTS.)
func TestOpenRace(t *testing.T) {
	const rounds, engines = 3, 4
	for round := range rounds {
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			url := postgrestest.URL(t)
			var (
				wg    sync.WaitGroup
				start = make(chan struct{})
				errs  = make([]error, engines)
			)
			for i := range engines {
				wg.Go(func() {
					<-start
					s, err := postgres.Open(context.Background(), url)
					if err == nil {
						err = s.Close()
					}
					errs[i] = err
				})
			}
			close(start)
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatalf("Open racing on a fresh schema: %v", err)
			}
			if got, want := applied(t, connect(t, url)), wantMigrations(t); !slices.Equal(got, want) {
				t.Errorf("schema_migrations = %q, want %q", got, want)
			}
		})
	}
}

// TestOpenMigratesOlderSchema opens a schema that an older binary left at
// version 1: Open applies the rest, and the documents stay.
func TestOpenMigratesOlderSchema(t *testing.T) {
	ctx := context.Background()
	url := postgrestest.URL(t)
	conn := connect(t, url)
	first, err := os.ReadFile("migrations/0001_documents.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
		INSERT INTO schema_migrations (version, name) VALUES (1, '0001_documents.sql');
		`+string(first)+`
		INSERT INTO documents VALUES ('doc-old', 'old', 1, 0, 7, 256, '0', '[]', 'hash');`); err != nil {
		t.Fatalf("setting up version 1: %v", err)
	}
	s := open(t, url)
	if got, want := applied(t, conn), wantMigrations(t); !slices.Equal(got, want) {
		t.Errorf("schema_migrations = %q, want %q", got, want)
	}
	var revision int64
	if err := s.Load(ctx, func(d *store.DocumentRecord, _ []store.EntityRecord) error {
		revision = d.Revision
		return nil
	}); err != nil || revision != 7 {
		t.Errorf("Load after migrating = revision %d, %v; want doc-old at revision 7", revision, err)
	}
	if _, err := s.Grant(ctx, "doc-old", "engine-a", 1e9); err != nil {
		t.Errorf("Grant after migrating: %v", err)
	}
}

// TestOpenRefusesNewerSchema: a binary does not run on a schema migrated
// past what it knows.
func TestOpenRefusesNewerSchema(t *testing.T) {
	url := postgrestest.URL(t)
	open(t, url).Close()
	if _, err := connect(t, url).Exec(context.Background(), `INSERT INTO schema_migrations (version, name) VALUES (999, '0999_future.sql')`); err != nil {
		t.Fatal(err)
	}
	s, err := postgres.Open(context.Background(), url)
	if err == nil {
		s.Close()
		t.Fatal("Open on a newer schema succeeded")
	}
	if !strings.Contains(err.Error(), "999") {
		t.Errorf("Open on a newer schema: %v, want the version named", err)
	}
}

// TestCommitAtomic fails a commit at its last statement: nothing of its
// earlier statements stays, although they were sent in the same batch.
func TestCommitAtomic(t *testing.T) {
	ctx := context.Background()
	s := open(t, postgrestest.URL(t))
	bad := store.OperationRecord{Principal: "nul\x00", ID: "op-1", Kind: "cad.batch"} // text cannot hold NUL
	c := &store.Commit{
		Document:   &store.DocumentRecord{ID: "doc-1", Name: "one", Revision: 1},
		Put:        []store.EntityRecord{{Handle: 0x100, Data: []byte("e")}},
		Operations: []store.OperationRecord{{Principal: "alice", ID: "op-0", Kind: "cad.batch"}, bad},
	}
	if err := s.Commit(ctx, c); err == nil {
		t.Fatal("Commit with an operation PostgreSQL cannot store succeeded")
	}
	n := 0
	if err := s.Load(ctx, func(*store.DocumentRecord, []store.EntityRecord) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("Load after a failed commit = %d documents, %v; want none", n, err)
	}
	if err := s.LoadOperations(ctx, func(*store.OperationRecord) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("LoadOperations after a failed commit = %d records, %v; want none", n, err)
	}
}

func TestKind(t *testing.T) {
	if got := open(t, postgrestest.URL(t)).Kind(); got != "postgres" {
		t.Errorf("Kind() = %q, want postgres", got)
	}
}
