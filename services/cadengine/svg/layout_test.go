package svg

import (
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// sheet is an A3 layout with a 200 × 150 mm viewport at 1:50 whose
// lower-left corner is at (20, 20) on the paper, showing the model about
// (2500, 0): a 5 m line (0,0)–(5000,0), a line that runs out of the
// window, a circle off it, circles on a frozen layer and on one the
// viewport freezes, a dashed line, and a note on the paper.
type sheet struct {
	d                                  *drawing.Document
	line, across, off, cold, vpc, dash *drawing.Entity
	vp, note                           *drawing.Entity
}

func newSheet() sheet {
	d := drawing.NewDocument("doc-1", "sheet", enginev1.Units_UNITS_MM, time.Time{})
	tx := drawing.NewTx(d, 0)
	tx.SetLayouts(d.Layouts().With(-1, drawing.Layout{Name: "A3", Paper: "A3", Width: 420, Height: 297}))
	d.SetLayer("cold", &drawing.Layer{Name: "cold", Color: 5, Linetype: "Continuous", On: true, Frozen: true})
	d.SetLayer("vpcold", &drawing.Layer{Name: "vpcold", Color: 3, Linetype: "Continuous", On: true})
	d.SetLayer("hidden", &drawing.Layer{Name: "hidden", Color: 1, Linetype: "DASHED", Lineweight: 35, On: true})
	add := func(layout, layer string, g drawing.Geometry) *drawing.Entity {
		return d.Add(&drawing.Entity{Layer: layer, Color: 256, Linetype: "ByLayer", Layout: layout, Geom: g})
	}
	s := sheet{d: d}
	s.line = add("", "0", drawing.Line{A: geom.Pt(0, 0), B: geom.Pt(5000, 0)})
	s.across = add("", "0", drawing.Line{A: geom.Pt(5000, 1000), B: geom.Pt(12000, 1000)})
	s.off = add("", "0", drawing.Circle{C: geom.Pt(9000, 0), R: 500})
	s.cold = add("", "cold", drawing.Circle{C: geom.Pt(2500, 0), R: 500})
	s.vpc = add("", "vpcold", drawing.Circle{C: geom.Pt(2500, 0), R: 700})
	s.dash = add("", "hidden", drawing.Line{A: geom.Pt(0, -2000), B: geom.Pt(5000, -2000)})
	v := drawing.NewViewport(20, 20, 200, 150, geom.Pt(2500, 0), 1.0/50, 2)
	v.Frozen = []string{"vpcold"}
	s.vp = add("A3", "0", v)
	s.note = add("A3", "0", drawing.Text{Text: "NOTE", P: geom.Pt(300, 50), Height: 5})
	return s
}

// element is an SVG element with the clip paths of its ancestors.
type element struct {
	name  string
	attrs map[string]string
	clips []string
}

// elements are the SVG's elements in order.
func elements(t *testing.T, s string) []element {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(s))
	var out []element
	var stack []string // each open element's clip-path, "" for none
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("the SVG does not parse: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			e := element{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			for _, c := range stack {
				if c != "" {
					e.clips = append(e.clips, c)
				}
			}
			out = append(out, e)
			stack = append(stack, e.attrs["clip-path"])
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
}

func float(t *testing.T, e element, name string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(e.attrs[name], 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", e.name, name, e.attrs[name], err)
	}
	return f
}

