package ezdxftest_test

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/cadbridge/cadbridge/internal/dxftest"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
)

// TestPainter draws an L of two lines, an XLINE and a broken entity with
// ezdxf's drawing add-on over a window of 120 × 70 units on 240 × 140
// pixels (two a unit), and finds the lines where the window puts them:
// the picture lines up with any other of the same window and size.
func TestPainter(t *testing.T) {
	py := ezdxftest.Matplotlib(t)
	if py == "" {
		t.Skip("no ezdxf drawing add-on")
	}
	xline := "0\nXLINE\n8\n0\n10\n0\n20\n50\n30\n0\n11\n1\n21\n0\n31\n0\n" // y = 50, infinite both ways
	dxf := ezdxftest.File(t, "l.dxf", dxftest.File("", dxftest.Line(0, 0, 100, 0)+dxftest.Line(0, 0, 0, 40)+xline))
	png1 := filepath.Join(t.TempDir(), "l.png")
	var got []ezdxftest.Drawn
	p := ezdxftest.StartPainter(t, py, func(d ezdxftest.Drawn) { got = append(got, d) })
	if err := p.Draw(ezdxftest.Picture{Name: "l", DXF: dxf, Window: [4]float64{-10, -10, 110, 60}, Width: 240, Height: 140, PNG: png1}); err != nil {
		t.Fatal(err)
	}
	if err := p.Draw(ezdxftest.Picture{Name: "missing", DXF: dxf + ".not", Window: [4]float64{0, 0, 1, 1}, Width: 10, Height: 10, PNG: png1 + ".not"}); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "l" || got[0].Error != "" || got[1].Name != "missing" || got[1].Error == "" {
		t.Fatalf("Drawn = %+v, want l drawn and missing with an error", got)
	}

	f, err := os.Open(png1)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if got := img.Bounds().Size(); got != image.Pt(240, 140) {
		t.Fatalf("the picture is %v, want 240 × 140", got)
	}
	// World (x, y) is pixel ((x+10)·2, (60−y)·2); a line of a pixel or so
	// covers the pixels beside that point.
	ink := func(x, y float64) bool {
		px, py := int((x+10)*2), int((60-y)*2)
		for dy := -1; dy <= 0; dy++ {
			for dx := -1; dx <= 0; dx++ {
				r, g, b, _ := img.At(px+dx, py+dy).RGBA()
				if max(r, g, b) < 0x8000 {
					return true
				}
			}
		}
		return false
	}
	for _, tc := range []struct {
		x, y float64
		want bool
		what string
	}{
		{50, 0, true, "the horizontal line"},
		{0, 25, true, "the vertical line"},
		{50, 25, false, "inside the L"},
		{50, 10, false, "above the horizontal line"},
		{-9, 50, true, "the XLINE at the window's left edge"},
		{109, 50, true, "the XLINE at the window's right edge"},
	} {
		if got := ink(tc.x, tc.y); got != tc.want {
			t.Errorf("ink at world (%g, %g) (%s) = %v, want %v", tc.x, tc.y, tc.what, got, tc.want)
		}
	}
}
