package geom

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// fullEllipse is the ellipse about c with major axis m and ratio k.
func fullEllipse(c, m Vec, k float64) EllipseArc {
	return EllipseArc{C: c, Major: m, Ratio: k, Sweep: 2 * math.Pi}
}

func TestIntersectEllipses(t *testing.T) {
	// E: x²/4 + y² = 1.
	e := fullEllipse(Vec{}, Vec{2, 0}, 0.5)
	// E and x² + y² = 2: x²/4 + 2 - x² = 1, so x² = 4/3 and y² = 2/3.
	x, y := math.Sqrt(4.0/3), math.Sqrt(2.0/3)
	// E and (x-2)² + y² = 1: x²/4 = (x-2)², so x = 4/3, y² = 5/9.
	// E and x² + y² = r², r just over 1: x² = 4(r²-1)/3, four points
	// close to (0, ±1), two by two closer than a sample step.
	r := 1 + 1e-6
	xr := math.Sqrt(4 * (r*r - 1) / 3)
	yr := math.Sqrt(r*r - xr*xr)
	// E turned a quarter, x² + y²/4 = 1, meets E where x² = y² = 4/5.
	q := 2 / math.Sqrt(5)
	tests := []struct {
		name string
		p, q any
		want []Vec
		err  error
	}{
		{"ellipse and circle cross", e, circleArc(Vec{}, math.Sqrt2), []Vec{{x, y}, {-x, y}, {x, -y}, {-x, -y}}, nil},
		{"ellipse and the circle on its minor axis touch", e, circleArc(Vec{}, 1), []Vec{{0, 1}, {0, -1}}, nil},
		{"ellipse and the circle on its major axis touch", e, circleArc(Vec{}, 2), []Vec{{2, 0}, {-2, 0}}, nil},
		{"ellipse inside a circle", e, circleArc(Vec{}, 3), nil, nil},
		{"ellipse and an off-centre circle", e, circleArc(Vec{2, 0}, 1), []Vec{{4.0 / 3, math.Sqrt(5) / 3}, {4.0 / 3, -math.Sqrt(5) / 3}}, nil},
		{"ellipse and a circle just outside its minor axis", e, circleArc(Vec{}, r), []Vec{{xr, yr}, {-xr, yr}, {xr, -yr}, {-xr, -yr}}, nil},
		{"upper half ellipse and circle", EllipseArc{Major: Vec{2, 0}, Ratio: 0.5, Start: 0, Sweep: math.Pi}, circleArc(Vec{}, math.Sqrt2), []Vec{{x, y}, {-x, y}}, nil},
		{"ellipse and a quarter arc", e, degArc(Vec{}, math.Sqrt2, 0, 90), []Vec{{x, y}}, nil},
		{"ellipse and an arc over one crossing", e, degArc(Vec{}, math.Sqrt2, 100, 170), []Vec{{-x, y}}, nil},
		{"ellipse and its quarter-turned copy", e, fullEllipse(Vec{}, Vec{0, 2}, 0.5), []Vec{{q, q}, {-q, q}, {q, -q}, {-q, -q}}, nil},
		{"ellipses touching end to end", e, fullEllipse(Vec{4, 0}, Vec{-2, 0}, 0.5), []Vec{{2, 0}}, nil},
		{"elliptical arcs", EllipseArc{Major: Vec{2, 0}, Ratio: 0.5, Start: 0, Sweep: math.Pi / 2}, EllipseArc{Major: Vec{0, 2}, Ratio: 0.5, Start: -math.Pi / 2, Sweep: math.Pi}, []Vec{{q, q}}, nil},
		{"ellipses apart", e, fullEllipse(Vec{10, 0}, Vec{2, 0}, 0.5), nil, nil},
		{"the same ellipse", e, EllipseArc{Major: Vec{-2, 0}, Ratio: 0.5, Start: 1, Sweep: 1}, nil, ErrOverlap},
		{"a round ellipse on its circle", fullEllipse(Vec{1, 1}, Vec{0, 3}, 1), degArc(Vec{1, 1}, 3, 10, 20), nil, ErrOverlap},
		{"elliptical arcs of one ellipse meeting at an end", EllipseArc{Major: Vec{2, 0}, Ratio: 0.5, Start: 0, Sweep: 1}, EllipseArc{Major: Vec{2, 0}, Ratio: 0.5, Start: 1, Sweep: 1}, []Vec{fullEllipse(Vec{}, Vec{2, 0}, 0.5).At(1)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Intersect(tt.p, tt.q)
			if !errors.Is(err, tt.err) {
				t.Fatalf("intersect error = %v, want %v", err, tt.err)
			}
			if !SameVecs(got, tt.want) {
				t.Errorf("intersect = %v, want %v", got, tt.want)
			}
			back, err := Intersect(tt.q, tt.p)
			if !errors.Is(err, tt.err) || !SameVecs(back, tt.want) {
				t.Errorf("intersect reversed = %v, %v; want %v", back, err, tt.want)
			}
		})
	}
}

