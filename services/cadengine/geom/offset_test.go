package geom

import (
	"math"
	"strings"
	"testing"
)

// roundedRect is a w × h rectangle from the origin with corners rounded
// to radius r, counter-clockwise (or clockwise, reversed).
func roundedRect(w, h, r float64, clockwise bool) Polyline {
	b := math.Tan(math.Pi / 8) // a quarter turn
	v := []Vertex{
		{P: Vec{r, 0}}, {P: Vec{w - r, 0}, Bulge: b}, {P: Vec{w, r}}, {P: Vec{w, h - r}, Bulge: b},
		{P: Vec{w - r, h}}, {P: Vec{r, h}, Bulge: b}, {P: Vec{0, h - r}}, {P: Vec{0, r}, Bulge: b},
	}
	if clockwise {
		// Reversed: vertex i's bulge belongs to the piece ending at it.
		n := len(v)
		rev := make([]Vertex, n)
		for i := range v {
			rev[i] = Vertex{P: v[(n-i)%n].P, Bulge: -v[(2*n-i-1)%n].Bulge}
		}
		v = rev
	}
	return Polyline{V: v, Closed: true}
}

func TestOffsetRoundedRectangle(t *testing.T) {
	const w, h, r = 10.0, 6.0, 1.0
	area := func(w, h, r float64) float64 { return w*h - (4-math.Pi)*r*r }
	perimeter := func(w, h, r float64) float64 { return 2*(w-2*r) + 2*(h-2*r) + 2*math.Pi*r }
	for _, tt := range []struct {
		name      string
		clockwise bool
		d         float64
		grow      float64 // how far the shape grows outwards
	}{
		{"counter-clockwise, outwards", false, -0.5, 0.5},
		{"counter-clockwise, inwards", false, 0.5, -0.5},
		{"counter-clockwise, far outwards", false, -7, 7},
		{"clockwise, left is outwards", true, 0.25, 0.25},
		{"clockwise, inwards", true, -0.75, -0.75},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := roundedRect(w, h, r, tt.clockwise)
			if got, want := src.Area(), area(w, h, r); !Eq(got, want) {
				t.Fatalf("source area = %v, want %v", got, want)
			}
			g, err := OffsetPolyline(src, tt.d)
			if err != nil {
				t.Fatalf("offsetPolyline(%v) = %v", tt.d, err)
			}
			pg := g
			W, H, R := w+2*tt.grow, h+2*tt.grow, r+tt.grow
			if got, want := pg.Area(), area(W, H, R); math.Abs(got-want) > 1e-9*want {
				t.Errorf("area = %v, want %v", got, want)
			}
			if got, want := pg.Length(), perimeter(W, H, R); math.Abs(got-want) > 1e-9*want {
				t.Errorf("perimeter = %v, want %v", got, want)
			}
			if len(pg.V) != 8 || !pg.Closed {
				t.Errorf("offset has %d vertices (closed %v), want the rectangle's 8", len(pg.V), pg.Closed)
			}
			// Same shape: each vertex is the source's moved out by grow.
			for i, v := range pg.V {
				sv := src.V[i]
				want := sv.P
				switch {
				case sv.P.X == 0:
					want.X -= tt.grow
				case sv.P.X == w:
					want.X += tt.grow
				}
				switch {
				case sv.P.Y == 0:
					want.Y -= tt.grow
				case sv.P.Y == h:
					want.Y += tt.grow
				}
				if !v.P.Same(want) || !Eq(v.Bulge, sv.Bulge) {
					t.Errorf("vertex %d = %v bulge %v, want %v bulge %v", i, v.P, v.Bulge, want, sv.Bulge)
				}
			}
		})
	}
	for _, d := range []float64{1, 1.5} {
		_, err := OffsetPolyline(roundedRect(w, h, r, false), d)
		if err == nil || !strings.Contains(err.Error(), "collapses the arc") {
			t.Errorf("offsetPolyline(rounded rectangle, %v inwards) = %v, want the arc to collapse", d, err)
		}
	}
}

