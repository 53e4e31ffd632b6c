package dxf

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/dxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// importText reads a DXF file into a new document as ImportDocument
// does, without an engine.
func importText(content string) (*drawing.Document, error) {
	d, _, err := importFile(content)
	return d, err
}

// importFile is importText that also returns the file read.
func importFile(content string) (*drawing.Document, *File, error) {
	f, err := ReadText(content)
	if err != nil {
		return nil, nil, err
	}
	units := f.Units
	if units == enginev1.Units_UNITS_UNSPECIFIED {
		units = enginev1.Units_UNITS_MM
	}
	d := drawing.NewDocument("doc-00000000000000ff", "fuzz", units, time.Time{})
	if err := f.Build(d); err != nil {
		return nil, nil, err
	}
	return d, f, nil
}

// sampleDocument has every entity type, texts that look like DXF codes,
// and layers in every state.
func sampleDocument() *drawing.Document {
	d := drawing.NewDocument("doc-0000000000000001", "sample", enginev1.Units_UNITS_FT, time.Time{})
	d.SetLayer("walls", &drawing.Layer{Name: "walls", Color: 1, Linetype: "DASHED", Lineweight: -3, On: false, Locked: true})
	d.SetLayer("frozen", &drawing.Layer{Name: "frozen", Color: 200, Linetype: "Continuous", Lineweight: -3, On: true, Frozen: true})
	d.SetCurrent("walls")
	arc, _ := drawing.NewArc(geom.Pt(1, 1), 2, 350, 10)
	ell, _ := drawing.NewEllipse(geom.Pt(0, 0), geom.Pt(4, 1), 0.3, 45, 270)
	for _, g := range []drawing.Geometry{
		drawing.Point{P: geom.Pt(1, 2)},
		drawing.Line{A: geom.Pt(0, 0), B: geom.Pt(3, 4)},
		drawing.Circle{C: geom.Pt(1, 1), R: 0.1},
		arc,
		drawing.NewPolyline([]geom.Vertex{{P: geom.Pt(0, 0), Bulge: -0.4}, {P: geom.Pt(5, 0)}, {P: geom.Pt(5, 5), Bulge: 1e6}}, true),
		drawing.Text{Text: `Ünï ✓ 100%% \U+0041 %%d %`, P: geom.Pt(1, 1), Height: 3.5, Rotation: 12},
		ell,
	} {
		d.Add(&drawing.Entity{Layer: "walls", Color: 3, Linetype: "HIDDEN", Geom: g})
	}
	return d
}

// checkRoundTrip checks the R12 round trip of the engine's export of a:
// b, its import, holds the same document (see the package doc) —
// ellipses as their flattened polylines, text through dxfText — and a
// second round trip changes nothing.
func checkRoundTrip(t *testing.T, a *drawing.Document) {
	t.Helper()
	checkRoundTripOf(t, a, Write, func(x *drawing.Entity) *drawing.Entity {
		switch g := x.Geom.(type) {
		case drawing.Ellipse:
			return x.With(drawing.NewPolyline(flattenEllipse(g), g.Full()))
		case drawing.Text:
			g.Text = decodeDXFText(dxfText(g.Text))
			return x.With(g)
		}
		return x
	})
}

// checkRoundTrip2018 checks the 2018 round trip: the same document, text
// through dxfText2018 and mtextValue, dimensions within rounding of their
// definition points (DXF keeps other points than the engine).
func checkRoundTrip2018(t *testing.T, a *drawing.Document) {
	t.Helper()
	checkRoundTripOf(t, a, Write2018, func(x *drawing.Entity) *drawing.Entity {
		switch g := x.Geom.(type) {
		case drawing.Text:
			g.Text = decodeDXFText(dxfText2018(g.Text))
			return x.With(g)
		case drawing.MText:
			g.Text = decodeMTextValue(mtextValue(g.Text))
			return x.With(g)
		}
		return x
	})
}

