package engine_test

import (
	"slices"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// boltDrawing defines a block BOLT (a circle, attributes PARTNO of
// default M8 at (3, 0) and MASS) and places it three times, the second
// turned 90° at twice the size with its part number given.
func boltDrawing(t *testing.T) (*fixture, []string) {
	f := newFixture(t)
	r := f.ok("block_define", obj{"name": "BOLT",
		"entities": []any{obj{"type": "circle", "cx": 0, "cy": 0, "radius": 2}},
		"attributes": []any{
			obj{"tag": "partno", "prompt": "Part number", "default": "M8", "x": 3, "y": 0, "height": 2},
			obj{"tag": "MASS", "x": 3, "y": -3},
		},
	})
	if r["count"] != 3.0 {
		t.Fatalf("block_define = %s, want 3 entities (the circle and two attribute definitions)", js(r))
	}
	return f, []string{
		f.handle("block_insert", obj{"name": "BOLT", "x": 100, "y": 50}),
		f.handle("block_insert", obj{"name": "BOLT", "x": 200, "y": 50, "rotation": 90, "scale": 2, "attributes": obj{"PartNo": "M12"}}),
		f.handle("block_insert", obj{"name": "BOLT", "x": 300, "y": 50}),
	}
}

// TestBlockAttributes: values from block_insert or the defaults, placed
// as the insert places the block; read back, set by tag (case ignored),
// an unknown tag failing with its name and path; find/replace reaches
// them; block_references finds every insert.
func TestBlockAttributes(t *testing.T) {
	f, bolts := boltDrawing(t)
	g := f.ok("block_attributes_get", obj{"handle": bolts[0]})
	if js(g["values"]) != `{"MASS":"","PARTNO":"M8"}` || g["block"] != "BOLT" || g["handle"] != bolts[0] {
		t.Errorf("first bolt = %s, want the defaults", js(g))
	}
	if a := g["attributes"].([]any)[0].(obj); a["tag"] != "PARTNO" || a["prompt"] != "Part number" || a["value"] != "M8" {
		t.Errorf("PARTNO = %s, want its prompt and default", js(a))
	}
	if a := g["attributes"].([]any)[1].(obj); a["prompt"] != "MASS" {
		t.Errorf("MASS's prompt = %v, want its tag", a["prompt"])
	}
	// The second: PARTNO given, at (3, 0) turned 90° and doubled.
	e := f.get(bolts[1])
	at := e["attributes"].([]any)[0].(obj)
	if at["text"] != "M12" || !nearPt(pt(at["insertion"]), [2]float64{200, 56}) || at["height"] != 4.0 || at["rotation"] != 90.0 {
		t.Errorf("second bolt's PARTNO = %s, want M12 at (200, 56), 4 high, at 90°", js(at))
	}

	// A part number on every bolt, in one batch, by reference.
	steps := []*enginev1.BatchStep{st("block_references", obj{"name": "BOLT"}, "refs")}
	for i := range bolts {
		steps = append(steps, st("block_attributes_set", obj{"handle": "$refs.handles." + string(rune('0'+i)), "values": obj{"partno": "DIN933-M8x" + string(rune('2'+i)) + "0", "Mass": "12 g"}}))
	}
	if b := f.batch(f.batchReq(steps...)); b.Status != enginev1.BatchStatus_BATCH_STATUS_COMPLETED {
		t.Fatalf("batch = %v: %v", b.Status, b.Results)
	}
	for i, h := range bolts {
		want := `{"MASS":"12 g","PARTNO":"DIN933-M8x` + string(rune('2'+i)) + `0"}`
		if got := js(f.ok("block_attributes_get", obj{"handle": h})["values"]); got != want {
			t.Errorf("bolt %d = %s, want %s", i, got, want)
		}
	}

	before := f.info()
	err := f.fail("block_attributes_set", obj{"handle": bolts[0], "values": obj{"PARTNO": "x", "LENGTH": "20"}}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
	if err.GetPath() != "/values/LENGTH" || !strings.Contains(err.GetMessage(), `"LENGTH"`) || !strings.Contains(err.GetMessage(), "PARTNO, MASS") {
		t.Errorf("unknown tag: %v at %q, want it named at /values/LENGTH with the block's tags", err.GetMessage(), err.GetPath())
	}
	if after := f.info(); after.ContentHash != before.ContentHash {
		t.Errorf("a failed set changed the document")
	}
	if err := f.fail("block_insert", obj{"name": "BOLT", "x": 0, "y": 0, "attributes": obj{"a/b": "x"}}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS); err.GetPath() != "/attributes/a~1b" {
		t.Errorf("block_insert's unknown tag at %q, want /attributes/a~1b", err.GetPath())
	}
	f.fail("block_attributes_set", obj{"handle": bolts[0], "values": obj{}}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
	line := f.handle("entity_create_line", obj{"x1": 0, "y1": 0, "x2": 1, "y2": 0})
	f.fail("block_attributes_get", obj{"handle": line}, enginev1.ErrorKind_ERROR_KIND_FAILED)

	// Find and replace reaches the values.
	r := f.ok("text_find_replace", obj{"find": "din933", "replace": "ISO4017"})
	if r["count"] != 3.0 || !slices.Equal(sortedHandles(r, "handles"), sorted(bolts...)) {
		t.Errorf("text_find_replace = %s, want 3 in the bolts", js(r))
	}
	if got := f.ok("block_attributes_get", obj{"handle": bolts[2]})["values"].(obj)["PARTNO"]; got != "ISO4017-M8x40" {
		t.Errorf("after the replace, PARTNO = %v", got)
	}

	// Exploding keeps the visible values as text.
	x := f.ok("block_explode", obj{"handle": bolts[0]})
	texts := 0
	for _, h := range x["handles"].([]any) {
		if e := f.get(h.(string)); e["type"] == "text" && e["text"] == "ISO4017-M8x20" {
			texts++
		}
	}
	if texts != 1 {
		t.Errorf("exploded bolt: %d texts ISO4017-M8x20, want 1", texts)
	}
	refs := f.ok("block_references", obj{"name": "BOLT"})
	if got := sortedHandles(refs, "handles"); !slices.Equal(got, sorted(bolts[1:]...)) || refs["count"] != 2.0 {
		t.Errorf("block_references = %s, want the two left", js(refs))
	}
	f.fail("block_references", obj{"name": "NUT"}, enginev1.ErrorKind_ERROR_KIND_FAILED)
}

// TestBlockDefineAttributes: tags are unique in a block, whatever their
// case; a block may be only attributes; an imported block's definitions
// count (see TestAttributes' BOLT).
func TestBlockDefineAttributes(t *testing.T) {
	f := newFixture(t)
	err := f.fail("block_define", obj{"name": "B", "attributes": []any{obj{"tag": "A", "x": 0, "y": 0}, obj{"tag": "a", "x": 0, "y": 1}}}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
	if err.GetPath() != "/attributes/1/tag" {
		t.Errorf("duplicate tag at %q, want /attributes/1/tag", err.GetPath())
	}
	f.fail("block_define", obj{"name": "B", "attributes": []any{obj{"tag": "TWO WORDS", "x": 0, "y": 0}}}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
	f.ok("block_define", obj{"name": "TAG", "attributes": []any{obj{"tag": "ROOM", "default": "101", "x": 0, "y": 0}}})
	in := f.handle("block_insert", obj{"name": "TAG", "x": 5, "y": 5})
	if got := js(f.ok("block_attributes_get", obj{"handle": in})["values"]); got != `{"ROOM":"101"}` {
		t.Errorf("values = %s", got)
	}

	e := newEngine(t, nil)
	g := importDXF(t, e, "bolts", strings.Replace(bolts, "0\nSECTION\n2\nENTITIES\n", boltBlock+"0\nSECTION\n2\nENTITIES\n", 1))
	h := g.entities()[0]["handle"].(string)
	got := g.ok("block_attributes_get", obj{"handle": h})
	if js(got["values"]) != `{"MASS":"12 g","PARTNO":"M10"}` || got["attributes"].([]any)[1].(obj)["invisible"] != true {
		t.Errorf("imported bolt = %s", js(got))
	}
	g.ok("block_attributes_set", obj{"handle": h, "values": obj{"partno": "M16"}})
	if got := g.get(h)["attributes"].([]any)[0].(obj); got["text"] != "M16" || !nearPt(pt(got["insertion"]), [2]float64{103, 50}) {
		t.Errorf("PARTNO after the set = %s, want M16 where it was", js(got))
	}
}
