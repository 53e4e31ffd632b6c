package dxf

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// linetypeFile is a DXF (R2000) whose LTYPE table gives DASHED a metric
// pattern of its own, defines a linetype of its own and a complex one
// with text, at $LTSCALE 2.5, with a DASHED line at linetype scale 0.5.
const linetypeFile = `0
SECTION
2
HEADER
9
$ACADVER
1
AC1015
9
$INSUNITS
70
4
9
$LTSCALE
40
2.5
0
ENDSEC
0
SECTION
2
TABLES
0
TABLE
2
LTYPE
70
3
0
LTYPE
2
Continuous
70
0
3
Solid line
72
65
73
0
40
0.0
0
LTYPE
2
DASHED
70
0
3
Dashed __ __
72
65
73
2
40
18.0
49
12.0
74
0
49
-6.0
74
0
0
LTYPE
2
ACAD_ISO02W100
70
0
3
ISO dash __ __ __
72
65
73
2
40
15.0
49
12.0
74
0
49
-3.0
74
0
0
LTYPE
2
GAS_LINE
70
0
3
Gas line ----GAS----GAS----
72
65
73
3
40
24.13
49
12.7
74
0
49
-5.08
74
2
75
0
340
11
46
2.54
50
0.0
44
-2.54
45
-1.27
9
GAS
49
-6.35
74
0
0
ENDTAB
0
ENDSEC
0
SECTION
2
ENTITIES
0
LINE
8
0
6
DASHED
48
0.5
10
0
20
0
11
100
21
0
0
ENDSEC
0
EOF
`

func TestImportLinetypes(t *testing.T) {
	d, f, err := importFile(linetypeFile)
	if err != nil {
		t.Fatal(err)
	}
	if d.LinetypeScale() != 2.5 {
		t.Errorf("$LTSCALE read as %v, want 2.5", d.LinetypeScale())
	}
	for name, want := range map[string][]float64{
		"DASHED":         {12, -6},
		"ACAD_ISO02W100": {12, -3},
		"GAS_LINE":       {12.7, -5.08, -6.35}, // its dashes, without its text
	} {
		if l, ok := d.Linetype(name); !ok || !slices.Equal(l.Pattern, want) {
			t.Errorf("linetype %s = %v, %v; want the file's %v", name, l.Pattern, ok, want)
		}
	}
	warned := false
	for _, w := range f.rep.warnings {
		warned = warned || strings.Contains(w.Message, `"GAS_LINE" has text or shapes`)
	}
	if !warned {
		t.Errorf("no warning that GAS_LINE's text is not drawn: %v", f.rep.warnings)
	}
	ents := d.Entities()
	if len(ents) != 1 || ents[0].LtScale() != 0.5 {
		t.Fatalf("entities %v, want one line at linetype scale 0.5", ents)
	}
	// The file's DASHED, times $LTSCALE, times the line's own scale.
	if got := d.Pattern(ents[0]); !slices.Equal(got, []float64{15, -7.5}) {
		t.Errorf("the line is drawn with %v, want [15 -7.5]", got)
	}
}

