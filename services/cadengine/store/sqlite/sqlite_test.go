package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

func TestSQLitePragmas(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "a", "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db := s.db
	for pragma, want := range map[string]string{"journal_mode": "wal", "synchronous": "2", "busy_timeout": "10000", "foreign_keys": "1"} {
		var got string
		if err := db.QueryRow("PRAGMA " + pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
	}
}

// TestOperationsMigrated opens a file whose operations table is WITHOUT
// ROWID, as user_version 3 made it, holding a record with a response that
// overflows its page: Open rebuilds the table as a rowid table, the
// record reads back unchanged, and opening again leaves it as it is.
func TestOperationsMigrated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v3.db")
	v3 := sqliteSchema
	for _, edit := range [][2]string{
		{"PRIMARY KEY (principal, id)\n);", "PRIMARY KEY (principal, id)\n) WITHOUT ROWID;"},
		{"PRAGMA user_version = 5;", "PRAGMA user_version = 3;"},
	} {
		if !strings.Contains(v3, edit[0]) {
			t.Fatalf("sqliteSchema has no %q to derive the user_version 3 schema from", edit[0])
		}
		v3 = strings.Replace(v3, edit[0], edit[1], 1)
	}
	old, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	response := bytes.Repeat([]byte("response "), 10_000)
	for _, stmt := range []struct {
		query string
		args  []any
	}{
		{query: v3},
		{`INSERT INTO operations VALUES ('alice', 'op-1', 'cad.batch', 'doc-1', x'0102', 2, '[0,1]', 7, ?, 10, 20)`, []any{response}},
		{query: `INSERT INTO operations VALUES ('alice', 'op-2', 'entity_get', '', x'03', 1, '[]', 0, NULL, 30, 0)`},
	} {
		if _, err := old.Exec(stmt.query, stmt.args...); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()

	want := []store.OperationRecord{
		{Principal: "alice", ID: "op-1", Kind: "cad.batch", DocumentID: "doc-1", RequestHash: []byte{1, 2}, Status: 2,
			CommittedSteps: []int32{0, 1}, Revision: 7, Response: response, StartedAt: time.Unix(0, 10).UTC(), FinishedAt: time.Unix(0, 20).UTC()},
		{Principal: "alice", ID: "op-2", Kind: "entity_get", RequestHash: []byte{3}, Status: 1,
			CommittedSteps: []int32{}, StartedAt: time.Unix(0, 30).UTC()},
	}
	for open := range 2 {
		s, err := Open(path)
		if err != nil {
			t.Fatalf("open %d: %v", open, err)
		}
		var got []store.OperationRecord
		if err := s.LoadOperations(context.Background(), func(op *store.OperationRecord) error {
			got = append(got, *op)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("open %d: operations = %+v, want %+v", open, got, want)
		}
		var ddl string
		var version int
		if err := s.db.QueryRow(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'operations'`).Scan(&ddl); err != nil {
			t.Fatal(err)
		}
		if err := s.db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(ddl, "WITHOUT ROWID") || version != 5 {
			t.Errorf("open %d: operations is %q at user_version %d, want a rowid table at 5", open, ddl, version)
		}
		var index int
		if err := s.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'operations_finished_at'`).Scan(&index); err != nil || index != 1 {
			t.Errorf("open %d: operations_finished_at indexes = %d (%v), want 1", open, index, err)
		}
		s.Close()
	}
}
