package engine_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/dxf"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// critiqueStep is one call that builds a drawing to critique; key names
// the handle it makes.
type critiqueStep struct {
	key, tool string
	args      obj
}

// mistakes builds, with the engine's tools, a drawing of one of each
// mistake the critique finds in model space (extents about 400 × 410, so
// the default gap tolerance is about 0.4). Setup steps (a layer, the
// title block's definition) come first; entity steps may run in any order.
func mistakes() (setup, ents []critiqueStep) {
	setup = []critiqueStep{
		{"", enginev1.ToolBlockDefine, obj{"name": "TITLEBLOCK_A3", "entities": []any{obj{"type": "line", "x1": 0, "y1": 0, "x2": 180, "y2": 0}},
			"attributes": []any{
				obj{"tag": "TITLE", "x": 1, "y": 1}, obj{"tag": "DATE", "x": 1, "y": 6},
				obj{"tag": "DRAWN_BY", "x": 1, "y": 11}, obj{"tag": "MATERIAL", "x": 1, "y": 16},
			}}},
	}
	ents = []critiqueStep{
		// A clean closed outline and a dimension whose points lie on it.
		{"outline", enginev1.ToolEntityCreateRectangle, obj{"x1": 0, "y1": 0, "x2": 100, "y2": 100}},
		{"ondim", enginev1.ToolDimensionCreateAligned, obj{"p1": obj{"x": 0, "y": 0}, "p2": obj{"x": 100, "y": 0}, "offset": -10}},
		// zero_length: a polyline of one point, a circle of no radius.
		{"dot", enginev1.ToolEntityCreatePolyline, obj{"points": []any{obj{"x": 300, "y": 300}, obj{"x": 300, "y": 300}}}},
		{"speck", enginev1.ToolEntityCreateCircle, obj{"cx": 250, "cy": 250, "radius": 1e-12}},
		// duplicate: a line drawn again the other way round.
		{"there", enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 200, "x2": 50, "y2": 200}},
		{"back", enginev1.ToolEntityCreateLine, obj{"x1": 50, "y1": 200, "x2": 0, "y2": 200}},
		// gap: two lines 0.05 apart end to end.
		{"g1", enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 300, "x2": 50, "y2": 300}},
		{"g2", enginev1.ToolEntityCreateLine, obj{"x1": 50.05, "y1": 300, "x2": 100, "y2": 300}},
		// text_overlap: two texts one over the other; a line through a third.
		{"hello", enginev1.ToolEntityCreateText, obj{"x": 0, "y": 400, "text": "HELLO", "height": 5}},
		{"world", enginev1.ToolEntityCreateText, obj{"x": 2, "y": 401, "text": "WORLD", "height": 5}},
		{"note", enginev1.ToolEntityCreateText, obj{"x": 150, "y": 400, "text": "NOTE", "height": 5}},
		{"strike", enginev1.ToolEntityCreateLine, obj{"x1": 140, "y1": 402, "x2": 180, "y2": 402}},
		// dimension_unbound: a dimension between points on nothing.
		{"free", enginev1.ToolDimensionCreateAligned, obj{"p1": obj{"x": 300, "y": 50}, "p2": obj{"x": 350, "y": 50}, "offset": 10}},
		// titleblock_empty: DATE blank, DRAWN_BY left at its empty default.
		{"tb", enginev1.ToolBlockInsert, obj{"name": "TITLEBLOCK_A3", "x": 200, "y": 0, "attributes": obj{"TITLE": "Flange", "DATE": " ", "MATERIAL": ""}}},
	}
	return setup, ents
}

// buildCritique runs the steps on a new document and returns the handles
// by key.
func buildCritique(t *testing.T, f *fixture, setup, ents []critiqueStep) map[string]string {
	t.Helper()
	h := map[string]string{}
	for _, s := range append(slices.Clone(setup), ents...) {
		res := f.ok(s.tool, s.args)
		if s.key != "" {
			h[s.key] = res["handle"].(string)
		}
	}
	return h
}

// critiqueFinding is a finding as the wire has it.
type critiqueFinding struct {
	Code     string   `json:"code"`
	Severity string   `json:"severity"`
	Message  string   `json:"message"`
	Handles  []string `json:"handles"`
	Fix      *struct {
		Tool string         `json:"tool"`
		Args map[string]any `json:"args"`
	} `json:"fix"`
}

type critiqueResult struct {
	Findings []critiqueFinding `json:"findings"`
	Score    int               `json:"score"`
}

