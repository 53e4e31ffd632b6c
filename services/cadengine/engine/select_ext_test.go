package engine_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/dxftest"
)

// sortedHandles reads a result's handles (under key) as a sorted list.
func sortedHandles(r obj, key string) []string {
	out := []string{}
	hs, _ := r[key].([]any) // an empty list may be left out
	for _, h := range hs {
		out = append(out, h.(string))
	}
	slices.Sort(out)
	return out
}

func sorted(hs ...string) []string {
	out := append([]string{}, hs...)
	slices.Sort(out)
	return out
}

// TestTextEdit: a text's string, height and rotation change, what is not
// given stays; a multi-line text and an attribute definition edit alike;
// other entities and an empty edit fail.
func TestTextEdit(t *testing.T) {
	f := newFixture(t)
	txt := f.handle("entity_create_text", obj{"text": "KITCHEN", "x": 1, "y": 2, "height": 3})
	if got := f.ok("text_edit", obj{"handle": txt, "text": "LIVING"})["handle"]; got != txt {
		t.Errorf("text_edit result handle = %v, want %s", got, txt)
	}
	if e := f.get(txt); e["text"] != "LIVING" || e["height"] != 3.0 || e["rotation"] != 0.0 || !nearPt(pt(e["insertion"]), [2]float64{1, 2}) {
		t.Errorf("after text_edit(text): %s, want LIVING 3 high at (1, 2)", js(e))
	}
	f.ok("text_edit", obj{"handle": txt, "height": 5, "rotation": -90})
	if e := f.get(txt); e["text"] != "LIVING" || e["height"] != 5.0 || e["rotation"] != 270.0 {
		t.Errorf("after text_edit(height, rotation): %s, want LIVING 5 high at 270°", js(e))
	}
	mt := f.handle("entity_create_mtext", obj{"text": "a\nb", "x": 0, "y": 0})
	f.ok("text_edit", obj{"handle": mt, "text": "c\nd", "height": 4})
	if e := f.get(mt); e["text"] != "c\nd" || e["height"] != 4.0 {
		t.Errorf("mtext after text_edit: %s", js(e))
	}
	line := f.handle("entity_create_line", obj{"x1": 0, "y1": 0, "x2": 1, "y2": 0})
	f.fail("text_edit", obj{"handle": line, "text": "x"}, enginev1.ErrorKind_ERROR_KIND_FAILED)
	if e := f.fail("text_edit", obj{"handle": txt}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS); e.GetReason() != enginev1.ViolationReason_VIOLATION_REASON_MISSING {
		t.Errorf("an edit of nothing: %v, want missing", e)
	}
	f.fail("text_edit", obj{"handle": txt, "height": 0}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
}

// TestTextFindReplace: case-insensitive, not whole-word by default;
// match_case and whole_word narrow it; count is occurrences, handles the
// texts; a layer filter; a locked layer's text is skipped, not changed.
func TestTextFindReplace(t *testing.T) {
	type want struct {
		count   float64
		changed []string // keys of texts
		skipped bool     // the locked text
		texts   map[string]string
	}
	for _, tc := range []struct {
		name string
		args obj
		want want
	}{
		{"default", obj{"find": "m8", "replace": "M10"}, want{5, []string{"a", "b", "m"}, true, map[string]string{
			"a": "Bolt M10 x 20", "b": "M10 nut, M100 washer", "m": "M10\nM10", "locked": "M8 locked", "other": "none here"}}},
		{"match case", obj{"find": "m8", "replace": "M10", "match_case": true}, want{2, []string{"b", "m"}, false, map[string]string{
			"a": "Bolt M8 x 20", "b": "M10 nut, M80 washer", "m": "M8\nM10"}}},
		{"whole word", obj{"find": "M8", "replace": "M10", "whole_word": true}, want{4, []string{"a", "b", "m"}, true, map[string]string{
			"b": "M10 nut, M80 washer", "m": "M10\nM10"}}},
		{"layer", obj{"find": "m8", "replace": "X", "layer": "notes"}, want{2, []string{"b"}, false, map[string]string{"a": "Bolt M8 x 20", "b": "X nut, X0 washer"}}},
		{"replace with nothing", obj{"find": " x 20", "replace": ""}, want{1, []string{"a"}, false, map[string]string{"a": "Bolt M8"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.ok("layer_create", obj{"name": "notes"})
			f.ok("layer_create", obj{"name": "frozen-title"})
			h := map[string]string{
				"a":      f.handle("entity_create_text", obj{"text": "Bolt M8 x 20", "x": 0, "y": 0}),
				"b":      f.handle("entity_create_text", obj{"text": "m8 nut, M80 washer", "x": 0, "y": 5, "layer": "notes"}),
				"m":      f.handle("entity_create_mtext", obj{"text": "M8\nm8", "x": 0, "y": 10}),
				"other":  f.handle("entity_create_text", obj{"text": "none here", "x": 0, "y": 15}),
				"locked": f.handle("entity_create_text", obj{"text": "M8 locked", "x": 0, "y": 20, "layer": "frozen-title"}),
			}
			f.ok("layer_lock", obj{"name": "frozen-title"})
			before := f.info().Revision
			r := f.ok("text_find_replace", tc.args)
			if r["count"] != tc.want.count {
				t.Errorf("count = %v, want %v", r["count"], tc.want.count)
			}
			want := []string{}
			for _, k := range tc.want.changed {
				want = append(want, h[k])
			}
			if got := sortedHandles(r, "handles"); !slices.Equal(got, sorted(want...)) {
				t.Errorf("handles = %v, want %v", got, sorted(want...))
			}
			for k, text := range tc.want.texts {
				if got := f.get(h[k])["text"]; got != text {
					t.Errorf("%s's text = %q, want %q", k, got, text)
				}
			}
			wantSkipped := []string{}
			if tc.want.skipped {
				wantSkipped = []string{h["locked"]}
			}
			if got := sortedHandles(r, "skipped"); !slices.Equal(got, wantSkipped) {
				t.Errorf("skipped = %v, want %v", got, wantSkipped)
			}
			if after := f.info().Revision; (after > before) != (tc.want.count > 0) {
				t.Errorf("revision %d → %d with %v replaced", before, after, tc.want.count)
			}
		})
	}
}

// selectionDrawing is a drawing to select from: a U-shaped room and what
// lies in, across and out of it.
func selectionDrawing(t *testing.T) (*fixture, map[string]string) {
	f := newFixture(t)
	f.ok("layer_create", obj{"name": "walls", "color": 1})
	f.ok("layer_create", obj{"name": "hidden"})
	h := map[string]string{
		"short":    f.handle("entity_create_line", obj{"x1": 1, "y1": 1, "x2": 3, "y2": 1}),
		"long":     f.handle("entity_create_line", obj{"x1": 1, "y1": 3, "x2": 9, "y2": 3, "layer": "walls"}),
		"across":   f.handle("entity_create_line", obj{"x1": 2, "y1": 8, "x2": 8, "y2": 8, "color": 3}),
		"circle":   f.handle("entity_create_circle", obj{"cx": 5, "cy": 2, "radius": 1}),
		"bulging":  f.handle("entity_create_circle", obj{"cx": 5, "cy": 3.5, "radius": 1.5, "layer": "walls"}),
		"arcout":   f.handle("entity_create_arc", obj{"cx": 5, "cy": 2, "radius": 3, "start_angle": 30, "end_angle": 150}),
		"square":   f.handle("entity_create_rectangle", obj{"x1": 7, "y1": 5, "x2": 9, "y2": 7, "linetype": "DASHED"}),
		"outside":  f.handle("entity_create_line", obj{"x1": 20, "y1": 0, "x2": 30, "y2": 0}),
		"text":     f.handle("entity_create_text", obj{"text": "ROOM", "x": 1, "y": 5, "height": 0.5}),
		"point":    f.handle("entity_create_point", obj{"x": 2, "y": 2}),
		"ellipse":  f.handle("entity_create_ellipse", obj{"cx": 2, "cy": 5, "major_x": 0, "major_y": 4, "ratio": 0.25}),
		"onhidden": f.handle("entity_create_line", obj{"x1": 1, "y1": 2, "x2": 2, "y2": 2, "layer": "hidden"}),
	}
	f.ok("layer_modify", obj{"name": "hidden", "on": false})
	return f, h
}

// uRoom is a U: the notch from x 4 to 6 comes down from y 10 to y 4.
var uRoom = []any{
	obj{"x": 0, "y": 0}, obj{"x": 10, "y": 0}, obj{"x": 10, "y": 10}, obj{"x": 6, "y": 10},
	obj{"x": 6, "y": 4}, obj{"x": 4, "y": 4}, obj{"x": 4, "y": 10}, obj{"x": 0, "y": 10},
}

// TestSelectionPolygon: inside takes what lies wholly in the U (an arc
// whose ends are inside but whose middle runs up into the notch is not),
// crossing also what crosses its edge; a layer that is off is not
// selectable; a polygon that crosses itself is refused.
func TestSelectionPolygon(t *testing.T) {
	f, h := selectionDrawing(t)
	keys := func(ks ...string) []string {
		var out []string
		for _, k := range ks {
			out = append(out, h[k])
		}
		return sorted(out...)
	}
	inside := keys("short", "long", "circle", "square", "text", "point", "ellipse")
	if got := sortedHandles(f.ok("selection_polygon", obj{"points": uRoom}), "handles"); !slices.Equal(got, inside) {
		t.Errorf("inside = %v, want %v", got, inside)
	}
	if got := sortedHandles(f.ok("selection_polygon", obj{"points": uRoom, "mode": "inside"}), "handles"); !slices.Equal(got, inside) {
		t.Errorf("mode inside = %v, want %v", got, inside)
	}
	crossing := keys("short", "long", "across", "circle", "bulging", "arcout", "square", "text", "point", "ellipse")
	r := f.ok("selection_polygon", obj{"points": uRoom, "mode": "crossing"})
	if got := sortedHandles(r, "handles"); !slices.Equal(got, crossing) || r["count"] != float64(len(crossing)) {
		t.Errorf("crossing = %v (count %v), want %v", got, r["count"], crossing)
	}
	bowtie := []any{obj{"x": 0, "y": 0}, obj{"x": 2, "y": 2}, obj{"x": 2, "y": 0}, obj{"x": 0, "y": 2}}
	f.fail("selection_polygon", obj{"points": bowtie}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
	line := []any{obj{"x": 0, "y": 0}, obj{"x": 1, "y": 1}, obj{"x": 2, "y": 2}}
	f.fail("selection_polygon", obj{"points": line}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
	f.fail("selection_polygon", obj{"points": uRoom[:2]}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
}

// TestSelectionFilter: each filter alone and together.
func TestSelectionFilter(t *testing.T) {
	f, h := selectionDrawing(t)
	for _, tc := range []struct {
		name string
		args obj
		want []string
	}{
		{"types", obj{"types": []any{"circle", "arc"}}, []string{"circle", "bulging", "arcout"}},
		{"layer, any case", obj{"layers": []any{"WALLS"}}, []string{"long", "bulging"}},
		{"colour", obj{"color": 3}, []string{"across"}},
		{"linetype", obj{"linetype": "dashed"}, []string{"square"}},
		// Lengths: short 2, long 8, across 6, circle 2π, bulging 3π,
		// arcout 2π, square 8, outside 10, the ellipse about 17.2.
		{"length", obj{"min_length": 6, "max_length": 8}, []string{"long", "across", "circle", "arcout", "square"}},
		{"area", obj{"min_area": 3.5}, []string{"bulging", "square", "ellipse"}},
		{"area and type", obj{"min_area": 3.5, "types": []any{"circle"}}, []string{"bulging"}},
		{"window", obj{"window": obj{"min_x": 0, "min_y": 0, "max_x": 4, "max_y": 4}}, []string{"short", "point"}},
		{"everything", obj{}, []string{"short", "long", "across", "circle", "bulging", "arcout", "square", "outside", "text", "point", "ellipse"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want []string
			for _, k := range tc.want {
				want = append(want, h[k])
			}
			r := f.ok("selection_filter", tc.args)
			if got := sortedHandles(r, "handles"); !slices.Equal(got, sorted(want...)) {
				t.Errorf("selection_filter(%v) = %v, want %v", tc.args, got, sorted(want...))
			}
		})
	}
	f.fail("selection_filter", obj{"min_area": 5, "max_area": 1}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
	f.fail("selection_filter", obj{"layers": []any{"nope"}}, enginev1.ErrorKind_ERROR_KIND_FAILED)
}

// TestMeasureArea: a room from its corners; closed entities added up,
// a closed polyline's arcs exact; an open one fails, naming it.
func TestMeasureArea(t *testing.T) {
	f := newFixture(t)
	room := []any{obj{"x": 0, "y": 0}, obj{"x": 5, "y": 0}, obj{"x": 5, "y": 4}, obj{"x": 2, "y": 4}, obj{"x": 2, "y": 6}, obj{"x": 0, "y": 6}}
	r := f.ok("analysis_measure_area", obj{"points": room})
	if !near(r["area"].(float64), 24) || !near(r["perimeter"].(float64), 22) {
		t.Errorf("room: %s, want area 24, perimeter 22", js(r))
	}
	// A stadium: 10 × 4 with half circles of radius 2 at both ends.
	stadium := f.handle("entity_create_polyline", obj{"closed": true, "points": []any{
		obj{"x": 0, "y": 0}, obj{"x": 10, "y": 0, "bulge": 1}, obj{"x": 10, "y": 4}, obj{"x": 0, "y": 4, "bulge": 1},
	}})
	circle := f.handle("entity_create_circle", obj{"cx": 50, "cy": 0, "radius": 3})
	ellipse := f.handle("entity_create_ellipse", obj{"cx": 0, "cy": 50, "major_x": 4, "major_y": 0, "ratio": 0.5})
	r = f.ok("analysis_measure_area", obj{"handles": []any{stadium, circle, ellipse, stadium}})
	wantArea := 40 + 4*math.Pi + 9*math.Pi + 8*math.Pi
	if !near(r["area"].(float64), wantArea) {
		t.Errorf("area = %v, want %v", r["area"], wantArea)
	}
	items := r["items"].([]any)
	if len(items) != 3 || items[0].(obj)["handle"] != stadium || !near(items[0].(obj)["perimeter"].(float64), 20+4*math.Pi) {
		t.Errorf("items = %s, want the stadium (perimeter 20 + 4π), the circle and the ellipse, each once", js(items))
	}
	line := f.handle("entity_create_line", obj{"x1": 0, "y1": 0, "x2": 1, "y2": 0})
	if e := f.fail("analysis_measure_area", obj{"handles": []any{circle, line}}, enginev1.ErrorKind_ERROR_KIND_FAILED); !strings.Contains(e.GetMessage(), line) {
		t.Errorf("error %q does not name %s", e.GetMessage(), line)
	}
	f.fail("analysis_measure_area", obj{}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
	f.fail("analysis_measure_area", obj{"points": room, "handles": []any{circle}}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
}

// TestEntityAndLayerStats: counts by type and layer, lengths, extents;
// paper space is not counted.
func TestEntityAndLayerStats(t *testing.T) {
	f := newFixture(t)
	f.ok("layer_create", obj{"name": "walls"})
	f.ok("layer_create", obj{"name": "empty"})
	f.ok("entity_create_line", obj{"x1": 0, "y1": 0, "x2": 3, "y2": 4, "layer": "walls"})
	f.ok("entity_create_line", obj{"x1": 10, "y1": 0, "x2": 10, "y2": 2, "layer": "walls"})
	f.ok("entity_create_circle", obj{"cx": 0, "cy": 0, "radius": 1})
	f.ok("entity_create_text", obj{"text": "x", "x": 0, "y": 0})
	s := f.ok("analysis_entity_stats", obj{})
	if s["count"] != 4.0 || !near(s["total_length"].(float64), 7+2*math.Pi) {
		t.Errorf("stats = %s, want 4 entities, length 7 + 2π", js(s))
	}
	if got := js(s["by_type"]); got != `[{"count":2,"type":"line"},{"count":1,"type":"circle"},{"count":1,"type":"text"}]` {
		t.Errorf("by_type = %s", got)
	}
	if got := js(s["by_layer"]); got != `[{"count":2,"layer":"0"},{"count":2,"layer":"walls"}]` {
		t.Errorf("by_layer = %s", got)
	}
	l := f.ok("analysis_layer_stats", obj{})
	layers := map[string]obj{}
	for _, v := range l["layers"].([]any) {
		layers[v.(obj)["name"].(string)] = v.(obj)
	}
	if len(layers) != 3 {
		t.Fatalf("layers = %s, want 0, empty and walls", js(l))
	}
	w := layers["walls"]
	if w["count"] != 2.0 || !near(w["length"].(float64), 7) || js(w["extents"]) != `{"max_x":10,"max_y":4,"min_x":0,"min_y":0}` {
		t.Errorf("walls = %s, want 2 lines 7 long within (0, 0)–(10, 4)", js(w))
	}
	if e := layers["empty"]; e["count"] != 0.0 || e["extents"] != nil {
		t.Errorf("empty = %s, want no entities and no extents", js(e))
	}
}

// TestSelectionPolygonBounded: ten levels of ten inserts (10^10 lines):
// a polygon around their extents, or apart from them, selects without
// expanding them; one that cuts through them would have to look at the
// lines, and answers too_large. None of this is timed: unbounded work
// would hang the test.
func TestSelectionPolygonBounded(t *testing.T) {
	e := newEngine(t, nil)
	f := importDXF(t, e, "bomb", dxftest.NestedBomb(10, 10))
	top := f.ok(enginev1.ToolEntityList, nil)["entities"].([]any)[0].(obj)["handle"].(string)
	around := []any{obj{"x": -1000, "y": -1000}, obj{"x": 5000, "y": -1000}, obj{"x": -1000, "y": 5000}}
	for _, mode := range []string{"inside", "crossing"} {
		if got := sortedHandles(f.ok("selection_polygon", obj{"points": around, "mode": mode}), "handles"); !slices.Contains(got, top) {
			t.Errorf("%s a polygon around everything: %v, want %s among them", mode, got, top)
		}
	}
	apart := []any{obj{"x": -100, "y": -100}, obj{"x": -50, "y": -100}, obj{"x": -75, "y": -50}}
	if got := sortedHandles(f.ok("selection_polygon", obj{"points": apart, "mode": "crossing"}), "handles"); len(got) != 0 {
		t.Errorf("a polygon apart from everything selects %v", got)
	}
	through := []any{obj{"x": 0.5, "y": -1}, obj{"x": 0.6, "y": -1}, obj{"x": 0.55, "y": 100}}
	f.fail("selection_polygon", obj{"points": through, "mode": "crossing"}, enginev1.ErrorKind_ERROR_KIND_TOO_LARGE)
}
