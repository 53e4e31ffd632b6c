package engine_test

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store/sqlite"
)

// layerStates is layer_list's layers by name.
func layerStates(t *testing.T, f *fixture) map[string]obj {
	t.Helper()
	out := map[string]obj{}
	for _, l := range f.ok(enginev1.ToolLayerList, obj{})["layers"].([]any) {
		l := l.(obj)
		out[l["name"].(string)] = l
	}
	return out
}

// names are the strings of a result's list (nil for an absent one).
func names(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, s := range l {
		out = append(out, s.(string))
	}
	return out
}

// ltypePatterns reads a DXF's LTYPE table: each entry's name (2) and
// lengths (49), in file order.
func ltypePatterns(t *testing.T, content string) map[string][]float64 {
	t.Helper()
	out := map[string][]float64{}
	inLtype, name := false, ""
	for _, p := range parseDXF(t, content) {
		switch {
		case p.code == 0:
			inLtype, name = p.value == "LTYPE", ""
		case inLtype && p.code == 2:
			name = p.value
			out[name] = []float64{}
		case inLtype && p.code == 49 && name != "":
			v, err := strconv.ParseFloat(strings.TrimSpace(p.value), 64)
			if err != nil {
				t.Fatalf("LTYPE %s: length %q: %v", name, p.value, err)
			}
			out[name] = append(out[name], v)
		}
	}
	return out
}

// headerVars reads a DXF's HEADER variables: each variable's first
// value.
func headerVars(t *testing.T, content string) map[string]string {
	t.Helper()
	out := map[string]string{}
	variable := ""
	for _, p := range parseDXF(t, content) {
		switch {
		case p.code == 0 && p.value == "ENDSEC":
			return out
		case p.code == 9:
			variable = p.value
		case variable != "":
			out[variable] = strings.TrimSpace(p.value)
			variable = ""
		}
	}
	return out
}

func TestTemplateList(t *testing.T) {
	f := newFixture(t)
	res := f.ok(enginev1.ToolTemplateList, obj{})
	var got []string
	var iso obj
	for _, tp := range res["templates"].([]any) {
		tp := tp.(obj)
		got = append(got, tp["name"].(string))
		if tp["name"] == "iso" {
			iso = tp
		}
	}
	if want := []string{"architectural", "electrical", "iso", "mechanical", "piping"}; !slices.Equal(got, want) {
		t.Fatalf("template_list names = %v, want %v", got, want)
	}
	// ISO 128 as the issue lays it out: outlines continuous 0.5 mm,
	// hidden dashed 0.35, centre lines 0.25, dimensions 0.25.
	want := map[string][2]any{"OUTLINE": {"Continuous", 50.0}, "HIDDEN": {"HIDDEN", 35.0}, "CENTER": {"CENTER", 25.0}, "DIMENSIONS": {"Continuous", 25.0}}
	seen := 0
	for _, l := range iso["layers"].([]any) {
		l := l.(obj)
		if w, ok := want[l["name"].(string)]; ok {
			seen++
			if l["linetype"] != w[0] || l["lineweight"] != w[1] {
				t.Errorf("iso layer %s = %v %v, want %v %v", l["name"], l["linetype"], l["lineweight"], w[0], w[1])
			}
		}
	}
	if seen != len(want) {
		t.Errorf("iso template has %d of the layers %v: %s", seen, want, js(iso))
	}
}

