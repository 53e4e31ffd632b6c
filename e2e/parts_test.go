package e2e_test

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/internal/ezdxftest"
)

// TestParts drives the standard parts through the built gateway and
// engine over HTTP: a gear of module 2 with 24 teeth and its keyed bore
// (DIN 6885-1: 20 mm takes a 6 × 6 key, t2 2.8) drawn in one batch and
// exported to SVG, where the gear's path runs between its root and tip
// circles with one arc of each a tooth and the bore's path has its
// groove 6 wide and 10 + 2.8 from the centre; a GD&T frame exported to
// DXF as a TOLERANCE and imported back the same.
func TestParts(t *testing.T) {
	gateway, _ := startServices(t)
	c := &httpClient{url: "http://" + gateway + "/rpc"}
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, 1, "document.create", map[string]any{"name": "gearbox"}, &doc)
	d := doc.DocumentID

	var batch struct {
		OK      bool `json:"ok"`
		Results []struct {
			Status string         `json:"status"`
			Result map[string]any `json:"result"`
		} `json:"results"`
	}
	mustCall(t, c, 2, "cad.batch", map[string]any{"document_id": d, "verbose": true, "steps": []any{
		map[string]any{"tool": "layer_create", "args": map[string]any{"name": "PARTS"}},
		map[string]any{"tool": "part_spur_gear", "args": map[string]any{"cx": 100, "cy": 50, "module": 2, "teeth": 24, "layer": "PARTS"}, "bind": "gear"},
		map[string]any{"tool": "part_keyway", "args": map[string]any{"cx": 100, "cy": 50, "bore": 20, "layer": "PARTS"}, "bind": "key"},
	}}, &batch)
	if !batch.OK || len(batch.Results) != 3 {
		t.Fatalf("batch = %+v, want three steps ok", batch)
	}
	gear, key := batch.Results[1].Result, batch.Results[2].Result
	const ra, rf, rb = 26.0, 21.5, 24 * 0.9396926207859084 // m(z+2)/2, m(z-2.5)/2, m z cos 20° / 2
	if gear["tip_diameter"] != 2*ra || gear["root_diameter"] != 2*rf || math.Abs(gear["base_diameter"].(float64)-2*rb) > 1e-9 || gear["pitch_diameter"] != 48.0 || gear["undercut"] != nil && gear["undercut"] != false {
		t.Errorf("gear = %v, want diameters tip 52, root 43, base %v, pitch 48, no undercut", gear, 2*rb)
	}
	if key["width"] != 6.0 || key["key_height"] != 6.0 || key["depth"] != 2.8 || math.Abs(key["check"].(float64)-22.8) > 1e-9 {
		t.Errorf("keyway = %v, want width 6, key height 6, depth 2.8, check 22.8", key)
	}

	var out struct {
		Content string `json:"content"`
	}
	mustCall(t, c, 3, "document.export", map[string]any{"document_id": d, "format": "svg"}, &out)
	gearPath := partsSVGPath(t, out.Content, gear["handle"].(string))
	tip, root := 0, 0
	for _, r := range gearPath.arcs {
		switch {
		case math.Abs(r-ra) < 1e-9*ra:
			tip++
		case math.Abs(r-rf) < 1e-9*rf:
			root++
		default:
			t.Errorf("gear path arc of radius %v, want the tip %v or the root %v", r, ra, rf)
		}
	}
	if tip != 24 || root != 24 {
		t.Errorf("gear path has %d tip and %d root arcs, want 24 of each", tip, root)
	}
	for _, p := range gearPath.points {
		if r := math.Hypot(p[0]-100, -p[1]-50); r < rf-1e-9 || r > ra+1e-9 {
			t.Fatalf("gear path point %v at radius %v, outside the root %v and tip %v", p, r, rf, ra)
		}
	}
	bore := partsSVGPath(t, out.Content, key["handle"].(string))
	if len(bore.arcs) != 2 || math.Abs(bore.arcs[0]-10) > 1e-9 || math.Abs(bore.arcs[1]-10) > 1e-9 || len(bore.points) != 5 {
		t.Fatalf("bore path = %+v, want two arcs of radius 10 and five points", bore)
	}
	// The groove's flat is the last two points: 6 apart, 12.8 above the
	// centre (SVG's y is down).
	a, b := bore.points[3], bore.points[4]
	if math.Abs(math.Abs(a[0]-b[0])-6) > 1e-9 || math.Abs(-a[1]-62.8) > 1e-9 || math.Abs(-b[1]-62.8) > 1e-9 {
		t.Errorf("groove flat %v–%v, want 6 wide at y = 62.8", a, b)
	}

	// A feature control frame, to DXF and back.
	var frame struct {
		Handle string
		Text   string
	}
	tool(t, c, 4, d, "gdt_frame", map[string]any{"x": 140, "y": 50, "symbol": "position", "tolerance": "0.05", "diameter": true, "datums": []string{"A", "B"}}, &frame)
	const want = `{\Fgdt;j}%%v{\Fgdt;n}0.05%%vA%%vB`
	if frame.Text != want {
		t.Errorf("frame text %q, want %q", frame.Text, want)
	}
	mustCall(t, c, 5, "document.export", map[string]any{"document_id": d, "format": "dxf"}, &out)
	if !strings.Contains(out.Content, "\nTOLERANCE\n") || !strings.Contains(out.Content, "\n  1\n"+want+"\n") {
		t.Fatalf("the DXF export has no TOLERANCE with text %q", want)
	}
	if got := ezdxftest.Audit(t, out.Content); got != nil && (got["TOLERANCE"] != 1 || got["LWPOLYLINE"] != 2) {
		t.Errorf("ezdxf reads %v, want the TOLERANCE and two LWPOLYLINEs", got)
	}
	var back struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, 6, "document.import", map[string]any{"name": "back", "format": "dxf", "content": out.Content}, &back)
	var list struct {
		Entities []struct {
			Type      string  `json:"type"`
			Text      string  `json:"text"`
			Height    float64 `json:"height"`
			Insertion xy      `json:"insertion"`
		} `json:"entities"`
	}
	tool(t, c, 7, back.DocumentID, "entity_list", map[string]any{"types": []string{"tolerance"}}, &list)
	if len(list.Entities) != 1 || list.Entities[0].Text != want || list.Entities[0].Insertion != (xy{140, 50}) || list.Entities[0].Height != 2.5 {
		t.Errorf("tolerances read back = %+v, want the frame %q 2.5 high at (140, 50)", list.Entities, want)
	}
}

