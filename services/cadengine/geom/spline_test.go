package geom

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// mustSpline is NewSpline that fails the test on an error.
func mustSpline(tb testing.TB, degree int, knots []float64, control []Vec, weights []float64) Spline {
	tb.Helper()
	s, err := NewSpline(degree, knots, control, weights)
	if err != nil {
		tb.Fatalf("NewSpline(%d, %v, %v, %v) = %v", degree, knots, control, weights, err)
	}
	return s
}

// near reports whether a and b are within rel of scale apart.
func near(a, b Vec, rel, scale float64) bool { return a.Dist(b) <= rel*math.Max(scale, 1e-300) }

// sizeOf is the larger side of the spline's control box and where it sits:
// the scale of its coordinates.
func sizeOf(s Spline) float64 {
	b := s.controlBox()
	return math.Max(math.Max(b.Max.X-b.Min.X, b.Max.Y-b.Min.Y), math.Max(b.Min.Mag(), b.Max.Mag()))
}

// randomSpline is a valid spline of degree 1 to 5 with up to 12 control
// points, clamped or not, with repeated knots now and then, rational when
// asked.
func randomSpline(r *rand.Rand, rational bool) Spline {
	for {
		p := 1 + r.IntN(5)
		n := p + 1 + r.IntN(8)
		u := make([]float64, n+p+1)
		for i := 1; i < len(u); i++ {
			u[i] = u[i-1]
			if r.Float64() > 0.15 {
				u[i] += 0.1 + r.Float64()
			}
		}
		if r.IntN(2) == 0 {
			for i := 0; i < p; i++ {
				u[i] = u[p]
				u[len(u)-1-i] = u[n]
			}
		}
		c := make([]Vec, n)
		for i := range c {
			c[i] = Vec{20*r.Float64() - 10, 20*r.Float64() - 10}
		}
		var w []float64
		if rational {
			w = make([]float64, n)
			for i := range w {
				w[i] = 0.2 + 3*r.Float64()
			}
		}
		if s, err := NewSpline(p, u, c, w); err == nil {
			return s
		}
	}
}

// coxDeBoor is the B-spline basis function N_i,p at t by its recursive
// definition (0/0 = 0, spans half-open): the oracle for At.
func coxDeBoor(u []float64, i, p int, t float64) float64 {
	if p == 0 {
		if u[i] <= t && t < u[i+1] {
			return 1
		}
		return 0
	}
	v := 0.0
	if d := u[i+p] - u[i]; d > 0 {
		v += (t - u[i]) / d * coxDeBoor(u, i, p-1, t)
	}
	if d := u[i+p+1] - u[i+1]; d > 0 {
		v += (u[i+p+1] - t) / d * coxDeBoor(u, i+1, p-1, t)
	}
	return v
}

// byDefinition is the point of s at t from the basis functions.
func byDefinition(s Spline, t float64) Vec {
	var num Vec
	den := 0.0
	for i := range s.Control {
		nw := coxDeBoor(s.Knots, i, s.Degree, t) * s.wpt(i).w
		num = num.Add(s.Control[i].Mul(nw))
		den += nw
	}
	return num.Mul(1 / den)
}

