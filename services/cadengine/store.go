package cadengine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
	"github.com/cadbridge/cadbridge/services/cadengine/store/postgres"
	"github.com/cadbridge/cadbridge/services/cadengine/store/sqlite"
)

// openTimeout bounds connecting to a PostgreSQL store and migrating its
// schema, which may wait for another engine's migration.
const openTimeout = time.Minute

// sharedStore reports whether s is shared by several engines, which then
// serve documents under leases: a PostgreSQL store. A memory or SQLite
// store serves one engine, which holds every document without leases.
func sharedStore(s store.Store) (store.Shared, bool) {
	shared, ok := s.(store.Shared)
	return shared, ok && s.Kind() == "postgres"
}

// OpenStore opens a store from its spec: "sqlite:PATH" (a SQLite file in WAL
// mode with synchronous=FULL; missing parent directories are created),
// "memory:" (nothing survives the process; for tests), or a
// "postgres://…" or "postgresql://…" URL (a PostgreSQL database that
// several engines may share; its schema is created or migrated first).
func OpenStore(spec string) (store.Store, error) {
	if strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://") {
		ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
		defer cancel()
		s, err := postgres.Open(ctx, spec)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	kind, rest, ok := strings.Cut(spec, ":")
	if !ok {
		return nil, fmt.Errorf("store %q: want sqlite:PATH, memory: or postgres://…", spec)
	}
	switch kind {
	case "memory":
		if rest != "" {
			return nil, fmt.Errorf("store %q: memory: takes no path", spec)
		}
		return memory.New(), nil
	case "sqlite":
		s, err := sqlite.Open(rest)
		if err != nil {
			return nil, err
		}
		return s, nil
	default:
		return nil, fmt.Errorf("store %q: unknown kind %q (want sqlite, memory or postgres)", spec, kind)
	}
}
