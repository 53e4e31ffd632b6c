package plot

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"os"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// plate is a 100 × 60 mm plate with a solid-hatched square, a hatched
// ring, a dimension, a text and an insert of a block.
func plate() *drawing.Document {
	d := drawing.NewDocument("doc-1", "plate", enginev1.Units_UNITS_MM, time.Time{})
	d.SetLayer("red", &drawing.Layer{Name: "red", Color: 1, Linetype: "Continuous", Lineweight: 50, On: true})
	d.SetLayer("off", &drawing.Layer{Name: "off", Color: 3, Linetype: "Continuous", Lineweight: -3, On: false})
	add := func(layer string, g drawing.Geometry) {
		d.Add(&drawing.Entity{Layer: layer, Color: 256, Linetype: "ByLayer", Geom: g})
	}
	add("0", drawing.NewPolyline([]geom.Vertex{{P: geom.Pt(0, 0)}, {P: geom.Pt(100, 0)}, {P: geom.Pt(100, 60)}, {P: geom.Pt(0, 60)}}, true))
	sq, _ := drawing.LoopOf(drawing.NewPolyline([]geom.Vertex{{P: geom.Pt(10, 10)}, {P: geom.Pt(30, 10)}, {P: geom.Pt(30, 30)}, {P: geom.Pt(10, 30)}}, true))
	add("red", drawing.Hatch{Pattern: "SOLID", Scale: 1, Loops: []drawing.Loop{sq}})
	outer, _ := drawing.LoopOf(drawing.Circle{C: geom.Pt(70, 30), R: 20})
	inner, _ := drawing.LoopOf(drawing.Circle{C: geom.Pt(70, 30), R: 8})
	add("0", drawing.Hatch{Pattern: "ANSI31", Scale: 1, Loops: []drawing.Loop{outer, inner}})
	add("0", drawing.Dimension{Type: enginev1.DimensionKind_DIMENSION_KIND_ALIGNED, P1: geom.Pt(0, 60), P2: geom.Pt(100, 60), Offset: 8, Style: "ISO-25", Scale: 1})
	add("0", drawing.Text{Text: "PLATE", P: geom.Pt(5, 45), Height: 5})
	add("off", drawing.Circle{C: geom.Pt(50, 30), R: 29})
	b := drawing.NewBlock("X", geom.Vec{}, []*drawing.Entity{{Layer: "0", Color: 0, Linetype: "ByBlock", Geom: drawing.Line{A: geom.Pt(-3, -3), B: geom.Pt(3, 3)}}})
	d.AddBlock(b)
	add("red", drawing.Insert{Name: "X", P: geom.Pt(50, 50), Scale: 1, Def: b})
	return d
}

func decode(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	return img
}

func TestPNGOnA4At1To1(t *testing.T) {
	b, err := PNG(plate(), &enginev1.ExportOptions{Paper: enginev1.PaperSize_PAPER_SIZE_A4.Enum(), Scale: new(1.0)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("PLOT_OUT") != "" {
		os.WriteFile(os.Getenv("PLOT_OUT")+"/plate.png", b, 0o644)
	}
	img := decode(t, b)
	// A4 landscape at 96 dpi: 297 × 210 mm.
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); math.Abs(float64(w)-297/25.4*96) > 1 || math.Abs(float64(h)-210/25.4*96) > 1 {
		t.Errorf("PNG is %d × %d px, want A4 at 96 dpi (1123 × 794)", w, h)
	}
	// The plate is centred at 1:1: paper (x, y) mm from the lower left
	// is world (x − 98.5, y − 75), and pixel rows run down.
	px := func(wx, wy float64) (uint32, uint32, uint32) {
		x := (wx + (297-100)/2) / 25.4 * 96
		y := (210 - (wy + (210-60)/2)) / 25.4 * 96
		r, g, b, _ := img.At(int(x), int(y)).RGBA()
		return r >> 8, g >> 8, b >> 8
	}
	if r, g, b := px(20, 20); r < 200 || g > 60 || b > 60 {
		t.Errorf("inside the solid hatch = (%d, %d, %d), want red", r, g, b)
	}
	if r, g, b := px(70, 30); r < 250 || g < 250 || b < 250 {
		t.Errorf("inside the island = (%d, %d, %d), want white", r, g, b)
	}
	if r, g, b := px(50, 30-29); r < 250 || g < 250 || b < 250 {
		t.Errorf("on the circle of the layer that is off = (%d, %d, %d), want white", r, g, b)
	}
}

func TestPDF(t *testing.T) {
	b, err := PDF(plate(), &enginev1.ExportOptions{Paper: enginev1.PaperSize_PAPER_SIZE_A3.Enum()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("PLOT_OUT") != "" {
		os.WriteFile(os.Getenv("PLOT_OUT")+"/plate.pdf", b, 0o644)
	}
	if !bytes.HasPrefix(b, []byte("%PDF-")) || !bytes.Contains(b, []byte("/MediaBox[0 0 1190.55")) {
		t.Errorf("PDF does not start with %%PDF- or is not A3 landscape: %.200q", b)
	}
}