// TestTemplateApplyLayers: every template applies to a fresh drawing and
// layer_list then shows its layers as template_list does; applying to a
// drawing with some of them updates those (keeping their names, states
// and entities), creates the rest, removes nothing, and applying again
// changes nothing.
func TestTemplateApplyLayers(t *testing.T) {
	for _, tp := range newFixture(t).ok(enginev1.ToolTemplateList, obj{})["templates"].([]any) {
		tp := tp.(obj)
		f := newFixture(t)
		res := f.ok(enginev1.ToolTemplateApplyLayers, obj{"template": strings.ToUpper(tp["name"].(string))})
		layers := layerStates(t, f)
		if res["template"] != tp["name"] || len(names(res["created"])) != len(tp["layers"].([]any)) {
			t.Errorf("%s: result %s", tp["name"], js(res))
		}
		for _, l := range tp["layers"].([]any) {
			l := l.(obj)
			got := layers[l["name"].(string)]
			if got == nil || got["color"] != l["color"] || got["linetype"] != l["linetype"] || got["lineweight"] != l["lineweight"] || got["on"] != true {
				t.Errorf("%s: layer %v = %s, want %s", tp["name"], l["name"], js(got), js(l))
			}
		}
	}

	f := newFixture(t)
	f.ok(enginev1.ToolLayerCreate, obj{"name": "outline", "color": 3, "lineweight": 13})
	f.ok(enginev1.ToolLayerCreate, obj{"name": "Center", "color": 1, "linetype": "CENTER", "lineweight": 25})
	f.ok(enginev1.ToolLayerCreate, obj{"name": "mine"})
	line := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 0, "layer": "outline"})
	f.ok(enginev1.ToolLayerModify, obj{"name": "outline", "on": false})
	f.ok(enginev1.ToolLayerLock, obj{"name": "outline"})
	before := f.info()

	res := f.ok(enginev1.ToolTemplateApplyLayers, obj{"template": "Iso"})
	if got := names(res["updated"]); !slices.Equal(got, []string{"outline"}) {
		t.Errorf("updated = %v, want [outline]", got)
	}
	if got := names(res["unchanged"]); !slices.Equal(got, []string{"Center"}) {
		t.Errorf("unchanged = %v, want [Center]", got)
	}
	if got := names(res["created"]); len(got) != 7 || slices.Contains(got, "OUTLINE") || slices.Contains(got, "CENTER") {
		t.Errorf("created = %v, want the 7 other iso layers", got)
	}
	layers := layerStates(t, f)
	if o := layers["outline"]; o["color"] != 7.0 || o["lineweight"] != 50.0 || o["linetype"] != "Continuous" || o["on"] != false || o["locked"] != true || o["entity_count"] != 1.0 {
		t.Errorf("outline after iso = %s, want colour 7, 0.5 mm, still off, locked and holding its line", js(o))
	}
	if layers["mine"] == nil || layers["0"] == nil || len(layers) != 3+1+7 {
		t.Errorf("layers after iso = %v, want 0, mine, outline, Center and 7 new", js(layers))
	}
	if f.get(line)["layer"] != "outline" {
		t.Errorf("the line moved off its layer")
	}

	hash := f.info().ContentHash
	again := f.ok(enginev1.ToolTemplateApplyLayers, obj{"template": "iso"})
	if len(names(again["created"]))+len(names(again["updated"])) != 0 || len(names(again["unchanged"])) != 9 || f.info().ContentHash != hash {
		t.Errorf("applying iso again = %s, want all 9 unchanged and the content hash as it was", js(again))
	}

	if err := f.fail(enginev1.ToolTemplateApplyLayers, obj{"template": "din"}, kindInvalid); err.GetPath() != "/template" || !strings.Contains(err.GetMessage(), "mechanical") {
		t.Errorf("unknown template: %v, want /template naming the templates", err)
	}

	f.ok(enginev1.ToolDocumentUndo, obj{"steps": 2}) // both applications
	if after := f.info(); after.ContentHash != before.ContentHash || len(after.Layers) != 4 {
		t.Errorf("undo of template_apply_layers: %d layers, hash %s; want 4 and %s", len(after.Layers), after.ContentHash, before.ContentHash)
	}
}

