package inkmatch_test

import (
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/cadbridge/cadbridge/internal/inkmatch"
)

// seg is a segment of a synthetic drawing, in pixels.
type seg struct{ x1, y1, x2, y2 float64 }

// plate is a synthetic line drawing on 400 × 300 pixels: a frame, two
// diagonals, a circle of segments and a row of short strokes like text.
func plate() []seg {
	s := []seg{
		{20, 20, 380, 20}, {380, 20, 380, 280}, {380, 280, 20, 280}, {20, 280, 20, 20},
		{20, 20, 200, 280}, {200, 20, 380, 280},
	}
	const n = 48
	for i := 0; i < n; i++ {
		a, b := 2*math.Pi*float64(i)/n, 2*math.Pi*float64(i+1)/n
		s = append(s, seg{290 + 50*math.Cos(a), 150 + 50*math.Sin(a), 290 + 50*math.Cos(b), 150 + 50*math.Sin(b)})
	}
	for x := 40.0; x < 160; x += 12 {
		s = append(s, seg{x, 250, x + 6, 262}, seg{x + 6, 262, x + 8, 250})
	}
	return s
}

// other is a different drawing of the same size: a grid of lines where
// plate has none.
func other() []seg {
	var s []seg
	for y := 40.0; y < 280; y += 37 {
		s = append(s, seg{60, y, 340, y + 13})
	}
	return s
}

// render draws segs width pixels wide, anti-aliased over about a pixel,
// in c on white, offset by (dx, dy); keep, when not nil, says which
// segments to draw.
func render(segs []seg, width, dx, dy float64, c color.RGBA, keep func(i int) bool) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 400, 300))
	for y := 0; y < 300; y++ {
		for x := 0; x < 400; x++ {
			px, py := float64(x)+0.5-dx, float64(y)+0.5-dy
			d := math.Inf(1)
			for i, s := range segs {
				if keep == nil || keep(i) {
					d = math.Min(d, distance(px, py, s))
				}
			}
			// Coverage: 1 inside the stroke, falling to 0 over a pixel.
			cov := math.Max(0, math.Min(1, width/2+0.5-d))
			mix := func(v uint8) uint8 { return uint8(math.Round(255 - cov*(255-float64(v)))) }
			img.SetRGBA(x, y, color.RGBA{mix(c.R), mix(c.G), mix(c.B), 255})
		}
	}
	return img
}

func distance(px, py float64, s seg) float64 {
	vx, vy := s.x2-s.x1, s.y2-s.y1
	t := ((px-s.x1)*vx + (py-s.y1)*vy) / (vx*vx + vy*vy)
	t = math.Max(0, math.Min(1, t))
	return math.Hypot(px-(s.x1+t*vx), py-(s.y1+t*vy))
}

var black = color.RGBA{0, 0, 0, 255}

func TestCompare(t *testing.T) {
	const radius, threshold = 3, 0.95
	ref := render(plate(), 1, 0, 0, black, nil)
	leftHalf := func(i int) bool { return i != 1 && i != 5 && (i < 6 || i >= 54) }
	type span struct{ lo, hi float64 }
	for _, tc := range []struct {
		name              string
		img               *image.RGBA
		agree             bool
		precision, recall span
	}{
		{"identical", ref, true, span{1, 1}, span{1, 1}},
		{"shifted by a pixel", render(plate(), 1, 1, 1, black, nil), true, span{0.99, 1}, span{0.99, 1}},
		{"shifted by half a pixel", render(plate(), 1, 0.5, -0.5, black, nil), true, span{0.99, 1}, span{0.99, 1}},
		{"lines four pixels thick", render(plate(), 4, 0, 0, black, nil), true, span{0.95, 1}, span{0.99, 1}},
		{"in yellow", render(plate(), 1, 0, 0, color.RGBA{255, 255, 0, 255}, nil), true, span{0.99, 1}, span{0.99, 1}},
		// What it draws is right, but it leaves out a third.
		{"missing the right half", render(plate(), 1, 0, 0, black, leftHalf), false, span{0.99, 1}, span{0.5, 0.75}},
		// What ref draws is there, and a third more.
		{"with a drawing more", render(append(plate(), other()...), 1, 0, 0, black, nil), false, span{0.5, 0.75}, span{0.99, 1}},
		{"a different drawing", render(other(), 1, 0, 0, black, nil), false, span{0, 0.2}, span{0, 0.2}},
		// Only the horizontal lines still meet.
		{"shifted by ten pixels", render(plate(), 1, 10, 0, black, nil), false, span{0, 0.6}, span{0, 0.6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := inkmatch.Compare(tc.img, ref, radius)
			if got := s.Agree(threshold); got != tc.agree {
				t.Errorf("Compare(%s, plate, %d).Agree(%g) = %v (%v), want %v", tc.name, radius, threshold, got, s, tc.agree)
			}
			if s.Precision() < tc.precision.lo || s.Precision() > tc.precision.hi {
				t.Errorf("Compare(%s, plate, %d): precision = %.3f, want in [%g, %g]", tc.name, radius, s.Precision(), tc.precision.lo, tc.precision.hi)
			}
			if s.Recall() < tc.recall.lo || s.Recall() > tc.recall.hi {
				t.Errorf("Compare(%s, plate, %d): recall = %.3f, want in [%g, %g]", tc.name, radius, s.Recall(), tc.recall.lo, tc.recall.hi)
			}
		})
	}
}

