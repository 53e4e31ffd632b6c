package e2e_test

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestSheets draws a sheet through the built gateway and engine as a
// user would: an A3 layout with a 1:50 viewport on model space, a title
// block filled in and edited, and the sheet plotted to SVG, PDF and PNG
// with document_export's layout; it measures the plots on their paper.
//
// The viewport's frame is 200 × 150 mm with its lower-left corner at
// (20, 20) on the paper, centred on the model point (2500, 0): a model
// point p plots at (p − (2500, 0)) / 50 + (120, 95).
func TestSheets(t *testing.T) {
	gateway, _ := startServices(t)
	d := &drafter{t: t, c: &httpClient{url: "http://" + gateway + "/rpc"}}
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, d.c, 1, "document.create", map[string]any{"name": "sheets"}, &doc)
	d.doc, d.id = doc.DocumentID, 1

	d.ok("layout_create", map[string]any{"name": "Sheet", "paper": "A3"})
	vp := d.ok("viewport_create", map[string]any{"layout": "Sheet", "x": 20, "y": 20, "width": 200, "height": 150, "center_x": 2500, "center_y": 0, "scale": "1:50"})["handle"].(string)
	line := d.ok("entity_create_line", map[string]any{"x1": 0, "y1": 0, "x2": 5000, "y2": 0})["handle"].(string)
	off := d.ok("entity_create_circle", map[string]any{"cx": 9000, "cy": 0, "radius": 500})["handle"].(string)
	across := d.ok("entity_create_line", map[string]any{"x1": 5000, "y1": 1000, "x2": 12000, "y2": 1000})["handle"].(string)
	d.ok("layer_create", map[string]any{"name": "cold"})
	cold := d.ok("entity_create_circle", map[string]any{"cx": 2500, "cy": 0, "radius": 500, "layer": "cold"})["handle"].(string)
	d.ok("layer_modify", map[string]any{"name": "cold", "frozen": true})

	tb := d.ok("titleblock_apply", map[string]any{"layout": "Sheet", "fields": map[string]any{"title": "Sheet test", "scale": "1:50"}})
	if tb["block"] != "TITLEBLOCK_ISO_A3" {
		t.Errorf("titleblock_apply = %v, want block TITLEBLOCK_ISO_A3", tb)
	}
	d.ok("block_attributes_set", map[string]any{"handle": tb["handle"], "values": map[string]any{"drawing_number": "E2E-1"}})
	got := d.ok("block_attributes_get", map[string]any{"handle": tb["handle"]})["values"].(map[string]any)
	if got["TITLE"] != "Sheet test" || got["DRAWING_NUMBER"] != "E2E-1" || got["REVISION"] != "" {
		t.Errorf("the title block's fields = %v", got)
	}
	if s := d.call("titleblock_apply", map[string]any{"layout": "Sheet", "fields": map[string]any{"titel": "x"}}); s.OK || s.Error.Kind != "invalid_args" || !strings.Contains(s.Error.Message, "drawing_number") {
		t.Errorf("titleblock_apply with an unknown field = %+v, want invalid_args listing the fields", s)
	}

	// SVG: the paper in millimetres; the line 100 mm long in its
	// coordinates; the window clipped to its frame; what is off the
	// window or frozen absent.
	svg := d.ok("document_export", map[string]any{"format": "svg", "layout": "Sheet"})["content"].(string)
	els := sheetElements(t, svg)
	if r := els[0]; r.attrs["width"] != "420mm" || r.attrs["height"] != "297mm" || r.attrs["viewBox"] != "0 -297 420 297" {
		t.Errorf("<svg width=%q height=%q viewBox=%q>, want A3 landscape in mm", r.attrs["width"], r.attrs["height"], r.attrs["viewBox"])
	}
	by := map[string][]sheetElement{}
	var clip []sheetElement
	for i, e := range els {
		by[e.attrs["data-handle"]] = append(by[e.attrs["data-handle"]], e)
		if e.name == "clipPath" && e.attrs["id"] == "vp-"+vp {
			clip = els[i+1 : i+2]
		}
	}
	if len(clip) != 1 || clip[0].attrs["x"] != "20" || clip[0].attrs["y"] != "-170" || clip[0].attrs["width"] != "200" || clip[0].attrs["height"] != "150" {
		t.Errorf("the viewport's clip path is %v, want a 200 × 150 rect at (20, -170)", clip)
	}
	if l := by[line]; len(l) != 1 || sheetLength(t, l[0]) != 100 || l[0].clip != "url(#vp-"+vp+")" {
		t.Errorf("the 5000 mm line at 1:50 is drawn as %v, want one line 100 mm long, clipped by the viewport", l)
	}
	if a := by[across]; len(a) != 1 || a[0].clip != "url(#vp-"+vp+")" {
		t.Errorf("the line across the frame is drawn as %v, want it clipped by the viewport", a)
	}
	if len(by[off]) > 0 || len(by[cold]) > 0 || strings.Contains(svg, `data-layer="cold"`) {
		t.Error("the circle off the window, or the frozen layer, is in the plot")
	}
	if ins := by[tb["handle"].(string)]; len(ins) != 1 || ins[0].clip != "" || !strings.Contains(svg, ">Sheet test</text>") || !strings.Contains(svg, ">E2E-1</text>") {
		t.Errorf("the title block is drawn as %v; its title and number shown: %v", ins, strings.Contains(svg, ">Sheet test</text>"))
	}

	// PDF: an A3 page in points.
	pdf := sheetData(t, d.ok("document_export", map[string]any{"format": "pdf", "layout": "Sheet"}))
	m := regexp.MustCompile(`/MediaBox\s*\[\s*0 0 ([0-9.]+) ([0-9.]+)\s*\]`).FindSubmatch(pdf)
	if m == nil {
		t.Fatal("the PDF has no MediaBox")
	}
	w, _ := strconv.ParseFloat(string(m[1]), 64)
	h, _ := strconv.ParseFloat(string(m[2]), 64)
	if math.Abs(w-1190.55) > 0.01 || math.Abs(h-841.89) > 0.01 {
		t.Errorf("the PDF page is %v × %v pt, want 1190.55 × 841.89", w, h)
	}

	// PNG at 150 dpi: the line across the frame inked inside it, the
	// page bare just outside it.
	pic := sheetData(t, d.ok("document_export", map[string]any{"format": "png", "layout": "Sheet"}))
	img, err := png.Decode(bytes.NewReader(pic))
	if err != nil {
		t.Fatal(err)
	}
	if s := img.Bounds().Size(); s.X != 2480 || s.Y != 1754 {
		t.Errorf("the PNG is %v pixels, want 2480 × 1754", s)
	}
	ink := func(x, y float64) bool {
		k := 150 / 25.4
		px, py := int(x*k), int((297-y)*k)
		for dx := -2; dx <= 2; dx++ {
			for dy := -2; dy <= 2; dy++ {
				if r, g, b, _ := img.At(px+dx, py+dy).RGBA(); r < 0xf000 || g < 0xf000 || b < 0xf000 {
					return true
				}
			}
		}
		return false
	}
	if !ink(200, 115) || ink(250, 115) || ink(260, 95) {
		t.Errorf("PNG: ink inside the frame %v (want true), outside %v and %v (want false)", ink(200, 115), ink(250, 115), ink(260, 95))
	}

	// A layout is no DXF argument; an unknown one is named.
	if s := d.call("document_export", map[string]any{"format": "dxf", "layout": "Sheet"}); s.OK || s.Error.Kind != "invalid_args" || s.Error.Path != "/layout" {
		t.Errorf("document_export dxf with a layout = %+v, want invalid_args at /layout", s)
	}
	if s := d.call("document_export", map[string]any{"format": "svg", "layout": "A9"}); s.OK || s.Error.Kind != "invalid_args" || s.Error.Path != "/layout" || !strings.Contains(s.Error.Message, "layout_list") {
		t.Errorf("document_export of an unknown layout = %+v, want invalid_args at /layout pointing at layout_list", s)
	}
}

