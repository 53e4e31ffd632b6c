package engine_test

import (
	"context"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// listLayouts is layout_list's result by name.
func listLayouts(f *fixture) (names []string, by map[string]obj) {
	f.t.Helper()
	by = map[string]obj{}
	for _, l := range f.ok(enginev1.ToolLayoutList, obj{})["layouts"].([]any) {
		l := l.(map[string]any)
		names = append(names, l["name"].(string))
		by[l["name"].(string)] = l
	}
	return names, by
}

// sheetNum is a number of a result (0 when absent: the JSON wire leaves zeros
// out).
func sheetNum(o obj, key string) float64 {
	v, _ := o[key].(float64)
	return v
}

func TestLayoutCreatePapers(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		args obj
		name string
		w, h float64
	}{
		{obj{"name": "Sheet A3", "paper": "A3"}, "Sheet A3", 420, 297},
		{obj{"name": "Portrait", "paper": "a4", "orientation": "portrait"}, "Portrait", 210, 297},
		{obj{"name": "Land", "paper": "A0", "orientation": "landscape"}, "Land", 1189, 841},
		{obj{"name": "Letter", "paper": "ansi_a"}, "Letter", 279.4, 215.9},
		{obj{"name": "E size", "paper": "ANSI_E", "orientation": "portrait"}, "E size", 34 * 25.4, 44 * 25.4},
		{obj{"name": "Strip", "width": 1000, "height": 200}, "Strip", 1000, 200},
	} {
		res := f.ok(enginev1.ToolLayoutCreate, c.args)
		if res["name"] != c.name || !near(sheetNum(res, "width"), c.w) || !near(sheetNum(res, "height"), c.h) {
			t.Errorf("layout_create(%s) = %s, want %s %g × %g", js(c.args), js(res), c.name, c.w, c.h)
		}
	}
	names, by := listLayouts(f)
	if strings.Join(names, ",") != "Sheet A3,Portrait,Land,Letter,E size,Strip" {
		t.Errorf("layout_list names = %v, want them in tab (creation) order", names)
	}
	if by["Letter"]["paper"] != "ANSI_A" || by["Strip"]["paper"] != "" || by["Portrait"]["paper"] != "A4" {
		t.Errorf("layout_list papers: %s", js(by))
	}

	f.fail(enginev1.ToolLayoutCreate, obj{"name": "sheet a3", "paper": "A4"}, kindRefused) // taken, ignoring case
	for _, bad := range []obj{
		{"name": "model", "paper": "A4"},
		{"name": "X", "paper": "B5"},
		{"name": "X"},
		{"name": "X", "width": 100},
		{"name": "X", "paper": "A4", "width": 100, "height": 50},
		{"name": "X", "width": 100, "height": 50, "orientation": "portrait"},
	} {
		f.fail(enginev1.ToolLayoutCreate, bad, kindInvalid)
	}

	// Undo takes the last layout back.
	f.ok(enginev1.ToolDocumentUndo, obj{})
	if names, _ := listLayouts(f); len(names) != 5 || names[4] != "E size" {
		t.Errorf("after document_undo the layouts are %v, want Strip gone", names)
	}
	f.ok(enginev1.ToolDocumentRedo, obj{})
	if names, _ := listLayouts(f); len(names) != 6 {
		t.Errorf("after document_redo the layouts are %v, want Strip back", names)
	}
}

