package dxf

import (
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// An MTEXT's content is read as its plain text and its markup: DXF's
// encodings (\U+, %%c, caret notation, \X, empty groups) are read in the
// markup, a column break is kept only in text with columns, and content
// without formatting has no markup.
func TestDecodeMText(t *testing.T) {
	for _, c := range []struct {
		in, text, markup string
		columns          bool
	}{
		{in: `plain\Ptwo`, text: "plain\ntwo"},
		{in: `a\\b\{c\}^Jd`, text: `a\b{c}` + "\nd"},
		{in: `%%c10 \U+00B0`, text: "Ø10 °"},
		{in: `100%{}%c`, text: "100%%c"},
		{in: `B\S^ 1;`, text: "B/1", markup: `B\S^1;`},
		{in: `{\H0.7x;\S1#2;}\Xend`, text: "1/2\nend", markup: `{\H0.7x;\S1#2;}\Pend`},
		{in: `\fArial|b1;bold \Lunder\l`, text: "bold under", markup: `\fArial|b1;bold \Lunder\l`},
		{in: `one\Ntwo`, text: "onetwo"},
		{in: `one\Ntwo`, text: "one" + drawing.ColumnBreak + "two", columns: true},
		{in: `a\~b`, text: "a b", markup: `a\~b`},
		{in: `\U+005C\U+007B`, text: `\{`},
	} {
		text, markup := decodeMText(c.in, c.columns)
		if text != c.text || markup != c.markup {
			t.Errorf("decodeMText(%q, %v) = %q, %q; want %q, %q", c.in, c.columns, text, markup, c.text, c.markup)
		}
		if markup != "" && drawing.MarkupText(markup) != text {
			t.Errorf("decodeMText(%q): its markup %q reads as %q, not its text %q", c.in, markup, drawing.MarkupText(markup), text)
		}
	}
}

// formattedDocument has an MTEXT with inline formatting of every kind.
func formattedDocument() *drawing.Document {
	d := drawing.NewDocument("doc-0000000000000003", "formatted", enginev1.Units_UNITS_MM, time.Time{})
	markup := `{\C1;\fTimes New Roman|b1|i0;\H1.4x;HEAD}\P\Lunder\l {\W2;wide} {\Q15;slant} {\T1.5;spread}\P{\H0.7x;\S1/2;} {\H0.7x;\S1#2;} B\S^1;\P^ caret 100%%c`
	g := drawing.MText{Text: drawing.MarkupText(markup), Markup: markup, P: geom.Pt(0, 0), Height: 2.5, Width: 60, Attach: 1, Spacing: 1}
	d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: g})
	return d
}

// The R2018 export writes an MTEXT's markup: the engine reads the same
// markup and text back, a second export is the first, and ezdxf audits
// it clean and reads the codes.
func TestMTextMarkupRoundTrip(t *testing.T) {
	d := formattedDocument()
	want := d.Entities()[0].Geom.(drawing.MText)
	content := Write2018(d)
	back, err := importText(content)
	if err != nil {
		t.Fatal(err)
	}
	got := back.Entities()[0].Geom.(drawing.MText)
	if got.Markup != want.Markup || got.Text != want.Text {
		t.Errorf("read back %q (%q), want %q (%q)", got.Markup, got.Text, want.Markup, want.Text)
	}
	if again := Write2018(back); again != strings.Replace(content, d.ID, back.ID, 1) {
		t.Errorf("a second export differs from the first")
	}
	ezdxftest.Audit(t, content)
	out := ezdxftest.Run(t, `
import sys, ezdxf
print(ezdxf.readfile(sys.argv[1]).modelspace().query("MTEXT")[0].text)
`, ezdxftest.File(t, "formatted.dxf", content))
	if out == "" {
		return // no ezdxf outside CI
	}
	if w := dxfMarkup(want.Markup); strings.TrimSpace(out) != w {
		t.Errorf("ezdxf reads %q, want %q", strings.TrimSpace(out), w)
	}
}

// R12 has no MTEXT: its lines are written as TEXTs, one for each run of
// one format, each at its own height.
func TestMTextMarkupR12(t *testing.T) {
	back, err := importText(Write(formattedDocument()))
	if err != nil {
		t.Fatal(err)
	}
	heights := map[string]float64{}
	for _, e := range back.Entities() {
		if g, ok := e.Geom.(drawing.Text); ok {
			heights[g.Text] = g.Height
		}
	}
	for text, h := range map[string]float64{"HEAD": 3.5, "under": 2.5, "wide": 2.5} {
		if got, ok := heights[text]; !ok || !geom.Eq(got, h) {
			t.Errorf("TEXT %q: height %v (there: %v), want %v; all: %v", text, got, ok, h, heights)
		}
	}
}
