package drawing

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/go-fonts/dejavu/dejavusans"
	"github.com/go-fonts/liberation/liberationsansregular"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// The fonts text is drawn in: DejaVu Sans, Liberation Sans (Arial's
// metric twin) and the Go fonts' faces, one for each Typeface a text's
// style maps to (see TypefaceOf; DejaVu Sans for text without a style),
// which the PNG and PDF exports set text in (SVG names generic families,
// which viewers set in faces of about their widths).
// Their advance widths lay multi-line and fitted text out as it is drawn;
// extents keep ezdxf's estimate (see textCharWidth).

// typefaceFonts are the bundled faces' TrueType files.
var typefaceFonts = [NumTypefaces][]byte{TypefaceRegular: dejavusans.TTF, TypefaceMono: gomono.TTF, TypefaceBold: gobold.TTF, TypefaceItalic: goitalic.TTF, TypefaceTrueType: liberationsansregular.TTF}

// TypefaceTTF is the TrueType file of a bundled face.
func TypefaceTTF(f Typeface) []byte {
	if int(f) < len(typefaceFonts) {
		return typefaceFonts[f]
	}
	return typefaceFonts[TypefaceRegular]
}

// faceMetrics are what text is laid out by in a face: the advance widths,
// as shares of its size, of the printable ASCII characters (other
// characters take fontAverage), and how tall its capitals are, as a share
// of its size.
type faceMetrics struct {
	adv [128]float64
	// rsb are the right side bearings: how far each character's advance
	// runs past its ink.
	rsb [128]float64
	// kern are the kerning pairs among them (the font's kern table, which
	// the painters apply): a pair's adjustment of the advance, as a share
	// of the size.
	kern map[[2]byte]float64
	cap  float64
}

// typefaceMetrics are each bundled face's metrics.
var typefaceMetrics = sync.OnceValue(func() *[len(typefaceFonts)]faceMetrics {
	var out [len(typefaceFonts)]faceMetrics
	for i, ttf := range typefaceFonts {
		out[i] = metricsOf(ttf)
	}
	return &out
})

// metricsOf reads a font's advances of the printable ASCII characters and
// its capitals' height.
func metricsOf(ttf []byte) faceMetrics {
	var m faceMetrics
	f, err := sfnt.Parse(ttf)
	if err != nil {
		panic("drawing: a bundled font does not parse: " + err.Error())
	}
	var b sfnt.Buffer
	em := fixed.I(int(f.UnitsPerEm()))
	for r := ' '; r < 127; r++ {
		if x, err := f.GlyphIndex(&b, r); err == nil && x != 0 {
			if a, err := f.GlyphAdvance(&b, x, em, font.HintingNone); err == nil {
				m.adv[r] = float64(a) / float64(em)
				if ink, _, err := f.GlyphBounds(&b, x, em, font.HintingNone); err == nil && ink.Max.X > ink.Min.X {
					m.rsb[r] = float64(a-ink.Max.X) / float64(em)
				}
			}
		}
	}
	for l := byte(' '); l < 127; l++ {
		x, err := f.GlyphIndex(&b, rune(l))
		if err != nil || x == 0 {
			continue
		}
		for r := byte(' '); r < 127; r++ {
			y, err := f.GlyphIndex(&b, rune(r))
			if err != nil || y == 0 {
				continue
			}
			// (A pair the font does not kern is not found.)
			if k, err := f.Kern(&b, x, y, em, font.HintingNone); err == nil && k != 0 {
				if m.kern == nil {
					m.kern = make(map[[2]byte]float64)
				}
				m.kern[[2]byte{l, r}] = float64(k) / float64(em)
			}
		}
	}
	// The top of H: a font's own figure (OS/2's sCapHeight) is not in
	// every font (DejaVu Sans has none).
	m.cap = capHeight
	if x, err := f.GlyphIndex(&b, 'H'); err == nil && x != 0 {
		if r, _, err := f.GlyphBounds(&b, x, em, font.HintingNone); err == nil && r.Min.Y < 0 {
			m.cap = float64(-r.Min.Y) / float64(em)
		}
	}
	return m
}

// capHeightOf is how tall the face f's capitals are, as a share of its
// size: Liberation Sans's 0.688, DejaVu Sans's 0.729.
func capHeightOf(f Typeface) float64 {
	if int(f) >= len(typefaceFonts) {
		f = TypefaceRegular
	}
	return typefaceMetrics()[f].cap
}

// fontAverage is the advance of a character the table has not: about a
// lower-case letter's.
const fontAverage = 0.55

// drawnWidth is how wide s is set at height (its capitals' height) in
// the regular face (DejaVu Sans).
func drawnWidth(s string, height float64) float64 { return drawnWidthIn(TypefaceRegular, s, height) }

// drawnWidthIn is how wide s is set at height in the face f, at width
// factor 1: its advances, kerned.
func drawnWidthIn(f Typeface, s string, height float64) float64 {
	if int(f) >= len(typefaceFonts) {
		f = TypefaceRegular
	}
	m := &typefaceMetrics()[f]
	adv := &m.adv
	w := 0.0
	prev := rune(-1)
	for _, r := range s {
		if r < utf8.RuneSelf && adv[r] > 0 {
			w += adv[r]
			if prev >= 0 {
				w += m.kern[[2]byte{byte(prev), byte(r)}]
			}
			prev = r
		} else {
			w += fontAverage
			prev = -1
		}
	}
	return w * height / m.cap
}

// inkWidthIn is how far s set at height in the face f, at width factor 1,
// runs from its start to the right edge of its last character's ink: its
// advances less the last visible character's right side bearing (and
// less trailing spaces). A text is aligned and fitted by it: a CAD
// program ends a right-aligned or fitted text's ink at its point, not
// the pen's move to a next character (ezdxf measures a line the same
// way, to the right of its outline).
func inkWidthIn(f Typeface, s string, height float64) float64 {
	if int(f) >= len(typefaceFonts) {
		f = TypefaceRegular
	}
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	w := drawnWidthIn(f, s, height)
	if r, _ := utf8.DecodeLastRuneInString(s); r < utf8.RuneSelf && r >= 0 {
		w -= typefaceMetrics()[f].rsb[r] * height / typefaceMetrics()[f].cap
	}
	return w
}
