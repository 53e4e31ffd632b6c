package dxf

import (
	"math"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// annotatedDocument has one of each entity type the engine models beyond
// R12's: multi-line text, every kind of dimension, hatches (solid and
// patterned, with an island and an ellipse), a block and its inserts.
func annotatedDocument() *drawing.Document {
	d := drawing.NewDocument("doc-0000000000000002", "annotated", enginev1.Units_UNITS_MM, time.Time{})
	d.SetLayer("dims", &drawing.Layer{Name: "dims", Color: 3, Linetype: "Continuous", Lineweight: 18, On: true})
	d.SetLayer("hatch", &drawing.Layer{Name: "hatch", Color: 8, Linetype: "DASHED", Lineweight: 25, On: true})
	add := func(layer string, g drawing.Geometry) *drawing.Entity {
		return d.Add(&drawing.Entity{Layer: layer, Color: 256, Linetype: "ByLayer", Geom: g})
	}
	line := add("0", drawing.Line{A: geom.Pt(0, 0), B: geom.Pt(100, 0)})
	circle := add("0", drawing.Circle{C: geom.Pt(50, 50), R: 20})
	add("0", drawing.MText{Text: "Line one\nline {two} \\ three", P: geom.Pt(0, 100), Height: 3.5, Width: 60, Rotation: 10, Attach: 5, Spacing: 1.25})
	dims := []drawing.Dimension{
		{Type: enginev1.DimensionKind_DIMENSION_KIND_ALIGNED, P1: geom.Pt(0, 0), P2: geom.Pt(100, 0), Offset: -10},
		{Type: enginev1.DimensionKind_DIMENSION_KIND_ROTATED, P1: geom.Pt(0, 0), P2: geom.Pt(30, 40), Angle: 90, Offset: 15, Text: "<> max"},
		{Type: enginev1.DimensionKind_DIMENSION_KIND_RADIAL, Center: geom.Pt(50, 50), Radius: 20, Angle: 45},
		{Type: enginev1.DimensionKind_DIMENSION_KIND_DIAMETRIC, Center: geom.Pt(50, 50), Radius: 20, Angle: 135},
		{Type: enginev1.DimensionKind_DIMENSION_KIND_ANGULAR, Center: geom.Pt(0, 0), P1: geom.Pt(100, 0), P2: geom.Pt(30, 40), Offset: 25},
	}
	for i, g := range dims {
		g.Style, g.Scale = "ISO-25", 1
		if i == 1 {
			g.Scale = 2
		}
		add("dims", g)
	}
	_ = line
	_ = circle
	add("hatch", drawing.Hatch{Pattern: "SOLID", Scale: 1, Loops: []drawing.Loop{{Poly: geom.Polyline{Closed: true, V: []geom.Vertex{{P: geom.Pt(200, 0)}, {P: geom.Pt(260, 0)}, {P: geom.Pt(260, 40)}, {P: geom.Pt(200, 40), Bulge: 0.3}}}}}})
	outer, _ := drawing.LoopOf(drawing.Circle{C: geom.Pt(300, 50), R: 30})
	hole := drawing.Loop{Ellipse: true, E: geom.EllipseArc{C: geom.Pt(300, 50), Major: geom.Pt(12, 0), Ratio: 0.5, Sweep: 2 * math.Pi}}
	add("hatch", drawing.Hatch{Pattern: "ANSI31", Scale: 2, Angle: 15, Loops: []drawing.Loop{outer, hole}})
	sq, _ := drawing.LoopOf(drawing.NewPolyline([]geom.Vertex{{P: geom.Pt(400, 0)}, {P: geom.Pt(450, 0)}, {P: geom.Pt(450, 30)}, {P: geom.Pt(400, 30)}}, true))
	add("hatch", drawing.Hatch{Pattern: "MY-BRICK", Scale: 2, Angle: 10, Loops: []drawing.Loop{sq}, Lines: []drawing.PatternLine{
		{Angle: 0, Delta: geom.Pt(0, 6.35)},
		{Angle: 90, Delta: geom.Pt(6.35, 6.35), Dashes: []float64{6.35, -6.35}},
	}})
	b := drawing.NewBlock("BOLT", geom.Pt(0, 0), []*drawing.Entity{
		{Layer: "0", Color: 0, Linetype: "ByBlock", Geom: drawing.Circle{C: geom.Pt(0, 0), R: 4}},
		{Layer: "0", Color: 1, Linetype: "PHANTOM", Geom: drawing.Line{A: geom.Pt(-6, 0), B: geom.Pt(6, 0)}},
	})
	d.AddBlock(b)
	add("0", drawing.Insert{Name: "BOLT", P: geom.Pt(150, 20), Scale: 1, Def: b})
	add("dims", drawing.Insert{Name: "BOLT", P: geom.Pt(150, 60), Scale: 2.5, Rotation: 30, Mirror: true, Def: b})
	return d
}

func TestRoundTrip2018Annotated(t *testing.T) {
	checkRoundTrip2018(t, annotatedDocument())
	checkRoundTrip2018(t, sampleDocument())
}

// TestRoundTripR12Annotated: R12 keeps dimensions and inserts as
// themselves, writes multi-line text as one TEXT per line and a hatch as
// an insert of an anonymous block of what it draws.
func TestRoundTripR12Annotated(t *testing.T) {
	a := annotatedDocument()
	b, err := importText(Write(a))
	if err != nil {
		t.Fatal(err)
	}
	count := func(d *drawing.Document) map[string]int {
		m := map[string]int{}
		for _, e := range d.Entities() {
			m[e.Geom.Kind().WireName()]++
		}
		return m
	}
	got := count(b)
	// R12 has no MTEXT: the MTEXT is written as a TEXT a line, as it is
	// drawn (its second line, 18 characters, fits its width of 60 in the
	// Go font at 3.5: ezdxf's estimate, 17 characters, would wrap it).
	want := map[string]int{"line": 1, "circle": 1, "text": 2, "dimension": 5, "insert": 5}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("R12 round trip has %d %s, want %d (all: %v)", got[k], k, n, got)
		}
	}
	dims := func(d *drawing.Document) []*drawing.Entity {
		var out []*drawing.Entity
		for _, e := range d.Entities() {
			if _, ok := e.Geom.(drawing.Dimension); ok {
				out = append(out, e)
			}
		}
		return out
	}
	da, db := dims(a), dims(b)
	for i := range da {
		if i >= len(db) || !nearGeometry(da[i], db[i]) {
			t.Errorf("R12 round trip of dimension %d: %+v, want %+v", i, db[i].Geom, da[i].Geom)
		}
	}
}