// sheetElement is an element of an SVG with the innermost clip path of
// its ancestors.
type sheetElement struct {
	name  string
	attrs map[string]string
	clip  string
}

func sheetElements(t *testing.T, s string) []sheetElement {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(s))
	var out []sheetElement
	stack := []string{""}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("the SVG does not parse: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			e := sheetElement{name: tok.Name.Local, attrs: map[string]string{}, clip: stack[len(stack)-1]}
			for _, a := range tok.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			out = append(out, e)
			c := e.clip
			if v := e.attrs["clip-path"]; v != "" {
				c = v
			}
			stack = append(stack, c)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
}

// sheetLength is a <line>'s length in the SVG's coordinates.
func sheetLength(t *testing.T, e sheetElement) float64 {
	t.Helper()
	var v [4]float64
	for i, k := range []string{"x1", "y1", "x2", "y2"} {
		f, err := strconv.ParseFloat(e.attrs[k], 64)
		if err != nil {
			t.Fatalf("<%s %s=%q>", e.name, k, e.attrs[k])
		}
		v[i] = f
	}
	return math.Round(math.Hypot(v[2]-v[0], v[3]-v[1])*1e9) / 1e9
}

// sheetData is an export's file, base64 in the JSON result.
func sheetData(t *testing.T, res map[string]any) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(res["data"].(string))
	if err != nil {
		t.Fatalf("export data: %v", err)
	}
	return b
}
