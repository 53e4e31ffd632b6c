package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/sqlite"
	"github.com/cadbridge/cadbridge/services/cadengine/store/storetest"
)

func TestConformance(t *testing.T) {
	paths := map[store.Store]string{}
	open := func(t *testing.T, path string) store.Store {
		s, err := sqlite.Open(path)
		if err != nil {
			t.Fatalf("Open(%s): %v", path, err)
		}
		paths[s] = path
		return s
	}
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T) store.Store { return open(t, filepath.Join(t.TempDir(), "cadengine.db")) },
		Reopen: func(t *testing.T, s store.Store) store.Store {
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			return open(t, paths[s])
		},
		Share: func(t *testing.T, s store.Store) store.Store { return open(t, paths[s]) },
	})
}
