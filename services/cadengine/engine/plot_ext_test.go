package engine_test

import (
	"encoding/base64"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
)

// TestExportLayout: document_export with layout plots the sheet, in
// every format but DXF; what a layout plot cannot take is refused at
// its argument.
func TestExportLayout(t *testing.T) {
	f := newFixture(t)
	f.ok(enginev1.ToolLayoutCreate, obj{"name": "Sheet", "paper": "A4", "orientation": "portrait"})
	f.ok(enginev1.ToolViewportCreate, obj{"layout": "Sheet", "x": 20, "y": 60, "width": 180, "height": 200, "center_x": 0, "center_y": 0, "scale": "1:10"})
	f.handle(enginev1.ToolEntityCreateLine, obj{"x1": -500, "y1": 0, "x2": 500, "y2": 0})

	svg := f.ok(enginev1.ToolDocumentExport, obj{"format": "svg", "layout": "sheet"})["content"].(string)
	if !strings.Contains(svg, `viewBox="0 -297 210 297" width="210mm" height="297mm"`) {
		t.Errorf("the A4 upright sheet's SVG begins %.300s", svg)
	}
	// The 1 m line at 1:10 is 100 mm, centred on the frame's centre (110, 160).
	if !strings.Contains(svg, `x1="60" y1="-160" x2="160" y2="-160"`) {
		t.Error("the line is not drawn from (60, 160) to (160, 160) on the paper")
	}
	if model := f.ok(enginev1.ToolDocumentExport, obj{"format": "svg", "layout": "model"})["content"].(string); strings.Contains(model, "data-layout") || strings.Contains(model, `width="210mm"`) {
		t.Error(`layout "model" plotted a sheet, want model space`)
	}
	for _, format := range []string{"png", "pdf"} {
		res := f.ok(enginev1.ToolDocumentExport, obj{"format": format, "layout": "Sheet"})
		b, _ := base64.StdEncoding.DecodeString(res["data"].(string))
		if len(b) == 0 {
			t.Errorf("the %s plot is empty", format)
		}
	}
	for _, tc := range []struct {
		args obj
		path string
	}{
		{obj{"format": "dxf", "layout": "Sheet"}, "/layout"},
		{obj{"format": "svg", "layout": "Nowhere"}, "/layout"},
		{obj{"format": "svg", "layout": "Sheet", "options": obj{"paper": "a3"}}, "/options/paper"},
		{obj{"format": "pdf", "layout": "Sheet", "options": obj{"scale": 50}}, "/options/scale"},
	} {
		te := f.fail(enginev1.ToolDocumentExport, tc.args, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
		if te.GetPath() != tc.path {
			t.Errorf("document_export(%v): path %q, want %s", tc.args, te.GetPath(), tc.path)
		}
	}
}

// TestTitleblockDXF: a sheet with its title block is written to DXF as
// ezdxf reads and audits clean, the block's attribute definitions and
// the insert's values with it, and read back to the same drawing.
func TestTitleblockDXF(t *testing.T) {
	e := newEngine(t, nil)
	f := newFixture(t)
	f.ok(enginev1.ToolLayoutCreate, obj{"name": "Sheet", "paper": "A3"})
	f.ok(enginev1.ToolViewportCreate, obj{"layout": "Sheet", "x": 20, "y": 60, "width": 200, "height": 200, "center_x": 0, "center_y": 0, "scale": "1:1"})
	tb := f.ok(enginev1.ToolTitleblockApply, obj{"layout": "Sheet", "fields": obj{"title": "Plate", "drawing_number": "P-1"}})
	dxf := exportOf(t, f, "dxf")
	for _, want := range []string{"TITLEBLOCK_ISO_A3", "ATTDEF", "ATTRIB", "DRAWING_NUMBER", "P-1"} {
		if !strings.Contains(dxf, want) {
			t.Errorf("the DXF has no %s", want)
		}
	}
	ezdxftest.Audit(t, dxf)
	back := importDXF(t, e, "back", dxf)
	var found bool
	for _, l := range back.ok(enginev1.ToolEntityList, obj{"layout": "Sheet"})["entities"].([]any) {
		en := l.(map[string]any)
		if en["type"] != "insert" {
			continue
		}
		found = true
		vals := back.ok(enginev1.ToolBlockAttributesGet, obj{"handle": en["handle"]})["values"].(map[string]any)
		if vals["TITLE"] != "Plate" || vals["DRAWING_NUMBER"] != "P-1" {
			t.Errorf("read back, the title block %v has %v", tb["handle"], vals)
		}
	}
	if !found {
		t.Error("read back, layout Sheet has no title block")
	}
}
