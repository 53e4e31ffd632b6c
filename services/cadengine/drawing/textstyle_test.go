package drawing

import (
	"bytes"
	"math"
	"reflect"
	"testing"

	"github.com/go-fonts/dejavu/dejavusans"
	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// near reports whether two boxes agree within 1e-9.
func nearBox(a, b geom.Box) bool {
	return math.Abs(a.Min.X-b.Min.X) < 1e-9 && math.Abs(a.Min.Y-b.Min.Y) < 1e-9 &&
		math.Abs(a.Max.X-b.Max.X) < 1e-9 && math.Abs(a.Max.Y-b.Max.Y) < 1e-9
}

func box(x0, y0, x1, y1 float64) geom.Box {
	return geom.Box{Min: geom.Pt(x0, y0), Max: geom.Pt(x1, y1), NonEmpty: true}
}

// A text's estimated box is ezdxf's (ezdxf.tools.text.TextLine with its
// MonospaceFont): characters × height × width factor long, 0.333 × height
// below the baseline to height above it, its corners slanted right by
// the oblique angle (tan × their height above the baseline).
func TestTextStyleBounds(t *testing.T) {
	tan15 := math.Tan(15 * math.Pi / 180)
	for _, c := range []struct {
		name string
		g    Text
		want geom.Box
	}{
		{"width 0.7", Text{Text: "ABCD", P: geom.Pt(10, 5), Height: 2, Style: TextStyle{Width: 0.7}},
			box(10, 5-0.666, 10+4*2*0.7, 7)},
		{"width 0.7, right aligned", Text{Text: "ABCD", P: geom.Pt(10, 5), Height: 2, Align: Align{H: AlignRight}, Style: TextStyle{Width: 0.7}},
			box(10-5.6, 5-0.666, 10, 7)},
		{"oblique 15", Text{Text: "ABCD", P: geom.Pt(10, 5), Height: 2, Style: TextStyle{Oblique: 15}},
			box(10-0.666*tan15, 5-0.666, 18+2*tan15, 7)},
		{"oblique -15 (345)", Text{Text: "ABCD", P: geom.Pt(10, 5), Height: 2, Style: TextStyle{Oblique: 345}},
			box(10-2*tan15, 5-0.666, 18+0.666*tan15, 7)},
		// Fitted: from P to End, the height kept.
		{"fit", Text{Text: "AB", P: geom.Pt(0, 0), Height: 1, Fit: FitWidth, End: geom.Pt(10, 0)},
			box(0, -0.333, 10, 1)},
		// Aligned: the natural length is 2 × 1 × 0.5 = 1, so the height
		// grows by 10 as the length does.
		{"aligned at width 0.5", Text{Text: "AB", P: geom.Pt(0, 0), Height: 1, Fit: FitAligned, End: geom.Pt(10, 0), Style: TextStyle{Width: 0.5}},
			box(0, -3.33, 10, 10)},
		// Backwards and upside down: mirrored about P along and across
		// the baseline.
		{"backwards", Text{Text: "ABCD", P: geom.Pt(10, 5), Height: 2, Style: TextStyle{Mirror: MirrorBackward}},
			box(2, 5-0.666, 10, 7)},
		{"upside down, centred", Text{Text: "ABCD", P: geom.Pt(10, 5), Height: 2, Align: Align{H: AlignCenter}, Style: TextStyle{Mirror: MirrorUpsideDown}},
			box(6, 3, 14, 5+0.666)},
		// Upwards: the baseline along y, the text's top towards -x.
		{"fit upwards", Text{Text: "AB", P: geom.Pt(0, 0), Height: 1, Rotation: 90, Fit: FitWidth, End: geom.Pt(0, 10)},
			box(-1, 0, 0.333, 10)},
	} {
		if got := c.g.Bounds(); !nearBox(got, c.want) {
			t.Errorf("%s: Bounds = %v, want %v", c.name, got, c.want)
		}
	}
}

// A text set between two points is drawn from the first to the second:
// a fitted one stretched across at its height, an aligned one scaled
// both ways at its width factor; a text in a style is drawn at its width
// factor and slant.
func TestTextSetting(t *testing.T) {
	// At height 2, in the face of text without a style, to the right of
	// its ink (see TestSettingAlignsByInk).
	natural := dejaVuInk(t, "Fit me") / capHeightOf(TypefaceRegular) * 2
	fit := Text{Text: "Fit me", P: geom.Pt(1, 1), Height: 2, Fit: FitWidth, End: geom.Pt(1+30, 1), Style: TextStyle{Width: 0.8}}
	st := fit.Setting()
	if st.Anchor != geom.Pt(16, 1) || st.H != AlignCenter || st.Height != 2 || st.Length != 30 {
		t.Errorf("fit Setting = %+v, want centred at (16, 1), height 2, 30 long", st)
	}
	// The font package rounds each advance and H's top to 1/64 of a
	// pixel (at 1000 pixels to the em): a few hundred-thousandths.
	if got := st.XScale * natural; math.Abs(got-30) > 30*5e-5 {
		t.Errorf("fit Setting's XScale %v × natural length %v = %v, want 30", st.XScale, natural, got)
	}

	aligned := fit
	aligned.Fit = FitAligned
	st = aligned.Setting()
	if st.XScale != 0.8 {
		t.Errorf("aligned Setting's XScale = %v, want the width factor 0.8", st.XScale)
	}
	// At height h the text is natural × h/2 × 0.8 long: 30 at h below.
	if want := 2 * 30 / (natural * 0.8); math.Abs(st.Height-want) > want*5e-5 {
		t.Errorf("aligned Setting's Height = %v, want %v", st.Height, want)
	}

	styled := Text{Text: "x", P: geom.Pt(3, 4), Height: 1, Align: Align{H: AlignCenter, V: AlignTop}, Style: TextStyle{Width: 0.7, Oblique: 20, Font: "COUR.TTF"}}
	st = styled.Setting()
	want := Setting{Anchor: geom.Pt(3, 3), H: AlignCenter, Height: 1, XScale: 0.7, Slant: math.Tan(20 * math.Pi / 180), Typeface: TypefaceMono, MirrorX: 1, MirrorY: 1}
	if math.Abs(st.Slant-want.Slant) > 1e-12 {
		t.Errorf("Slant = %v, want %v", st.Slant, want.Slant)
	}
	st.Slant = want.Slant
	if !(st.Lead > 0) {
		t.Errorf("centred Setting's Lead = %v, want half its width", st.Lead)
	}
	st.Lead = 0 // measured in TestSettingAlignsByInk
	if st != want {
		t.Errorf("Setting = %+v, want %+v", st, want)
	}
	if !(Text{Text: "x", Height: 1}).Setting().Plain() {
		t.Errorf("a text without a style is not set plain")
	}
}

// Text in an SHX font (txt, the Standard style's, and text without a
// style) is laid out in DejaVu Sans's widths, the stand-in for the
// stroke fonts that ezdxf draws them in too, and text in Arial in
// Liberation Sans's, which are Arial's, each at its capitals' height: in
// DejaVu Sans v, a, l, o, r advance 1212, 1255, 569, 1253 and 842 units,
// r and o are kerned 45 closer, and H is 1493 tall; in Liberation Sans
// 1024, 1139, 455, 1139 and 682 (not kerned), H 1409.
func TestShapeFontWidths(t *testing.T) {
	for _, c := range []struct {
		font       string
		units, cap float64
	}{
		{"", 1212 + 1255 + 569 + 1253 + 842 + 1253 - 45, 1493},
		{"txt", 1212 + 1255 + 569 + 1253 + 842 + 1253 - 45, 1493},
		{"simplex.shx", 1212 + 1255 + 569 + 1253 + 842 + 1253 - 45, 1493},
		{"arial.ttf", 1024 + 1139 + 455 + 1139 + 682 + 1139, 1409},
	} {
		want := c.units / c.cap * 10
		if got := drawnWidthIn(TypefaceOf(c.font), "valoro", 10); math.Abs(got-want) > 1e-9 {
			t.Errorf("%q: valoro at height 10 is %v wide, want %v", c.font, got, want)
		}
	}
}

// SHX and TrueType names map to the bundled faces by what they say.
func TestTypefaceOf(t *testing.T) {
	for font, want := range map[string]Typeface{
		"": TypefaceRegular, "txt": TypefaceRegular, "TXT.SHX": TypefaceRegular, "simplex.shx": TypefaceRegular,
		"romans.shx": TypefaceRegular, "isocp.shx": TypefaceRegular, "gdt.shx": TypefaceRegular, "arial.ttf": TypefaceTrueType,
		"monotxt.shx": TypefaceMono, "cour.ttf": TypefaceMono, "consola.ttf": TypefaceMono, `C:\Fonts\Lucida Console.ttf`: TypefaceMono,
		"arialbd.ttf": TypefaceBold, "Arial Bold.ttf": TypefaceBold, "italic.shx": TypefaceItalic, "ariali.ttf": TypefaceItalic,
		"segoeui.ttf": TypefaceTrueType, "Times.TTF": TypefaceTrueType, "SourceSans.otf": TypefaceTrueType, "romand": TypefaceRegular,
	} {
		if got := TypefaceOf(font); got != want {
			t.Errorf("TypefaceOf(%q) = %v, want %v", font, got, want)
		}
	}
}

// A text without a style or fit encodes as it always did; one with them
// adds them, and decodes back with them; so do an insert's attributes
// and an MTEXT.
func TestTextStyleEncoding(t *testing.T) {
	plain := Text{Text: "a", P: geom.Pt(1, 2), Height: 3, Rotation: 10, Align: Align{H: AlignCenter}}
	e := &Entity{Layer: "0", Linetype: "ByLayer", Color: 256, Geom: plain}
	old := e.Encode()
	if !bytes.HasSuffix(old, []byte{'J', AlignCenter}) {
		t.Errorf("Encode(plain) = %x, want it to end at its alignment", old)
	}
	style := TextStyle{Name: "Narrow", Font: "romans.shx", BigFont: "big.shx", Width: 0.7, Oblique: 15, Fixed: 2, Mirror: MirrorBackward | MirrorUpsideDown}
	for _, g := range []Geometry{
		Text{Text: "a", P: geom.Pt(1, 2), Height: 3, Rotation: 10, Fit: FitAligned, End: geom.Pt(5, 2), Style: style},
		Text{Text: "a", P: geom.Pt(1, 2), Height: 3, Style: style},
		Attdef{Tag: "T", Text: Text{Text: "a", Height: 1, Fit: FitWidth, End: geom.Pt(3, 0)}},
		Insert{Name: "B", Scale: 1, Attribs: []Attrib{{Tag: "A", Text: Text{Text: "x", Height: 1}}, {Tag: "B", Text: Text{Text: "y", Height: 1, Fit: FitWidth, End: geom.Pt(4, 0), Style: style}}}},
		MText{Text: "m", Height: 1, Attach: 1, Spacing: 1, Style: style},
	} {
		e := &Entity{Layer: "0", Linetype: "ByLayer", Color: 256, Geom: g}
		enc := e.Encode()
		back, err := DecodeEntity(0x100, enc)
		if err != nil {
			t.Fatalf("DecodeEntity(%+v): %v", g, err)
		}
		if !reflect.DeepEqual(back.Geom, g) {
			t.Errorf("DecodeEntity = %+v, want %+v", back.Geom, g)
		}
		if _, err := DecodeEntity(0x100, enc[:len(enc)-4]); err == nil {
			t.Errorf("DecodeEntity of %T cut short succeeded", g)
		}
	}
}

// A text set between two points stays between the images of its points
// as it is moved, turned, scaled and mirrored (read the right way, as a
// text at a point is).
func TestFitTextTransformed(t *testing.T) {
	g := Text{Text: "ab", P: geom.Pt(1, 0), Height: 1, Fit: FitWidth, End: geom.Pt(5, 0)}
	got := g.Transformed(geom.RotateAbout(geom.Vec{}, 90).Then(geom.ScaleAbout(geom.Vec{}, 2))).(Text)
	if !got.P.Same(geom.Pt(0, 2)) || !got.End.Same(geom.Pt(0, 10)) || math.Abs(got.Rotation-90) > 1e-9 || math.Abs(got.Height-2) > 1e-12 {
		t.Errorf("turned and scaled = %+v, want from (0, 2) to (0, 10) at 90°, 2 tall", got)
	}
	// Mirrored in the y axis: over the image of its span, from -5 to -1,
	// read left to right.
	m := g.Transformed(geom.MirrorAbout(geom.Vec{}, geom.Pt(0, 1))).(Text)
	if !m.P.Same(geom.Pt(-5, 0)) || !m.End.Same(geom.Pt(-1, 0)) || m.Rotation != 0 {
		t.Errorf("mirrored in the y axis = %+v, want from (-5, 0) to (-1, 0)", m)
	}
	// Mirrored in the x axis: the baseline keeps its way.
	m = g.Transformed(geom.MirrorAbout(geom.Vec{}, geom.Pt(1, 0))).(Text)
	if !m.P.Same(geom.Pt(1, 0)) || !m.End.Same(geom.Pt(5, 0)) || m.Rotation != 0 {
		t.Errorf("mirrored in the x axis = %+v, want from (1, 0) to (5, 0)", m)
	}
}

// An MTEXT's lines are laid out at its style's width factor and drawn in
// its style: right-attached, a line of half the width starts half as far
// left of the attachment point.
func TestMTextStyle(t *testing.T) {
	g := MText{Text: "Right", P: geom.Pt(100, 0), Height: 2, Attach: 3, Spacing: 1, Style: TextStyle{Name: "Half", Width: 0.5, Oblique: 10}}
	p := g.Picture()
	if len(p.Texts) != 1 {
		t.Fatalf("Picture = %+v, want one line", p)
	}
	line := p.Texts[0]
	if want := 100 - dejaVuInk(t, "Right")/capHeightOf(TypefaceRegular)*2*0.5; math.Abs(line.P.X-want) > 1e-3 {
		t.Errorf("the line starts at x = %v, want %v", line.P.X, want)
	}
	if line.Style != g.Style {
		t.Errorf("the line's style = %+v, want the MTEXT's %+v", line.Style, g.Style)
	}
}

// dejaVuInk is, read from DejaVu Sans itself by the font package, how
// far s runs from the pen's start to the right edge of its last
// character's ink, kerned by the font's kern table, in ems.
func dejaVuInk(t *testing.T, s string) float64 {
	t.Helper()
	f, err := sfnt.Parse(dejavusans.TTF)
	if err != nil {
		t.Fatal(err)
	}
	var b sfnt.Buffer
	em := fixed.I(int(f.UnitsPerEm()))
	pen := fixed.Int26_6(0)
	var right fixed.Int26_6
	var prev sfnt.GlyphIndex
	for i, r := range s {
		x, err := f.GlyphIndex(&b, r)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			// A pair the font does not kern is not found.
			if k, err := f.Kern(&b, prev, x, em, font.HintingNone); err == nil {
				pen += k
			}
		}
		prev = x
		ink, _, err := f.GlyphBounds(&b, x, em, font.HintingNone)
		if err != nil {
			t.Fatal(err)
		}
		right = pen + ink.Max.X
		a, err := f.GlyphAdvance(&b, x, em, font.HintingNone)
		if err != nil {
			t.Fatal(err)
		}
		pen += a
	}
	return float64(right) / float64(em)
}

