package engine_test

import (
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/internal/ezdxftest"
)

// shapes is a DXF file of the native types that only files make: a SOLID
// (corners listed 1, 2, 4, 3, as DXF does), a TRACE triangle, a 3DFACE
// with z and a hidden edge, an XLINE and a RAY.
var shapes = dxfFile("", "",
	"0\nSOLID\n8\n0\n10\n0\n20\n0\n11\n4\n21\n0\n12\n0\n22\n3\n13\n4\n23\n3\n"+
		"0\nTRACE\n8\n0\n10\n10\n20\n0\n11\n14\n21\n0\n12\n12\n22\n3\n13\n12\n23\n3\n"+
		"0\n3DFACE\n8\n0\n10\n20\n20\n0\n30\n1\n11\n24\n21\n0\n31\n2\n12\n24\n22\n3\n32\n3\n13\n20\n23\n3\n33\n4\n70\n2\n"+
		"0\nXLINE\n8\n0\n10\n0\n20\n1.5\n11\n1\n21\n0\n"+
		"0\nRAY\n8\n0\n10\n5\n20\n-20\n11\n0\n21\n2\n")

// TestShapes: solids, traces, faces, xlines and rays are native: listed
// with their corners or direction, bounded (construction lines bound
// nothing), drawn (construction lines across the view), and written back
// as the types they were, in 2018 (R12 has no XLINE or RAY).
func TestShapes(t *testing.T) {
	e := newEngine(t, nil)
	f := importDXF(t, e, "shapes", shapes)
	ents := f.entities()
	var types []string
	for _, e := range ents {
		types = append(types, e["type"].(string))
	}
	if strings.Join(types, " ") != "solid solid face xline ray" {
		t.Fatalf("types = %v, want solid solid face xline ray", types)
	}
	if got := js(ents[0]["corners"]); got != `[{"x":0,"y":0},{"x":4,"y":0},{"x":4,"y":3},{"x":0,"y":3}]` {
		t.Errorf("solid corners = %s, want round the rectangle", got)
	}
	if got := js(ents[1]["corners"]); got != `[{"x":10,"y":0},{"x":14,"y":0},{"x":12,"y":3}]` || ents[1]["dxf_type"] != "TRACE" {
		t.Errorf("trace = %s, want the triangle, dxf_type TRACE", js(ents[1]))
	}
	if js(ents[2]["elevations"]) != `[1,2,3,4]` || ents[2]["hidden_edges"] != 2.0 {
		t.Errorf("face = %s, want elevations 1–4 and edge 2 hidden", js(ents[2]))
	}
	if js(ents[4]["direction"]) != `{"x":0,"y":1}` || js(ents[4]["start"]) != `{"x":5,"y":-20}` {
		t.Errorf("ray = %s, want from (5, -20) along +Y", js(ents[4]))
	}
	bb := f.ok("analysis_bounding_box", nil)
	if bb["min_x"] != 0.0 || bb["max_x"] != 24.0 || bb["min_y"] != 0.0 || bb["max_y"] != 3.0 {
		t.Errorf("bounding box = %v, want the shapes' (0, 0)–(24, 3): construction lines bound nothing", bb)
	}
	svg := exportOf(t, f, "svg")
	if strings.Count(svg, `data-type="xline"`) != 1 || strings.Count(svg, `data-type="ray"`) != 1 || strings.Count(svg, "fill-rule") < 2 {
		t.Errorf("the SVG does not draw the xline, the ray and the filled solids:\n%.600s", svg)
	}
	if got := ezdxftest.Audit(t, exportOf(t, f, "dxf")); got != nil && (got["SOLID"] != 1 || got["TRACE"] != 1 || got["3DFACE"] != 1 || got["XLINE"] != 1 || got["RAY"] != 1) {
		t.Errorf("ezdxf reads %v in the 2018 export, want a SOLID, a TRACE, a 3DFACE, an XLINE and a RAY", got)
	}
	if got := ezdxftest.Audit(t, exportWith(t, f, "dxf", obj{"dxf_version": "r12"})); got != nil && (got["SOLID"] != 1 || got["TRACE"] != 1 || got["3DFACE"] != 1 || got["XLINE"] != 0) {
		t.Errorf("ezdxf reads %v in the R12 export, want a SOLID, a TRACE and a 3DFACE", got)
	}
	back := importDXF(t, e, "back", exportOf(t, f, "dxf"))
	if got, want := back.info().ContentHash, f.info().ContentHash; got != want {
		t.Errorf("content hash after a round trip = %s, want %s", got, want)
	}
}
