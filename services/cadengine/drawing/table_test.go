package drawing

import (
	"reflect"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// sampleTable is a table of 3 rows (10, 6, 6) and 2 columns (30, 20)
// at (100, 50), its title merged over both columns.
func sampleTable() Table {
	return Table{P: geom.Pt(100, 50), Rows: []float64{10, 6, 6}, Columns: []float64{30, 20}, Cells: []TableCell{
		{Row: 0, Column: 0, RowSpan: 1, ColumnSpan: 2, Text: "PARTS", Height: 5},
		{Row: 1, Column: 0, RowSpan: 1, ColumnSpan: 1, Text: "M8", Height: 3},
		{Row: 2, Column: 1, RowSpan: 1, ColumnSpan: 1, Text: "12", Height: 3},
	}}
}

// TestTableEncoding: a table, with and without what its writer drew,
// comes back from its encoding as it was, fingerprint and all.
func TestTableEncoding(t *testing.T) {
	drawn := sampleTable()
	drawn.Drawn = &Picture{Strokes: []any{geom.Segment{A: geom.Pt(100, 50), B: geom.Pt(150, 50)}}, Texts: []Text{{Text: "PARTS", P: geom.Pt(125, 45), Height: 5}}}
	for _, g := range []Geometry{sampleTable(), drawn} {
		e := (&Entity{Handle: 0x300, Layer: "0", Linetype: "ByLayer", Color: 256, Geom: g}).Seal()
		back, err := DecodeEntity(0x300, e.Encode())
		if err != nil {
			t.Fatalf("DecodeEntity = %v", err)
		}
		if !reflect.DeepEqual(back.Geom, g) || back.Fingerprint() != e.Fingerprint() {
			t.Errorf("DecodeEntity(Encode()) = %+v, want %+v", back.Geom, g)
		}
	}
}

// TestTablePicture: the grid's lines run unbroken along each row and
// column line, left out inside the merged title (so 4 + 2 lines and the
// middle column line from the title's bottom down); each text is
// centred in its cell; the bounds are the grid's.
func TestTablePicture(t *testing.T) {
	g := sampleTable()
	p := g.Picture()
	want := []any{
		geom.Segment{A: geom.Pt(100, 50), B: geom.Pt(150, 50)},
		geom.Segment{A: geom.Pt(100, 40), B: geom.Pt(150, 40)},
		geom.Segment{A: geom.Pt(100, 34), B: geom.Pt(150, 34)},
		geom.Segment{A: geom.Pt(100, 28), B: geom.Pt(150, 28)},
		geom.Segment{A: geom.Pt(100, 50), B: geom.Pt(100, 28)},
		geom.Segment{A: geom.Pt(130, 40), B: geom.Pt(130, 28)},
		geom.Segment{A: geom.Pt(150, 50), B: geom.Pt(150, 28)},
	}
	if !reflect.DeepEqual(p.Strokes, want) {
		t.Errorf("strokes %v, want %v", p.Strokes, want)
	}
	centres := []geom.Vec{geom.Pt(125, 45), geom.Pt(115, 37), geom.Pt(140, 31)}
	if len(p.Texts) != 3 {
		t.Fatalf("%d texts, want 3", len(p.Texts))
	}
	for i, x := range p.Texts {
		if !x.P.Same(centres[i]) || x.Align != (Align{H: AlignCenter, V: AlignMiddle}) || x.Text != g.Cells[i].Text {
			t.Errorf("text %d = %+v, want %q centred at %v", i, x, g.Cells[i].Text, centres[i])
		}
	}
	if b := g.Bounds(); !b.Min.Same(geom.Pt(100, 28)) || !b.Max.Same(geom.Pt(150, 50)) {
		t.Errorf("Bounds() = %v, want (100, 28)–(150, 50)", b)
	}
}

// TestTableTransformed: moved, turned 90° about its corner and scaled
// 2×, the table's corners, sizes and text heights follow; mirrored in
// the y axis, it reads the same way, its top-left corner where the
// top-right one went, each cell's text where it was drawn.
func TestTableTransformed(t *testing.T) {
	g := sampleTable()
	x := geom.ScaleAbout(g.P, 2).Then(geom.RotateAbout(g.P, 90))
	out := g.Transformed(x).(Table)
	if !out.P.Same(g.P) || !geom.Eq(out.Rotation, 90) || !reflect.DeepEqual(out.Rows, []float64{20, 12, 12}) || out.Cells[0].Height != 10 {
		t.Errorf("scaled and turned = %+v", out)
	}
	// Turned 90°, its rows run up from P, stacked to the right of it.
	if b := out.Bounds(); !b.Min.Same(geom.Pt(100, 50)) || !b.Max.Same(geom.Pt(144, 150)) {
		t.Errorf("Bounds() turned = %v, want (100, 50)–(144, 150)", b)
	}
	m := g.Transformed(geom.MirrorAbout(geom.Pt(0, 0), geom.Pt(0, 1))).(Table)
	if !m.P.Same(geom.Pt(-150, 50)) || !geom.Eq(m.Rotation, 0) || !reflect.DeepEqual(m.Columns, []float64{20, 30}) {
		t.Fatalf("mirrored = %+v", m)
	}
	before, after := g.Picture().Texts, m.Picture().Texts
	for i := range before {
		if want := geom.Pt(-before[i].P.X, before[i].P.Y); !after[i].P.Same(want) || after[i].Text != before[i].Text {
			t.Errorf("mirrored text %q at %v, want at %v", after[i].Text, after[i].P, want)
		}
	}
	if err := m.Check(); err != nil {
		t.Errorf("mirrored table: %v", err)
	}
}

// TestTableCheck: overlapping cells, cells outside the grid and sizes
// that are not positive are refused.
func TestTableCheck(t *testing.T) {
	for name, change := range map[string]func(*Table){
		"overlap":     func(g *Table) { g.Cells[1].Row, g.Cells[1].Column = 0, 1 },
		"outside":     func(g *Table) { g.Cells[2].ColumnSpan = 2 },
		"zero height": func(g *Table) { g.Rows[1] = 0 },
		"no columns":  func(g *Table) { g.Columns = nil; g.Cells = nil },
		"text height": func(g *Table) { g.Cells[0].Height = -1 },
	} {
		t.Run(name, func(t *testing.T) {
			g := sampleTable()
			change(&g)
			if g.Check() == nil {
				t.Error("Check() = nil")
			}
			g.Picture() // draws what it can, without a panic
		})
	}
	if err := sampleTable().Check(); err != nil {
		t.Errorf("sample: %v", err)
	}
}