func TestSplineAt(t *testing.T) {
	h := math.Sqrt2 / 2
	quad := []Vec{{0, 0}, {1, 2}, {2, 0}}
	cubic := []Vec{{0, 0}, {1, 1}, {2, -1}, {3, 0}, {4, 2}}
	tests := []struct {
		name      string
		degree    int
		knots     []float64
		control   []Vec
		weights   []float64
		t         float64
		want, der Vec
	}{
		// B(t) = (1-t)²P0 + 2t(1-t)P1 + t²P2, B'(t) = 2(1-t)(P1-P0) + 2t(P2-P1).
		{"quadratic Bézier at 0", 2, []float64{0, 0, 0, 1, 1, 1}, quad, nil, 0, Vec{0, 0}, Vec{2, 4}},
		{"quadratic Bézier at 1/4", 2, []float64{0, 0, 0, 1, 1, 1}, quad, nil, 0.25, Vec{0.5, 0.75}, Vec{2, 2}},
		{"quadratic Bézier at 1/2", 2, []float64{0, 0, 0, 1, 1, 1}, quad, nil, 0.5, Vec{1, 1}, Vec{2, 0}},
		{"quadratic Bézier at 1", 2, []float64{0, 0, 0, 1, 1, 1}, quad, nil, 1, Vec{2, 0}, Vec{2, -4}},
		{"quadratic Bézier clamps before the domain", 2, []float64{0, 0, 0, 1, 1, 1}, quad, nil, -3, Vec{0, 0}, Vec{2, 4}},
		{"quadratic Bézier on knots 2 to 4", 2, []float64{2, 2, 2, 4, 4, 4}, quad, nil, 3, Vec{1, 1}, Vec{1, 0}},
		// At the knot 1 of 0,0,0,0,1,2,2,2,2: N1 = 1/4, N2 = 1/2, N3 = 1/4.
		// C'(0) = 3(P1-P0)/(u4-u1), C'(2) = 3(P4-P3)/(u7-u4).
		{"clamped cubic at its start", 3, []float64{0, 0, 0, 0, 1, 2, 2, 2, 2}, cubic, nil, 0, Vec{0, 0}, Vec{3, 3}},
		{"clamped cubic at its inner knot", 3, []float64{0, 0, 0, 0, 1, 2, 2, 2, 2}, cubic, nil, 1, Vec{2, -0.25}, Vec{1.5, -0.75}},
		{"clamped cubic at its end", 3, []float64{0, 0, 0, 0, 1, 2, 2, 2, 2}, cubic, nil, 2, Vec{4, 2}, Vec{3, 6}},
		// Uniform cubic: C(u3) = (P0 + 4P1 + P2)/6, C'(u3) = (P2 - P0)/2.
		{"unclamped uniform cubic", 3, []float64{0, 1, 2, 3, 4, 5, 6, 7}, []Vec{{0, 0}, {6, 0}, {6, 6}, {0, 6}}, nil, 3, Vec{5, 1}, Vec{3, 3}},
		{"unclamped uniform cubic at its end", 3, []float64{0, 1, 2, 3, 4, 5, 6, 7}, []Vec{{0, 0}, {6, 0}, {6, 6}, {0, 6}}, nil, 4, Vec{5, 5}, Vec{-3, 3}},
		{"degree 1 is a polyline", 1, []float64{0, 0, 1, 2, 2}, []Vec{{0, 0}, {1, 0}, {1, 1}}, nil, 0.5, Vec{0.5, 0}, Vec{1, 0}},
		{"degree 1 at its corner: the derivative after it", 1, []float64{0, 0, 1, 2, 2}, []Vec{{0, 0}, {1, 0}, {1, 1}}, nil, 1, Vec{1, 0}, Vec{0, 1}},
		{"degree 1 at its end", 1, []float64{0, 0, 1, 2, 2}, []Vec{{0, 0}, {1, 0}, {1, 1}}, nil, 2, Vec{1, 1}, Vec{0, 1}},
		// The rational quarter circle: C'(0) = 2·w1/w0·(P1-P0); at 1/2 de
		// Casteljau's points (1, h/(1+h)) and (h/(1+h), 1) have equal weights.
		{"rational quarter circle at 1/2", 2, []float64{0, 0, 0, 1, 1, 1}, []Vec{{1, 0}, {1, 1}, {0, 1}}, []float64{1, h, 1}, 0.5, Vec{h, h}, Vec{-2 / (1 + h), 2 / (1 + h)}},
		{"rational quarter circle at 0", 2, []float64{0, 0, 0, 1, 1, 1}, []Vec{{1, 0}, {1, 1}, {0, 1}}, []float64{1, h, 1}, 0, Vec{1, 0}, Vec{0, math.Sqrt2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustSpline(t, tt.degree, tt.knots, tt.control, tt.weights)
			if got := s.At(tt.t); !near(got, tt.want, 1e-15, 4) {
				t.Errorf("At(%g) = %v, want %v", tt.t, got, tt.want)
			}
			if got := s.Derivative(tt.t); !near(got, tt.der, 1e-14, 4) {
				t.Errorf("Derivative(%g) = %v, want %v", tt.t, got, tt.der)
			}
		})
	}
}

func TestSplineMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		s := randomSpline(r, i%2 == 1)
		t0, t1 := s.Domain()
		size := sizeOf(s)
		for range 20 {
			x := t0 + (t1-t0)*r.Float64()
			if got, want := s.At(x), byDefinition(s, x); !near(got, want, 1e-12, size) {
				t.Fatalf("spline %+v: At(%g) = %v, want %v", s, x, got, want)
			}
			// The derivative against a central difference, away from knots.
			h := 1e-6 * (t1 - t0)
			k := s.span(x)
			if x-h <= s.Knots[k] || x+h >= s.Knots[k+1] {
				continue
			}
			fd := s.At(x + h).Sub(s.At(x - h)).Mul(1 / (2 * h))
			if got := s.Derivative(x); !near(got, fd, 1e-5, math.Max(fd.Len(), size/(t1-t0))) {
				t.Fatalf("spline %+v: Derivative(%g) = %v, want about %v", s, x, got, fd)
			}
		}
	}
}

func TestSplinePartitionOfUnity(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		s := randomSpline(r, false)
		t0, t1 := s.Domain()
		for range 10 {
			x := t0 + (t1-t0)*r.Float64()
			k := s.span(x)
			sum := 0.0
			for _, v := range basisFuns(s.Knots, s.Degree, k, x) {
				if v < 0 {
					t.Fatalf("basisFuns(%v, %d, %d, %g) has %g < 0", s.Knots, s.Degree, k, x, v)
				}
				sum += v
			}
			if math.Abs(sum-1) > 1e-14 {
				t.Fatalf("sum of basisFuns(%v, %d, %d, %g) = %g, want 1", s.Knots, s.Degree, k, x, sum)
			}
		}
		// Equal control points make a point: the basis sums to 1,
		// weighted or not.
		c := Vec{3.25, -7.5}
		for i := range s.Control {
			s.Control[i] = c
		}
		s.Weights = make([]float64, len(s.Control))
		for i := range s.Weights {
			s.Weights[i] = 0.5 + r.Float64()
		}
		if got := s.At(t0 + (t1-t0)*r.Float64()); !near(got, c, 1e-15, c.Len()) {
			t.Fatalf("At of a spline with every control point %v = %v", c, got)
		}
	}
}

