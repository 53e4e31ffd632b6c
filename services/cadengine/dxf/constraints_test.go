package dxf

import (
	"fmt"
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// constrainedDocument is a document of two lines (one in paper space), a
// circle and a dimension, with a constraint of every field: refs with and
// without points, a value, pins and a dimension bound to the first line.
func constrainedDocument() (*drawing.Document, [4]uint64) {
	d := drawing.NewDocument("doc-00000000000000ff", "c", enginev1.Units_UNITS_MM, time.Time{})
	a := d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: drawing.Line{A: geom.Pt(0, 0), B: geom.Pt(10, 0)}})
	b := d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Layout: "Layout1", Geom: drawing.Line{A: geom.Pt(0, 5), B: geom.Pt(10, 5)}})
	c := d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: drawing.Circle{C: geom.Pt(3, 3), R: 1.0 / 3}})
	dim := d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: drawing.Dimension{
		Type: enginev1.DimensionKind_DIMENSION_KIND_ALIGNED, P1: geom.Pt(0, 0), P2: geom.Pt(10, 0), Offset: 5, Style: "ISO-25", Scale: 1,
		Binds: []drawing.Bind{
			{Slot: enginev1.DimensionSlot_DIMENSION_SLOT_P1, Handle: a.Handle, Snap: enginev1.SnapKind_SNAP_KIND_END},
			{Slot: enginev1.DimensionSlot_DIMENSION_SLOT_P2, Handle: a.Handle, Snap: enginev1.SnapKind_SNAP_KIND_END, Index: 1},
		},
	}})
	d.SetConstraints(&drawing.Constraints{Next: 9, List: []drawing.Constraint{
		{ID: 2, Kind: drawing.KindParallel, Refs: []drawing.Ref{{Handle: a.Handle}, {Handle: b.Handle}}},
		{ID: 5, Kind: drawing.KindFixed, Refs: []drawing.Ref{{Handle: c.Handle}}, Pins: []float64{3, 3, 1.0 / 3}},
		{ID: 7, Kind: drawing.KindDistance, Refs: []drawing.Ref{{Handle: a.Handle, Point: "start"}, {Handle: a.Handle, Point: "end"}}, Value: 10, Dimension: dim.Handle},
	}})
	return d, [4]uint64{a.Handle, b.Handle, c.Handle, dim.Handle}
}

// TestConstraintRecord: the constraint table written to a 2018 file comes
// back field for field, its handles those the entities took on import,
// the dimension bound again; an R12 file has none.
func TestConstraintRecord(t *testing.T) {
	d, _ := constrainedDocument()
	content := Write2018(d)
	got, f, err := importFile(content)
	if err != nil {
		t.Fatal(err)
	}
	if ws := f.Report().Warnings; len(ws) != 0 {
		t.Errorf("warnings %v, want none", ws)
	}
	// The imported handles, by what the entities are.
	var line, paper, circle, dim uint64
	for _, e := range got.Entities() {
		switch g := e.Geom.(type) {
		case drawing.Line:
			if e.Layout != "" {
				paper = e.Handle
			} else {
				line = e.Handle
			}
		case drawing.Circle:
			circle = e.Handle
		case drawing.Dimension:
			dim = e.Handle
			want := fmt.Sprint([]drawing.Bind{
				{Slot: enginev1.DimensionSlot_DIMENSION_SLOT_P1, Handle: line, Snap: enginev1.SnapKind_SNAP_KIND_END},
				{Slot: enginev1.DimensionSlot_DIMENSION_SLOT_P2, Handle: line, Snap: enginev1.SnapKind_SNAP_KIND_END, Index: 1},
			})
			if fmt.Sprint(g.Binds) != want {
				t.Errorf("the dimension's binds = %v, want %v", g.Binds, want)
			}
		}
	}
	tab := got.Constraints()
	want := fmt.Sprint([]drawing.Constraint{
		{ID: 2, Kind: drawing.KindParallel, Refs: []drawing.Ref{{Handle: line}, {Handle: paper}}},
		{ID: 5, Kind: drawing.KindFixed, Refs: []drawing.Ref{{Handle: circle}}, Pins: []float64{3, 3, 1.0 / 3}},
		{ID: 7, Kind: drawing.KindDistance, Refs: []drawing.Ref{{Handle: line, Point: "start"}, {Handle: line, Point: "end"}}, Value: 10, Dimension: dim},
	})
	if tab == nil || fmt.Sprint(tab.List) != want || tab.Next != 9 {
		t.Fatalf("constraints read back = %+v, want %s, next 9", tab, want)
	}
	if r12, _ := importText(Write(d)); r12.Constraints() != nil || strings.Contains(Write(d), "CADBRIDGE") {
		t.Errorf("an R12 file carries constraints")
	}
}

// TestConstraintRecordOfAnotherFormat: a record in a format this engine
// does not read is passed over with a warning.
func TestConstraintRecordOfAnotherFormat(t *testing.T) {
	d, _ := constrainedDocument()
	content := strings.Replace(Write2018(d), "CADBRIDGE_CONSTRAINTS\n 90\n     1\n", "CADBRIDGE_CONSTRAINTS\n 90\n     2\n", 1)
	got, f, err := importFile(content)
	if err != nil {
		t.Fatal(err)
	}
	if got.Constraints() != nil {
		t.Errorf("constraints read from a format 2 record")
	}
	ws := f.Report().Warnings
	if len(ws) != 1 || !strings.Contains(ws[0].Message, "format 2") {
		t.Errorf("warnings %v, want one naming format 2", ws)
	}
}

// BenchmarkConstraintRecord writes and reads back a document of 1,000
// lines held by 1,000 constraints (a horizontal and a length each half).
func BenchmarkConstraintRecord(b *testing.B) {
	d := drawing.NewDocument("doc-00000000000000ff", "c", enginev1.Units_UNITS_MM, time.Time{})
	t := &drawing.Constraints{Next: 1}
	for i := range 1000 {
		e := d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: drawing.Line{A: geom.Pt(0, float64(i)), B: geom.Pt(10, float64(i))}})
		c := drawing.Constraint{Kind: drawing.KindHorizontal, Refs: []drawing.Ref{{Handle: e.Handle}}}
		if i%2 == 1 {
			c = drawing.Constraint{Kind: drawing.KindDistance, Refs: []drawing.Ref{{Handle: e.Handle, Point: "start"}, {Handle: e.Handle, Point: "end"}}, Value: 10}
		}
		t, _ = t.With(c)
	}
	d.SetConstraints(t)
	content := Write2018(d)
	b.Run("write", func(b *testing.B) {
		for b.Loop() {
			Write2018(d)
		}
	})
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			got, err := importText(content)
			if err != nil || got.Constraints().Len() != 1000 {
				b.Fatalf("read back %d constraints, %v", got.Constraints().Len(), err)
			}
		}
	})
}