// TestCreateToolsTakeLayout checks that every create tool's layout
// argument puts the entity on the layout, that model space's tools
// (entity_list, selections, extents) leave it out unless asked for that
// layout, and that an unknown layout is refused.
func TestCreateToolsTakeLayout(t *testing.T) {
	f := newFixture(t)
	f.ok(enginev1.ToolLayoutCreate, obj{"name": "Sheet", "paper": "A3"})
	model := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 0})
	onSheet := map[string]bool{}
	for _, c := range []struct {
		tool string
		args obj
	}{
		{enginev1.ToolEntityCreateLine, obj{"x1": 100, "y1": 100, "x2": 200, "y2": 100}},
		{enginev1.ToolEntityCreateCircle, obj{"cx": 50, "cy": 50, "radius": 5}},
		{enginev1.ToolEntityCreateText, obj{"text": "TITLE", "x": 300, "y": 20}},
		{enginev1.ToolEntityCreateRectangle, obj{"x1": 10, "y1": 10, "x2": 410, "y2": 287}},
		{enginev1.ToolEntityCreateMtext, obj{"text": "a\nb", "x": 5, "y": 5}},
		{enginev1.ToolDimensionCreateAligned, obj{"p1": obj{"x": 100, "y": 100}, "p2": obj{"x": 200, "y": 100}}},
	} {
		args := c.args
		args["layout"] = "SHEET" // any case
		h := f.handle(c.tool, args)
		onSheet[h] = true
		if got := f.get(h)["layout"]; got != "Sheet" {
			t.Errorf("%s with layout SHEET: entity layout = %v, want Sheet (the table's spelling)", c.tool, got)
		}
	}
	batch := f.ok(enginev1.ToolEntityBatchCreate, obj{"entities": []any{
		obj{"type": "point", "x": 1, "y": 1, "layout": "Sheet"},
		obj{"type": "point", "x": 2, "y": 2},
	}})["handles"].([]any)
	onSheet[batch[0].(string)] = true
	if f.get(batch[0].(string))["layout"] != "Sheet" || f.get(batch[1].(string))["layout"] != nil {
		t.Errorf("batch entries: layouts %v and %v, want Sheet and model space", f.get(batch[0].(string))["layout"], f.get(batch[1].(string))["layout"])
	}
	if h := f.handle(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0, "layout": "Model"}); f.get(h)["layout"] != nil {
		t.Errorf(`layout "Model" put the point on %v, want model space`, f.get(h)["layout"])
	}
	if e := f.fail(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 0, "layout": "Nope"}, kindInvalid); e.GetPath() != "/layout" {
		t.Errorf("unknown layout: path %q, want /layout", e.GetPath())
	}
	if e := f.fail(enginev1.ToolEntityBatchCreate, obj{"entities": []any{obj{"type": "point", "x": 1, "y": 1, "layout": "Nope"}}}, kindInvalid); e.GetPath() != "/entities/0/layout" {
		t.Errorf("unknown layout in a batch: path %q, want /entities/0/layout", e.GetPath())
	}

	handles := func(res obj, key string) map[string]bool {
		out := map[string]bool{}
		switch v := res[key].(type) {
		case []any:
			for _, h := range v {
				if s, ok := h.(string); ok {
					out[s] = true
				} else {
					out[h.(map[string]any)["handle"].(string)] = true
				}
			}
		}
		return out
	}
	list := handles(f.ok(enginev1.ToolEntityList, obj{}), "entities")
	sheet := handles(f.ok(enginev1.ToolEntityList, obj{"layout": "sheet"}), "entities")
	if !list[model] || len(sheet) != len(onSheet) {
		t.Errorf("entity_list: model space %v (want %s in it), layout %v (want %v)", list, model, sheet, onSheet)
	}
	for h := range onSheet {
		if list[h] || !sheet[h] {
			t.Errorf("entity %s on Sheet: in model space's list %v, in the layout's %v", h, list[h], sheet[h])
		}
	}
	win := obj{"x1": -1000, "y1": -1000, "x2": 1000, "y2": 1000}
	if got := handles(f.ok(enginev1.ToolSelectionWindow, win), "handles"); len(got) != 3 {
		t.Errorf("selection_window in model space = %v, want the 3 model-space entities", got)
	}
	win["layout"] = "Sheet"
	if got := handles(f.ok(enginev1.ToolSelectionWindow, win), "handles"); len(got) != len(onSheet) {
		t.Errorf("selection_window on Sheet = %v, want %v", got, onSheet)
	}
	if got := handles(f.ok(enginev1.ToolSelectionFilter, obj{"types": []any{"circle"}, "layout": "Sheet"}), "handles"); len(got) != 1 {
		t.Errorf("selection_filter circles on Sheet = %v, want the one", got)
	}
	if got := handles(f.ok(enginev1.ToolSelectionFilter, obj{"types": []any{"circle"}}), "handles"); len(got) != 0 {
		t.Errorf("selection_filter circles in model space = %v, want none", got)
	}
	poly := obj{"points": []any{obj{"x": 0, "y": 0}, obj{"x": 420, "y": 0}, obj{"x": 420, "y": 297}, obj{"x": 0, "y": 297}}, "layout": "Sheet"}
	if got := handles(f.ok(enginev1.ToolSelectionPolygon, poly), "handles"); !got[batch[0].(string)] {
		t.Errorf("selection_polygon on Sheet = %v, want the batch's point in it", got)
	}
	bb := f.ok(enginev1.ToolAnalysisBoundingBox, obj{})
	if sheetNum(bb, "max_x") != 10 || sheetNum(bb, "count") != 3 {
		t.Errorf("model extents = %s, want the model's line and points only (max x 10)", js(bb))
	}
	bb = f.ok(enginev1.ToolAnalysisBoundingBox, obj{"layout": "Sheet"})
	if sheetNum(bb, "min_x") != 1 || sheetNum(bb, "max_x") != 410 || sheetNum(bb, "max_y") != 287 {
		t.Errorf("Sheet's extents = %s, want x 1…410, y up to 287", js(bb))
	}
}

