package engine_test

import (
	"context"
	"encoding/base64"
	"math"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// dim reads a dimension's wire shape.
func (f *fixture) dim(h string) obj {
	f.t.Helper()
	return f.get(h)["dimension"].(map[string]any)
}

// TestDimensionFollowsItsEntities moves, edits and scales a line that an
// aligned dimension is bound to, and reads the new measurement each time.
func TestDimensionFollowsItsEntities(t *testing.T) {
	f := newFixture(t)
	line := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 100, "y2": 0})
	res := f.ok(enginev1.ToolDimensionCreateAligned, obj{"p1": obj{"handle": line}, "p2": obj{"handle": line, "x": 100, "y": 0}, "offset": 10})
	d := res["handle"].(string)
	if res["measurement"] != 100.0 || res["text"] != "100" {
		t.Fatalf("dimension_create_aligned = %v, want measurement 100, text 100", res)
	}
	for _, tc := range []struct {
		tool string
		args obj
		want float64
	}{
		{enginev1.ToolEntityEditGeometry, obj{"handle": line, "end": obj{"x": 150, "y": 0}}, 150},
		{enginev1.ToolEntityMove, obj{"handle": line, "dx": 5, "dy": 7}, 150},
		{enginev1.ToolEntityScale, obj{"handle": line, "base_x": 0, "base_y": 0, "factor": 2}, 300},
		{enginev1.ToolEntityRotate, obj{"handle": line, "base_x": 0, "base_y": 0, "angle": 90}, 300},
	} {
		f.ok(tc.tool, tc.args)
		got := f.dim(d)
		if m := got["measurement"].(float64); math.Abs(m-tc.want) > 1e-9 {
			t.Errorf("after %s: measurement = %v, want %v", tc.tool, m, tc.want)
		}
		l := f.get(line)
		if !nearPt(pt(got["p1"]), pt(l["start"])) || !nearPt(pt(got["p2"]), pt(l["end"])) {
			t.Errorf("after %s: dimension points %v %v, line %v %v", tc.tool, got["p1"], got["p2"], l["start"], l["end"])
		}
	}
	// Moving the dimension by itself moves its line, not its points,
	// which stay on the line they are bound to.
	before := f.dim(d)
	f.ok(enginev1.ToolEntityMove, obj{"handle": d, "dx": 7, "dy": 0})
	moved := f.dim(d)
	if js(moved["p1"]) != js(before["p1"]) || moved["measurement"] != before["measurement"] || len(moved["bindings"].([]any)) != 2 {
		t.Errorf("after moving the dimension: %v, want its points and bindings as before (%v)", moved, before)
	}
	if got, want := moved["offset"].(float64), before["offset"].(float64)-7; math.Abs(got-want) > 1e-9 {
		t.Errorf("after moving the dimension 7 across its line: offset %v, want %v", got, want)
	}

	// Deleting the line leaves the dimension where it was, unbound.
	before = f.dim(d)
	f.ok(enginev1.ToolEntityDelete, obj{"handle": line})
	after := f.dim(d)
	if after["measurement"] != before["measurement"] || after["bindings"] != nil {
		t.Errorf("after deleting the line: %v, want measurement %v and no bindings", after, before["measurement"])
	}
}

