package dxf

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// dumpScript prints, as JSON, what ezdxf reads from a file's model space:
// each entity's type, layer and key geometry.
const dumpScript = `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
out = []
for e in doc.modelspace():
    t = e.dxftype()
    d = {"type": t, "layer": e.dxf.layer}
    p = lambda v: [v[0], v[1]]
    if t == "LINE": d.update(a=p(e.dxf.start), b=p(e.dxf.end))
    elif t in ("CIRCLE", "ARC"):
        d.update(c=p(e.dxf.center), r=e.dxf.radius)
        if t == "ARC": d.update(s=e.dxf.start_angle, e=e.dxf.end_angle)
    elif t == "LWPOLYLINE": d.update(v=[[x, y, b] for x, y, s, w, b in e.get_points()], closed=e.closed)
    elif t == "POLYLINE": d.update(v=[[v.dxf.location[0], v.dxf.location[1], v.dxf.bulge] for v in e.vertices], closed=e.is_closed)
    elif t == "TEXT": d.update(text=e.dxf.text, p=p(e.dxf.insert), h=e.dxf.height)
    elif t == "MTEXT": d.update(text=e.plain_text(), p=p(e.dxf.insert), h=e.dxf.char_height, w=e.dxf.width)
    elif t == "ELLIPSE": d.update(c=p(e.dxf.center), m=p(e.dxf.major_axis), ratio=e.dxf.ratio)
    elif t == "DIMENSION": d.update(kind=e.dimtype, meas=e.get_measurement() if e.dimtype != 2 and e.dimtype != 5 else 0)
    elif t == "HATCH": d.update(pattern=e.dxf.pattern_name, loops=len(e.paths))
    elif t == "INSERT": d.update(name=e.dxf.name, p=p(e.dxf.insert), s=abs(e.dxf.yscale), rot=e.dxf.rotation)
    elif t == "POINT": d.update(p=p(e.dxf.location))
    out.append(d)
print(json.dumps(out))
`

// ezdxfEntity is one entity as dumpScript prints it.
type ezdxfEntity struct {
	Type, Layer   string
	A, B, C, P, M []float64
	R, S, E, H, W float64
	Ratio, Rot    float64
	Meas          float64
	V             [][]float64
	Closed        bool
	Text          string
	Kind          int
	Pattern, Name string
	Loops         int
}

// ezdxfTypes are the DXF types an engine type is written as.
var ezdxfTypes = map[enginev1.EntityType][]string{
	enginev1.EntityType_ENTITY_TYPE_POINT:     {"POINT"},
	enginev1.EntityType_ENTITY_TYPE_LINE:      {"LINE"},
	enginev1.EntityType_ENTITY_TYPE_CIRCLE:    {"CIRCLE"},
	enginev1.EntityType_ENTITY_TYPE_ARC:       {"ARC"},
	enginev1.EntityType_ENTITY_TYPE_POLYLINE:  {"LWPOLYLINE", "POLYLINE"},
	enginev1.EntityType_ENTITY_TYPE_TEXT:      {"TEXT"},
	enginev1.EntityType_ENTITY_TYPE_ELLIPSE:   {"ELLIPSE"},
	enginev1.EntityType_ENTITY_TYPE_MTEXT:     {"MTEXT"},
	enginev1.EntityType_ENTITY_TYPE_DIMENSION: {"DIMENSION"},
	enginev1.EntityType_ENTITY_TYPE_HATCH:     {"HATCH"},
	enginev1.EntityType_ENTITY_TYPE_INSERT:    {"INSERT"},
}

// TestEzdxfReadsExports writes documents with every entity type in both
// versions; ezdxf must open each with a clean audit and read the same
// entities — type, count, layer and key geometry — as the engine's own
// import of the file (which the round-trip tests hold to the document).
func TestEzdxfReadsExports(t *testing.T) {
	for _, v := range []struct {
		name  string
		write func(*drawing.Document) string
	}{{"R2018", Write2018}, {"R12", Write}} {
		for _, doc := range []*drawing.Document{sampleDocument(), annotatedDocument()} {
			t.Run(v.name+"/"+doc.Name, func(t *testing.T) {
				content := v.write(doc)
				if ezdxftest.Audit(t, content) == nil {
					return
				}
				var got []ezdxfEntity
				out := ezdxftest.Run(t, dumpScript, ezdxftest.File(t, "export.dxf", content))
				if err := json.Unmarshal([]byte(out), &got); err != nil {
					t.Fatalf("ezdxf dump: %v\n%s", err, out)
				}
				mine, err := importText(content)
				if err != nil {
					t.Fatal(err)
				}
				ents := mine.Entities()
				if len(got) != len(ents) {
					t.Fatalf("ezdxf reads %d entities, the engine %d", len(got), len(ents))
				}
				for i, e := range ents {
					if msg := compareEzdxf(got[i], e); msg != "" {
						t.Errorf("entity %d (%s): %s", i, e.Geom.Kind().WireName(), msg)
					}
				}
			})
		}
	}
}

