package plot

import (
	"errors"
	"image"
	"math"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// a3Sheet is an A3 layout with a 200 × 150 mm viewport at 1:50 whose
// lower-left corner is at (20, 20) on the paper, showing the model about
// (2500, 0), so that a model point p lands at (p − (2500, 0)) / 50 +
// (120, 95) on the paper. The model has a 5 m line on y = 0 (paper
// 70–170 at y 95); a line at y = 1000 from x 5000 to 12000 (paper y 115,
// x 170–310, out of the frame at 220); a circle off the window (paper
// (250, 95), r 10); a solid square across the frame's right edge (paper
// x 190–250, y 35–75); a text across it too; circles on a frozen layer
// (paper r 10 about (120, 95)) and on a layer the viewport freezes (r
// 14). The paper has a note at (300, 50).
func a3Sheet() *drawing.Document {
	d := drawing.NewDocument("doc-1", "sheet", enginev1.Units_UNITS_MM, time.Time{})
	tx := drawing.NewTx(d, 0)
	tx.SetLayouts(d.Layouts().With(-1, drawing.Layout{Name: "A3", Paper: "A3", Width: 420, Height: 297}))
	d.SetLayer("cold", &drawing.Layer{Name: "cold", Color: 5, Linetype: "Continuous", On: true, Frozen: true})
	d.SetLayer("vpcold", &drawing.Layer{Name: "vpcold", Color: 3, Linetype: "Continuous", On: true})
	add := func(layout, layer string, g drawing.Geometry) {
		d.Add(&drawing.Entity{Layer: layer, Color: 256, Linetype: "ByLayer", Layout: layout, Geom: g})
	}
	add("", "0", drawing.Line{A: geom.Pt(0, 0), B: geom.Pt(5000, 0)})
	add("", "0", drawing.Line{A: geom.Pt(5000, 1000), B: geom.Pt(12000, 1000)})
	add("", "0", drawing.Circle{C: geom.Pt(9000, 0), R: 500})
	sq, _ := drawing.LoopOf(drawing.NewPolyline([]geom.Vertex{{P: geom.Pt(6000, -3000)}, {P: geom.Pt(9000, -3000)}, {P: geom.Pt(9000, -1000)}, {P: geom.Pt(6000, -1000)}}, true))
	add("", "0", drawing.Hatch{Pattern: "SOLID", Scale: 1, Loops: []drawing.Loop{sq}})
	add("", "0", drawing.Text{Text: "WWWWWWWW", P: geom.Pt(5500, 2500), Height: 400})
	add("", "cold", drawing.Circle{C: geom.Pt(2500, 0), R: 500})
	add("", "vpcold", drawing.Circle{C: geom.Pt(2500, 0), R: 700})
	v := drawing.NewViewport(20, 20, 200, 150, geom.Pt(2500, 0), 1.0/50, 2)
	v.Frozen = []string{"vpcold"}
	add("A3", "0", v)
	add("A3", "0", drawing.Text{Text: "NOTE", P: geom.Pt(300, 50), Height: 5})
	return d
}

var mediaBox = regexp.MustCompile(`/MediaBox\s*\[\s*0 0 ([0-9.]+) ([0-9.]+)\s*\]`)

func TestLayoutPDFPage(t *testing.T) {
	b, err := LayoutPDF(a3Sheet(), "a3", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := mediaBox.FindSubmatch(b)
	if m == nil {
		t.Fatal("the PDF has no MediaBox")
	}
	w, _ := strconv.ParseFloat(string(m[1]), 64)
	h, _ := strconv.ParseFloat(string(m[2]), 64)
	// A3 is 420 × 297 mm; a point is 25.4 / 72 mm.
	if math.Abs(w-1190.55) > 0.01 || math.Abs(h-841.89) > 0.01 {
		t.Errorf("MediaBox %v × %v pt, want 1190.55 × 841.89", w, h)
	}
	if _, err := LayoutPDF(a3Sheet(), "A1", nil); !errors.Is(err, drawing.ErrNoLayout) {
		t.Errorf("LayoutPDF(A1) = %v, want ErrNoLayout", err)
	}
}

// TestLayoutPNGClipped looks at the plotted pixels: what the window
// shows inside its frame, nothing of it outside; frozen layers nowhere.
func TestLayoutPNGClipped(t *testing.T) {
	b, err := LayoutPNG(a3Sheet(), "A3", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	img := decode(t, b)
	if dir := os.Getenv("PLOT_OUT"); dir != "" {
		os.WriteFile(dir+"/layout.png", b, 0o644)
	}
	// 150 dpi: A3 is 2480 × 1754 pixels.
	if got := img.Bounds().Size(); got != (image.Point{2480, 1754}) {
		t.Fatalf("PNG is %v pixels, want 2480 × 1754 (A3 at 150 dpi)", got)
	}
	at := func(x, y float64) (int, int) { // paper mm to a pixel
		k := 150 / 25.4
		return int(x * k), int((297 - y) * k)
	}
	ink := func(x, y float64) bool { // any pixel about a paper point darker than the page
		px, py := at(x, y)
		for dx := -2; dx <= 2; dx++ {
			for dy := -2; dy <= 2; dy++ {
				r, g, bl, _ := img.At(px+dx, py+dy).RGBA()
				if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
					return true
				}
			}
		}
		return false
	}
	for _, c := range []struct {
		what string
		x, y float64
		want bool
	}{
		{"the 5 m line", 100, 95, true},
		{"the line across the frame, inside", 200, 115, true},
		{"the line across the frame, outside", 260, 115, false},
		{"the line across the frame, just outside", 223, 115, false},
		{"the solid square, inside", 205, 45, true},
		{"the solid square, outside", 240, 45, false},
		{"the circle off the window", 260, 95, false},
		{"the text, inside", 200, 149, true},
		{"the text, outside", 230, 149, false},
		{"the circle on a frozen layer", 120, 105, false},
		{"the circle on a layer the viewport freezes", 120, 109, false},
		{"the viewport's frame", 220, 140, true},
		{"the paper's note", 302, 52, true},
	} {
		if got := ink(c.x, c.y); got != c.want {
			t.Errorf("%s at (%v, %v) mm: ink %v, want %v", c.what, c.x, c.y, got, c.want)
		}
	}
}

// TestViewOfLayout: a view of a layout shows what its viewport shows of
// model space, clipped to its frame, as the plot does.
func TestViewOfLayout(t *testing.T) {
	win := geom.Box{Min: geom.Pt(0, 0), Max: geom.Pt(420, 297), NonEmpty: true}
	pic, err := View(a3Sheet(), ViewOptions{Layout: "A3", Window: win, Width: 840}, nil)
	if err != nil {
		t.Fatal(err)
	}
	img := decode(t, pic.PNG)
	ink := func(x, y float64) bool { // 2 px per mm
		px, py := int(x*2), int((297-y)*2)
		for dx := -1; dx <= 1; dx++ {
			for dy := -1; dy <= 1; dy++ {
				if r, g, b, _ := img.At(px+dx, py+dy).RGBA(); r < 0xf000 || g < 0xf000 || b < 0xf000 {
					return true
				}
			}
		}
		return false
	}
	if !ink(100, 95) || !ink(200, 115) || ink(260, 115) || ink(120, 105) {
		t.Errorf("view of the layout: the 5 m line %v, the line across inside %v (want both), outside %v, the frozen circle %v (want neither)",
			ink(100, 95), ink(200, 115), ink(260, 115), ink(120, 105))
	}
	if pic.Entities != 2+4 { // the frame and the note; the two lines, the square and the text reach the window
		t.Errorf("the view counts %d entities", pic.Entities)
	}
}