// TestDimensionFollowsInABatch: a batch moves a bound entity and reads the
// dimension in a later step; a rolled-back batch restores both and the
// content hash.
func TestDimensionFollowsInABatch(t *testing.T) {
	f := newFixture(t)
	c := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 10})
	d := f.ok(enginev1.ToolDimensionCreateDiametric, obj{"handle": c})["handle"].(string)
	before := f.info()
	// A later step of the same batch reads the new measurement: a circle
	// of that radius.
	req := f.batchReq(
		st(enginev1.ToolEntityEditGeometry, obj{"handle": c, "radius": 12.5}),
		st(enginev1.ToolEntityGet, obj{"handle": d}, "dim"),
		st(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": "$dim.dimension.measurement"}, "probe"),
	)
	res := f.batch(req)
	if !res.Ok {
		t.Fatalf("batch = %v", res)
	}
	if r := f.get(res.Results[2].GetHandle())["radius"]; r != 25.0 {
		t.Errorf("diameter read in the batch after the edit = %v, want 25", r)
	}
	if got := f.dim(d); got["measurement"] != 25.0 || got["text"] != "Ø25" {
		t.Errorf("diameter after the batch = %v %v, want 25 Ø25", got["measurement"], got["text"])
	}
	mid := f.info()
	req = f.batchReq(
		st(enginev1.ToolEntityMove, obj{"handle": c, "dx": 3, "dy": 0}),
		st(enginev1.ToolEntityEditGeometry, obj{"handle": c, "radius": 30}),
		st(enginev1.ToolEntityDelete, obj{"handle": "FFFF"}),
	)
	req.OnError = enginev1.OnError_ON_ERROR_ROLLBACK.Enum()
	if res := f.batch(req); res.Status != enginev1.BatchStatus_BATCH_STATUS_ROLLED_BACK {
		t.Fatalf("batch status = %v, want rolled_back", res.Status)
	}
	if after := f.info(); after.ContentHash != mid.ContentHash {
		t.Errorf("content hash after the rollback = %s, want %s", after.ContentHash, mid.ContentHash)
	}
	if m := f.dim(d)["measurement"]; m != 25.0 {
		t.Errorf("diameter after the rollback = %v, want 25", m)
	}
	if before.ContentHash == mid.ContentHash {
		t.Errorf("the edit did not change the content hash")
	}
}

func TestDimensionKinds(t *testing.T) {
	f := newFixture(t)
	l1 := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 0})
	l2 := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 10})
	arc := f.handle(enginev1.ToolEntityCreateArc, obj{"cx": 5, "cy": 5, "radius": 2.25, "start_angle": 0, "end_angle": 180})
	for _, tc := range []struct {
		tool string
		args obj
		m    float64
		text string
	}{
		{enginev1.ToolDimensionCreateLinear, obj{"p1": obj{"x": 0, "y": 0}, "p2": obj{"x": 3, "y": 4}}, 3, "3"},
		{enginev1.ToolDimensionCreateLinear, obj{"p1": obj{"x": 0, "y": 0}, "p2": obj{"x": 3, "y": 4}, "angle": 90}, 4, "4"},
		{enginev1.ToolDimensionCreateAligned, obj{"p1": obj{"x": 0, "y": 0}, "p2": obj{"x": 3, "y": 4}, "text": "<> typ."}, 5, "5 typ."},
		{enginev1.ToolDimensionCreateRadial, obj{"handle": arc}, 2.25, "R2.25"},
		{enginev1.ToolDimensionCreateAngular, obj{"line1": l1, "line2": l2}, 45, "45°"},
		{enginev1.ToolDimensionCreateAngular, obj{"line1": l2, "line2": l1}, 45, "45°"},
		{enginev1.ToolDimensionCreateAngular, obj{"center": obj{"x": 0, "y": 0}, "p1": obj{"x": 0, "y": 1}, "p2": obj{"x": 1, "y": 0}}, 270, "270°"},
		{enginev1.ToolDimensionCreateAligned, obj{"p1": obj{"x": 0, "y": 0}, "p2": obj{"x": 1, "y": 0}, "style": "ANSI"}, 1, "1"},
	} {
		res := f.ok(tc.tool, tc.args)
		if math.Abs(res["measurement"].(float64)-tc.m) > 1e-9 || res["text"] != tc.text {
			t.Errorf("%s(%s) = %v, want measurement %v, text %q", tc.tool, js(tc.args), res, tc.m, tc.text)
		}
	}
	// The angle between the lines follows a rotation of one of them.
	d := f.ok(enginev1.ToolDimensionCreateAngular, obj{"line1": l1, "line2": l2})["handle"].(string)
	f.ok(enginev1.ToolEntityRotate, obj{"handle": l2, "base_x": 0, "base_y": 0, "angle": 15})
	if m := f.dim(d)["measurement"].(float64); math.Abs(m-60) > 1e-9 {
		t.Errorf("angle after rotating line2 by 15° = %v, want 60", m)
	}
	f.fail(enginev1.ToolDimensionCreateAligned, obj{"p1": obj{"x": 0, "y": 0}, "p2": obj{"x": 1, "y": 0}, "style": "DIN"}, kindInvalid)
	f.fail(enginev1.ToolDimensionCreateRadial, obj{"handle": l1}, kindFailed)
	styles := f.ok(enginev1.ToolDimensionStyleList, obj{})["styles"].([]any)
	if len(styles) != 2 {
		t.Errorf("dimension_style_list = %v, want ISO-25 and ANSI", styles)
	}
}

