package sqlite

import (
	"path/filepath"
	"testing"
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
