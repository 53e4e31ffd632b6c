package dxf

import (
	"reflect"
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// styledDimensionFile is a file as dxflib writes one: the HEADER's
// $DIMTXT and $DIMDEC, a STYLE naming its TrueType face only in its ACAD
// extended data (as qcad's QCADDimTextStyle does), a DIMSTYLE entry with
// its arrow size, extension offset and text style (340) but no text
// height, and dimensions without blocks, one with DSTYLE overrides.
func styledDimensionFile(overrides ...string) string {
	pairs := []string{
		"0", "SECTION", "2", "HEADER",
		"9", "$DIMTXT", "40", "3.5",
		"9", "$DIMDEC", "70", "1",
		"9", "$DIMPOST", "1", "<> mm",
		"0", "ENDSEC",
		"0", "SECTION", "2", "TABLES",
		"0", "TABLE", "2", "STYLE", "70", "2",
		"0", "STYLE", "5", "11", "2", "Standard", "70", "0", "40", "0", "41", "1", "3", "txt",
		"0", "STYLE", "5", "3A", "2", "DimText", "70", "0", "40", "0", "41", "1", "3", "", "1001", "ACAD", "1000", "Arial", "1071", "0",
		"0", "ENDTAB",
		"0", "TABLE", "2", "DIMSTYLE", "70", "1",
		"0", "DIMSTYLE", "105", "20", "2", "Drafting", "70", "0", "41", "4", "42", "1", "340", "3a",
		"0", "ENDTAB",
		"0", "ENDSEC",
		"0", "SECTION", "2", "ENTITIES",
		"0", "DIMENSION", "8", "0", "10", "0", "20", "10", "13", "0", "23", "0", "14", "40", "24", "0", "70", "32", "3", "Drafting", "50", "0",
	}
	pairs = append(pairs, overrides...)
	pairs = append(pairs, "0", "ENDSEC", "0", "EOF")
	return dxfLines(pairs...)
}

// dimensionsOf are the document's dimensions, in order.
func dimensionsOf(d *drawing.Document) []drawing.Dimension {
	gs, _ := geomOf[drawing.Dimension](d)
	return gs
}

// A dimension without a block is drawn in its file's dimension style:
// what its overrides set, else its DIMSTYLE entry, else the HEADER's
// $DIM* variables, else the engine's ISO-25; its text style the STYLE
// entry DIMTXSTY names by handle, whose TrueType family (ACAD extended
// data) is the face.
func TestDimensionReadsItsFilesStyle(t *testing.T) {
	dstyle := []string{"1001", "ACAD", "1000", "DSTYLE", "1002", "{",
		"1070", "147", "1040", "1.5",
		"1070", "77", "1070", "0",
		"1070", "271", "1070", "3",
		"1070", "78", "1070", "0",
		"1070", "40", "1040", "2",
		"1002", "}"}
	d, err := importText(styledDimensionFile(dstyle...))
	if err != nil {
		t.Fatal(err)
	}
	dims := dimensionsOf(d)
	if len(dims) != 1 {
		t.Fatalf("dimensions %+v, want one", dims)
	}
	g := dims[0]
	want := drawing.DimStyle{
		Name: "Drafting", TextHeight: 3.5, ArrowSize: 4, ExtOffset: 1, ExtBeyond: 1.25, TextGap: 1.5, Decimals: 3,
		Text:    drawing.TextStyle{Name: "DimText", Font: "Arial.ttf"},
		Centred: true, Zeros: 0, Post: "<> mm",
	}
	if g.Own != want {
		t.Errorf("Own = %+v, want %+v", g.Own, want)
	}
	if g.Scale != 2 {
		t.Errorf("Scale = %v, want the override's 2", g.Scale)
	}
	if got := g.DisplayText(); got != "40.000 mm" {
		t.Errorf("DisplayText() = %q, want 40.000 mm (3 decimals, zeros kept, DIMPOST)", got)
	}
	texts := g.Picture().Texts
	if len(texts) != 1 || texts[0].Height != 7 || texts[0].Style != want.Text || texts[0].Setting().Typeface != drawing.TypefaceTrueType {
		t.Errorf("texts %+v, want one 3.5 × 2 high in DimText, set in Liberation Sans", texts)
	}
}

// A dimension whose style and overrides say what the engine's own style
// of its name says carries no style of its own.
func TestDimensionInPlainStyleHasNoOwn(t *testing.T) {
	content := dxfLines(
		"0", "SECTION", "2", "ENTITIES",
		"0", "DIMENSION", "8", "0", "10", "0", "20", "10", "13", "0", "23", "0", "14", "40", "24", "0", "70", "32", "3", "Standard", "50", "0",
		"1001", "ACAD", "1000", "DSTYLE", "1002", "{", "1070", "140", "1040", "2.5", "1070", "41", "1040", "2.5", "1002", "}",
		"0", "ENDSEC", "0", "EOF")
	d, err := importText(content)
	if err != nil {
		t.Fatal(err)
	}
	if dims := dimensionsOf(d); len(dims) != 1 || dims[0].Own != (drawing.DimStyle{}) {
		t.Errorf("dimensions %+v, want one without a style of its own", dims)
	}
}

// A dimension's own style survives export and import: whole in 2018
// (its text style named by handle, its STYLE entry written), its sizes
// and number format in R12, which has no DIMTXSTY; ezdxf audits both
// clean.
func TestDimensionOwnStyleRoundTrip(t *testing.T) {
	d, err := importText(styledDimensionFile("1001", "ACAD", "1000", "DSTYLE", "1002", "{", "1070", "45", "1040", "0.5", "1002", "}"))
	if err != nil {
		t.Fatal(err)
	}
	want := dimensionsOf(d)[0].Own
	if want.Round != 0.5 || want.Text.Font != "Arial.ttf" {
		t.Fatalf("Own = %+v, want DIMRND 0.5 and the text in Arial", want)
	}
	for name, write := range map[string]func(*drawing.Document) string{"R12": Write, "2018": Write2018} {
		t.Run(name, func(t *testing.T) {
			content := write(d)
			ezdxftest.Audit(t, content)
			back, err := importText(content)
			if err != nil {
				t.Fatal(err)
			}
			dims := dimensionsOf(back)
			if len(dims) != 1 {
				t.Fatalf("dimensions %+v, want one", dims)
			}
			w := want
			if name == "R12" {
				w.Text = drawing.TextStyle{}
			}
			if got := dims[0].Own; !reflect.DeepEqual(got, w) {
				t.Errorf("Own after %s = %+v, want %+v", name, got, w)
			}
			if name == "2018" && !strings.Contains(content, "\nDimText\n") {
				t.Error("the export has no STYLE entry DimText")
			}
		})
	}
}

// The engine's own dimensions keep exporting as before: no overrides
// beyond their scale.
func TestBuiltinDimensionWritesNoStyleOverrides(t *testing.T) {
	d := drawing.NewDocument("doc-0000000000000003", "plain", enginev1.Units_UNITS_MM, time.Time{})
	d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: drawing.Dimension{Type: enginev1.DimensionKind_DIMENSION_KIND_ALIGNED, P2: geom.Pt(10, 0), Offset: 5, Style: "ISO-25", Scale: 1}})
	if content := Write2018(d); strings.Contains(content, "DSTYLE") {
		t.Error("a dimension in the engine's style was written with DSTYLE overrides")
	}
}

