package engine

import (
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

func TestEveryToolHasAHandler(t *testing.T) {
	table := toolTable()
	for _, ti := range enginev1.Tools {
		if _, ok := table[ti.Name]; !ok {
			t.Errorf("tool %s has no handler in toolTable", ti.Name)
		}
	}
	if len(table) != len(enginev1.Tools) {
		t.Errorf("toolTable has %d entries, the catalog %d tools", len(table), len(enginev1.Tools))
	}
	// Engine-scoped tools are exactly those that need no document.
	for name, spec := range table {
		engine := name == enginev1.ToolDocumentCreate || name == enginev1.ToolDocumentImport ||
			name == enginev1.ToolSystemStatus || name == enginev1.ToolSystemCapabilities
		if engine != (spec.scope == scopeEngine) {
			t.Errorf("tool %s scope = %v, want engine scope %v", name, spec.scope, engine)
		}
	}
}
