package engine_test

import (
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// text_set_background masks an MTEXT (drawn behind it in the export,
// written as DXF's 90/63/45), changes its fingerprint, and enabled false
// takes it away to the fingerprint it had; a TEXT fails, saying MTEXT.
func TestTextSetBackground(t *testing.T) {
	f := newFixture(t)
	m := f.handle(enginev1.ToolEntityCreateMtext, obj{"text": "NOTE", "x": 0, "y": 0, "height": 2})
	plain := f.get(m)["fingerprint"]
	f.ok(enginev1.ToolTextSetBackground, obj{"handle": m, "color": 2, "scale": 2})
	if f.get(m)["fingerprint"] == plain {
		t.Errorf("a background left the fingerprint as it was")
	}
	svg := exportOf(t, f, "svg")
	if mask, text := strings.Index(svg, `fill="#ffff00"`), strings.Index(svg, ">NOTE</text>"); mask < 0 || text < mask {
		t.Errorf("no yellow mask before the text in the SVG:\n%s", svg)
	}
	got := map[int]string{}
	in := false
	for _, p := range parseDXF(t, exportOf(t, f, "dxf")) {
		if p.code == 0 {
			in = p.value == "MTEXT"
		}
		if v := strings.TrimSpace(p.value); in && (p.code == 90 || p.code == 63 || p.code == 45) {
			got[p.code] = v
		}
	}
	if got[90] != "1" || got[63] != "2" || got[45] != "2.0" {
		t.Errorf("the DXF's MTEXT has background codes %v, want 90 1, 63 2, 45 2.0", got)
	}
	// The page's colour without a colour.
	f.ok(enginev1.ToolTextSetBackground, obj{"handle": m})
	if svg := exportOf(t, f, "svg"); strings.Contains(svg, `fill="#ffff00"`) || !strings.Contains(svg, `fill="#ffffff" stroke="none"`) {
		t.Errorf("a mask in the page's colour is not white, or the yellow stayed")
	}
	f.ok(enginev1.ToolTextSetBackground, obj{"handle": m, "enabled": false})
	if got := f.get(m)["fingerprint"]; got != plain {
		t.Errorf("fingerprint after enabled false = %v, want %v as before", got, plain)
	}
	txt := f.handle(enginev1.ToolEntityCreateText, obj{"text": "t", "x": 0, "y": 0})
	if e := f.fail(enginev1.ToolTextSetBackground, obj{"handle": txt}, enginev1.ErrorKind_ERROR_KIND_FAILED); !strings.Contains(e.GetMessage(), "MTEXT") {
		t.Errorf("on a TEXT: %q, want it to say MTEXT only", e.GetMessage())
	}
	f.fail(enginev1.ToolTextSetBackground, obj{"handle": m, "scale": 9}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
}

// hatch_set_gradient fills a hatch with a gradient that entity_get shows
// and the SVG draws; hatch_edit with a pattern takes it away.
func TestHatchSetGradient(t *testing.T) {
	f := newFixture(t)
	c := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 5})
	h := f.handle(enginev1.ToolHatchCreate, obj{"boundaries": []any{c}, "pattern": "ANSI31"})
	plain := f.get(h)["fingerprint"]
	f.ok(enginev1.ToolHatchSetGradient, obj{"handle": h, "color1": 1, "color2": 5, "angle": 90, "centered": false, "name": "invSpherical"})
	hatch := f.get(h)["hatch"].(obj)
	g, _ := hatch["gradient"].(obj)
	if hatch["pattern"] != "SOLID" || g == nil || g["name"] != "INVSPHERICAL" || g["color1"] != 1.0 || g["color2"] != 5.0 || g["angle"] != 90.0 || g["centered"] == true {
		t.Errorf("entity_get hatch = %v, want SOLID with an INVSPHERICAL gradient 1 → 5 at 90°, not centred", hatch)
	}
	if svg := exportOf(t, f, "svg"); !strings.Contains(svg, "<radialGradient") || !strings.Contains(svg, `stop-color="#ff0000"`) {
		t.Errorf("the SVG has no radial gradient with red in it")
	}
	// One colour: no color2, a tint.
	f.ok(enginev1.ToolHatchSetGradient, obj{"handle": h, "color1": 3})
	if g := f.get(h)["hatch"].(obj)["gradient"].(obj); g["color2"] != nil || g["tint"] != 1.0 || g["name"] != "LINEAR" || g["centered"] != true {
		t.Errorf("one-colour gradient = %v, want LINEAR, tint 1, centred, no color2", g)
	}
	f.fail(enginev1.ToolHatchSetGradient, obj{"handle": h, "color1": 3, "name": "RADIAL"}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
	if e := f.fail(enginev1.ToolHatchSetGradient, obj{"handle": c, "color1": 3}, enginev1.ErrorKind_ERROR_KIND_FAILED); !strings.Contains(e.GetMessage(), "not a hatch") {
		t.Errorf("on a circle: %q", e.GetMessage())
	}
	f.ok(enginev1.ToolHatchEdit, obj{"handle": h, "pattern": "ANSI31"})
	if got := f.get(h); got["fingerprint"] != plain || got["hatch"].(obj)["gradient"] != nil {
		t.Errorf("after hatch_edit ANSI31: %v, want the plain hatch back", got["hatch"])
	}
}
