package geom

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBulgedArea: closed polylines with bulges against the area of the
// same figure put together from rectangles and circles.
func TestBulgedArea(t *testing.T) {
	// A stadium 10 × 4 whose short sides are half circles of radius 2
	// (bulge 1 bows out), and the same rectangle with one half circle
	// bitten out of it (bulge -1 on a counter-clockwise outline bows in).
	stadium := func(o Vec, s, bulge float64) Polyline {
		return Polyline{Closed: true, V: []Vertex{
			{P: o.Add(Pt(0, 0).Mul(s))}, {P: o.Add(Pt(10, 0).Mul(s)), Bulge: 1},
			{P: o.Add(Pt(10, 4).Mul(s))}, {P: o.Add(Pt(0, 4).Mul(s)), Bulge: bulge},
		}}
	}
	for _, tc := range []struct {
		name  string
		at    Vec
		scale float64
		bulge float64
		want  float64 // for scale 1
	}{
		{"stadium", Pt(0, 0), 1, 1, 40 + 4*math.Pi},
		// One half circle out at the right end, one bitten in at the
		// left: they cancel.
		{"bite", Pt(0, 0), 1, -1, 40},
		{"stadium far away", Pt(3e6, -2e6), 1, 1, 40 + 4*math.Pi},
		{"small stadium", Pt(1, 1), 1e-3, 1, 40 + 4*math.Pi},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := stadium(tc.at, tc.scale, tc.bulge)
			want := tc.want * tc.scale * tc.scale
			if got := g.Area(); math.Abs(got-want) > 1e-9*want {
				t.Errorf("Area() = %.12g, want %.12g", got, want)
			}
			// The same outline reversed (clockwise) encloses the same.
			r := Polyline{Closed: true}
			n := len(g.V)
			for i := n - 1; i >= 0; i-- {
				// The bulge of the piece from i+1 back to i is the piece
				// i→i+1's, negated, held by vertex i+1.
				r.V = append(r.V, Vertex{P: g.V[(i+1)%n].P, Bulge: -g.V[i].Bulge})
			}
			if got := r.Area(); math.Abs(got-want) > 1e-9*want {
				t.Errorf("reversed: Area() = %.12g, want %.12g", got, want)
			}
		})
	}
}

// TestPolygonArea: polygons against their area in rectangles.
func TestPolygonArea(t *testing.T) {
	for _, tc := range []struct {
		name      string
		p         Polygon
		area, per float64
	}{
		{"room 5 × 4", Polygon{Pt(0, 0), Pt(5, 0), Pt(5, 4), Pt(0, 4)}, 20, 18},
		{"L, clockwise", Polygon{Pt(0, 0), Pt(0, 10), Pt(5, 10), Pt(5, 5), Pt(10, 5), Pt(10, 0)}, 75, 40},
		{"bow-tie", Polygon{Pt(0, 0), Pt(2, 2), Pt(2, 0), Pt(0, 2)}, 2, 4 + 4*math.Sqrt2},
		{"far away", Polygon{Pt(1e7, 1e7), Pt(1e7+5, 1e7), Pt(1e7+5, 1e7+4), Pt(1e7, 1e7+4)}, 20, 18},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.Area(); math.Abs(got-tc.area) > 1e-9*tc.area {
				t.Errorf("Area() = %.12g, want %g", got, tc.area)
			}
			if got := tc.p.Perimeter(); math.Abs(got-tc.per) > 1e-9*tc.per {
				t.Errorf("Perimeter() = %.12g, want %g", got, tc.per)
			}
		})
	}
}

// TestPolygonWhere: points on corners and sides, rays through corners
// and along horizontal sides, a concave notch, far from the origin.
func TestPolygonWhere(t *testing.T) {
	// A U: the notch from x 4 to 6 comes down from y 10 to y 4.
	u := Polygon{Pt(0, 0), Pt(10, 0), Pt(10, 10), Pt(6, 10), Pt(6, 4), Pt(4, 4), Pt(4, 10), Pt(0, 10)}
	diamond := Polygon{Pt(0, -1), Pt(1, 0), Pt(0, 1), Pt(-1, 0)}
	for _, tc := range []struct {
		name string
		p    Polygon
		q    Vec
		want Side
	}{
		{"inside", u, Pt(2, 2), Inside},
		{"in the notch", u, Pt(5, 7), Outside},
		{"below the notch", u, Pt(5, 2), Inside},
		{"in an arm", u, Pt(8, 7), Inside},
		{"on a corner", u, Pt(6, 4), OnEdge},
		{"on the first corner", u, Pt(0, 0), OnEdge},
		{"on the closing side", u, Pt(0, 5), OnEdge},
		{"on the notch's floor", u, Pt(5, 4), OnEdge},
		{"ray along the notch's floor, left of it", u, Pt(2, 4), Inside},
		{"ray along the top, left of the polygon", u, Pt(-1, 10), Outside},
		{"just outside", u, Pt(10+1e-6, 5), Outside},
		{"just inside", u, Pt(10-1e-6, 5), Inside},
		{"ray through a corner, inside", diamond, Pt(-0.5, 0), Inside},
		{"ray through a corner, outside", diamond, Pt(-2, 0), Outside},
		{"ray through two corners", diamond, Pt(0, 0), Inside},
		{"ray through the top corner", diamond, Pt(-3, 1), Outside},
		{"far away, inside", shift(u, Pt(5e6, 5e6)), Pt(5e6+5, 5e6+2), Inside},
		{"far away, in the notch", shift(u, Pt(5e6, 5e6)), Pt(5e6+5, 5e6+7), Outside},
		{"far away, on a side", shift(u, Pt(5e6, 5e6)), Pt(5e6+5, 5e6+4), OnEdge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.Where(tc.q); got != tc.want {
				t.Errorf("Where(%v) = %d, want %d", tc.q, got, tc.want)
			}
		})
	}
}

