package drawing

import (
	"math"
	"math/rand"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// samplePicture is a dimension as its writer drew it: a line, an arc, an
// arrowhead, its text's background mask, a dot and its text.
var samplePicture = Picture{
	Strokes: []any{geom.Segment{A: geom.Pt(0, 2), B: geom.Pt(10, 2)}, geom.Arc{C: geom.Pt(5, 2), R: 1, Start: 0, Sweep: math.Pi}},
	Fills:   [][]geom.Vec{{geom.Pt(0, 2), geom.Pt(1, 2.2), geom.Pt(1, 1.8)}},
	Masks:   [][]geom.Vec{{geom.Pt(4, 2.2), geom.Pt(6, 2.2), geom.Pt(6, 3.2), geom.Pt(4, 3.2)}},
	Dots:    []geom.Vec{geom.Pt(5, 5)},
	Texts:   []Text{{Text: "10.00", P: geom.Pt(4, 2.5), Height: 0.5}},
}

func sampleGeometries() []Geometry {
	arc, _ := NewArc(geom.Pt(1, 2), 3, 10, 200)
	ell, _ := NewEllipse(geom.Pt(1, 1), geom.Pt(3, 1), 0.4, 20, 300)
	return []Geometry{
		Point{geom.Pt(1, 2)},
		Line{geom.Pt(0, 0), geom.Pt(3, 4)},
		Circle{C: geom.Pt(1, 1), R: 2},
		arc,
		NewPolyline([]geom.Vertex{{P: geom.Pt(0, 0), Bulge: 0.3}, {P: geom.Pt(1, 0)}, {P: geom.Pt(1, 1)}}, true),
		NewPolyline([]geom.Vertex{{P: geom.Pt(0, 0), Bulge: 0.3}, {P: geom.Pt(1, 0)}, {P: geom.Pt(1, 1)}}, false).WithWidths([]geom.Width{{Start: 0.2, End: 0.1}, {Start: 0, End: 0.3}, {}}),
		Text{Text: "Grüße", P: geom.Pt(5, 5), Height: 2.5, Rotation: 15},
		ell,
		MText{Text: "two\nlines", P: geom.Pt(2, 3), Height: 2, Width: 30, Rotation: 10, Attach: 5, Spacing: 1.5},
		Dimension{Type: enginev1.DimensionKind_DIMENSION_KIND_ALIGNED, P1: geom.Pt(0, 0), P2: geom.Pt(10, 5), Offset: 3, Text: "<> max", Style: "ISO-25", Scale: 2},
		Dimension{Type: enginev1.DimensionKind_DIMENSION_KIND_ROTATED, P1: geom.Pt(0, 0), P2: geom.Pt(10, 0), Offset: 2, Style: "Standard", Scale: 1, Drawn: &samplePicture},
		Dimension{Type: enginev1.DimensionKind_DIMENSION_KIND_RADIAL, Center: geom.Pt(3, 3), Radius: 4, Angle: 30, Style: "QCADDimStyle", Scale: 1,
			Own: DimStyle{Name: "QCADDimStyle", TextHeight: 3.5, ArrowSize: 2, ExtOffset: 1, ExtBeyond: 2, TextGap: 1, Decimals: 1, Text: TextStyle{Name: "DimText", Font: "Arial.ttf"}, Centred: true, Zeros: ZerosLeading | ZerosTrailing, Post: "<> mm", Round: 0.5}},
		Dimension{Type: enginev1.DimensionKind_DIMENSION_KIND_ANGULAR, Center: geom.Pt(1, 1), P1: geom.Pt(5, 1), P2: geom.Pt(1, 4), Style: "ANSI", Scale: 1,
			Binds: []Bind{{Slot: enginev1.DimensionSlot_DIMENSION_SLOT_P1, Handle: 0xFFFF, Snap: enginev1.SnapKind_SNAP_KIND_END, Index: 1}, {Slot: enginev1.DimensionSlot_DIMENSION_SLOT_CENTER, Handle: 0xFFFF, With: 0xFFFE}}},
		Hatch{Pattern: "ANSI31", Scale: 1, Angle: 0, Loops: []Loop{
			{Poly: geom.Polyline{V: []geom.Vertex{{P: geom.Pt(0, 0)}, {P: geom.Pt(10, 0), Bulge: 0.2}, {P: geom.Pt(10, 10)}, {P: geom.Pt(0, 10)}}, Closed: true}},
			{Ellipse: true, E: geom.EllipseArc{C: geom.Pt(5, 5), Major: geom.Pt(2, 0), Ratio: 0.5, Sweep: 2 * math.Pi}},
		}},
		Insert{Name: "BOLT", P: geom.Pt(4, 4), Scale: 2, Rotation: 30, Mirror: true},
		Insert{Name: "GRID", P: geom.Pt(-4, 1), Scale: 1.5, Rotation: 20, Cols: 3, Rows: 2, ColSpacing: 4, RowSpacing: -5},
		Insert{Name: "STRETCHED", P: geom.Pt(2, 3), Scale: 2, YScale: 0.5, Rotation: 10, Mirror: true,
			Attribs: []Attrib{{Tag: "NO", Text: Text{Text: "7", P: geom.Pt(2, 4), Height: 1}}, {Tag: "KG", Text: Text{Text: "2", P: geom.Pt(2, 2), Height: 1}, Invisible: true}}},
		Insert{Name: "SHEARED", P: geom.Pt(2, 3), Scale: 1, Outer: &geom.Affine{A: 1, B: 0.5, C: 1, D: 0, E: 1, F: -2}},
		NewForeign("3DFACE", []Pair{{10, "0"}, {20, "0"}, {30, "1.5"}, {11, "4"}, {21, "0"}, {31, "0"}, {12, "4"}, {22, "3"}, {32, "0"}, {13, "4"}, {23, "3"}, {33, "0"}},
			[]geom.Segment{{A: geom.Pt(0, 0), B: geom.Pt(4, 0)}, {A: geom.Pt(4, 0), B: geom.Pt(4, 3)}, {A: geom.Pt(4, 3), B: geom.Pt(0, 0)}},
			[]geom.Vec{geom.Pt(0, 0), geom.Pt(4, 0), geom.Pt(4, 3)}),
		NewForeign("3DSOLID", []Pair{{100, "AcDbModelerGeometry"}, {70, "1"}, {1, "ACIS data"}}, nil, nil),
		func() Foreign { // a 2D polyline with width, outside the plan
			g := NewForeign("LWPOLYLINE", []Pair{{90, "2"}, {43, "2"}, {10, "0"}, {20, "0"}, {10, "10"}, {20, "0"}, {210, "0"}, {220, "0.6"}, {230, "0.8"}},
				[]geom.Segment{{A: geom.Pt(0, 0), B: geom.Pt(-10, 0)}}, []geom.Vec{geom.Pt(0, 0), geom.Pt(-10, 0), geom.Pt(0, -0.8), geom.Pt(-10, 0.8)})
			g.Fills = [][]geom.Vec{{geom.Pt(0, -0.8), geom.Pt(-10, -0.8), geom.Pt(-10, 0.8), geom.Pt(0, 0.8)}}
			return g
		}(),
		Spline{Spline: geom.Spline{Degree: 3, Knots: []float64{0, 0, 0, 0, 1, 2, 2, 2, 2}, Control: []geom.Vec{geom.Pt(0, 0), geom.Pt(1, 2), geom.Pt(3, 3), geom.Pt(4, 1), geom.Pt(6, 0)}}},
		Spline{Spline: geom.Spline{Degree: 2, Knots: []float64{0, 0, 0, 1, 1, 1}, Control: []geom.Vec{geom.Pt(1, 0), geom.Pt(1, 1), geom.Pt(0, 1)}, Weights: []float64{1, math.Sqrt2 / 2, 1}},
			Fit: []geom.Vec{geom.Pt(1, 0), geom.Pt(0, 1)}},
		Solid{P: []geom.Vec{geom.Pt(0, 0), geom.Pt(4, 0), geom.Pt(4, 2), geom.Pt(0, 3)}},
		Solid{P: []geom.Vec{geom.Pt(0, 0), geom.Pt(4, 0), geom.Pt(2, 3)}, Trace: true},
		Face{P: []geom.Vec{geom.Pt(0, 0), geom.Pt(4, 0), geom.Pt(4, 2), geom.Pt(0, 3)}, Z: []float64{0, 1, 2, 3}, Hidden: 2},
		XLine{P: geom.Pt(1, 2), Dir: geom.Pt(0.6, 0.8)},
		XLine{P: geom.Pt(1, 2), Dir: geom.Pt(-0.6, 0.8), Ray: true},
		NewWipeout([]geom.Vec{geom.Pt(0, 0), geom.Pt(10, 0), geom.Pt(12, 6), geom.Pt(2, 8)}),
		Wipeout{Raster: Raster{P: geom.Pt(1, 1), U: geom.Pt(5, 0), V: geom.Pt(0, 3), Size: geom.Pt(1, 1), Clip: []geom.Vec{geom.Pt(-0.5, -0.5), geom.Pt(0.5, 0.5)}}, Frame: true},
		Image{Raster: Raster{P: geom.Pt(2, 3), U: geom.Pt(0.01, 0), V: geom.Pt(0, 0.01), Size: geom.Pt(640, 360)}, File: "site plan.png"},
	}
}

func TestFingerprintStableAndSensitive(t *testing.T) {
	for _, g := range sampleGeometries() {
		e := (&Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: g}).Seal()
		again := (&Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: g}).Seal()
		if e.fp != again.fp {
			t.Errorf("%T: fingerprint not stable", g)
		}
		// The stored form round-trips to the same fingerprint, in model
		// space and on a layout.
		for _, layout := range []string{"", "Layout1"} {
			e := (&Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Layout: layout, Geom: g}).Seal()
			back, err := DecodeEntity(0x1F, e.Encode())
			if err != nil || back.fp != e.fp || back.Layout != layout {
				t.Errorf("%T on layout %q: decode(encode) = %v, %v; want the same fingerprint and layout", g, layout, back, err)
			}
		}
		edits := map[string]*Entity{
			"layer":    {Layer: "1", Color: 256, Linetype: "ByLayer", Geom: g},
			"color":    {Layer: "0", Color: 1, Linetype: "ByLayer", Geom: g},
			"linetype": {Layer: "0", Color: 256, Linetype: "DASHED", Geom: g},
			"moved":    {Layer: "0", Color: 256, Linetype: "ByLayer", Geom: g.Transformed(geom.Translate(geom.Pt(1e-9, 0)))},
			"rotated":  {Layer: "0", Color: 256, Linetype: "ByLayer", Geom: g.Transformed(geom.RotateAbout(geom.Pt(0.5, 0.25), 1))},
			"layout":   {Layer: "0", Color: 256, Linetype: "ByLayer", Layout: "Layout1", Geom: g},
		}
		for name, x := range edits {
			if x.Seal().fp == e.fp {
				t.Errorf("%T: fingerprint unchanged after changing %s", g, name)
			}
		}
	}
	// The handle is not part of the fingerprint; -0 and +0 are the same.
	a := (&Entity{Handle: 1, Layer: "0", Color: 256, Linetype: "ByLayer", Geom: Point{geom.Pt(0, 1)}}).Seal()
	b := (&Entity{Handle: 2, Layer: "0", Color: 256, Linetype: "ByLayer", Geom: Point{geom.Pt(negZero(), 1)}}).Seal()
	if a.fp != b.fp {
		t.Error("fingerprint depends on the handle or the sign of zero")
	}
	// A known fingerprint (computed independently from the documented
	// encoding), so that a change of encoding is noticed.
	line := (&Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: Line{geom.Pt(0, 0), geom.Pt(10, 0)}}).Seal()
	const want = "118fce1ff98cb7f6b0c6881005f7720173e3c0901b7cd5dc388f84cef8d07c0c"
	if got := line.Fingerprint(); got != want {
		t.Errorf("fingerprint of line (0,0)-(10,0) on 0 = %s, want %s", got, want)
	}
}

