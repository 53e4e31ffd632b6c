// Package inkmatch says whether two line drawings of the same window look
// alike: where they put ink, not in what colour, how thick or how
// smoothly. It forgives what differs between two faithful renderers of one
// drawing (line widths, anti-aliasing, an offset of a pixel or two) and
// notices what a reader would: a line, a hatch or a text that one picture
// has and the other has not, or has elsewhere.
//
// Both pictures are thresholded to ink masks ([Ink]); each mask is
// dilated by a radius (a square of side 2r+1, [Mask.Dilate]); the share of
// one picture's ink that lies inside the other's dilated ink is its
// precision, the converse its recall ([Compare]). The shares are taken
// twice: of the ink as it is, where a filled area counts by its area, and
// of its outline ([Mask.Outline]), where it counts by its edge, so that a
// missing line is not drowned out by a large fill elsewhere nor a
// missing fill by the lines around it. Two pictures agree when all four
// shares reach a threshold ([Score.Agree]).
package inkmatch

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
)

// InkLevel is how far from white, in 16-bit channel units, the darkest
// channel of a pixel (composited over white) must be for the pixel to be
// ink: an eighth of the way to black, so that a line of any colour a
// drawing uses on white is ink, light grey (ACI 9, 0xc0) included, and
// the faint fringe that anti-aliasing adds around it is not.
const InkLevel = 0xffff / 8

// Mask is a picture's ink: Ink[y*W+x] is the pixel at (x, y) from the
// picture's top-left corner.
type Mask struct {
	W, H int
	Ink  []bool
}

// NewMask is an empty mask of w × h pixels.
func NewMask(w, h int) *Mask {
	return &Mask{W: w, H: h, Ink: make([]bool, w*h)}
}

// At reports whether (x, y) is ink; outside the mask nothing is.
func (m *Mask) At(x, y int) bool {
	return x >= 0 && y >= 0 && x < m.W && y < m.H && m.Ink[y*m.W+x]
}

// Count is the number of ink pixels.
func (m *Mask) Count() int {
	n := 0
	for _, v := range m.Ink {
		if v {
			n++
		}
	}
	return n
}

