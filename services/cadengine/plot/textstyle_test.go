package plot

import (
	"image"
	"math"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// A text's ink is as wide as its width factor says; a fitted text's runs
// from its first point to its second; an oblique text's top leans right
// of its foot; a backwards text runs left of its point.
func TestPNGTextStyles(t *testing.T) {
	d := drawing.NewDocument("doc-1", "styles", enginev1.Units_UNITS_MM, time.Time{})
	add := func(g drawing.Geometry) {
		d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: g})
	}
	add(drawing.NewPolyline([]geom.Vertex{{P: geom.Pt(0, 0)}, {P: geom.Pt(100, 0)}, {P: geom.Pt(100, 60)}, {P: geom.Pt(0, 60)}}, true))
	add(drawing.Text{Text: "HHHH", P: geom.Pt(5, 45), Height: 8})
	add(drawing.Text{Text: "HHHH", P: geom.Pt(5, 30), Height: 8, Style: drawing.TextStyle{Width: 0.5}})
	add(drawing.Text{Text: "HH", P: geom.Pt(5, 15), Height: 8, Fit: drawing.FitWidth, End: geom.Pt(95, 15)})
	add(drawing.Text{Text: "I", P: geom.Pt(50, 2), Height: 8, Style: drawing.TextStyle{Oblique: 30}})
	add(drawing.Text{Text: "HH", P: geom.Pt(95, 55), Height: 3, Style: drawing.TextStyle{Mirror: drawing.MirrorBackward}})
	b, err := PNG(d, &enginev1.ExportOptions{Paper: enginev1.PaperSize_PAPER_SIZE_A4.Enum(), Scale: new(1.0)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	img := decode(t, b)
	// As in TestPNGOnA4At1To1: the 100 × 60 frame centred on A4 at 1:1,
	// 96 pixels to the inch. ink is the extent in x (mm) of the dark
	// pixels between heights y0 and y1, inside the frame.
	px := func(wx, wy float64) image.Point {
		return image.Pt(int((wx+(297-100)/2)/25.4*96), int((210-(wy+(210-60)/2))/25.4*96))
	}
	ink := func(y0, y1 float64) (x0, x1 float64) {
		x0, x1 = math.Inf(1), math.Inf(-1)
		for wx := 1.0; wx < 99; wx += 0.05 {
			for wy := y0; wy <= y1; wy += 0.1 {
				p := px(wx, wy)
				r, g, b, _ := img.At(p.X, p.Y).RGBA()
				if r>>8 < 128 && g>>8 < 128 && b>>8 < 128 {
					x0, x1 = min(x0, wx), max(x1, wx)
				}
			}
		}
		return x0, x1
	}
	p0, p1 := ink(46, 52)
	n0, n1 := ink(31, 37)
	if got := (n1 - n0) / (p1 - p0); math.Abs(got-0.5) > 0.03 {
		t.Errorf("ink of HHHH at width factor 0.5 is %v–%v, at 1 %v–%v: %v as wide, want 0.5", n0, n1, p0, p1, got)
	}
	// HH stretched from 5 to 95 runs from its pen's start to the right
	// of its ink: the ink ends at 95 (within a pixel, 0.26 mm) and starts
	// after 5 by H's left bearing stretched: in DejaVu Sans H's ink is
	// 201–1339 of its advance 1540 (in 2048ths of an em), so HH's runs
	// 1540 + 1339 = 2879 and starts 201/2879 × 90 = 6.3 mm in.
	if f0, f1 := ink(16, 22); math.Abs(f1-95) > 0.5 || math.Abs(f0-11.3) > 0.8 {
		t.Errorf("ink of HH fitted from 5 to 95 is %v–%v, want 11.3–95", f0, f1)
	}
	// The I's stem leans 30°: its top (7 mm up) is 7 × tan 30° = 4 mm
	// right of its foot.
	f0, f1 := ink(2.5, 3)
	t0, t1 := ink(8.5, 9)
	if shift := (t0 + t1 - f0 - f1) / 2; math.Abs(shift-6*math.Tan(math.Pi/6)) > 0.5 {
		t.Errorf("the oblique I's top is %v right of its foot, want 6 tan 30° = %v", shift, 6*math.Tan(math.Pi/6))
	}
	// HH drawn backwards from x = 95: its ink ends at 95 less H's
	// bearing (within a pixel, 0.26 mm), and reaches left of it by about
	// two advances (2 × 0.74 × 3 / 0.72 ≈ 6 mm).
	if b0, b1 := ink(55.5, 57.5); b1 > 95.3 || b1 < 93 || b0 > 90.5 || b0 < 87 {
		t.Errorf("ink of HH drawn backwards from 95 is %v–%v, want it left of 95, about 6 mm long", b0, b1)
	}
}