func TestHatch(t *testing.T) {
	f := newFixture(t)
	outer := f.handle(enginev1.ToolEntityCreateRectangle, obj{"x1": 0, "y1": 0, "x2": 100, "y2": 50})
	hole := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 25, "cy": 25, "radius": 10})
	ell := f.handle(enginev1.ToolEntityCreateEllipse, obj{"cx": 70, "cy": 25, "major_x": 15, "major_y": 0, "ratio": 0.5})
	res := f.ok(enginev1.ToolHatchCreate, obj{"boundaries": []any{outer, hole, ell}, "pattern": "ansi31", "scale": 2})
	want := 100*50 - math.Pi*100 - math.Pi*15*7.5
	if a := res["area"].(float64); math.Abs(a-want) > 1e-9 {
		t.Errorf("hatch_create area = %v, want %v", a, want)
	}
	m := f.ok(enginev1.ToolAnalysisMeasureEntity, obj{"handle": res["handle"]})
	if a := m["area"].(float64); math.Abs(a-want) > 1e-9 {
		t.Errorf("analysis_measure_entity(hatch) area = %v, want %v", a, want)
	}
	if h := f.get(res["handle"].(string))["hatch"].(map[string]any); h["pattern"] != "ANSI31" || len(h["loops"].([]any)) != 3 {
		t.Errorf("entity_get(hatch) = %v", h)
	}
	// Crossing boundaries, open ones and unknown patterns fail.
	cross := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 10})
	f.fail(enginev1.ToolHatchCreate, obj{"boundaries": []any{outer, cross}}, kindFailed)
	line := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 0})
	f.fail(enginev1.ToolHatchCreate, obj{"boundaries": []any{line}}, kindInvalid)
	f.fail(enginev1.ToolHatchCreate, obj{"boundaries": []any{outer}, "pattern": "BRICK"}, kindInvalid)
	f.fail(enginev1.ToolHatchCreate, obj{"boundaries": []any{outer}, "pattern": "DOTS", "scale": 1e-6}, kindInvalid)
}

