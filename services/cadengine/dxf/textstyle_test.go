package dxf

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// styledDXF is an R12 file with a text style of width factor 0.7 and
// oblique angle 15 in romans.shx, and texts in it, aligned and fitted
// between two points, and an MTEXT in it; and texts drawn backwards and
// upside down.
var styledDXF = dxfLines(
	"0", "SECTION", "2", "TABLES",
	"0", "TABLE", "2", "STYLE", "70", "3",
	"0", "STYLE", "2", "STANDARD", "70", "0", "40", "0", "41", "1", "50", "0", "71", "0", "42", "2.5", "3", "txt", "4", "",
	"0", "STYLE", "2", "NARROW", "70", "0", "40", "0", "41", "0.7", "50", "15", "71", "0", "42", "2.5", "3", "romans.shx", "4", "",
	"0", "STYLE", "2", "", "70", "1", "40", "0", "41", "1", "50", "0", "71", "0", "42", "2.5", "3", "ltypeshp.shx", "4", "",
	"0", "ENDTAB", "0", "ENDSEC",
	"0", "SECTION", "2", "ENTITIES",
	"0", "TEXT", "8", "0", "10", "1", "20", "2", "40", "2.5", "1", "Narrow", "41", "0.7", "51", "15", "7", "NARROW",
	"0", "TEXT", "8", "0", "10", "1", "20", "8", "40", "2.5", "1", "Own width", "7", "narrow",
	"0", "TEXT", "8", "0", "10", "0", "20", "-5", "40", "1", "1", "Aligned", "72", "3", "11", "10", "21", "-5",
	"0", "TEXT", "8", "0", "10", "20", "20", "0", "40", "1", "1", "Fit", "72", "5", "11", "20", "21", "15", "7", "NARROW", "41", "0.7",
	"0", "TEXT", "8", "0", "10", "0", "20", "20", "40", "1", "1", "Standard",
	"0", "TEXT", "8", "0", "10", "5", "20", "40", "40", "2", "1", "Backwards", "71", "2", "51", "10",
	"0", "TEXT", "8", "0", "10", "5", "20", "50", "40", "2", "1", "Upside down", "71", "4", "72", "1", "11", "5", "21", "50",
	"0", "MTEXT", "8", "0", "10", "0", "20", "30", "40", "1", "1", "Mtext", "7", "NARROW",
	"0", "ENDSEC", "0", "EOF")

func styledDocument(t *testing.T, content string) *drawing.Document {
	t.Helper()
	f, err := Read(content)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	d := drawing.NewDocument("doc-1", "styles", enginev1.Units_UNITS_MM, time.Time{})
	if err := f.Build(d); err != nil {
		t.Fatalf("Build: %v", err)
	}
	return d
}

// texts are a document's geometries by their text.
func texts(d *drawing.Document) map[string]drawing.Geometry {
	out := map[string]drawing.Geometry{}
	for _, e := range d.Entities() {
		switch g := e.Geom.(type) {
		case drawing.Text:
			out[g.Text] = g
		case drawing.MText:
			out[g.Text] = g
		}
	}
	return out
}