func TestArcSpline(t *testing.T) {
	tests := []struct {
		name string
		arc  Arc
	}{
		{"quarter", degArc(Vec{}, 1, 0, 90)},
		{"100°", degArc(Vec{1, 2}, 3, 10, 110)},
		{"half", degArc(Vec{-5, 5}, 2, 90, 270)},
		{"270° through 0°", degArc(Vec{}, 10, 300, 210)},
		{"tiny", degArc(Vec{1, 1}, 1, 45, 45.001)},
		{"full circle", circleArc(Vec{2, -3}, 4)},
		{"far from the origin", degArc(Vec{1e5, -2e5}, 50, 200, 20)},
		{"reversed", Arc{C: Vec{1, 1}, R: 2, Start: 1, Sweep: 2, Reversed: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.arc
			s := a.Spline()
			if err := s.Validate(); err != nil {
				t.Fatalf("%+v.Spline().Validate() = %v", a, err)
			}
			scale := a.R + a.C.Len()
			t0, t1 := s.Domain()
			if got, want := s.At(t0), a.First(); !near(got, want, 1e-12, scale) {
				t.Errorf("first point = %v, want %v", got, want)
			}
			if got, want := s.At(t1), a.Last(); !near(got, want, 1e-12, scale) {
				t.Errorf("last point = %v, want %v", got, want)
			}
			if s.Closed != a.Full() {
				t.Errorf("Closed = %v, want %v", s.Closed, a.Full())
			}
			// At the knots the parameter is the angle (negated when reversed).
			for _, k := range s.Knots {
				angle := k
				if a.Reversed {
					angle = -k
				}
				if got, want := s.At(k), a.At(angle); !near(got, want, 1e-12, scale) {
					t.Errorf("At(knot %g) = %v, want %v", k, got, want)
				}
			}
			// Everywhere else on the circle, in the sweep.
			for i := 0; i <= 1000; i++ {
				p := s.At(t0 + (t1-t0)*float64(i)/1000)
				if d := p.Dist(a.C); math.Abs(d-a.R) > 1e-12*scale {
					t.Fatalf("|At - C| = %.17g, want R = %g", d, a.R)
				}
				if angle := p.Sub(a.C).Angle(); !a.Has(angle) || !near(a.At(angle), p, 1e-12, scale) {
					t.Fatalf("At = %v: at angle %g, off the arc's sweep", p, angle)
				}
			}
			if got, want := s.Length(), a.Length(); math.Abs(got-want) > 1e-9*want {
				t.Errorf("Length() = %.15g, want %.15g", got, want)
			}
			if got, want := s.Bounds(), a.Bounds(); !near(got.Min, want.Min, 1e-9, scale) || !near(got.Max, want.Max, 1e-9, scale) {
				t.Errorf("Bounds() = %v, want %v", got, want)
			}
		})
	}
}

func TestEllipseArcSpline(t *testing.T) {
	tests := []struct {
		name string
		e    EllipseArc
	}{
		{"full", fullEllipse(Vec{}, Vec{2, 0}, 0.5)},
		{"turned", fullEllipse(Vec{3, -1}, Vec{3, 4}, 0.3)},
		{"upper half", EllipseArc{Major: Vec{2, 0}, Ratio: 0.5, Start: 0, Sweep: math.Pi}},
		{"arc through the start of the parameter", EllipseArc{C: Vec{1, 1}, Major: Vec{-1, 2}, Ratio: 0.8, Start: 5, Sweep: 3}},
		{"thin", EllipseArc{Major: Vec{100, 0}, Ratio: 0.01, Start: 0.5, Sweep: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.e
			s := e.Spline()
			if err := s.Validate(); err != nil {
				t.Fatalf("%+v.Spline().Validate() = %v", e, err)
			}
			a := e.Major.Len()
			scale := a + e.C.Len()
			for _, k := range s.Knots {
				if got, want := s.At(k), e.At(k); !near(got, want, 1e-12, scale) {
					t.Errorf("At(knot %g) = %v, want %v", k, got, want)
				}
			}
			t0, t1 := s.Domain()
			for i := 0; i <= 1000; i++ {
				p := s.At(t0 + (t1-t0)*float64(i)/1000)
				u := e.toUnit(p)
				if d := u.Len(); math.Abs(d-1)*e.Ratio*a > 1e-12*scale {
					t.Fatalf("At = %v is %g off the ellipse", p, math.Abs(d-1)*e.Ratio*a)
				}
				if !e.Has(u.Angle()) {
					t.Fatalf("At = %v: at parameter %g, off the arc", p, u.Angle())
				}
			}
			if got, want := s.Length(), e.Length(); math.Abs(got-want) > 1e-9*want {
				t.Errorf("Length() = %.15g, want %.15g", got, want)
			}
			if got, want := s.Bounds(), e.Bounds(); !near(got.Min, want.Min, 1e-9, scale) || !near(got.Max, want.Max, 1e-9, scale) {
				t.Errorf("Bounds() = %v, want %v", got, want)
			}
		})
	}
}

// extremes is the box of the curve by dense sampling, each extreme
// then narrowed by golden-section search around its best sample.
func extremes(s Spline) Box {
	t0, t1 := s.Domain()
	const n = 4000
	var b Box
	coords := []func(Vec) float64{
		func(p Vec) float64 { return p.X }, func(p Vec) float64 { return -p.X },
		func(p Vec) float64 { return p.Y }, func(p Vec) float64 { return -p.Y },
	}
	for _, f := range coords {
		bi, bv := 0, math.Inf(-1)
		for i := 0; i <= n; i++ {
			if v := f(s.At(t0 + (t1-t0)*float64(i)/n)); v > bv {
				bi, bv = i, v
			}
		}
		lo := t0 + (t1-t0)*float64(max(bi-1, 0))/n
		hi := t0 + (t1-t0)*float64(min(bi+1, n))/n
		g := (math.Sqrt(5) - 1) / 2
		for range 200 {
			m1, m2 := hi-g*(hi-lo), lo+g*(hi-lo)
			if f(s.At(m1)) > f(s.At(m2)) {
				hi = m2
			} else {
				lo = m1
			}
		}
		for _, x := range []float64{lo, hi, t0 + (t1-t0)*float64(bi)/n} {
			b.AddPoint(s.At(x))
		}
	}
	return b
}

