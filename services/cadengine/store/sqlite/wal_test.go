package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// walSize is the size of the WAL file of the database at path.
func walSize(t *testing.T, path string) int64 {
	t.Helper()
	info, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

// TestWALPresized: a store opens with its WAL as large as SQLite lets it
// grow before starting it over, and commits write within it.
func TestWALPresized(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cadengine.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want, err := presizedWAL(context.Background(), s.db)
	if err != nil {
		t.Fatal(err)
	}
	if got := walSize(t, path); got != want {
		t.Fatalf("WAL after Open: %d bytes, want %d", got, want)
	}
	for i := range 50 {
		if err := s.Commit(context.Background(), testCommit("doc-1", uint64(i)+1)); err != nil {
			t.Fatal(err)
		}
	}
	if got := walSize(t, path); got != want {
		t.Errorf("WAL after 50 commits: %d bytes, want %d (commits appended to it)", got, want)
	}
}

// TestWALZerosRecovered: the zeros after the last frame are not read as
// frames. A copy of the files taken while the store is open (what a
// killed engine leaves) opens with every commit in it.
func TestWALZerosRecovered(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cadengine.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 3 {
		if err := s.Commit(context.Background(), testCommit("doc-1", uint64(i)+1)); err != nil {
			t.Fatal(err)
		}
	}
	crashed := filepath.Join(t.TempDir(), "cadengine.db")
	for _, suffix := range []string{"", "-wal"} { // not the -shm index: recovery rebuilds it from the WAL
		data, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(crashed+suffix, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Open(crashed)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := storedHandles(t, c, "doc-1"); !slices.Equal(got, []uint64{1, 2, 3}) {
		t.Errorf("entities recovered: %v, want [1 2 3]", got)
	}
}
