package e2e_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/internal/ezdxftest"
)

// step is one tools.call's answer: ok, and the result as JSON.
type step struct {
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	} `json:"error"`
}

// tool calls a tool through the gateway and decodes its result into out.
func tool(t *testing.T, c client, id int, doc, name string, args map[string]any, out any) {
	t.Helper()
	var s step
	mustCall(t, c, id, "tools.call", map[string]any{"document_id": doc, "tool": name, "args": args}, &s)
	if !s.OK {
		t.Fatalf("%s(%v) failed: %+v", name, args, s.Error)
	}
	if out != nil {
		if err := json.Unmarshal(s.Result, out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

type xy struct{ X, Y float64 }

// TestDraftingCreate drives the drafting toolset through the built
// gateway and engine over HTTP: six bolt holes round a flange made by a
// polar array, each at its angle on the bolt circle (the 0° and 180°
// ones exactly); a spline through fit points exported to DXF and read
// back the same (and ezdxf reads it); a batch that binds an array's copies and moves them;
// a table whose cells keep their texts, exported as an ACAD_TABLE (ezdxf
// audits it clean) and imported back as a table with the same cells.
func TestDraftingCreate(t *testing.T) {
	gateway, _ := startServices(t)
	c := &httpClient{url: "http://" + gateway + "/rpc"}
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, 1, "document.create", map[string]any{"name": "flange"}, &doc)
	d := doc.DocumentID

	// The flange: an outer circle of radius 60, a bore of 20, and one bolt
	// hole of radius 5 on the bolt circle of radius 45, at 0°.
	tool(t, c, 2, d, "entity_create_circle", map[string]any{"cx": 100, "cy": 100, "radius": 60}, nil)
	tool(t, c, 3, d, "entity_create_circle", map[string]any{"cx": 100, "cy": 100, "radius": 20}, nil)
	var hole struct{ Handle string }
	tool(t, c, 4, d, "entity_create_circle", map[string]any{"cx": 145, "cy": 100, "radius": 5}, &hole)
	var arr struct {
		Handles []string
		Count   int
	}
	tool(t, c, 5, d, "entity_array_polar", map[string]any{"handles": []string{hole.Handle}, "cx": 100, "cy": 100, "count": 6}, &arr)
	if arr.Count != 5 || len(arr.Handles) != 5 {
		t.Fatalf("polar array = %+v, want 5 copies", arr)
	}
	for i, h := range append([]string{hole.Handle}, arr.Handles...) {
		var e struct {
			Type   string
			Center xy
			Radius float64
		}
		tool(t, c, 10+i, d, "entity_get", map[string]any{"handle": h}, &e)
		a := float64(i) * math.Pi / 3
		want := xy{100 + 45*math.Cos(a), 100 + 45*math.Sin(a)}
		if e.Type != "circle" || e.Radius != 5 || math.Hypot(e.Center.X-want.X, e.Center.Y-want.Y) > 1e-9 {
			t.Errorf("hole %d = %+v, want radius 5 at %v (%d°)", i, e, want, i*60)
		}
		if i == 3 && e.Center != (xy{55, 100}) {
			t.Errorf("hole at 180° = %v, want exactly (55, 100)", e.Center)
		}
	}
	var info struct {
		EntityCount int `json:"entity_count"`
	}
	mustCall(t, c, 20, "document.get", map[string]any{"document_id": d}, &info)
	if info.EntityCount != 8 {
		t.Errorf("entity count = %d, want 8 (two circles and six holes)", info.EntityCount)
	}

	// A spline through fit points, to DXF and back.
	fit := []map[string]any{{"x": 0, "y": 0}, {"x": 20, "y": 15}, {"x": 45, "y": -5}, {"x": 70, "y": 10}}
	var sp struct{ Handle string }
	tool(t, c, 30, d, "entity_create_spline", map[string]any{"fit_points": fit}, &sp)
	var made struct {
		Spline json.RawMessage `json:"spline"`
	}
	tool(t, c, 31, d, "entity_get", map[string]any{"handle": sp.Handle}, &made)
	var out struct {
		Content string `json:"content"`
	}
	mustCall(t, c, 32, "document.export", map[string]any{"document_id": d, "format": "dxf"}, &out)
	if !strings.Contains(out.Content, "\nSPLINE\n") {
		t.Fatal("the DXF export has no SPLINE")
	}
	if got := ezdxftest.Audit(t, out.Content); got != nil && (got["SPLINE"] != 1 || got["CIRCLE"] != 8) {
		t.Errorf("ezdxf reads %v, want the spline and eight circles", got)
	}
	var back struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, 33, "document.import", map[string]any{"name": "back", "format": "dxf", "content": out.Content}, &back)
	var list struct {
		Entities []struct {
			Type   string          `json:"type"`
			Spline json.RawMessage `json:"spline"`
		} `json:"entities"`
	}
	tool(t, c, 34, back.DocumentID, "entity_list", map[string]any{"types": []string{"spline"}}, &list)
	if len(list.Entities) != 1 || string(list.Entities[0].Spline) != string(made.Spline) {
		t.Errorf("splines read back = %+v, want the one exported: %s", list.Entities, made.Spline)
	}

	// A batch binds a rectangular array's copies and moves them together.
	var batch struct {
		OK      bool `json:"ok"`
		Results []struct {
			Status string `json:"status"`
			Result struct {
				Handles []string `json:"handles"`
			} `json:"result"`
		} `json:"results"`
	}
	mustCall(t, c, 40, "cad.batch", map[string]any{"document_id": d, "verbose": true, "steps": []any{
		map[string]any{"tool": "entity_create_point", "args": map[string]any{"x": 0, "y": 0}, "bind": "p"},
		map[string]any{"tool": "entity_array_rectangular", "args": map[string]any{"handles": []string{"$p"}, "rows": 2, "columns": 2, "row_spacing": 5, "column_spacing": 5}, "bind": "grid"},
		map[string]any{"tool": "entity_batch_modify", "args": map[string]any{"handles": []string{"$grid.handles.0", "$grid.handles.-1"}, "dx": 100}},
	}}, &batch)
	if !batch.OK || len(batch.Results) != 3 {
		t.Fatalf("batch = %+v, want three steps ok", batch)
	}
	grid := batch.Results[1].Result
	if len(grid.Handles) != 3 {
		t.Fatalf("array step = %+v, want three copies", batch.Results[1])
	}
	if moved := batch.Results[2].Result.Handles; len(moved) != 2 || moved[0] != grid.Handles[0] || moved[1] != grid.Handles[2] {
		t.Errorf("batch modify changed %v, want the first and last copies %v", moved, grid.Handles)
	}
	var last struct{ Location xy }
	tool(t, c, 41, d, "entity_get", map[string]any{"handle": grid.Handles[2]}, &last)
	if last.Location != (xy{105, 5}) {
		t.Errorf("copy (1, 1) moved = %v, want (105, 5)", last.Location)
	}

	// A table: a native entity whose cells keep their texts, to DXF and
	// back.
	var tab struct{ Handle string }
	tool(t, c, 50, d, "entity_create_table", map[string]any{"x": 0, "y": 200, "rows": 2, "columns": 2, "row_height": 8, "column_width": 25,
		"cells": []any{map[string]any{"row": 0, "column": 0, "text": "POS"}, map[string]any{"row": 1, "column": 1, "text": "M8"}}}, &tab)
	var te struct {
		Type  string          `json:"type"`
		Table json.RawMessage `json:"table"`
	}
	tool(t, c, 51, d, "entity_get", map[string]any{"handle": tab.Handle}, &te)
	const wantTable = `{"cells":[{"column":0,"column_span":1,"row":0,"row_span":1,"text":"POS","text_height":4},{"column":1,"column_span":1,"row":1,"row_span":1,"text":"M8","text_height":4}],"column_widths":[25,25],"row_heights":[8,8]}`
	if te.Type != "table" || compactJSON(t, te.Table) != wantTable {
		t.Errorf("table = %s %s, want a table %s", te.Type, te.Table, wantTable)
	}
	mustCall(t, c, 52, "document.export", map[string]any{"document_id": d, "format": "dxf"}, &out)
	if got := ezdxftest.Audit(t, out.Content); got != nil && got["ACAD_TABLE"] != 1 {
		t.Errorf("ezdxf reads %v, want the table's ACAD_TABLE", got)
	}
	mustCall(t, c, 53, "document.import", map[string]any{"name": "tables", "format": "dxf", "content": out.Content}, &back)
	var tables struct {
		Entities []struct {
			Table json.RawMessage `json:"table"`
		} `json:"entities"`
	}
	tool(t, c, 54, back.DocumentID, "entity_list", map[string]any{"types": []string{"table"}}, &tables)
	if len(tables.Entities) != 1 || compactJSON(t, tables.Entities[0].Table) != wantTable {
		t.Errorf("tables read back = %+v, want the one exported: %s", tables.Entities, wantTable)
	}
}
