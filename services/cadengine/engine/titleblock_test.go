package engine

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// sheetCall is a call on a new document with an A3 landscape layout
// "Sheet" and an A4 upright one "Tall", made directly in the drawing (the
// layout tools are another group's).
func sheetCall(t *testing.T) *call {
	t.Helper()
	d := drawing.NewDocument("doc", "d", enginev1.Units_UNITS_MM, time.Unix(0, 0))
	tx := drawing.NewTx(d, 0)
	tx.SetLayouts(d.Layouts().With(-1, drawing.Layout{Name: "Sheet", Paper: "A3", Width: 420, Height: 297}))
	tx.SetLayouts(d.Layouts().With(-1, drawing.Layout{Name: "Tall", Paper: "A4", Width: 210, Height: 297}))
	return &call{ctx: context.Background(), d: &document{Document: d}, tx: tx}
}

// TestTitleblockApply: the ISO title block on an A3 sheet is one insert
// of TITLEBLOCK_ISO_A3 on the layout, its frame 20 mm from the left edge
// and 10 mm from the others, the title block 180 × 36 mm in the frame's
// lower-right corner, the fields its attributes (the ones given set, the
// others empty), edited with block_attributes_set.
func TestTitleblockApply(t *testing.T) {
	c := sheetCall(t)
	res, err := titleblockApply(c, &enginev1.TitleblockApplyArgs{Layout: "sheet", Fields: map[string]string{"title": "Bracket", "Drawing_Number": "BR-001", "scale": "2:1"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Block != "TITLEBLOCK_ISO_A3" || res.Replaced {
		t.Errorf("titleblock_apply = %v, want block TITLEBLOCK_ISO_A3 replacing nothing", res)
	}
	e, g, err := c.insertOf("/handle", res.Handle)
	if err != nil {
		t.Fatal(err)
	}
	if e.Layout != "Sheet" || e.Layer != drawing.TitleblockLayer || g.P != (geom.Vec{}) || g.Scale != 1 {
		t.Errorf("insert on layout %q layer %q at %v scale %v, want Sheet, %s, the origin, 1", e.Layout, e.Layer, g.P, g.Scale, drawing.TitleblockLayer)
	}
	values := map[string]string{}
	for _, a := range g.Attribs {
		values[a.Tag] = a.Text.Text
	}
	if len(values) != len(drawing.TitleblockFields) {
		t.Errorf("%d attributes, want one for each of the %d fields: %v", len(values), len(drawing.TitleblockFields), values)
	}
	for tag, want := range map[string]string{"TITLE": "Bracket", "DRAWING_NUMBER": "BR-001", "SCALE": "2:1", "REVISION": "", "APPROVED_BY": "", "OWNER": ""} {
		if got, ok := values[tag]; !ok || got != want {
			t.Errorf("attribute %s = %q (%v), want %q", tag, got, ok, want)
		}
	}

	// The frame and the title block's outline, on the heavy layer.
	var boxes []geom.Box
	for _, be := range g.Def.Entities {
		if p, ok := be.Geom.(drawing.Polyline); ok && be.Layer == drawing.TitleblockBorderLayer {
			boxes = append(boxes, p.Bounds())
		}
	}
	frame := geom.Box{Min: geom.Pt(20, 10), Max: geom.Pt(410, 287), NonEmpty: true}
	block := geom.Box{Min: geom.Pt(230, 10), Max: geom.Pt(410, 46), NonEmpty: true}
	if len(boxes) != 2 || !sameBox(boxes[0], frame) || !sameBox(boxes[1], block) {
		t.Errorf("border outlines %v, want the frame %v and the title block %v", boxes, frame, block)
	}
	// The grid reference of an A3 frame: 8 × 6 fields, each numbered or
	// lettered on both sides.
	grid := map[string]int{}
	for _, be := range g.Def.Entities {
		if tx, ok := be.Geom.(drawing.Text); ok && tx.Height == 3.5 {
			grid[tx.Text]++
		}
	}
	for _, k := range []string{"1", "2", "3", "4", "5", "6", "7", "8", "A", "B", "C", "D", "E", "F"} {
		if grid[k] != 2 {
			t.Errorf("grid reference %s is marked %d times, want 2", k, grid[k])
		}
	}
	if len(grid) != 14 {
		t.Errorf("grid references %v, want 1–8 and A–F", grid)
	}
	if l := c.d.Layer(drawing.TitleblockBorderLayer); l == nil || l.Lineweight != 70 {
		t.Errorf("layer %s = %+v, want one of 0.7 mm", drawing.TitleblockBorderLayer, l)
	}
	// Each field's value sits inside its box, which is inside the title
	// block.
	for _, a := range g.Attribs {
		if !block.Overlaps(geom.Box{Min: a.Text.P, Max: a.Text.P, NonEmpty: true}) {
			t.Errorf("field %s at %v, outside the title block", a.Tag, a.Text.P)
		}
		if a.Tag == "TITLE" && a.Text.Height != 5 {
			t.Errorf("the title is %v mm tall, want 5", a.Text.Height)
		}
	}

	// Fields are edited as any insert's attributes.
	if _, err := blockAttributesSet(c, &enginev1.BlockAttributesSetArgs{Handle: res.Handle, Values: map[string]string{"revision": "B", "DATE": "2026-12-07"}}); err != nil {
		t.Fatal(err)
	}
	got, err := blockAttributesGet(c, &enginev1.BlockAttributesGetArgs{Handle: res.Handle})
	if err != nil {
		t.Fatal(err)
	}
	if got.Values["REVISION"] != "B" || got.Values["DATE"] != "2026-12-07" || got.Values["TITLE"] != "Bracket" {
		t.Errorf("after block_attributes_set: %v", got.Values)
	}

	// Applying again replaces it: one title block, the values not given
	// kept, those given changed.
	again, err := titleblockApply(c, &enginev1.TitleblockApplyArgs{Layout: "Sheet", Standard: new("ISO"), Fields: map[string]string{"title": "Bracket, welded"}})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Replaced || again.Handle != res.Handle {
		t.Errorf("applied again: %v, want the title block %s replaced in place", again, res.Handle)
	}
	n := 0
	for _, e := range c.d.Entities() {
		if _, ok := e.Geom.(drawing.Insert); ok && e.Layout == "Sheet" {
			n++
		}
	}
	got, _ = blockAttributesGet(c, &enginev1.BlockAttributesGetArgs{Handle: again.Handle})
	if n != 1 || got.Values["TITLE"] != "Bracket, welded" || got.Values["REVISION"] != "B" || got.Values["DRAWING_NUMBER"] != "BR-001" {
		t.Errorf("after applying again: %d title blocks, values %v", n, got.Values)
	}
}

func sameBox(a, b geom.Box) bool {
	return math.Abs(a.Min.X-b.Min.X)+math.Abs(a.Min.Y-b.Min.Y)+math.Abs(a.Max.X-b.Max.X)+math.Abs(a.Max.Y-b.Max.Y) < 1e-9
}

// TestTitleblockApplyUpright: on an A4 upright the 180 mm title block
// fills the frame's width, and the block is the portrait one.
func TestTitleblockApplyUpright(t *testing.T) {
	c := sheetCall(t)
	res, err := titleblockApply(c, &enginev1.TitleblockApplyArgs{Layout: "Tall"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Block != "TITLEBLOCK_ISO_A4_PORTRAIT" {
		t.Errorf("block %q, want TITLEBLOCK_ISO_A4_PORTRAIT", res.Block)
	}
}

func TestTitleblockApplyRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		args *enginev1.TitleblockApplyArgs
		path string
		says string
	}{
		{"unknown field", &enginev1.TitleblockApplyArgs{Layout: "Sheet", Fields: map[string]string{"titel": "x"}}, "/fields/titel", "drawing_number"},
		{"unknown layout", &enginev1.TitleblockApplyArgs{Layout: "A1"}, "/layout", "layout_create"},
		{"model space", &enginev1.TitleblockApplyArgs{Layout: "Model"}, "/layout", "model space"},
		{"unknown standard", &enginev1.TitleblockApplyArgs{Layout: "Sheet", Standard: new("ansi")}, "/standard", "iso"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := sheetCall(t)
			_, err := titleblockApply(c, tc.args)
			te, ok := asToolError(err)
			if !ok || te.pb.Kind != enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS || !strings.Contains(te.Error(), tc.says) {
				t.Fatalf("titleblock_apply = %v, want invalid args naming %q", err, tc.says)
			}
			if te.pb.GetPath() != tc.path {
				t.Errorf("path %q, want %s", te.pb.GetPath(), tc.path)
			}
		})
	}
	// A paper too small for the title block.
	c := sheetCall(t)
	c.tx.SetLayouts(c.d.Layouts().With(-1, drawing.Layout{Name: "A5", Paper: "A5", Width: 210, Height: 148}))
	c.tx.SetLayouts(c.d.Layouts().With(-1, drawing.Layout{Name: "Tiny", Width: 150, Height: 100}))
	if _, err := titleblockApply(c, &enginev1.TitleblockApplyArgs{Layout: "tiny"}); err == nil || !strings.Contains(err.Error(), "no room") {
		t.Errorf("titleblock_apply on a 150 × 100 sheet = %v, want no room", err)
	}
}
