package plot

import (
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// A polyline with width is drawn filled across its width; one without,
// as a line.
func TestPNGPolylineWidths(t *testing.T) {
	d := drawing.NewDocument("doc-1", "widths", enginev1.Units_UNITS_MM, time.Time{})
	add := func(g drawing.Geometry) {
		d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: g})
	}
	add(drawing.NewPolyline([]geom.Vertex{{P: geom.Pt(0, 0)}, {P: geom.Pt(100, 0)}, {P: geom.Pt(100, 60)}, {P: geom.Pt(0, 60)}}, true))
	add(drawing.NewPolyline([]geom.Vertex{{P: geom.Pt(10, 30)}, {P: geom.Pt(90, 30)}}, false).WithWidths([]geom.Width{{Start: 10, End: 10}, {}}))
	add(drawing.NewPolyline([]geom.Vertex{{P: geom.Pt(10, 10)}, {P: geom.Pt(90, 10)}}, false))
	b, err := PNG(d, &enginev1.ExportOptions{Paper: enginev1.PaperSize_PAPER_SIZE_A4.Enum(), Scale: new(1.0)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	img := decode(t, b)
	// As in TestPNGOnA4At1To1: the 100 × 60 frame centred on A4 at 1:1.
	dark := func(wx, wy float64) bool {
		x := (wx + (297-100)/2) / 25.4 * 96
		y := (210 - (wy + (210-60)/2)) / 25.4 * 96
		r, g, b, _ := img.At(int(x), int(y)).RGBA()
		return r>>8 < 100 && g>>8 < 100 && b>>8 < 100
	}
	for _, c := range []struct {
		x, y float64
		want bool
		what string
	}{
		{50, 30, true, "on the wide polyline's centre line"},
		{50, 34, true, "4 mm off the wide polyline's centre line, within its 10 mm"},
		{50, 26, true, "4 mm off the other way"},
		{50, 36, false, "6 mm off, beyond its width"},
		{50, 10, true, "on the polyline without width"},
		{50, 14, false, "4 mm off the polyline without width"},
	} {
		if got := dark(c.x, c.y); got != c.want {
			t.Errorf("(%v, %v), %s: ink %v, want %v", c.x, c.y, c.what, got, c.want)
		}
	}
}
