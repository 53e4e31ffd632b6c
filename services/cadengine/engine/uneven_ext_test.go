package engine_test

import (
	"math"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/internal/ezdxftest"
)

// uneven is a DXF file of a block RING (a circle of radius 2 about its
// base point, a bulged polyline) inserted at (10, 5) scaled 2 in x and 1
// in y, turned 30°.
var uneven = strings.Replace(dxfFile("", "", "0\nINSERT\n8\n0\n2\nRING\n10\n10\n20\n5\n41\n2\n42\n1\n43\n1\n50\n30\n"),
	"0\nSECTION\n2\nENTITIES\n",
	"0\nSECTION\n2\nBLOCKS\n0\nBLOCK\n8\n0\n2\nRING\n70\n0\n10\n0\n20\n0\n"+
		"0\nCIRCLE\n8\n0\n10\n0\n20\n0\n40\n2\n"+
		"0\nLWPOLYLINE\n8\n0\n90\n2\n70\n0\n10\n-1\n20\n0\n42\n1\n10\n1\n20\n0\n"+
		"0\nENDBLK\n8\n0\n0\nENDSEC\n0\nSECTION\n2\nENTITIES\n", 1)

// TestUnevenInsert: an insert scaled unevenly is native: its extents are
// the ellipse its circle becomes, exploding it makes that ellipse (and
// its bulged polyline a spline), and it is written back with its scales.
func TestUnevenInsert(t *testing.T) {
	e := newEngine(t, nil)
	f := importDXF(t, e, "uneven", uneven)
	in := f.entities()[0]
	if in["type"] != "insert" || in["scale"] != 2.0 || in["y_scale"] != 1.0 || in["rotation"] != 30.0 {
		t.Fatalf("insert = %s, want scale 2, y_scale 1, rotation 30", js(in))
	}
	// The circle placed: an ellipse of semi-axes 4 and 2 turned 30°, whose
	// box is √13 wide and √7 high about (10, 5) each way.
	bb := f.ok("analysis_bounding_box", obj{"handles": []any{in["handle"]}})
	hw, hh := math.Sqrt(13), math.Sqrt(7)
	for k, want := range map[string]float64{"min_x": 10 - hw, "max_x": 10 + hw, "min_y": 5 - hh, "max_y": 5 + hh} {
		if got := bb[k].(float64); math.Abs(got-want) > 1e-4 {
			t.Errorf("bounding box %s = %v, want %v", k, got, want)
		}
	}
	dxf := exportOf(t, f, "dxf")
	if got := ezdxftest.Audit(t, dxf); got != nil && got["INSERT"] != 1 {
		t.Errorf("ezdxf reads %v, want the insert", got)
	}
	back := importDXF(t, e, "back", dxf)
	if got, want := back.info().ContentHash, f.info().ContentHash; got != want {
		t.Errorf("content hash after a round trip = %s, want %s", got, want)
	}
	made := f.ok("block_explode", obj{"handle": in["handle"]})["handles"].([]any)
	if len(made) != 2 {
		t.Fatalf("exploding made %d entities, want 2", len(made))
	}
	ell, spl := f.get(made[0].(string)), f.get(made[1].(string))
	if ell["type"] != "ellipse" || !near(ell["ratio"].(float64), 0.5) || !nearPt(pt(ell["center"]), [2]float64{10, 5}) {
		t.Errorf("the exploded circle = %s, want an ellipse about (10, 5) of ratio 0.5", js(ell))
	}
	if major := pt(ell["major_axis"]); math.Abs(math.Hypot(major[0], major[1])-4) > 1e-9 || math.Abs(math.Abs(math.Atan2(major[1], major[0])*180/math.Pi)-30) > 1e-9 && math.Abs(math.Abs(math.Atan2(major[1], major[0])*180/math.Pi)-150) > 1e-9 {
		t.Errorf("its major axis = %v, want 4 long along 30°", major)
	}
	if spl["type"] != "spline" {
		t.Errorf("the exploded bulged polyline = %s, want a spline", js(spl))
	}
}
