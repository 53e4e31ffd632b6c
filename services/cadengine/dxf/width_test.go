package dxf

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// widePolylines are polylines with widths: tapered with a bulge (open),
// constant (closed), and a width only on a piece in the middle.
func widePolylines() []drawing.Polyline {
	return []drawing.Polyline{
		drawing.NewPolyline([]geom.Vertex{{P: geom.Pt(0, 0)}, {P: geom.Pt(10, 0), Bulge: 0.5}, {P: geom.Pt(20, 0)}}, false).
			WithWidths([]geom.Width{{Start: 2, End: 1}, {Start: 1, End: 0.25}, {}}),
		drawing.NewPolyline([]geom.Vertex{{P: geom.Pt(0, 10)}, {P: geom.Pt(10, 10)}, {P: geom.Pt(10, 20), Bulge: -0.3}}, true).
			WithWidths([]geom.Width{{Start: 0.5, End: 0.5}, {Start: 0.5, End: 0.5}, {Start: 0.5, End: 0.5}}),
		drawing.NewPolyline([]geom.Vertex{{P: geom.Pt(0, 30)}, {P: geom.Pt(5, 30)}, {P: geom.Pt(10, 35)}, {P: geom.Pt(15, 30)}}, false).
			WithWidths([]geom.Width{{}, {Start: 3, End: 0}, {}, {}}),
	}
}

func wideDocument() *drawing.Document {
	d := drawing.NewDocument("doc-0000000000000003", "wide", enginev1.Units_UNITS_MM, time.Time{})
	for _, g := range widePolylines() {
		d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: g})
	}
	d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: drawing.NewPolyline([]geom.Vertex{{P: geom.Pt(0, 40)}, {P: geom.Pt(9, 40)}}, false)})
	return d
}

// The R12 (POLYLINE and VERTEX, 40 and 41) and 2018 (LWPOLYLINE, 40 and
// 41 after each vertex) exports keep the widths: the import is the same
// document, and ezdxf reads the widths written.
func TestWidthsRoundTrip(t *testing.T) {
	for _, v := range []struct {
		name  string
		write func(*drawing.Document) string
		check func(*testing.T, *drawing.Document)
	}{{"R12", Write, checkRoundTrip}, {"R2018", Write2018, checkRoundTrip2018}} {
		t.Run(v.name, func(t *testing.T) {
			a := wideDocument()
			v.check(t, a)
			content := v.write(a)
			b, err := importText(content)
			if err != nil {
				t.Fatal(err)
			}
			ea, eb := a.Entities(), b.Entities()
			for i := range ea {
				wa, wb := ea[i].Geom.(drawing.Polyline).Widths, eb[i].Geom.(drawing.Polyline).Widths
				if !reflect.DeepEqual(wa, wb) {
					t.Errorf("polyline %d: widths %v after the round trip, want %v", i, wb, wa)
				}
			}
			if ezdxftest.Audit(t, content) == nil {
				return
			}
			var got [][][2]float64
			out := ezdxftest.Run(t, widthsScript, ezdxftest.File(t, "wide.dxf", content))
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("ezdxf: %v\n%s", err, out)
			}
			if len(got) != len(ea) {
				t.Fatalf("ezdxf reads %d polylines, want %d", len(got), len(ea))
			}
			for i, e := range ea {
				g := e.Geom.(drawing.Polyline)
				for j := range g.V {
					want := [2]float64{}
					if g.Widths != nil {
						want = [2]float64{g.Widths[j].Start, g.Widths[j].End}
					}
					if got[i][j] != want {
						t.Errorf("ezdxf reads polyline %d vertex %d as %v wide, want %v", i, j, got[i][j], want)
					}
				}
			}
		})
	}
}

// widthsScript prints the start and end widths of every vertex of every
// polyline of the file's model space, as JSON.
const widthsScript = `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
out = []
for e in doc.modelspace():
    if e.dxftype() == "LWPOLYLINE":
        out.append([[s, w] for x, y, s, w, b in e.get_points()])
    elif e.dxftype() == "POLYLINE":
        out.append([[v.dxf.start_width, v.dxf.end_width] for v in e.vertices])
print(json.dumps(out))
`

