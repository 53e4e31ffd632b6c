package engine_test

import (
	"math"
	"slices"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

func layerNames(info *enginev1.DocumentInfo) []string {
	var out []string
	for _, l := range info.Layers {
		out = append(out, l.Name)
	}
	slices.Sort(out)
	return out
}

func TestDocumentPurge(t *testing.T) {
	f := newFixture(t)
	for _, n := range []string{"EMPTY", "USED", "LOCKED", "CUR"} {
		f.ok(enginev1.ToolLayerCreate, obj{"name": n})
	}
	f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 0, "layer": "USED"})
	f.ok(enginev1.ToolLayerLock, obj{"name": "LOCKED"})
	f.ok(enginev1.ToolLayerSetCurrent, obj{"name": "CUR"})
	// INNER is used only by OUTER, which nothing uses; KEPT is inserted.
	f.ok(enginev1.ToolBlockDefine, obj{"name": "INNER", "entities": []any{obj{"type": "point", "x": 0, "y": 0}}})
	f.ok(enginev1.ToolBlockDefine, obj{"name": "OUTER", "entities": []any{obj{"type": "point", "x": 1, "y": 0}}})
	f.ok(enginev1.ToolBlockDefine, obj{"name": "KEPT", "entities": []any{obj{"type": "point", "x": 2, "y": 0}}})
	f.handle(enginev1.ToolBlockInsert, obj{"name": "KEPT", "x": 5, "y": 5})
	before := f.info()

	f.fail(enginev1.ToolDocumentPurge, obj{"what": []any{"everything"}}, kindInvalid)
	res := f.ok(enginev1.ToolDocumentPurge, obj{"what": []any{"layers"}})
	if js(res["layers"]) != js([]any{"EMPTY"}) || res["blocks"] != nil || res["count"] != 1.0 {
		t.Errorf("purge layers = %s, want EMPTY only", js(res))
	}
	res = f.ok(enginev1.ToolDocumentPurge, obj{})
	if js(res["blocks"]) != js([]any{"INNER", "OUTER"}) || res["layers"] != nil {
		t.Errorf("purge = %s, want blocks INNER and OUTER", js(res))
	}
	if got := layerNames(f.info()); js(got) != js([]string{"0", "CUR", "LOCKED", "USED"}) {
		t.Errorf("layers after purge = %v", got)
	}
	f.ok(enginev1.ToolDocumentUndo, obj{"steps": 2})
	if got := f.info(); got.ContentHash != before.ContentHash {
		t.Errorf("undo of two purges: hash %s, want %s (layers and blocks back)", got.ContentHash, before.ContentHash)
	}
}

func TestDocumentAudit(t *testing.T) {
	f := newFixture(t)
	good := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 0})
	dup := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 0})
	other := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 0, "color": 1})
	dot := f.handle(enginev1.ToolEntityCreatePolyline, obj{"points": []any{obj{"x": 1, "y": 1}, obj{"x": 1, "y": 1}}})
	tiny := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 3, "cy": 3, "radius": 1e-12})
	f.ok(enginev1.ToolLayerCreate, obj{"name": "L"})
	locked := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 0, "layer": "L"})
	lockedDup := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 0, "layer": "L"})
	f.ok(enginev1.ToolLayerLock, obj{"name": "L"})
	_ = locked

	check := f.ok(enginev1.ToolDocumentAudit, obj{})
	want := map[string]string{dup: "duplicate", dot: "zero_length", tiny: "zero_length", lockedDup: "duplicate"}
	got := map[string]string{}
	for _, x := range check["findings"].([]any) {
		fd := x.(obj)
		got[fd["handle"].(string)] = fd["kind"].(string)
		if fd["fixed"] == true {
			t.Errorf("audit without fix repaired %v", fd)
		}
	}
	if js(got) != js(want) {
		t.Errorf("findings = %v, want %v", got, want)
	}
	before := f.info()
	if check["fixed"] != 0.0 {
		t.Errorf("audit without fix: fixed = %v", check["fixed"])
	}

	res := f.ok(enginev1.ToolDocumentAudit, obj{"fix": true})
	if res["fixed"] != 3.0 {
		t.Errorf("audit fix repaired %v, want 3 (not the one on the locked layer): %s", res["fixed"], js(res))
	}
	after := f.info()
	if after.EntityCount != before.EntityCount-3 || after.Revision != before.Revision+1 {
		t.Errorf("after the repair: %d entities at revision %d, want %d at %d", after.EntityCount, after.Revision, before.EntityCount-3, before.Revision+1)
	}
	for _, h := range []string{good, other, lockedDup} {
		if !f.has(h) {
			t.Errorf("the repair removed %s", h)
		}
	}
	for _, h := range []string{dup, dot, tiny} {
		if f.has(h) {
			t.Errorf("the repair kept %s", h)
		}
	}
	if again := f.ok(enginev1.ToolDocumentAudit, obj{}); len(again["findings"].([]any)) != 1 {
		t.Errorf("audit after the repair = %s, want only the locked duplicate", js(again))
	}
}

