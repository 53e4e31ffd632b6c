package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/dxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
	"github.com/cadbridge/cadbridge/services/cadengine/store/sqlite"
)

// snapshot is everything a user can read about a document.
func snapshot(t *testing.T, e *engine.Engine, doc string) (string, string) {
	t.Helper()
	info := callTool(t, e, doc, enginev1.ToolDocumentInfo, nil)
	list := callTool(t, e, doc, enginev1.ToolEntityList, obj{"page_size": 10000})
	if !info.Ok || !list.Ok {
		t.Fatalf("snapshot: %v %v", info.Error, list.Error)
	}
	return js(resultObj(info.ResultJson)), js(resultObj(list.ResultJson))
}

func fillDocument(t *testing.T, f *fixture) {
	t.Helper()
	f.ok(enginev1.ToolLayerCreate, obj{"name": "walls", "color": 1, "linetype": "DASHED", "lineweight": 35})
	f.ok(enginev1.ToolLayerCreate, obj{"name": "frozen"})
	f.ok(enginev1.ToolLayerModify, obj{"name": "frozen", "frozen": true, "on": false})
	f.ok(enginev1.ToolLayerSetCurrent, obj{"name": "walls"})
	f.ok(enginev1.ToolEntityBatchCreate, obj{"entities": []any{
		obj{"type": "point", "x": 1, "y": 2},
		obj{"type": "line", "x1": 0, "y1": 0, "x2": 3, "y2": 4, "color": 3, "linetype": "hidden"},
		obj{"type": "circle", "cx": 1, "cy": 1, "radius": 0.1, "layer": "0"},
		obj{"type": "arc", "cx": 1, "cy": 1, "radius": 2, "start_angle": 350, "end_angle": 10},
		obj{"type": "polyline", "points": []any{obj{"x": 0, "y": 0, "bulge": -0.4}, obj{"x": 5, "y": 0}, obj{"x": 5, "y": 5}}, "closed": true},
		obj{"type": "text", "text": "Ünïcode ✓", "x": 1, "y": 1, "height": 3.5, "rotation": 12},
		obj{"type": "ellipse", "cx": 0, "cy": 0, "major_x": 4, "major_y": 1, "ratio": 0.3, "start_angle": 45, "end_angle": 270},
	}})
	h := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0.1, "y1": 0.2, "x2": 0.3, "y2": 0.4})
	f.ok(enginev1.ToolEntityRotate, obj{"handle": h, "base_x": 0, "base_y": 0, "angle": 33.3})
	gone := f.handle(enginev1.ToolEntityCreatePoint, obj{"x": 9, "y": 9})
	f.ok(enginev1.ToolEntityDelete, obj{"handle": gone})
	f.ok(enginev1.ToolLayerLock, obj{"name": "0"})
}

func TestSQLitePersistsAcrossReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "dir", "cad.db")
	store, err := sqlite.Open(path)
	if err != nil {
		t.Fatalf("OpenStore: %v", err)
	}
	e, err := engine.New(store, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	info, err := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{Name: ptr("Plan"), Units: enginev1.Units_UNITS_CM.Enum()})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, e: e, doc: info.DocumentId}
	fillDocument(t, f)
	wantInfo, wantList := snapshot(t, e, f.doc)
	e.Close()
	store.Close()

	store, err = sqlite.Open(path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer store.Close()
	e2 := newEngine(t, store)
	gotInfo, gotList := snapshot(t, e2, f.doc)
	if gotInfo != wantInfo {
		t.Errorf("document info after reopen:\n got %s\nwant %s", gotInfo, wantInfo)
	}
	if gotList != wantList {
		t.Errorf("entities after reopen:\n got %s\nwant %s", gotList, wantList)
	}
	// The handle counter survived: the deleted entity's handle is not
	// given out again.
	f2 := &fixture{t: t, e: e2, doc: f.doc}
	f2.ok(enginev1.ToolLayerUnlock, obj{"name": "0"})
	if h := f2.handle(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0}); h != "109" {
		t.Errorf("first handle after reopen = %s, want 109 (108 was deleted, not reused)", h)
	}
	docs, err := e2.ListDocuments(context.Background(), &enginev1.ListDocumentsRequest{})
	if err != nil || len(docs.Documents) != 1 || docs.Documents[0].Name != "Plan" || docs.Documents[0].Units != enginev1.Units_UNITS_CM {
		t.Errorf("documents after reopen = %v, %v", docs, err)
	}
}