// partsPath is an SVG path of the engine's export: its points (after M,
// L and A, in SVG coordinates) and its arcs' radii.
type partsPath struct {
	points [][2]float64
	arcs   []float64
}

// partsSVGPath finds the path of the entity handle in an SVG export and
// reads its data.
func partsSVGPath(t *testing.T, svg, handle string) partsPath {
	t.Helper()
	m := regexp.MustCompile(`<path id="e` + handle + `"[^>]* d="([^"]*)"`).FindStringSubmatch(svg)
	if m == nil {
		t.Fatalf("the SVG has no path of entity %s", handle)
	}
	f := strings.Fields(m[1])
	num := func(i int) float64 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			t.Fatalf("path of %s: %q is not a number", handle, f[i])
		}
		return v
	}
	var p partsPath
	for i := 0; i < len(f); i++ {
		switch f[i] {
		case "M", "L":
			p.points = append(p.points, [2]float64{num(i + 1), num(i + 2)})
			i += 2
		case "A": // rx ry rotation large sweep x y
			p.arcs = append(p.arcs, num(i+1))
			p.points = append(p.points, [2]float64{num(i + 6), num(i + 7)})
			i += 7
		case "Z":
		default:
			t.Fatalf("path of %s: unexpected %q", handle, f[i])
		}
	}
	// A closed path ends where it began.
	if n := len(p.points); n > 1 && math.Hypot(p.points[n-1][0]-p.points[0][0], p.points[n-1][1]-p.points[0][1]) < 1e-9 {
		p.points = p.points[:n-1]
	}
	return p
}