func TestBlocks(t *testing.T) {
	store := memory.New()
	e := newEngine(t, store)
	info, err := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, e: e, doc: info.DocumentId}
	f.ok(enginev1.ToolLayerCreate, obj{"name": "holes", "color": 1})
	res := f.ok(enginev1.ToolBlockDefine, obj{"name": "BOLT", "entities": []any{
		obj{"type": "circle", "cx": 0, "cy": 0, "radius": 4},
		obj{"type": "line", "x1": -5, "y1": 0, "x2": 5, "y2": 0},
	}})
	if res["count"] != 2.0 {
		t.Fatalf("block_define = %v", res)
	}
	f.fail(enginev1.ToolBlockDefine, obj{"name": "BOLT", "entities": []any{obj{"type": "point", "x": 0, "y": 0}}}, kindFailed)
	ins := f.handle(enginev1.ToolBlockInsert, obj{"name": "BOLT", "x": 100, "y": 50, "scale": 2, "rotation": 90, "layer": "holes"})
	// Inserts snap like entities: the circle's centre, placed.
	if p := f.ok(enginev1.ToolPointFromSnap, obj{"handle": ins, "snap": "center"}); p["x"] != 100.0 || p["y"] != 50.0 {
		t.Errorf("point_from_snap(insert, center) = %v, want (100, 50)", p)
	}
	bb := f.ok(enginev1.ToolAnalysisBoundingBox, obj{"handles": []any{ins}})
	if !near(bb["min_x"].(float64), 92) || !near(bb["max_y"].(float64), 60) {
		t.Errorf("bounding box of the insert = %v, want x from 92 and y to 60", bb)
	}
	if g := f.get(ins); g["block"] != "BOLT" || g["scale"] != 2.0 || g["fingerprint"] == "" {
		t.Errorf("entity_get(insert) = %v", g)
	}
	list := f.ok(enginev1.ToolBlockList, obj{})["blocks"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["insert_count"] != 1.0 {
		t.Errorf("block_list = %v, want BOLT used once", list)
	}
	f.fail(enginev1.ToolBlockDelete, obj{"name": "BOLT"}, kindRefused)
	f.ok(enginev1.ToolLayerCreate, obj{"name": "marks"})
	f.ok(enginev1.ToolBlockDefine, obj{"name": "MARK", "entities": []any{obj{"type": "point", "x": 0, "y": 0, "layer": "marks"}}})
	f.fail(enginev1.ToolLayerDelete, obj{"name": "marks"}, kindRefused)
	f.ok(enginev1.ToolBlockDelete, obj{"name": "MARK"})
	f.ok(enginev1.ToolLayerDelete, obj{"name": "marks"})

	// The store keeps blocks and inserts: a reopened engine has them.
	wantInfo, wantList := snapshot(t, e, f.doc)
	e.Close()
	e2 := newEngine(t, store)
	if gotInfo, gotList := snapshot(t, e2, f.doc); gotInfo != wantInfo || gotList != wantList {
		t.Errorf("reopened document differs:\n%s\n%s", gotInfo, wantInfo)
	}
	f = &fixture{t: t, e: e2, doc: info.DocumentId}
	ex := f.ok(enginev1.ToolBlockExplode, obj{"handle": ins})
	hs := ex["handles"].([]any)
	if len(hs) != 2 {
		t.Fatalf("block_explode = %v, want 2 entities", ex)
	}
	c := f.get(hs[0].(string))
	if c["type"] != "circle" || c["radius"] != 8.0 || c["layer"] != "holes" || !nearPt(pt(c["center"]), [2]float64{100, 50}) {
		t.Errorf("exploded circle = %v, want radius 8 at (100, 50) on holes", c)
	}
	f.ok(enginev1.ToolBlockDelete, obj{"name": "BOLT"})
	if list, _ := f.ok(enginev1.ToolBlockList, obj{})["blocks"].([]any); len(list) != 0 {
		t.Errorf("block_list after block_delete = %v", list)
	}
}

func TestMtext(t *testing.T) {
	f := newFixture(t)
	h := f.handle(enginev1.ToolEntityCreateMtext, obj{"text": "ROOM 1\nliving room with a view", "x": 10, "y": 20, "height": 2, "width": 24, "attachment": "middle_center", "line_spacing": 1.5})
	g := f.get(h)
	if g["type"] != "mtext" || g["width"] != 24.0 || g["attachment"] != "middle_center" || g["line_spacing"] != 1.5 {
		t.Errorf("entity_get(mtext) = %v", g)
	}
	bb := f.ok(enginev1.ToolAnalysisBoundingBox, obj{"handles": []any{h}})
	// As ezdxf estimates it (a character as wide as it is tall): three
	// lines (the second wraps at 12 characters), 5 apart, 2 tall and
	// reaching 0.666 below the last baseline: 12.666 high, centred on
	// (10, 20). (ezdxf says 12.686: it takes 1.67 for 5/3.)
	if !near(bb["height"].(float64), 12.666) || !near(bb["min_y"].(float64), 13.667) || !near(bb["width"].(float64), 24) {
		t.Errorf("mtext box = %v, want 24 wide, 12.666 high from y 13.667", bb)
	}
	// A baseline is a line of text's: multi-line text has none.
	e := f.fail(enginev1.ToolEntityCreateMtext, obj{"text": "A", "x": 0, "y": 0, "attachment": "baseline_center"}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
	if e.GetPath() != "/attachment" {
		t.Errorf("a baseline attachment fails at %q, want /attachment", e.GetPath())
	}
}

// annotate adds one of each new entity type to the fixture's document.
func annotate(t *testing.T, f *fixture) {
	t.Helper()
	line := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 80, "y2": 0})
	c := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 40, "cy": 30, "radius": 10})
	f.ok(enginev1.ToolDimensionCreateAligned, obj{"p1": obj{"handle": line}, "p2": obj{"handle": line, "x": 80, "y": 0}, "offset": -8})
	f.ok(enginev1.ToolDimensionCreateDiametric, obj{"handle": c, "scale": 2})
	f.ok(enginev1.ToolHatchCreate, obj{"boundaries": []any{c}, "pattern": "ANSI37"})
	f.ok(enginev1.ToolBlockDefine, obj{"name": "B", "entities": []any{obj{"type": "circle", "cx": 0, "cy": 0, "radius": 2}}})
	f.ok(enginev1.ToolBlockInsert, obj{"name": "B", "x": 70, "y": 30, "rotation": 30})
	f.ok(enginev1.ToolEntityCreateMtext, obj{"text": "NOTE\nsecond line", "x": 0, "y": 50})
}