// A text set right, centred or between two points is aligned by its ink:
// its last character's ink ends at its point (or the second point), not
// the advance that would carry the pen to a next character, as a CAD
// program and ezdxf set it.
func TestSettingAlignsByInk(t *testing.T) {
	capH := capHeightOf(TypefaceRegular) // of the size: text of height h is set at size h/capH
	const h = 2.0
	size := h / capH
	right := Text{Text: "FOO", P: geom.Pt(10, 0), Height: h, Align: Align{H: AlignRight}}
	// In DejaVu Sans F advances 1178 units, O 1612, O's ink ends at 1497,
	// and H is 1493 tall: FOO's ink ends 4287/1493 heights in.
	if got, want := right.Setting().Lead, (1178+1612+1497)/1493.0*h; math.Abs(got-want) > 1e-9 {
		t.Errorf("right-aligned FOO: Lead = %v, want %v", got, want)
	}
	kerned := Text{Text: "Fit", P: geom.Pt(10, 0), Height: h, Align: Align{H: AlignRight}}
	if got, want := kerned.Setting().Lead, dejaVuInk(t, "Fit")*size; math.Abs(got-want) > 1e-9 {
		t.Errorf("right-aligned Fit (F and i kerned): Lead = %v, want %v", got, want)
	}
	centred := Text{Text: "FOO  ", P: geom.Pt(10, 0), Height: h, Align: Align{H: AlignCenter}}
	if got, want := centred.Setting().Lead, dejaVuInk(t, "FOO")*size/2; math.Abs(got-want) > 1e-9 {
		t.Errorf("centred FOO with trailing spaces: Lead = %v, want %v", got, want)
	}
	fit := Text{Text: "FOO", P: geom.Pt(0, 0), End: geom.Pt(10, 0), Height: h, Fit: FitWidth}
	st := fit.Setting()
	// Stretched so that the ink runs from the start to the end point.
	if got := st.XScale * dejaVuInk(t, "FOO") * size; math.Abs(got-10) > 1e-9 {
		t.Errorf("fitted FOO: its ink runs %v, want 10", got)
	}
	if got := st.Lead * st.XScale; math.Abs(got-5) > 1e-9 {
		t.Errorf("fitted FOO: starts %v before the middle, want 5", got)
	}
	aligned := Text{Text: "FOO", P: geom.Pt(0, 0), End: geom.Pt(10, 0), Height: h, Fit: FitAligned}
	st = aligned.Setting()
	if got := dejaVuInk(t, "FOO") * st.Height / capH; math.Abs(got-10) > 1e-9 || math.Abs(st.Lead-5) > 1e-9 {
		t.Errorf("aligned FOO: its ink runs %v from %v before the middle, want 10 from 5", got, st.Lead)
	}
}

// An MTEXT's paragraphs are set as their own alignments say, within the
// box its attachment places: in a left-attached box 20 wide from x = 0,
// a right-aligned paragraph's ink ends at 20 and a centred one's middle
// is at 10; the others start at 0.
func TestMTextParagraphAligns(t *testing.T) {
	g := MText{Text: "left\nright\ncentre\nattached", P: geom.Pt(0, 0), Height: 2, Width: 20, Attach: 1, Spacing: 1, Aligns: " rc"}
	p := g.Picture()
	if len(p.Texts) != 4 {
		t.Fatalf("Picture = %+v, want four lines", p)
	}
	size := 2 / capHeightOf(TypefaceRegular)
	for i, want := range []float64{0, 20 - dejaVuInk(t, "right")*size, 10 - dejaVuInk(t, "centre")*size/2, 0} {
		if got := p.Texts[i].P.X; math.Abs(got-want) > 1e-9 {
			t.Errorf("line %q starts at x = %v, want %v", p.Texts[i].Text, got, want)
		}
	}
	// Encoded and decoded, the alignments stay.
	var w encoder
	g.encodeTo(&w)
	if back := decodeMText(&decoder{b: w.b}); back != g {
		t.Errorf("decoded %+v, want %+v", back, g)
	}
}