// halfDisk is the closed polyline of the unit half disk above the x axis:
// the diameter from (-1, 0) to (1, 0), then the arc back over (0, 1).
var halfDisk = Polyline{V: []Vertex{{P: Vec{-1, 0}}, {P: Vec{1, 0}, Bulge: 1}}, Closed: true}

func TestOffsetHalfDisk(t *testing.T) {
	// Inwards, the diameter moves up by h and the arc's radius shrinks to
	// 1-h: the pieces cross, and the offset is the circular segment of
	// radius 1-h above the chord at height h.
	const h = 0.1
	g, err := OffsetPolyline(halfDisk, h)
	if err != nil {
		t.Fatal(err)
	}
	pg := g
	r := 1 - h
	segArea := r*r*math.Acos(h/r) - h*math.Sqrt(r*r-h*h)
	segLength := 2*math.Sqrt(r*r-h*h) + r*(math.Pi-2*math.Asin(h/r))
	if got := pg.Area(); math.Abs(got-segArea) > 1e-12 {
		t.Errorf("inward offset area = %v, want %v", got, segArea)
	}
	if got := pg.Length(); math.Abs(got-segLength) > 1e-12 {
		t.Errorf("inward offset perimeter = %v, want %v", got, segLength)
	}
	if x := math.Sqrt(r*r - h*h); len(pg.V) != 2 || !pg.V[0].P.Same(Vec{-x, h}) || !pg.V[1].P.Same(Vec{x, h}) {
		t.Errorf("inward offset vertices = %v, want (∓%v, %v)", pg.V, x, h)
	}

	// Outwards, the corners are convex and get round corners of radius
	// h: a convex shape grows by perimeter × h + πh² (Steiner).
	g, err = OffsetPolyline(halfDisk, -h)
	if err != nil {
		t.Fatal(err)
	}
	pg = g
	area, perim := math.Pi/2, 2+math.Pi
	if got, want := pg.Area(), area+perim*h+math.Pi*h*h; math.Abs(got-want) > 1e-12 {
		t.Errorf("outward offset area = %v, want %v", got, want)
	}
	if got, want := pg.Length(), perim+2*math.Pi*h; math.Abs(got-want) > 1e-12 {
		t.Errorf("outward offset perimeter = %v, want %v", got, want)
	}
	if len(pg.V) != 4 {
		t.Errorf("outward offset has %d vertices, want 4 (two round corners)", len(pg.V))
	}

	if _, err := OffsetPolyline(halfDisk, 1); err == nil || !strings.Contains(err.Error(), "collapses") {
		t.Errorf("offsetting the half disk inwards by its radius = %v, want a collapse", err)
	}
	// A bulge arc so flat that it is eaten up before its radius ends.
	lens := Polyline{V: []Vertex{{P: Vec{0, 0}, Bulge: 0.1}, {P: Vec{1, 0}, Bulge: 0.1}}, Closed: true}
	if _, err := OffsetPolyline(lens, 0.2); err == nil {
		t.Error("offsetting a thin lens inwards by more than its thickness succeeded")
	}
}

func TestOffsetOpenPolylineWithArc(t *testing.T) {
	// A line, then a quarter arc turning left, then a line: offset to the
	// right (outside the turn) the arc grows and stays tangent.
	g := Polyline{V: []Vertex{{P: Vec{0, 0}}, {P: Vec{2, 0}, Bulge: math.Tan(math.Pi / 8)}, {P: Vec{3, 1}}, {P: Vec{3, 3}}}, Closed: false}
	off, err := OffsetPolyline(g, -1)
	if err != nil {
		t.Fatal(err)
	}
	want := []Vertex{{P: Vec{0, -1}}, {P: Vec{2, -1}, Bulge: math.Tan(math.Pi / 8)}, {P: Vec{4, 1}}, {P: Vec{4, 3}}}
	pv := off.V
	if len(pv) != len(want) {
		t.Fatalf("offset = %v, want %v", pv, want)
	}
	for i := range want {
		if !pv[i].P.Same(want[i].P) || !Eq(pv[i].Bulge, want[i].Bulge) {
			t.Errorf("vertex %d = %v, want %v", i, pv[i], want[i])
		}
	}
	if got, want := off.Length(), 2+math.Pi+2.0; !Eq(got, want) {
		t.Errorf("offset length = %v, want %v", got, want)
	}
}

