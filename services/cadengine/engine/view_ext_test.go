package engine_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/dxftest"
)

// view is a view_render result with its picture decoded.
type view struct {
	res obj
	img image.Image
	win [4]float64 // x1, y1, x2, y2
	upp float64
}

func render(t *testing.T, f *fixture, args obj) view {
	t.Helper()
	res := f.ok(enginev1.ToolViewRender, args)
	if res["media_type"] != "image/png" {
		t.Fatalf("media_type = %v, want image/png", res["media_type"])
	}
	data, err := base64.StdEncoding.DecodeString(res["data"].(string))
	if err != nil {
		t.Fatalf("data is not base64: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("data is not a PNG: %v", err)
	}
	if b := img.Bounds(); float64(b.Dx()) != res["width"] || float64(b.Dy()) != res["height"] {
		t.Fatalf("the PNG is %d × %d, the result says %v × %v", b.Dx(), b.Dy(), res["width"], res["height"])
	}
	w := res["window"].(obj)
	return view{res: res, img: img, win: [4]float64{w["x1"].(float64), w["y1"].(float64), w["x2"].(float64), w["y2"].(float64)}, upp: res["units_per_pixel"].(float64)}
}

// at is the colour of the pixel at a world point.
func (v view) at(x, y float64) (r, g, b uint32) {
	px, py := int((x-v.win[0])/v.upp), int((v.win[3]-y)/v.upp)
	r, g, b, _ = v.img.At(px, py).RGBA()
	return r >> 8, g >> 8, b >> 8
}

// inked reports whether the pixel at a world point is not the white page.
func (v view) inked(x, y float64) bool {
	r, g, b := v.at(x, y)
	return r < 0xf0 || g < 0xf0 || b < 0xf0
}

// rows counts the inked pixels of the column at x within 10 pixels of y.
func (v view) rows(x, y float64) int {
	n := 0
	for i := -10; i <= 10; i++ {
		if v.inked(x, y+float64(i)*v.upp) {
			n++
		}
	}
	return n
}

// orange reports whether the pixel at a world point is the highlight's.
func (v view) orange(x, y float64) bool {
	r, g, b := v.at(x, y)
	return r > 0xe0 && g > 0x60 && g < 0xa0 && b < 0x30
}

// TestViewRender: a picture of model space, 768 px wide by default and
// proportioned like the drawing; a window shows that part (the entities
// outside it not counted); a width above 2048 is clamped and said so;
// highlighted entities are orange and the rest keep their colour; a layers
// filter leaves the others out (and shows a layer that is off); a layout
// shows its paper-space entities only; bad layers and handles fail
// typed.
func TestViewRender(t *testing.T) {
	f := newFixture(t)
	f.ok(enginev1.ToolLayerCreate, obj{"name": "L1"})
	f.ok(enginev1.ToolLayerCreate, obj{"name": "Hidden"})
	across := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 25, "x2": 200, "y2": 25})
	f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 75, "x2": 200, "y2": 75, "layer": "L1"})
	f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 150, "cy": 50, "radius": 10, "layer": "Hidden"})
	f.ok(enginev1.ToolLayerModify, obj{"name": "Hidden", "on": false})
	f.handle(enginev1.ToolEntityCreateRectangle, obj{"x1": 0, "y1": 0, "x2": 200, "y2": 100})

	all := render(t, f, obj{})
	if all.res["width"] != 768.0 || all.res["height"] != 399.0 || all.res["entities"] != 3.0 || all.res["clamped"] != false {
		t.Errorf("default view = %v × %v, %v entities, clamped %v; want 768 × 399 (like the drawing with a margin of 2%% of 200 on every side: 208 × 108), 3 (the off layer's circle left out), not clamped",
			all.res["width"], all.res["height"], all.res["entities"], all.res["clamped"])
	}
	if all.win[0] > 0 || all.win[1] > 0 || all.win[2] < 200 || all.win[3] < 100 {
		t.Errorf("default window = %v, want the extents (0, 0)–(200, 100) and a margin", all.win)
	}
	if !all.inked(100, 25) || !all.inked(100, 75) || all.inked(150, 60) || all.inked(100, 50) {
		t.Errorf("default view: line at y 25 inked %v, at y 75 %v, off circle %v, empty middle %v; want true, true, false, false",
			all.inked(100, 25), all.inked(100, 75), all.inked(150, 60), all.inked(100, 50))
	}

	win := render(t, f, obj{"window": obj{"x1": 100, "y1": 50, "x2": 0, "y2": 0}, "width": 400})
	if win.res["width"] != 400.0 || win.res["height"] != 200.0 || win.win != [4]float64{0, 0, 100, 50} || win.res["entities"] != 2.0 {
		t.Errorf("window view = %v × %v of %v, %v entities; want 400 × 200 of (0, 0)–(100, 50) (corners in any order), 2 (the line at y 75 outside)",
			win.res["width"], win.res["height"], win.win, win.res["entities"])
	}
	if !win.inked(50, 25) || win.inked(50, 37) {
		t.Errorf("window view: the line at y 25 inked %v, above it %v; want true, false", win.inked(50, 25), win.inked(50, 37))
	}
	if got := win.upp; !near(got, 0.25) {
		t.Errorf("units_per_pixel = %v, want 0.25 (100 units on 400 px)", got)
	}

	fixed := render(t, f, obj{"window": obj{"x1": 0, "y1": 0, "x2": 100, "y2": 50}, "width": 100, "height": 100})
	if fixed.win != [4]float64{0, -25, 100, 75} {
		t.Errorf("window 100 × 50 on 100 × 100 px shows %v, want it grown about its centre to (0, -25)–(100, 75)", fixed.win)
	}

	wide := render(t, f, obj{"width": 5000})
	if wide.res["width"] != 2048.0 || wide.res["height"] != 1063.0 || wide.res["clamped"] != true {
		t.Errorf("width 5000 = %v × %v, clamped %v; want 2048 × 1063, clamped", wide.res["width"], wide.res["height"], wide.res["clamped"])
	}

	lit := render(t, f, obj{"highlight": []any{across}})
	if lit.res["highlighted"] != 1.0 || all.res["highlighted"] != 0.0 {
		t.Errorf("highlighted = %v (plain %v), want 1 (0)", lit.res["highlighted"], all.res["highlighted"])
	}
	if !lit.orange(100, 25) || all.orange(100, 25) || lit.orange(100, 75) {
		t.Errorf("highlighted line orange %v (plain view %v), other line orange %v; want true, false, false",
			lit.orange(100, 25), all.orange(100, 25), lit.orange(100, 75))
	}
	// Heavier: the highlighted line covers more rows than the plain one.
	if thin, thick := all.rows(100, 25), lit.rows(100, 25); thick < thin+2 {
		t.Errorf("the line covers %d rows plain, %d highlighted; want at least 2 more highlighted", thin, thick)
	}

	some := render(t, f, obj{"layers": []any{"L1", "Hidden"}, "window": obj{"x1": 0, "y1": 0, "x2": 200, "y2": 100}})
	if some.res["entities"] != 2.0 || some.inked(100, 25) || !some.inked(100, 75) || !some.inked(150, 60) {
		t.Errorf("layers L1 and Hidden: %v entities, layer 0's line inked %v, L1's %v, Hidden's circle %v; want 2, false, true, true",
			some.res["entities"], some.inked(100, 25), some.inked(100, 75), some.inked(150, 60))
	}

	if te := f.fail(enginev1.ToolViewRender, obj{"layers": []any{"L1", "nope"}}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS); te.GetPath() != "/layers/1" {
		t.Errorf("unknown layer: path %q, want /layers/1", te.GetPath())
	}
	f.fail(enginev1.ToolViewRender, obj{"highlight": []any{"FFFF"}}, enginev1.ErrorKind_ERROR_KIND_FAILED)
	f.fail(enginev1.ToolViewRender, obj{"width": 8}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
}