// Ink is img's ink: the pixels whose darkest channel, composited over a
// white background, is at least InkLevel from white. Colour does not
// matter: yellow on white is ink as much as black is.
func Ink(img image.Image) *Mask {
	b := img.Bounds()
	m := NewMask(b.Dx(), b.Dy())
	// 8-bit channels from the decoders' types, without an interface call
	// a pixel.
	const level8 = (InkLevel + 0x80) / 0x101
	switch img := img.(type) {
	case *image.RGBA: // premultiplied: over white, each channel gains what alpha leaves
		for y := 0; y < m.H; y++ {
			row := img.Pix[img.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < m.W; x++ {
				p := row[4*x : 4*x+4 : 4*x+4]
				darkest := int(min(p[0], p[1], p[2])) + 0xff - int(p[3])
				m.Ink[y*m.W+x] = 0xff-darkest >= level8
			}
		}
	case *image.NRGBA: // not premultiplied: over white, c·a + (1 − a)
		for y := 0; y < m.H; y++ {
			row := img.Pix[img.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < m.W; x++ {
				p := row[4*x : 4*x+4 : 4*x+4]
				darkest := (int(min(p[0], p[1], p[2]))*int(p[3]) + 0xff*(0xff-int(p[3])) + 0x7f) / 0xff
				m.Ink[y*m.W+x] = 0xff-darkest >= level8
			}
		}
	default:
		for y := 0; y < m.H; y++ {
			for x := 0; x < m.W; x++ {
				r, g, bl, a := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
				darkest := min(r, g, bl) + 0xffff - a
				m.Ink[y*m.W+x] = 0xffff-darkest >= InkLevel
			}
		}
	}
	return m
}

// Outline is m's ink that touches no ink or the mask's edge on one of
// its four sides: a filled area's edge, and lines as they are (a line a
// few pixels wide is all edge).
func (m *Mask) Outline() *Mask {
	out := NewMask(m.W, m.H)
	for y := 0; y < m.H; y++ {
		for x := 0; x < m.W; x++ {
			i := y*m.W + x
			if !m.Ink[i] {
				continue
			}
			inside := x > 0 && x < m.W-1 && y > 0 && y < m.H-1 &&
				m.Ink[i-1] && m.Ink[i+1] && m.Ink[i-m.W] && m.Ink[i+m.W]
			out.Ink[i] = !inside
		}
	}
	return out
}

// Dilate is m grown by r pixels in every direction: a pixel is ink when
// some ink pixel of m lies within r of it along x and along y (a square
// of side 2r+1 around it). r ≤ 0 is a copy.
func (m *Mask) Dilate(r int) *Mask {
	if r <= 0 {
		return &Mask{W: m.W, H: m.H, Ink: append([]bool(nil), m.Ink...)}
	}
	// The square is separable: along each row, then down the columns,
	// each a running count of ink in a window of 2r+1.
	rows := make([]bool, len(m.Ink))
	for y := 0; y < m.H; y++ {
		run(m.Ink[y*m.W:(y+1)*m.W], rows[y*m.W:(y+1)*m.W], r)
	}
	out := NewMask(m.W, m.H)
	count := make([]int32, m.W) // ink in rows y−r … y+r, by column
	add := func(y int, d int32) {
		for x, v := range rows[y*m.W : (y+1)*m.W] {
			if v {
				count[x] += d
			}
		}
	}
	for y := 0; y < min(r, m.H); y++ {
		add(y, 1)
	}
	for y := 0; y < m.H; y++ {
		if y+r < m.H {
			add(y+r, 1)
		}
		if y-r-1 >= 0 {
			add(y-r-1, -1)
		}
		row := out.Ink[y*m.W : (y+1)*m.W]
		for x, c := range count {
			row[x] = c > 0
		}
	}
	return out
}

// run sets dst[i] when src has ink within r of i.
func run(src, dst []bool, r int) {
	n := len(src)
	count := 0
	for i := 0; i < min(r, n); i++ {
		if src[i] {
			count++
		}
	}
	for i := 0; i < n; i++ {
		if j := i + r; j < n && src[j] {
			count++
		}
		if j := i - r - 1; j >= 0 && src[j] {
			count--
		}
		dst[i] = count > 0
	}
}

// Covered is the share of m's ink that lies on other's ink (the masks'
// common top-left-anchored area; ink of m outside other counts as not
// covered), and m's ink count. A mask without ink is covered entirely.
func (m *Mask) Covered(other *Mask) (share float64, ink int) {
	hit := 0
	for y := 0; y < m.H; y++ {
		for x := 0; x < m.W; x++ {
			if m.Ink[y*m.W+x] {
				ink++
				if x < other.W && y < other.H && other.Ink[y*other.W+x] {
					hit++
				}
			}
		}
	}
	if ink == 0 {
		return 1, 0
	}
	return float64(hit) / float64(ink), ink
}

// Shares are how much of two pictures' ink (or outline) matches the
// other's.
type Shares struct {
	// Precision is the share of a's ink within the radius of b's ink: low
	// when a draws what b does not.
	Precision float64
	// Recall is the share of b's ink within the radius of a's ink: low
	// when a leaves out what b draws.
	Recall float64
}

// Score is how alike two pictures a (the one under test) and b (the
// reference) are.
type Score struct {
	// Ink are the shares of the ink as it is: a filled area counts by
	// its area.
	Ink Shares
	// Outline are the shares of the ink's outline: a filled area counts
	// by its edge.
	Outline Shares
	// InkA and InkB are the pictures' ink pixel counts.
	InkA, InkB int
}

// Precision is the lower of the ink's and the outline's precision.
func (s Score) Precision() float64 { return min(s.Ink.Precision, s.Outline.Precision) }

// Recall is the lower of the ink's and the outline's recall.
func (s Score) Recall() float64 { return min(s.Ink.Recall, s.Outline.Recall) }

// Agree reports whether precision and recall, of the ink and of its
// outline, all reach threshold: each picture draws, near enough, what the
// other draws.
func (s Score) Agree(threshold float64) bool {
	return s.Precision() >= threshold && s.Recall() >= threshold
}

func (s Score) String() string {
	return fmt.Sprintf("precision %.3f recall %.3f (ink %.3f %.3f, outline %.3f %.3f; %d and %d px of ink)",
		s.Precision(), s.Recall(), s.Ink.Precision, s.Ink.Recall, s.Outline.Precision, s.Outline.Recall, s.InkA, s.InkB)
}

// Compare scores picture a against reference b with a tolerance of
// radius pixels. Pictures of different sizes are compared on their
// common top-left-anchored area, ink outside it counting as unmatched.
func Compare(a, b image.Image, radius int) Score {
	return CompareMasks(Ink(a), Ink(b), radius)
}

// CompareMasks is Compare on ink masks.
func CompareMasks(a, b *Mask, radius int) Score {
	s := Score{Ink: shares(a, b, radius), Outline: shares(a.Outline(), b.Outline(), radius)}
	s.InkA, s.InkB = a.Count(), b.Count()
	return s
}

// shares are the shares of a's ink near b's and of b's near a's.
func shares(a, b *Mask, radius int) Shares {
	p, na := a.Covered(b.Dilate(radius))
	r, nb := b.Covered(a.Dilate(radius))
	if na == 0 && nb > 0 || nb == 0 && na > 0 {
		// One picture is blank and the other is not: nothing matches.
		p, r = 0, 0
	}
	return Shares{Precision: p, Recall: r}
}

// Colours of [Overlay].
var (
	Both  = color.RGBA{0x40, 0x40, 0x40, 0xff} // ink near ink of the other picture
	OnlyA = color.RGBA{0xe0, 0x10, 0x10, 0xff} // a's ink far from b's: a draws what b does not
	OnlyB = color.RGBA{0x10, 0x40, 0xe0, 0xff} // b's ink far from a's: a leaves out what b draws
)

// Overlay draws both masks in one picture of a's size: ink of either
// that the other matches within radius in dark grey, a's unmatched ink
// in red, b's unmatched ink in blue.
func Overlay(a, b *Mask, radius int) *image.RGBA {
	da, db := a.Dilate(radius), b.Dilate(radius)
	img := image.NewRGBA(image.Rect(0, 0, a.W, a.H))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	for y := 0; y < a.H; y++ {
		for x := 0; x < a.W; x++ {
			switch inA, inB := a.At(x, y), b.At(x, y); {
			case inA && !db.At(x, y):
				img.SetRGBA(x, y, OnlyA)
			case inB && !da.At(x, y):
				img.SetRGBA(x, y, OnlyB)
			case inA || inB:
				img.SetRGBA(x, y, Both)
			}
		}
	}
	return img
}

// SideBySide puts pictures left to right on white, top-aligned, with a
// grey gutter of gap pixels between them.
func SideBySide(gap int, pics ...image.Image) *image.RGBA {
	w, h := 0, 0
	for i, p := range pics {
		if i > 0 {
			w += gap
		}
		w += p.Bounds().Dx()
		h = max(h, p.Bounds().Dy())
	}
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(out, out.Bounds(), &image.Uniform{color.RGBA{0xb0, 0xb0, 0xb0, 0xff}}, image.Point{}, draw.Src)
	x := 0
	for _, p := range pics {
		r := image.Rect(x, 0, x+p.Bounds().Dx(), p.Bounds().Dy())
		draw.Draw(out, r, image.White, image.Point{}, draw.Src)
		draw.Draw(out, r, p, p.Bounds().Min, draw.Over)
		x += p.Bounds().Dx() + gap
	}
	return out
}
