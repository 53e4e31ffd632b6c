package engine

import (
	"slices"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

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
			name == enginev1.ToolSystemStatus || name == enginev1.ToolSystemCapabilities ||
			name == enginev1.ToolToolSearch || name == enginev1.ToolToolDescribe
		if engine != (spec.scope == scopeEngine) {
			t.Errorf("tool %s scope = %v, want engine scope %v", name, spec.scope, engine)
		}
	}
}

// TestNewEntityGeometryFields: newEntityGeometryFields names every field
// of NewEntity but type and style, in order, and newEntityGeometrySet
// reads each into its own bit.
func TestNewEntityGeometryFields(t *testing.T) {
	fields := (&enginev1.NewEntity{}).ProtoReflect().Descriptor().Fields()
	var want []string
	for i := range fields.Len() {
		switch name := string(fields.Get(i).Name()); name {
		case "type", "layer", "color", "linetype", "layout":
		default:
			want = append(want, name)
		}
	}
	if got := newEntityGeometryFields; !slices.Equal(got, want) {
		t.Fatalf("newEntityGeometryFields = %v, want %v", got, want)
	}
	for i, name := range newEntityGeometryFields {
		ne := &enginev1.NewEntity{}
		m := ne.ProtoReflect()
		fd := fields.ByName(protoreflect.Name(name))
		if fd.IsList() {
			m.Mutable(fd).List().Append(protoreflect.ValueOfMessage((&enginev1.Vertex{}).ProtoReflect()))
		} else {
			m.Set(fd, m.NewField(fd))
		}
		if got := newEntityGeometrySet(ne); got != 1<<i {
			t.Errorf("with %s set, newEntityGeometrySet = %b, want %b", name, got, 1<<i)
		}
	}
}

// TestToolSchemas: every tool's input schema compiles (the engine compiles
// one only when arguments the generated decoder refuses need it).
func TestToolSchemas(t *testing.T) {
	tools, err := compileTools()
	if err != nil {
		t.Fatal(err)
	}
	for name, tl := range tools {
		if _, err := tl.schema(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
