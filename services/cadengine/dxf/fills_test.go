package dxf

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/dxftest"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// filledDocument has MTEXTs with and without background masks and
// hatches with and without gradients.
func filledDocument() *drawing.Document {
	d := drawing.NewDocument("doc-0000000000000002", "filled", enginev1.Units_UNITS_MM, time.Time{})
	square := func(x float64) drawing.Loop {
		return drawing.Loop{Poly: geom.Polyline{Closed: true, V: []geom.Vertex{{P: geom.Pt(x, 0)}, {P: geom.Pt(x+10, 0)}, {P: geom.Pt(x+10, 10)}, {P: geom.Pt(x, 10)}}}}
	}
	for _, g := range []drawing.Geometry{
		drawing.MText{Text: "plain", P: geom.Pt(0, 20), Height: 2, Attach: 1, Spacing: 1},
		drawing.MText{Text: "coloured", P: geom.Pt(0, 30), Height: 2, Attach: 1, Spacing: 1, Background: drawing.Background{Fill: drawing.BackgroundColor, Color: 2, Scale: 1.25}},
		drawing.MText{Text: "window", P: geom.Pt(0, 40), Height: 2, Attach: 1, Spacing: 1, Background: drawing.Background{Fill: drawing.BackgroundWindow, Scale: 1.5}},
		drawing.MText{Text: "true", P: geom.Pt(0, 50), Height: 2, Attach: 1, Spacing: 1, Background: drawing.Background{Fill: drawing.BackgroundColor | drawing.BackgroundFrame, Color: 3, True: drawing.RGBTrue(0x12, 0x34, 0x56), Scale: 2}},
		drawing.Hatch{Pattern: "SOLID", Scale: 1, Loops: []drawing.Loop{square(0)}},
		drawing.Hatch{Pattern: "SOLID", Scale: 1, Loops: []drawing.Loop{square(20)}, Gradient: &drawing.Gradient{Name: "LINEAR", Color1: 5, Color2: 2, Angle: 30}},
		drawing.Hatch{Pattern: "SOLID", Scale: 1, Loops: []drawing.Loop{square(40)}, Gradient: &drawing.Gradient{Name: "INVSPHERICAL", Color1: 1, Color2: 4, Shift: drawing.NotCentered}},
		drawing.Hatch{Pattern: "SOLID", Scale: 1, Loops: []drawing.Loop{square(60)}, Gradient: &drawing.Gradient{Name: "CYLINDER", Color1: 6, OneColor: true, Tint: 1}},
		drawing.Hatch{Pattern: "SOLID", Scale: 1, Loops: []drawing.Loop{square(80)}, Gradient: &drawing.Gradient{Name: "CURVED", Color1: 1, True1: drawing.RGBTrue(1, 2, 3), Color2: 5, True2: drawing.RGBTrue(200, 100, 50)}},
	} {
		d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: g})
	}
	return d
}

// fills are the backgrounds and gradients of a document's entities, in
// order.
func fills(d *drawing.Document) []any {
	var out []any
	for _, e := range d.Entities() {
		switch g := e.Geom.(type) {
		case drawing.MText:
			out = append(out, g.Background)
		case drawing.Hatch:
			out = append(out, g.Gradient)
		}
	}
	return out
}

// show spells a fill for a message, a gradient rather than its address.
func show(f any) string {
	if g, ok := f.(*drawing.Gradient); ok && g != nil {
		return fmt.Sprintf("&%+v", *g)
	}
	return fmt.Sprintf("%+v", f)
}

// fillsScript prints, as JSON, what ezdxf reads of each MTEXT's
// background and each HATCH's gradient.
const fillsScript = `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
out = []
for e in doc.modelspace():
    if e.dxftype() == "MTEXT":
        out.append({"bg": e.dxf.get("bg_fill", 0), "color": e.dxf.get("bg_fill_color", 0),
                    "true": e.dxf.get("bg_fill_true_color", 0), "scale": e.dxf.get("box_fill_scale", 0)})
    elif e.dxftype() == "HATCH":
        g = e.gradient
        if g is None:
            out.append({"gradient": False})
        else:
            out.append({"gradient": True, "name": g.name, "rotation": g.rotation, "centered": g.centered,
                        "one": g.one_color, "tint": g.tint, "n": g.number_of_colors,
                        "aci1": g.aci1, "aci2": g.aci2, "c1": list(g.color1), "c2": list(g.color2)})
print(json.dumps(out))
`

