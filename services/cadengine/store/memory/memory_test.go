package memory_test

import (
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
	"github.com/cadbridge/cadbridge/services/cadengine/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Harness{
		Open:   func(*testing.T) store.Store { return memory.New() },
		Reopen: func(_ *testing.T, s store.Store) store.Store { return s },
	})
}
