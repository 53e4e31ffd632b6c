package geom

import (
	"math"
	"math/big"
	"testing"
)

// The three places where an independent oracle (random cases against
// exact math and a well-known geometry library) disagreed with the engine.

// TestSurveyScaleIntersection: a drawing at national-grid coordinates. The
// line meets the circle in two points 3.0 mm apart; a tolerance scaled by
// the coordinates (4e6 × 1e-9 = 4 mm) merged them into one.
func TestSurveyScaleIntersection(t *testing.T) {
	s := Segment{Pt(-127778.47038126354, -4121950.6985063474), Pt(-127778.31738520652, -4121950.756666172)}
	c := Arc{C: Pt(-127778.41940293532, -4121950.7720430885), R: 0.05064624390285421, Sweep: 2 * math.Pi}
	got, err := Intersect(s, c)
	if err != nil {
		t.Fatal(err)
	}
	want := exactLineCircle(s, c.C, c.R)
	if len(got) != 2 || len(want) != 2 {
		t.Fatalf("Intersect(survey line, circle) = %d points %v, want 2 (exact: %v)", len(got), got, want)
	}
	if d := got[0].Dist(got[1]); math.Abs(d-0.0030) > 0.0001 {
		t.Errorf("the two points are %g apart, want 3.0 mm", d)
	}
	for i := range want {
		best := math.Min(got[0].Dist(want[i]), got[1].Dist(want[i]))
		if best > 1e-8 {
			t.Errorf("exact point %v is %g from the nearest found", want[i], best)
		}
	}
}

// TestBowTieArea: a self-intersecting closed polyline encloses the area of
// its two lobes, not their signed difference.
func TestBowTieArea(t *testing.T) {
	g := Polyline{Closed: true, V: []Vertex{
		{P: Pt(-1437.8130547602368, 2616.1315091421075)},
		{P: Pt(-399.47484838959986, 3368.7753736222794)},
		{P: Pt(-399.47484838959986, 2616.1315091421075)},
		{P: Pt(-1437.8130547602368, 3368.7753736222794)},
	}}
	if got := g.Area(); math.Abs(got-390749.44) > 0.01 {
		t.Errorf("Area(bow-tie) = %v, want 390749.44", got)
	}
	if !g.SelfIntersects() {
		t.Errorf("SelfIntersects(bow-tie) = false, want true")
	}
}

// TestOffsetThatSplits: an H-like closed concave polyline (two rooms
// joined by a neck 2 wide) offset inwards by more than half the neck
// comes apart into two rooms.
func TestOffsetThatSplits(t *testing.T) {
	g := Polyline{Closed: true, V: []Vertex{
		{P: Pt(0, 0)}, {P: Pt(10, 0)}, {P: Pt(10, 4)}, {P: Pt(14, 4)}, {P: Pt(14, 0)}, {P: Pt(24, 0)},
		{P: Pt(24, 10)}, {P: Pt(14, 10)}, {P: Pt(14, 6)}, {P: Pt(10, 6)}, {P: Pt(10, 10)}, {P: Pt(0, 10)},
	}}
	pieces, err := OffsetPieces(g, 1.5)
	if err != nil {
		t.Fatalf("OffsetPieces(H, 1.5) = %v", err)
	}
	if len(pieces) != 2 {
		t.Fatalf("OffsetPieces(H, 1.5) = %d pieces, want 2: %v", len(pieces), pieces)
	}
	for i, p := range pieces {
		if p.SelfIntersects() {
			t.Errorf("piece %d crosses itself: %v", i, p.V)
		}
		if a := p.Area(); math.Abs(a-7*7) > 1e-9 {
			t.Errorf("piece %d has area %v, want 49 (a 7 × 7 room)", i, a)
		}
		for _, v := range p.V {
			if d := g.Distance(v.P); math.Abs(d-1.5) > 1e-9 {
				t.Errorf("piece %d vertex %v is %v from the polyline, want 1.5", i, v.P, d)
			}
		}
	}
	// Below half the neck it stays one piece.
	if pieces, err := OffsetPieces(g, 0.5); err != nil || len(pieces) != 1 {
		t.Errorf("OffsetPieces(H, 0.5) = %d pieces, %v; want 1", len(pieces), err)
	}
	// OffsetPolyline, which returns one polyline, refuses rather than
	// cross itself.
	if _, err := OffsetPolyline(g, 1.5); err == nil {
		t.Errorf("OffsetPolyline(H, 1.5) = nil error, want ErrOffsetSplits")
	}
}

// exactLineCircle intersects the infinite line through s with a circle in
// 256-bit floating point.
func exactLineCircle(s Segment, c Vec, r float64) []Vec {
	const prec = 256
	f := func(x float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(x) }
	sub := func(a, b *big.Float) *big.Float { return new(big.Float).SetPrec(prec).Sub(a, b) }
	mul := func(a, b *big.Float) *big.Float { return new(big.Float).SetPrec(prec).Mul(a, b) }
	add := func(a, b *big.Float) *big.Float { return new(big.Float).SetPrec(prec).Add(a, b) }
	dx, dy := sub(f(s.B.X), f(s.A.X)), sub(f(s.B.Y), f(s.A.Y))
	wx, wy := sub(f(s.A.X), f(c.X)), sub(f(s.A.Y), f(c.Y))
	// |w + u d|² = r²: a u² + 2 b u + k = 0.
	a := add(mul(dx, dx), mul(dy, dy))
	b := add(mul(wx, dx), mul(wy, dy))
	k := sub(add(mul(wx, wx), mul(wy, wy)), mul(f(r), f(r)))
	disc := sub(mul(b, b), mul(a, k))
	if disc.Sign() < 0 {
		return nil
	}
	sq := new(big.Float).SetPrec(prec).Sqrt(disc)
	var out []Vec
	for _, u := range []*big.Float{sub(new(big.Float).Neg(b), sq), sub(sq, b)} {
		u.Quo(u, a)
		x, _ := add(f(s.A.X), mul(u, dx)).Float64()
		y, _ := add(f(s.A.Y), mul(u, dy)).Float64()
		out = append(out, Pt(x, y))
	}
	return out
}