// TestLinetypesRoundTrip checks that DXF export writes the document's
// linetypes with their patterns, $LTSCALE and (R2018) an entity's own
// scale, that import reads them back, and that ezdxf reads the export
// with a clean audit and the same patterns and scales.
func TestLinetypesRoundTrip(t *testing.T) {
	a, _, err := importFile(linetypeFile)
	if err != nil {
		t.Fatal(err)
	}
	// A standard linetype the file does not define, on a layer.
	a.SetLayer("hidden", &drawing.Layer{Name: "hidden", Color: 1, Linetype: "HIDDEN", Lineweight: -3, On: true})
	a.Add(&drawing.Entity{Layer: "hidden", Color: 256, Linetype: "ByLayer", Geom: drawing.Line{A: geom.Pt(0, 10), B: geom.Pt(100, 10)}})
	for _, v := range []struct {
		name    string
		write   func(*drawing.Document) string
		ltscale float64 // what the line's own scale reads back as
	}{{"R2018", Write2018, 0.5}, {"R12", Write, 1}} {
		t.Run(v.name, func(t *testing.T) {
			content := v.write(a)
			b, err := importText(content)
			if err != nil {
				t.Fatal(err)
			}
			if b.LinetypeScale() != 2.5 {
				t.Errorf("$LTSCALE back as %v, want 2.5", b.LinetypeScale())
			}
			for _, name := range []string{"DASHED", "ACAD_ISO02W100", "GAS_LINE", "HIDDEN"} {
				want, _ := a.Linetype(name)
				if got, ok := b.Linetype(name); !ok || !slices.Equal(got.Pattern, want.Pattern) {
					t.Errorf("linetype %s back as %v, %v; want %v", name, got.Pattern, ok, want.Pattern)
				}
			}
			if got := b.Entities()[0].LtScale(); got != v.ltscale {
				t.Errorf("the line's linetype scale back as %v, want %v", got, v.ltscale)
			}
			if ezdxftest.Audit(t, content) == nil {
				return
			}
			out := ezdxftest.Run(t, `
import json, sys, ezdxf
doc = ezdxf.readfile(sys.argv[1])
lts = {lt.dxf.name.upper(): [t.value for t in lt.pattern_tags.tags if t.code == 49] for lt in doc.linetypes}
scales = [e.dxf.ltscale for e in doc.modelspace()]
print(json.dumps({"ltscale": doc.header.get("$LTSCALE", 1.0), "linetypes": lts, "scales": scales}))
`, ezdxftest.File(t, "export.dxf", content))
			var got struct {
				LtScale   float64              `json:"ltscale"`
				Linetypes map[string][]float64 `json:"linetypes"`
				Scales    []float64            `json:"scales"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("ezdxf: %v\n%s", err, out)
			}
			if got.LtScale != 2.5 {
				t.Errorf("ezdxf reads $LTSCALE %v, want 2.5", got.LtScale)
			}
			for _, name := range []string{"DASHED", "ACAD_ISO02W100", "HIDDEN"} {
				want, _ := a.Linetype(name)
				if !slices.Equal(got.Linetypes[name], want.Pattern) {
					t.Errorf("ezdxf reads %s as %v, want %v", name, got.Linetypes[name], want.Pattern)
				}
			}
			if len(got.Scales) != 2 || got.Scales[0] != v.ltscale {
				t.Errorf("ezdxf reads the entities' linetype scales %v, want %v first", got.Scales, v.ltscale)
			}
		})
	}
}

// TestStandardLinetypesWritten checks that a new drawing's standard
// linetypes are written in its units: acadiso.lin's millimetres for a
// metric one, acad.lin's inches for one in inches.
func TestStandardLinetypesWritten(t *testing.T) {
	for _, tc := range []struct {
		units enginev1.Units
		want  []float64
	}{
		{enginev1.Units_UNITS_MM, []float64{12.7, -6.35}},
		{enginev1.Units_UNITS_IN, []float64{0.5, -0.25}},
	} {
		d := drawing.NewDocument("doc-1", "t", tc.units, time.Time{})
		d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "DASHED", Geom: drawing.Line{A: geom.Pt(0, 0), B: geom.Pt(1, 0)}})
		for _, write := range []func(*drawing.Document) string{Write, Write2018} {
			f, err := Read(write(d))
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(f.ltypes, func(l drawing.Linetype) bool { return l.Name == "DASHED" })
			if i < 0 || !slices.Equal(f.ltypes[i].Pattern, tc.want) {
				t.Errorf("%v: DASHED written as %v, want %v", tc.units, f.ltypes, tc.want)
			}
		}
	}
}

// TestImportLinetypeNames: an entity on a standard linetype's half or
// double size keeps its name, and is drawn with the file's pattern of it.
func TestImportLinetypeNames(t *testing.T) {
	content := strings.Replace(linetypeFile, "LINE\n8\n0\n6\nDASHED\n", "LINE\n8\n0\n6\ndashedx2\n", 1)
	content = strings.Replace(content, "2\nACAD_ISO02W100\n", "2\nDASHEDX2\n", 1)
	d, err := importText(content)
	if err != nil {
		t.Fatal(err)
	}
	e := d.Entities()[0]
	if e.Linetype != "DASHEDX2" {
		t.Errorf("the line's linetype %q, want DASHEDX2", e.Linetype)
	}
	if got := d.Pattern(e); !slices.Equal(got, []float64{15, -3.75}) { // 12/−3 × 2.5 × 0.5
		t.Errorf("the line is drawn with %v, want the file's DASHEDX2 [15 -3.75]", got)
	}
}

// TestImportOtherLinetypeNames: entities on a linetype the file defines
// beyond the standard set keep its name, drawn with the file's pattern
// of it; entities on one it does not define follow their layer, and the
// import report says so once for that name, not once for each entity.
func TestImportOtherLinetypeNames(t *testing.T) {
	line := func(lt string) string {
		return "0\nLINE\n8\n0\n6\n" + lt + "\n10\n0\n20\n0\n11\n1\n21\n0\n"
	}
	content := strings.Replace(linetypeFile, "ENTITIES\n", "ENTITIES\n"+line("acad_iso02w100")+line("NOWHERE")+line("nowhere"), 1)
	d, f, err := importFile(content)
	if err != nil {
		t.Fatal(err)
	}
	es := d.Entities()
	if got := es[0].Linetype; got != "ACAD_ISO02W100" {
		t.Errorf("an entity on the file's acad_iso02w100 has linetype %q, want ACAD_ISO02W100 (the table's spelling)", got)
	}
	if got := d.Pattern(es[0]); !slices.Equal(got, []float64{30, -7.5}) { // 12/−3 × $LTSCALE 2.5
		t.Errorf("it is drawn with %v, want the file's pattern [30 -7.5]", got)
	}
	for _, e := range es[1:3] {
		if e.Linetype != "ByLayer" {
			t.Errorf("an entity on an undefined linetype has linetype %q, want ByLayer", e.Linetype)
		}
	}
	warned := 0
	for _, w := range f.rep.warnings {
		if strings.Contains(w.Message, `entities on linetype "NOWHERE", which the file does not define, read as ByLayer`) {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("%d warnings of NOWHERE, want 1: %v", warned, f.rep.warnings)
	}
	for name, write := range map[string]func(*drawing.Document) string{"R2018": Write2018, "R12": Write} {
		content := write(d)
		back, err := importText(content)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := back.Entities()[0].Linetype; got != "ACAD_ISO02W100" {
			t.Errorf("%s: the entity's linetype back as %q, want ACAD_ISO02W100", name, got)
		}
		ezdxftest.Audit(t, content)
	}
}

// TestImportLinetypeLenient: a pattern length that does not read makes
// its linetype continuous, with a warning, and does not refuse the file.
func TestImportLinetypeLenient(t *testing.T) {
	content := strings.Replace(linetypeFile, "49\n-3.0\n", "49\nabc\n", 1)
	d, f, err := importFile(content)
	if err != nil {
		t.Fatalf("import with a length that does not read: %v", err)
	}
	if l, ok := d.Linetype("ACAD_ISO02W100"); !ok || !l.Continuous() {
		t.Errorf("ACAD_ISO02W100 = %+v, %v; want kept, continuous", l, ok)
	}
	warned := false
	for _, w := range f.rep.warnings {
		warned = warned || strings.Contains(w.Message, `"ACAD_ISO02W100" has a length that is not a finite number`)
	}
	if !warned {
		t.Errorf("no warning of the length: %v", f.rep.warnings)
	}
}

// TestPreservedLinetypeScale: a preserved entity's linetype scale is the
// engine's, written once (not again among the codes it keeps).
func TestPreservedLinetypeScale(t *testing.T) {
	content := strings.Replace(linetypeFile, "0\nLINE\n8\n0\n", "0\nHELIX\n8\n0\n", 1) // a type the engine preserves
	d, err := importText(content)
	if err != nil {
		t.Fatal(err)
	}
	e := d.Entities()[0]
	if _, ok := e.Geom.(drawing.Foreign); !ok || e.LtScale() != 0.5 {
		t.Fatalf("the HELIX is %T at linetype scale %v, want preserved at 0.5", e.Geom, e.LtScale())
	}
	_, ents, _ := strings.Cut(Write2018(d), "\nENTITIES\n")
	ents, _, _ = strings.Cut(ents, "\nENDSEC\n")
	if n := strings.Count(ents, "\n 48\n"); n != 1 {
		t.Errorf("the export's entities have %d linetype scales (code 48), want 1:\n%s", n, ents)
	}
}

// TestDashesAsEzdxf holds the dashes of a polyline to those ezdxf's
// drawing add-on cuts it into (its LineTypeRenderer, given the pattern as
// it simplifies a DXF one: the lengths' magnitudes), an independent
// construction of the same rule: the pattern from the first vertex,
// running on across the others, a dot a dash of no length.
func TestDashesAsEzdxf(t *testing.T) {
	pts := []geom.Vec{geom.Pt(0, 0), geom.Pt(37.3, 0), geom.Pt(37.3, 21.7), geom.Pt(-5.2, 44.1)}
	pattern := []float64{12, -6, 0, -6}
	var run []any
	for i := 1; i < len(pts); i++ {
		run = append(run, geom.Segment{A: pts[i-1], B: pts[i]})
	}
	strokes, dots := geom.Dash(run, pattern)
	var mine [][4]float64
	for _, s := range strokes {
		s := s.(geom.Segment)
		mine = append(mine, [4]float64{s.A.X, s.A.Y, s.B.X, s.B.Y})
	}
	for _, d := range dots {
		mine = append(mine, [4]float64{d.X, d.Y, d.X, d.Y})
	}
	vertices, _ := json.Marshal(pts)
	out := ezdxftest.Run(t, `
import json, sys
from ezdxf.render.linetypes import LineTypeRenderer
pts = [(p["X"], p["Y"]) for p in json.loads(sys.argv[1])]
r = LineTypeRenderer([12, 6, 0, 6])
print(json.dumps([[s.x, s.y, e.x, e.y] for s, e in r.line_segments(pts)]))
`, string(vertices))
	if out == "" {
		return
	}
	var theirs [][4]float64
	if err := json.Unmarshal([]byte(out), &theirs); err != nil {
		t.Fatalf("ezdxf: %v\n%s", err, out)
	}
	key := func(a, b [4]float64) int {
		for i := range a {
			if d := a[i] - b[i]; math.Abs(d) > 1e-9 {
				if d < 0 {
					return -1
				}
				return 1
			}
		}
		return 0
	}
	slices.SortFunc(mine, key)
	slices.SortFunc(theirs, key)
	if len(mine) != len(theirs) {
		t.Fatalf("%d dashes and dots, ezdxf %d:\n%v\n%v", len(mine), len(theirs), mine, theirs)
	}
	for i := range mine {
		if key(mine[i], theirs[i]) != 0 {
			t.Errorf("piece %d: %v, ezdxf %v", i, mine[i], theirs[i])
		}
	}
}