func TestLayoutRenameCopyDelete(t *testing.T) {
	f := newFixture(t)
	f.ok(enginev1.ToolLayoutCreate, obj{"name": "A", "paper": "A3"})
	line := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 10, "y1": 10, "x2": 20, "y2": 10, "layout": "A"})
	vp := f.handle(enginev1.ToolViewportCreate, obj{"layout": "A", "x": 10, "y": 10, "width": 200, "height": 100, "center_x": 0, "center_y": 0, "scale": "1:10"})

	res := f.ok(enginev1.ToolLayoutRename, obj{"name": "a", "new_name": "Plan"})
	if res["name"] != "Plan" || sheetNum(res, "count") != 2 || f.get(line)["layout"] != "Plan" || f.get(vp)["layout"] != "Plan" {
		t.Errorf("layout_rename = %s; line on %v, viewport on %v; want both on Plan", js(res), f.get(line)["layout"], f.get(vp)["layout"])
	}
	if names, by := listLayouts(f); len(names) != 1 || names[0] != "Plan" || sheetNum(by["Plan"], "entities") != 2 || sheetNum(by["Plan"], "viewports") != 1 || sheetNum(by["Plan"], "width") != 420 {
		t.Errorf("layout_list after rename = %s", js(by))
	}
	f.ok(enginev1.ToolLayoutRename, obj{"name": "plan", "new_name": "PLAN"}) // its own name, in other case
	f.ok(enginev1.ToolLayoutRename, obj{"name": "PLAN", "new_name": "Plan"})
	f.ok(enginev1.ToolLayoutCreate, obj{"name": "Other", "paper": "A4"})
	f.fail(enginev1.ToolLayoutRename, obj{"name": "Plan", "new_name": "other"}, kindRefused)
	f.fail(enginev1.ToolLayoutRename, obj{"name": "Plan", "new_name": "Model"}, kindInvalid)
	f.fail(enginev1.ToolLayoutRename, obj{"name": "Gone", "new_name": "X"}, kindFailed)

	cp := f.ok(enginev1.ToolLayoutCopy, obj{"name": "Plan", "new_name": "Plan 2"})
	copies := cp["handles"].([]any)
	if len(copies) != 2 {
		t.Fatalf("layout_copy = %s, want 2 copies", js(cp))
	}
	l2, v2 := f.get(copies[0].(string)), f.get(copies[1].(string))
	if l2["layout"] != "Plan 2" || l2["type"] != "line" || v2["type"] != "viewport" || v2["layout"] != "Plan 2" || sheetNum(v2, "scale") != 0.1 {
		t.Errorf("copies: %s and %s, want the line and the 1:10 viewport on Plan 2", js(l2), js(v2))
	}
	if _, by := listLayouts(f); sheetNum(by["Plan 2"], "height") != 297 || sheetNum(by["Plan"], "entities") != 2 {
		t.Errorf("after copy: %s", js(by))
	}

	del := f.ok(enginev1.ToolLayoutDelete, obj{"name": "plan"})
	if sheetNum(del, "count") != 2 {
		t.Errorf("layout_delete = %s, want its 2 entities gone", js(del))
	}
	if f.call(enginev1.ToolEntityGet, obj{"handle": line}).Ok {
		t.Errorf("the line of the deleted layout is still there")
	}
	if names, _ := listLayouts(f); strings.Join(names, ",") != "Other,Plan 2" {
		t.Errorf("layouts after delete = %v", names)
	}
	f.ok(enginev1.ToolDocumentUndo, obj{})
	if names, _ := listLayouts(f); strings.Join(names, ",") != "Plan,Other,Plan 2" || f.get(line)["layout"] != "Plan" {
		t.Errorf("after document_undo: layouts %v, want Plan back in its place with its line", names)
	}
}