func critique(t *testing.T, e *engine.Engine, doc string, args obj) critiqueResult {
	t.Helper()
	resp := callTool(t, e, doc, enginev1.ToolDrawingCritique, args)
	if !resp.Ok {
		t.Fatalf("drawing_critique(%v) failed: %v", args, resp.Error)
	}
	var r critiqueResult
	if err := json.Unmarshal(resp.ResultJson, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// byCode is the handles of each finding, by code, each finding's handles
// joined with "+".
func byCode(fs []critiqueFinding) map[string][]string {
	out := map[string][]string{}
	for _, f := range fs {
		out[f.Code] = append(out[f.Code], strings.Join(f.Handles, "+"))
	}
	for _, v := range out {
		sort.Strings(v)
	}
	return out
}

// TestCritiqueFindsEachMistake: a drawing made to have each mistake gets
// each finding, on the right handles, with the right severity and fix;
// the score is 100 less the weights; nothing else is found (the clean
// outline and the dimension on it are not).
func TestCritiqueFindsEachMistake(t *testing.T) {
	f := newFixture(t)
	setup, ents := mistakes()
	h := buildCritique(t, f, setup, ents)
	// dimension_zero: a dimension bound to two lines' ends, which the
	// lines then bring together.
	l1 := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 300, "y1": 150, "x2": 310, "y2": 150})
	l2 := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 320, "y1": 160, "x2": 330, "y2": 160})
	zero := f.handle(enginev1.ToolDimensionCreateAligned, obj{"p1": obj{"handle": l1, "x": 310, "y": 150}, "p2": obj{"handle": l2, "x": 320, "y": 160}})
	f.ok(enginev1.ToolEntityMove, obj{"handle": l2, "dx": -10, "dy": -10})
	// open_hatch_boundary: a hatched square whose outline is then broken.
	sq := f.handle(enginev1.ToolEntityCreateRectangle, obj{"x1": 200, "y1": 100, "x2": 240, "y2": 140})
	hatch := f.handle(enginev1.ToolHatchCreate, obj{"boundaries": []any{sq}, "pattern": "ANSI31"})
	f.ok(enginev1.ToolEntityBreak, obj{"handle": sq, "x1": 215, "y1": 100, "x2": 225, "y2": 100})

	r := critique(t, f.e, f.doc, obj{})
	got := byCode(r.Findings)
	want := map[string][]string{
		"zero_length":         {h["dot"], h["speck"]},
		"duplicate":           {h["back"] + "+" + h["there"]},
		"gap":                 {h["g2"] + "+" + h["g1"]},
		"text_overlap":        {h["note"] + "+" + h["strike"], h["world"] + "+" + h["hello"]},
		"dimension_unbound":   {h["free"]},
		"dimension_zero":      {zero},
		"titleblock_empty":    {h["tb"]},
		"open_hatch_boundary": {hatch},
	}
	for _, v := range want {
		sort.Strings(v)
	}
	if js(got) != js(want) {
		t.Errorf("findings by code = %v\nwant %v\nall: %s", got, want, js(r.Findings))
	}
	// Severities and fixes.
	bySev := map[string]string{}
	for _, fd := range r.Findings {
		bySev[fd.Code] = fd.Severity
		switch fd.Code {
		case "zero_length", "duplicate", "dimension_zero":
			if fd.Fix == nil || fd.Fix.Tool != "entity_delete" || fd.Fix.Args["handle"] != fd.Handles[0] {
				t.Errorf("%s finding %v: fix %+v, want entity_delete of %s", fd.Code, fd.Handles, fd.Fix, fd.Handles[0])
			}
		case "gap":
			if fd.Fix == nil || fd.Fix.Tool != "entity_edit_geometry" || js(fd.Fix.Args) != js(obj{"handle": h["g2"], "start": obj{"x": 50, "y": 300}}) {
				t.Errorf("gap fix = %+v, want g2's start moved onto (50, 300)", fd.Fix)
			}
		case "titleblock_empty":
			if !strings.Contains(fd.Message, "DATE, DRAWN_BY") || strings.Contains(fd.Message, "MATERIAL") || strings.Contains(fd.Message, "TITLE,") {
				t.Errorf("title block message %q, want DATE and DRAWN_BY only", fd.Message)
			}
		}
	}
	wantSev := map[string]string{"zero_length": "error", "duplicate": "error", "dimension_zero": "error", "gap": "warning",
		"text_overlap": "warning", "dimension_unbound": "warning", "titleblock_empty": "warning", "open_hatch_boundary": "warning"}
	if js(bySev) != js(wantSev) {
		t.Errorf("severities = %v, want %v", bySev, wantSev)
	}
	// 4 errors, 6 warnings.
	if r.Score != 100-4*10-6*3 {
		t.Errorf("score = %d, want %d", r.Score, 100-4*10-6*3)
	}
	// Ordered: errors first, then by code and first handle.
	for i := 1; i < len(r.Findings); i++ {
		a, b := r.Findings[i-1], r.Findings[i]
		if sevRank(a.Severity) > sevRank(b.Severity) || a.Severity == b.Severity && a.Code > b.Code {
			t.Errorf("finding %d (%s %s) before %d (%s %s)", i-1, a.Severity, a.Code, i, b.Severity, b.Code)
		}
	}

	// Each fix, run as the finding says, repairs it.
	for _, fd := range r.Findings {
		if fd.Fix != nil {
			f.ok(fd.Fix.Tool, fd.Fix.Args)
		}
	}
	after := byCode(critique(t, f.e, f.doc, obj{}).Findings)
	if strings.Count(js(r.Findings), "(220, 100)") != 1 {
		t.Errorf("the open hatch's finding does not say where, (220, 100): %s", js(r.Findings))
	}
	for _, code := range []string{"zero_length", "duplicate", "gap", "dimension_zero"} {
		if len(after[code]) > 0 {
			t.Errorf("after the fixes, %s findings %v remain", code, after[code])
		}
	}
	if g1 := f.get(h["g1"]); !nearPt(pt(g1["end"]), pt(f.get(h["g2"])["start"])) {
		t.Errorf("after the gap's fix, g1 ends at %v and g2 starts at %v", g1["end"], f.get(h["g2"])["start"])
	}

	// focus: only the categories asked for.
	geo := byCode(critique(t, f.e, f.doc, obj{"focus": []any{"annotation"}}).Findings)
	if len(geo) != 2 || geo["text_overlap"] == nil || geo["dimension_unbound"] == nil || geo["titleblock_empty"] != nil {
		t.Errorf("focus annotation = %v, want text_overlap and dimension_unbound only (and dimension_zero's gone)", geo)
	}
}

