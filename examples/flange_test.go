package examples_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/cadbridge/cadbridge/cmd/cadctl/cadctltest"
)

// TestFlangeUndoRedo runs examples/flange.json through the built binaries
// and checks what a draughtsman would: the hatched strip's area is the
// filleted rectangle's, the polar array made six holes, the item's
// attribute reads A1; then the batch is undone (the document is empty,
// at a new revision) and redone (the drawing is back, to its content
// hash, with its handles).
func TestFlangeUndoRedo(t *testing.T) {
	s := cadctltest.Start(t)
	res := s.Cadctl(t, "batch", "flange.json", "--json")
	if res.Code != 0 {
		t.Fatalf("cadctl batch flange.json: %s", res)
	}
	m := createdDocument.FindStringSubmatch(res.Stderr)
	if m == nil {
		t.Fatalf("cadctl batch did not say which document it created:\n%s", res.Stderr)
	}
	doc := m[1]
	var batch struct {
		Bindings map[string]json.RawMessage `json:"bindings"`
		Results  []struct {
			Tool   string          `json:"tool"`
			Result json.RawMessage `json:"result"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &batch); err != nil {
		t.Fatal(err)
	}
	results := map[string]json.RawMessage{}
	for _, r := range batch.Results {
		results[r.Tool] = r.Result // the last of each tool
	}

	var area struct{ Area, Perimeter float64 }
	decode(t, results["analysis_measure_area"], &area)
	// A 30 × 80 strip whose two left corners are rounded to radius 8.
	wantArea := 30*80 - 2*(8*8-math.Pi*8*8/4)
	wantPerimeter := 2*(30-8) + (80 - 2*8) + 80 + math.Pi*8
	if math.Abs(area.Area-wantArea) > 1e-9*wantArea || math.Abs(area.Perimeter-wantPerimeter) > 1e-9*wantPerimeter {
		t.Errorf("the hatched strip: area %v, perimeter %v; want %v, %v", area.Area, area.Perimeter, wantArea, wantPerimeter)
	}
	var array struct{ Handles []string }
	decode(t, results["entity_array_polar"], &array)
	if len(array.Handles) != 5 {
		t.Errorf("entity_array_polar made %d copies (%v), want 5 beside the original", len(array.Handles), array.Handles)
	}

	call := func(tool string, args map[string]any, out any) {
		t.Helper()
		params, _ := json.Marshal(map[string]any{"document_id": doc, "tool": tool, "args": args})
		r := s.Cadctl(t, "call", "tools.call", string(params))
		if r.Code != 0 {
			t.Fatalf("%s: %s", tool, r)
		}
		var step struct {
			OK     bool            `json:"ok"`
			Result json.RawMessage `json:"result"`
		}
		decode(t, json.RawMessage(r.Stdout), &step)
		if !step.OK {
			t.Fatalf("%s = %s, want ok", tool, r.Stdout)
		}
		decode(t, step.Result, out)
	}
	var items struct{ Handles []string }
	call("block_references", map[string]any{"name": "ITEM"}, &items)
	if len(items.Handles) != 1 {
		t.Fatalf("block_references ITEM = %v, want one insert", items.Handles)
	}
	var attrs struct {
		Values map[string]string `json:"values"`
	}
	call("block_attributes_get", map[string]any{"handle": items.Handles[0]}, &attrs)
	if attrs.Values["NO"] != "A1" {
		t.Errorf("the item's attributes = %v, want NO: A1", attrs.Values)
	}

	type info struct {
		Revision    int64  `json:"revision"`
		ContentHash string `json:"content_hash"`
		EntityCount int64  `json:"entity_count"`
	}
	var drawn, undone, redone info
	call("document_info", map[string]any{}, &drawn)
	call("document_undo", map[string]any{}, &struct{}{})
	call("document_info", map[string]any{}, &undone)
	if undone.EntityCount != 0 || undone.Revision <= drawn.Revision {
		t.Errorf("after document_undo: %+v; want no entities at a revision after %d", undone, drawn.Revision)
	}
	call("document_redo", map[string]any{}, &struct{}{})
	call("document_info", map[string]any{}, &redone)
	if redone.ContentHash != drawn.ContentHash || redone.EntityCount != drawn.EntityCount || redone.Revision <= undone.Revision {
		t.Errorf("after document_redo: %+v; want the drawing as drawn (%+v) at a later revision", redone, drawn)
	}
	call("block_attributes_get", map[string]any{"handle": items.Handles[0]}, &attrs)
	if attrs.Values["NO"] != "A1" {
		t.Errorf("after redo, the item (%s) reads %v, want NO: A1", items.Handles[0], attrs.Values)
	}
}

func decode(t *testing.T, raw json.RawMessage, out any) {
	t.Helper()
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
}
