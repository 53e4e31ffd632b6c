package core

import (
	"math"
	"strings"
	"testing"
)

// roundedRect is a w × h rectangle from the origin with corners rounded
// to radius r, counter-clockwise (or clockwise, reversed).
func roundedRect(w, h, r float64, clockwise bool) polylineGeom {
	b := math.Tan(math.Pi / 8) // a quarter turn
	v := []vertex{
		{p: vec{r, 0}}, {p: vec{w - r, 0}, bulge: b}, {p: vec{w, r}}, {p: vec{w, h - r}, bulge: b},
		{p: vec{w - r, h}}, {p: vec{r, h}, bulge: b}, {p: vec{0, h - r}}, {p: vec{0, r}, bulge: b},
	}
	if clockwise {
		// Reversed: vertex i's bulge belongs to the piece ending at it.
		n := len(v)
		rev := make([]vertex, n)
		for i := range v {
			rev[i] = vertex{p: v[(n-i)%n].p, bulge: -v[(2*n-i-1)%n].bulge}
		}
		v = rev
	}
	return newPolylineGeom(v, true)
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
			if got, want := src.area(), area(w, h, r); !eq(got, want) {
				t.Fatalf("source area = %v, want %v", got, want)
			}
			g, err := offsetPolyline(src, tt.d)
			if err != nil {
				t.Fatalf("offsetPolyline(%v) = %v", tt.d, err)
			}
			pg := g.(polylineGeom)
			W, H, R := w+2*tt.grow, h+2*tt.grow, r+tt.grow
			if got, want := pg.area(), area(W, H, R); math.Abs(got-want) > 1e-9*want {
				t.Errorf("area = %v, want %v", got, want)
			}
			if got, want := pg.length(), perimeter(W, H, R); math.Abs(got-want) > 1e-9*want {
				t.Errorf("perimeter = %v, want %v", got, want)
			}
			if len(pg.v) != 8 || !pg.closed {
				t.Errorf("offset has %d vertices (closed %v), want the rectangle's 8", len(pg.v), pg.closed)
			}
			// Same shape: each vertex is the source's moved out by grow.
			for i, v := range pg.v {
				sv := src.v[i]
				want := sv.p
				switch {
				case sv.p.X == 0:
					want.X -= tt.grow
				case sv.p.X == w:
					want.X += tt.grow
				}
				switch {
				case sv.p.Y == 0:
					want.Y -= tt.grow
				case sv.p.Y == h:
					want.Y += tt.grow
				}
				if !v.p.same(want) || !eq(v.bulge, sv.bulge) {
					t.Errorf("vertex %d = %v bulge %v, want %v bulge %v", i, v.p, v.bulge, want, sv.bulge)
				}
			}
		})
	}
	for _, d := range []float64{1, 1.5} {
		_, err := offsetPolyline(roundedRect(w, h, r, false), d)
		if err == nil || !strings.Contains(err.Error(), "collapses the arc") {
			t.Errorf("offsetPolyline(rounded rectangle, %v inwards) = %v, want the arc to collapse", d, err)
		}
	}
}

// halfDisk is the closed polyline of the unit half disk above the x axis:
// the diameter from (-1, 0) to (1, 0), then the arc back over (0, 1).
var halfDisk = newPolylineGeom([]vertex{{p: vec{-1, 0}}, {p: vec{1, 0}, bulge: 1}}, true)

func TestOffsetHalfDisk(t *testing.T) {
	// Inwards, the diameter moves up by h and the arc's radius shrinks to
	// 1-h: the pieces cross, and the offset is the circular segment of
	// radius 1-h above the chord at height h.
	const h = 0.1
	g, err := offsetPolyline(halfDisk, h)
	if err != nil {
		t.Fatal(err)
	}
	pg := g.(polylineGeom)
	r := 1 - h
	segArea := r*r*math.Acos(h/r) - h*math.Sqrt(r*r-h*h)
	segLength := 2*math.Sqrt(r*r-h*h) + r*(math.Pi-2*math.Asin(h/r))
	if got := pg.area(); math.Abs(got-segArea) > 1e-12 {
		t.Errorf("inward offset area = %v, want %v", got, segArea)
	}
	if got := pg.length(); math.Abs(got-segLength) > 1e-12 {
		t.Errorf("inward offset perimeter = %v, want %v", got, segLength)
	}
	if x := math.Sqrt(r*r - h*h); len(pg.v) != 2 || !pg.v[0].p.same(vec{-x, h}) || !pg.v[1].p.same(vec{x, h}) {
		t.Errorf("inward offset vertices = %v, want (∓%v, %v)", pg.v, x, h)
	}

	// Outwards, the corners are convex and get round corners of radius
	// h: a convex shape grows by perimeter × h + πh² (Steiner).
	g, err = offsetPolyline(halfDisk, -h)
	if err != nil {
		t.Fatal(err)
	}
	pg = g.(polylineGeom)
	area, perim := math.Pi/2, 2+math.Pi
	if got, want := pg.area(), area+perim*h+math.Pi*h*h; math.Abs(got-want) > 1e-12 {
		t.Errorf("outward offset area = %v, want %v", got, want)
	}
	if got, want := pg.length(), perim+2*math.Pi*h; math.Abs(got-want) > 1e-12 {
		t.Errorf("outward offset perimeter = %v, want %v", got, want)
	}
	if len(pg.v) != 4 {
		t.Errorf("outward offset has %d vertices, want 4 (two round corners)", len(pg.v))
	}

	if _, err := offsetPolyline(halfDisk, 1); err == nil || !strings.Contains(err.Error(), "collapses") {
		t.Errorf("offsetting the half disk inwards by its radius = %v, want a collapse", err)
	}
	// A bulge arc so flat that it is eaten up before its radius ends.
	lens := newPolylineGeom([]vertex{{p: vec{0, 0}, bulge: 0.1}, {p: vec{1, 0}, bulge: 0.1}}, true)
	if _, err := offsetPolyline(lens, 0.2); err == nil {
		t.Error("offsetting a thin lens inwards by more than its thickness succeeded")
	}
}