func TestSplineBounds(t *testing.T) {
	tests := []struct {
		name string
		s    Spline
		want Box
	}{
		{"quadratic Bézier", mustSpline(t, 2, []float64{0, 0, 0, 1, 1, 1}, []Vec{{0, 0}, {1, 2}, {2, 0}}, nil), Box{Vec{0, 0}, Vec{2, 1}, true}},
		// y = 3t(1-t), x = t²(3-2t).
		{"cubic Bézier", mustSpline(t, 3, []float64{0, 0, 0, 0, 1, 1, 1, 1}, []Vec{{0, 0}, {0, 1}, {1, 1}, {1, 0}}, nil), Box{Vec{0, 0}, Vec{1, 0.75}, true}},
		{"straight", mustSpline(t, 3, []float64{0, 0, 0, 0, 1, 1, 1, 1}, []Vec{{0, 0}, {3, 3}, {-1, -1}, {1, 1}}, nil), Box{}},
	}
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 60 {
		tests = append(tests, struct {
			name string
			s    Spline
			want Box
		}{fmt.Sprintf("random %d", i), randomSpline(r, i%2 == 1), Box{}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.s.Bounds()
			want := tt.want
			if !want.NonEmpty {
				want = extremes(tt.s)
			}
			size := sizeOf(tt.s)
			if !near(got.Min, want.Min, 1e-9, size) || !near(got.Max, want.Max, 1e-9, size) {
				t.Errorf("Bounds() = %v, want %v", got, want)
			}
			t0, t1 := tt.s.Domain()
			slack := 1e-13 * size
			for i := 0; i <= 5000; i++ {
				p := tt.s.At(t0 + (t1-t0)*float64(i)/5000)
				if p.X < got.Min.X-slack || p.X > got.Max.X+slack || p.Y < got.Min.Y-slack || p.Y > got.Max.Y+slack {
					t.Fatalf("Bounds() = %v, does not hold At = %v", got, p)
				}
			}
		})
	}
}

// polylineDist is the distance from p to the polyline through pts.
func polylineDist(pts []Vec, p Vec) float64 {
	d := math.Inf(1)
	for i := 1; i < len(pts); i++ {
		c, _ := Segment{pts[i-1], pts[i]}.Closest(p)
		d = math.Min(d, c.Dist(p))
	}
	return d
}

func TestSplineFlatten(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 40 {
		s := randomSpline(r, i%2 == 1)
		size := sizeOf(s)
		for _, rel := range []float64{1e-2, 1e-4, 1e-6} {
			if rel < 1e-4 && i >= 6 {
				break // the brute-force checks below grow with the points
			}
			tol := rel * size
			pts := s.Flatten(tol)
			t0, t1 := s.Domain()
			if !near(pts[0], s.At(t0), 1e-13, size) || !near(pts[len(pts)-1], s.At(t1), 1e-13, size) {
				t.Fatalf("Flatten(%g) runs %v to %v, want %v to %v", tol, pts[0], pts[len(pts)-1], s.At(t0), s.At(t1))
			}
			// Every distinct knot inside the domain is a point.
			for _, k := range s.Knots {
				if k <= t0 || k >= t1 {
					continue
				}
				found := false
				for _, p := range pts {
					found = found || near(p, s.At(k), 1e-13, size)
				}
				if !found {
					t.Fatalf("Flatten(%g) leaves out the point %v at knot %g", tol, s.At(k), k)
				}
			}
			// The polyline within tol of the curve, and the curve of it.
			for _, p := range pts {
				if _, q := s.Closest(p); q.Dist(p) > 1e-12*size {
					t.Fatalf("Flatten(%g) has %v, %g off the curve", tol, p, q.Dist(p))
				}
			}
			for j := 0; j <= 3000; j++ {
				p := s.At(t0 + (t1-t0)*float64(j)/3000)
				if d := polylineDist(pts, p); d > tol*(1+1e-9) {
					t.Fatalf("Flatten(%g): At = %v is %g from the polyline", tol, p, d)
				}
			}
		}
	}
}

func TestSplineFlattenBounded(t *testing.T) {
	s := Arc{R: 1, Sweep: 2 * math.Pi}.Spline()
	for _, tol := range []float64{0, -1, math.NaN(), 1e-300} {
		if got := len(s.Flatten(tol)); got > maxFlattenPoints {
			t.Errorf("len(Flatten(%g)) = %d, want at most %d", tol, got, maxFlattenPoints)
		}
	}
	// A straight spline flattens to its knot points.
	line := mustSpline(t, 3, []float64{0, 0, 0, 0, 1, 2, 2, 2, 2}, []Vec{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}}, nil)
	if got := line.Flatten(1e-9); len(got) != 3 {
		t.Errorf("Flatten of a straight spline = %v, want its 3 knot points", got)
	}
	// More knots than the cap: one point per knot.
	n := maxFlattenPoints + 10
	knots := make([]float64, n+2)
	ctrl := make([]Vec, n)
	for i := range ctrl {
		knots[i+1] = float64(i)
		ctrl[i] = Vec{float64(i), float64(i % 2)}
	}
	knots[0], knots[n+1] = 0, float64(n-1)
	many := mustSpline(t, 1, knots, ctrl, nil)
	if got := len(many.Flatten(0)); got != n {
		t.Errorf("len(Flatten) of a %d-point polyline = %d, want %d", n, got, n)
	}
}

