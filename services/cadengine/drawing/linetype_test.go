package drawing

import (
	"context"
	"slices"
	"testing"
	"time"
	"unsafe"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

func TestStandardLinetypes(t *testing.T) {
	want := []string{"Continuous"}
	for _, n := range []string{"BORDER", "CENTER", "DASHDOT", "DASHED", "DIVIDE", "DOT", "HIDDEN", "PHANTOM"} {
		want = append(want, n, n+"2", n+"X2")
	}
	var got []string
	for _, l := range StandardLinetypes {
		got = append(got, l.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("standard linetypes %v, want %v", got, want)
	}
	// acad.lin's, in inches.
	for name, want := range map[string][]float64{
		"DASHED":    {0.5, -0.25},
		"DASHEDX2":  {1, -0.5},
		"CENTER2":   {0.75, -0.125, 0.125, -0.125},
		"DOT":       {0, -0.25},
		"DIVIDEX2":  {1, -0.5, 0, -0.5, 0, -0.5},
		"HIDDEN2":   {0.125, -0.0625},
		"PHANTOMX2": {2.5, -0.5, 0.5, -0.5, 0.5, -0.5},
	} {
		if l, ok := standardLinetype(name); !ok || !slices.Equal(l.Pattern, want) {
			t.Errorf("standardLinetype(%s) = %v, %v, want %v", name, l.Pattern, ok, want)
		}
	}
}

// TestPattern checks what pattern an entity is drawn with: ByLayer
// follows its layer, a document's own linetype replaces the standard one
// of its name, and the document's and the entity's scales multiply.
func TestPattern(t *testing.T) {
	d := NewDocument("doc-1", "t", enginev1.Units_UNITS_IN, time.Time{})
	d.SetLayer("hidden", &Layer{Name: "hidden", Color: 1, Linetype: "HIDDEN", On: true})
	line := Line{geom.Pt(0, 0), geom.Pt(10, 0)}
	ent := func(layer, lt string, scale float64) *Entity {
		e := &Entity{Layer: layer, Color: 256, Linetype: lt, Geom: line}
		e.SetLtScale(scale)
		return e
	}
	check := func(what string, e *Entity, want []float64) {
		t.Helper()
		if got := d.Pattern(e); !slices.Equal(got, want) {
			t.Errorf("%s: Pattern = %v, want %v", what, got, want)
		}
	}
	check("Continuous", ent("0", "Continuous", 1), nil)
	check("ByLayer on a continuous layer", ent("0", "ByLayer", 1), nil)
	check("ByBlock outside an insert", ent("0", "ByBlock", 1), nil)
	check("ByLayer on a HIDDEN layer", ent("hidden", "ByLayer", 1), []float64{0.25, -0.125})
	check("DASHED at 2", ent("0", "DASHED", 2), []float64{1, -0.5})

	d.SetLinetypes(NewLinetypes(10, []Linetype{{Name: "dashed", Pattern: []float64{3, -1}}}))
	check("the document's DASHED at $LTSCALE 10", ent("0", "DASHED", 1), []float64{30, -10})
	check("the document's DASHED at 10 × 0.5", ent("0", "DASHED", 0.5), []float64{15, -5})
	check("a standard linetype at $LTSCALE 10", ent("0", "DOT", 1), []float64{0, -2.5})

	mm := NewDocument("doc-2", "t", enginev1.Units_UNITS_MM, time.Time{})
	if got := mm.Pattern(ent("0", "DASHED", 1)); !slices.Equal(got, []float64{12.7, -6.35}) {
		t.Errorf("DASHED in a drawing in millimetres = %v, want acadiso.lin's [12.7 -6.35]", got)
	}
}

// TestLtScale checks that an entity's linetype scale reads back as the
// decimal it was set as, and that the entity is no larger for it.
func TestLtScale(t *testing.T) {
	for _, s := range []float64{0.3, 2, 25.4, 1e-12, 1} {
		e := &Entity{}
		e.SetLtScale(s)
		if e.LtScale() != s {
			t.Errorf("SetLtScale(%v): LtScale() = %v", s, e.LtScale())
		}
	}
	for _, s := range []float64{0, -1, 1e300} {
		e := &Entity{}
		e.SetLtScale(s)
		if e.LtScale() != 1 || e.LinetypeScale != 0 {
			t.Errorf("SetLtScale(%v): LtScale() = %v, want the default 1", s, e.LtScale())
		}
	}
	if n := unsafe.Sizeof(Entity{}); n > 112 {
		t.Errorf("an Entity is %d bytes, more than the 112 it was before linetype scales", n)
	}
}

// TestLinetypesStored checks that an entity's linetype scale and the
// document's linetype table come back from their stored forms, with the
// same content hash, and that a document without them stores nothing
// new.
func TestLinetypesStored(t *testing.T) {
	d := NewDocument("doc-1", "t", enginev1.Units_UNITS_MM, time.Time{})
	plain := d.ContentHash()
	d.SetLinetypes(NewLinetypes(2.5, []Linetype{
		{Name: "ACAD_ISO02W100", Description: "ISO dash __ __ __", Pattern: []float64{12, -3}},
		{Name: "BATTING", Pattern: []float64{0.00254, -2.54, -5.08, -2.54}},
	}))
	if d.ContentHash() == plain {
		t.Error("the content hash did not change with the linetype table")
	}
	e := &Entity{Layer: "0", Color: 256, Linetype: "DASHED", Geom: Line{geom.Pt(0, 0), geom.Pt(1, 2)}}
	e.SetLtScale(0.3)
	d.Add(e)
	e2 := &Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Layout: "Layout1", Geom: Point{geom.Pt(1, 1)}}
	e2.SetLtScale(4)
	d.Add(e2)

	records := map[uint64][]byte{}
	d.EachStored(func(h uint64, data []byte) { records[h] = data })
	if len(records) != 3 {
		t.Fatalf("%d stored records, want 3 (the table and two entities)", len(records))
	}
	back := NewDocument(d.ID, d.Name, d.Units, d.CreatedAt)
	back.NextHandle = d.NextHandle
	if err := back.Restore(records); err != nil {
		t.Fatal(err)
	}
	if back.ContentHash() != d.ContentHash() {
		t.Errorf("restored content hash %v, want %v", back.ContentHash(), d.ContentHash())
	}
	if back.LinetypeScale() != 2.5 {
		t.Errorf("restored $LTSCALE %v, want 2.5", back.LinetypeScale())
	}
	if l, ok := back.Linetype("acad_iso02w100"); !ok || !slices.Equal(l.Pattern, []float64{12, -3}) || l.Description != "ISO dash __ __ __" {
		t.Errorf("restored ACAD_ISO02W100 = %+v, %v", l, ok)
	}
	if got := back.Entity(e.Handle); got.LtScale() != 0.3 || got.Fingerprint() != e.Fingerprint() {
		t.Errorf("restored entity's linetype scale %v (fingerprint %s), want 0.3 (%s)", got.LtScale(), got.Fingerprint(), e.Fingerprint())
	}
	if got := back.Entity(e2.Handle); got.LtScale() != 4 || got.Layout != "Layout1" {
		t.Errorf("restored paper-space entity: scale %v, layout %q; want 4, Layout1", got.LtScale(), got.Layout)
	}
	if p := e.Proto(); p.LinetypeScale == nil || *p.LinetypeScale != 0.3 {
		t.Errorf("Proto().LinetypeScale = %v, want 0.3", p.LinetypeScale)
	}
	if p := (&Entity{Geom: Point{}}).Proto(); p.LinetypeScale != nil {
		t.Errorf("Proto().LinetypeScale of an entity at scale 1 = %v, want none", *p.LinetypeScale)
	}
	// An entity at the default scale encodes as it always did.
	plainLine := &Entity{Layer: "0", Color: 256, Linetype: "DASHED", Geom: Line{geom.Pt(0, 0), geom.Pt(1, 2)}}
	if enc := plainLine.Encode(); enc[1] != encVersion {
		t.Errorf("an entity at linetype scale 1 encodes as version %d, want %d", enc[1], encVersion)
	}
}

// TestDashedBudget checks that a pattern that would make more dashes than
// the budget has left draws continuous, and one that fits spends them.
func TestDashedBudget(t *testing.T) {
	d := NewDocument("doc-1", "t", enginev1.Units_UNITS_IN, time.Time{})
	e := &Entity{Layer: "0", Color: 256, Linetype: "DASHED", Geom: Line{geom.Pt(0, 0), geom.Pt(75, 0)}} // 100 repeats
	b := NewBudget(context.Background(), 1000)
	pic, ok, err := d.Dashed(e, 0, b)
	if err != nil || !ok || len(pic.Strokes) != 100 {
		t.Fatalf("Dashed = %d strokes, %v, %v; want 100, true, nil", len(pic.Strokes), ok, err)
	}
	small := NewBudget(context.Background(), 50)
	if _, ok, err := d.Dashed(e, 0, small); ok || err != nil {
		t.Errorf("Dashed within a budget of 50 = %v, %v; want continuous (false, nil)", ok, err)
	}
	e.SetLtScale(1e-12)
	if _, ok, err := d.Dashed(e, 0, nil); ok || err != nil {
		t.Errorf("Dashed at 1e-12 without a budget's limit = %v, %v; want continuous (false, nil)", ok, err)
	}
	e.SetLtScale(1)
	if _, ok, _ := d.Dashed(e, 1, b); ok {
		t.Error("Dashed with a pattern finer than the pen: dashed, want continuous")
	}
	txt := &Entity{Layer: "0", Color: 256, Linetype: "DASHED", Geom: Text{Text: "x", Height: 1}}
	if _, ok, _ := d.Dashed(txt, 0, b); ok {
		t.Error("Dashed text: dashed, want drawn as it is")
	}
}

func TestCanonicalLinetype(t *testing.T) {
	for _, tc := range []struct {
		in, want  string
		forEntity bool
		ok        bool
	}{
		{"bylayer", "ByLayer", true, true},
		{"bylayer", "ByLayer", false, false},
		{"continuous", "Continuous", false, true},
		{"dashed", "DASHED", false, true},
		{"Dashed2", "DASHED2", false, true},
		{"centerx2", "CENTERX2", true, true},
		{"DASHED2X2", "", true, false},
		{"DASHEDX22", "", true, false},
		{"X2", "", true, false},
		{"ACAD_ISO02W100", "", true, false},
	} {
		if got, ok := CanonicalLinetype(tc.in, tc.forEntity); got != tc.want && tc.ok || ok != tc.ok {
			t.Errorf("CanonicalLinetype(%q, %v) = %q, %v; want %q, %v", tc.in, tc.forEntity, got, ok, tc.want, tc.ok)
		}
	}
	// Every standard linetype is a name the tools take.
	for _, l := range StandardLinetypes {
		if got, ok := CanonicalLinetype(l.Name, false); !ok || got != l.Name {
			t.Errorf("CanonicalLinetype(%q) = %q, %v", l.Name, got, ok)
		}
	}
}