// TestSQLiteKeepsLinetypes: an imported drawing's own linetypes,
// $LTSCALE and its entities' linetype scales survive a restart: the DXF
// and SVG exports after it are those before.
func TestSQLiteKeepsLinetypes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cad.db")
	st, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(st, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A DASHED of half an inch in a drawing in millimetres (the standard
	// one would be 12.7 mm), at $LTSCALE 2, on a line of scale 2.
	f := importDXF(t, e, "linetypes", dxftest.TinyLinetype(100, 2))
	wantInfo, wantList := snapshot(t, e, f.doc)
	wantDXF, wantSVG := exportOf(t, f, "dxf"), exportOf(t, f, "svg")
	for _, want := range []string{"$LTSCALE\n 40\n2.0\n", "DASHED\n 70\n     0\n  3\nDashed\n 72\n    65\n 73\n     2\n 40\n0.75\n 49\n0.5\n", "DASHED\n 48\n2.0\n"} {
		if !strings.Contains(wantDXF, want) {
			t.Errorf("the DXF export lacks %q:\n%s", want, wantDXF)
		}
	}
	if !strings.Contains(wantList, `"linetype_scale":2`) {
		t.Errorf("entity list %s, want the line's linetype_scale 2", wantList)
	}
	e.Close()
	st.Close()

	st, err = sqlite.Open(path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer st.Close()
	e2 := newEngine(t, st)
	f2 := &fixture{t: t, e: e2, doc: f.doc}
	if gotInfo, gotList := snapshot(t, e2, f.doc); gotInfo != wantInfo || gotList != wantList {
		t.Errorf("after reopen:\n got %s\n%s\nwant %s\n%s", gotInfo, gotList, wantInfo, wantList)
	}
	if got := exportOf(t, f2, "dxf"); got != wantDXF {
		t.Errorf("DXF export after reopen:\n%s\nwant\n%s", got, wantDXF)
	}
	if got := exportOf(t, f2, "svg"); got != wantSVG {
		t.Errorf("SVG export after reopen:\n%s\nwant\n%s", got, wantSVG)
	}
}

func TestMemoryStoreReopen(t *testing.T) {
	store := memory.New()
	e := newEngine(t, store)
	info, err := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, e: e, doc: info.DocumentId}
	fillDocument(t, f)
	wantInfo, wantList := snapshot(t, e, f.doc)
	e.Close()
	e2 := newEngine(t, store)
	if gotInfo, gotList := snapshot(t, e2, f.doc); gotInfo != wantInfo || gotList != wantList {
		t.Errorf("memory store reopen differs:\n%s\n%s", gotInfo, wantInfo)
	}
}

// flakyStore fails commits while fail is set.
type flakyStore struct {
	*memory.Store
	fail atomic.Bool
}

func (s *flakyStore) Commit(ctx context.Context, c *store.Commit) error {
	if s.fail.Load() {
		return errors.New("disk full")
	}
	return s.Store.Commit(ctx, c)
}

// TestCommitHoldsOnlyChanges checks that a commit stores only the entities
// a call changed, and that a call that fails after changing something
// stores no document change and leaves no trace.
func TestCommitHoldsOnlyChanges(t *testing.T) {
	spy := &spyStore{Store: memory.New()}
	e := newEngine(t, spy)
	info, err := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, e: e, doc: info.DocumentId}
	var first string
	for i := range 10 {
		h := f.handle(enginev1.ToolEntityCreatePoint, obj{"x": i, "y": 0})
		if i == 0 {
			first = h
		}
	}
	f.ok(enginev1.ToolEntityMove, obj{"handle": first, "dx": 5, "dy": 5})
	if all := spy.since(0); len(all) == 0 {
		t.Fatal("no commits")
	} else if last := all[len(all)-1]; !last.document || last.puts != 1 || last.entities != 1 || last.revision != 11 {
		t.Errorf("last commit = %+v, want 1 put at revision 11", last)
	}
	// entity_batch_create creates its first entity, then fails on the
	// second (no such layer): the first is undone too.
	n, before := spy.count(), f.info()
	f.fail(enginev1.ToolEntityBatchCreate, obj{"entities": []any{
		obj{"type": "point", "x": 7, "y": 7},
		obj{"type": "point", "x": 8, "y": 8, "layer": "nowhere"},
	}}, kindFailed)
	for _, c := range spy.since(n) {
		if c.document || c.entities != 0 {
			t.Errorf("the failed call committed %+v, want its journal record only", c)
		}
	}
	if after := f.info(); after.Revision != before.Revision || after.ContentHash != before.ContentHash || after.EntityCount != 10 {
		t.Errorf("the failed call changed the document: %v → %v", before, after)
	}
}

