package plot

import (
	"bytes"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// filled is a 100 × 60 mm square filled red to blue, left to right, and
// a note above it on a yellow background mask of scale 2.
func filled() *drawing.Document {
	d := drawing.NewDocument("doc-1", "filled", enginev1.Units_UNITS_MM, time.Time{})
	sq, _ := drawing.LoopOf(drawing.NewPolyline([]geom.Vertex{{P: geom.Pt(0, 0)}, {P: geom.Pt(100, 0)}, {P: geom.Pt(100, 60)}, {P: geom.Pt(0, 60)}}, true))
	d.Add(&drawing.Entity{Layer: "0", Color: 3, Linetype: "ByLayer", Geom: drawing.Hatch{Pattern: "SOLID", Scale: 1, Loops: []drawing.Loop{sq},
		Gradient: &drawing.Gradient{Name: "LINEAR", Color1: 1, Color2: 5}}})
	d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: drawing.MText{Text: "NOTE", P: geom.Pt(20, 80), Height: 5, Attach: 7, Spacing: 1,
		Background: drawing.Background{Fill: drawing.BackgroundColor, Color: 2, Scale: 2}}})
	return d
}

// The PNG paints the gradient from red at the left to blue at the right
// (not the hatch's own green), and the mask yellow around the note.
func TestPNGFills(t *testing.T) {
	opts := &enginev1.ExportOptions{Paper: enginev1.PaperSize_PAPER_SIZE_A4.Enum(), Scale: new(1.0)}
	_, sheet, err := Render(filled(), opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := PNG(filled(), opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	img := decode(t, b)
	px := func(wx, wy float64) (r, g, b uint32) {
		m := sheet.Paper(geom.Pt(wx, wy))
		x, y := m.X/25.4*96, (sheet.Height-m.Y)/25.4*96
		r, g, b, _ = img.At(int(x), int(y)).RGBA()
		return r >> 8, g >> 8, b >> 8
	}
	if r, g, b := px(3, 30); r < 200 || g > 40 || b > 40 {
		t.Errorf("at the gradient's left = (%d, %d, %d), want red", r, g, b)
	}
	if r, g, b := px(97, 30); b < 200 || g > 40 || r > 40 {
		t.Errorf("at the gradient's right = (%d, %d, %d), want blue", r, g, b)
	}
	if r, g, b := px(50, 30); r < 60 || b < 60 || g > 40 {
		t.Errorf("in the gradient's middle = (%d, %d, %d), want red and blue mixed", r, g, b)
	}
	// The mask reaches (2 − 1) × 5 mm below and left of the note's box.
	if r, g, b := px(16, 76); r < 250 || g < 250 || b > 10 {
		t.Errorf("on the mask = (%d, %d, %d), want yellow", r, g, b)
	}
	if r, g, b := px(14, 74); r < 250 || g < 250 || b < 250 {
		t.Errorf("outside the mask = (%d, %d, %d), want white", r, g, b)
	}
}

// The PDF paints the gradient as a shading pattern.
func TestPDFFills(t *testing.T) {
	b, err := PDF(filled(), &enginev1.ExportOptions{Paper: enginev1.PaperSize_PAPER_SIZE_A4.Enum()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("/ShadingType 2")) || !bytes.Contains(b, []byte("/Pattern")) {
		t.Errorf("PDF has no linear shading pattern")
	}
}
