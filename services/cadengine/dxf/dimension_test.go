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
		if len(p.Texts) != 1 || p.Texts[0].Text != "⌀10" || p.Texts[0].Height != 2.5 {
			t.Errorf("%s: texts %+v, want the block's ⌀10, 2.5 high", what, p.Texts)
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

// A TEXT or ATTRIB justified otherwise than at the start of its baseline
// is at its alignment point, aligned there, and written back so.
func TestTextJustified(t *testing.T) {
	content := dxfLines(
		"0", "SECTION", "2", "BLOCKS",
		"0", "BLOCK", "8", "0", "2", "TAG", "70", "2", "10", "0", "20", "0",
		"0", "ATTDEF", "8", "0", "10", "0", "20", "0", "40", "1", "1", "?", "2", "NO", "3", "No?", "70", "0", "72", "2", "11", "5", "21", "0", "74", "3",
		"0", "ENDBLK", "8", "0",
		"0", "ENDSEC",
		"0", "SECTION", "2", "ENTITIES",
		"0", "TEXT", "8", "0", "10", "1", "20", "1", "40", "2", "1", "centre", "72", "1", "11", "10", "21", "20", "73", "2",
		"0", "TEXT", "8", "0", "10", "3", "20", "4", "40", "2", "1", "middle", "72", "4", "11", "30", "21", "40",
		"0", "TEXT", "8", "0", "10", "7", "20", "8", "40", "2", "1", "fitted", "72", "5", "11", "50", "21", "8",
		"0", "INSERT", "8", "0", "2", "TAG", "10", "100", "20", "0", "66", "1",
		"0", "ATTRIB", "8", "0", "10", "100", "20", "0", "40", "1", "1", "42", "2", "NO", "70", "0", "72", "1", "11", "102", "21", "1", "74", "1",
		"0", "SEQEND", "8", "0",
		"0", "ENDSEC", "0", "EOF")
	d, err := importText(content)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, d *drawing.Document) {
		t.Helper()
		want := map[string]drawing.Text{
			"centre": {P: geom.Pt(10, 20), Align: drawing.Align{H: drawing.AlignCenter, V: drawing.AlignMiddle}},
			"middle": {P: geom.Pt(30, 40), Align: drawing.Align{H: drawing.AlignCenter, V: drawing.AlignMiddle}},
			"fitted": {P: geom.Pt(7, 8)}, // drawn from its first point
			"42":     {P: geom.Pt(102, 1), Align: drawing.Align{H: drawing.AlignCenter, V: drawing.AlignBottom}},
			"?":      {P: geom.Pt(5, 0), Align: drawing.Align{H: drawing.AlignRight, V: drawing.AlignTop}},
		}
		seen := 0
		see := func(g drawing.Text) {
			w, ok := want[g.Text]
			if !ok {
				return
			}
			seen++
			if !g.P.Same(w.P) || g.Align != w.Align {
				t.Errorf("%s: %q at %v aligned %+v, want at %v aligned %+v", what, g.Text, g.P, g.Align, w.P, w.Align)
			}
		}
		for _, e := range d.Entities() {
			switch g := e.Geom.(type) {
			case drawing.Text:
				see(g)
			case drawing.Insert:
				for _, a := range g.Attribs {
					see(a.Text)
				}
			}
		}
		for _, e := range d.Block("TAG").Entities {
			if g, ok := e.Geom.(drawing.Attdef); ok {
				see(g.Text)
			}
		}
		if seen != len(want) {
			t.Errorf("%s: %d of the %d texts seen", what, seen, len(want))
		}
	}
	check("imported", d)
	for name, write := range map[string]func(*drawing.Document) string{"R12": Write, "2018": Write2018} {
		back, err := importText(write(d))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		check(name+" export imported again", back)
	}
}
