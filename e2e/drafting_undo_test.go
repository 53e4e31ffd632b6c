package e2e_test

import (
	"encoding/json"
	"math"
	"testing"
)

// toolAnswer is a tools.call answer.
type toolAnswer struct {
	OK          bool            `json:"ok"`
	OperationID string          `json:"operation_id"`
	Revision    int64           `json:"revision"`
	Replayed    bool            `json:"replayed"`
	Result      json.RawMessage `json:"result"`
	Error       *struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	} `json:"error"`
}

// TestDraftingUndo drives undo and redo through the built gateway and
// engine: draw, delete, undo (the entity back with its handle at a new
// revision), redo, a replayed operation id after an undo, and a boundary
// traced and hatched by a pick point.
func TestDraftingUndo(t *testing.T) {
	gateway, _ := startServices(t)
	c := &httpClient{url: "http://" + gateway + "/rpc"}
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, 1, "document.create", map[string]any{"name": "undo"}, &doc)
	id := 10
	tool := func(name string, args map[string]any, opID string) toolAnswer {
		t.Helper()
		id++
		params := map[string]any{"document_id": doc.DocumentID, "tool": name, "args": args}
		if opID != "" {
			params["operation_id"] = opID
		}
		var a toolAnswer
		mustCall(t, c, id, "tools.call", params, &a)
		return a
	}
	ok := func(name string, args map[string]any, opID string) (toolAnswer, map[string]any) {
		t.Helper()
		a := tool(name, args, opID)
		if !a.OK {
			t.Fatalf("%s(%v) = %+v, want ok", name, args, a.Error)
		}
		var res map[string]any
		if err := json.Unmarshal(a.Result, &res); err != nil {
			t.Fatal(err)
		}
		return a, res
	}
	exists := func(h string) bool {
		t.Helper()
		return tool("entity_get", map[string]any{"handle": h}, "").OK
	}
	type info struct {
		Revision    int64  `json:"revision"`
		ContentHash string `json:"content_hash"`
		EntityCount int64  `json:"entity_count"`
	}
	get := func() info {
		t.Helper()
		id++
		var i info
		mustCall(t, c, id, "document.get", map[string]any{"document_id": doc.DocumentID}, &i)
		return i
	}

	drawn, line := ok("entity_create_line", map[string]any{"x1": 0, "y1": 0, "x2": 3, "y2": 4}, "op-draw")
	h := line["handle"].(string)
	before := get()
	ok("entity_delete", map[string]any{"handle": h}, "")
	deleted := get()
	if exists(h) || deleted.EntityCount != 0 {
		t.Fatalf("line %s still there after entity_delete", h)
	}

	undo, res := ok("document_undo", map[string]any{}, "")
	after := get()
	if undo.Revision != deleted.Revision+1 || after.Revision != undo.Revision {
		t.Errorf("undo at revision %d (document %d), want %d: a new revision", undo.Revision, after.Revision, deleted.Revision+1)
	}
	if !exists(h) || after.ContentHash != before.ContentHash {
		t.Errorf("after undo: %s there %v, hash %s; want the line back, hash %s", h, exists(h), after.ContentHash, before.ContentHash)
	}
	if r, _ := res["restored"].([]any); len(r) != 1 || r[0] != h {
		t.Errorf("document_undo = %v, want %s restored", res, h)
	}

	redo, _ := ok("document_redo", map[string]any{}, "")
	if exists(h) || redo.Revision != undo.Revision+1 || get().ContentHash != deleted.ContentHash {
		t.Errorf("after redo: %s there %v at revision %d; want it gone again at %d", h, exists(h), redo.Revision, undo.Revision+1)
	}

	// Undo the delete and the draw; then the draw's id replays its
	// recorded answer and draws nothing.
	ok("document_undo", map[string]any{"steps": 2}, "")
	empty := get()
	if empty.EntityCount != 0 || exists(h) {
		t.Fatalf("after undoing both: %d entities, want none", empty.EntityCount)
	}
	again := tool("entity_create_line", map[string]any{"x1": 0, "y1": 0, "x2": 3, "y2": 4}, "op-draw")
	if !again.Replayed || string(again.Result) != string(drawn.Result) || again.Revision != drawn.Revision {
		t.Errorf("replay of op-draw after undo = %+v, want the recorded answer %s at revision %d", again, drawn.Result, drawn.Revision)
	}
	if got := get(); got != empty {
		t.Errorf("the replay changed the document: %+v → %+v", empty, got)
	}
	// Something else happened since: redo is refused, typed.
	ok("entity_create_point", map[string]any{"x": 1, "y": 1}, "")
	if a := tool("document_redo", map[string]any{}, ""); a.OK || a.Error == nil || a.Error.Kind != "failed" {
		t.Errorf("redo after another change = %+v, want failed", a)
	}

	// A boundary around a point, and a hatch by pick point.
	ok("entity_create_rectangle", map[string]any{"x1": 0, "y1": 0, "x2": 10, "y2": 10}, "")
	ok("entity_create_line", map[string]any{"x1": 0, "y1": 0, "x2": 10, "y2": 10}, "")
	_, b := ok("boundary_trace", map[string]any{"x": 7, "y": 2}, "")
	if a := b["area"].(float64); math.Abs(a-50) > 1e-9 {
		t.Errorf("boundary_trace area = %v, want 50", a)
	}
	_, hatch := ok("hatch_create", map[string]any{"pick_x": 2, "pick_y": 7}, "")
	if a := hatch["area"].(float64); math.Abs(a-50) > 1e-9 {
		t.Errorf("hatch_create by pick area = %v, want 50", a)
	}
	if a := tool("boundary_trace", map[string]any{"x": 70, "y": 2}, ""); a.OK || a.Error.Kind != "failed" {
		t.Errorf("boundary_trace outside = %+v, want failed", a)
	}
}
