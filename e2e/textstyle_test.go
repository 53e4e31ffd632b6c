package e2e_test

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/go-fonts/dejavu/dejavusans"
	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"

	"github.com/cadbridge/cadbridge/internal/ezdxftest"
)

// textStyleDXF is an R12 drawing with a text style of width factor 0.7
// (romans.shx), a TEXT in it, and a TEXT aligned between (0, -10) and
// (30, -10).
var textStyleDXF = strings.Join([]string{
	"0", "SECTION", "2", "TABLES", "0", "TABLE", "2", "STYLE", "70", "2",
	"0", "STYLE", "2", "STANDARD", "70", "0", "40", "0", "41", "1", "50", "0", "71", "0", "42", "2.5", "3", "txt", "4", "",
	"0", "STYLE", "2", "NARROW", "70", "0", "40", "0", "41", "0.7", "50", "0", "71", "0", "42", "2.5", "3", "romans.shx", "4", "",
	"0", "ENDTAB", "0", "ENDSEC",
	"0", "SECTION", "2", "ENTITIES",
	"0", "TEXT", "8", "0", "10", "0", "20", "0", "40", "2.5", "1", "Narrow", "41", "0.7", "7", "NARROW",
	"0", "TEXT", "8", "0", "10", "0", "20", "-10", "40", "2", "1", "Aligned", "72", "3", "11", "30", "21", "-10",
	"0", "ENDSEC", "0", "EOF", "",
}, "\n")

// TestTextStyles imports a drawing with a styled and an aligned text
// through the built gateway and engine: the SVG export draws the styled
// text's glyphs 0.7 as wide (its transform), and the aligned text 30
// long centred between its points, at the height at which DejaVu Sans
// sets it 30 long to its ink; the DXF
// export keeps the style and the alignment (ezdxf audits it clean).
func TestTextStyles(t *testing.T) {
	gateway, _ := startServices(t)
	c := &httpClient{url: "http://" + gateway + "/rpc"}
	var doc importReport
	mustCall(t, c, 1, "document.import", map[string]any{"name": "styles", "format": "dxf", "content": textStyleDXF}, &doc)
	if n := doc.Report.Entities["TEXT"]; n.Imported != 2 {
		t.Fatalf("report TEXT = %+v, want 2 imported", n)
	}
	var svg struct {
		Content string `json:"content"`
	}
	mustCall(t, c, 2, "document.export", map[string]any{"document_id": doc.DocumentID, "format": "svg"}, &svg)
	element := func(text string) string {
		m := regexp.MustCompile(`<text [^>]*>` + text + `</text>`).FindString(svg.Content)
		if m == "" {
			t.Fatalf("the SVG has no text %q:\n%s", text, svg.Content)
		}
		return m
	}
	attr := func(el, name string) string {
		m := regexp.MustCompile(` ` + name + `="([^"]*)"`).FindStringSubmatch(el)
		if m == nil {
			t.Fatalf("%s has no %s", el, name)
		}
		return m[1]
	}

	narrow := element("Narrow")
	if got := attr(narrow, "transform"); got != "matrix(0.7 0 0 1 0 0)" {
		t.Errorf("the styled text's transform = %q, want its glyphs 0.7 as wide at (0, 0): matrix(0.7 0 0 1 0 0)", got)
	}

	aligned := element("Aligned")
	if got := attr(aligned, "transform"); got != "matrix(1 0 0 1 15 10)" {
		t.Errorf("the aligned text's transform = %q, want it centred on (15, -10), along x: matrix(1 0 0 1 15 10)", got)
	}
	if got := attr(aligned, "text-anchor"); got != "middle" {
		t.Errorf("the aligned text's text-anchor = %q, want middle", got)
	}
	if got := attr(aligned, "textLength"); got != "30" {
		t.Errorf("the aligned text's textLength = %q, want 30", got)
	}
	// Its height sets it 30 long to its ink in DejaVu Sans, the face its
	// style's SHX font (txt) is drawn in: the sum of its advances (as the
	// font package measures them; the face kerns none of its pairs) less
	// the last glyph's room right of its ink, in DejaVu's cap heights, ×
	// the height. The SVG gives the height as a generic sans-serif's
	// font size: the height ÷ 0.72.
	size, err := strconv.ParseFloat(attr(aligned, "font-size"), 64)
	if err != nil {
		t.Fatal(err)
	}
	f, err := opentype.Parse(dejavusans.TTF)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 1000, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		t.Fatal(err)
	}
	h, _, _ := face.GlyphBounds('H')
	d, last, _ := face.GlyphBounds('d')
	ink := float64(font.MeasureString(face, "Aligned")-(last-d.Max.X)) / float64(-h.Min.Y)
	if got := size * 0.72 * ink; math.Abs(got-30) > 30e-5 {
		t.Errorf("the aligned text is %v long to its ink at height %v, want 30", got, size*0.72)
	}

	var dxf struct {
		Content string `json:"content"`
	}
	mustCall(t, c, 3, "document.export", map[string]any{"document_id": doc.DocumentID, "format": "dxf"}, &dxf)
	ezdxftest.Audit(t, dxf.Content)
	for _, want := range []string{"\n  2\nNARROW\n", "\n  3\nromans.shx\n", "\n 41\n0.7\n", "\n 72\n     3\n"} {
		if !strings.Contains(dxf.Content, want) {
			t.Errorf("the DXF export has no %q", want)
		}
	}
}
