package dxf

import (
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// dxfLines joins group code and value pairs into a DXF file's lines.
func dxfLines(pairs ...string) string { return strings.Join(pairs, "\n") + "\n" }

// A dimension is drawn as the block it names: what the program that wrote
// it drew (its arrowheads inserted from blocks of their own, its text with
// %%c), not the engine's drawing from its style; the block itself does
// not join the document, and the picture survives the export.
func TestDimensionDrawnFromItsBlock(t *testing.T) {
	content := dxfLines(
		"0", "SECTION", "2", "BLOCKS",
		"0", "BLOCK", "8", "0", "2", "_TICK", "70", "0", "10", "0", "20", "0",
		"0", "LINE", "8", "0", "10", "-0.5", "20", "-0.5", "11", "0.5", "21", "0.5",
		"0", "ENDBLK", "8", "0",
		"0", "BLOCK", "8", "0", "2", "*D1", "70", "1", "10", "0", "20", "0",
		"0", "LINE", "8", "0", "10", "0", "20", "5", "11", "10", "21", "5",
		"0", "INSERT", "8", "0", "2", "_TICK", "10", "0", "20", "5", "41", "2", "42", "2",
		"0", "INSERT", "8", "0", "2", "_TICK", "10", "10", "20", "5", "41", "2", "42", "2",
		"0", "TEXT", "8", "0", "10", "4", "20", "5.5", "40", "2.5", "1", "%%c10",
		"0", "POINT", "8", "DEFPOINTS", "10", "0", "20", "0",
		"0", "ENDBLK", "8", "0",
		"0", "ENDSEC",
		"0", "SECTION", "2", "ENTITIES",
		"0", "DIMENSION", "8", "0", "2", "*D1", "10", "0", "20", "5", "13", "0", "23", "0", "14", "10", "24", "0", "70", "0", "50", "0", "1", "",
		"0", "ENDSEC", "0", "EOF")
	d, err := importText(content)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, d *drawing.Document) {
		t.Helper()
		var dims []drawing.Dimension
		for _, e := range d.Entities() {
			if g, ok := e.Geom.(drawing.Dimension); ok {
				dims = append(dims, g)
			}
		}
		if len(dims) != 1 || dims[0].Drawn == nil {
			t.Fatalf("%s: dimensions %+v, want one drawn from its block", what, dims)
		}
		p := dims[0].Picture()
		if len(p.Texts) != 1 || p.Texts[0].Text != "Ø10" || p.Texts[0].Height != 2.5 {
			t.Errorf("%s: texts %+v, want the block's Ø10, 2.5 high", what, p.Texts)
		}
		if len(p.Dots) != 0 {
			t.Errorf("%s: dots %v, want none (the block's point is a defpoint)", what, p.Dots)
		}
		ticks := 0
		for _, s := range p.Strokes {
			if s, ok := s.(geom.Segment); ok && s.A.Dist(s.B) > 2.8 && s.A.Dist(s.B) < 2.9 {
				ticks++ // a tick of length √2, scaled 2
			}
		}
		if len(p.Strokes) != 3 || ticks != 2 {
			t.Errorf("%s: strokes %v, want the dimension line and two ticks", what, p.Strokes)
		}
	}
	check("imported", d)
	if d.Block("*D1") != nil {
		t.Error("the dimension's block joined the document")
	}
	for name, write := range map[string]func(*drawing.Document) string{"R12": Write, "2018": Write2018} {
		back, err := importText(write(d))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		check(name+" export imported again", back)
	}
}