func TestOffsetEllipse(t *testing.T) {
	full := EllipseArc{C: Vec{1, 2}, Major: Vec{3, 4}, Ratio: 0.4, Sweep: 2 * math.Pi} // a = 5, b = 2
	a, b := 5.0, 2.0
	for _, d := range []float64{0.5, 3, -0.7} {
		g, err := OffsetEllipse(full, d)
		if err != nil {
			t.Fatalf("offsetEllipse(%v) = %v", d, err)
		}
		pg := g
		if !pg.Closed {
			t.Errorf("offset of a full ellipse by %v is open", d)
		}
		// Every vertex, and the middle of every piece, lies |d| from the
		// ellipse within 1e-6 (Tolerance × 1000 at this size).
		ea := full
		for _, s := range pg.Pieces() {
			ar := BulgeArc(s.A, s.B, s.Bulge)
			for _, p := range []Vec{s.A, ar.At(ar.Start + ar.Sweep/2)} {
				if got := p.Dist(ea.Closest(p)); math.Abs(got-math.Abs(d)) > 1e-6*(a+math.Abs(d)) {
					t.Fatalf("offset by %v: point %v is %v from the ellipse", d, p, got)
				}
			}
		}
		// The offset of a convex closed curve by d has length L + 2πd and
		// area A + Ld + πd².
		L, A := ellipsePerimeter(a, b), math.Pi*a*b
		if got, want := pg.Length(), L+2*math.Pi*d; math.Abs(got-want) > 1e-5 {
			t.Errorf("offset by %v: length %v, want %v", d, got, want)
		}
		if got, want := pg.Area(), A+L*d+math.Pi*d*d; math.Abs(got-want) > 1e-5 {
			t.Errorf("offset by %v: area %v, want %v", d, got, want)
		}
	}
	// Inwards past the smallest radius of curvature, b²/a = 0.8.
	if _, err := OffsetEllipse(full, -0.8); err == nil || !strings.Contains(err.Error(), "radius of curvature") {
		t.Errorf("offsetEllipse(-0.8) = %v, want the radius of curvature named", err)
	}
	// An arc away from the major axis ends has a larger smallest radius:
	// from 60° to 120° it is ρ(60°).
	arcG := EllipseArc{Major: Vec{5, 0}, Ratio: 0.4, Start: Rad(60), Sweep: Rad(60)}
	s, c := math.Sincos(math.Pi / 3)
	rho := math.Pow(a*a*s*s+b*b*c*c, 1.5) / (a * b)
	if got := arcG.minCurvatureRadius(); !Eq(got, rho) {
		t.Errorf("smallest radius of curvature on 60°-120° = %v, want %v", got, rho)
	}
	g, err := OffsetEllipse(arcG, -1.5) // past b²/a, short of ρ(60°) ≈ 3.8
	if err != nil {
		t.Fatal(err)
	}
	pg := g
	first, last := pg.V[0].P, pg.V[len(pg.V)-1].P
	want0 := Vec{5 * c, 2 * s}.Add(Vec{2 * c, 5 * s}.Unit().Mul(-1.5)) // p(t) - 1.5·n(t)
	if pg.Closed || !first.Same(want0) || !last.Same(Vec{-want0.X, want0.Y}) {
		t.Errorf("offset arc runs %v to %v (closed %v), want %v to its mirror image", first, last, pg.Closed, want0)
	}
}