// TestLinetypeLoad: the standard set is listed in the document's units
// (acadiso.lin's millimetres, acad.lin's inches); linetype_load puts one
// in the document's table, so the DXF's LTYPE table holds its pattern
// (read back, and by ezdxf) even though nothing uses it; loading again
// and undo behave.
func TestLinetypeLoad(t *testing.T) {
	f := newFixture(t)
	list := f.ok(enginev1.ToolLinetypeList, obj{})
	byName := map[string]obj{}
	for _, l := range list["linetypes"].([]any) {
		byName[l.(obj)["name"].(string)] = l.(obj)
	}
	if len(byName) != 25 || list["scale"] != 1.0 {
		t.Fatalf("linetype_list of a new drawing: %d linetypes, scale %v; want Continuous and 24 standard, scale 1", len(byName), list["scale"])
	}
	// acadiso.lin: *CENTER A,31.75,-6.35,6.35,-6.35; *HIDDEN2 A,3.175,-1.5875.
	center := []any{31.75, -6.35, 6.35, -6.35}
	if c := byName["CENTER"]; js(c["pattern"]) != js(center) || c["loaded"] == true || c["standard"] != true {
		t.Errorf("CENTER = %s, want pattern %v, standard, not loaded", js(c), center)
	}
	for _, n := range []string{"DASHED2", "PHANTOMX2", "BORDER", "DIVIDEX2", "DOT2", "DASHDOT"} {
		if byName[n] == nil {
			t.Errorf("linetype_list lacks %s", n)
		}
	}
	before := f.info()
	if got := ltypePatterns(t, exportOf(t, f, "dxf")); got["CENTER"] != nil {
		t.Fatalf("a new drawing's DXF already defines CENTER")
	}

	res := f.ok(enginev1.ToolLinetypeLoad, obj{"name": "center"})
	if l := res["linetype"].(obj); res["loaded"] != true || l["name"] != "CENTER" || js(l["pattern"]) != js(center) || l["loaded"] != true {
		t.Errorf("linetype_load center = %s", js(res))
	}
	f.ok(enginev1.ToolLinetypeLoad, obj{"name": "HIDDEN2"})
	if f.info().ContentHash == before.ContentHash {
		t.Errorf("loading linetypes left the content hash as it was")
	}
	hash := f.info().ContentHash
	if again := f.ok(enginev1.ToolLinetypeLoad, obj{"name": "CENTER"}); again["loaded"] != false || f.info().ContentHash != hash {
		t.Errorf("loading CENTER again = %s, want loaded false and the content hash as it was", js(again))
	}
	for _, l := range f.ok(enginev1.ToolLinetypeList, obj{})["linetypes"].([]any) {
		l := l.(obj)
		if want := l["name"] == "CENTER" || l["name"] == "HIDDEN2"; l["loaded"] != want {
			t.Errorf("after loading: %s loaded = %v, want %v", l["name"], l["loaded"], want)
		}
	}
	f.fail(enginev1.ToolLinetypeLoad, obj{"name": "ZIGZAG"}, kindInvalid)

	for _, version := range []string{"r12", "r2018"} {
		dxf := exportWith(t, f, "dxf", obj{"dxf_version": version})
		got := ltypePatterns(t, dxf)
		if js(got["CENTER"]) != js([]float64{31.75, -6.35, 6.35, -6.35}) || js(got["HIDDEN2"]) != js([]float64{3.175, -1.5875}) {
			t.Errorf("%s: LTYPE CENTER %v, HIDDEN2 %v; want acadiso.lin's", version, got["CENTER"], got["HIDDEN2"])
		}
		out := ezdxftest.Run(t, `
import sys, ezdxf
doc = ezdxf.readfile(sys.argv[1])
for name in ("CENTER", "HIDDEN2"):
    lt = doc.linetypes.get(name)
    print(name, " ".join("%g" % t.value for t in lt.pattern_tags.tags if t.code == 49))
`, ezdxftest.File(t, "ltypes.dxf", dxf))
		if out != "" && out != "CENTER 31.75 -6.35 6.35 -6.35\nHIDDEN2 3.175 -1.5875\n" {
			t.Errorf("%s: ezdxf reads the linetypes as\n%s", version, out)
		}
	}

	f.ok(enginev1.ToolDocumentUndo, obj{"steps": 3}) // CENTER, HIDDEN2, CENTER again
	if after := f.info(); after.ContentHash != before.ContentHash {
		t.Errorf("undoing the loads: content hash %s, want %s", after.ContentHash, before.ContentHash)
	}
	if got := ltypePatterns(t, exportOf(t, f, "dxf")); got["CENTER"] != nil {
		t.Errorf("after undo the DXF still defines CENTER")
	}
	f.ok(enginev1.ToolDocumentRedo, obj{"steps": 3})
	if got := ltypePatterns(t, exportOf(t, f, "dxf")); got["HIDDEN2"] == nil {
		t.Errorf("after redo the DXF does not define HIDDEN2")
	}

	// A drawing in inches loads acad.lin's pattern.
	inch := newFixture(t)
	inch.ok(enginev1.ToolDrawingSettings, obj{"units": "in"})
	if l := inch.ok(enginev1.ToolLinetypeLoad, obj{"name": "CENTER"})["linetype"].(obj); js(l["pattern"]) != js([]any{1.25, -0.25, 0.25, -0.25}) {
		t.Errorf("CENTER in inches = %v, want acad.lin's", l["pattern"])
	}
}