func TestSplineLength(t *testing.T) {
	tests := []struct {
		name string
		s    Spline
		want float64
	}{
		{"polyline", mustSpline(t, 1, []float64{0, 0, 1, 2, 2}, []Vec{{0, 0}, {3, 4}, {3, 5}}, nil), 6},
		{"straight cubic, even", mustSpline(t, 3, []float64{0, 0, 0, 0, 1, 1, 1, 1}, []Vec{{0, 0}, {1, 2}, {2, 4}, {3, 6}}, nil), math.Sqrt(45)},
		{"straight cubic, uneven", mustSpline(t, 3, []float64{0, 0, 0, 0, 1, 1, 1, 1}, []Vec{{0, 0}, {2.9, 5.8}, {0.1, 0.2}, {3, 6}}, nil), math.Sqrt(45)},
		// A cusp: C(t) = (t², t³) on [-1, 1] has length 2·(13^1.5 − 8)/27.
		{"cusp", mustSpline(t, 3, []float64{-1, -1, -1, -1, 1, 1, 1, 1}, []Vec{{1, -1}, {-1.0 / 3, 1}, {-1.0 / 3, -1}, {1, 1}}, nil), 2 * (math.Pow(13, 1.5) - 8) / 27},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.Length(); math.Abs(got-tt.want) > 1e-10*tt.want {
				t.Errorf("Length() = %.16g, want %.16g", got, tt.want)
			}
		})
	}
	// Random splines against fine polylines through each knot span,
	// extrapolated (Richardson: the chord error is O(h²)).
	r := rand.New(rand.NewPCG(9, 10))
	for i := range 20 {
		s := randomSpline(r, i%2 == 1)
		chords := func(n int) float64 {
			l := 0.0
			for _, k := range s.spans() {
				a, b := s.Knots[k], s.Knots[k+1]
				prev := s.At(a)
				for j := 1; j <= n; j++ {
					p := s.At(a + (b-a)*float64(j)/float64(n))
					l, prev = l+p.Dist(prev), p
				}
			}
			return l
		}
		l1, l2 := chords(4000), chords(8000)
		want := l2 + (l2-l1)/3
		if got := s.Length(); math.Abs(got-want) > 1e-9*want {
			t.Errorf("spline %d: Length() = %.15g, want %.15g", i, got, want)
		}
	}
}

func TestSplineThrough(t *testing.T) {
	ptr := func(v Vec) *Vec { return &v }
	tests := []struct {
		name       string
		fit        []Vec
		start, end *Vec
		closed     bool
	}{
		{"three points", []Vec{{0, 0}, {1, 1}, {2, 0}}, nil, nil, false},
		{"five points", []Vec{{0, 0}, {1, 2}, {3, 3}, {4, 1}, {6, 0}}, nil, nil, false},
		{"uneven spacing", []Vec{{0, 0}, {0.001, 0.001}, {10, 0}, {1000, 5}, {1001, 6}}, nil, nil, false},
		{"far from the origin", []Vec{{1e6, 2e6}, {1e6 + 1, 2e6 + 2}, {1e6 + 3, 2e6 + 3}, {1e6 + 4, 2e6 + 1}}, nil, nil, false},
		{"with both tangents", []Vec{{0, 0}, {1, 2}, {3, 3}, {4, 1}}, ptr(Vec{0, 5}), ptr(Vec{1, -1}), false},
		{"with a start tangent", []Vec{{0, 0}, {1, 2}, {3, 3}, {4, 1}}, ptr(Vec{-1, 0}), nil, false},
		{"with an end tangent", []Vec{{0, 0}, {1, 2}, {3, 3}, {4, 1}}, nil, ptr(Vec{0, -2}), false},
		{"zero tangent counts as none", []Vec{{0, 0}, {1, 2}, {3, 3}}, ptr(Vec{}), nil, false},
		{"two points", []Vec{{1, 1}, {4, 5}}, nil, nil, false},
		{"two points with tangents", []Vec{{1, 1}, {4, 5}}, ptr(Vec{1, 0}), ptr(Vec{0, 1}), false},
		{"repeated points count once", []Vec{{0, 0}, {0, 0}, {1, 2}, {1, 2}, {3, 3}}, nil, nil, false},
		{"closed", []Vec{{0, 0}, {4, 0}, {4, 3}, {0, 3}, {0, 0}}, nil, nil, true},
		{"closed with a tangent", []Vec{{0, 0}, {4, 0}, {4, 3}, {0, 3}, {0, 0}}, ptr(Vec{1, -1}), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := SplineThrough(tt.fit, tt.start, tt.end)
			if err != nil {
				t.Fatalf("SplineThrough(%v) = %v", tt.fit, err)
			}
			if s.Degree != 3 || s.Closed != tt.closed {
				t.Errorf("SplineThrough(%v) has degree %d, closed %v; want 3, %v", tt.fit, s.Degree, s.Closed, tt.closed)
			}
			size := sizeOf(s)
			for _, q := range tt.fit {
				if _, c := s.Closest(q); !near(c, q, 1e-9, size) {
					t.Errorf("SplineThrough(%v) misses %v by %g", tt.fit, q, c.Dist(q))
				}
			}
			t0, t1 := s.Domain()
			fitFirst, fitLast := tt.fit[0], tt.fit[len(tt.fit)-1]
			if !near(s.At(t0), fitFirst, 1e-12, size) || !near(s.At(t1), fitLast, 1e-12, size) {
				t.Errorf("SplineThrough(%v) runs %v to %v", tt.fit, s.At(t0), s.At(t1))
			}
			start, end := tt.start, tt.end
			if tt.closed && start == nil {
				start = end
			}
			if tt.closed && end == nil {
				end = start
			}
			// The second derivative at an end, by differences of the
			// derivative over a small part of the end's knot span.
			m := len(s.Knots)
			first, last := s.Knots[4]-s.Knots[3], s.Knots[m-4]-s.Knots[m-5]
			second := func(x float64) Vec {
				if x == t0 {
					h := 1e-4 * first
					return s.Derivative(t0 + h).Sub(s.Derivative(t0)).Mul(1 / h)
				}
				h := 1e-4 * last
				return s.Derivative(t1).Sub(s.Derivative(t1 - h)).Mul(1 / h)
			}
			ends := []struct {
				name    string
				t, span float64
				tan     *Vec
			}{{"start", t0, first, start}, {"end", t1, last, end}}
			for _, e := range ends {
				d := s.Derivative(e.t)
				switch {
				case e.tan != nil && e.tan.Len() > 0:
					if !near(d.Unit(), e.tan.Unit(), 1e-12, 1) {
						t.Errorf("%s direction = %v, want %v", e.name, d.Unit(), e.tan.Unit())
					}
				case !tt.closed:
					// Natural: C'' = 0, against the scale |C'|/span.
					if c := second(e.t); c.Len() > 1e-3*d.Len()/e.span {
						t.Errorf("%s second derivative = %v, want 0", e.name, c)
					}
				}
			}
			if tt.closed {
				if a, b := s.Derivative(t0), s.Derivative(t1); !near(a, b, 1e-9, a.Len()) {
					t.Errorf("closed: derivatives at the ends = %v, %v, want the same", a, b)
				}
				if tt.start == nil && tt.end == nil {
					if a, b := second(t0), second(t1); !near(a, b, 1e-3, a.Len()) {
						t.Errorf("closed: second derivatives at the ends = %v, %v, want the same", a, b)
					}
				}
			}
			if len(tt.fit) == 2 && tt.start == nil {
				seg := Segment{fitFirst, fitLast}
				for i := 0; i <= 20; i++ {
					p := s.At(t0 + (t1-t0)*float64(i)/20)
					if c, _ := seg.Closest(p); !near(c, p, 1e-14, size) {
						t.Errorf("two points: At = %v is off the line", p)
					}
				}
			}
		})
	}
}