// compareEzdxf says how ezdxf's reading of an entity differs from the
// engine's, or "".
func compareEzdxf(x ezdxfEntity, e *drawing.Entity) string {
	types := ezdxfTypes[e.Geom.Kind()]
	if !strings.Contains(strings.Join(types, ","), x.Type) {
		return fmt.Sprintf("ezdxf type %s, want one of %v", x.Type, types)
	}
	if x.Layer != e.Layer {
		return fmt.Sprintf("layer %q, want %q", x.Layer, e.Layer)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	pt := func(a []float64, b geom.Vec) bool { return len(a) == 2 && near(a[0], b.X) && near(a[1], b.Y) }
	ok := true
	switch g := e.Geom.(type) {
	case drawing.Point:
		ok = pt(x.P, g.P)
	case drawing.Line:
		ok = pt(x.A, g.A) && pt(x.B, g.B)
	case drawing.Circle:
		ok = pt(x.C, g.C) && near(x.R, g.R)
	case drawing.Arc:
		ok = pt(x.C, g.C) && near(x.R, g.R) && near(x.S, g.Start) && near(x.E, g.End)
	case drawing.Polyline:
		ok = len(x.V) == len(g.V) && x.Closed == g.Closed
		for i := 0; ok && i < len(g.V); i++ {
			ok = near(x.V[i][0], g.V[i].P.X) && near(x.V[i][1], g.V[i].P.Y) && near(x.V[i][2], g.V[i].Bulge)
		}
	case drawing.Text:
		ok = x.Text == dxfText2018(g.Text) || x.Text == dxfText(g.Text)
		ok = ok && pt(x.P, g.P) && near(x.H, g.Height)
	case drawing.MText:
		ok = x.Text == g.Text && pt(x.P, g.P) && near(x.H, g.Height) && near(x.W, g.Width)
	case drawing.Ellipse:
		ok = pt(x.C, g.C) && pt(x.M, g.Major) && near(x.Ratio, g.Ratio)
	case drawing.Dimension:
		kinds := map[enginev1.DimensionKind]int{
			enginev1.DimensionKind_DIMENSION_KIND_ROTATED: 0, enginev1.DimensionKind_DIMENSION_KIND_ALIGNED: 1,
			enginev1.DimensionKind_DIMENSION_KIND_DIAMETRIC: 3, enginev1.DimensionKind_DIMENSION_KIND_RADIAL: 4,
			enginev1.DimensionKind_DIMENSION_KIND_ANGULAR: 5,
		}
		ok = x.Kind == kinds[g.Type] && (g.Type == enginev1.DimensionKind_DIMENSION_KIND_ANGULAR || math.Abs(x.Meas-g.Measurement()) <= 1e-9*math.Max(1, g.Measurement()))
	case drawing.Hatch:
		ok = x.Pattern == g.Pattern && x.Loops == len(g.Loops)
	case drawing.Insert:
		ok = x.Name == g.Name && pt(x.P, g.P) && near(x.S, g.Scale) && math.Abs(geom.NormDeg(x.Rot-g.Rotation+180)-180) <= 1e-9
	}
	if !ok {
		return fmt.Sprintf("ezdxf reads %+v, the engine %+v", x, e.Geom)
	}
	return ""
}

// makeScript writes, with ezdxf itself, files of every version the
// engine imports, each with the entities it models and some it does not
// (a spline, a non-uniformly scaled insert), and prints how many entities
// each file's model space has.
const makeScript = `
import sys, math, ezdxf
for ver in ("R2000", "R2013", "R2018"):
    doc = ezdxf.new(ver, setup=True)
    msp = doc.modelspace()
    doc.layers.add("walls", color=1)
    msp.add_lwpolyline([(0, 0), (10, 0, 0.5), (10, 10), (0, 10)], format="xyb", close=True, dxfattribs={"layer": "walls"})
    msp.add_ellipse((50, 50), major_axis=(10, 2), ratio=0.4)
    msp.add_ellipse((80, 50), major_axis=(0, 6), ratio=0.5, start_param=0.5, end_param=4)
    msp.add_mtext("first line\\Psecond {\\fArial;line}", dxfattribs={"insert": (0, 30), "char_height": 2.5, "width": 40})
    msp.add_linear_dim(base=(0, -10), p1=(0, 0), p2=(10, 0)).render()
    msp.add_aligned_dim(p1=(0, 0), p2=(10, 10), distance=5).render()
    msp.add_radius_dim(center=(50, 50), radius=5, angle=30).render()
    msp.add_diameter_dim(center=(50, 50), radius=5, angle=60).render()
    msp.add_angular_dim_3p(base=(0, 20), center=(0, 0), p1=(10, 0), p2=(0, 10)).render()
    msp.add_angular_dim_2l(base=(5, 5), line1=((0, 0), (10, 0)), line2=((0, 0), (10, 10))).render()
    h = msp.add_hatch(color=2)
    h.paths.add_polyline_path([(0, 0), (30, 0), (30, 20), (0, 20)], is_closed=True)
    e = h.paths.add_edge_path()
    e.add_arc((15, 10), radius=4, start_angle=0, end_angle=360)
    h2 = msp.add_hatch()
    h2.set_pattern_fill("ANSI31", scale=2)
    e = h2.paths.add_edge_path()
    e.add_ellipse((100, 0), major_axis=(8, 0), ratio=0.5)
    h3 = msp.add_hatch()
    h3.set_pattern_fill("ANSI32", scale=1.5, angle=30)
    h3.paths.add_polyline_path([(200, 0), (240, 0), (240, 30), (200, 30)], is_closed=True)
    b = doc.blocks.new(name="BOLT")
    b.add_circle((0, 0), 3)
    b.add_line((-4, 0), (4, 0))
    msp.add_blockref("BOLT", (20, 20))
    msp.add_blockref("BOLT", (40, 20), dxfattribs={"xscale": -2, "yscale": 2, "rotation": 30})
    msp.add_blockref("BOLT", (60, 20), dxfattribs={"xscale": 1, "yscale": 3})
    msp.add_spline([(0, 0), (5, 5), (10, 0), (15, 5)])
    path = sys.argv[1] + "/" + ver + ".dxf"
    doc.saveas(path)
    print(ver, path, len(msp))
`

// TestImportEzdxfFiles imports files ezdxf writes (R2000, R2013, R2018)
// with dimensions, hatches, blocks and inserts, LWPOLYLINE, ELLIPSE and
// MTEXT: every entity of each is native, the unevenly scaled insert
// among them, and the report says so.
func TestImportEzdxfFiles(t *testing.T) {
	out := ezdxftest.Run(t, makeScript, t.TempDir())
	if out == "" {
		return
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ver, path string
		var n int
		if _, err := fmt.Sscan(line, &ver, &path, &n); err != nil {
			t.Fatalf("ezdxf script said %q: %v", line, err)
		}
		t.Run(ver, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			d, f, err := importFile(string(data))
			if err != nil {
				t.Fatal(err)
			}
			kept, dropped := f.Counts()
			if kept != int64(n) || dropped != 0 || len(d.Entities()) != n {
				t.Errorf("kept %d, dropped %d, %d entities in the document; want the %d entities of the model space kept", kept, dropped, len(d.Entities()), n)
			}
			rep := f.Report()
			if rep.Entities["SPLINE"].GetImported() != 1 || rep.Entities["INSERT"].GetImported() != 3 {
				t.Errorf("report = %v, want the spline and the three inserts native", rep.Entities)
			}
			want := map[string]int{"polyline": 1, "ellipse": 2, "mtext": 1, "dimension": 6, "hatch": 3, "insert": 3, "spline": 1}
			got := map[string]int{}
			for _, e := range d.Entities() {
				got[e.Geom.Kind().WireName()]++
			}
			for k, n := range want {
				if got[k] != n {
					t.Errorf("imported %d %s, want %d (all: %v)", got[k], k, n, got)
				}
			}
			if b := d.Block("BOLT"); b == nil || len(b.Entities) != 2 {
				t.Errorf("block BOLT = %v, want its circle and line", b)
			}
			var measures []string
			for _, e := range d.Entities() {
				switch g := e.Geom.(type) {
				case drawing.Dimension:
					measures = append(measures, g.DisplayText())
				case drawing.MText:
					if g.Text != "first line\nsecond line" {
						t.Errorf("mtext = %q, want the two lines without formatting", g.Text)
					}
				case drawing.Hatch:
					switch g.Pattern {
					case "SOLID":
						if len(g.Loops) != 2 {
							t.Errorf("solid hatch = %+v, want two loops", g)
						}
					case "ANSI31":
						if !g.Loops[0].Ellipse {
							t.Errorf("ANSI31 hatch = %+v, want an ellipse loop", g)
						}
					case "ANSI32":
						// A pattern the engine does not name, read from
						// its definition: acad.pat's ANSI32 is two
						// families at 45°, 9.525 apart.
						if len(g.Lines) != 2 || math.Abs(g.Lines[0].Angle-45) > 1e-9 || math.Abs(g.Lines[0].Delta.Y-9.525) > 1e-9 || g.Scale != 1.5 || g.Angle != 30 {
							t.Errorf("ANSI32 hatch = %+v", g)
						}
					default:
						t.Errorf("hatch pattern %q", g.Pattern)
					}
				}
			}
			if got, want := strings.Join(measures, " "), "10 14.14 R5 Ø10 90° 45°"; got != want {
				t.Errorf("dimensions read = %s, want %s", got, want)
			}
		})
	}
}