// TestLayerVisibility: freeze, thaw, hide, show and isolate change the
// states layer_list reports, refuse what layer_modify refuses, and what
// they hide is absent from the SVG and PNG plots until shown again.
func TestLayerVisibility(t *testing.T) {
	f := newFixture(t)
	f.ok(enginev1.ToolLayerCreate, obj{"name": "A"})
	f.ok(enginev1.ToolLayerCreate, obj{"name": "B"})
	f.ok(enginev1.ToolEntityCreateCircle, obj{"cx": 50, "cy": 50, "radius": 10, "layer": "A"})
	f.ok(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 100, "y2": 0, "layer": "B"})
	f.ok(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 100, "x2": 100, "y2": 100})
	window := obj{"window": obj{"x1": -10, "y1": -10, "x2": 110, "y2": 110}, "width": 240}

	// check compares what the SVG and the PNG draw with want: A's
	// circle, B's line, 0's line.
	check := func(step string, want [3]bool) {
		t.Helper()
		s := exportOf(t, f, "svg")
		lines := 0
		for _, w := range want[1:] {
			if w {
				lines++
			}
		}
		if strings.Contains(s, "<circle") != want[0] || strings.Count(s, "<line") != lines {
			t.Errorf("%s: the SVG has %d circles and %d lines, want %v", step, strings.Count(s, "<circle"), strings.Count(s, "<line"), want)
		}
		v := render(t, f, window)
		if png := [3]bool{v.inked(60, 50), v.inked(50, 0), v.inked(50, 100)}; png != want {
			t.Errorf("%s: the PNG draws circle, B, 0 = %v, want %v", step, png, want)
		}
	}
	check("all on", [3]bool{true, true, true})

	f.ok(enginev1.ToolLayerFreeze, obj{"name": "A"})
	if l := layerStates(t, f)["A"]; l["frozen"] != true || l["on"] != true {
		t.Errorf("A after layer_freeze = %s", js(l))
	}
	check("A frozen", [3]bool{false, true, true})
	f.ok(enginev1.ToolLayerThaw, obj{"name": "A"})
	check("A thawed", [3]bool{true, true, true})

	f.ok(enginev1.ToolLayerHide, obj{"name": "A"})
	if l := layerStates(t, f)["A"]; l["on"] != false || l["frozen"] != false {
		t.Errorf("A after layer_hide = %s", js(l))
	}
	check("A off", [3]bool{false, true, true})
	f.ok(enginev1.ToolLayerShow, obj{"name": "A"})
	check("A on", [3]bool{true, true, true})

	// The current layer cannot be frozen; a missing layer fails, naming
	// its case variant.
	f.fail(enginev1.ToolLayerFreeze, obj{"name": "0"}, kindRefused)
	if err := f.fail(enginev1.ToolLayerHide, obj{"name": "a"}, kindFailed); !strings.Contains(err.GetMessage(), `"A"`) {
		t.Errorf("layer_hide of a missing layer: %v, want it to name A", err)
	}
	hash := f.info().ContentHash
	f.ok(enginev1.ToolLayerThaw, obj{"name": "A"})
	f.ok(enginev1.ToolLayerShow, obj{"name": "A"})
	if f.info().ContentHash != hash {
		t.Errorf("thawing a thawed layer and showing a shown one changed the document")
	}

	// Isolate turns the others off (not frozen), itself on and thawed,
	// and leaves the current layer current.
	f.ok(enginev1.ToolLayerFreeze, obj{"name": "B"})
	f.ok(enginev1.ToolLayerHide, obj{"name": "B"})
	res := f.ok(enginev1.ToolLayerIsolate, obj{"name": "B"})
	if got := names(res["hidden"]); !slices.Equal(got, []string{"0", "A"}) {
		t.Errorf("layer_isolate B hid %v, want [0 A]", got)
	}
	layers := layerStates(t, f)
	if layers["B"]["on"] != true || layers["B"]["frozen"] != false || layers["A"]["on"] != false || layers["A"]["frozen"] != false || layers["0"]["on"] != false {
		t.Errorf("layers after isolating B: %s", js(layers))
	}
	if f.info().CurrentLayer != "0" {
		t.Errorf("isolate changed the current layer to %s", f.info().CurrentLayer)
	}
	check("B isolated", [3]bool{false, true, false})
	f.ok(enginev1.ToolDocumentUndo, obj{"steps": 1})
	if layers := layerStates(t, f); layers["B"]["frozen"] != true || layers["A"]["on"] != true {
		t.Errorf("undo of layer_isolate: %s", js(layers))
	}
}