func TestOffsetOpenPolylineWithArc(t *testing.T) {
	// A line, then a quarter arc turning left, then a line: offset to the
	// right (outside the turn) the arc grows and stays tangent.
	g := newPolylineGeom([]vertex{{p: vec{0, 0}}, {p: vec{2, 0}, bulge: math.Tan(math.Pi / 8)}, {p: vec{3, 1}}, {p: vec{3, 3}}}, false)
	off, err := offsetPolyline(g, -1)
	if err != nil {
		t.Fatal(err)
	}
	want := []vertex{{p: vec{0, -1}}, {p: vec{2, -1}, bulge: math.Tan(math.Pi / 8)}, {p: vec{4, 1}}, {p: vec{4, 3}}}
	pv := off.(polylineGeom).v
	if len(pv) != len(want) {
		t.Fatalf("offset = %v, want %v", pv, want)
	}
	for i := range want {
		if !pv[i].p.same(want[i].p) || !eq(pv[i].bulge, want[i].bulge) {
			t.Errorf("vertex %d = %v, want %v", i, pv[i], want[i])
		}
	}
	if got, want := off.(polylineGeom).length(), 2+math.Pi+2.0; !eq(got, want) {
		t.Errorf("offset length = %v, want %v", got, want)
	}
}

func TestOffsetEllipse(t *testing.T) {
	full, _ := newEllipseGeom(vec{1, 2}, vec{3, 4}, 0.4, 0, 360) // a = 5, b = 2
	a, b := 5.0, 2.0
	for _, d := range []float64{0.5, 3, -0.7} {
		g, err := offsetEllipse(full, d)
		if err != nil {
			t.Fatalf("offsetEllipse(%v) = %v", d, err)
		}
		pg := g.(polylineGeom)
		if !pg.closed {
			t.Errorf("offset of a full ellipse by %v is open", d)
		}
		// Every vertex, and the middle of every piece, lies |d| from the
		// ellipse within 1e-6 (Tolerance × 1000 at this size).
		ea := full.arc()
		for _, s := range pg.segments() {
			ar := bulgeArc(s.a, s.b, s.bulge)
			for _, p := range []vec{s.a, ar.at(ar.start + ar.sweep/2)} {
				if got := p.dist(ea.closest(p)); math.Abs(got-math.Abs(d)) > 1e-6*(a+math.Abs(d)) {
					t.Fatalf("offset by %v: point %v is %v from the ellipse", d, p, got)
				}
			}
		}
		// The offset of a convex closed curve by d has length L + 2πd and
		// area A + Ld + πd².
		L, A := ellipsePerimeter(a, b), math.Pi*a*b
		if got, want := pg.length(), L+2*math.Pi*d; math.Abs(got-want) > 1e-5 {
			t.Errorf("offset by %v: length %v, want %v", d, got, want)
		}
		if got, want := pg.area(), A+L*d+math.Pi*d*d; math.Abs(got-want) > 1e-5 {
			t.Errorf("offset by %v: area %v, want %v", d, got, want)
		}
	}
	// Inwards past the smallest radius of curvature, b²/a = 0.8.
	if _, err := offsetEllipse(full, -0.8); err == nil || !strings.Contains(err.Error(), "radius of curvature") {
		t.Errorf("offsetEllipse(-0.8) = %v, want the radius of curvature named", err)
	}
	// An arc away from the major axis ends has a larger smallest radius:
	// from 60° to 120° it is ρ(60°).
	arcG, _ := newEllipseGeom(vec{}, vec{5, 0}, 0.4, 60, 120)
	s, c := math.Sincos(math.Pi / 3)
	rho := math.Pow(a*a*s*s+b*b*c*c, 1.5) / (a * b)
	if got := arcG.arc().minCurvatureRadius(); !eq(got, rho) {
		t.Errorf("smallest radius of curvature on 60°-120° = %v, want %v", got, rho)
	}
	g, err := offsetEllipse(arcG, -1.5) // past b²/a, short of ρ(60°) ≈ 3.8
	if err != nil {
		t.Fatal(err)
	}
	pg := g.(polylineGeom)
	first, last := pg.v[0].p, pg.v[len(pg.v)-1].p
	want0 := vec{5 * c, 2 * s}.add(vec{2 * c, 5 * s}.unit().mul(-1.5)) // p(t) - 1.5·n(t)
	if pg.closed || !first.same(want0) || !last.same(vec{-want0.X, want0.Y}) {
		t.Errorf("offset arc runs %v to %v (closed %v), want %v to its mirror image", first, last, pg.closed, want0)
	}
}
