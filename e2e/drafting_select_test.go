package e2e_test

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"testing"
)

// drafter calls tools on one document through the gateway.
type drafter struct {
	t   *testing.T
	c   client
	doc string
	id  int
}

// answer is a tools.call answer.
type answer struct {
	OK     bool           `json:"ok"`
	Result map[string]any `json:"result"`
	Error  struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
		Path    string `json:"path"`
	} `json:"error"`
}

func (d *drafter) call(tool string, args map[string]any) answer {
	d.t.Helper()
	d.id++
	var s answer
	mustCall(d.t, d.c, d.id, "tools.call", map[string]any{"document_id": d.doc, "tool": tool, "args": args}, &s)
	return s
}

// ok calls a tool that must succeed and returns its result.
func (d *drafter) ok(tool string, args map[string]any) map[string]any {
	d.t.Helper()
	s := d.call(tool, args)
	if !s.OK {
		d.t.Fatalf("%s(%v) failed: %+v", tool, args, s.Error)
	}
	return s.Result
}

func strs(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

// TestDraftingSelect drives the text, selection, measuring and block
// attribute tools through the built gateway and engine, over HTTP and a
// WebSocket: a part number set on every bolt and read back, a find and
// replace over texts and attribute values, a room's area from its
// corners, and the bolts inside the room selected by its outline.
func TestDraftingSelect(t *testing.T) {
	gateway, _ := startServices(t)
	clients := map[string]func(t *testing.T) client{
		"http":      func(t *testing.T) client { return &httpClient{url: "http://" + gateway + "/rpc"} },
		"websocket": func(t *testing.T) client { return dialWebSocket(t, gateway) },
	}
	for name, dial := range clients {
		t.Run(name, func(t *testing.T) {
			d := &drafter{t: t, c: dial(t)}
			var doc struct {
				DocumentID string `json:"document_id"`
			}
			mustCall(t, d.c, 1, "document.create", map[string]any{"name": "workshop"}, &doc)
			d.doc, d.id = doc.DocumentID, 1
			draftSelect(d)
		})
	}
}

func draftSelect(d *drafter) {
	t := d.t
	// A room 6 × 4 with a bay 2 × 1 on its top: 26 m².
	corners := []any{
		map[string]any{"x": 0, "y": 0}, map[string]any{"x": 6, "y": 0}, map[string]any{"x": 6, "y": 4},
		map[string]any{"x": 4, "y": 4}, map[string]any{"x": 4, "y": 5}, map[string]any{"x": 2, "y": 5},
		map[string]any{"x": 2, "y": 4}, map[string]any{"x": 0, "y": 4},
	}
	area := d.ok("analysis_measure_area", map[string]any{"points": corners})
	if math.Abs(area["area"].(float64)-26) > 1e-9 || math.Abs(area["perimeter"].(float64)-22) > 1e-9 {
		t.Errorf("room from its corners = %v, want area 26 and perimeter 22", area)
	}
	var vertices []any
	for _, c := range corners {
		vertices = append(vertices, c)
	}
	room := d.ok("entity_create_polyline", map[string]any{"points": vertices, "closed": true})["handle"].(string)
	if got := d.ok("analysis_measure_area", map[string]any{"handles": []any{room}}); math.Abs(got["area"].(float64)-26) > 1e-9 {
		t.Errorf("room's outline measures %v, want 26", got["area"])
	}

	// A bolt with a part number, placed four times: three in the room,
	// one outside.
	d.ok("block_define", map[string]any{"name": "BOLT",
		"entities":   []any{map[string]any{"type": "circle", "cx": 0, "cy": 0, "radius": 0.1}},
		"attributes": []any{map[string]any{"tag": "PARTNO", "prompt": "Part number", "default": "?", "x": 0.2, "y": 0, "height": 0.1}},
	})
	var bolts []string
	for i, at := range [][2]float64{{1, 1}, {3, 2}, {2.5, 4.5}, {9, 1}} {
		args := map[string]any{"name": "BOLT", "x": at[0], "y": at[1]}
		if i == 0 {
			args["attributes"] = map[string]any{"partno": "M8"}
		}
		bolts = append(bolts, d.ok("block_insert", args)["handle"].(string))
	}
	refs := strs(d.ok("block_references", map[string]any{"name": "BOLT"})["handles"])
	if !slices.Equal(refs, bolts) {
		t.Fatalf("block_references = %v, want %v", refs, bolts)
	}
	for i, h := range refs {
		d.ok("block_attributes_set", map[string]any{"handle": h, "values": map[string]any{"PartNo": fmt.Sprintf("DIN933-M8x%d", 20+10*i)}})
	}
	for i, h := range refs {
		got := d.ok("block_attributes_get", map[string]any{"handle": h})
		values, _ := json.Marshal(got["values"])
		if want := fmt.Sprintf(`{"PARTNO":"DIN933-M8x%d"}`, 20+10*i); string(values) != want {
			t.Errorf("bolt %s = %s, want %s", h, values, want)
		}
	}
	if s := d.call("block_attributes_set", map[string]any{"handle": refs[0], "values": map[string]any{"LENGTH": "20"}}); s.OK || s.Error.Kind != "invalid_args" || s.Error.Path != "/values/LENGTH" {
		t.Errorf("an unknown tag = %+v, want invalid_args at /values/LENGTH", s)
	}

	// Find and replace over texts and the bolts' values.
	note := d.ok("entity_create_text", map[string]any{"text": "All bolts din933, grade 8.8", "x": 0, "y": -2})
	other := d.ok("entity_create_text", map[string]any{"text": "Floor: screed", "x": 0, "y": -4})
	r := d.ok("text_find_replace", map[string]any{"find": "DIN933", "replace": "ISO 4017"})
	changed := append(slices.Clone(bolts), note["handle"].(string))
	slices.Sort(changed)
	if r["count"] != 5.0 || !slices.Equal(strs(r["handles"]), changed) {
		t.Errorf("text_find_replace = %v, want 5 occurrences in %v", r, changed)
	}
	if got := d.ok("entity_get", map[string]any{"handle": note["handle"]})["text"]; got != "All bolts ISO 4017, grade 8.8" {
		t.Errorf("the note reads %q", got)
	}
	if got := d.ok("entity_get", map[string]any{"handle": other["handle"]})["text"]; got != "Floor: screed" {
		t.Errorf("the other text reads %q", got)
	}
	if got := d.ok("block_attributes_get", map[string]any{"handle": bolts[3]})["values"].(map[string]any)["PARTNO"]; got != "ISO 4017-M8x50" {
		t.Errorf("the last bolt's part number = %v", got)
	}

	// Inside the room's outline: the bolts in it (the one in the bay
	// too) and the outline itself, which lies on the polygon's edge.
	sel := d.ok("selection_polygon", map[string]any{"points": corners, "mode": "inside"})
	if got, want := strs(sel["handles"]), append([]string{room}, bolts[:3]...); !slices.Equal(got, want) {
		t.Errorf("selection_polygon = %v, want the outline and the bolts %v", got, want)
	}
	inserts := d.ok("selection_filter", map[string]any{"types": []any{"insert"}})
	if got := strs(inserts["handles"]); !slices.Equal(got, bolts) {
		t.Errorf("selection_filter(insert) = %v, want %v", got, bolts)
	}
	stats := d.ok("analysis_entity_stats", map[string]any{})
	if stats["count"] != 7.0 || math.Abs(stats["total_length"].(float64)-22) > 1e-9 {
		t.Errorf("analysis_entity_stats = %v, want 7 entities, 22 long", stats)
	}
}
