package e2e_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/cadbridge/cadbridge/internal/ezdxftest"
)

// sheetScript prints, as JSON, each paper-space layout ezdxf opens: its
// name, paper, and the view height and frame height of each viewport.
const sheetScript = `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
out = []
for name in doc.layout_names_in_taborder():
    if name == "Model":
        continue
    l = doc.layouts.get(name)
    out.append({"name": name, "w": l.dxf_layout.dxf.paper_width, "h": l.dxf_layout.dxf.paper_height,
                "vps": [[v.dxf.id, v.dxf.height, v.dxf.view_height] for v in l.viewports()],
                "lines": [[e.dxf.start[0], e.dxf.end[0]] for e in l.query("LINE")]})
print(json.dumps(out))
`

// TestLayoutsSheet drives the sheet tools through the built gateway and
// engine over HTTP: a 5 m wall (a millimetre drawing) shown on an A3
// sheet through a 1:50 viewport; the same wall moved to the sheet through
// it is 100 mm long there; the DXF export opens in ezdxf with the layout
// on its A3 paper and the viewport at 1:50 (view height = frame height ×
// 50), and imports back with the layout in its table; document_undo takes
// a layout_delete back.
func TestLayoutsSheet(t *testing.T) {
	gateway, _ := startServices(t)
	c := &httpClient{url: "http://" + gateway + "/rpc"}
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, 1, "document.create", map[string]any{"name": "plan", "units": "mm"}, &doc)
	d := doc.DocumentID

	var sheet struct {
		Name          string
		Width, Height float64
	}
	tool(t, c, 2, d, "layout_create", map[string]any{"name": "Plan A3", "paper": "a3"}, &sheet)
	if sheet.Name != "Plan A3" || sheet.Width != 420 || sheet.Height != 297 {
		t.Fatalf("layout_create = %+v, want Plan A3 on 420 × 297", sheet)
	}
	var vp struct {
		Handle string
		Factor float64
	}
	tool(t, c, 3, d, "viewport_create", map[string]any{"layout": "Plan A3", "x": 10, "y": 10, "width": 300, "height": 200,
		"center_x": 2500, "center_y": 0, "scale": "1:50"}, &vp)
	if vp.Factor != 0.02 {
		t.Errorf("viewport factor = %g, want 0.02 (1:50 in mm)", vp.Factor)
	}
	var wall struct{ Handle string }
	tool(t, c, 4, d, "entity_create_line", map[string]any{"x1": 0, "y1": 0, "x2": 5000, "y2": 0}, &wall)
	var title struct{ Handle string }
	tool(t, c, 5, d, "entity_create_text", map[string]any{"text": "PLAN 1:50", "x": 320, "y": 20, "height": 5, "layout": "plan a3"}, &title)

	var list struct {
		Entities []struct{ Handle string }
		Total    int
	}
	tool(t, c, 6, d, "entity_list", map[string]any{}, &list)
	if list.Total != 1 || list.Entities[0].Handle != wall.Handle {
		t.Errorf("model space lists %+v, want only the wall", list)
	}
	tool(t, c, 7, d, "entity_list", map[string]any{"layout": "Plan A3"}, &list)
	if list.Total != 2 {
		t.Errorf("the sheet lists %+v, want the viewport and the title", list)
	}

	var out struct {
		Content string `json:"content"`
	}
	mustCall(t, c, 8, "document.export", map[string]any{"document_id": d, "format": "dxf"}, &out)
	if got := ezdxftest.Audit(t, out.Content); got != nil && got["LINE"] != 1 {
		t.Errorf("ezdxf's model space = %v, want the wall", got)
	}
	var sheets []struct {
		Name  string
		W, H  float64
		Vps   [][3]float64
		Lines [][2]float64
	}
	if s := ezdxftest.Run(t, sheetScript, ezdxftest.File(t, "plan.dxf", out.Content)); s != "" {
		if err := json.Unmarshal([]byte(s), &sheets); err != nil {
			t.Fatalf("ezdxf: %v\n%s", err, s)
		}
		if len(sheets) != 1 || sheets[0].Name != "Plan A3" || sheets[0].W != 420 || sheets[0].H != 297 || len(sheets[0].Vps) != 2 {
			t.Fatalf("ezdxf opens layouts %+v, want Plan A3 on 420 × 297 with its paper's viewport and the window", sheets)
		}
		if w := sheets[0].Vps[1]; w[0] != 2 || w[1] != 200 || math.Abs(w[2]-10000) > 1e-9 || w[1]/w[2] != 0.02 {
			t.Errorf("ezdxf's window = %v, want id 2, 200 mm tall showing 10000 mm (1:50)", w)
		}
	}

	// The wall moved onto the sheet through the viewport: 100 mm long,
	// from (10 + 150 − 50, 110) to (10 + 150 + 50, 110).
	var moved struct {
		Handles []string
		Space   string
	}
	tool(t, c, 9, d, "entity_change_space", map[string]any{"handles": []string{wall.Handle}, "layout": "Plan A3"}, &moved)
	var line struct {
		Layout     string
		Start, End xy
	}
	tool(t, c, 10, d, "entity_get", map[string]any{"handle": wall.Handle}, &line)
	if moved.Space != "Plan A3" || line.Layout != "Plan A3" || line.Start != (xy{110, 110}) || line.End != (xy{210, 110}) {
		t.Errorf("entity_change_space = %+v; the wall = %+v, want (110, 110)–(210, 110) on Plan A3", moved, line)
	}
	mustCall(t, c, 11, "document.export", map[string]any{"document_id": d, "format": "dxf"}, &out)
	if s := ezdxftest.Run(t, sheetScript, ezdxftest.File(t, "moved.dxf", out.Content)); s != "" {
		if err := json.Unmarshal([]byte(s), &sheets); err != nil {
			t.Fatal(err)
		}
		if len(sheets) != 1 || len(sheets[0].Lines) != 1 || sheets[0].Lines[0][1]-sheets[0].Lines[0][0] != 100 {
			t.Errorf("ezdxf reads the sheet's lines %+v, want the 100 mm wall", sheets)
		}
	}

	// The export imports back with its layout, paper and all.
	var back struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, 12, "document.import", map[string]any{"name": "back", "format": "dxf", "content": out.Content}, &back)
	var layouts struct {
		Layouts []struct {
			Name, Paper         string
			Width, Height       float64
			Entities, Viewports int
		}
	}
	tool(t, c, 13, back.DocumentID, "layout_list", map[string]any{}, &layouts)
	if l := layouts.Layouts; len(l) != 1 || l[0].Name != "Plan A3" || l[0].Paper != "A3" || l[0].Width != 420 || l[0].Viewports != 1 || l[0].Entities != 4 {
		t.Errorf("imported layouts = %+v, want Plan A3 (A3) with its window, the paper's view, the title and the wall", l)
	}

	// layout_delete takes the sheet and what is on it; document_undo
	// brings them back.
	var del struct{ Count int }
	tool(t, c, 14, d, "layout_delete", map[string]any{"name": "Plan A3"}, &del)
	layouts.Layouts = nil // an empty list is left out of the result
	tool(t, c, 15, d, "layout_list", map[string]any{}, &layouts)
	if del.Count != 3 || len(layouts.Layouts) != 0 {
		t.Errorf("layout_delete = %+v, layouts %+v; want 3 entities and the layout gone", del, layouts.Layouts)
	}
	tool(t, c, 16, d, "document_undo", map[string]any{}, nil)
	tool(t, c, 17, d, "layout_list", map[string]any{}, &layouts)
	if len(layouts.Layouts) != 1 || layouts.Layouts[0].Entities != 3 {
		t.Errorf("after document_undo: %+v, want Plan A3 back with its 3 entities", layouts.Layouts)
	}
}