// TestViewRenderLayout: a layout's view shows its paper-space entities,
// model space's does not.
func TestViewRenderLayout(t *testing.T) {
	e := newEngine(t, nil)
	f := importDXF(t, e, "paper", dxfFile("", "",
		"0\nLINE\n8\n0\n10\n0\n20\n0\n11\n10\n21\n10\n"+
			"0\nLINE\n8\n0\n67\n1\n10\n0\n20\n0\n11\n297\n21\n210\n"+
			"0\nCIRCLE\n8\n0\n67\n1\n10\n100\n20\n100\n40\n5\n"))
	model := render(t, f, obj{})
	paper := render(t, f, obj{"layout": "Layout1"})
	if model.res["entities"] != 1.0 || paper.res["entities"] != 2.0 {
		t.Errorf("model space shows %v entities, Layout1 %v; want 1 and 2", model.res["entities"], paper.res["entities"])
	}
	if paper.win[2] < 297 || model.win[2] > 20 {
		t.Errorf("windows: model %v, Layout1 %v; want each its own extents", model.win, paper.win)
	}
	if empty := render(t, f, obj{"layout": "Nowhere"}); empty.res["entities"] != 0.0 {
		t.Errorf("a layout without entities shows %v", empty.res["entities"])
	}
}

// TestViewRenderBounded: a view of a drawing whose inserts expand past
// the budget fails too_large, as the PNG export does.
func TestViewRenderBounded(t *testing.T) {
	f := importDXF(t, newEngine(t, nil), "bomb", dxftest.NestedBomb(10, 10))
	te := f.fail(enginev1.ToolViewRender, obj{}, enginev1.ErrorKind_ERROR_KIND_TOO_LARGE)
	if te.GetNeeded() != 1e10 {
		t.Errorf("too_large needed %d, want 1e10", te.GetNeeded())
	}
}