func TestSplineThroughErrors(t *testing.T) {
	inf := Vec{math.Inf(1), 0}
	tests := []struct {
		name       string
		fit        []Vec
		start, end *Vec
		want       string
	}{
		{"none", nil, nil, nil, "at least 2 distinct fit points, not 0"},
		{"one", []Vec{{1, 1}}, nil, nil, "at least 2 distinct fit points, not 1"},
		{"one, repeated", []Vec{{1, 1}, {1, 1}}, nil, nil, "at least 2 distinct fit points, not 1"},
		{"NaN", []Vec{{0, 0}, {math.NaN(), 1}}, nil, nil, "fit point 1 is (NaN, 1)"},
		{"infinite tangent", []Vec{{0, 0}, {1, 1}}, &inf, nil, "the start tangent is (+Inf, 0)"},
		{"overflow", []Vec{{-1e308, 0}, {1e308, 0}, {1e308, 1}}, nil, nil, "too far apart"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := SplineThrough(tt.fit, tt.start, tt.end)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("SplineThrough(%v) = %v, want an error with %q", tt.fit, err, tt.want)
			}
		})
	}
}

func TestSplineTransformed(t *testing.T) {
	xs := []Xform{
		Translate(Vec{3, -4}),
		RotateAbout(Vec{1, 2}, 33),
		ScaleAbout(Vec{-1, 5}, 2.5).Then(RotateAbout(Vec{}, 90)),
		MirrorAbout(Vec{0, 1}, Vec{2, 3}).Then(ScaleAbout(Vec{}, 0.5)),
	}
	ms := []Affine{
		{A: 2, B: 0, C: 1, D: 0, E: 0.5, F: -1},    // non-uniform scale
		{A: 1, B: 0.75, C: 0, D: 0, E: 1, F: 0},    // shear
		{A: -1, B: 2, C: 3, D: 0.5, E: 0.25, F: 7}, // anything
	}
	for _, x := range xs {
		ms = append(ms, x.Affine())
	}
	r := rand.New(rand.NewPCG(11, 12))
	for i := range 50 {
		s := randomSpline(r, i%2 == 1)
		t0, t1 := s.Domain()
		for j, x := range xs {
			got := s.Transformed(x)
			for k := 0; k <= 50; k++ {
				u := t0 + (t1-t0)*float64(k)/50
				if p, want := got.At(u), x.Point(s.At(u)); !near(p, want, 1e-12, sizeOf(got)) {
					t.Fatalf("Transformed(xform %d).At(%g) = %v, want %v", j, u, p, want)
				}
			}
		}
		for j, m := range ms {
			got := s.Affine(m)
			for k := 0; k <= 50; k++ {
				u := t0 + (t1-t0)*float64(k)/50
				if p, want := got.At(u), m.Point(s.At(u)); !near(p, want, 1e-12, sizeOf(got)) {
					t.Fatalf("Affine(%+v).At(%g) = %v, want %v", ms[j], u, p, want)
				}
			}
		}
	}
}