func sevRank(s string) int { return slices.Index([]string{"error", "warning", "info"}, s) }

// TestCritiqueTolerance: a gap is reported when it is under the
// tolerance given, not when it is over it, and never when ends meet or
// an end lies on another curve (a T-junction).
func TestCritiqueTolerance(t *testing.T) {
	f := newFixture(t)
	f.ok(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 100, "y2": 0})
	a := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 100, "y1": 0, "x2": 100, "y2": 100})
	b := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 100, "y1": 102, "x2": 0, "y2": 102}) // 2 above a's end
	f.ok(enginev1.ToolEntityCreateLine, obj{"x1": 50, "y1": 0, "x2": 50, "y2": 50})             // a T on the first line
	f.ok(enginev1.ToolEntityCreateLine, obj{"x1": 50.5, "y1": 0, "x2": 50.5, "y2": -50})        // a T from below, 0.5 from the other T's end
	if got := byCode(critique(t, f.e, f.doc, obj{"focus": []any{"geometry"}}).Findings); len(got) != 0 {
		t.Errorf("default tolerance (0.102): %v, want nothing", got)
	}
	got := byCode(critique(t, f.e, f.doc, obj{"focus": []any{"geometry"}, "tolerance": 3}).Findings)
	if js(got) != js(map[string][]string{"gap": {b + "+" + a}}) {
		t.Errorf("tolerance 3: %v, want the gap %s+%s alone", got, b, a)
	}
}

