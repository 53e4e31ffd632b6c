package postgres_test

import (
	"context"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/postgres"
	"github.com/cadbridge/cadbridge/services/cadengine/store/postgres/postgrestest"
	"github.com/cadbridge/cadbridge/services/cadengine/store/storetest"
)

// open opens a store on url, closed when t ends.
func open(t testing.TB, url string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestConformance runs the suite with a schema of its own for each test.
func TestConformance(t *testing.T) {
	urls := map[store.Store]string{}
	opened := func(t *testing.T, url string) store.Store {
		s := open(t, url)
		urls[s] = url
		return s
	}
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T) store.Store { return opened(t, postgrestest.URL(t)) },
		Reopen: func(t *testing.T, s store.Store) store.Store {
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			return opened(t, urls[s])
		},
		Share: func(t *testing.T, s store.Store) store.Store { return opened(t, urls[s]) },
	})
}