func TestWriteLayout(t *testing.T) {
	s := newSheet()
	out, err := WriteLayout(s.d, "a3", nil)
	if err != nil {
		t.Fatal(err)
	}
	els := elements(t, out)
	root := els[0]
	if root.attrs["width"] != "420mm" || root.attrs["height"] != "297mm" || root.attrs["viewBox"] != "0 -297 420 297" {
		t.Errorf("<svg width=%q height=%q viewBox=%q>, want 420mm × 297mm over 0 -297 420 297",
			root.attrs["width"], root.attrs["height"], root.attrs["viewBox"])
	}
	byHandle := map[string][]element{}
	var clip *element
	hv := drawing.FormatHandle(s.vp.Handle)
	for i, e := range els {
		if h := e.attrs["data-handle"]; h != "" {
			byHandle[h] = append(byHandle[h], e)
		}
		if e.name == "clipPath" && e.attrs["id"] == "vp-"+hv {
			clip = &els[i+1]
		}
	}
	if clip == nil || clip.name != "rect" || float(t, *clip, "x") != 20 || float(t, *clip, "y") != -170 || float(t, *clip, "width") != 200 || float(t, *clip, "height") != 150 {
		t.Fatalf("clip path of the viewport %v, want a rect at 20 -170, 200 × 150", clip)
	}
	h := func(e *drawing.Entity) string { return drawing.FormatHandle(e.Handle) }

	// The 5 m line is 100 mm of paper, measured in the SVG's coordinates.
	l := byHandle[h(s.line)]
	if len(l) != 1 || l[0].name != "line" {
		t.Fatalf("the line is drawn as %v", l)
	}
	x1, y1, x2, y2 := float(t, l[0], "x1"), float(t, l[0], "y1"), float(t, l[0], "x2"), float(t, l[0], "y2")
	if got := math.Hypot(x2-x1, y2-y1); math.Abs(got-100) > 1e-9 || math.Abs(x1-70) > 1e-9 || math.Abs(y1+95) > 1e-9 {
		t.Errorf("the 5000 mm line at 1:50 runs (%v, %v)–(%v, %v), %v mm; want (70, -95)–(170, -95), 100 mm", x1, y1, x2, y2, got)
	}
	// What the window shows is clipped to its frame; the line that runs
	// out of it is drawn, through the clip.
	for _, e := range []*drawing.Entity{s.line, s.across, s.dash} {
		for _, el := range byHandle[h(e)] {
			if len(el.clips) != 1 || el.clips[0] != "url(#vp-"+hv+")" {
				t.Errorf("entity %s is drawn clipped by %v, want the viewport's", h(e), el.clips)
			}
		}
	}
	if len(byHandle[h(s.across)]) == 0 {
		t.Error("the line across the frame is not drawn")
	}
	// Off the window, frozen, frozen in the viewport: not drawn at all.
	for name, e := range map[string]*drawing.Entity{"off the window": s.off, "on a frozen layer": s.cold, "on a layer the viewport freezes": s.vpc} {
		if len(byHandle[h(e)]) > 0 {
			t.Errorf("the circle %s is drawn", name)
		}
	}
	if strings.Contains(out, `data-layer="cold"`) || strings.Contains(out, `data-layer="vpcold"`) {
		t.Error("a frozen layer has a group in the plot")
	}
	// The paper's own: the frame and the note, unclipped.
	for _, e := range []*drawing.Entity{s.vp, s.note} {
		if els := byHandle[h(e)]; len(els) != 1 || len(els[0].clips) != 0 {
			t.Errorf("paper entity %s drawn as %v, want once, unclipped", h(e), els)
		}
	}
	// The dashed line's dashes are DASHED's 12.7 mm on paper, not a
	// fiftieth of it (PSLTSCALE 1).
	d := byHandle[h(s.dash)]
	if len(d) != 1 || d[0].name != "path" {
		t.Fatalf("the dashed line is drawn as %v", d)
	}
	var a, b float64
	var x, y float64
	if _, err := fmtSscan(d[0].attrs["d"], &a, &b, &x, &y); err != nil {
		t.Fatalf("dash path %q: %v", d[0].attrs["d"], err)
	}
	if got := math.Hypot(x-a, y-b); math.Abs(got-12.7) > 1e-9 {
		t.Errorf("the first dash is %v mm on paper, want 12.7", got)
	}
	// Lineweights are millimetres of paper, whatever the viewport's
	// scale: the dashed layer's 0.35 mm.
	groups := 0
	for _, e := range els {
		if e.name == "g" && e.attrs["data-layer"] == "hidden" {
			groups++
			if e.attrs["stroke-width"] != "0.35" {
				t.Errorf("the layer of lineweight 0.35 mm is drawn %q wide", e.attrs["stroke-width"])
			}
		}
	}
	if groups != 1 {
		t.Errorf("%d groups of the dashed layer, want 1", groups)
	}
	if _, err := WriteLayout(s.d, "A4", nil); !errors.Is(err, drawing.ErrNoLayout) {
		t.Errorf("WriteLayout(A4) = %v, want ErrNoLayout", err)
	}
}

// fmtSscan reads the first stroke "M x y L x y" of a path.
func fmtSscan(d string, a, b, x, y *float64) (int, error) {
	f := strings.Fields(d)
	if len(f) < 6 || f[0] != "M" || f[3] != "L" {
		return 0, errors.New("not M x y L x y")
	}
	var err error
	for i, p := range []*float64{a, b, x, y} {
		if *p, err = strconv.ParseFloat(f[[]int{1, 2, 4, 5}[i]], 64); err != nil {
			return i, err
		}
	}
	return 4, nil
}
