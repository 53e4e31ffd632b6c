package dxf

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// sheetsDocument has a model-space line and three layouts: "Plan" (A3
// landscape) with a 1:50 window and a text, "Detail" (A4 portrait) with a
// 2:1 window, and "Empty" (a paper of its own size) with nothing.
func sheetsDocument() *drawing.Document {
	d := drawing.NewDocument("doc-0000000000000002", "sheets", enginev1.Units_UNITS_MM, time.Time{})
	d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: drawing.Line{A: geom.Pt(0, 0), B: geom.Pt(5000, 0)}})
	d.SetLayouts(&drawing.Layouts{List: []drawing.Layout{
		{Name: "Plan", Paper: "A3", Width: 420, Height: 297},
		{Name: "Detail", Paper: "A4", Width: 210, Height: 297},
		{Name: "Empty", Width: 1000, Height: 200},
	}})
	d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Layout: "Plan",
		Geom: drawing.NewViewport(10, 10, 300, 200, geom.Pt(2500, 0), 0.02, 2)})
	d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Layout: "Plan",
		Geom: drawing.Text{Text: "PLAN 1:50", P: geom.Pt(320, 20), Height: 5}})
	d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Layout: "Detail",
		Geom: drawing.NewViewport(20, 20, 100, 80, geom.Pt(10, 0), 2, 2)})
	return d
}

// sheetsScript prints what ezdxf reads of each layout: its name, paper,
// and its viewports' id, centre, size, view centre and view height, and
// the count of its other entities.
const sheetsScript = `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
out = []
for name in doc.layout_names_in_taborder():
    if name == "Model":
        continue
    l = doc.layouts.get(name)
    vps = [{"id": v.dxf.id, "c": [v.dxf.center[0], v.dxf.center[1]], "w": v.dxf.width, "h": v.dxf.height,
            "view": [v.dxf.view_center_point[0], v.dxf.view_center_point[1]], "vh": v.dxf.view_height}
           for v in l.viewports()]
    out.append({"name": name, "w": l.dxf_layout.dxf.paper_width, "h": l.dxf_layout.dxf.paper_height,
                "units": l.dxf_layout.dxf.plot_paper_units, "rot": l.dxf_layout.dxf.plot_rotation,
                "vps": vps, "others": sum(1 for e in l if e.dxftype() != "VIEWPORT"),
                "block": l.block_record_name})
print(json.dumps(out))
`

type ezdxfSheet struct {
	Name, Block string
	W, H        float64
	Units, Rot  int
	Others      int
	Vps         []struct {
		ID      int
		C, View []float64
		W, H    float64
		Vh      float64
	}
}

// TestEzdxfOpensSheets writes a document with three layouts; ezdxf must
// open it with a clean audit and find each layout, in tab order, on its
// paper, with its view of the paper (id 1) and its windows at their scale
// (view height = frame height / scale: 200 / 0.02 = 10000 at 1:50, 80 / 2
// = 40 at 2:1).
func TestEzdxfOpensSheets(t *testing.T) {
	content := Write2018(sheetsDocument())
	if counts := ezdxftest.Audit(t, content); counts == nil {
		return
	} else if counts["LINE"] != 1 || len(counts) != 1 {
		t.Errorf("ezdxf's model space = %v, want the one line", counts)
	}
	var got []ezdxfSheet
	out := ezdxftest.Run(t, sheetsScript, ezdxftest.File(t, "sheets.dxf", content))
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("ezdxf: %v\n%s", err, out)
	}
	want := []struct {
		name, block string
		w, h        float64
		others      int
		windows     [][4]float64 // centre x, y, view height, frame height
	}{
		{"Plan", "*Paper_Space", 420, 297, 1, [][4]float64{{160, 110, 10000, 200}}},
		{"Detail", "*Paper_Space0", 210, 297, 0, [][4]float64{{70, 60, 40, 80}}},
		{"Empty", "*Paper_Space1", 1000, 200, 0, nil},
	}
	if len(got) != len(want) {
		t.Fatalf("ezdxf reads layouts %+v, want %d", got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Name != w.name || g.Block != w.block || g.W != w.w || g.H != w.h || g.Units != 1 || g.Rot != 0 || g.Others != w.others {
			t.Errorf("layout %d = %+v, want %s (%s) on %g × %g mm with %d other entities", i, g, w.name, w.block, w.w, w.h, w.others)
		}
		if len(w.windows) == 0 { // no windows: no view of the paper is made
			if len(g.Vps) != 0 {
				t.Errorf("layout %s: viewports %+v, want none", w.name, g.Vps)
			}
			continue
		}
		if len(g.Vps) != 1+len(w.windows) {
			t.Errorf("layout %s: viewports %+v, want its paper's and %d windows", w.name, g.Vps, len(w.windows))
			continue
		}
		if p := g.Vps[0]; p.ID != 1 || p.W != w.w || p.H != w.h || p.C[0] != w.w/2 || p.C[1] != w.h/2 {
			t.Errorf("layout %s: first viewport %+v, want id 1 over the whole paper", w.name, p)
		}
		for j, win := range w.windows {
			v := g.Vps[1+j]
			scale := v.H / v.Vh
			if v.ID != 2 || v.C[0] != win[0] || v.C[1] != win[1] || math.Abs(v.Vh-win[2]) > 1e-9 || v.H != win[3] {
				t.Errorf("layout %s window %d = %+v, want id 2 centred (%g, %g), view height %g (scale %g)", w.name, j, v, win[0], win[1], win[2], scale)
			}
		}
	}

	// The engine reads back the same layouts and entities.
	back, err := importText(content)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := back.Layouts().List, sheetsDocument().Layouts().List; len(got) != len(want) {
		t.Fatalf("imported layouts %+v, want %+v", got, want)
	} else {
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("imported layout %d = %+v, want %+v", i, got[i], want[i])
			}
		}
	}
	on := map[string]int{}
	for _, e := range back.Entities() {
		on[e.Layout]++
	}
	// Each layout with windows gains its view of the paper (id 1).
	if on[""] != 1 || on["Plan"] != 3 || on["Detail"] != 2 || on["Empty"] != 0 {
		t.Errorf("imported entities by layout = %v", on)
	}
	// A second round trip keeps them.
	again, err := importText(Write2018(back))
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Entities()) != len(back.Entities()) || len(again.Layouts().List) != 3 {
		t.Errorf("second round trip: %d entities, %d layouts; want %d and 3", len(again.Entities()), len(again.Layouts().List), len(back.Entities()))
	}
}