func TestEllipseTangents(t *testing.T) {
	e := fullEllipse(Vec{}, Vec{2, 0}, 0.5) // x²/4 + y² = 1
	s8 := math.Sqrt(8)
	for _, tt := range []struct {
		name string
		e    EllipseArc
		from Vec
		want []Vec // the counter-clockwise one first
	}{
		// The tangent at (x0, y0) is x·x0/4 + y·y0 = 1.
		{"from the major axis", e, Vec{4, 0}, []Vec{{1, math.Sqrt(3) / 2}, {1, -math.Sqrt(3) / 2}}},
		{"from the minor axis", e, Vec{0, 3}, []Vec{{-2 * s8 / 3, 1.0 / 3}, {2 * s8 / 3, 1.0 / 3}}},
		{"on the ellipse", e, Vec{2, 0}, []Vec{{2, 0}}},
		{"inside", e, Vec{0.5, 0.5}, nil},
		{"half ellipse", EllipseArc{Major: Vec{2, 0}, Ratio: 0.5, Sweep: math.Pi}, Vec{4, 0}, []Vec{{1, math.Sqrt(3) / 2}}},
		{"turned and moved", fullEllipse(Vec{1, 1}, Vec{0, 2}, 0.5), Vec{1, 5}, []Vec{{1 - math.Sqrt(3)/2, 2}, {1 + math.Sqrt(3)/2, 2}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.e.TangentsFrom(tt.from)
			if len(got) != len(tt.want) {
				t.Fatalf("tangentsFrom(%v) = %v, want %v", tt.from, got, tt.want)
			}
			for i := range got {
				if !got[i].Same(tt.want[i]) {
					t.Errorf("tangentsFrom(%v)[%d] = %v, want %v", tt.from, i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestIntersectEllipsesRandom(t *testing.T) {
	// Random ellipses against random circles and ellipses: every point
	// found lies on both curves, and there are as many as a brute-force
	// count of sign changes along the first ellipse finds.
	rng := rand.New(rand.NewPCG(1, 2))
	num := func(lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }
	randomEllipse := func() EllipseArc {
		a, th := num(0.5, 5), num(0, 2*math.Pi)
		return fullEllipse(Vec{num(-3, 3), num(-3, 3)}, Vec{a * math.Cos(th), a * math.Sin(th)}, num(0.1, 1))
	}
	seen := map[int]int{} // cases by number of intersections
	for i := 0; i < 200; i++ {
		e := randomEllipse()
		var other any
		var f func(Vec) float64
		var on func(Vec) bool
		if i%2 == 0 {
			c := circleArc(Vec{num(-3, 3), num(-3, 3)}, num(0.2, 5))
			other, f, on = c, func(p Vec) float64 { return p.Dist(c.C) - c.R }, func(p Vec) bool { return onArc(c, p) }
		} else {
			o := randomEllipse()
			other, f, on = o, func(p Vec) float64 { return o.toUnit(p).Len() - 1 }, func(p Vec) bool { return onEllipse(o, p) }
		}
		got, err := Intersect(e, other)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		const n = 20000
		want := 0
		prev := f(e.At(0))
		for k := 1; k <= n; k++ {
			cur := f(e.At(2 * math.Pi * float64(k) / n))
			if (prev < 0) != (cur < 0) {
				want++
			}
			prev = cur
		}
		seen[want]++
		if len(got) != want {
			t.Errorf("case %d: %d intersections of %+v and %+v, want %d: %v", i, len(got), e, other, want, got)
		}
		for _, p := range got {
			if !on(p) || !onEllipse(e, p) {
				t.Errorf("case %d: %v is not on both curves", i, p)
			}
		}
	}
	if seen[0] == 0 || seen[2] == 0 || seen[4] == 0 {
		t.Errorf("cases by number of intersections = %v, want some with 0, 2 and 4", seen)
	}
}
