package postgres

import (
	"testing"
	"testing/fstest"
)

func TestEmbeddedMigrations(t *testing.T) {
	all, err := migrations(migrationFiles)
	if err != nil {
		t.Fatalf("migrations: %v", err)
	}
	for i, m := range all {
		if m.version != i+1 || m.sql == "" {
			t.Errorf("migration %d = version %d, %d bytes of SQL; want version %d and SQL", i, m.version, len(m.sql), i+1)
		}
	}
}

func TestMigrationNumbering(t *testing.T) {
	file := &fstest.MapFile{Data: []byte("SELECT 1;")}
	for _, tt := range []struct {
		name  string
		files []string
		ok    bool
	}{
		{"from one without gaps", []string{"0001_a.sql", "0002_b.sql", "0003_c.sql"}, true},
		{"none", nil, false},
		{"a gap", []string{"0001_a.sql", "0003_c.sql"}, false},
		{"not from one", []string{"0002_b.sql"}, false},
		{"a duplicate", []string{"0001_a.sql", "0001_b.sql"}, false},
		{"no name", []string{"0001.sql"}, false},
		{"not four digits", []string{"001_a.sql"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for _, f := range tt.files {
				fsys["migrations/"+f] = file
			}
			got, err := migrations(fsys)
			if (err == nil) != tt.ok {
				t.Errorf("migrations(%v) = %d migrations, %v; want ok %v", tt.files, len(got), err, tt.ok)
			}
		})
	}
}
