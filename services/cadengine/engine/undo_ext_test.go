package engine_test

import (
	"context"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
)

// callOp runs a tool as a call with an operation id.
func (f *fixture) callOp(opID, tool string, args obj) *enginev1.CallToolResponse {
	f.t.Helper()
	req := &enginev1.CallToolRequest{Tool: tool, DocumentId: &f.doc, OperationId: &opID, ArgsJson: mustJSON(args)}
	resp, err := f.e.CallTool(context.Background(), engine.Caller{Principal: "tester"}, req)
	if err != nil {
		f.t.Fatalf("CallTool(%s): %v", tool, err)
	}
	return resp
}

// has reports whether the document has an entity with handle h.
func (f *fixture) has(h string) bool {
	f.t.Helper()
	return f.call(enginev1.ToolEntityGet, obj{"handle": h}).Ok
}

func TestUndoRedoDelete(t *testing.T) {
	f := newFixture(t)
	line := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 0})
	circle := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 5, "cy": 5, "radius": 2})
	drawn := f.info()
	fp := f.get(line)["fingerprint"]

	f.ok(enginev1.ToolEntityDelete, obj{"handle": line})
	deleted := f.info()
	if f.has(line) {
		t.Fatalf("entity %s still there after entity_delete", line)
	}

	res := f.ok(enginev1.ToolDocumentUndo, obj{})
	undone := f.info()
	if undone.Revision != deleted.Revision+1 {
		t.Errorf("revision after undo = %d, want %d (a new revision)", undone.Revision, deleted.Revision+1)
	}
	if undone.ContentHash != drawn.ContentHash || undone.EntityCount != 2 {
		t.Errorf("after undo: hash %s, %d entities; want %s, 2 (as before the delete)", undone.ContentHash, undone.EntityCount, drawn.ContentHash)
	}
	if got := f.get(line)["fingerprint"]; got != fp {
		t.Errorf("entity %s came back with fingerprint %v, want %v", line, got, fp)
	}
	if js(res["restored"]) != js([]any{line}) || js(res["handles"]) != js([]any{line}) || res["redo_available"] != 1.0 {
		t.Errorf("document_undo = %s, want %s restored, one to redo", js(res), line)
	}

	res = f.ok(enginev1.ToolDocumentRedo, obj{})
	if f.has(line) || !f.has(circle) {
		t.Errorf("after redo: line there %v, circle there %v; want false, true", f.has(line), f.has(circle))
	}
	if js(res["removed"]) != js([]any{line}) {
		t.Errorf("document_redo = %s, want %s removed", js(res), line)
	}
	if got := f.info(); got.ContentHash != deleted.ContentHash || got.Revision != undone.Revision+1 {
		t.Errorf("after redo: hash %s revision %d; want %s, %d", got.ContentHash, got.Revision, deleted.ContentHash, undone.Revision+1)
	}

	// Two steps back: the delete, then the circle.
	res = f.ok(enginev1.ToolDocumentUndo, obj{"steps": 2})
	if !f.has(line) || f.has(circle) || len(res["operations"].([]any)) != 2 {
		t.Errorf("undo of 2: line there %v, circle there %v, result %s; want true, false, two operations", f.has(line), f.has(circle), js(res))
	}
	// Something else changes the document: redo is over.
	f.ok(enginev1.ToolEntityMove, obj{"handle": line, "dx": 1, "dy": 0})
	e := f.fail(enginev1.ToolDocumentRedo, obj{}, kindFailed)
	if !strings.Contains(e.GetMessage(), "changed the document after the last undo") {
		t.Errorf("redo after a change: %q, want it to say the document changed", e.GetMessage())
	}
}

func TestUndoFailures(t *testing.T) {
	f := newFixture(t)
	before := f.info()
	for _, tool := range []string{enginev1.ToolDocumentUndo, enginev1.ToolDocumentRedo} {
		e := f.fail(tool, obj{}, kindFailed)
		if !strings.Contains(e.GetMessage(), "nothing to") {
			t.Errorf("%s at revision 0: %q, want nothing to …", tool, e.GetMessage())
		}
	}
	f.fail(enginev1.ToolDocumentUndo, obj{"steps": 0}, kindInvalid)
	if after := f.info(); after.Revision != 0 || after.ContentHash != before.ContentHash {
		t.Errorf("failed undos changed the document: revision %d", after.Revision)
	}
	f.handle(enginev1.ToolEntityCreatePoint, obj{"x": 1, "y": 1})
	e := f.fail(enginev1.ToolDocumentUndo, obj{"steps": 2}, kindFailed)
	if !strings.Contains(e.GetMessage(), "only 1") {
		t.Errorf("undo of 2 with one operation: %q", e.GetMessage())
	}
	// Not a batch step.
	resp := f.batch(f.batchReq(st(enginev1.ToolDocumentUndo, obj{})))
	if resp.Status != enginev1.BatchStatus_BATCH_STATUS_REFUSED {
		t.Errorf("document_undo in a batch: %v, want refused", resp.Status)
	}
}

