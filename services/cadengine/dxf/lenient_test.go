package dxf

import (
	"slices"
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// TestReadLeniently reads what real writers get wrong, as ezdxf's recover
// mode does, with a warning naming the line of each repair.
func TestReadLeniently(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		warning       string // in the report, at line
		line          int64
		check         func(t *testing.T, d *drawing.Document)
	}{
		{"a stray ENDSEC in the HEADER", "0\nSECTION\n2\nHEADER\n9\n$ACADVER\n1\nAC1015\n0\nENDSEC\n9\n$INSUNITS\n70\n6\n0\nENDSEC\n0\nEOF\n",
			"a HEADER variable after the HEADER's end", 11,
			func(t *testing.T, d *drawing.Document) {
				if d.Units != enginev1.Units_UNITS_M {
					t.Errorf("units = %v, want m: $INSUNITS after the stray ENDSEC is still read", d.Units)
				}
			}},
		{"decimal commas", "0\nSECTION\n2\nENTITIES\n0\nLINE\n10\n0,5\n20\n-1,25\n11\n2\n21\n3\n0\nENDSEC\n0\nEOF\n",
			`"0,5" written with a decimal comma: read as 0.5`, 8,
			func(t *testing.T, d *drawing.Document) {
				if l, ok := d.Entity(0x100).Geom.(drawing.Line); !ok || l.A.X != 0.5 || l.A.Y != -1.25 {
					t.Errorf("line = %v, want it from (0.5, -1.25)", d.Entity(0x100).Geom)
				}
			}},
		{"a layer named with \\U+ escapes", "0\nSECTION\n2\nENTITIES\n0\nPOINT\n8\n\\U+039B\\U+0391YER\n10\n1\n20\n2\n0\nENDSEC\n0\nEOF\n",
			"", 0,
			func(t *testing.T, d *drawing.Document) {
				if d.Layer("ΛΑYER") == nil || d.Entity(0x100).Layer != "ΛΑYER" {
					t.Errorf("the point is on %q, want ΛΑYER", d.Entity(0x100).Layer)
				}
			}},
		{"a layer name the engine cannot hold", "0\nSECTION\n2\nENTITIES\n0\nPOINT\n8\n*ADSK|lights\n10\n1\n20\n2\n0\nENDSEC\n0\nEOF\n",
			`layer "*ADSK|lights" renamed "_ADSK_lights"`, 5,
			func(t *testing.T, d *drawing.Document) {
				if d.Entity(0x100).Layer != "_ADSK_lights" {
					t.Errorf("the point is on %q, want _ADSK_lights", d.Entity(0x100).Layer)
				}
			}},
		{"an ENDSEC outside any section", "0\nSECTION\n2\nENTITIES\n0\nENDSEC\n0\nENDSEC\n0\nEOF\n",
			"an ENDSEC outside any section", 7, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ReadText(tc.content)
			if err != nil {
				t.Fatalf("ReadText: %v", err)
			}
			d := drawing.NewDocument("doc-l", "lenient", f.Units, time.Time{})
			if err := f.Build(d); err != nil {
				t.Fatalf("Build: %v", err)
			}
			if tc.warning != "" {
				found := false
				for _, w := range f.Report().Warnings {
					found = found || strings.Contains(w.Message, tc.warning) && w.Line == tc.line
				}
				if !found {
					t.Errorf("warnings = %v, want %q at line %d", f.Report().Warnings, tc.warning, tc.line)
				}
			}
			if tc.check != nil {
				tc.check(t, d)
			}
		})
	}
}

// TestReadTextLatin1 reads a file of a legacy code page sent as text read
// as Latin-1 (a character a byte), as a client that cannot decode it does:
// the engine decodes it by its $DWGCODEPAGE.
func TestReadTextLatin1(t *testing.T) {
	// "ДА" in Windows-1251 is C4 C0; read as Latin-1, "ÄÀ".
	content := "0\nSECTION\n2\nHEADER\n9\n$ACADVER\n1\nAC1015\n9\n$DWGCODEPAGE\n3\nANSI_1251\n0\nENDSEC\n" +
		"0\nSECTION\n2\nENTITIES\n0\nTEXT\n10\n0\n20\n0\n40\n1\n1\nÄÀ\n0\nENDSEC\n0\nEOF\n"
	f, err := ReadText(content)
	if err != nil {
		t.Fatal(err)
	}
	d := drawing.NewDocument("doc-t", "cp1251", f.Units, time.Time{})
	if err := f.Build(d); err != nil {
		t.Fatal(err)
	}
	if g := d.Entity(0x100).Geom.(drawing.Text); g.Text != "ДА" || f.Report().Codepage != "ANSI_1251" {
		t.Errorf("text = %q read as %s, want ДА read as ANSI_1251", g.Text, f.Report().Codepage)
	}
	// The same text in a file that says it is UTF-8 (AutoCAD 2007 on) is
	// Latin-1 text already.
	f, err = ReadText(strings.Replace(content, "AC1015", "AC1021", 1))
	if err != nil {
		t.Fatal(err)
	}
	d = drawing.NewDocument("doc-u", "utf8", f.Units, time.Time{})
	if err := f.Build(d); err != nil {
		t.Fatal(err)
	}
	if g := d.Entity(0x100).Geom.(drawing.Text); g.Text != "ÄÀ" {
		t.Errorf("text of a UTF-8 file = %q, want ÄÀ as sent", g.Text)
	}
}

