package e2e_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/internal/ezdxftest"
)

// fillsDump prints what ezdxf reads of a file's MTEXT background and
// HATCH gradient.
const fillsDump = `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
out = {}
for e in doc.modelspace():
    if e.dxftype() == "MTEXT":
        out["bg"], out["bg_color"], out["bg_scale"] = e.dxf.get("bg_fill", 0), e.dxf.get("bg_fill_color", 0), e.dxf.get("box_fill_scale", 0)
    elif e.dxftype() == "HATCH" and e.gradient is not None:
        g = e.gradient
        out["gradient"], out["rotation"], out["c1"], out["c2"] = g.name, g.rotation, list(g.color1), list(g.color2)
print(json.dumps(out))
`

// TestFills drives text_set_background and hatch_set_gradient through the
// built gateway and engine over HTTP: a note masked in yellow and a
// plate filled red to blue; the SVG export draws the mask before the
// note and the gradient; the DXF export, read by ezdxf, has the
// background flags and the gradient, and imported again keeps both; a
// TEXT cannot be masked.
func TestFills(t *testing.T) {
	gateway, _ := startServices(t)
	d := &drafter{t: t, c: &httpClient{url: "http://" + gateway + "/rpc"}}
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, d.c, 1, "document.create", map[string]any{"name": "fills"}, &doc)
	d.doc, d.id = doc.DocumentID, 1

	note := d.ok("entity_create_mtext", map[string]any{"text": "NOTE", "x": 0, "y": 30, "height": 2.5})["handle"]
	d.ok("text_set_background", map[string]any{"handle": note, "color": 2, "scale": 1.2})
	plate := d.ok("entity_create_rectangle", map[string]any{"x1": 0, "y1": 0, "x2": 40, "y2": 20})["handle"]
	hatch := d.ok("hatch_create", map[string]any{"boundaries": []any{plate}})["handle"]
	d.ok("hatch_set_gradient", map[string]any{"handle": hatch, "color1": 1, "color2": 5, "angle": 90})
	g, _ := d.ok("entity_get", map[string]any{"handle": hatch})["hatch"].(map[string]any)["gradient"].(map[string]any)
	if g["name"] != "LINEAR" || g["color1"] != 1.0 || g["color2"] != 5.0 || g["angle"] != 90.0 || g["centered"] != true {
		t.Errorf("entity_get gradient = %v, want LINEAR 1 → 5 at 90°, centred", g)
	}

	var out struct {
		Content string `json:"content"`
	}
	d.id++
	mustCall(t, d.c, d.id, "document.export", map[string]any{"document_id": d.doc, "format": "svg"}, &out)
	// At 90° the gradient runs up the plate's middle: (20, 0) to (20, 20).
	if !regexp.MustCompile(`<linearGradient id="shade-[0-9a-f]+" gradientUnits="userSpaceOnUse" x1="20" y1="0" x2="20" y2="-20"><stop offset="0" stop-color="#ff0000"/><stop offset="1" stop-color="#0000ff"/>`).MatchString(out.Content) {
		t.Errorf("the SVG has no red-to-blue gradient up the plate:\n%s", out.Content)
	}
	if mask, text := strings.Index(out.Content, `fill="#ffff00"`), strings.Index(out.Content, ">NOTE</text>"); mask < 0 || text < mask {
		t.Errorf("the SVG has no yellow mask before the note")
	}

	d.id++
	mustCall(t, d.c, d.id, "document.export", map[string]any{"document_id": d.doc, "format": "dxf"}, &out)
	dxf := out.Content
	ezdxftest.Audit(t, dxf)
	if dump := ezdxftest.Run(t, fillsDump, ezdxftest.File(t, "fills.dxf", dxf)); dump != "" {
		var read map[string]any
		if err := json.Unmarshal([]byte(dump), &read); err != nil {
			t.Fatalf("ezdxf printed %s: %v", dump, err)
		}
		if read["bg"] != 1.0 || read["bg_color"] != 2.0 || read["bg_scale"] != 1.2 {
			t.Errorf("ezdxf reads the MTEXT's background as %v, want fill 1, colour 2, scale 1.2", read)
		}
		if read["gradient"] != "LINEAR" || read["rotation"] != 90.0 || !fillsJSONEqual(read["c1"], []int{255, 0, 0}) || !fillsJSONEqual(read["c2"], []int{0, 0, 255}) {
			t.Errorf("ezdxf reads the gradient as %v, want LINEAR at 90°, red to blue", read)
		}
	}

	var back importReport
	d.id++
	mustCall(t, d.c, d.id, "document.import", map[string]any{"name": "fills again", "format": "dxf", "content": dxf}, &back)
	d.doc = back.DocumentID
	list := d.ok("entity_list", map[string]any{"types": []any{"hatch"}})
	hatches, _ := list["entities"].([]any)
	if len(hatches) != 1 {
		t.Fatalf("entity_list hatches after import = %v", list)
	}
	again := d.ok("entity_get", map[string]any{"handle": hatches[0].(map[string]any)["handle"]})["hatch"].(map[string]any)["gradient"]
	if !fillsJSONEqual(again, g) {
		t.Errorf("the gradient imported again = %v, want %v", again, g)
	}

	text := d.ok("entity_create_text", map[string]any{"text": "plain", "x": 0, "y": 40})["handle"]
	if bad := d.call("text_set_background", map[string]any{"handle": text}); bad.OK || bad.Error.Kind != "failed" || !strings.Contains(bad.Error.Message, "MTEXT") {
		t.Errorf("text_set_background of a TEXT = %+v, want failed saying MTEXT only", bad)
	}
}

// fillsJSONEqual reports whether a and b marshal alike.
func fillsJSONEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
