package drawing

import (
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// TestShapeKey: entities that lie one on the other have one key — the
// same geometry in another colour or linetype, a line or an open
// polyline drawn back the other way (bulges turned round) — and those
// that do not, or lie on another layer or layout, have another.
func TestShapeKey(t *testing.T) {
	ent := func(layer, layout string, color int32, lt string, g Geometry) *Entity {
		return (&Entity{Layer: layer, Layout: layout, Color: color, Linetype: lt, Geom: g}).Seal()
	}
	v := func(x, y, b float64) geom.Vertex { return geom.Vertex{P: geom.Pt(x, y), Bulge: b} }
	line := Line{A: geom.Pt(0, 0), B: geom.Pt(10, 5)}
	poly := NewPolyline([]geom.Vertex{v(0, 0, 0.5), v(10, 0, 0), v(10, 10, 0)}, false)
	// The same path from (10, 10): its last piece first, the bulged
	// piece last with its bulge turned round.
	back := NewPolyline([]geom.Vertex{v(10, 10, 0), v(10, 0, -0.5), v(0, 0, 0)}, false)
	if poly.Length() != back.Length() || poly.Bounds() != back.Bounds() {
		t.Fatalf("the reversed polyline is not the same path: length %v/%v", poly.Length(), back.Length())
	}
	base := ent("0", "", 256, "ByLayer", line).ShapeKey()
	for name, e := range map[string]*Entity{
		"coloured": ent("0", "", 1, "DASHED", line),
		"reversed": ent("0", "", 256, "ByLayer", Line{A: line.B, B: line.A}),
	} {
		if e.ShapeKey() != base {
			t.Errorf("%s line: another key", name)
		}
	}
	for name, e := range map[string]*Entity{
		"moved":    ent("0", "", 256, "ByLayer", Line{A: line.A, B: geom.Pt(10, 5.000001)}),
		"layer":    ent("1", "", 256, "ByLayer", line),
		"layout":   ent("0", "Layout1", 256, "ByLayer", line),
		"polyline": ent("0", "", 256, "ByLayer", NewPolyline([]geom.Vertex{v(0, 0, 0), v(10, 5, 0)}, false)),
	} {
		if e.ShapeKey() == base {
			t.Errorf("%s line: the same key", name)
		}
	}
	if ent("0", "", 256, "ByLayer", poly).ShapeKey() != ent("0", "", 256, "ByLayer", back).ShapeKey() {
		t.Error("a polyline drawn back: another key")
	}
	closed := NewPolyline(poly.V, true)
	if ent("0", "", 256, "ByLayer", closed).ShapeKey() == ent("0", "", 256, "ByLayer", poly).ShapeKey() {
		t.Error("closed and open polylines: the same key")
	}
}
