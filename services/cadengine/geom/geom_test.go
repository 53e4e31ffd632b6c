package geom

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func SameVecs(got, want []Vec) bool {
	if len(got) != len(want) {
		return false
	}
	used := make([]bool, len(got))
	for _, w := range want {
		found := false
		for i, g := range got {
			if !used[i] && g.Same(w) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func circleArc(c Vec, r float64) Arc { return Arc{C: c, R: r, Sweep: 2 * math.Pi} }

// degArc is the arc about c of radius r from start to end, in degrees.
func degArc(c Vec, r, start, end float64) Arc {
	return Arc{C: c, R: r, Start: Rad(NormDeg(start)), Sweep: Rad(SweepDeg(start, end))}
}

func TestIntersect(t *testing.T) {
	s3 := math.Sqrt(3) / 2
	tests := []struct {
		name string
		p, q any
		want []Vec
		err  error
	}{
		{"lines cross", Segment{Vec{0, 0}, Vec{2, 2}}, Segment{Vec{0, 2}, Vec{2, 0}}, []Vec{{1, 1}}, nil},
		{"lines miss (segments too short)", Segment{Vec{0, 0}, Vec{1, 1}}, Segment{Vec{3, 0}, Vec{2, 1}}, nil, nil},
		{"lines meet at an end", Segment{Vec{0, 0}, Vec{1, 0}}, Segment{Vec{1, 0}, Vec{1, 5}}, []Vec{{1, 0}}, nil},
		{"parallel lines", Segment{Vec{0, 0}, Vec{1, 0}}, Segment{Vec{0, 1}, Vec{1, 1}}, nil, nil},
		{"collinear lines touching", Segment{Vec{0, 0}, Vec{1, 0}}, Segment{Vec{1, 0}, Vec{2, 0}}, []Vec{{1, 0}}, nil},
		{"collinear lines overlapping", Segment{Vec{0, 0}, Vec{2, 0}}, Segment{Vec{1, 0}, Vec{3, 0}}, nil, ErrOverlap},
		{"collinear lines apart", Segment{Vec{0, 0}, Vec{1, 0}}, Segment{Vec{2, 0}, Vec{3, 0}}, nil, nil},
		{"line through circle", Segment{Vec{-2, 0}, Vec{2, 0}}, circleArc(Vec{}, 1), []Vec{{-1, 0}, {1, 0}}, nil},
		{"line tangent to circle", Segment{Vec{-2, 1}, Vec{2, 1}}, circleArc(Vec{}, 1), []Vec{{0, 1}}, nil},
		{"line misses circle", Segment{Vec{-2, 1.5}, Vec{2, 1.5}}, circleArc(Vec{}, 1), nil, nil},
		{"line ends inside circle", Segment{Vec{0, 0}, Vec{0.5, 0}}, circleArc(Vec{}, 1), nil, nil},
		{"line crosses arc in its sweep", Segment{Vec{0, 0}, Vec{2, 2}}, degArc(Vec{}, 1, 0, 90), []Vec{{math.Sqrt2 / 2, math.Sqrt2 / 2}}, nil},
		{"line meets the circle outside the arc", Segment{Vec{-2, 0}, Vec{0, 0}}, degArc(Vec{}, 1, 0, 90), nil, nil},
		{"line through arc: one of two in sweep", Segment{Vec{-2, 0.5}, Vec{2, 0.5}}, degArc(Vec{}, 1, 0, 90), []Vec{{s3, 0.5}}, nil},
		{"line at arc end point", Segment{Vec{0, 0}, Vec{0, 2}}, degArc(Vec{}, 1, 0, 90), []Vec{{0, 1}}, nil},
		{"arc wrapping through 0°", Segment{Vec{0, 0}, Vec{2, 0}}, degArc(Vec{}, 1, 300, 30), []Vec{{1, 0}}, nil},
		{"circles cross", circleArc(Vec{0, 0}, 1), circleArc(Vec{1, 0}, 1), []Vec{{0.5, s3}, {0.5, -s3}}, nil},
		{"circles touch outside", circleArc(Vec{0, 0}, 1), circleArc(Vec{3, 0}, 2), []Vec{{1, 0}}, nil},
		{"circles touch inside", circleArc(Vec{0, 0}, 3), circleArc(Vec{1, 0}, 2), []Vec{{3, 0}}, nil},
		{"circles apart", circleArc(Vec{0, 0}, 1), circleArc(Vec{5, 0}, 1), nil, nil},
		{"circle inside circle", circleArc(Vec{0, 0}, 5), circleArc(Vec{1, 0}, 1), nil, nil},
		{"concentric", circleArc(Vec{0, 0}, 5), circleArc(Vec{0, 0}, 1), nil, nil},
		{"same circle", circleArc(Vec{0, 0}, 1), circleArc(Vec{0, 0}, 1), nil, ErrOverlap},
		{"arcs: one crossing in both sweeps", degArc(Vec{0, 0}, 1, 0, 180), degArc(Vec{1, 0}, 1, 0, 180), []Vec{{0.5, s3}}, nil},
		{"arcs: crossings outside a sweep", degArc(Vec{0, 0}, 1, 180, 360), degArc(Vec{1, 0}, 1, 0, 180), nil, nil},
		{"same circle, arcs share an end", degArc(Vec{}, 1, 0, 90), degArc(Vec{}, 1, 90, 180), []Vec{{0, 1}}, nil},
		{"same circle, complementary arcs", degArc(Vec{}, 1, 0, 180), degArc(Vec{}, 1, 180, 0), []Vec{{1, 0}, {-1, 0}}, nil},
		{"same circle, overlapping arcs", degArc(Vec{}, 1, 0, 90), degArc(Vec{}, 1, 45, 135), nil, ErrOverlap},
		{"same circle, disjoint arcs", degArc(Vec{}, 1, 0, 45), degArc(Vec{}, 1, 90, 135), nil, nil},
		{"line through ellipse", Segment{Vec{-3, 0}, Vec{3, 0}}, EllipseArc{Major: Vec{2, 0}, Ratio: 0.5, Sweep: 2 * math.Pi}, []Vec{{-2, 0}, {2, 0}}, nil},
		{"line through rotated ellipse", Segment{Vec{0, -3}, Vec{0, 3}}, EllipseArc{Major: Vec{0, 2}, Ratio: 0.5, Sweep: 2 * math.Pi}, []Vec{{0, -2}, {0, 2}}, nil},
		{"line through half ellipse", Segment{Vec{0, -3}, Vec{0, 3}}, EllipseArc{Major: Vec{2, 0}, Ratio: 0.5, Start: 0, Sweep: math.Pi}, []Vec{{0, 1}}, nil},
		{"ellipse and circle touch", EllipseArc{Major: Vec{2, 0}, Ratio: 0.5, Sweep: 2 * math.Pi}, circleArc(Vec{}, 1), []Vec{{0, 1}, {0, -1}}, nil},
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
			// Symmetric.
			back, err := Intersect(tt.q, tt.p)
			if !errors.Is(err, tt.err) || !SameVecs(back, tt.want) {
				t.Errorf("intersect reversed = %v, %v; want %v", back, err, tt.want)
			}
		})
	}
}

func TestTangentPoints(t *testing.T) {
	s3 := math.Sqrt(3) / 2
	tests := []struct {
		name string
		p    Vec
		want []Vec
	}{
		{"outside", Vec{2, 0}, []Vec{{0.5, s3}, {0.5, -s3}}},
		{"on the circle", Vec{0, 1}, []Vec{{0, 1}}},
		{"inside", Vec{0.5, 0}, nil},
	}
	for _, tt := range tests {
		got := TangentPoints(Vec{}, 1, tt.p)
		if !SameVecs(got, tt.want) {
			t.Errorf("%s: tangentPoints = %v, want %v", tt.name, got, tt.want)
		}
		for _, q := range got {
			// The radius to a tangent point is perpendicular to the line.
			if d := q.Dot(tt.p.Sub(q)); math.Abs(d) > 1e-12 {
				t.Errorf("%s: radius · tangent = %g, want 0", tt.name, d)
			}
		}
	}
}

func TestBulges(t *testing.T) {
	// A semicircle from (0,0) to (2,0), bulge 1: counter-clockwise, so it
	// bows below the chord, through (1,-1).
	a := BulgeArc(Vec{0, 0}, Vec{2, 0}, 1)
	if !a.C.Same(Vec{1, 0}) || !Eq(a.R, 1) || !Eq(a.Sweep, math.Pi) || !a.At(a.Start+a.Sweep/2).Same(Vec{1, -1}) {
		t.Errorf("bulge 1 arc = %+v, want centre (1,0), radius 1, through (1,-1)", a)
	}
	b := BulgeArc(Vec{0, 0}, Vec{2, 0}, -1)
	if !b.At(b.Start+b.Sweep/2).Same(Vec{1, 1}) || !b.First().Same(Vec{0, 0}) || !b.Last().Same(Vec{2, 0}) {
		t.Errorf("bulge -1 arc = %+v, want through (1,1) from (0,0) to (2,0)", b)
	}
	// A quarter arc: bulge tan(22.5°).
	q := BulgeArc(Vec{1, 0}, Vec{0, 1}, math.Tan(math.Pi/8))
	if !q.C.Same(Vec{0, 0}) || !Eq(q.R, 1) || !Eq(q.Length(), math.Pi/2) {
		t.Errorf("quarter bulge arc = %+v, want centre origin, radius 1", q)
	}

	tests := []struct {
		name         string
		g            Polyline
		length, area float64
	}{
		{"circle of two bulges", Polyline{V: []Vertex{{P: Vec{-1, 0}, Bulge: 1}, {P: Vec{1, 0}, Bulge: 1}}, Closed: true}, 2 * math.Pi, math.Pi},
		{"square", Polyline{V: []Vertex{{P: Vec{0, 0}}, {P: Vec{1, 0}}, {P: Vec{1, 1}}, {P: Vec{0, 1}}}, Closed: true}, 4, 1},
		{"square, clockwise", Polyline{V: []Vertex{{P: Vec{0, 0}}, {P: Vec{0, 1}}, {P: Vec{1, 1}}, {P: Vec{1, 0}}}, Closed: true}, 4, 1},
		// Counter-clockwise square whose bottom edge bulges out (down).
		{"square with an outward semicircle", Polyline{V: []Vertex{{P: Vec{0, 0}, Bulge: 1}, {P: Vec{1, 0}}, {P: Vec{1, 1}}, {P: Vec{0, 1}}}, Closed: true}, 3 + math.Pi/2, 1 + math.Pi/8},
		// The same bulge bows inwards on a clockwise square.
		{"clockwise square with an inward semicircle", Polyline{V: []Vertex{{P: Vec{0, 1}}, {P: Vec{1, 1}}, {P: Vec{1, 0}, Bulge: 1}, {P: Vec{0, 0}}}, Closed: true}, 3 + math.Pi/2, 1 - math.Pi/8},
		{"open polyline ignores its last bulge", Polyline{V: []Vertex{{P: Vec{0, 0}}, {P: Vec{3, 4}, Bulge: 1}}, Closed: false}, 5, 0},
	}
	for _, tt := range tests {
		if got := tt.g.Length(); !Eq(got, tt.length) {
			t.Errorf("%s: length = %v, want %v", tt.name, got, tt.length)
		}
		if tt.g.Closed {
			if got := tt.g.Area(); !Eq(got, tt.area) {
				t.Errorf("%s: area = %v, want %v", tt.name, got, tt.area)
			}
		}
	}
}

func TestEllipseLength(t *testing.T) {
	// Perimeter of a=2, b=1 (reference value from the complete elliptic
	// integral).
	const want = 9.688448220547675
	if got := ellipsePerimeter(2, 1); math.Abs(got-want) > 1e-12 {
		t.Errorf("ellipsePerimeter(2, 1) = %.15g, want %.15g", got, want)
	}
	if got := ellipsePerimeter(3, 3); !Eq(got, 6*math.Pi) {
		t.Errorf("ellipsePerimeter(3, 3) = %v, want 6π", got)
	}
	e := EllipseArc{Major: Vec{0, 2}, Ratio: 0.5, Start: 0, Sweep: 2*math.Pi - 1e-12}
	if got := e.arcLength(0, 2*math.Pi); math.Abs(got-want) > 1e-9 {
		t.Errorf("integrated perimeter = %.15g, want %.15g", got, want)
	}
	quarter := EllipseArc{Major: Vec{2, 0}, Ratio: 0.5, Start: 0, Sweep: math.Pi / 2}
	if got := quarter.Length(); math.Abs(got-want/4) > 1e-9 {
		t.Errorf("quarter ellipse length = %.15g, want %.15g", got, want/4)
	}
	thin := EllipseArc{Major: Vec{1, 0}, Ratio: 1e-6, Sweep: math.Pi}
	if got := thin.arcLength(0, math.Pi); math.Abs(got-2) > 1e-6 {
		t.Errorf("half of a very thin ellipse = %v, want about 2", got)
	}
}

func TestOffsetPolyline(t *testing.T) {
	square := Polyline{V: []Vertex{{P: Vec{0, 0}}, {P: Vec{4, 0}}, {P: Vec{4, 4}}, {P: Vec{0, 4}}}, Closed: true}
	g, err := OffsetPolyline(square, 1) // counter-clockwise: left is inside
	if err != nil {
		t.Fatal(err)
	}
	want := []Vec{{1, 1}, {3, 1}, {3, 3}, {1, 3}}
	for i, v := range g.V {
		if !v.P.Same(want[i]) {
			t.Errorf("inward offset vertex %d = %v, want %v", i, v.P, want[i])
		}
	}
	g, err = OffsetPolyline(square, -1)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Area(); !Eq(got, 36) {
		t.Errorf("outward offset area = %v, want 36", got)
	}
	if _, err := OffsetPolyline(square, 2.5); err == nil {
		t.Error("offsetting a 4×4 square inwards by 2.5 succeeded, want failure")
	}
	open := Polyline{V: []Vertex{{P: Vec{0, 0}}, {P: Vec{2, 0}}, {P: Vec{2, 0}}, {P: Vec{2, 2}}}, Closed: false}
	g, err = OffsetPolyline(open, 1)
	if err != nil {
		t.Fatal(err)
	}
	want = []Vec{{0, 1}, {1, 1}, {1, 2}}
	for i, v := range g.V {
		if !v.P.Same(want[i]) {
			t.Errorf("open offset vertex %d = %v, want %v", i, v.P, want[i])
		}
	}
}

func TestNormDeg(t *testing.T) {
	for in, want := range map[float64]float64{0: 0, 360: 0, -90: 270, 725: 5, -1e-300: 0, 359.5: 359.5} {
		if got := NormDeg(in); got != want {
			t.Errorf("normDeg(%v) = %v, want %v", in, got, want)
		}
	}
}

func TestXformThen(t *testing.T) {
	p := Pt(3, -2)
	xs := []Xform{Translate(Pt(5, 1)), RotateAbout(Pt(1, 1), 30), ScaleAbout(Pt(-2, 0), 2.5), MirrorAbout(Pt(0, 1), Pt(2, 3)), MirrorAbout(Pt(1, 0), Pt(1, 5))}
	for i, x := range xs {
		for j, y := range xs {
			z := x.Then(y)
			if got, want := z.Point(p), y.Point(x.Point(p)); !got.SameIn(want, 10) {
				t.Errorf("(%d then %d).Point(%v) = %v, want %v", i, j, p, got, want)
			}
			for _, a := range []float64{0, 37, 200} {
				if got, want := z.Direction(a), y.Direction(x.Direction(a)); math.Abs(NormDeg(got-want+180)-180) > 1e-9 {
					t.Errorf("(%d then %d).Direction(%v) = %v, want %v", i, j, a, got, want)
				}
			}
		}
	}
}

func TestClipLine(t *testing.T) {
	b := Box{Min: Pt(0, 0), Max: Pt(10, 5), NonEmpty: true}
	for _, tc := range []struct {
		p, d Vec
		ray  bool
		want Segment
		ok   bool
	}{
		{Pt(-3, 2), Pt(1, 0), false, Segment{A: Pt(0, 2), B: Pt(10, 2)}, true},
		{Pt(-3, 2), Pt(1, 0), true, Segment{A: Pt(0, 2), B: Pt(10, 2)}, true},
		{Pt(5, 2), Pt(-1, 0), true, Segment{A: Pt(5, 2), B: Pt(0, 2)}, true},
		{Pt(0, 0), Pt(2, 1), false, Segment{A: Pt(0, 0), B: Pt(10, 5)}, true},
		{Pt(20, 2), Pt(1, 0), true, Segment{}, false},
		{Pt(3, 7), Pt(1, 0), false, Segment{}, false},
		{Pt(3, 3), Pt(0, 0), false, Segment{}, false},
	} {
		got, ok := ClipLine(tc.p, tc.d, tc.ray, b)
		if ok != tc.ok || ok && (!got.A.Same(tc.want.A) || !got.B.Same(tc.want.B)) {
			t.Errorf("ClipLine(%v, %v, ray %v) = %v, %v; want %v, %v", tc.p, tc.d, tc.ray, got, ok, tc.want, tc.ok)
		}
	}
}

// TestSameShortcut: Same's answer without the distance, for points apart
// in either coordinate, is the answer with it, on coordinates near the
// tolerance and at the edges of float64.
func TestSameShortcut(t *testing.T) {
	same := func(a, b Vec) bool { return a.Dist(b) <= Tol(1, math.Max(a.Mag(), b.Mag())) }
	rng := rand.New(rand.NewPCG(1, 2))
	special := []float64{0, math.Copysign(0, -1), 1, -1, 1e-9, 1.0000001e-9, 9.999999e-10, 1e300, -1e300, math.MaxFloat64,
		math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1), math.NaN(), 1e7, 1e7 + 1e-9, 1e7 + 2e-9, 0.1, 0.3}
	pick := func() float64 {
		if rng.IntN(3) == 0 {
			return special[rng.IntN(len(special))]
		}
		return math.Ldexp(rng.Float64()-0.5, rng.IntN(80)-40)
	}
	for range 200_000 {
		a := Vec{pick(), pick()}
		b := a
		switch rng.IntN(3) {
		case 0:
			b = Vec{pick(), pick()}
		case 1: // within a few tolerances
			d := Tol(1, a.Mag()) * (rng.Float64()*4 - 2)
			b = Vec{a.X + d, a.Y + d*rng.Float64()}
		default:
			b.X = math.Nextafter(b.X, math.Inf(rng.IntN(2)*2-1))
		}
		if got, want := a.Same(b), same(a, b); got != want {
			t.Fatalf("%v.Same(%v) = %v, want %v", a, b, got, want)
		}
	}
}