func TestViewportScales(t *testing.T) {
	for _, c := range []struct {
		units enginev1.Units
		scale string
		want  float64 // paper mm per model unit
		name  string
	}{
		{enginev1.Units_UNITS_MM, "1:50", 0.02, "1:50"},
		{enginev1.Units_UNITS_MM, "2:1", 2, "2:1"},
		{enginev1.Units_UNITS_MM, "0.5", 0.5, "1:2"},
		{enginev1.Units_UNITS_M, "1:50", 20, "1:50"},
		{enginev1.Units_UNITS_M, "1:100", 10, "1:100"},
		{enginev1.Units_UNITS_IN, "1:4", 25.4 / 4, "1:4"},
	} {
		e := newEngine(t, nil)
		info, err := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{Units: &c.units})
		if err != nil {
			t.Fatal(err)
		}
		f := &fixture{t: t, e: e, doc: info.DocumentId}
		f.ok(enginev1.ToolLayoutCreate, obj{"name": "S", "paper": "A3"})
		res := f.ok(enginev1.ToolViewportCreate, obj{"layout": "S", "x": 20, "y": 30, "width": 200, "height": 100, "center_x": 7, "center_y": 8, "scale": c.scale})
		g := f.get(res["handle"].(string))
		if !near(sheetNum(res, "factor"), c.want) || !near(sheetNum(g, "view_height"), 100/c.want) || !nearPt(pt(g["center"]), [2]float64{120, 80}) || !nearPt(pt(g["view_center"]), [2]float64{7, 8}) {
			t.Errorf("%v %s: viewport_create = %s, entity %s; want factor %g, view height %g, centre (120, 80)", c.units, c.scale, js(res), js(g), c.want, 100/c.want)
		}
		vs := f.ok(enginev1.ToolViewportList, obj{"layout": "s"})["viewports"].([]any)
		if len(vs) != 1 || vs[0].(map[string]any)["scale"] != c.name || sheetNum(vs[0].(map[string]any), "x") != 20 || sheetNum(vs[0].(map[string]any), "width") != 200 {
			t.Errorf("%v %s: viewport_list = %s, want one at (20, 30) scale %s", c.units, c.scale, js(vs), c.name)
		}
	}
}

func TestViewportTools(t *testing.T) {
	f := newFixture(t)
	f.ok(enginev1.ToolLayoutCreate, obj{"name": "S", "paper": "A4"}) // 297 × 210
	vp := obj{"layout": "S", "x": 10, "y": 10, "width": 200, "height": 150, "center_x": 0, "center_y": 0, "scale": "1:50"}
	for key, bad := range map[string]any{"x": -1, "width": 288, "height": 201, "scale": "1:0"} {
		args := obj{}
		for k, v := range vp {
			args[k] = v
		}
		args[key] = bad
		f.fail(enginev1.ToolViewportCreate, args, kindInvalid)
	}
	f.fail(enginev1.ToolViewportCreate, obj{"layout": "T", "x": 0, "y": 0, "width": 1, "height": 1, "center_x": 0, "center_y": 0, "scale": "1:1"}, kindInvalid)
	f.fail(enginev1.ToolViewportCreate, obj{"layout": "Model", "x": 0, "y": 0, "width": 1, "height": 1, "center_x": 0, "center_y": 0, "scale": "1:1"}, kindInvalid)
	h := f.handle(enginev1.ToolViewportCreate, vp)
	if g := f.get(h); sheetNum(g, "viewport_id") != 2 {
		t.Errorf("first window's id = %v, want 2 (1 is the paper's own view)", g["viewport_id"])
	}
	h2 := f.handle(enginev1.ToolViewportCreate, obj{"layout": "S", "x": 220, "y": 10, "width": 70, "height": 70, "center_x": 0, "center_y": 0, "scale": "1:1"})
	if g := f.get(h2); sheetNum(g, "viewport_id") != 3 {
		t.Errorf("second window's id = %v, want 3", g["viewport_id"])
	}

	res := f.ok(enginev1.ToolViewportSetScale, obj{"handle": h, "scale": "1:20"})
	if g := f.get(h); sheetNum(res, "factor") != 0.05 || !near(sheetNum(g, "view_height"), 3000) || !nearPt(pt(g["view_center"]), [2]float64{0, 0}) {
		t.Errorf("viewport_set_scale 1:20 = %s, entity %s; want view height 3000 about (0, 0)", js(res), js(g))
	}
	f.ok(enginev1.ToolViewportLock, obj{"handle": h})
	if f.get(h)["locked"] != true {
		t.Errorf("viewport_lock did not lock")
	}
	f.fail(enginev1.ToolViewportSetScale, obj{"handle": h, "scale": "1:10"}, kindRefused)
	f.ok(enginev1.ToolDocumentUndo, obj{}) // the lock
	f.ok(enginev1.ToolViewportSetScale, obj{"handle": h, "scale": "1:10"})
	f.ok(enginev1.ToolViewportLock, obj{"handle": h, "locked": false})
	f.ok(enginev1.ToolDocumentUndo, obj{}) // the unlock: still unlocked (never locked again)
	line := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 0})
	f.fail(enginev1.ToolViewportSetScale, obj{"handle": line, "scale": "1:10"}, kindInvalid)
	f.fail(enginev1.ToolViewportDelete, obj{"handle": line}, kindInvalid)

	f.ok(enginev1.ToolViewportDelete, obj{"handle": h2})
	if vs := f.ok(enginev1.ToolViewportList, obj{"layout": "S"})["viewports"].([]any); len(vs) != 1 {
		t.Errorf("after viewport_delete: %s, want one left", js(vs))
	}
	f.ok(enginev1.ToolDocumentUndo, obj{})
	if vs := f.ok(enginev1.ToolViewportList, obj{"layout": "S"})["viewports"].([]any); len(vs) != 2 {
		t.Errorf("after document_undo: %s, want both", js(vs))
	}
}