// The R2018 export keeps backgrounds and gradients: the engine reads
// them back the same, and ezdxf reads the flags, colours and names; a
// plain MTEXT and a plain hatch write none.
func TestFillsRoundTrip(t *testing.T) {
	d := filledDocument()
	content := Write2018(d)
	back, err := importText(content)
	if err != nil {
		t.Fatal(err)
	}
	got, want := fills(back), fills(d)
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("fill %d read back = %s, want %s", i, show(got[i]), show(want[i]))
		}
	}
	// The same but for the document's id in the header's comment.
	if again := Write2018(back); again != strings.Replace(content, d.ID, back.ID, 1) {
		t.Errorf("a second export differs from the first")
	}
	ezdxftest.Audit(t, content)
	out := ezdxftest.Run(t, fillsScript, ezdxftest.File(t, "fills.dxf", content))
	if out == "" {
		return // no ezdxf outside CI
	}
	var read []struct {
		Bg, Color, True int
		Scale           float64
		Gradient        bool
		Name            string
		Rotation, Tint  float64
		Centered        float64
		One, N          int
		Aci1, Aci2      *int
		C1, C2          []int
	}
	if err := json.Unmarshal([]byte(out), &read); err != nil {
		t.Fatalf("ezdxf printed %s: %v", out, err)
	}
	if len(read) != 9 {
		t.Fatalf("ezdxf read %d MTEXTs and HATCHes, want 9", len(read))
	}
	mt := read[:4]
	if mt[0].Bg != 0 || mt[1].Bg != 1 || mt[1].Color != 2 || mt[1].Scale != 1.25 || mt[2].Bg != 2 || mt[2].Scale != 1.5 ||
		mt[3].Bg != 17 || mt[3].Color != 3 || mt[3].True != 0x123456 || mt[3].Scale != 2 {
		t.Errorf("ezdxf reads the backgrounds as %+v", mt)
	}
	h := read[4:]
	if h[0].Gradient {
		t.Errorf("ezdxf reads a gradient in the plain hatch")
	}
	lin := h[1]
	if !lin.Gradient || lin.Name != "LINEAR" || math.Abs(lin.Rotation-30) > 1e-9 || lin.Centered != 0 || lin.N != 2 ||
		lin.Aci1 == nil || *lin.Aci1 != 5 || lin.Aci2 == nil || *lin.Aci2 != 2 ||
		!reflect.DeepEqual(lin.C1, []int{0, 0, 255}) || !reflect.DeepEqual(lin.C2, []int{255, 255, 0}) {
		t.Errorf("ezdxf reads the linear gradient as %+v", lin)
	}
	if s := h[2]; s.Name != "INVSPHERICAL" || s.Centered != drawing.NotCentered {
		t.Errorf("ezdxf reads the shifted gradient as %+v", s)
	}
	if c := h[3]; c.Name != "CYLINDER" || c.One != 1 || c.Tint != 1 || c.N != 1 {
		t.Errorf("ezdxf reads the one-colour gradient as %+v", c)
	}
	if c := h[4]; !reflect.DeepEqual(c.C1, []int{1, 2, 3}) || !reflect.DeepEqual(c.C2, []int{200, 100, 50}) {
		t.Errorf("ezdxf reads the true colours as %+v", c)
	}
}

