package drawing

import (
	"math"
	"testing"
)

// TestGridFields: the grid reference has ISO 5457's number of fields on
// every A size, either way up, equal but for the two cut by the frame,
// with a cut at the centring mark.
func TestGridFields(t *testing.T) {
	for _, tc := range []struct {
		paper  string
		w, h   float64
		nx, ny int
	}{
		{"A0", 1189, 841, 24, 16},
		{"A1", 841, 594, 16, 12},
		{"A2", 594, 420, 12, 8},
		{"A3", 420, 297, 8, 6},
		{"A4", 297, 210, 6, 4},
		{"A4", 210, 297, 4, 6},
	} {
		xs := gridCuts(filingMargin, tc.w-frameMargin, tc.w)
		ys := gridCuts(frameMargin, tc.h-frameMargin, tc.h)
		if len(xs)-1 != tc.nx || len(ys)-1 != tc.ny {
			t.Errorf("%s %v × %v: %d × %d fields, want %d × %d", tc.paper, tc.w, tc.h, len(xs)-1, len(ys)-1, tc.nx, tc.ny)
		}
		for c, cuts := range [][]float64{xs, ys} {
			side, n := tc.w, tc.nx
			if c == 1 {
				side, n = tc.h, tc.ny
			}
			for i := 2; i < len(cuts)-1; i++ {
				if d := cuts[i] - cuts[i-1]; math.Abs(d-side/float64(n)) > 1e-9 {
					t.Errorf("%s: inner field %d is %v mm, want %v", tc.paper, i, d, side/float64(n))
				}
			}
			if mid := cuts[len(cuts)/2]; math.Abs(mid-side/2) > 1e-9 {
				t.Errorf("%s: the middle cut is at %v, want the centring mark's %v", tc.paper, mid, side/2)
			}
		}
	}
}