// TestCritiqueFixesInOneBatch: the fixes, as the findings give them,
// are the steps of one batch; after it the geometry is clean. The gap
// between an arc and a line is closed by moving the line's end (an arc's
// is not moved), whichever was drawn first.
func TestCritiqueFixesInOneBatch(t *testing.T) {
	f := newFixture(t)
	line := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10.005, "y2": 0}) // size 15: tolerance 0.015
	arc := f.handle(enginev1.ToolEntityCreateArc, obj{"cx": 10, "cy": 5, "radius": 5, "start_angle": 270, "end_angle": 90})
	dup := f.handle(enginev1.ToolEntityCreateArc, obj{"cx": 10, "cy": 5, "radius": 5, "start_angle": 270, "end_angle": 90})
	poly := f.handle(enginev1.ToolEntityCreatePolyline, obj{"points": []any{obj{"x": 10.01, "y": 10}, obj{"x": 0, "y": 10}, obj{"x": 0, "y": 0.01}}})
	r := critique(t, f.e, f.doc, obj{"focus": []any{"geometry"}})
	got := byCode(r.Findings)
	want := map[string][]string{
		"duplicate": {dup + "+" + arc},
		"gap":       {line + "+" + arc, poly + "+" + arc, poly + "+" + line},
	}
	for _, v := range want {
		sort.Strings(v)
	}
	if js(got) != js(want) {
		t.Fatalf("findings %v, want %v", got, want)
	}
	req := &enginev1.ExecuteBatchRequest{DocumentId: f.doc}
	for _, fd := range r.Findings {
		if fd.Fix == nil {
			t.Fatalf("finding %+v has no fix", fd)
		}
		req.Steps = append(req.Steps, &enginev1.BatchStep{Tool: fd.Fix.Tool, ArgsJson: mustJSON(fd.Fix.Args)})
	}
	if resp := f.batch(req); !resp.Ok {
		t.Fatalf("the fixes as one batch: %v", resp)
	}
	if after := critique(t, f.e, f.doc, obj{"focus": []any{"geometry"}}); len(after.Findings) != 0 {
		t.Errorf("after the fixes: %s", js(after))
	}
	if end := pt(f.get(line)["end"]); !nearPt(end, [2]float64{10, 0}) {
		t.Errorf("the line ends at %v, want the arc's start (10, 0)", end)
	}
}

// TestCritiqueCleanDrawing: the drawings of examples/ (the flange, the
// bracket, the floor plan), made with the engine's tools, have no error.
func TestCritiqueCleanDrawing(t *testing.T) {
	for _, name := range []string{"flange", "bracket", "floorplan", "bracket_sheet", "floorplan_sheet", "sketch"} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			data, err := os.ReadFile("../../../examples/" + name + ".json")
			if err != nil {
				t.Fatal(err)
			}
			var batch struct {
				Steps []struct {
					Tool string          `json:"tool"`
					Bind string          `json:"bind"`
					Args json.RawMessage `json:"args"`
				} `json:"steps"`
			}
			if err := json.Unmarshal(data, &batch); err != nil {
				t.Fatal(err)
			}
			req := &enginev1.ExecuteBatchRequest{DocumentId: f.doc}
			for _, s := range batch.Steps {
				st := &enginev1.BatchStep{Tool: s.Tool, ArgsJson: s.Args}
				if s.Bind != "" {
					st.Bind = &s.Bind
				}
				req.Steps = append(req.Steps, st)
			}
			if resp := f.batch(req); !resp.Ok {
				t.Fatalf("%s.json: %v", name, resp)
			}
			r := critique(t, f.e, f.doc, obj{})
			t.Logf("%s: %s", name, js(r))
			for _, fd := range r.Findings {
				if fd.Severity == "error" {
					t.Errorf("%s has an error: %+v", name, fd)
				}
			}
		})
	}
}

// TestCritiqueStable: the same drawing gives the same findings twice;
// the drawing made in the reverse order gives the same findings (each
// handle read as the entity it names).
func TestCritiqueStable(t *testing.T) {
	setup, ents := mistakes()
	f := newFixture(t)
	buildCritique(t, f, setup, ents)
	first := critique(t, f.e, f.doc, obj{})
	if again := critique(t, f.e, f.doc, obj{}); js(again) != js(first) {
		t.Errorf("second critique differs:\n%s\n%s", js(again), js(first))
	}
	g := newFixture(t)
	slices.Reverse(ents)
	buildCritique(t, g, setup, ents)
	back := critique(t, g.e, g.doc, obj{})
	if a, b := described(t, f, first), described(t, g, back); a != b {
		t.Errorf("made in reverse, the findings differ:\n%s\n%s", a, b)
	}
	if first.Score != back.Score {
		t.Errorf("scores %d and %d", first.Score, back.Score)
	}
}