// A dimension naming a style the DIMSTYLE table lacks takes the file's
// Standard entry (as AutoCAD's audit renames it), not the HEADER's
// values alone.
func TestDimensionOfMissingStyleTakesStandard(t *testing.T) {
	content := dxfLines(
		"0", "SECTION", "2", "HEADER", "9", "$DIMTXT", "40", "10", "0", "ENDSEC",
		"0", "SECTION", "2", "TABLES",
		"0", "TABLE", "2", "DIMSTYLE", "70", "1",
		"0", "DIMSTYLE", "2", "STANDARD", "70", "0", "140", "0.18", "41", "0.18",
		"0", "ENDTAB", "0", "ENDSEC",
		"0", "SECTION", "2", "ENTITIES",
		"0", "DIMENSION", "8", "0", "10", "0", "20", "10", "13", "0", "23", "0", "14", "40", "24", "0", "70", "32", "3", "DIMSTYLE1", "50", "0",
		"0", "ENDSEC", "0", "EOF")
	d, err := importText(content)
	if err != nil {
		t.Fatal(err)
	}
	dims := dimensionsOf(d)
	if len(dims) != 1 || dims[0].Own.TextHeight != 0.18 || dims[0].Own.ArrowSize != 0.18 {
		t.Errorf("dimensions %+v, want one with Standard's text height and arrows, 0.18", dims)
	}
}

// A leader's arrowhead takes its size through the same layers: with no
// DIMSTYLE entry, the HEADER's $DIMASZ times its $DIMSCALE.
func TestLeaderArrowFromHeader(t *testing.T) {
	content := dxfLines(
		"0", "SECTION", "2", "HEADER", "9", "$DIMASZ", "40", "4", "9", "$DIMSCALE", "40", "2", "0", "ENDSEC",
		"0", "SECTION", "2", "ENTITIES",
		"0", "LEADER", "8", "0", "3", "Standard", "71", "1", "72", "0", "10", "0", "20", "0", "10", "10", "20", "10",
		"0", "ENDSEC", "0", "EOF")
	d, err := importText(content)
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := d.Entities()[0].Geom.(drawing.Leader); !ok || g.Size != 8 {
		t.Errorf("leader %+v, want its arrowhead 4 × 2 = 8", d.Entities()[0].Geom)
	}
}
