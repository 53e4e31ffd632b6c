package drawing

import (
	"sync"
	"unicode/utf8"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// The fonts text is drawn in: the Go fonts' faces, one for each
// Typeface a text's style maps to (see TypefaceOf; Go Regular for text
// without a style), which the PNG and PDF exports set text in (SVG names
// generic families, which viewers set in faces of about their widths).
// Their advance widths lay multi-line and fitted text out as it is drawn;
// extents keep ezdxf's estimate (see textCharWidth).

// typefaceFonts are the bundled faces' TrueType files.
var typefaceFonts = [...][]byte{TypefaceRegular: goregular.TTF, TypefaceMono: gomono.TTF, TypefaceBold: gobold.TTF, TypefaceItalic: goitalic.TTF}

// TypefaceTTF is the TrueType file of a bundled face.
func TypefaceTTF(f Typeface) []byte {
	if int(f) < len(typefaceFonts) {
		return typefaceFonts[f]
	}
	return goregular.TTF
}

// typefaceAdvances are each face's advance widths, as shares of its size, of
// the printable ASCII characters; other characters take fontAverage.
var typefaceAdvances = sync.OnceValue(func() *[len(typefaceFonts)][128]float64 {
	var out [len(typefaceFonts)][128]float64
	for i, ttf := range typefaceFonts {
		out[i] = advancesOf(ttf)
	}
	return &out
})

// advancesOf reads a font's advances of the printable ASCII characters.
func advancesOf(ttf []byte) [128]float64 {
	var adv [128]float64
	f, err := sfnt.Parse(ttf)
	if err != nil {
		panic("drawing: a Go font does not parse: " + err.Error())
	}
	var b sfnt.Buffer
	em := fixed.I(int(f.UnitsPerEm()))
	for r := ' '; r < 127; r++ {
		if x, err := f.GlyphIndex(&b, r); err == nil && x != 0 {
			if a, err := f.GlyphAdvance(&b, x, em, font.HintingNone); err == nil {
				adv[r] = float64(a) / float64(em)
			}
		}
	}
	return adv
}

// fontAverage is the advance of a character the table has not: about a
// lower-case letter's.
const fontAverage = 0.55

// drawnWidth is how wide s is set at height (its capitals' height) in
// the Go font's regular face.
func drawnWidth(s string, height float64) float64 { return drawnWidthIn(TypefaceRegular, s, height) }

// drawnWidthIn is how wide s is set at height in the face f, at width
// factor 1.
func drawnWidthIn(f Typeface, s string, height float64) float64 {
	if int(f) >= len(typefaceFonts) {
		f = TypefaceRegular
	}
	adv := &typefaceAdvances()[f]
	w := 0.0
	for _, r := range s {
		if r < utf8.RuneSelf && adv[r] > 0 {
			w += adv[r]
		} else {
			w += fontAverage
		}
	}
	return w * height / capHeight
}