// TestDrawingSettings: read, change, export to the DXF header, import
// back, undo and redo, and survive a restart.
func TestDrawingSettings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cad.db")
	st, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(st, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc := newFixtureOn(t, e)
	f := doc
	defaults := obj{"units": "mm", "precision": 4.0, "dimscale": 1.0, "ltscale": 1.0, "text_height": 2.5}
	if got := f.ok(enginev1.ToolDrawingSettings, obj{}); js(got) != js(defaults) {
		t.Fatalf("drawing_settings of a new drawing = %s, want %s", js(got), js(defaults))
	}
	before := f.info()

	want := obj{"units": "in", "precision": 2.0, "dimscale": 48.0, "ltscale": 0.5, "text_height": 0.125}
	got := f.ok(enginev1.ToolDrawingSettings, obj{"units": "in", "precision": 2, "dimscale": 48, "ltscale": 0.5, "text_height": 0.125})
	if js(got) != js(want) {
		t.Errorf("drawing_settings = %s, want %s", js(got), js(want))
	}
	info := f.info()
	if info.Units != enginev1.Units_UNITS_IN || info.ContentHash == before.ContentHash || info.Revision != before.Revision+1 {
		t.Errorf("after the change: units %v, revision %d, hash changed %v; want in, %d, true", info.Units, info.Revision, info.ContentHash != before.ContentHash, before.Revision+1)
	}
	if got := f.ok(enginev1.ToolDrawingSettings, obj{"precision": 3}); got["precision"] != 3.0 || got["units"] != "in" || got["dimscale"] != 48.0 {
		t.Errorf("changing the precision alone = %s", js(got))
	}
	f.fail(enginev1.ToolDrawingSettings, obj{"precision": 9}, kindInvalid)
	f.fail(enginev1.ToolDrawingSettings, obj{"dimscale": 0}, kindInvalid)

	// The DXF header holds them, and an import reads them back.
	for _, version := range []string{"r12", "r2018"} {
		dxf := exportWith(t, f, "dxf", obj{"dxf_version": version})
		h := headerVars(t, dxf)
		wantVars := map[string]string{"$LUPREC": "3", "$DIMSCALE": "48.0", "$LTSCALE": "0.5", "$TEXTSIZE": "0.125"}
		if version == "r2018" {
			wantVars["$INSUNITS"] = "1"
		}
		for k, v := range wantVars {
			if h[k] != v {
				t.Errorf("%s: header %s = %q, want %q", version, k, h[k], v)
			}
		}
		out := ezdxftest.Run(t, `
import sys, ezdxf
doc = ezdxf.readfile(sys.argv[1])
print(doc.header.get("$LUPREC"), doc.header.get("$DIMSCALE"), doc.header.get("$LTSCALE"), doc.header.get("$TEXTSIZE"))
`, ezdxftest.File(t, "settings.dxf", dxf))
		if out != "" && out != "3 48.0 0.5 0.125\n" {
			t.Errorf("%s: ezdxf reads the header as %q", version, out)
		}
		back := importDXF(t, e, "back", dxf)
		if got := back.ok(enginev1.ToolDrawingSettings, obj{}); js(got) != js(obj{"units": "in", "precision": 3.0, "dimscale": 48.0, "ltscale": 0.5, "text_height": 0.125}) {
			t.Errorf("%s: the imported drawing's settings = %s", version, js(got))
		}
	}

	// Undo takes them back to the defaults and the hash to what it was
	// (every call is a revision, reads too, as a write tool's are: so
	// what undo and redo did is read with read-only tools, which keep
	// redo possible).
	f.ok(enginev1.ToolDocumentUndo, obj{"steps": f.info().Revision - before.Revision})
	if info := f.info(); info.ContentHash != before.ContentHash || info.Units != enginev1.Units_UNITS_MM {
		t.Errorf("after undo: units %v, hash %s; want mm, %s", info.Units, info.ContentHash, before.ContentHash)
	}
	if h := headerVars(t, exportOf(t, f, "dxf")); h["$LUPREC"] != "" || h["$INSUNITS"] != "4" {
		t.Errorf("after undo the DXF header has $LUPREC %q, $INSUNITS %q; want none and 4", h["$LUPREC"], h["$INSUNITS"])
	}
	f.ok(enginev1.ToolDocumentRedo, obj{"steps": 1})
	if h := headerVars(t, exportOf(t, f, "dxf")); h["$LUPREC"] != "2" || h["$INSUNITS"] != "1" || h["$DIMSCALE"] != "48.0" {
		t.Errorf("after redo the DXF header has $LUPREC %q, $INSUNITS %q, $DIMSCALE %q; want 2, 1, 48.0", h["$LUPREC"], h["$INSUNITS"], h["$DIMSCALE"])
	}
	if got := f.ok(enginev1.ToolDrawingSettings, obj{}); js(got) != js(want) {
		t.Errorf("after redo: %s, want %s", js(got), js(want))
	}

	// They survive a restart.
	wantNow := js(f.ok(enginev1.ToolDrawingSettings, obj{}))
	hash := f.info().ContentHash
	e.Close()
	st.Close()
	st, err = sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	f = &fixture{t: t, e: newEngine(t, st), doc: doc.doc}
	if got := js(f.ok(enginev1.ToolDrawingSettings, obj{})); got != wantNow || f.info().ContentHash != hash {
		t.Errorf("after a restart: %s (hash %s), want %s (%s)", got, f.info().ContentHash, wantNow, hash)
	}
}

// newFixtureOn is a fixture with a new document on e.
func newFixtureOn(t *testing.T, e *engine.Engine) *fixture {
	t.Helper()
	t.Cleanup(func() { e.Close() })
	res := callTool(t, e, "", enginev1.ToolDocumentCreate, obj{"name": "settings"})
	if !res.Ok {
		t.Fatalf("document_create: %v", res.Error)
	}
	return &fixture{t: t, e: e, doc: resultObj(res.ResultJson)["document"].(obj)["document_id"].(string)}
}
