package geom

import (
	"math"
	"testing"
)

// TestPolarAngles: the items of a polar array are where AutoCAD puts
// them, and a bolt hole turned by them lands at the angle asked: checked
// against cos and sin of the angle, and exactly at multiples of 90°.
func TestPolarAngles(t *testing.T) {
	for _, tc := range []struct {
		count int
		fill  float64
		want  []float64
	}{
		{6, 360, []float64{0, 60, 120, 180, 240, 300}},
		{4, 360, []float64{0, 90, 180, 270}},
		{4, -360, []float64{0, -90, -180, -270}},
		{3, 180, []float64{0, 90, 180}},
		{5, 90, []float64{0, 22.5, 45, 67.5, 90}},
		{2, 45, []float64{0, 45}},
	} {
		got, err := PolarAngles(tc.count, tc.fill)
		if err != nil {
			t.Fatalf("PolarAngles(%d, %g): %v", tc.count, tc.fill, err)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("PolarAngles(%d, %g) = %v, want %v", tc.count, tc.fill, got, tc.want)
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-12 {
				t.Errorf("PolarAngles(%d, %g)[%d] = %v, want %v", tc.count, tc.fill, i, got[i], tc.want[i])
			}
		}
		// A hole at radius 50 from the centre (10, 20), turned by each angle.
		c, p := Pt(10, 20), Pt(60, 20)
		for i, a := range got {
			q := RotateAbout(c, a).Point(p)
			want := Pt(10+50*math.Cos(a*math.Pi/180), 20+50*math.Sin(a*math.Pi/180))
			if q.Dist(want) > 1e-12*50 {
				t.Errorf("item %d at %g°: %v, want %v", i, a, q, want)
			}
			if math.Mod(a, 90) == 0 {
				exact := map[float64]Vec{0: Pt(60, 20), 90: Pt(10, 70), 180: Pt(-40, 20), 270: Pt(10, -30), -90: Pt(10, -30), -180: Pt(-40, 20), -270: Pt(10, 70)}[a]
				if q != exact {
					t.Errorf("item %d at %g° = %v, want exactly %v", i, a, q, exact)
				}
			}
		}
	}
	for _, bad := range []struct {
		count int
		fill  float64
	}{{1, 360}, {3, 0}, {3, 400}, {3, math.NaN()}} {
		if _, err := PolarAngles(bad.count, bad.fill); err == nil {
			t.Errorf("PolarAngles(%d, %g) = nil error, want one", bad.count, bad.fill)
		}
	}
}

// TestGridOffsets: a grid turned by 30° has its columns along 30° and
// its rows along 120°, each offset the sum of its column and row moves.
func TestGridOffsets(t *testing.T) {
	got := GridOffsets(2, 3, 5, 10, 30)
	if len(got) != 6 {
		t.Fatalf("len = %d, want 6", len(got))
	}
	c30, s30 := math.Sqrt(3)/2, 0.5
	for r := 0; r < 2; r++ {
		for k := 0; k < 3; k++ {
			want := Pt(float64(k)*10*c30-float64(r)*5*s30, float64(k)*10*s30+float64(r)*5*c30)
			if g := got[r*3+k]; g.Dist(want) > 1e-12*20 {
				t.Errorf("offset (%d, %d) = %v, want %v", r, k, g, want)
			}
		}
	}
	if g := GridOffsets(2, 2, 7, 3, 0); g[3] != Pt(3, 7) {
		t.Errorf("offset (1, 1) unturned = %v, want exactly (3, 7)", g[3])
	}
}
