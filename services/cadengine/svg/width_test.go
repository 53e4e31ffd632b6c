package svg

import (
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// A polyline with width is its filled outline (non-zero), not a stroked
// path; one without is the path it always was.
func TestPolylineWidths(t *testing.T) {
	d := drawing.NewDocument("doc-1", "widths", enginev1.Units_UNITS_MM, time.Time{})
	thin := drawing.NewPolyline([]geom.Vertex{{P: geom.Pt(0, 0)}, {P: geom.Pt(10, 0)}}, false)
	d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: thin})
	d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: drawing.NewPolyline([]geom.Vertex{{P: geom.Pt(0, 5)}, {P: geom.Pt(10, 5)}}, false).WithWidths([]geom.Width{{Start: 2, End: 2}, {}})})
	s := Write(d)
	if !strings.Contains(s, `<path id="e100" data-handle="100" data-layer="0" data-type="polyline" d="M 0 0 L 10 0"/>`) {
		t.Errorf("Write draws the polyline without width otherwise than as its path:\n%s", s)
	}
	if want := `<path d="M 0 -4 L 10 -4 L 10 -6 L 0 -6 Z" fill="#000000" fill-rule="nonzero" stroke="none"/>`; !strings.Contains(s, want) {
		t.Errorf("Write has no %s for the polyline 2 wide:\n%s", want, s)
	}
}
