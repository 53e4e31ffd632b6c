package geom

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// The oracle: random figures at sizes from 1e-6 to 1e7, placed anywhere
// up to 1e7 from the origin, each compared with exact rational arithmetic
// (math/big) or 256-bit floating point. A figure's tolerance is the
// engine's own (see Tol): by its size, with the rounding floor of where
// it sits.

const oracleCases = 400

// oracleFigure is a random size and placement: anywhere up to 1e7 from
// the origin, but no further than 1e8 times the figure's size (a
// micrometre at 1e7 is a few units in the last place of its coordinates).
func oracleFigure(r *rand.Rand) (size float64, at Vec) {
	size = math.Pow(10, -6+13*r.Float64())
	place := 0.0
	if r.IntN(2) == 0 {
		place = math.Min(math.Pow(10, 7*r.Float64()), size*1e8)
	}
	return size, Pt(place*(2*r.Float64()-1), place*(2*r.Float64()-1))
}

func oracleTol(size float64, at Vec) float64 { return 4 * Tol(size*1e-3, at.Mag()+size) }

func ratOf(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }

// exactSegments intersects two segments in rationals: the point, or false
// when they do not meet (or are parallel).
func exactSegments(s, t Segment) (Vec, bool) {
	ax, ay, bx, by := ratOf(s.A.X), ratOf(s.A.Y), ratOf(s.B.X), ratOf(s.B.Y)
	cx, cy, dx, dy := ratOf(t.A.X), ratOf(t.A.Y), ratOf(t.B.X), ratOf(t.B.Y)
	sub := func(a, b *big.Rat) *big.Rat { return new(big.Rat).Sub(a, b) }
	mul := func(a, b *big.Rat) *big.Rat { return new(big.Rat).Mul(a, b) }
	d1x, d1y, d2x, d2y := sub(bx, ax), sub(by, ay), sub(dx, cx), sub(dy, cy)
	den := sub(mul(d1x, d2y), mul(d1y, d2x))
	if den.Sign() == 0 {
		return Vec{}, false
	}
	wx, wy := sub(cx, ax), sub(cy, ay)
	u := new(big.Rat).Quo(sub(mul(wx, d2y), mul(wy, d2x)), den)
	v := new(big.Rat).Quo(sub(mul(wx, d1y), mul(wy, d1x)), den)
	zero, one := new(big.Rat), big.NewRat(1, 1)
	if u.Cmp(zero) < 0 || u.Cmp(one) > 0 || v.Cmp(zero) < 0 || v.Cmp(one) > 0 {
		return Vec{}, false
	}
	x, _ := new(big.Rat).Add(ax, mul(u, d1x)).Float64()
	y, _ := new(big.Rat).Add(ay, mul(u, d1y)).Float64()
	return Pt(x, y), true
}

// exactShoelace is twice the signed area of a polygon, in rationals.
func exactShoelace(ps []Vec) *big.Rat {
	sum := new(big.Rat)
	for i := range ps {
		a, b := ps[i], ps[(i+1)%len(ps)]
		sum.Add(sum, new(big.Rat).Sub(new(big.Rat).Mul(ratOf(a.X), ratOf(b.Y)), new(big.Rat).Mul(ratOf(b.X), ratOf(a.Y))))
	}
	return sum
}

func TestOracleSegments(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	agree := 0
	for k := 0; k < oracleCases; k++ {
		size, at := oracleFigure(r)
		p := func() Vec { return at.Add(Pt(size*r.Float64(), size*r.Float64())) }
		s, u := Segment{p(), p()}, Segment{p(), p()}
		want, meets := exactSegments(s, u)
		got, err := Intersect(s, u)
		if err != nil {
			t.Fatalf("case %d: Intersect(%v, %v) = %v", k, s, u, err)
		}
		tol := oracleTol(size, at)
		switch {
		case meets && len(got) == 1 && got[0].Dist(want) <= tol:
			agree++
		case !meets && len(got) == 0:
			agree++
		case nearSegmentEnd(s, u, tol) || nearSegmentEnd(u, s, tol):
			agree++ // an end within tolerance of the other segment: either answer is right
		default:
			t.Errorf("case %d (size %g at %v): Intersect(%v, %v) = %v, exact %v (meets %v)", k, size, at, s, u, got, want, meets)
		}
	}
	t.Logf("segments: %d of %d agree", agree, oracleCases)
}

func nearSegmentEnd(s, u Segment, tol float64) bool {
	for _, p := range []Vec{s.A, s.B} {
		if q, _ := u.Closest(p); q.Dist(p) <= tol {
			return true
		}
	}
	return false
}