// The STYLE table's font, width factor and oblique angle reach the texts
// that name it: a TEXT at its own width factor, slant and generation
// flags (41, 51, 71; DXF's 1, 0 and 0 without them), an MTEXT at its
// style's; a text justified between two points is set between them.
func TestReadTextStyles(t *testing.T) {
	got := texts(styledDocument(t, styledDXF))
	narrow := drawing.TextStyle{Name: "NARROW", Font: "romans.shx", Width: 0.7, Oblique: 15}
	want := map[string]drawing.Geometry{
		"Narrow":    drawing.Text{Text: "Narrow", P: geom.Pt(1, 2), Height: 2.5, Style: narrow},
		"Own width": drawing.Text{Text: "Own width", P: geom.Pt(1, 8), Height: 2.5, Style: drawing.TextStyle{Name: "NARROW", Font: "romans.shx"}},
		"Aligned":   drawing.Text{Text: "Aligned", P: geom.Pt(0, -5), Height: 1, Fit: drawing.FitAligned, End: geom.Pt(10, -5)},
		"Fit":       drawing.Text{Text: "Fit", P: geom.Pt(20, 0), Height: 1, Rotation: 90, Fit: drawing.FitWidth, End: geom.Pt(20, 15), Style: drawing.TextStyle{Name: "NARROW", Font: "romans.shx", Width: 0.7}},
		"Standard":  drawing.Text{Text: "Standard", P: geom.Pt(0, 20), Height: 1},
		"Backwards": drawing.Text{Text: "Backwards", P: geom.Pt(5, 40), Height: 2, Style: drawing.TextStyle{Name: "Standard", Oblique: 10, Mirror: drawing.MirrorBackward}},
		"Upside down": drawing.Text{Text: "Upside down", P: geom.Pt(5, 50), Height: 2, Align: drawing.Align{H: drawing.AlignCenter},
			Style: drawing.TextStyle{Name: "Standard", Mirror: drawing.MirrorUpsideDown}},
		"Mtext": drawing.MText{Text: "Mtext", P: geom.Pt(0, 30), Height: 1, Attach: 1, Spacing: 1, Style: narrow},
	}
	if !reflect.DeepEqual(got, want) {
		for k := range want {
			if !reflect.DeepEqual(got[k], want[k]) {
				t.Errorf("%s = %+v, want %+v", k, got[k], want[k])
			}
		}
	}
}

// A document's text styles and texts between two points are written
// back (the STYLE table and each text's 7, 41, 51, 72 and 11) and read
// again as they were, in both versions; ezdxf reads them alike and audits
// the files clean.
func TestTextStylesRoundTrip(t *testing.T) {
	d := styledDocument(t, styledDXF)
	want := texts(d)
	for _, v := range []struct {
		name  string
		write func(*drawing.Document) string
	}{{"R12", Write}, {"R2018", Write2018}} {
		t.Run(v.name, func(t *testing.T) {
			content := v.write(d)
			got := texts(styledDocument(t, content))
			if v.name == "R12" {
				// R12 has no MTEXT: it is written as a TEXT a line, in its
				// style.
				if m, ok := got["Mtext"].(drawing.Text); !ok || m.Style != want["Mtext"].(drawing.MText).Style {
					t.Errorf("R12's MTEXT reads back as %+v, want a TEXT in its style", got["Mtext"])
				}
				delete(got, "Mtext")
				got["Mtext"] = want["Mtext"]
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("read back = %+v, want %+v", got, want)
			}
			ezdxftest.Audit(t, content)
			out := ezdxftest.Run(t, styleScript, ezdxftest.File(t, "styles.dxf", content))
			if out == "" {
				return // no ezdxf outside CI
			}
			var read struct {
				Styles map[string]struct {
					Font           string
					Width, Oblique float64
				}
				Texts map[string]struct {
					Style                  string
					Width, Oblique         float64
					Halign                 int
					Insert, Align          []float64
					Xmin, Ymin, Xmax, Ymax float64
				}
			}
			if err := json.Unmarshal([]byte(out), &read); err != nil {
				t.Fatalf("ezdxf printed %s: %v", out, err)
			}
			if s := read.Styles["NARROW"]; s.Font != "romans.shx" || s.Width != 0.7 || s.Oblique != 15 {
				t.Errorf("ezdxf reads the style NARROW as %+v, want romans.shx at width 0.7 and oblique 15", s)
			}
			for name, g := range want {
				g, ok := g.(drawing.Text)
				if !ok {
					continue
				}
				e, ok := read.Texts[name]
				if !ok {
					t.Errorf("ezdxf reads no TEXT %q", name)
					continue
				}
				if !strings.EqualFold(e.Style, styleName(g.Style)) || e.Width != g.Style.WidthFactor() || e.Oblique != g.Style.Oblique {
					t.Errorf("ezdxf reads %q in %s at width %v, oblique %v; want %+v", name, e.Style, e.Width, e.Oblique, g.Style)
				}
				if g.Fit != drawing.FitNone {
					if e.Halign != fitCode[g.Fit] || !geom.Pt(e.Insert[0], e.Insert[1]).Same(g.P) || !geom.Pt(e.Align[0], e.Align[1]).Same(g.End) {
						t.Errorf("ezdxf reads %q justified %d from %v to %v, want %d from %v to %v", name, e.Halign, e.Insert, e.Align, fitCode[g.Fit], g.P, g.End)
					}
				}
				// The engine's estimate of the text's box is ezdxf's.
				b := g.Bounds()
				if math.Abs(b.Min.X-e.Xmin) > 1e-9 || math.Abs(b.Min.Y-e.Ymin) > 1e-9 || math.Abs(b.Max.X-e.Xmax) > 1e-9 || math.Abs(b.Max.Y-e.Ymax) > 1e-9 {
					t.Errorf("%q: Bounds = %v, ezdxf.bbox's (%v, %v)–(%v, %v)", name, b, e.Xmin, e.Ymin, e.Xmax, e.Ymax)
				}
			}
		})
	}
}

