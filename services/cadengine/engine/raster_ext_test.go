package engine_test

import (
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
)

// rasters is a DXF file with a WIPEOUT (a triangle clipped from its one
// pixel, 10 × 8 units) and an IMAGE (640 × 360 pixels of 0.01, the whole
// raster shown) whose IMAGEDEF, in the OBJECTS section, names its file;
// WIPEOUTVARIABLES there shows frames.
var rasters = strings.TrimSuffix(dxfFile("", "",
	"0\nWIPEOUT\n8\n0\n100\nAcDbWipeout\n10\n0\n20\n0\n11\n10\n21\n0\n12\n0\n22\n8\n13\n1\n23\n1\n"+
		"71\n2\n91\n4\n14\n-0.5\n24\n0.5\n14\n0.5\n24\n0.5\n14\n0\n24\n-0.5\n14\n-0.5\n24\n0.5\n"+
		"0\nIMAGE\n8\n0\n100\nAcDbRasterImage\n10\n20\n20\n0\n11\n0.01\n21\n0\n12\n0\n22\n0.01\n13\n640\n23\n360\n340\n2A0\n"),
	"0\nEOF\n") +
	"0\nSECTION\n2\nOBJECTS\n" +
	"0\nIMAGEDEF\n5\n2A0\n100\nAcDbRasterImageDef\n1\nplans/site.png\n10\n640\n20\n360\n" +
	"0\nWIPEOUTVARIABLES\n5\n2A1\n100\nAcDbWipeoutVariables\n70\n1\n" +
	"0\nENDSEC\n0\nEOF\n"

// TestRasters: wipeouts and images are native: listed with their
// boundary, placement and file, bounded by their boundary, moved, drawn
// (a wipeout as an area in the page's colour, without a frame; an image
// as its boundary), snapped to, and written back as themselves with the objects they
// need in 2018, as outlines in R12.
func TestRasters(t *testing.T) {
	e := newEngine(t, nil)
	f := importDXF(t, e, "rasters", rasters)
	ents := f.entities()
	if len(ents) != 2 || ents[0]["type"] != "wipeout" || ents[1]["type"] != "image" {
		t.Fatalf("entities = %s, want a wipeout and an image", js(ents))
	}
	w, im := ents[0], ents[1]
	if got := js(w["corners"]); got != `[{"x":0,"y":0},{"x":10,"y":0},{"x":5,"y":8}]` || w["wipeout_frame"] != true {
		t.Errorf("wipeout = %s, want the triangle (0, 0), (10, 0), (5, 8) with frames shown", js(w))
	}
	if got := js(im["corners"]); got != `[{"x":20,"y":3.6},{"x":26.4,"y":3.6},{"x":26.4,"y":0},{"x":20,"y":0}]` ||
		im["file_name"] != "plans/site.png" || js(im["image_size"]) != `{"x":640,"y":360}` || js(im["insertion"]) != `{"x":20,"y":0}` {
		t.Errorf("image = %s, want its whole raster at (20, 0)–(26.4, 3.6), file plans/site.png", js(im))
	}
	bb := f.ok(enginev1.ToolAnalysisBoundingBox, nil)
	if bb["min_x"] != 0.0 || bb["min_y"] != 0.0 || !near(bb["max_x"].(float64), 26.4) || bb["max_y"] != 8.0 {
		t.Errorf("bounding box = %v, want (0, 0)–(26.4, 8)", bb)
	}

	svg := exportOf(t, f, "svg")
	if !strings.Contains(svg, `data-type="wipeout"`) || !strings.Contains(svg, `fill="#ffffff" fill-rule="evenodd" stroke="none"`) || !strings.Contains(svg, `data-type="image"`) {
		t.Errorf("the SVG does not mask the wipeout's area in the page's colour or draw the image:\n%.1500s", svg)
	}
	if got := ezdxftest.Audit(t, exportOf(t, f, "dxf")); got != nil && (got["WIPEOUT"] != 1 || got["IMAGE"] != 1) {
		t.Errorf("ezdxf reads %v in the 2018 export, want a WIPEOUT and an IMAGE", got)
	}
	if got := ezdxftest.Audit(t, exportWith(t, f, "dxf", obj{"dxf_version": "r12"})); got != nil && got["POLYLINE"] != 2 {
		t.Errorf("ezdxf reads %v in the R12 export, want the two outlines as polylines", got)
	}
	back := importDXF(t, e, "back", exportOf(t, f, "dxf"))
	if got, want := back.info().ContentHash, f.info().ContentHash; got != want {
		t.Errorf("content hash after a round trip = %s, want %s", got, want)
	}

	// Snaps: a wipeout's corners and the middles of its edges.
	if p := f.ok(enginev1.ToolPointFromSnap, obj{"handle": w["handle"], "snap": "end", "ref_x": 9, "ref_y": 1}); !nearPt(xy(p), [2]float64{10, 0}) {
		t.Errorf("end snap near (9, 1) = %v, want the corner (10, 0)", p)
	}
	if p := f.ok(enginev1.ToolPointFromSnap, obj{"handle": im["handle"], "snap": "mid", "ref_x": 23, "ref_y": -1}); !nearPt(xy(p), [2]float64{23.2, 0}) {
		t.Errorf("mid snap near (23, -1) = %v, want the bottom edge's middle (23.2, 0)", p)
	}

	f.ok(enginev1.ToolEntityMove, obj{"handle": w["handle"], "dx": 1, "dy": 2})
	f.ok(enginev1.ToolEntityRotate, obj{"handle": im["handle"], "base_x": 20, "base_y": 0, "angle": 90})
	if got := js(f.get(w["handle"].(string))["corners"]); got != `[{"x":1,"y":2},{"x":11,"y":2},{"x":6,"y":10}]` {
		t.Errorf("moved wipeout's corners = %s, want the triangle moved by (1, 2)", got)
	}
	// Turned a quarter about its insertion point: its rows run up, the
	// corner that was at its top left at (16.4, 0).
	turned := f.get(im["handle"].(string))
	want := [][2]float64{{16.4, 0}, {16.4, 6.4}, {20, 6.4}, {20, 0}}
	c, _ := turned["corners"].([]any)
	ok := len(c) == len(want) && js(turned["insertion"]) == `{"x":20,"y":0}`
	for i := 0; ok && i < len(c); i++ {
		ok = nearPt(pt(c[i]), want[i])
	}
	if !ok {
		t.Errorf("turned image = %s, want corners %v", js(turned), want)
	}
}
