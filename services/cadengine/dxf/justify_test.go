package dxf

import (
	"math"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

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

// Text seen from below (extrusion -Z) is drawn to read, as CAD programs
// draw mirrored text: a TEXT's point is mirrored into the plan (its OCS x
// runs the other way), an MTEXT's is the world's; each runs the other way
// from the other end of where its mirrored glyphs would, its top where it
// was.
func TestTextSeenFromBelow(t *testing.T) {
	content := dxfLines(
		"0", "SECTION", "2", "ENTITIES",
		"0", "TEXT", "8", "0", "10", "10", "20", "5", "40", "2", "50", "30", "1", "below", "210", "0", "220", "0", "230", "-1",
		"0", "MTEXT", "8", "0", "10", "100", "20", "50", "40", "2", "71", "1", "1", "under", "210", "0", "220", "0", "230", "-1", "11", "-1", "21", "0", "31", "0",
		"0", "MTEXT", "8", "0", "10", "100", "20", "80", "40", "2", "71", "4", "50", "0", "1", "turned", "210", "0", "220", "0", "230", "-1",
		"0", "MTEXT", "8", "0", "10", "100", "20", "20", "40", "2", "71", "1", "1", "flipped", "210", "0", "220", "0", "230", "-1",
		"0", "ENDSEC", "0", "EOF")
	d, err := importText(content)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range d.Entities() {
		switch g := e.Geom.(type) {
		case drawing.MText:
			if g.Text != "flipped" {
				break
			}
			// Neither 50 nor 11: its glyphs run along the world's x,
			// upside down; read, it runs the other way, turned 180.
			if !g.P.Same(geom.Pt(100, 20)) || g.Rotation != 180 || g.Attach != 3 {
				t.Errorf("MTEXT without a direction from below: at %v turned %v attached %d, want at (100, 20) turned 180 attached 3", g.P, g.Rotation, g.Attach)
			}
			continue
		}
		switch g := e.Geom.(type) {
		case drawing.Text:
			if !g.P.Same(geom.Pt(-10, 5)) || math.Abs(g.Rotation-330) > 1e-9 || g.Align != (drawing.Align{H: drawing.AlignRight}) {
				t.Errorf("TEXT from below: at %v turned %v aligned %+v, want at (-10, 5) turned 330, right-aligned", g.P, g.Rotation, g.Align)
			}
		case drawing.MText:
			want := map[string]struct {
				p      geom.Vec
				attach uint8
			}{"under": {geom.Pt(100, 50), 3}, "turned": {geom.Pt(100, 80), 6}}[g.Text]
			if !g.P.Same(want.p) || g.Rotation != 0 || g.Attach != want.attach {
				t.Errorf("MTEXT %q from below: at %v turned %v attached %d, want at %v turned 0 attached %d", g.Text, g.P, g.Rotation, g.Attach, want.p, want.attach)
			}
		}
	}
}
