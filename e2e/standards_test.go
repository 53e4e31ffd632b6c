package e2e_test

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestStandards drives the standards tools through the built gateway and
// engine: the ISO layer template applied, a linetype loaded, a layer
// frozen, the drawing's settings changed, and the DXF and SVG exports
// checked for each.
func TestStandards(t *testing.T) {
	gateway, _ := startServices(t)
	d := &drafter{t: t, c: &httpClient{url: "http://" + gateway + "/rpc"}}
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, d.c, 1, "document.create", map[string]any{"name": "flange"}, &doc)
	d.doc, d.id = doc.DocumentID, 1

	applied := d.ok("template_apply_layers", map[string]any{"template": "ISO"})
	if got := strs(applied["created"]); len(got) != 9 || !slices.Contains(got, "OUTLINE") || !slices.Contains(got, "CENTER") {
		t.Fatalf("template_apply_layers iso created %v", got)
	}
	loaded := d.ok("linetype_load", map[string]any{"name": "center2"})
	if loaded["loaded"] != true {
		t.Errorf("linetype_load center2 = %v", loaded)
	}
	d.ok("layer_set_current", map[string]any{"name": "OUTLINE"})
	d.ok("entity_create_rectangle", map[string]any{"x1": 0, "y1": 0, "x2": 80, "y2": 40})
	d.ok("entity_create_circle", map[string]any{"cx": 40, "cy": 20, "radius": 10, "layer": "CENTER"})
	d.ok("layer_freeze", map[string]any{"name": "CENTER"})
	if s := d.call("layer_freeze", map[string]any{"name": "OUTLINE"}); s.OK || s.Error.Kind != "refused" {
		t.Errorf("freezing the current layer = %+v, want refused", s)
	}
	settings := d.ok("drawing_settings", map[string]any{"ltscale": 0.5, "dimscale": 10, "precision": 2})
	if settings["units"] != "mm" || settings["ltscale"] != 0.5 || settings["dimscale"] != 10.0 || settings["text_height"] != 2.5 {
		t.Errorf("drawing_settings = %v", settings)
	}

	dxf := d.ok("document_export", map[string]any{"format": "dxf"})["content"].(string)
	ltypes, layers, header := standardsTables(t, dxf)
	// acadiso.lin: *CENTER2 A,19.05,-3.175,3.175,-3.175 (loaded, used by
	// nothing); *CENTER A,31.75,-6.35,6.35,-6.35 (layer CENTER's).
	for name, want := range map[string][]float64{"CENTER2": {19.05, -3.175, 3.175, -3.175}, "CENTER": {31.75, -6.35, 6.35, -6.35}} {
		if !slices.EqualFunc(ltypes[name], want, func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }) {
			t.Errorf("LTYPE %s = %v, want %v", name, ltypes[name], want)
		}
	}
	if l := layers["CENTER"]; l["70"]&1 == 0 || l["370"] != 25 {
		t.Errorf("LAYER CENTER = %v, want frozen (70 & 1) and lineweight 25", l)
	}
	if l := layers["OUTLINE"]; l["70"]&1 != 0 || l["370"] != 50 {
		t.Errorf("LAYER OUTLINE = %v, want thawed and lineweight 50", l)
	}
	for k, v := range map[string]string{"$LTSCALE": "0.5", "$DIMSCALE": "10.0", "$LUPREC": "2", "$INSUNITS": "4"} {
		if header[k] != v {
			t.Errorf("header %s = %q, want %q", k, header[k], v)
		}
	}

	svg := d.ok("document_export", map[string]any{"format": "svg"})["content"].(string)
	// The SVG names each entity's type and layer (data-type, data-layer).
	if strings.Contains(svg, `data-type="circle"`) || !strings.Contains(svg, `data-layer="OUTLINE" data-type="polyline"`) {
		t.Errorf("the SVG with CENTER frozen draws the circle, or not the rectangle:\n%.800s", svg)
	}
	d.ok("layer_thaw", map[string]any{"name": "CENTER"})
	if svg := d.ok("document_export", map[string]any{"format": "svg"})["content"].(string); !strings.Contains(svg, `data-layer="CENTER" data-type="circle"`) {
		t.Errorf("the SVG with CENTER thawed does not draw the circle:\n%.600s", svg)
	}
}

// standardsTables reads a DXF's LTYPE entries (name → lengths 49), LAYER
// entries (name → integer codes 70 and 370) and HEADER variables (name →
// first value).
func standardsTables(t *testing.T, content string) (ltypes map[string][]float64, layers map[string]map[string]int, header map[string]string) {
	t.Helper()
	ltypes, layers, header = map[string][]float64{}, map[string]map[string]int{}, map[string]string{}
	lines := strings.Split(strings.ReplaceAll(content, "\r\n", "\n"), "\n")
	record, name, variable, inHeader := "", "", "", false
	for i := 0; i+1 < len(lines); i += 2 {
		code, value := strings.TrimSpace(lines[i]), strings.TrimSpace(lines[i+1])
		switch {
		case code == "0":
			record, name = value, ""
			if value == "ENDSEC" {
				inHeader = false
			}
		case code == "2" && record == "SECTION":
			inHeader = value == "HEADER"
		case inHeader && code == "9":
			variable = value
		case inHeader && variable != "":
			header[variable], variable = value, ""
		case code == "2" && (record == "LTYPE" || record == "LAYER"):
			name = value
			if record == "LAYER" {
				layers[name] = map[string]int{}
			} else {
				ltypes[name] = []float64{}
			}
		case record == "LTYPE" && name != "" && code == "49":
			v, err := strconv.ParseFloat(value, 64)
			if err != nil {
				t.Fatalf("LTYPE %s: %q: %v", name, value, err)
			}
			ltypes[name] = append(ltypes[name], v)
		case record == "LAYER" && name != "" && (code == "70" || code == "370"):
			v, err := strconv.Atoi(value)
			if err != nil {
				t.Fatalf("LAYER %s: %q: %v", name, value, err)
			}
			layers[name][code] = v
		}
	}
	return ltypes, layers, header
}