// The widths as files have them: an LWPOLYLINE's 43 overrides its
// vertices' 40 and 41 (as AutoCAD and ezdxf have it); a VERTEX without
// its own 40 or 41 has the POLYLINE's; widths all 0 are none.
func TestReadWidths(t *testing.T) {
	for _, tc := range []struct {
		name, entities string
		want           []geom.Width
	}{{
		name:     "LWPOLYLINE per vertex",
		entities: "0|LWPOLYLINE|100|AcDbPolyline|90|3|70|0|10|0|20|0|40|1|41|2|10|5|20|0|10|5|20|5|40|0.5|41|0.5",
		want:     []geom.Width{{Start: 1, End: 2}, {}, {}},
	}, {
		name:     "LWPOLYLINE constant width",
		entities: "0|LWPOLYLINE|100|AcDbPolyline|90|2|70|1|43|0.75|10|0|20|0|40|1|41|2|10|5|20|0",
		want:     []geom.Width{{Start: 0.75, End: 0.75}, {Start: 0.75, End: 0.75}},
	}, {
		name:     "LWPOLYLINE of widths 0",
		entities: "0|LWPOLYLINE|100|AcDbPolyline|90|2|70|0|43|0|10|0|20|0|40|0|41|0|10|5|20|0",
		want:     nil,
	}, {
		name:     "POLYLINE defaults and VERTEX widths",
		entities: "0|POLYLINE|66|1|10|0|20|0|30|0|70|0|40|3|41|1|0|VERTEX|10|0|20|0|0|VERTEX|10|5|20|0|40|2|0|VERTEX|10|5|20|5|41|0.5|0|VERTEX|10|9|20|5|0|SEQEND",
		want:     []geom.Width{{Start: 3, End: 1}, {Start: 2, End: 1}, {Start: 3, End: 0.5}, {}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := importText(strings.ReplaceAll("0|SECTION|2|ENTITIES|"+tc.entities+"|0|ENDSEC|0|EOF|", "|", "\n"))
			if err != nil {
				t.Fatal(err)
			}
			es := d.Entities()
			if len(es) != 1 {
				t.Fatalf("import = %d entities, want 1", len(es))
			}
			g, ok := es[0].Geom.(drawing.Polyline)
			if !ok {
				t.Fatalf("import = %T, want a polyline", es[0].Geom)
			}
			if !reflect.DeepEqual(g.Widths, tc.want) {
				t.Errorf("widths = %v, want %v", g.Widths, tc.want)
			}
		})
	}
}

// A 2D polyline with width outside the plan is preserved, and fills its
// band seen from above: in the plane of extrusion (0, 0.6, 0.8), whose x
// is world -x and whose y world (0, -0.8, 0.6), a piece 10 long and 2
// wide along x is the rectangle x -10 to 0, y -0.8 to 0.8.
func TestPreservedPolylineFills(t *testing.T) {
	for _, entities := range []string{
		"0|LWPOLYLINE|100|AcDbPolyline|90|2|70|0|43|2|10|0|20|0|10|10|20|0|210|0|220|0.6|230|0.8",
		"0|POLYLINE|66|1|10|0|20|0|30|0|70|0|40|2|41|2|210|0|220|0.6|230|0.8|0|VERTEX|10|0|20|0|0|VERTEX|10|10|20|0|0|SEQEND",
	} {
		typ, _, _ := strings.Cut(strings.TrimPrefix(entities, "0|"), "|")
		t.Run(typ, func(t *testing.T) {
			d, err := importText(strings.ReplaceAll("0|SECTION|2|ENTITIES|"+entities+"|0|ENDSEC|0|EOF|", "|", "\n"))
			if err != nil {
				t.Fatal(err)
			}
			g := foreignOfType(t, d, typ)
			if len(g.Fills) != 1 {
				t.Fatalf("fills = %v, want one band", g.Fills)
			}
			var b geom.Box
			area := 0.0
			f := g.Fills[0]
			for i, p := range f {
				b.AddPoint(p)
				q := f[(i+1)%len(f)]
				area += (p.X*q.Y - p.Y*q.X) / 2
			}
			want := geom.Box{Min: geom.Pt(-10, -0.8), Max: geom.Pt(0, 0.8), NonEmpty: true}
			if !b.Min.Same(want.Min) || !b.Max.Same(want.Max) || !geom.Eq(math.Abs(area), 16) {
				t.Errorf("band %v: box %v and area %v, want %v and 16", f, b, area, want)
			}
			if got := g.Bounds(); !got.Min.Same(want.Min) || !got.Max.Same(want.Max) {
				t.Errorf("Bounds = %v, want the band's %v", got, want)
			}
		})
	}
}