// TestEntityChangeSpace moves a 5 m line (in a millimetre drawing) to a
// 1:50 viewport, where it is 100 mm long, placed by p_paper = (p_model −
// view centre) × scale + frame centre, and back again.
func TestEntityChangeSpace(t *testing.T) {
	f := newFixture(t)
	f.ok(enginev1.ToolLayoutCreate, obj{"name": "S", "paper": "A3"})
	vp := f.handle(enginev1.ToolViewportCreate, obj{"layout": "S", "x": 10, "y": 10, "width": 200, "height": 100, "center_x": 2500, "center_y": 500, "scale": "1:50"})
	line := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 1000, "y1": 500, "x2": 6000, "y2": 500})
	circle := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 2500, "cy": 1000, "radius": 500})

	res := f.ok(enginev1.ToolEntityChangeSpace, obj{"handles": []any{line, circle}, "layout": "s"})
	if res["space"] != "S" {
		t.Errorf("entity_change_space = %s, want space S", js(res))
	}
	// Frame centre (110, 60); (1000−2500)×0.02+110 = 80, (6000−2500)×0.02+110 = 180.
	l, c := f.get(line), f.get(circle)
	if l["layout"] != "S" || !nearPt(pt(l["start"]), [2]float64{80, 60}) || !nearPt(pt(l["end"]), [2]float64{180, 60}) {
		t.Errorf("line on paper = %s, want (80, 60)–(180, 60) on S", js(l))
	}
	if c["layout"] != "S" || !nearPt(pt(c["center"]), [2]float64{110, 70}) || !near(sheetNum(c, "radius"), 10) {
		t.Errorf("circle on paper = %s, want centre (110, 70) radius 10", js(c))
	}
	if got := f.ok(enginev1.ToolEntityList, obj{})["entities"]; got != nil {
		t.Errorf("model space still lists %s", js(got))
	}

	f.ok(enginev1.ToolEntityChangeSpace, obj{"handles": []any{line, circle}, "viewport": vp})
	l, c = f.get(line), f.get(circle)
	if l["layout"] != nil || !nearPt(pt(l["start"]), [2]float64{1000, 500}) || !nearPt(pt(l["end"]), [2]float64{6000, 500}) || !near(sheetNum(c, "radius"), 500) {
		t.Errorf("back in model space: %s, %s", js(l), js(c))
	}

	// Undo takes it back to paper.
	f.ok(enginev1.ToolDocumentUndo, obj{})
	if f.get(line)["layout"] != "S" {
		t.Errorf("document_undo: the line is on %v, want S", f.get(line)["layout"])
	}

	f.fail(enginev1.ToolEntityChangeSpace, obj{"handles": []any{vp}, "layout": "S"}, kindInvalid)
	other := f.handle(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0})
	f.fail(enginev1.ToolEntityChangeSpace, obj{"handles": []any{line, other}}, kindInvalid) // two spaces
	f.fail(enginev1.ToolEntityChangeSpace, obj{"handles": []any{other}}, kindInvalid)       // to where?
	f.ok(enginev1.ToolLayoutCreate, obj{"name": "Empty", "paper": "A4"})
	f.fail(enginev1.ToolEntityChangeSpace, obj{"handles": []any{other}, "layout": "Empty"}, kindFailed) // no viewport
	f.ok(enginev1.ToolViewportCreate, obj{"layout": "S", "x": 250, "y": 10, "width": 100, "height": 100, "center_x": 0, "center_y": 0, "scale": "1:1"})
	f.fail(enginev1.ToolEntityChangeSpace, obj{"handles": []any{other}, "layout": "S"}, kindInvalid) // which of two?
}