// TestImportRoundTripsThe2018Export: the default export (2018) keeps every
// entity type, ellipses as ellipses and layer lineweights.
func TestImportRoundTripsThe2018Export(t *testing.T) {
	e := newEngine(t, nil)
	src := newFixture(t)
	fillDocument(t, src)
	src.ok(enginev1.ToolLayerCreate, obj{"name": "heavy", "lineweight": 50})
	annotate(t, src)
	content := exportOf(t, src, "dxf")
	if !strings.Contains(content, "$ACADVER\n  1\nAC1032\n") {
		t.Fatal("the default DXF is not AutoCAD 2018 (AC1032)")
	}
	back := importDXF(t, e, "back", content)
	count := func(f *fixture) map[string]int {
		m := map[string]int{}
		for _, x := range f.entities() {
			m[x["type"].(string)]++
		}
		return m
	}
	if got, want := js(count(back)), js(count(src)); got != want {
		t.Errorf("entities by type after the round trip = %s, want %s", got, want)
	}
	for _, l := range back.info().Layers {
		if l.Name == "heavy" && l.Lineweight != 50 {
			t.Errorf("layer heavy lineweight = %d, want 50", l.Lineweight)
		}
	}
	if list := back.ok(enginev1.ToolBlockList, obj{})["blocks"].([]any); len(list) != 1 {
		t.Errorf("blocks after the round trip = %v, want B", list)
	}
	checkWithEzdxf(t, content, map[string]int{"DIMENSION": 2, "HATCH": 1, "INSERT": 1, "MTEXT": 1, "ELLIPSE": 1})
}

// TestExportPictures: PNG and PDF come back as bytes, SVG on a paper at a
// scale has the paper's size.
func TestExportPictures(t *testing.T) {
	f := newFixture(t)
	fillDocument(t, f)
	annotate(t, f)
	for format, magic := range map[string]string{"png": "\x89PNG\r\n", "pdf": "%PDF-"} {
		res := f.ok(enginev1.ToolDocumentExport, obj{"format": format, "options": obj{"paper": "a4"}})
		data, err := base64.StdEncoding.DecodeString(res["data"].(string))
		if err != nil || !strings.HasPrefix(string(data), magic) || res["content"] != nil && res["content"] != "" {
			t.Errorf("document_export %s = %.80v, want %q data and no content", format, res, magic)
		}
	}
	svg := exportWith(t, f, "svg", obj{"paper": "a3", "scale": 50})
	if !strings.Contains(svg, `width="420mm" height="297mm"`) {
		t.Errorf("SVG at A3 1:50 does not have the A3 size: %.300s", svg)
	}
	f.fail(enginev1.ToolDocumentExport, obj{"format": "png", "options": obj{"dpi": 5}}, kindInvalid)
}