func TestAffine(t *testing.T) {
	m := Affine{A: 1, B: 2, C: 3, D: 4, E: 5, F: 6}
	n := Affine{A: 0, B: -1, C: 1, D: 1, E: 0, F: -2} // a quarter turn, then a move
	p := Vec{7, -3}
	if got, want := m.Point(p), (Vec{1*7 + 2*-3 + 3, 4*7 + 5*-3 + 6}); got != want {
		t.Errorf("Point(%v) = %v, want %v", p, got, want)
	}
	if got, want := m.Linear(p), m.Point(p).Sub(m.Point(Vec{})); got != want {
		t.Errorf("Linear(%v) = %v, want %v", p, got, want)
	}
	if got, want := m.Then(n).Point(p), n.Point(m.Point(p)); got != want {
		t.Errorf("Then(n).Point(%v) = %v, want %v", p, got, want)
	}
	if got := m.Det(); got != -3 {
		t.Errorf("Det() = %g, want -3", got)
	}
	if got := MirrorAbout(Vec{}, Vec{1, 1}).Affine().Det(); math.Abs(got+1) > 1e-15 {
		t.Errorf("Det of a reflection = %g, want -1", got)
	}
	x := RotateAbout(Vec{1, 2}, 30).Then(ScaleAbout(Vec{3, 3}, 2))
	if got, want := x.Affine().Point(p), x.Point(p); !near(got, want, 1e-15, 20) {
		t.Errorf("Xform.Affine().Point(%v) = %v, want %v", p, got, want)
	}
}

func TestSplineReversed(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for i := range 50 {
		s := randomSpline(r, i%2 == 1)
		rev := s.Reversed()
		if err := rev.Validate(); err != nil {
			t.Fatalf("Reversed().Validate() = %v", err)
		}
		t0, t1 := s.Domain()
		for k := 0; k <= 40; k++ {
			u := t0 + (t1-t0)*(float64(k)+0.5)/41
			if got, want := rev.At(-u), s.At(u); !near(got, want, 1e-13, sizeOf(s)) {
				t.Fatalf("Reversed().At(%g) = %v, want %v", -u, got, want)
			}
			if got, want := rev.Derivative(-u), s.Derivative(u).Mul(-1); !near(got, want, 1e-11, want.Len()+sizeOf(s)) {
				t.Fatalf("Reversed().Derivative(%g) = %v, want %v", -u, got, want)
			}
		}
	}
}

func TestSplineClosest(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for i := range 40 {
		s := randomSpline(r, i%2 == 1)
		size := sizeOf(s)
		t0, t1 := s.Domain()
		const n = 20000
		samples := make([]Vec, n+1)
		for k := range samples {
			samples[k] = s.At(t0 + (t1-t0)*float64(k)/n)
		}
		for range 20 {
			p := Vec{30*r.Float64() - 15, 30*r.Float64() - 15}
			u, q := s.Closest(p)
			if u < t0 || u > t1 || !near(q, s.At(u), 1e-15, size) {
				t.Fatalf("Closest(%v) = %g, %v; At(%g) = %v", p, u, q, u, s.At(u))
			}
			_, bi := NearestTo(samples, p)
			if brute := samples[bi].Dist(p); q.Dist(p) > brute+1e-12*size {
				t.Fatalf("spline %+v: Closest(%v) = %v at %g, farther than %v at %g", s, p, q, q.Dist(p), samples[bi], brute)
			}
		}
	}
}

func TestNewSplineErrors(t *testing.T) {
	sq := []Vec{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 2}}
	tests := []struct {
		name    string
		degree  int
		knots   []float64
		control []Vec
		weights []float64
		want    string
	}{
		{"degree 0", 0, []float64{0, 1, 2, 3, 4, 5}, sq, nil, "degree must be at least 1, not 0"},
		{"degree 26", 26, nil, sq, nil, "degree must be at most 25, not 26"},
		{"too few control points", 3, []float64{0, 0, 0, 1, 1, 1}, sq[:2], nil, "a degree-3 spline needs at least 4 control points, not 2"},
		{"a knot short", 3, []float64{0, 0, 0, 0, 1, 1, 1, 1}, sq, nil, "a degree-3 spline with 5 control points needs 9 knots, not 8"},
		{"weights short", 1, []float64{0, 0, 1, 2, 3, 4, 4}, sq, []float64{1, 1}, "needs 5 weights (or none), not 2"},
		{"NaN control point", 1, []float64{0, 0, 1, 2, 3, 4, 4}, []Vec{{0, 0}, {math.NaN(), 0}, {1, 1}, {0, 1}, {0, 2}}, nil, "control point 1 is (NaN, 0)"},
		{"infinite control point", 1, []float64{0, 0, 1, 2, 3, 4, 4}, []Vec{{0, 0}, {1, 0}, {1, math.Inf(-1)}, {0, 1}, {0, 2}}, nil, "control point 2 is (1, -Inf)"},
		{"zero weight", 1, []float64{0, 0, 1, 2, 3, 4, 4}, sq, []float64{1, 1, 0, 1, 1}, "weight 2 is 0: weights must be positive"},
		{"negative weight", 1, []float64{0, 0, 1, 2, 3, 4, 4}, sq, []float64{1, -1, 1, 1, 1}, "weight 1 is -1"},
		{"NaN weight", 1, []float64{0, 0, 1, 2, 3, 4, 4}, sq, []float64{1, 1, 1, math.NaN(), 1}, "weight 3 is NaN"},
		{"infinite weight", 1, []float64{0, 0, 1, 2, 3, 4, 4}, sq, []float64{1, 1, 1, 1, math.Inf(1)}, "weight 4 is +Inf"},
		{"NaN knot", 1, []float64{0, 0, 1, math.NaN(), 3, 4, 4}, sq, nil, "knot 3 is NaN: knots must be finite"},
		{"infinite knot", 1, []float64{0, 0, 1, 2, 3, 4, math.Inf(1)}, sq, nil, "knot 6 is +Inf"},
		{"decreasing knots", 1, []float64{0, 0, 2, 1, 3, 4, 4}, sq, nil, "knot 3 (1) is less than knot 2 (2): knots must not decrease"},
		{"empty domain", 2, []float64{0, 1, 1, 1, 1, 1, 1, 2}, sq, nil, "knots 2 to 5 are all 1: the spline's parameter range is empty"},
		{"broken in two", 2, []float64{0, 0, 0, 1, 1, 1, 2, 2, 2}, append(sq, Vec{5, 5}), nil, "knot 1 is repeated 3 times inside the parameter range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewSpline(tt.degree, tt.knots, tt.control, tt.weights)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewSpline(%d, %v, %v, %v) = %v, want an error with %q", tt.degree, tt.knots, tt.control, tt.weights, err, tt.want)
			}
		})
	}
}