// styleScript prints, as JSON, the text styles ezdxf reads in a file and
// each TEXT's style, width factor, oblique angle, justification, points
// and extents (ezdxf.bbox, text estimated without fonts, as the corpus
// oracle has it).
const styleScript = `
import sys, json, ezdxf, ezdxf.bbox
ezdxf.options.use_matplotlib = False
doc = ezdxf.readfile(sys.argv[1])
styles = {s.dxf.name.upper(): {"font": s.dxf.font, "width": s.dxf.width, "oblique": s.dxf.oblique} for s in doc.styles}
texts = {}
for e in doc.modelspace().query("TEXT"):
    b = ezdxf.bbox.extents([e], fast=False)
    texts[e.dxf.text] = {"style": e.dxf.style, "width": e.dxf.width, "oblique": e.dxf.oblique,
        "halign": e.dxf.halign, "insert": list(e.dxf.insert)[:2], "align": list(e.dxf.get("align_point", (0, 0, 0)))[:2],
        "xmin": b.extmin.x, "ymin": b.extmin.y, "xmax": b.extmax.x, "ymax": b.extmax.y}
print(json.dumps({"styles": styles, "texts": texts}))
`

// A STYLE entry that names no font file (3 empty) but a TrueType family
// in its ACAD extended data (1000, then its flags 1071) is set in that
// family: its file, family.ttf, with Bold or Italic as the flags say; a
// family that is a file name is that file; "txt", which qcad writes as
// its Standard style's family, stays the SHX font txt.
func TestTextStyleFamilyFromExtendedData(t *testing.T) {
	for _, c := range []struct {
		family, flags string
		font          string
		face          drawing.Typeface
	}{
		{"Arial", "0", "Arial.ttf", drawing.TypefaceTrueType},
		{"Arial", "33554432", "Arial Bold.ttf", drawing.TypefaceBold},
		{"Arial", "16777216", "Arial Italic.ttf", drawing.TypefaceItalic},
		{"LiberationSans-Regular.ttf", "0", "LiberationSans-Regular.ttf", drawing.TypefaceTrueType},
		{"txt", "0", "", drawing.TypefaceRegular},
	} {
		content := dxfLines(
			"0", "SECTION", "2", "TABLES",
			"0", "TABLE", "2", "STYLE", "70", "1",
			"0", "STYLE", "5", "3A", "2", "Face", "70", "0", "40", "0", "41", "1", "3", "", "4", "", "1001", "ACAD", "1000", c.family, "1071", c.flags,
			"0", "ENDTAB", "0", "ENDSEC",
			"0", "SECTION", "2", "ENTITIES",
			"0", "TEXT", "8", "0", "10", "0", "20", "0", "40", "2.5", "1", "x", "7", "Face",
			"0", "ENDSEC", "0", "EOF")
		d, err := importText(content)
		if err != nil {
			t.Fatal(err)
		}
		g := d.Entities()[0].Geom.(drawing.Text)
		if g.Style.Font != c.font || drawing.TypefaceOf(g.Style.Font) != c.face {
			t.Errorf("family %q, flags %s: font %q (%v), want %q (%v)", c.family, c.flags, g.Style.Font, drawing.TypefaceOf(g.Style.Font), c.font, c.face)
		}
	}
}