func shift(p Polygon, d Vec) Polygon {
	out := make(Polygon, len(p))
	for i, q := range p {
		out[i] = q.Add(d)
	}
	return out
}

// TestPolygonSelects: which curves a window polygon encloses and which
// a crossing one touches, checked against the curve sampled densely.
func TestPolygonSelects(t *testing.T) {
	u := Polygon{Pt(0, 0), Pt(10, 0), Pt(10, 10), Pt(6, 10), Pt(6, 4), Pt(4, 4), Pt(4, 10), Pt(0, 10)}
	for _, tc := range []struct {
		name              string
		prim              any
		encloses, touches bool
	}{
		{"segment in an arm", Segment{Pt(1, 1), Pt(3, 9)}, true, true},
		{"segment across the notch", Segment{Pt(2, 8), Pt(8, 8)}, false, true},
		{"segment under the notch", Segment{Pt(2, 3), Pt(8, 3)}, true, true},
		{"segment along the notch's floor", Segment{Pt(4, 4), Pt(6, 4)}, true, true},
		{"segment along the bottom, longer", Segment{Pt(-1, 0), Pt(11, 0)}, false, true},
		{"segment in the notch", Segment{Pt(4.5, 5), Pt(5.5, 9)}, false, false},
		{"segment outside", Segment{Pt(11, 0), Pt(11, 10)}, false, false},
		{"segment touching a corner from outside", Segment{Pt(6, 11), Pt(6, 10)}, false, true},
		{"circle in the base", Arc{C: Pt(5, 2), R: 1.5, Sweep: 2 * math.Pi}, true, true},
		{"circle bulging into the notch", Arc{C: Pt(5, 3), R: 1.5, Sweep: 2 * math.Pi}, false, true},
		{"circle around it all", Arc{C: Pt(5, 5), R: 20, Sweep: 2 * math.Pi}, false, false},
		{"circle in the notch", Arc{C: Pt(5, 7), R: 0.5, Sweep: 2 * math.Pi}, false, false},
		// Ends inside the base, the middle up in the notch.
		{"arc bowing into the notch", Arc{C: Pt(5, 2), R: 3, Start: math.Pi / 6, Sweep: 2 * math.Pi / 3}, false, true},
		{"arc below the notch", Arc{C: Pt(5, 3), R: 2.5, Start: math.Pi + math.Pi/6, Sweep: 2 * math.Pi / 3}, true, true},
		{"ellipse in an arm", EllipseArc{C: Pt(2, 5), Major: Pt(0, 4), Ratio: 0.25, Sweep: 2 * math.Pi}, true, true},
		{"ellipse across the notch", EllipseArc{C: Pt(5, 7), Major: Pt(2, 0), Ratio: 0.5, Sweep: 2 * math.Pi}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := u.Encloses(tc.prim); got != tc.encloses {
				t.Errorf("Encloses = %v, want %v", got, tc.encloses)
			}
			if got := u.Touches(tc.prim); got != tc.touches {
				t.Errorf("Touches = %v, want %v", got, tc.touches)
			}
			// The independent construction: sample the curve.
			in, out := 0, 0
			for i := 0; i <= 4000; i++ {
				q, _ := primAt(tc.prim, float64(i)/4000)
				if u.Where(q) == Outside {
					out++
				} else {
					in++
				}
			}
			if (out == 0) != tc.encloses || (in > 0) != tc.touches {
				t.Errorf("sampled: %d points in or on, %d out; the case's expectations disagree", in, out)
			}
		})
	}
}

// TestPolygonWhereWinding: random star-shaped polygons of 3 to 40
// corners, from 1e-3 to 1e6 in size and placed up to 1e6 from the
// origin, against the winding number as the sum of the angles the sides
// turn through seen from the point (an independent construction: no
// rays, no crossings). Points within a thousandth of the size of a side
// are left out: there the two may differ by rounding.
func TestPolygonWhereWinding(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 37))
	for range 300 {
		size := math.Pow(10, -3+9*r.Float64())
		at := Pt((2*r.Float64()-1)*1e6, (2*r.Float64()-1)*1e6)
		n := 3 + r.IntN(38)
		p := make(Polygon, n)
		for i := range p {
			a := 2 * math.Pi * (float64(i) + 0.8*r.Float64()) / float64(n)
			rad := size * (0.2 + 0.8*r.Float64())
			p[i] = at.Add(Pt(rad*math.Cos(a), rad*math.Sin(a)))
		}
		for range 50 {
			q := at.Add(Pt((2*r.Float64()-1)*size, (2*r.Float64()-1)*size))
			near := false
			for _, e := range p.Edges() {
				if c, _ := e.Closest(q); c.Dist(q) < 1e-3*size {
					near = true
				}
			}
			if near {
				continue
			}
			turn := 0.0
			for i := range p {
				u, v := p[i].Sub(q), p[(i+1)%n].Sub(q)
				turn += math.Atan2(u.cross(v), u.Dot(v))
			}
			want := Outside
			if math.Abs(turn) > math.Pi { // ±2π inside, 0 outside
				want = Inside
			}
			if got := p.Where(q); got != want {
				t.Fatalf("polygon %v: Where(%v) = %d, winding angle %g: want %d", p, q, got, turn, want)
			}
		}
	}
}
