package drawing

import (
	"math"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// TestRasterBoundary: a raster's boundary in the world, as ezdxf places
// it — the whole raster when no clip is given or a rectangle of two
// corners, a polygon of pixels (from the top-left corner, y down)
// otherwise — follows the raster's pixels when it is turned or
// sheared.
func TestRasterBoundary(t *testing.T) {
	shear := geom.Affine{A: 2, B: 0.5, C: 1, D: 0, E: 0.5, F: -3}
	turn := func(deg float64) geom.Vec { s, c := math.Sincos(deg * math.Pi / 180); return geom.Pt(c, s) }
	u := turn(30).Mul(0.01)
	v := turn(120).Mul(0.01)
	for _, tc := range []struct {
		name string
		r    Raster
		want []geom.Vec
	}{
		{"whole raster", Raster{P: geom.Pt(10, 5), U: geom.Pt(0.01, 0), V: geom.Pt(0, 0.01), Size: geom.Pt(640, 360)},
			[]geom.Vec{geom.Pt(10, 8.6), geom.Pt(16.4, 8.6), geom.Pt(16.4, 5), geom.Pt(10, 5)}},
		{"two corners", Raster{P: geom.Pt(0, 0), U: geom.Pt(1, 0), V: geom.Pt(0, 1), Size: geom.Pt(4, 2), Clip: []geom.Vec{geom.Pt(0.5, -0.5), geom.Pt(2.5, 1.5)}},
			[]geom.Vec{geom.Pt(1, 2), geom.Pt(3, 2), geom.Pt(3, 0), geom.Pt(1, 0)}},
		{"polygon, closed", Raster{P: geom.Pt(0, 20), U: geom.Pt(0.02, 0), V: geom.Pt(0, 0.02), Size: geom.Pt(640, 360),
			Clip: []geom.Vec{geom.Pt(0, 0), geom.Pt(640, 0), geom.Pt(320, 360), geom.Pt(0, 0)}},
			[]geom.Vec{geom.Pt(0.01, 27.19), geom.Pt(12.81, 27.19), geom.Pt(6.41, 19.99)}},
		{"turned", Raster{P: geom.Pt(1, 2), U: u, V: v, Size: geom.Pt(100, 50)},
			[]geom.Vec{geom.Pt(1, 2).Add(v.Mul(50)), geom.Pt(1, 2).Add(u.Mul(100)).Add(v.Mul(50)), geom.Pt(1, 2).Add(u.Mul(100)), geom.Pt(1, 2)}},
	} {
		got := tc.r.Boundary()
		ok := len(got) == len(tc.want)
		for i := 0; ok && i < len(got); i++ {
			ok = got[i].Dist(tc.want[i]) <= 1e-12
		}
		if !ok {
			t.Errorf("%s: Boundary() = %v, want %v", tc.name, got, tc.want)
		}
		turned := tc.r.Transformed(geom.RotateAbout(geom.Pt(3, 4), 0.7)).Boundary()
		sheared := tc.r.Affined(shear).Boundary()
		for i, q := range tc.r.Boundary() {
			if want := geom.RotateAbout(geom.Pt(3, 4), 0.7).Point(q); turned[i].Dist(want) > 1e-12 {
				t.Errorf("%s turned: corner %d at %v, want %v", tc.name, i, turned[i], want)
			}
			if want := shear.Point(q); sheared[i].Dist(want) > 1e-12 {
				t.Errorf("%s sheared: corner %d at %v, want %v", tc.name, i, sheared[i], want)
			}
		}
	}
}

// TestNewWipeout: a wipeout made of a polygon, as ezdxf's
// set_masking_area makes one, has that polygon as its boundary.
func TestNewWipeout(t *testing.T) {
	p := []geom.Vec{geom.Pt(0, 0), geom.Pt(10, 0), geom.Pt(12, 6), geom.Pt(2, 8)}
	got := NewWipeout(p).Boundary()
	if len(got) != len(p) {
		t.Fatalf("boundary = %v, want %v", got, p)
	}
	for i := range p {
		if got[i].Dist(p[i]) > 1e-12 {
			t.Errorf("boundary = %v, want %v", got, p)
			break
		}
	}
	if b := NewWipeout(p).Bounds(); b.Min != geom.Pt(0, 0) || b.Max.Dist(geom.Pt(12, 8)) > 1e-12 {
		t.Errorf("bounds = %v, want (0, 0)–(12, 8)", b)
	}
}
