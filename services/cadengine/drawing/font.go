package drawing

import (
	"sync"
	"unicode/utf8"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// The font text is drawn in: the Go font's regular face, which the PNG
// and PDF exports set text in (SVG names sans-serif, which viewers set
// in a face of about its widths). Its advance widths lay multi-line text
// out as it is drawn; extents keep ezdxf's estimate (see textCharWidth).

// fontAdvances are the Go font's advance widths, as shares of its size,
// of the printable ASCII characters; other characters take fontAverage.
var fontAdvances = sync.OnceValue(func() [128]float64 {
	var adv [128]float64
	f, err := sfnt.Parse(goregular.TTF)
	if err != nil {
		panic("drawing: the Go font does not parse: " + err.Error())
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
})

// fontAverage is the advance of a character the table has not: about a
// lower-case letter's.
const fontAverage = 0.55

// drawnWidth is how wide s is set at height (its capitals' height) in
// the Go font.
func drawnWidth(s string, height float64) float64 {
	adv := fontAdvances()
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