func TestFailedCommitLeavesNoTrace(t *testing.T) {
	store := &flakyStore{Store: memory.New()}
	e := newEngine(t, store)
	info, err := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, e: e, doc: info.DocumentId}
	h := f.handle(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0})
	before := f.info()
	store.fail.Store(true)
	_, err = e.CallTool(context.Background(), engine.Caller{Principal: "p"}, &enginev1.CallToolRequest{
		Tool: enginev1.ToolEntityMove, DocumentId: &f.doc, Args: mustStruct(t, obj{"handle": h, "dx": 1, "dy": 1}),
	})
	if err == nil {
		t.Fatal("a write whose commit failed answered without error")
	}
	store.fail.Store(false)
	if after := f.info(); after.Revision != before.Revision || after.ContentHash != before.ContentHash {
		t.Errorf("a failed commit changed the document: %v → %v", before, after)
	}
	f.ok(enginev1.ToolEntityMove, obj{"handle": h, "dx": 1, "dy": 1})
	e2 := newEngine(t, store.Store)
	if got, want := js(resultObj(callTool(t, e2, f.doc, enginev1.ToolEntityGet, obj{"handle": h}).ResultJson)), js(f.get(h)); got != want {
		t.Errorf("stored entity after recovery = %s, want %s", got, want)
	}
}

func batchOf(n int) obj {
	ents := make([]any, n)
	for i := range ents {
		x := float64(i % 1000)
		y := float64(i / 1000)
		switch i % 4 {
		case 0:
			ents[i] = obj{"type": "line", "x1": x, "y1": y, "x2": x + 0.5, "y2": y + 0.5}
		case 1:
			ents[i] = obj{"type": "circle", "cx": x, "cy": y, "radius": 0.25}
		case 2:
			ents[i] = obj{"type": "point", "x": x, "y": y}
		default:
			ents[i] = obj{"type": "arc", "cx": x, "cy": y, "radius": 0.4, "start_angle": 0, "end_angle": 180, "color": 2}
		}
	}
	return obj{"entities": ents}
}

func TestBatchCreate100k(t *testing.T) {
	if testing.Short() {
		t.Skip("100k entities")
	}
	path := filepath.Join(t.TempDir(), "big.db")
	store, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(store, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	info, err := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, e: e, doc: info.DocumentId}
	const n = 100000
	res := f.ok(enginev1.ToolEntityBatchCreate, batchOf(n))
	hs := res["handles"].([]any)
	if res["count"] != float64(n) || len(hs) != n || hs[0] != "100" || hs[n-1] != "1879F" {
		t.Fatalf("batch result: count %v, %d handles, first %v last %v", res["count"], len(hs), hs[0], hs[n-1])
	}
	after := f.info()
	if after.Revision != 1 || after.EntityCount != n {
		t.Errorf("after the batch: revision %d, %d entities; want 1 and %d", after.Revision, after.EntityCount, n)
	}
	list := f.ok(enginev1.ToolEntityList, obj{"types": []any{"arc"}, "page_size": 1})
	if list["total"] != float64(n/4) {
		t.Errorf("arcs = %v, want %d", list["total"], n/4)
	}
	e.Close()
	store.Close()

	store, err = sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	e2 := newEngine(t, store)
	got, err := e2.GetDocument(context.Background(), f.doc)
	if err != nil || got.EntityCount != n || got.ContentHash != after.ContentHash {
		t.Errorf("after reopen: %v, %v; want %d entities and hash %s", got, err, n, after.ContentHash)
	}
}

func ptr[T any](v T) *T { return &v }