// ezdxfFillsScript writes, with ezdxf, an MTEXT with a background of ACI
// 1 at scale 1.8, one in the window's colour, and hatches with gradients
// set by ezdxf's own set_gradient.
const ezdxfFillsScript = `
import sys, ezdxf
doc = ezdxf.new("R2018")
msp = doc.modelspace()
m = msp.add_mtext("masked", dxfattribs={"char_height": 2, "insert": (0, 0)})
m.set_bg_color(1, scale=1.8)
w = msp.add_mtext("window", dxfattribs={"char_height": 2, "insert": (0, 10)})
w.set_bg_color("canvas")
h = msp.add_hatch()
h.paths.add_polyline_path([(0, 0), (10, 0), (10, 10), (0, 10)], is_closed=True)
h.set_gradient(color1=(255, 0, 0), color2=(0, 0, 255), rotation=45, centered=0, name="HEMISPHERICAL")
h2 = msp.add_hatch()
h2.paths.add_polyline_path([(20, 0), (30, 0), (30, 10), (20, 10)], is_closed=True)
h2.set_gradient(color1=(10, 20, 30), rotation=0, one_color=1, tint=0.25, name="LINEAR")
doc.saveas(sys.argv[1])
`

// The engine reads the backgrounds and gradients ezdxf writes.
func TestFillsFromEzdxf(t *testing.T) {
	if ezdxftest.Python(t) == "" {
		return // no ezdxf outside CI
	}
	path := ezdxftest.File(t, "ezdxf-fills.dxf", "")
	ezdxftest.Run(t, ezdxfFillsScript, path)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	content := string(raw)
	d, err := importText(content)
	if err != nil {
		t.Fatal(err)
	}
	got := fills(d)
	want := []any{
		drawing.Background{Fill: drawing.BackgroundColor, Color: 1, Scale: 1.8},
		drawing.Background{Fill: drawing.BackgroundColor | drawing.BackgroundWindow, Scale: 1.5},
		&drawing.Gradient{Name: "HEMISPHERICAL", True1: drawing.RGBTrue(255, 0, 0), True2: drawing.RGBTrue(0, 0, 255), Angle: 45},
		&drawing.Gradient{Name: "LINEAR", True1: drawing.RGBTrue(10, 20, 30), OneColor: true, Tint: 0.25},
	}
	if len(got) != len(want) {
		t.Fatalf("fills = %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if gg, ok := g.(*drawing.Gradient); ok && gg != nil {
			gg.Angle = math.Round(gg.Angle*1e9) / 1e9
		}
		if b, ok := g.(drawing.Background); ok {
			// ezdxf writes a scale of 1.5 for the window; keep only what
			// the test says.
			b.Transparency = 0
			g = b
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("fill %d = %s, want %s", i, show(g), show(w))
		}
	}
	for _, e := range d.Entities() {
		if h, ok := e.Geom.(drawing.Hatch); ok && !h.Solid() {
			t.Errorf("a gradient hatch reads as pattern %q, want SOLID", h.Pattern)
		}
	}
	if !strings.Contains(content, "HEMISPHERICAL") {
		t.Errorf("ezdxf's file has no gradient name")
	}
}

// modelFills counts the model space's MTEXTs with background masks and
// gradient hatches.
func modelFills(d *drawing.Document) [2]int {
	var n [2]int
	for _, e := range d.Entities() {
		switch g := e.Geom.(type) {
		case drawing.MText:
			if g.Background.On() {
				n[0]++
			}
		case drawing.Hatch:
			if g.Gradient != nil {
				n[1]++
			}
		}
	}
	return n
}

