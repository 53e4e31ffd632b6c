package dxf

import (
	"reflect"
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/dxftest"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// TestNativeTableCorpus: netDxf's sample's ACAD_TABLE is a native table
// with its 7 rows' heights, 3 columns' widths and its text cells (the
// title merged over the 3 columns, a cell merged over 3 columns and 2
// rows), drawn as the *T block its writer drew; written back as 2018 it
// is an ACAD_TABLE (ezdxf audits it clean) that reads back with the same
// cells, and as R12 the block's lines and texts.
func TestNativeTableCorpus(t *testing.T) {
	d := corpusDoc(t, "haplokuon__netDxf__TestDxfDocument__sample.dxf")
	gs, _ := geomOf[drawing.Table](d)
	if len(gs) != 1 {
		t.Fatalf("%d tables, want 1", len(gs))
	}
	g := gs[0]
	if g.P != geom.Pt(800, -360) || g.Rotation != 0 || len(g.Rows) != 7 || !reflect.DeepEqual(g.Columns, []float64{60, 60, 60}) || !near(g.Rows[0], 13.14285714285714, 1e-9) {
		t.Fatalf("read %+v", g)
	}
	type cell struct {
		r, c, rs, cs int
		text         string
	}
	var cells []cell
	for _, c := range g.Cells {
		cells = append(cells, cell{c.Row, c.Column, c.RowSpan, c.ColumnSpan, c.Text})
	}
	want := []cell{
		{0, 0, 1, 3, "Table sample"},
		{1, 0, 1, 1, "Text"}, {1, 1, 1, 1, "Text"}, {1, 2, 1, 1, "Text"},
		{4, 0, 2, 3, "This table will be imported as an           Insert entity"},
		{6, 0, 1, 1, "cell text"}, {6, 1, 1, 1, "cell text"}, {6, 2, 1, 1, "cell text"},
	}
	if !reflect.DeepEqual(cells, want) {
		t.Errorf("cells %v, want %v", cells, want)
	}
	if g.Drawn == nil || len(g.Picture().Texts) == 0 {
		t.Errorf("the table is not drawn as its *T block")
	}
	b := g.Bounds()
	if !near(b.Min.X, 800, 1e-6) || !(b.Max.X >= 980) || !near(b.Max.Y, -360, 1e-6) {
		t.Errorf("Bounds() = %v, want x from 800 past 980, top -360", b)
	}
	// The table alone (the sample's other entities are not this test's).
	doc := drawing.NewDocument("doc-t", "t", enginev1.Units_UNITS_MM, time.Time{})
	doc.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: g})
	back, _ := geomOf[drawing.Table](roundTrip(t, doc))
	if len(back) != 1 || !reflect.DeepEqual(back[0].Cells, g.Cells) || !reflect.DeepEqual(back[0].Rows, g.Rows) || back[0].Drawn == nil {
		t.Errorf("read back from 2018 %+v, want the cells %+v, drawn as its block", back, g.Cells)
	}
	if r12 := Write(doc); strings.Contains(r12, "ACAD_TABLE") || !strings.Contains(r12, "Table sample") {
		t.Error("R12 is written with an ACAD_TABLE, or without the table's texts")
	}
}

// TestTableCorpusCounts: every ACAD_TABLE of the corpus is native but
// the one whose cell holds a block, preserved with that reason.
func TestTableCorpusCounts(t *testing.T) {
	native, preserved := 0, map[string]int{}
	for _, cf := range dxftest.CorpusFiles(t) {
		if !strings.Contains(string(cf.Data), "ACAD_TABLE") {
			continue
		}
		f, err := Read(string(cf.Data))
		if err != nil {
			continue
		}
		for _, fe := range f.entities {
			if fe.kind != "ACAD_TABLE" {
				continue
			}
			if fe.preserved {
				preserved[fe.why]++
			} else {
				native++
			}
		}
	}
	t.Logf("ACAD_TABLE: %d native, preserved %v", native, preserved)
	if native != 3 || !reflect.DeepEqual(preserved, map[string]int{"a cell holds a block (the engine keeps text cells only)": 1}) {
		t.Errorf("ACAD_TABLE: %d native, preserved %v; want 3 native and the one with a block cell preserved", native, preserved)
	}
}

// TestNativeTableRoundTrip: a table made in the engine (merged cells,
// turned 30°) is written as an ACAD_TABLE with its *T block (ezdxf
// audits both exports clean) and reads back the same, drawn as the
// block written (its grid and texts where the table draws them).
func TestNativeTableRoundTrip(t *testing.T) {
	made := drawing.Table{P: geom.Pt(10, 20), Rotation: 30, Rows: []float64{8, 6, 6}, Columns: []float64{30, 20},
		Cells: []drawing.TableCell{
			{Row: 0, Column: 0, RowSpan: 1, ColumnSpan: 2, Text: "PARTS", Height: 4},
			{Row: 1, Column: 0, RowSpan: 1, ColumnSpan: 1, Text: "M8", Height: 3},
			{Row: 2, Column: 1, RowSpan: 1, ColumnSpan: 1, Text: "12", Height: 3},
		}}
	if err := made.Check(); err != nil {
		t.Fatal(err)
	}
	doc := drawing.NewDocument("doc-t", "t", enginev1.Units_UNITS_MM, time.Time{})
	doc.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: made})
	if got := ezdxftest.Audit(t, Write2018(doc)); got != nil && got["ACAD_TABLE"] != 1 {
		t.Errorf("ezdxf reads %v, want one ACAD_TABLE", got)
	}
	back, _ := geomOf[drawing.Table](roundTrip(t, doc))
	if len(back) != 1 {
		t.Fatalf("read back %d tables, want 1", len(back))
	}
	got := back[0]
	if got.Drawn == nil {
		t.Fatal("read back without its block")
	}
	pic, want := got.Picture(), made.Picture()
	if len(pic.Strokes) != len(want.Strokes) || len(pic.Texts) != len(want.Texts) {
		t.Errorf("its block draws %d strokes and %d texts, want %d and %d", len(pic.Strokes), len(pic.Texts), len(want.Strokes), len(want.Texts))
	}
	got.Drawn = nil
	if !near(got.Rotation, 30, 1e-9) || !near(got.P.X, 10, 1e-9) || !near(got.P.Y, 20, 1e-9) {
		t.Errorf("read back at %v turned %v, want (10, 20) turned 30", got.P, got.Rotation)
	}
	got.Rotation, got.P = made.Rotation, made.P
	if !reflect.DeepEqual(got, made) {
		t.Errorf("read back %+v, want %+v", got, made)
	}
	r12 := Write(doc)
	if strings.Contains(r12, "ACAD_TABLE") || !strings.Contains(r12, "PARTS") {
		t.Error("R12 is written with an ACAD_TABLE, or without the table's texts")
	}
}