func TestBoundaryTrace(t *testing.T) {
	f := newFixture(t)
	f.handle(enginev1.ToolEntityCreateRectangle, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 10})
	diag := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 10})
	circle := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 10, "cy": 5, "radius": 2})
	f.ok(enginev1.ToolLayerCreate, obj{"name": "OFF"})
	f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 5, "x2": 10, "y2": 5, "layer": "OFF"})
	f.ok(enginev1.ToolLayerModify, obj{"name": "OFF", "on": false})

	res := f.ok(enginev1.ToolBoundaryTrace, obj{"x": 2, "y": 6})
	poly := f.get(res["handle"].(string))
	if poly["type"] != "polyline" || poly["closed"] != true || len(poly["points"].([]any)) != 3 {
		t.Errorf("boundary = %s, want a closed triangle", js(poly))
	}
	if a := res["area"].(float64); math.Abs(a-50) > 1e-9 {
		t.Errorf("area = %v, want 50", a)
	}
	if !slices.Contains(res["edges"].([]any), any(diag)) {
		t.Errorf("edges = %v, want the diagonal %s among them", res["edges"], diag)
	}
	// Right of the diagonal, the circle cuts into the triangle: an arc.
	res = f.ok(enginev1.ToolBoundaryTrace, obj{"x": 6, "y": 2, "layer": "OFF"})
	poly = f.get(res["handle"].(string))
	bulged := 0
	for _, p := range poly["points"].([]any) {
		if b, _ := p.(obj)["bulge"].(float64); b != 0 {
			bulged++
		}
	}
	// The triangle (0,0) (10,0) (10,10) less the half disc of radius 2
	// inside it.
	if a := res["area"].(float64); bulged != 1 || math.Abs(a-(50-2*math.Pi)) > 1e-9 || poly["layer"] != "OFF" {
		t.Errorf("boundary = %s, area %v; want one arc piece, area 50 - 2π, on OFF", js(poly), a)
	}
	if !slices.Contains(res["edges"].([]any), any(circle)) {
		t.Errorf("edges = %v, want the circle %s", res["edges"], circle)
	}
	// Only the layers asked: layer 0 has no line at y 5, OFF alone closes nothing.
	f.fail(enginev1.ToolBoundaryTrace, obj{"x": 2, "y": 6, "layers": []any{"OFF"}}, kindFailed)
	f.fail(enginev1.ToolBoundaryTrace, obj{"x": 2, "y": 6, "layers": []any{"NOPE"}}, kindInvalid)
	f.fail(enginev1.ToolBoundaryTrace, obj{"x": 50, "y": 50}, kindFailed)
}