func negZero() float64 {
	z := 0.0
	return -z
}

func TestContentHashOrderIndependentAndUndo(t *testing.T) {
	build := func(order []int) *Document {
		d := NewDocument("doc-x", "x", enginev1.Units_UNITS_MM, time.Time{})
		tx := NewTx(d, 0)
		tx.PutLayer(&Layer{Name: "walls", Color: 1, Linetype: "Continuous", Lineweight: -3, On: true})
		geoms := sampleGeometries()
		for _, i := range order {
			e := &Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: geoms[i]}
			if i%2 == 1 {
				e.Layer = "walls"
			}
			if _, err := tx.Create(e); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	n := len(sampleGeometries())
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	ref := build(order).sum
	r := rand.New(rand.NewSource(1))
	for k := 0; k < 5; k++ {
		r.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		if got := build(order).sum; got != ref {
			t.Fatalf("content hash depends on creation order: %v vs %v", got, ref)
		}
	}

	d := build(order)
	before := d.sum
	tx := NewTx(d, 0)
	m := tx.Mark()
	var some *Entity
	d.Each(0, func(e *Entity) bool { some = e; return false })
	if err := tx.Replace(some, some.With(some.Geom.Transformed(geom.Translate(geom.Pt(1, 1))))); err != nil {
		t.Fatal(err)
	}
	tx.PutLayer(&Layer{Name: "doors", Color: 3, Linetype: "DASHED", Lineweight: 25, On: true})
	tx.SetCurrent("doors")
	if _, err := tx.Create(&Entity{Layer: "doors", Color: 2, Linetype: "ByLayer", Geom: Point{geom.Pt(9, 9)}}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Remove(some); err != nil {
		t.Fatal(err)
	}
	if d.sum == before {
		t.Fatal("content hash did not change")
	}
	nextHandle := d.NextHandle
	undone := tx.UndoTo(m)
	if len(undone) != 5 {
		t.Errorf("undoTo undid %d changes, want 5", len(undone))
	}
	if d.sum != before {
		t.Errorf("content hash after undo = %v, want %v", d.sum, before)
	}
	if d.current != "0" || d.layers["doors"] != nil || d.Entity(some.Handle) != some {
		t.Error("undo did not restore current layer, layers and entities")
	}
	if d.NextHandle != nextHandle {
		t.Error("undo gave back a handle")
	}
	// The hash is the same as a recomputation from scratch.
	fresh := NewDocument("doc-y", "y", enginev1.Units_UNITS_MM, time.Time{})
	for _, l := range d.SortedLayers() {
		fresh.SetLayer(l.Name, &Layer{Name: l.Name, Color: l.Color, Linetype: l.Linetype, Lineweight: l.Lineweight, On: l.On, Frozen: l.Frozen, Locked: l.Locked})
	}
	d.Each(0, func(e *Entity) bool { fresh.SetEntity(e.Handle, e); return true })
	if fresh.sum != d.sum {
		t.Error("incremental content hash differs from a recomputation")
	}
}

// TestBoundDimensionFollowsAndUndoes: replacing a line moves the
// dimension bound to it in the same Tx; undoing restores both, and the
// content hash with them.
func TestBoundDimensionFollowsAndUndoes(t *testing.T) {
	d := NewDocument("doc-x", "x", enginev1.Units_UNITS_MM, time.Time{})
	tx := NewTx(d, 0)
	line, err := tx.Create(&Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: Line{geom.Pt(0, 0), geom.Pt(10, 0)}})
	if err != nil {
		t.Fatal(err)
	}
	dim, err := tx.Create(&Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: Dimension{
		Type: enginev1.DimensionKind_DIMENSION_KIND_ALIGNED, P1: geom.Pt(0, 0), P2: geom.Pt(10, 0), Offset: 5, Style: "ISO-25", Scale: 1,
		Binds: []Bind{
			{Slot: enginev1.DimensionSlot_DIMENSION_SLOT_P1, Handle: line.Handle, Snap: enginev1.SnapKind_SNAP_KIND_END, Index: 0},
			{Slot: enginev1.DimensionSlot_DIMENSION_SLOT_P2, Handle: line.Handle, Snap: enginev1.SnapKind_SNAP_KIND_END, Index: 1},
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	before := d.sum
	m := tx.Mark()
	if err := tx.Replace(line, line.With(Line{geom.Pt(0, 0), geom.Pt(25, 0)})); err != nil {
		t.Fatal(err)
	}
	if got := d.Entity(dim.Handle).Geom.(Dimension).Measurement(); got != 25 {
		t.Errorf("measurement after the line grew = %v, want 25", got)
	}
	if n := len(tx.Since(m)); n != 2 {
		t.Errorf("the replace logged %d changes, want 2 (the line and its dimension)", n)
	}
	tx.UndoTo(m)
	if d.sum != before || d.Entity(dim.Handle) != dim {
		t.Errorf("undo did not restore the dimension and the content hash")
	}
	// The same end state reached in another order has the same hash.
	if err := tx.Replace(line, line.With(Line{geom.Pt(0, 0), geom.Pt(25, 0)})); err != nil {
		t.Fatal(err)
	}
	direct := NewDocument("doc-y", "y", enginev1.Units_UNITS_MM, time.Time{})
	d.Each(0, func(e *Entity) bool { direct.SetEntity(e.Handle, e); return true })
	if direct.sum != d.sum {
		t.Errorf("content hash of the followed document differs from a recomputation")
	}
	if got := d.Dependents(line.Handle); len(got) != 1 || got[0] != dim.Handle {
		t.Errorf("Dependents(line) = %v, want [%x]", got, dim.Handle)
	}
	// Removing the line unbinds the dimension; undo binds it again.
	m = tx.Mark()
	if err := tx.Remove(d.Entity(line.Handle)); err != nil {
		t.Fatal(err)
	}
	if b := d.Entity(dim.Handle).Geom.(Dimension).Binds; len(b) != 0 {
		t.Errorf("binds after removing the line = %v, want none", b)
	}
	tx.UndoTo(m)
	if b := d.Entity(dim.Handle).Geom.(Dimension).Binds; len(b) != 2 {
		t.Errorf("binds after undoing the removal = %v, want 2", b)
	}
}

// TestLayerEntityCount: the count of each layer follows creates, moves
// between layers and removals, alternating between layers, and undoing
// them all brings every count back.
func TestLayerEntityCount(t *testing.T) {
	d := NewDocument("doc", "d", enginev1.Units_UNITS_MM, time.Time{})
	tx := NewTx(d, 0)
	tx.PutLayer(&Layer{Name: "a", Color: 1, Linetype: "Continuous", On: true})
	tx.PutLayer(&Layer{Name: "b", Color: 2, Linetype: "Continuous", On: true})
	m := tx.Mark()
	var made []*Entity
	for i, layer := range []string{"a", "a", "b", "0", "a", "b"} {
		e, err := tx.Create(&Entity{Layer: layer, Color: 256, Linetype: "ByLayer", Geom: Point{geom.Pt(float64(i), 0)}})
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, e)
	}
	moved := *made[0]
	moved.Layer = "b"
	if err := tx.Replace(made[0], moved.Seal()); err != nil {
		t.Fatal(err)
	}
	if err := tx.Remove(made[3]); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"0": 0, "a": 2, "b": 3, "none": 0}
	for name, n := range want {
		if got := d.LayerEntityCount(name); got != n {
			t.Errorf("LayerEntityCount(%q) = %d, want %d", name, got, n)
		}
	}
	tx.UndoTo(m)
	for name := range want {
		if got := d.LayerEntityCount(name); got != 0 {
			t.Errorf("after undo, LayerEntityCount(%q) = %d, want 0", name, got)
		}
	}
	for _, l := range d.LayerProtos() {
		if l.EntityCount != 0 {
			t.Errorf("after undo, layer %q has %d entities", l.Name, l.EntityCount)
		}
	}
}