// checkRoundTripOf checks that importing write(a) gives a's layers and
// entities (each as want maps it; dimensions within rounding), and that
// a second round trip changes nothing.
func checkRoundTripOf(t *testing.T, a *drawing.Document, write func(*drawing.Document) string, want func(*drawing.Entity) *drawing.Entity) {
	t.Helper()
	b, err := importText(write(a))
	if err != nil {
		t.Fatalf("the export of an imported document does not import: %v", err)
	}
	if a.Units != b.Units || a.CurrentLayer() != b.CurrentLayer() || a.EntityCount() != b.EntityCount() {
		t.Fatalf("round trip = units %v, current %q, %d entities; want %v, %q, %d", b.Units, b.CurrentLayer(), b.EntityCount(), a.Units, a.CurrentLayer(), a.EntityCount())
	}
	la, lb := a.SortedLayers(), b.SortedLayers()
	if len(la) != len(lb) {
		t.Fatalf("round trip has %d layers, want %d", len(lb), len(la))
	}
	for i := range la {
		// R12 has no lineweights.
		x, y := la[i], lb[i]
		if x.Name != y.Name || x.Color != y.Color || x.Linetype != y.Linetype || x.On != y.On || x.Frozen != y.Frozen || x.Locked != y.Locked {
			t.Errorf("layer %d = %+v, want %+v", i, y, x)
		}
	}
	if len(a.Blocks()) != len(b.Blocks()) {
		t.Errorf("round trip has %d blocks, want %d", len(b.Blocks()), len(a.Blocks()))
	}
	ea, eb := a.Entities(), b.Entities()
	for i := range ea {
		x, y := want(ea[i]), eb[i]
		if y.Fingerprint() != x.Fingerprint() && !nearGeometry(x, y) {
			t.Errorf("entity %d = %s %+v, want %s %+v", i, drawing.FormatHandle(y.Handle), y.Geom, drawing.FormatHandle(x.Handle), x.Geom)
		}
	}
	c, err := importText(write(b))
	if err != nil {
		t.Fatalf("the second round trip does not import: %v", err)
	}
	if len(a.Blocks()) == 0 && c.ContentHash() != b.ContentHash() && !sameEntities(b, c) {
		t.Errorf("the second round trip changed the content hash")
	}
}

// sameEntities reports whether two documents hold the same entities,
// dimensions within rounding.
func sameEntities(a, b *drawing.Document) bool {
	ea, eb := a.Entities(), b.Entities()
	if len(ea) != len(eb) {
		return false
	}
	for i := range ea {
		if ea[i].Fingerprint() != eb[i].Fingerprint() && !nearGeometry(ea[i], eb[i]) {
			return false
		}
	}
	return true
}

// nearGeometry reports whether two dimensions (with the same style) are
// the same within rounding: DXF keeps other definition points than the
// engine, which the round trip computes back.
func nearGeometry(x, y *drawing.Entity) bool {
	if h, ok := x.Geom.(drawing.Hatch); ok {
		return nearHatch(h, y.Geom)
	}
	a, ok1 := x.Geom.(drawing.Dimension)
	b, ok2 := y.Geom.(drawing.Dimension)
	if !ok1 || !ok2 || x.Layer != y.Layer || x.Color != y.Color || x.Linetype != y.Linetype {
		return false
	}
	size := math.Max(1, math.Max(a.P1.Dist(a.P2), a.Radius)+math.Abs(a.Offset)+a.P1.Mag()+a.Center.Mag())
	near := func(p, q float64) bool { return math.Abs(p-q) <= 1e-9*size }
	nearPt := func(p, q geom.Vec) bool { return near(p.X, q.X) && near(p.Y, q.Y) }
	angle := func(p, q float64) bool { return math.Abs(geom.NormDeg(p-q+180)-180) <= 1e-9 }
	if a.Type != b.Type || a.Text != b.Text || a.Style != b.Style || a.Scale != b.Scale || !near(a.Offset, b.Offset) {
		return false
	}
	switch a.Type {
	case enginev1.DimensionKind_DIMENSION_KIND_RADIAL, enginev1.DimensionKind_DIMENSION_KIND_DIAMETRIC:
		return nearPt(a.Center, b.Center) && near(a.Radius, b.Radius) && angle(a.Angle, b.Angle)
	case enginev1.DimensionKind_DIMENSION_KIND_ANGULAR:
		return nearPt(a.Center, b.Center) && nearPt(a.P1, b.P1) && nearPt(a.P2, b.P2)
	}
	return nearPt(a.P1, b.P1) && nearPt(a.P2, b.P2) && angle(a.Angle, b.Angle)
}