// The corpus's files with MTEXT background masks or gradient hatches (as
// ezdxf counts them in model space) keep them, and keep them through the
// R2018 export and import again; no other file has any.
func TestCorpusFills(t *testing.T) {
	want := map[string][2]int{
		"mozman__ezdxf__examples_dxf__text.dxf":                            {1, 0},
		"mozman__ezdxf__integration_tests__data__mtext_framed_columns.dxf": {2, 0}, // two MTEXTs of columns, their further columns joined to them
		"haplokuon__netDxf__TestDxfDocument__sample.dxf":                   {0, 2},
	}
	for _, cf := range dxftest.CorpusFiles(t) {
		f, err := ReadBytes(cf.Data)
		if err != nil {
			continue // TestCorpus says which must read
		}
		d := drawing.NewDocument("doc-c", "corpus", f.Units, time.Time{})
		if err := f.Build(d); err != nil {
			continue
		}
		got := modelFills(d)
		if got != want[cf.Name] {
			t.Errorf("%s: %d masks and %d gradients, want %v", cf.Name, got[0], got[1], want[cf.Name])
		}
		if got == ([2]int{}) {
			continue
		}
		back, err := importText(Write2018(d))
		if err != nil {
			t.Fatalf("%s: exported and imported again: %v", cf.Name, err)
		}
		if again := modelFills(back); again != got {
			t.Errorf("%s: exported and imported again, %v masks and gradients, want %v", cf.Name, again, got)
		}
	}
}

// A solid HATCH the engine preserves (here for the elliptic arc of its
// outer boundary) fills its boundaries as a hatch fills them, islands
// left empty: its outer boundary is the upper half of the ellipse about
// the origin with semi-axes 10 and 5 closed by the x axis, and its
// island the square from (-1, 1) to (1, 3), both written
// counter-clockwise. A preserved entity's fills go by the non-zero
// rule, so the island must come out the other way round. A patterned
// hatch on the same boundaries fills nothing.
func TestPreservedHatchFills(t *testing.T) {
	const boundaries = "91|2|" +
		"92|1|93|2|72|3|10|0|20|0|11|10|21|0|40|0.5|50|0|51|180|73|1|72|1|10|-10|20|0|11|10|21|0|97|0|" +
		"92|2|72|0|73|1|93|4|10|-1|20|1|10|1|20|1|10|1|20|3|10|-1|20|3|97|0|75|0|76|1|98|0"
	hatch := func(pattern string) *drawing.Document {
		t.Helper()
		head := "0|HATCH|100|AcDbEntity|8|0|100|AcDbHatch|10|0|20|0|30|0|210|0|220|0|230|1|"
		d, err := importText(strings.ReplaceAll("0|SECTION|2|ENTITIES|"+head+pattern+boundaries+"|0|ENDSEC|0|EOF|", "|", "\n"))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	g := foreignOfType(t, hatch("2|SOLID|70|1|71|0|"), "HATCH")
	if len(g.Fills) != 2 {
		t.Fatalf("fills = %v, want the two boundaries", g.Fills)
	}
	for _, tc := range []struct {
		p      geom.Vec
		filled bool
	}{
		{geom.Pt(0, 4), true},     // between the island and the ellipse
		{geom.Pt(-6, 1), true},    // left of the island
		{geom.Pt(0, 2), false},    // in the island
		{geom.Pt(0, -1), false},   // below the x axis
		{geom.Pt(9, 4.5), false},  // outside the ellipse
		{geom.Pt(0, 4.95), true},  // just under the ellipse's top
		{geom.Pt(0, 5.05), false}, // just over it
	} {
		winding := 0
		for _, f := range g.Fills {
			winding += windingNumber(f, tc.p)
		}
		if got := winding != 0; got != tc.filled {
			t.Errorf("%v filled = %v (winding %d), want %v", tc.p, got, winding, tc.filled)
		}
	}
	if g := foreignOfType(t, hatch("2|ANSI31|70|0|71|0|"), "HATCH"); g.Fills != nil {
		t.Errorf("patterned hatch fills %v, want none", g.Fills)
	}
}

// windingNumber is how many times the closed polygon winds
// counter-clockwise round p.
func windingNumber(poly []geom.Vec, p geom.Vec) int {
	w := 0
	for i, a := range poly {
		b := poly[(i+1)%len(poly)]
		cross := (b.X-a.X)*(p.Y-a.Y) - (p.X-a.X)*(b.Y-a.Y)
		switch {
		case a.Y <= p.Y && b.Y > p.Y && cross > 0:
			w++
		case a.Y > p.Y && b.Y <= p.Y && cross < 0:
			w--
		}
	}
	return w
}