func TestUndoReplayedOperation(t *testing.T) {
	f := newFixture(t)
	first := f.callOp("op-line", enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 3, "y2": 4})
	h := resultObj(first.ResultJson)["handle"].(string)
	f.ok(enginev1.ToolDocumentUndo, obj{})
	if f.has(h) {
		t.Fatalf("line %s still there after undo", h)
	}
	before := f.info()
	again := f.callOp("op-line", enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 3, "y2": 4})
	if !again.Replayed || string(again.ResultJson) != string(first.ResultJson) || again.Revision != first.Revision {
		t.Errorf("replay after undo = replayed %v %s at %d, want the recorded %s at %d", again.Replayed, again.ResultJson, again.Revision, first.ResultJson, first.Revision)
	}
	if after := f.info(); after.Revision != before.Revision || after.ContentHash != before.ContentHash || f.has(h) {
		t.Errorf("a replay after undo changed the document: revision %d → %d", before.Revision, after.Revision)
	}
	// The undo itself is an operation: replayed, it undoes nothing more.
	u := f.callOp("op-undo", enginev1.ToolDocumentRedo, obj{})
	if !u.Ok {
		t.Fatalf("redo: %v", u.Error)
	}
	mid := f.info()
	if u2 := f.callOp("op-undo", enginev1.ToolDocumentRedo, obj{}); !u2.Replayed || f.info().Revision != mid.Revision {
		t.Errorf("replayed redo: replayed %v, revision %d → %d", u2.Replayed, mid.Revision, f.info().Revision)
	}
	if !f.has(h) {
		t.Errorf("redo did not bring %s back", h)
	}
}

func TestUndoBatchWhole(t *testing.T) {
	f := newFixture(t)
	keep := f.handle(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0})
	kept := f.info()
	resp := f.batch(f.batchReq(
		st(enginev1.ToolLayerCreate, obj{"name": "WALLS"}),
		st(enginev1.ToolLayerSetCurrent, obj{"name": "WALLS"}),
		st(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 0}, "a"),
		st(enginev1.ToolTransactionBegin, obj{}),
		st(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 1, "x2": 1, "y2": 1}),
		st(enginev1.ToolTransactionRollback, obj{}),
		st(enginev1.ToolTransactionBegin, obj{}),
		st(enginev1.ToolEntityMove, obj{"handle": keep, "dx": 5, "dy": 5}),
		st(enginev1.ToolTransactionCommit, obj{}),
		st(enginev1.ToolEntityDelete, obj{"handle": "$a"}),
	))
	if resp.Status != enginev1.BatchStatus_BATCH_STATUS_COMPLETED {
		t.Fatalf("batch = %v", resp.Status)
	}
	res := f.ok(enginev1.ToolDocumentUndo, obj{})
	got := f.info()
	if got.ContentHash != kept.ContentHash || got.CurrentLayer != "0" || len(got.Layers) != 1 {
		t.Errorf("after undo of the batch: hash %s, current %q, %d layers; want %s, \"0\", 1", got.ContentHash, got.CurrentLayer, len(got.Layers), kept.ContentHash)
	}
	if ops := res["operations"].([]any); len(ops) != 1 || ops[0] != resp.OperationId {
		t.Errorf("undone operations = %v, want the batch %s", ops, resp.OperationId)
	}
	// Redo brings the batch's end state back, moved point included.
	f.ok(enginev1.ToolDocumentRedo, obj{})
	if p := pt(f.get(keep)["location"]); p != [2]float64{5, 5} || f.info().CurrentLayer != "WALLS" {
		t.Errorf("after redo: point at %v, current %q; want (5, 5), WALLS", p, f.info().CurrentLayer)
	}
}

func TestUndoAfterImport(t *testing.T) {
	e := newEngine(t, nil)
	src := newFixture(t)
	fillDocument(t, src)
	f := importDXF(t, e, "imported", exportWith(t, src, "dxf", r12))
	imported := f.info()
	// The import is the document's start: nothing before it to undo.
	f.fail(enginev1.ToolDocumentUndo, obj{}, kindFailed)
	ents := f.entities()
	h := ents[len(ents)-1]["handle"].(string)
	f.ok(enginev1.ToolLayerUnlock, obj{"name": ents[len(ents)-1]["layer"]})
	f.ok(enginev1.ToolEntityDeleteMany, obj{"handles": []any{h, ents[0]["handle"]}})
	f.ok(enginev1.ToolDocumentUndo, obj{"steps": 2})
	if got := f.info(); got.ContentHash != imported.ContentHash || got.EntityCount != imported.EntityCount {
		t.Errorf("after undoing to the import: hash %s, %d entities; want %s, %d", got.ContentHash, got.EntityCount, imported.ContentHash, imported.EntityCount)
	}
	if !f.has(h) {
		t.Errorf("entity %s did not come back with its handle", h)
	}
}

// TestUndoStored checks that an undo is stored like any write: another
// engine over the same store loads the undone state.
func TestUndoStored(t *testing.T) {
	path := t.TempDir() + "/undo.db"
	e := newEngine(t, openSQLite(t, path))
	info, err := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, e: e, doc: info.DocumentId}
	h := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 1})
	f.ok(enginev1.ToolEntityDelete, obj{"handle": h})
	f.ok(enginev1.ToolDocumentUndo, obj{})
	want := f.info()
	e.Close()
	again := &fixture{t: t, e: newEngine(t, openSQLite(t, path)), doc: f.doc}
	if got := again.info(); got.ContentHash != want.ContentHash || got.Revision != want.Revision || !again.has(h) {
		t.Errorf("reloaded: hash %s revision %d; want %s, %d with %s", got.ContentHash, got.Revision, want.ContentHash, want.Revision, h)
	}
	// The new engine has no history of the old one's writes.
	e2 := again.fail(enginev1.ToolDocumentUndo, obj{}, kindFailed)
	if !strings.Contains(e2.GetMessage(), "since it loaded") {
		t.Errorf("undo after a reload: %q", e2.GetMessage())
	}
}