func TestHatchPick(t *testing.T) {
	f := newFixture(t)
	f.handle(enginev1.ToolEntityCreateRectangle, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 10})
	f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 5, "cy": 5, "radius": 2})
	before := f.info()
	res := f.ok(enginev1.ToolHatchCreate, obj{"pick_x": 1, "pick_y": 1, "pattern": "ANSI31"})
	if a, want := res["area"].(float64), 100-4*math.Pi; math.Abs(a-want) > 1e-9 {
		t.Errorf("hatch area = %v, want %v (the square less the circle, an island)", a, want)
	}
	h := f.get(res["handle"].(string))["hatch"].(obj)
	if len(h["loops"].([]any)) != 2 {
		t.Errorf("hatch loops = %s, want the square and the circle", js(h["loops"]))
	}
	if got := f.info(); got.EntityCount != before.EntityCount+1 {
		t.Errorf("hatch by pick made %d entities, want 1 (no boundary polyline)", got.EntityCount-before.EntityCount)
	}
	res = f.ok(enginev1.ToolHatchCreate, obj{"pick_x": 5, "pick_y": 5})
	if a := res["area"].(float64); math.Abs(a-4*math.Pi) > 1e-9 {
		t.Errorf("hatch in the circle: area %v, want 4π", a)
	}
	f.fail(enginev1.ToolHatchCreate, obj{"pick_x": 1}, kindInvalid)
	f.fail(enginev1.ToolHatchCreate, obj{}, kindInvalid)
	f.fail(enginev1.ToolHatchCreate, obj{"pick_x": 20, "pick_y": 20}, kindFailed)
}

func TestDocumentPurgeLinetypes(t *testing.T) {
	path := t.TempDir() + "/purge.db"
	e := newEngine(t, openSQLite(t, path))
	ltype := func(name string) string {
		return "0\nLTYPE\n2\n" + name + "\n70\n0\n3\n" + name + "\n72\n65\n73\n2\n40\n1.5\n49\n1.0\n49\n-0.5\n"
	}
	f := importDXF(t, e, "ltypes", dxfFile("",
		"0\nTABLE\n2\nLTYPE\n70\n3\n"+ltype("DASHED")+ltype("FANCY")+ltype("HIDDEN")+"0\nENDTAB\n"+
			"0\nTABLE\n2\nLAYER\n70\n1\n0\nLAYER\n2\n0\n70\n0\n62\n7\n6\nDASHED\n0\nENDTAB\n",
		"0\nLINE\n8\n0\n10\n0\n20\n0\n11\n1\n21\n1\n"))
	imported := f.info()
	res := f.ok(enginev1.ToolDocumentPurge, obj{"what": []any{"linetypes", "styles"}})
	if js(res["linetypes"]) != js([]any{"FANCY", "HIDDEN"}) || res["count"] != 2.0 {
		t.Fatalf("purge linetypes = %s, want FANCY and HIDDEN (DASHED is layer 0's)", js(res))
	}
	purged := f.info()
	if purged.ContentHash == imported.ContentHash {
		t.Errorf("purging linetypes left the content hash as it was")
	}
	// Undo puts the table back; redo cuts it again.
	f.ok(enginev1.ToolDocumentUndo, obj{})
	if got := f.info(); got.ContentHash != imported.ContentHash {
		t.Errorf("after undo of the purge: hash %s, want %s", got.ContentHash, imported.ContentHash)
	}
	f.ok(enginev1.ToolDocumentRedo, obj{})
	if got := f.info(); got.ContentHash != purged.ContentHash {
		t.Errorf("after redo of the purge: hash %s, want %s", got.ContentHash, purged.ContentHash)
	}
	if again := f.ok(enginev1.ToolDocumentPurge, obj{"what": []any{"linetypes"}}); again["count"] != 0.0 {
		t.Errorf("second purge = %s, want nothing", js(again))
	}
	// Stored: another engine loads the cut-down table.
	e.Close()
	reloaded := &fixture{t: t, e: newEngine(t, openSQLite(t, path)), doc: f.doc}
	if got := reloaded.info(); got.ContentHash != purged.ContentHash {
		t.Errorf("reloaded after purge: hash %s, want %s", got.ContentHash, purged.ContentHash)
	}
}
