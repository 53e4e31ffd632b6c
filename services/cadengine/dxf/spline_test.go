package dxf

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/internal/ezdxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// splineScript writes splines with ezdxf — of control points (open,
// clamped; rational), and of fit points, with and without end
// tangents, and the control frame ezdxf makes of fit points as AutoCAD
// would — and prints, for each, ezdxf's own points along it (its
// construction tool's evaluation).
const splineScript = `
import sys, json, math, ezdxf
from ezdxf.math import Vec3
doc = ezdxf.new("R2018")
msp = doc.modelspace()
msp.add_open_spline([(0, 0), (10, 10), (20, -10), (30, 5), (40, 0)], degree=3)
msp.add_rational_spline([(0, 0), (10, 20), (30, 20), (40, 0)], weights=[1, 3, 0.5, 1], degree=3)
msp.add_spline([(0, 0), (5, 8), (12, 3), (20, 10), (25, -2)])
s = msp.add_spline([(0, 0), (5, 8), (12, 3), (20, 10)])
s.dxf.start_tangent = (1, 0, 0)
s.dxf.end_tangent = (0, -1, 0)
msp.add_cad_spline_control_frame([(0, 0), (10, 0), (10, 10), (0, 10), (-5, 5)])
path = sys.argv[1] + "/splines.dxf"
doc.saveas(path)
out = []
for e in msp:
    out.append({"points": [[p.x, p.y] for p in e.construction_tool().approximate(200)]})
print(path)
print(json.dumps(out))
`

// TestSplinesAsEzdxf reads splines ezdxf wrote and holds each to ezdxf's
// own evaluation of it: every point ezdxf puts on the curve lies on the
// engine's (within a millionth of its size), both run from the same start
// to the same end, and the DXF the engine writes of them reads back in
// ezdxf as the same splines.
func TestSplinesAsEzdxf(t *testing.T) {
	out := ezdxftest.Run(t, splineScript, t.TempDir())
	if out == "" {
		return
	}
	path, data, _ := strings.Cut(strings.TrimSpace(out), "\n")
	var want []struct{ Points [][2]float64 }
	if err := json.Unmarshal([]byte(data), &want); err != nil {
		t.Fatalf("ezdxf said %q: %v", data, err)
	}
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, f, err := importFile(string(content))
	if err != nil {
		t.Fatal(err)
	}
	if n := f.Report().Entities["SPLINE"].GetImported(); n != int64(len(want)) {
		t.Fatalf("%d splines native, want %d (report %v)", n, len(want), f.Report())
	}
	for i, e := range d.Entities() {
		g := e.Geom.(drawing.Spline)
		b := g.Bounds()
		size := math.Max(b.Max.X-b.Min.X, b.Max.Y-b.Min.Y)
		pts := want[i].Points
		for j, p := range pts {
			q := geom.Pt(p[0], p[1])
			if _, c := g.Closest(q); c.Dist(q) > 1e-6*size {
				t.Errorf("spline %d: ezdxf's point %d %v is %g from the engine's curve, want under %g", i, j, q, c.Dist(q), 1e-6*size)
				break
			}
		}
		t0, t1 := g.Domain()
		if first, last := geom.Pt(pts[0][0], pts[0][1]), geom.Pt(pts[len(pts)-1][0], pts[len(pts)-1][1]); g.At(t0).Dist(first) > 1e-9*size || g.At(t1).Dist(last) > 1e-9*size {
			t.Errorf("spline %d runs from %v to %v, ezdxf's from %v to %v", i, g.At(t0), g.At(t1), first, last)
		}
	}
	if got := ezdxftest.Audit(t, Write2018(d)); got["SPLINE"] != len(want) {
		t.Errorf("ezdxf reads %v in the engine's DXF, want %d splines", got, len(want))
	}
}