// described is the findings with each handle replaced by its entity's
// type and geometry, each finding's entities sorted, the findings sorted.
func described(t *testing.T, f *fixture, r critiqueResult) string {
	var out []string
	for _, fd := range r.Findings {
		var es []string
		for _, h := range fd.Handles {
			e := f.get(h)
			delete(e, "handle")
			delete(e, "fingerprint")
			es = append(es, js(e))
		}
		sort.Strings(es)
		out = append(out, fd.Severity+" "+fd.Code+" "+strings.Join(es, " "))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// TestCritiqueSheet: in a drawing read from a file (the tools cannot make
// these yet), a viewport at 1:37.5 is off the standard scales and one at
// 1:50 is not, and a model-space line no viewport shows is outside the
// sheet; an unknown layout fails.
func TestCritiqueSheet(t *testing.T) {
	doc := drawing.NewDocument("doc-s", "s", enginev1.Units_UNITS_MM, time.Time{})
	add := func(layout string, g drawing.Geometry) {
		doc.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Layout: layout, Geom: g})
	}
	add("", drawing.Line{A: geom.Pt(0, 0), B: geom.Pt(100, 0)})
	add("", drawing.Line{A: geom.Pt(5000, 5000), B: geom.Pt(5100, 5000)}) // shown by no viewport
	add("Layout1", drawing.NewViewport(10, 10, 100, 80, geom.Pt(50, 0), 0.02, 2))
	add("Layout1", drawing.NewViewport(150, 10, 100, 80, geom.Pt(50, 0), 1/37.5, 3))
	e := newEngine(t, nil)
	imp := callTool(t, e, "", enginev1.ToolDocumentImport, obj{"format": "dxf", "content": dxf.Write(doc)})
	if !imp.Ok {
		t.Fatalf("import: %v", imp.Error)
	}
	id := resultObj(imp.ResultJson)["document"].(obj)["document_id"].(string)
	f := &fixture{t: t, e: e, doc: id}
	list := f.ok(enginev1.ToolEntityList, obj{"layout": "Layout1"})["entities"].([]any)
	model := f.ok(enginev1.ToolEntityList, obj{})["entities"].([]any)
	var vp37, vp50, far string
	for _, x := range append(list, model...) {
		m := x.(map[string]any)
		switch {
		case m["type"] == "viewport" && near(m["scale"].(float64), 0.02):
			vp50 = m["handle"].(string)
		case m["type"] == "viewport" && near(m["scale"].(float64), 1/37.5):
			vp37 = m["handle"].(string)
		case m["type"] == "line" && pt(m["start"])[0] == 5000:
			far = m["handle"].(string)
		}
	}
	if vp37 == "" || vp50 == "" || far == "" {
		t.Fatalf("import lost something: viewports %q %q, line %q: %s", vp37, vp50, far, js(append(list, model...)))
	}
	r := critique(t, e, id, obj{})
	got := byCode(r.Findings)
	want := map[string][]string{"viewport_scale": {vp37}, "outside_sheet": {far}}
	if js(got) != js(want) {
		t.Errorf("findings = %v, want %v: %s", got, want, js(r.Findings))
	}
	canSetScale := slices.ContainsFunc(enginev1.Tools, func(t enginev1.ToolInfo) bool { return t.Name == "viewport_set_scale" })
	for _, fd := range r.Findings {
		if fd.Code != "viewport_scale" {
			continue
		}
		if !strings.Contains(fd.Message, "1:37.5") || !strings.Contains(fd.Message, "nearest is 1:50") {
			t.Errorf("viewport_scale message %q, want 1:37.5 and the nearest 1:50", fd.Message)
		}
		// The fix names viewport_set_scale once the engine has it.
		if canSetScale != (fd.Fix != nil) || fd.Fix != nil && js(fd.Fix.Args) != js(obj{"handle": vp37, "scale": "1:50"}) {
			t.Errorf("viewport_scale fix = %+v (the engine has viewport_set_scale: %v)", fd.Fix, canSetScale)
		}
	}
	// Only Layout1 (its viewports, its paper space): the same; focus
	// geometry: nothing.
	if got := byCode(critique(t, e, id, obj{"layout": "Layout1"}).Findings); js(got) != js(want) {
		t.Errorf("layout Layout1: %v", got)
	}
	if got := critique(t, e, id, obj{"focus": []any{"geometry"}}); len(got.Findings) != 0 || got.Score != 100 {
		t.Errorf("focus geometry: %s", js(got))
	}
	f.fail(enginev1.ToolDrawingCritique, obj{"layout": "Nope"}, kindFailed)
	// "" is model space: its geometry, no viewport of its own.
	if got := critique(t, e, id, obj{"layout": ""}); len(got.Findings) != 0 {
		t.Errorf("model space alone: %s", js(got))
	}
}