func TestNewSplineCopies(t *testing.T) {
	knots := []float64{0, 0, 1, 1}
	ctrl := []Vec{{0, 0}, {1, 1}}
	w := []float64{1, 2}
	s := mustSpline(t, 1, knots, ctrl, w)
	knots[3], ctrl[1], w[1] = -5, Vec{9, 9}, -1
	if err := s.Validate(); err != nil || s.At(1) != (Vec{1, 1}) {
		t.Errorf("after changing NewSpline's arguments: Validate() = %v, At(1) = %v; want nil, (1, 1)", err, s.At(1))
	}
}

// splineFromBytes builds a spline, valid or not, from fuzzed bytes: small
// integers mostly, raw float64 bits when the first byte's top bit is set.
func splineFromBytes(data []byte) (Spline, float64, error) {
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	raw := func() float64 {
		var b [8]byte
		for i := range b {
			b[i] = next()
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
	}
	mode := next()
	bits := mode&0x80 != 0
	p := 1 + int(mode%6)
	if mode&0x40 != 0 {
		p = int(next()%32) - 2
	}
	n := int(next() % 24)
	extra := 0
	if b := next(); b&0x80 != 0 {
		extra = int(b%5) - 2
	}
	num := func(scale float64) float64 {
		if bits {
			return raw()
		}
		return float64(int8(next())) * scale
	}
	knots := make([]float64, max(0, n+p+1+extra))
	for i := 1; i < len(knots); i++ {
		b := next()
		knots[i] = knots[i-1]
		if b >= 64 {
			knots[i] += float64(b) / 32
		}
	}
	scale := math.Pow(10, float64(int(next()%16)-6))
	ctrl := make([]Vec, n)
	for i := range ctrl {
		ctrl[i] = Vec{num(scale), num(scale)}
	}
	var w []float64
	if next()&1 == 1 {
		w = make([]float64, n)
		for i := range w {
			if bits {
				w[i] = raw()
			} else {
				w[i] = float64(next()) / 16
			}
		}
	}
	tol := scale * math.Pow(10, -float64(next()%12))
	s, err := NewSpline(p, knots, ctrl, w)
	return s, tol, err
}

func FuzzSpline(f *testing.F) {
	f.Add([]byte{2, 4, 0, 0, 0, 0, 100, 100, 100, 6, 1, 2, 3, 4, 5, 6, 7, 8, 0, 3})
	f.Add([]byte{3, 9, 0, 0, 0, 0, 70, 200, 70, 90, 90, 0, 0, 0, 8, 10, 250, 3, 90, 40, 1, 128, 6, 7, 1, 16, 32, 64, 8, 16, 1, 2, 11})
	f.Add([]byte{1, 5, 0, 0, 64, 0, 64, 255, 64, 9, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Add([]byte{0x82, 4, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, tol, err := splineFromBytes(data)
		if err != nil {
			return
		}
		box := s.Bounds()
		pts := s.Flatten(tol)
		if len(pts) < 2 || len(pts) > max(maxFlattenPoints, len(s.Knots)) {
			t.Fatalf("len(Flatten(%g)) = %d", tol, len(pts))
		}
		for _, p := range pts {
			if !(Box{Min: p, Max: p, NonEmpty: true}).Inside(box) {
				t.Fatalf("spline %+v: Bounds() = %v does not hold Flatten's %v", s, box, p)
			}
		}
		t0, t1 := s.Domain()
		for _, u := range []float64{t0, (t0 + t1) / 2, t1} {
			if p := s.At(u); !(Box{Min: p, Max: p, NonEmpty: true}).Inside(box) {
				t.Fatalf("spline %+v: Bounds() = %v does not hold At(%g) = %v", s, box, u, p)
			}
		}
		_ = s.Length()
		s.Closest(Vec{})
		s.Reversed().Bounds()
	})
}

func ExampleSplineThrough() {
	s, err := SplineThrough([]Vec{{0, 0}, {1, 1}, {2, 0}}, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	t0, t1 := s.Domain()
	b := s.Bounds()
	fmt.Printf("degree %d, %d control points, t from %.4f to %.4f\n", s.Degree, len(s.Control), t0, t1)
	fmt.Printf("through (1, 1): %.4f\n", s.At(s.Knots[4]))
	fmt.Printf("bounds (%.4f, %.4f) to (%.4f, %.4f)\n", b.Min.X, b.Min.Y, b.Max.X, b.Max.Y)
	// Output:
	// degree 3, 5 control points, t from 0.0000 to 2.8284
	// through (1, 1): {1.0000 1.0000}
	// bounds (0.0000, 0.0000) to (2.0000, 1.0000)
}
