package svg

import (
	"math"
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// plan is a 10 m × 7 m outline with a solid-hatched corner and a
// dimension, in millimetres.
func plan() *drawing.Document {
	d := drawing.NewDocument("doc-1", "plan", enginev1.Units_UNITS_MM, time.Time{})
	d.SetLayer("walls", &drawing.Layer{Name: "walls", Color: 7, Linetype: "Continuous", Lineweight: 50, On: true})
	add := func(g drawing.Geometry) {
		d.Add(&drawing.Entity{Layer: "walls", Color: 256, Linetype: "ByLayer", Geom: g})
	}
	add(drawing.NewPolyline([]geom.Vertex{{P: geom.Pt(0, 0)}, {P: geom.Pt(10000, 0)}, {P: geom.Pt(10000, 7000)}, {P: geom.Pt(0, 7000)}}, true))
	sq, _ := drawing.LoopOf(drawing.NewPolyline([]geom.Vertex{{P: geom.Pt(0, 0)}, {P: geom.Pt(500, 0)}, {P: geom.Pt(500, 500)}, {P: geom.Pt(0, 500)}}, true))
	add(drawing.Hatch{Pattern: "SOLID", Scale: 1, Loops: []drawing.Loop{sq}})
	add(drawing.Dimension{Type: enginev1.DimensionKind_DIMENSION_KIND_ROTATED, P1: geom.Pt(0, 0), P2: geom.Pt(10000, 0), Offset: -700, Style: "ISO-25", Scale: 50})
	return d
}

func TestWriteWithPaperAndScale(t *testing.T) {
	for _, tc := range []struct {
		name          string
		opts          *enginev1.ExportOptions
		width, height string
		factor        float64 // paper mm per mm
	}{
		{"A3 at 1:50", &enginev1.ExportOptions{Paper: enginev1.PaperSize_PAPER_SIZE_A3.Enum(), Scale: new(50.0)}, "420mm", "297mm", 1.0 / 50},
		{"A4 fitted", &enginev1.ExportOptions{Paper: enginev1.PaperSize_PAPER_SIZE_A4.Enum()}, "297mm", "210mm", 0},
		{"1:100 without paper", &enginev1.ExportOptions{Scale: new(100.0)}, "", "", 1.0 / 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := WriteWith(plan(), tc.opts, nil)
			if err != nil {
				t.Fatalf("WriteWith(%s): %v", tc.name, err)
			}
			if tc.width != "" && !strings.Contains(s, `width="`+tc.width+`" height="`+tc.height+`"`) {
				t.Errorf("WriteWith(%s) has no width %s and height %s:\n%.300s", tc.name, tc.width, tc.height, s)
			}
			if tc.factor > 0 {
				// 0.5 mm walls on paper: a stroke of 0.5/factor world mm.
				if want := `stroke-width="` + num(0.5/tc.factor) + `"`; !strings.Contains(s, want) {
					t.Errorf("WriteWith(%s) has no %s for the 0.5 mm walls", tc.name, want)
				}
			}
			if !strings.Contains(s, `fill-rule="evenodd"`) || !strings.Contains(s, ">10000</text>") {
				t.Errorf("WriteWith(%s) draws no solid hatch or no dimension text", tc.name)
			}
		})
	}
	// Without options it is Write.
	if s, err := WriteWith(plan(), nil, nil); err != nil || s != Write(plan()) {
		t.Error("WriteWith(nil) differs from Write")
	}
	sheet := drawing.NewSheet(plan().Entity(0x100).Geom.Bounds(), enginev1.Units_UNITS_M, enginev1.PaperSize_PAPER_SIZE_A3, 50)
	if math.Abs(sheet.Factor-20) > 1e-12 {
		t.Errorf("a metre at 1:50 is %v paper mm, want 20", sheet.Factor)
	}
}

// An aligned text is anchored by its alignment: centred or ended at its
// point by text-anchor, its baseline moved below a top or middle point.
func TestTextAnchored(t *testing.T) {
	d := drawing.NewDocument("doc-1", "texts", enginev1.Units_UNITS_MM, time.Time{})
	for _, g := range []drawing.Text{
		{Text: "start", P: geom.Pt(0, 0), Height: 2},
		{Text: "centre", P: geom.Pt(0, 10), Height: 2, Align: drawing.Align{H: drawing.AlignCenter, V: drawing.AlignMiddle}},
		{Text: "end", P: geom.Pt(0, 20), Height: 2, Align: drawing.Align{H: drawing.AlignRight, V: drawing.AlignTop}},
	} {
		d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: g})
	}
	s := Write(d)
	for _, want := range []string{
		`y="0" font-size="2.7777777777777777" font-family="sans-serif" stroke="none"`,
		`y="-9" font-size="2.7777777777777777" font-family="sans-serif" text-anchor="middle"`,
		`y="-18" font-size="2.7777777777777777" font-family="sans-serif" text-anchor="end"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the SVG has no %s:\n%s", want, s)
		}
	}
}

// TestDashedLine checks that a DASHED line is drawn as its dashes, a
// stroke each, and a continuous one as one line.
func TestDashedLine(t *testing.T) {
	d := drawing.NewDocument("doc-1", "dashes", enginev1.Units_UNITS_IN, time.Time{})
	dashed := d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "DASHED", Geom: drawing.Line{A: geom.Pt(0, 0), B: geom.Pt(7.5, 0)}})
	solid := d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: drawing.Line{A: geom.Pt(0, 1), B: geom.Pt(7.5, 1)}})
	out := Write(d)
	element := func(e *drawing.Entity) string {
		_, rest, ok := strings.Cut(out, `id="e`+drawing.FormatHandle(e.Handle)+`"`)
		if !ok {
			t.Fatalf("no element for %s in %s", drawing.FormatHandle(e.Handle), out)
		}
		el, _, _ := strings.Cut(rest, "/>")
		return el
	}
	// 7.5 in of 0.5 in dashes and 0.25 in gaps: ten dashes.
	if el := element(dashed); strings.Count(el, "M ") != 10 || !strings.Contains(el, "M 0.75 0 L 1.25 0") {
		t.Errorf("the DASHED line is drawn as %s, want ten dashes, the second from 0.75 to 1.25", el)
	}
	if el := element(solid); !strings.HasPrefix(strings.TrimSpace(el), `data-handle`) || strings.Contains(el, "M ") {
		t.Errorf("the continuous line is drawn as %s, want one <line>", el)
	}
}