// TestCritiqueBounded: a drawing made to pile texts on one spot costs
// one comparison a pair, which the engine's expansion budget bounds: with
// a budget of 1,000, 100 texts (4,950 pairs) fail too_large; with the
// default, each text after the first is one finding, which lists at most
// 20 of the texts under it and counts the rest.
func TestCritiqueBounded(t *testing.T) {
	pile := func(e *engine.Engine) string {
		t.Helper()
		info, err := e.CreateDocument(t.Context(), &enginev1.CreateDocumentRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var es []any
		for i := range 100 {
			es = append(es, obj{"type": "text", "x": float64(i) * 0.01, "y": 0, "text": "PILE", "height": 5})
		}
		if r := callTool(t, e, info.DocumentId, enginev1.ToolEntityBatchCreate, obj{"entities": es}); !r.Ok {
			t.Fatal(r.Error)
		}
		return info.DocumentId
	}
	small, err := engine.New(memory.New(), engine.Options{ExpansionLimit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { small.Close() })
	if r := callTool(t, small, pile(small), enginev1.ToolDrawingCritique, obj{}); r.Ok || r.Error.GetKind() != enginev1.ErrorKind_ERROR_KIND_TOO_LARGE {
		t.Errorf("critique of 100 piled texts with a budget of 1000 = ok %v, %v; want too_large", r.Ok, r.Error)
	}
	e := newEngine(t, nil)
	r := critique(t, e, pile(e), obj{"focus": []any{"annotation"}})
	if len(r.Findings) != 99 {
		t.Fatalf("%d findings, want 99", len(r.Findings))
	}
	for _, f := range r.Findings {
		if f.Code != "text_overlap" || len(f.Handles) > 21 {
			t.Errorf("finding %s with %d handles, want text_overlap with at most 21", f.Code, len(f.Handles))
		}
	}
	last := r.Findings[len(r.Findings)-1] // the last text's: over the 99 before it
	if len(last.Handles) != 21 || !strings.HasSuffix(last.Message, " and 79 more") {
		t.Errorf("the last text's finding: %d handles, %q; want 21 and \"… and 79 more\"", len(last.Handles), last.Message)
	}
}

// BenchmarkCritique10k critiques a drawing of 10,000 entities: a grid of
// squares (lines, some with gaps, some drawn twice), circles and labels.
func BenchmarkCritique10k(b *testing.B) {
	f := newFixture(b)
	var es []any
	for i := 0; len(es) < 10000; i++ {
		x, y := float64(i%50)*20, float64(i/50)*20
		gap := 0.0
		if i%7 == 0 {
			gap = 0.01
		}
		es = append(es,
			obj{"type": "line", "x1": x, "y1": y, "x2": x + 10, "y2": y},
			obj{"type": "line", "x1": x + 10, "y1": y + gap, "x2": x + 10, "y2": y + 10},
			obj{"type": "line", "x1": x + 10, "y1": y + 10, "x2": x, "y2": y + 10},
			obj{"type": "line", "x1": x, "y1": y + 10, "x2": x, "y2": y},
			obj{"type": "circle", "cx": x + 5, "cy": y + 5, "radius": 2},
			obj{"type": "text", "x": x + 1, "y": y + 12, "text": fmt.Sprintf("P%d", i), "height": 2},
		)
		if i%11 == 0 {
			es = append(es, obj{"type": "line", "x1": x + 10, "y1": y, "x2": x, "y2": y})
		}
	}
	f.ok(enginev1.ToolEntityBatchCreate, obj{"entities": es[:10000]})
	var r *enginev1.CallToolResponse
	for b.Loop() {
		if r = callTool(b, f.e, f.doc, enginev1.ToolDrawingCritique, obj{}); !r.Ok {
			b.Fatal(r.Error)
		}
	}
	b.ReportMetric(float64(len(resultObj(r.ResultJson)["findings"].([]any))), "findings")
}

// TestCritiquePaper: a paper-space line off its layout's paper (A4
// landscape, 297 × 210 mm) is an error; one on it is not.
func TestCritiquePaper(t *testing.T) {
	f := newFixture(t)
	f.ok(enginev1.ToolLayoutCreate, obj{"name": "Sheet", "paper": "A4"})
	f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 10, "y1": 10, "x2": 280, "y2": 200, "layout": "Sheet"})
	off := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 10, "y1": 10, "x2": 300, "y2": 10, "layout": "Sheet"})
	r := critique(t, f.e, f.doc, obj{})
	if got, want := byCode(r.Findings), map[string][]string{"outside_sheet": {off}}; js(got) != js(want) {
		t.Errorf("findings = %v, want %v", got, want)
	}
}
