package geom

import (
	"math"
	"sort"
	"testing"
)

func TestParallelKeyFor(t *testing.T) {
	// Rows of DIN 6885-1 as makers print them (Ganter's extract per
	// diameter, Siemens MD 31.1's "d + t2").
	for _, c := range []struct {
		d            float64
		b, h, t1, t2 float64
	}{
		{6, 2, 2, 1.2, 1.0}, {7, 2, 2, 1.2, 1.0}, {8, 2, 2, 1.2, 1.0}, {9, 3, 3, 1.8, 1.4},
		{12, 4, 4, 2.5, 1.8}, {13, 5, 5, 3, 2.3}, {20, 6, 6, 3.5, 2.8}, {25, 8, 7, 4, 3.3},
		{34, 10, 8, 5, 3.3}, {40, 12, 8, 5, 3.3}, {45, 14, 9, 5.5, 3.8}, {60, 18, 11, 7, 4.4},
		{100, 28, 16, 10, 6.4}, {130, 32, 18, 11, 7.4}, {131, 36, 20, 12, 8.4}, {500, 100, 50, 31, 19.5},
	} {
		k, ok := ParallelKeyFor(c.d)
		if !ok || k.B != c.b || k.H != c.h || k.T1 != c.t1 || k.T2 != c.t2 {
			t.Errorf("ParallelKeyFor(%v) = %+v, %v; want %v × %v, t1 %v, t2 %v", c.d, k, ok, c.b, c.h, c.t1, c.t2)
		}
	}
	for _, d := range []float64{0, 5.9, 500.1, math.NaN()} {
		if k, ok := ParallelKeyFor(d); ok {
			t.Errorf("ParallelKeyFor(%v) = %+v, want none", d, k)
		}
	}
}

func TestKeyedCircle(t *testing.T) {
	for _, c := range []struct {
		d, b, top, angle float64
	}{
		{34, 10, 17 + 3.3, 90}, // a hub
		{34, 10, 17 - 5, 30},   // a shaft
		{7, 2, 3.5 + 1, -45},
	} {
		center := Pt(5, -2)
		pl, err := KeyedCircle(center, c.d, c.b, c.top, Rad(c.angle))
		if err != nil {
			t.Fatal(err)
		}
		u := Vec{math.Cos(Rad(c.angle)), math.Sin(Rad(c.angle))}
		v := u.Perp()
		var sides []float64
		flat := 0
		arcs := 0.0
		for i, x := range pl.V {
			y := pl.V[(i+1)%len(pl.V)]
			if x.Bulge != 0 {
				cc, r := bulgeCircle(x.P, y.P, x.Bulge)
				if cc.Dist(center) > 1e-9 || math.Abs(r-c.d/2) > 1e-9 {
					t.Errorf("%+v: arc about %v radius %v, want the circle", c, cc, r)
				}
				arcs += 4 * math.Atan(x.Bulge)
				continue
			}
			a, b := x.P.Sub(center), y.P.Sub(center)
			switch {
			case math.Abs(a.Dot(v)-b.Dot(v)) < 1e-12: // a side, along u
				sides = append(sides, a.Dot(v))
			case math.Abs(a.Dot(u)-c.top) < 1e-12 && math.Abs(b.Dot(u)-c.top) < 1e-12:
				flat++
				if w := math.Abs(a.Dot(v) - b.Dot(v)); math.Abs(w-c.b) > 1e-12 {
					t.Errorf("%+v: flat %v wide, want %v", c, w, c.b)
				}
			default:
				t.Errorf("%+v: piece %v–%v is neither a side nor the flat", c, x.P, y.P)
			}
		}
		sort.Float64s(sides)
		if flat != 1 || len(sides) != 2 || math.Abs(sides[1]-sides[0]-c.b) > 1e-12 || math.Abs(sides[0]+c.b/2) > 1e-12 {
			t.Errorf("%+v: flat %d, sides at %v; want one flat, sides at ±%v", c, flat, sides, c.b/2)
		}
		if want := 2*math.Pi - 2*math.Asin(c.b/c.d); math.Abs(arcs-want) > 1e-12 {
			t.Errorf("%+v: arcs sweep %v, want %v", c, arcs, want)
		}
	}
	for _, c := range [][3]float64{{10, 10, 6}, {10, 3, 5}, {10, 3, 4.9}} {
		if _, err := KeyedCircle(Vec{}, c[0], c[1], c[2], 0); err == nil {
			t.Errorf("KeyedCircle(d %v, b %v, top %v) succeeded, want an error", c[0], c[1], c[2])
		}
	}
}
