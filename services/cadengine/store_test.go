package cadengine

import (
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/store/postgres/postgrestest"
)

func TestOpenStoreSpecs(t *testing.T) {
	for _, bad := range []string{
		"", "memory:x", "sqlite:", "nonsense", "postgres:", "mysql://127.0.0.1/x",
		"postgres://127.0.0.1:1/x?connect_timeout=5", // nothing listens on port 1
	} {
		if s, err := OpenStore(bad); err == nil {
			s.Close()
			t.Errorf("OpenStore(%q) succeeded", bad)
		}
	}
	s, err := OpenStore("memory:")
	if err != nil || s.Kind() != "memory" {
		t.Errorf("OpenStore(memory:) = %v, %v", s, err)
	}
}

func TestOpenStorePostgres(t *testing.T) {
	url := postgrestest.URL(t)
	for _, spec := range []string{url, "postgresql://" + strings.TrimPrefix(url, "postgres://")} {
		s, err := OpenStore(spec)
		if err != nil {
			t.Fatalf("OpenStore(%s): %v", spec, err)
		}
		if s.Kind() != "postgres" {
			t.Errorf("OpenStore(%s).Kind() = %q, want postgres", spec, s.Kind())
		}
		s.Close()
	}
}