func TestCompareMissingHalfLowersRecallOnly(t *testing.T) {
	ref := render(plate(), 1, 0, 0, black, nil)
	left := render(plate(), 1, 0, 0, black, func(i int) bool { return i != 1 && i != 5 && (i < 6 || i >= 54) })
	s := inkmatch.Compare(left, ref, 3)
	if s.Precision() < 0.99 || s.Recall() > 0.75 {
		t.Errorf("Compare(left half, plate) = %v, want precision ≥ 0.99 (what it draws is right) and recall ≤ 0.75 (it leaves out a third or more)", s)
	}
	// And the other way round: drawing too much lowers precision only.
	s = inkmatch.Compare(ref, left, 3)
	if s.Recall() < 0.99 || s.Precision() > 0.75 {
		t.Errorf("Compare(plate, left half) = %v, want recall ≥ 0.99 and precision ≤ 0.75", s)
	}
}

// fill paints r black on img.
func fill(img *image.RGBA, r image.Rectangle) *image.RGBA {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, black)
		}
	}
	return img
}

// A large fill must not drown a missing circle, and the fill's edge must
// not stand in for the fill.
func TestCompareFills(t *testing.T) {
	block := image.Rect(40, 60, 180, 240)
	noCircle := func(i int) bool { return i < 6 || i >= 54 }
	edge := []seg{{40, 60, 180, 60}, {180, 60, 180, 240}, {180, 240, 40, 240}, {40, 240, 40, 60}}
	ref := fill(render(plate(), 1, 0, 0, black, nil), block)
	for _, tc := range []struct {
		name    string
		img     *image.RGBA
		weakest func(inkmatch.Score) float64
		lo, hi  float64
	}{
		// The circle is a sliver of the ink, but a tenth of its outline.
		{"without the circle", fill(render(plate(), 1, 0, 0, black, noCircle), block), func(s inkmatch.Score) float64 { return s.Ink.Recall }, 0.97, 1},
		{"without the circle", fill(render(plate(), 1, 0, 0, black, noCircle), block), func(s inkmatch.Score) float64 { return s.Outline.Recall }, 0, 0.92},
		// The fill's outline alone matches the outline, not the ink.
		{"with the fill's edge only", render(append(plate(), edge...), 1, 0, 0, black, nil), func(s inkmatch.Score) float64 { return s.Outline.Recall }, 0.97, 1},
		{"with the fill's edge only", render(append(plate(), edge...), 1, 0, 0, black, nil), func(s inkmatch.Score) float64 { return s.Ink.Recall }, 0, 0.3},
	} {
		s := inkmatch.Compare(tc.img, ref, 3)
		if got := tc.weakest(s); got < tc.lo || got > tc.hi {
			t.Errorf("Compare(%s, plate with a fill) = %v: want the share in [%g, %g], got %.3f", tc.name, s, tc.lo, tc.hi, got)
		}
		if s.Agree(0.95) {
			t.Errorf("Compare(%s, plate with a fill) = %v agrees, want not", tc.name, s)
		}
	}
}

func TestCompareBlank(t *testing.T) {
	blank := render(nil, 1, 0, 0, black, nil)
	ref := render(plate(), 1, 0, 0, black, nil)
	if s := inkmatch.Compare(blank, blank, 3); !s.Agree(1) {
		t.Errorf("Compare(blank, blank) = %v, want agreement", s)
	}
	if s := inkmatch.Compare(blank, ref, 3); s.Agree(0.01) {
		t.Errorf("Compare(blank, plate) = %v, want no agreement", s)
	}
	if s := inkmatch.Compare(ref, blank, 3); s.Agree(0.01) {
		t.Errorf("Compare(plate, blank) = %v, want no agreement", s)
	}
}