func TestDXFRoundTripSample(t *testing.T) {
	a := sampleDocument()
	checkRoundTrip(t, a)
	b, err := importText(Write(a))
	if err != nil {
		t.Fatal(err)
	}
	// Only the ellipse changed: the text, with its code-like parts, is
	// exact.
	for _, e := range a.Entities() {
		if _, ok := e.Geom.(drawing.Ellipse); !ok && b.Entity(e.Handle).Fingerprint() != e.Fingerprint() {
			t.Errorf("entity %s changed in the round trip: %+v, was %+v", drawing.FormatHandle(e.Handle), b.Entity(e.Handle).Geom, e.Geom)
		}
	}
}

func TestDXFText(t *testing.T) {
	for _, s := range []string{
		"plain", "100%", "100%%", "%%d", "%%%", "a%b%%c%%%d", `C:\dir\U+0041`, `\M+18140`, `\\U+`,
		"Ünïcode ✓ ⌀ °", "\uFFFD", "%%123", "% %", "%", `\`,
	} {
		if got := decodeDXFText(dxfText(s)); got != s {
			t.Errorf("decodeDXFText(dxfText(%q)) = %q (written %q)", s, got, dxfText(s))
		}
	}
	for in, want := range map[string]string{
		"%%c25 %%d %%p": "Ø25 ° ±", "%%u%%oa%%k": "a", "%%065%%%": "A%", `\U+00e9\U+D800\U+12`: `é\U+D800\U+12`,
		"tab\there": "tab here", "😀": "😀", "50%%%%%%": "50%%",
		// AutoCAD's fonts have °, ± and Ø at 127, 128 and 129 (an R2.6
		// file's dimensions write them so).
		"%%1292.0000": "Ø2.0000", "90%%127": "90°", "%%12810": "±10",
	} {
		if got := decodeDXFText(in); got != want {
			t.Errorf("decodeDXFText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := dxfText("a😀\tb"); got != "a? b" {
		t.Errorf("dxfText(a😀\\tb) = %q, want %q", got, "a? b")
	}
}

// FuzzReadDXF checks that the reader never panics, fails only with a
// *Error, and that whatever it reads the engine can export and read
// back as the same document (see checkRoundTrip).
func FuzzReadDXF(f *testing.F) {
	f.Add(Write(sampleDocument()))
	f.Add(Write2018(sampleDocument()))
	f.Add(Write2018(annotatedDocument()))
	f.Add(Write(annotatedDocument()))
	if data, err := os.ReadFile("../engine/testdata/ezdxf_r2010.dxf"); err == nil {
		f.Add(string(data))
	}
	// The corpus of real drawings (its smaller files: every seed runs
	// first), as the engine receives them, and the hostile ones.
	if dxftest.Corpus(f) != "" {
		for _, cf := range dxftest.CorpusFiles(f) {
			if len(cf.Data) <= 16<<10 {
				f.Add(dxftest.Text(cf.Data))
			}
		}
	}
	for _, s := range []string{dxftest.NestedBomb(4, 4), dxftest.SelfInsert(), dxftest.Cycle(), dxftest.Grid(100000, 100000), dxftest.Bulge(1e300), dxftest.DenseHatch(1e6, 1e-12), dxftest.NaNPoint()} {
		f.Add(s)
	}
	for _, s := range []string{
		"0\nEOF\n",
		"0\nSECTION\n2\nENTITIES\n0\nLWPOLYLINE\n70\n1\n10\n0\n20\n0\n42\n1\n10\n1\n20\n0\n0\nENDSEC\n0\nEOF\n",
		"0\nSECTION\n2\nENTITIES\n0\nELLIPSE\n10\n0\n20\n0\n11\n2\n21\n0\n40\n0.5\n41\n1\n42\n2\n230\n-1\n0\nENDSEC\n",
		"0\nSECTION\n2\nENTITIES\n0\nTEXT\n10\n1\n20\n1\n40\n2\n1\n%%d\\U+00e9\n0\nARC\n40\n1\n51\n90\n230\n-1\n0\nENDSEC\n",
		"0\nSECTION\n2\nTABLES\n0\nTABLE\n2\nLAYER\n0\nLAYER\n2\nA\n62\n-3\n70\n5\n0\nENDTAB\n0\nENDSEC\n0\nSECTION\n2\nHEADER\n9\n$CLAYER\n8\na\n9\n$INSUNITS\n70\n1\n0\nENDSEC\n",
		"0\nSECTION\n2\nENTITIES\n0\nPOLYLINE\n66\n1\n70\n1\n0\nVERTEX\n10\n1\n42\n-0.3\n0\nVERTEX\n20\n1\n0\nSEQEND\n0\nCIRCLE\n40\n1e300\n10\n1e300\n0\nENDSEC\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		d, err := importText(content)
		if err != nil {
			var de *Error
			if !errors.As(err, &de) || de.Line < 1 {
				t.Fatalf("readDXF error %v is not an *Error with a line", err)
			}
			return
		}
		for _, e := range d.Entities() {
			if !exportable(e.Geom) {
				t.Fatalf("imported entity %s cannot be exported: %+v", drawing.FormatHandle(e.Handle), e.Geom)
			}
		}
		if out := Write(d); strings.Contains(out, "NaN") || strings.Contains(out, "Inf") {
			t.Fatalf("the export of an imported document has numbers that are not finite:\n%s", out)
		}
		checkRoundTrip2018(t, d)
		if r12Only(d) {
			checkRoundTrip(t, d)
		}
	})
}

// r12Only reports whether the document has only entities R12 can hold as
// themselves (the round trip through R12 is exact for them).
func r12Only(d *drawing.Document) bool {
	for _, e := range d.Entities() {
		if e.Geom.Kind() > enginev1.EntityType_ENTITY_TYPE_ELLIPSE {
			return false
		}
	}
	return true
}

// nearHatch reports whether g is h, its pattern's own lines within
// rounding (a file keeps them scaled and turned).
func nearHatch(h drawing.Hatch, g drawing.Geometry) bool {
	k, ok := g.(drawing.Hatch)
	if !ok || len(h.Lines) != len(k.Lines) {
		return false
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	for i, l := range h.Lines {
		m := k.Lines[i]
		if !near(l.Angle, m.Angle) || !near(l.Origin.X, m.Origin.X) || !near(l.Origin.Y, m.Origin.Y) || !near(l.Delta.X, m.Delta.X) || !near(l.Delta.Y, m.Delta.Y) || len(l.Dashes) != len(m.Dashes) {
			return false
		}
		for j := range l.Dashes {
			if !near(l.Dashes[j], m.Dashes[j]) {
				return false
			}
		}
	}
	h.Lines, k.Lines = nil, nil
	a := (&drawing.Entity{Geom: h}).Seal()
	b := (&drawing.Entity{Geom: k}).Seal()
	return a.Fingerprint() == b.Fingerprint()
}