func TestOracleSegmentCircle(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	skipped := 0
	defer func() {
		t.Logf("segment-circle: %d cases, %d tangent within rounding and left out", oracleCases, skipped)
	}()
	for k := 0; k < oracleCases; k++ {
		size, at := oracleFigure(r)
		c := at.Add(Pt(size*r.Float64(), size*r.Float64()))
		rad := size * (0.01 + r.Float64())
		p := func() Vec { return c.Add(Pt(2*rad*(2*r.Float64()-1), 2*rad*(2*r.Float64()-1))) }
		s := Segment{p(), p()}
		d := s.B.Sub(s.A)
		h := math.Abs(d.cross(c.Sub(s.A))) / d.Len()
		if math.Abs(h-rad) <= 1e-6*rad {
			skipped++
			continue // tangent within what floating point can tell
		}
		var want []Vec
		for _, q := range exactLineCircle(s, c, rad) {
			if cq, _ := s.Closest(q); cq.Dist(q) <= oracleTol(rad, at) {
				want = append(want, q)
			}
		}
		got, err := Intersect(s, Arc{C: c, R: rad, Sweep: 2 * math.Pi})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			// An end on the circle: either count is right.
			if math.Abs(s.A.Dist(c)-rad) > oracleTol(rad, at) && math.Abs(s.B.Dist(c)-rad) > oracleTol(rad, at) {
				t.Errorf("case %d (size %g at %v): %d intersections, exact %d: %v vs %v", k, size, at, len(got), len(want), got, want)
			}
			continue
		}
		for _, w := range want {
			best := math.Inf(1)
			for _, g := range got {
				best = math.Min(best, g.Dist(w))
			}
			if best > oracleTol(rad, at) {
				t.Errorf("case %d (size %g at %v): exact point %v is %g from the nearest found %v", k, size, at, w, best, got)
			}
		}
	}
}

func TestOracleAreas(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for k := 0; k < oracleCases; k++ {
		size, at := oracleFigure(r)
		ps := make([]Vec, 4)
		for i := range ps {
			ps[i] = at.Add(Pt(size*r.Float64(), size*r.Float64()))
		}
		g := Polyline{Closed: true}
		for _, p := range ps {
			g.V = append(g.V, Vertex{P: p})
		}
		// Exact: a quadrilateral whose opposite sides cross is a bow-tie
		// of two triangles at the crossing.
		var want float64
		if x, ok := exactSegments(Segment{ps[0], ps[1]}, Segment{ps[2], ps[3]}); ok {
			want = triArea(x, ps[1], ps[2]) + triArea(x, ps[3], ps[0])
		} else if x, ok := exactSegments(Segment{ps[1], ps[2]}, Segment{ps[3], ps[0]}); ok {
			want = triArea(ps[0], ps[1], x) + triArea(x, ps[2], ps[3])
		} else {
			w, _ := exactShoelace(ps).Float64()
			want = math.Abs(w) / 2
		}
		got := g.Area()
		if math.Abs(got-want) > 1e-6*size*size+4*size*RoundingFloor(at.Mag()+size) {
			t.Errorf("case %d (size %g at %v): Area(%v) = %v, exact %v", k, size, at, ps, got, want)
		}
	}
}

// triArea is the area of a triangle, exactly from its float corners.
func triArea(a, b, c Vec) float64 {
	w, _ := exactShoelace([]Vec{a, b, c}).Float64()
	return math.Abs(w) / 2
}

