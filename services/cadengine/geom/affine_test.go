package geom

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomAffine is an affine map that scales unevenly, shears or reflects.
func randomAffine(rng *rand.Rand) Affine {
	for {
		m := Affine{A: rng.Float64()*4 - 2, B: rng.Float64()*4 - 2, C: rng.Float64()*20 - 10, D: rng.Float64()*4 - 2, E: rng.Float64()*4 - 2, F: rng.Float64()*20 - 10}
		if math.Abs(m.Det()) > 0.1 {
			return m
		}
	}
}

// TestConjugateEllipse maps circular and elliptical arcs by affine maps:
// every point of the image lies on the EllipseArc made of it, which runs
// between the images of the ends.
func TestConjugateEllipse(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 500 {
		m := randomAffine(rng)
		arc := EllipseArc{C: Pt(rng.Float64()*10, rng.Float64()*10), Major: Pt(rng.Float64()*6-3, rng.Float64()*6-3), Ratio: 0.2 + rng.Float64()*0.8,
			Start: rng.Float64() * 2 * math.Pi, Sweep: 0.1 + rng.Float64()*(2*math.Pi-0.1)}
		if i%2 == 0 {
			arc.Ratio = 1 // a circle
		}
		e := ConjugateEllipse(m.Point(arc.C), m.Linear(arc.Major), m.Linear(arc.minor()), arc.Start, arc.Sweep)
		size := e.Major.Len()
		for k := 0; k <= 20; k++ {
			q := m.Point(arc.At(arc.Start + arc.Sweep*float64(k)/20))
			if c := e.Closest(q); c.Dist(q) > 1e-9*size {
				t.Fatalf("case %d: image point %v is %g from the ellipse %+v", i, q, c.Dist(q), e)
			}
		}
		first, last := m.Point(arc.At(arc.Start)), m.Point(arc.At(arc.Start+arc.Sweep))
		if m.Det() < 0 {
			first, last = last, first
		}
		if e.At(e.Start).Dist(first) > 1e-9*size || e.At(e.Start+e.Sweep).Dist(last) > 1e-9*size || e.Ratio > 1 {
			t.Fatalf("case %d: the ellipse runs from %v to %v, want %v to %v (ratio %g)", i, e.At(e.Start), e.At(e.Start+e.Sweep), first, last, e.Ratio)
		}
	}
}

// TestPolylineSpline: a polyline of straight and bulged pieces as one
// rational quadratic spline passes through its vertices and lies on its
// pieces, and stays exact under an affine map.
func TestPolylineSpline(t *testing.T) {
	pl := Polyline{V: []Vertex{{P: Pt(0, 0)}, {P: Pt(10, 0), Bulge: 0.5}, {P: Pt(10, 6), Bulge: -1}, {P: Pt(4, 6), Bulge: 2}, {P: Pt(0, 2)}}, Closed: true}
	s, ok := pl.Spline()
	if !ok || s.Validate() != nil {
		t.Fatalf("Spline() = %v, %v: not a valid spline", s.Validate(), ok)
	}
	t0, t1 := s.Domain()
	if s.At(t0).Dist(Pt(0, 0)) > 1e-12 || s.At(t1).Dist(Pt(0, 0)) > 1e-12 {
		t.Errorf("the closed polyline's spline runs from %v to %v, want from and to (0, 0)", s.At(t0), s.At(t1))
	}
	for k, v := range pl.V {
		if s.At(float64(k)).Dist(v.P) > 1e-12 {
			t.Errorf("at knot %d the spline is at %v, want vertex %v", k, s.At(float64(k)), v.P)
		}
	}
	m := Affine{A: 2, B: 0.5, C: 3, D: -0.3, E: 0.7, F: -1}
	image := s.Affine(m)
	for _, p := range pl.Prims() {
		for k := 0; k <= 10; k++ {
			var q Vec
			switch p := p.(type) {
			case Segment:
				q = p.A.Add(p.B.Sub(p.A).Mul(float64(k) / 10))
			case Arc:
				q = p.At(p.Start + p.Sweep*float64(k)/10)
			}
			if _, c := image.Closest(m.Point(q)); c.Dist(m.Point(q)) > 1e-9 {
				t.Fatalf("the image of %v is %g from the mapped spline", q, c.Dist(m.Point(q)))
			}
		}
	}
}

// TestNearest: the similarity nearest an affine map takes the reference
// point where the map does, is exact for a map that is a similarity, and
// reflects when the map does.
func TestNearest(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		x := Similarity(Pt(rng.Float64()*10, rng.Float64()*10), 0.1+rng.Float64()*3, rng.Float64()*360, rng.IntN(2) == 1)
		m := x.Affine()
		ref := Pt(rng.Float64()*10, rng.Float64()*10)
		n := m.Nearest(ref)
		for _, p := range []Vec{ref, Pt(3, -4), Pt(-7, 2)} {
			if n.Point(p).Dist(x.Point(p)) > 1e-9 {
				t.Fatalf("Nearest of the similarity %+v moves %v to %v, want %v", x, p, n.Point(p), x.Point(p))
			}
		}
		u := randomAffine(rng)
		if v := u.Nearest(ref); v.Point(ref).Dist(u.Point(ref)) > 1e-9 || v.Mirror != (u.Det() < 0) {
			t.Fatalf("Nearest(%v) of %+v takes it to %v (mirror %v), want %v (mirror %v)", ref, u, v.Point(ref), v.Mirror, u.Point(ref), u.Det() < 0)
		}
	}
}