func TestInk(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 6, 1))
	img.Set(0, 0, color.White)
	img.Set(1, 0, color.Black)
	img.Set(2, 0, color.RGBA{255, 255, 0, 255})       // yellow: ink
	img.Set(3, 0, color.RGBA{240, 240, 240, 255})     // anti-aliasing's faint fringe: not ink
	img.Set(4, 0, color.NRGBA{0, 0, 0, 0})            // transparent: white
	img.Set(5, 0, color.NRGBA{0, 0, 0, 0xff * 3 / 4}) // three quarters black
	m := inkmatch.Ink(img)
	want := []bool{false, true, true, false, false, true}
	for x, w := range want {
		if m.At(x, 0) != w {
			t.Errorf("Ink(%v).At(%d, 0) = %v, want %v", img.At(x, 0), x, m.At(x, 0), w)
		}
	}
}

func TestDilate(t *testing.T) {
	m := inkmatch.NewMask(9, 7)
	m.Ink[3*9+4] = true // (4, 3)
	d := m.Dilate(2)
	for y := 0; y < 7; y++ {
		for x := 0; x < 9; x++ {
			want := x >= 2 && x <= 6 && y >= 1 && y <= 5
			if d.At(x, y) != want {
				t.Errorf("Dilate(2) of (4, 3): At(%d, %d) = %v, want %v", x, y, d.At(x, y), want)
			}
		}
	}
	if d.Count() != 25 || m.Count() != 1 {
		t.Errorf("Dilate(2) of one pixel: %d pixels (the mask %d), want 25 (and 1)", d.Count(), m.Count())
	}
	if c := m.Dilate(0); c.Count() != 1 {
		t.Errorf("Dilate(0): %d pixels, want 1", c.Count())
	}
	// At the edges the square is cut.
	e := inkmatch.NewMask(5, 5)
	e.Ink[0] = true
	if n := e.Dilate(1).Count(); n != 4 {
		t.Errorf("Dilate(1) of a corner pixel: %d pixels, want 4", n)
	}
}

func TestOverlay(t *testing.T) {
	a, b := inkmatch.NewMask(20, 1), inkmatch.NewMask(20, 1)
	a.Ink[2], b.Ink[3] = true, true // near each other
	a.Ink[10] = true                // a only
	b.Ink[17] = true                // b only
	img := inkmatch.Overlay(a, b, 2)
	for _, tc := range []struct {
		x    int
		want color.RGBA
	}{{2, inkmatch.Both}, {3, inkmatch.Both}, {10, inkmatch.OnlyA}, {17, inkmatch.OnlyB}, {0, color.RGBA{255, 255, 255, 255}}} {
		if got := img.RGBAAt(tc.x, 0); got != tc.want {
			t.Errorf("Overlay: pixel %d = %v, want %v", tc.x, got, tc.want)
		}
	}
}

func TestSideBySide(t *testing.T) {
	a := image.NewRGBA(image.Rect(0, 0, 10, 5))
	b := image.NewRGBA(image.Rect(0, 0, 7, 8))
	out := inkmatch.SideBySide(3, a, b)
	if got := out.Bounds().Size(); got != image.Pt(20, 8) {
		t.Errorf("SideBySide(3, 10×5, 7×8) is %v, want 20×8", got)
	}
}

func TestOutline(t *testing.T) {
	m := inkmatch.NewMask(9, 9)
	for y := 2; y < 7; y++ {
		for x := 2; x < 7; x++ {
			m.Ink[y*9+x] = true // a 5 × 5 block
		}
	}
	m.Ink[0] = true // a dot in the corner is all edge
	o := m.Outline()
	if n := o.Count(); n != 16+1 {
		t.Errorf("Outline of a 5 × 5 block and a dot: %d pixels, want 17", n)
	}
	if o.At(4, 4) || !o.At(2, 4) || !o.At(0, 0) {
		t.Errorf("Outline: centre %v, edge %v, dot %v; want false, true, true", o.At(4, 4), o.At(2, 4), o.At(0, 0))
	}
}

// BenchmarkCompare compares two pictures the size of the engine's PNG of
// a drawing (1600 pixels on the longer side).
func BenchmarkCompare(b *testing.B) {
	big := func(dx float64) *image.RGBA {
		img := image.NewRGBA(image.Rect(0, 0, 1600, 1100))
		small := render(plate(), 1, dx, 0, black, nil)
		for y := 0; y < 1100; y++ {
			for x := 0; x < 1600; x++ {
				img.SetRGBA(x, y, small.RGBAAt(x%400, y%300))
			}
		}
		return img
	}
	a, ref := big(0), big(1)
	b.ResetTimer()
	for b.Loop() {
		inkmatch.Compare(a, ref, 3)
	}
}