// TestOracleOffsets offsets random rectangles and dumbbells (two rooms
// joined by a neck) at every scale: each vertex of the result is at the
// distance from the original, and a neck narrower than twice the distance
// splits the offset into the two rooms, each of the exact area.
func TestOracleOffsets(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for k := 0; k < oracleCases; k++ {
		size, at := oracleFigure(r)
		w, h := size*(0.5+r.Float64()), size*(0.5+r.Float64())
		neck := math.Min(w, h) * (0.1 + 0.3*r.Float64())
		gap := w * (0.2 + r.Float64())
		y0, y1 := (h-neck)/2, (h+neck)/2
		pts := []Vec{{0, 0}, {w, 0}, {w, y0}, {w + gap, y0}, {w + gap, 0}, {2*w + gap, 0},
			{2*w + gap, h}, {w + gap, h}, {w + gap, y1}, {w, y1}, {w, h}, {0, h}}
		g := Polyline{Closed: true}
		for _, p := range pts {
			g.V = append(g.V, Vertex{P: at.Add(p)})
		}
		d := neck/2 + (math.Min(w, h)/2-neck/2)*(0.1+0.8*r.Float64())
		pieces, err := OffsetPieces(g, d)
		if err != nil {
			t.Errorf("case %d (size %g at %v): OffsetPieces(dumbbell, %g) = %v", k, size, at, d, err)
			continue
		}
		if len(pieces) != 2 {
			t.Errorf("case %d (size %g at %v): OffsetPieces(dumbbell, %g) = %d pieces, want 2", k, size, at, d, len(pieces))
			continue
		}
		tol := oracleTol(size, at)
		want := (w - 2*d) * (h - 2*d)
		for i, p := range pieces {
			if a := p.Area(); math.Abs(a-want) > 1e-6*want+4*size*RoundingFloor(at.Mag()+size) {
				t.Errorf("case %d: piece %d area %v, want %v", k, i, a, want)
			}
			for _, v := range p.V {
				if dd := g.Distance(v.P); math.Abs(dd-d) > tol {
					t.Errorf("case %d: piece %d vertex %v is %v from the dumbbell, want %v", k, i, v.P, dd, d)
				}
			}
		}
		// Below half the neck: one piece, every vertex at the distance
		// or on a mitred corner.
		one, err := OffsetPieces(g, neck/2*(0.2+0.7*r.Float64()))
		if err != nil || len(one) != 1 || one[0].SelfIntersects() {
			t.Errorf("case %d: OffsetPieces(dumbbell, below half the neck) = %d pieces, %v", k, len(one), err)
		}
	}
}

// exactCircles intersects two circles in 256-bit floating point.
func exactCircles(c1 Vec, r1 float64, c2 Vec, r2 float64) []Vec {
	const prec = 256
	f := func(x float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(x) }
	op := func() *big.Float { return new(big.Float).SetPrec(prec) }
	dx, dy := op().Sub(f(c2.X), f(c1.X)), op().Sub(f(c2.Y), f(c1.Y))
	d2 := op().Add(op().Mul(dx, dx), op().Mul(dy, dy))
	// a = (d² + r1² − r2²) / (2d²) along the centre line, h² = r1²/d² − a².
	r1s, r2s := op().Mul(f(r1), f(r1)), op().Mul(f(r2), f(r2))
	a := op().Quo(op().Sub(op().Add(d2, r1s), r2s), op().Mul(f(2), d2))
	h2 := op().Sub(op().Quo(r1s, d2), op().Mul(a, a))
	if h2.Sign() < 0 {
		return nil
	}
	h := op().Sqrt(h2)
	mx, my := op().Add(f(c1.X), op().Mul(a, dx)), op().Add(f(c1.Y), op().Mul(a, dy))
	var out []Vec
	for _, s := range []float64{1, -1} {
		hs := op().Mul(h, f(s))
		x, _ := op().Sub(mx, op().Mul(hs, dy)).Float64()
		y, _ := op().Add(my, op().Mul(hs, dx)).Float64()
		out = append(out, Pt(x, y))
	}
	return out
}

func TestOracleCircles(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	skipped := 0
	defer func() { t.Logf("circles: %d cases, %d tangent within rounding and left out", oracleCases, skipped) }()
	for k := 0; k < oracleCases; k++ {
		size, at := oracleFigure(r)
		c1 := at.Add(Pt(size*r.Float64(), size*r.Float64()))
		c2 := at.Add(Pt(size*r.Float64(), size*r.Float64()))
		r1, r2 := size*(0.05+r.Float64()), size*(0.05+r.Float64())
		d := c1.Dist(c2)
		tol := oracleTol(math.Max(r1, r2), at)
		if math.Abs(d-(r1+r2)) <= 1e-6*size || math.Abs(d-math.Abs(r1-r2)) <= 1e-6*size || d <= tol {
			skipped++
			continue // tangent or concentric within what floating point can tell
		}
		want := exactCircles(c1, r1, c2, r2)
		got, err := Intersect(Arc{C: c1, R: r1, Sweep: 2 * math.Pi}, Arc{C: c2, R: r2, Sweep: 2 * math.Pi})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("case %d (size %g at %v): %d intersections, exact %d", k, size, at, len(got), len(want))
			continue
		}
		for _, w := range want {
			best := math.Inf(1)
			for _, g := range got {
				best = math.Min(best, g.Dist(w))
			}
			if best > tol {
				t.Errorf("case %d (size %g at %v): exact point %v is %g from the nearest found %v", k, size, at, w, best, got)
			}
		}
	}
}
