package cadengine

import (
	"fmt"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
	"github.com/cadbridge/cadbridge/services/cadengine/store/sqlite"
)

// OpenStore opens a store from its spec: "sqlite:PATH" (a SQLite file in WAL
// mode with synchronous=FULL; missing parent directories are created) or
// "memory:" (nothing survives the process; for tests).
func OpenStore(spec string) (store.Store, error) {
	kind, rest, ok := strings.Cut(spec, ":")
	if !ok {
		return nil, fmt.Errorf("store %q: want sqlite:PATH or memory:", spec)
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
		return nil, fmt.Errorf("store %q: unknown kind %q (want sqlite or memory)", spec, kind)
	}
}