// TestMTextEmbeddedObject: the codes an R2018 MTEXT writes after "101
// Embedded Object" (its column data, which repeat 10, 11 and 40) are not
// the text's own.
func TestMTextEmbeddedObject(t *testing.T) {
	content := "0\nSECTION\n2\nENTITIES\n0\nMTEXT\n8\n0\n10\n50\n20\n60\n40\n2.5\n41\n30\n71\n1\n1\nnote\n11\n1\n21\n0\n" +
		"101\nEmbedded Object\n70\n1\n10\n1\n20\n0\n11\n0\n21\n0\n40\n0\n41\n0\n0\nENDSEC\n0\nEOF\n"
	f, err := ReadText(content)
	if err != nil {
		t.Fatal(err)
	}
	d := drawing.NewDocument("doc-m", "mtext", f.Units, time.Time{})
	if err := f.Build(d); err != nil {
		t.Fatal(err)
	}
	if g := d.Entity(0x100).Geom.(drawing.MText); g.P != geom.Pt(50, 60) || g.Height != 2.5 || g.Width != 30 || g.Rotation != 0 {
		t.Errorf("mtext = %+v, want at (50, 60), 2.5 high, 30 wide, not turned", g)
	}
}

// TestMTextCaret: MTEXT's caret notation (^J a line break, "^ " a caret)
// is read, and a caret the engine writes is read back as a caret.
func TestMTextCodes(t *testing.T) {
	for in, want := range map[string]string{
		`Xxp^JXxp^JXxp`:       "Xxp\nXxp\nXxp",
		`x^ 2 and y^2`:        "x^2 and y^2",
		`a^Ib^M\Pc`:           "a b\nc",
		`{\H2;tail^}`:         "tail^",
		`\S1^2;`:              "1/2",
		`ends with caret^`:    "ends with caret^",
		`30%%d, %%C12 %%p0.1`: "30°, Ø12 ±0.1",
		`100%%x and 5%`:       "100%%x and 5%",
	} {
		if got := decodeMTextValue(in); got != want {
			t.Errorf("decodeMTextValue(%q) = %q, want %q", in, got, want)
		}
	}
	for _, s := range []string{"a^Jb", "^", "x^ y", "^^J\n^", "%%d stays", "%%%c"} {
		if got := decodeMTextValue(mtextValue(s)); got != s {
			t.Errorf("%q written as %q reads back as %q", s, mtextValue(s), got)
		}
	}
}

// An MTEXT's \p codes set its paragraphs' alignments: a q option holds
// from the paragraph it is in until another changes it, q* returns to the
// attachment's, and a justified paragraph is set left.
func TestMTextParagraphAligns(t *testing.T) {
	for in, want := range map[string]string{
		`plain\Ptext`:                 "",
		`one\P\pxqr;right\P\pq*;back`: " r",
		`{\A1;head}\P\pxqc;{\A1;mid}\Pstill\P\pxi0,qj;just\P\pi1,q*;`: " ccl",
		`a\\P\pqr;b`: "r", // an escaped backslash, then a P: one paragraph
		`x^Jy\pql;`:  " l",
	} {
		if got := mtextAligns(in); got != want {
			t.Errorf("mtextAligns(%q) = %q, want %q", in, got, want)
		}
	}
	// Read from below, left and right trade places as the columns do.
	d, err := importText(dxfLines(
		"0", "SECTION", "2", "ENTITIES",
		"0", "MTEXT", "8", "0", "10", "0", "20", "0", "40", "2", "71", "1", "1", `a\P\pqr;b\P\pqc;c`,
		"0", "MTEXT", "8", "0", "10", "0", "20", "0", "40", "2", "71", "1", "1", `a\P\pqr;b`, "210", "0", "220", "0", "230", "-1",
		"0", "ENDSEC", "0", "EOF"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range d.Entities() {
		got = append(got, e.Geom.(drawing.MText).Aligns)
	}
	if want := []string{" rc", " l"}; !slices.Equal(got, want) {
		t.Errorf("Aligns = %q, want %q", got, want)
	}
}
