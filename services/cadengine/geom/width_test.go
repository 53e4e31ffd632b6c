package geom

import (
	"math"
	"testing"
)

func TestBandsStraight(t *testing.T) {
	for _, tc := range []struct {
		name  string
		g     Polyline
		w     []Width
		want  []Vec
		area  float64
		bands int
	}{{
		name: "a piece 2 wide is a rectangle",
		g:    Polyline{V: []Vertex{{P: Pt(0, 0)}, {P: Pt(10, 0)}}},
		w:    []Width{{2, 2}, {}},
		want: []Vec{Pt(0, -1), Pt(10, -1), Pt(10, 1), Pt(0, 1)},
		area: 20,
	}, {
		name: "a tapered piece is a trapezoid",
		g:    Polyline{V: []Vertex{{P: Pt(0, 0)}, {P: Pt(10, 0)}}},
		w:    []Width{{2, 1}, {}},
		want: []Vec{Pt(0, -1), Pt(10, -0.5), Pt(10, 0.5), Pt(0, 1)},
		area: 15,
	}, {
		name: "a piece drawn backwards runs counter-clockwise too",
		g:    Polyline{V: []Vertex{{P: Pt(10, 0)}, {P: Pt(0, 0)}}},
		w:    []Width{{2, 2}, {}},
		want: []Vec{Pt(10, 1), Pt(0, 1), Pt(0, -1), Pt(10, -1)},
		area: 20,
	}, {
		name: "a corner is mitred",
		g:    Polyline{V: []Vertex{{P: Pt(0, 0)}, {P: Pt(10, 0)}, {P: Pt(10, 10)}}},
		w:    []Width{{2, 2}, {2, 2}, {}},
		want: []Vec{Pt(0, -1), Pt(11, -1), Pt(11, 10), Pt(9, 10), Pt(9, 1), Pt(0, 1)},
		area: 40,
	}, {
		name: "nearly straight on keeps each piece's corners",
		g:    Polyline{V: []Vertex{{P: Pt(0, 0)}, {P: Pt(10, 0)}, {P: Pt(20, 0.1)}}},
		w:    []Width{{2, 2}, {2, 2}, {}},
		want: []Vec{
			Pt(0, -1), Pt(10, -1), Pt(10+0.1/math.Hypot(10, 0.1), 0-10/math.Hypot(10, 0.1)), Pt(20+0.1/math.Hypot(10, 0.1), 0.1-10/math.Hypot(10, 0.1)),
			Pt(20-0.1/math.Hypot(10, 0.1), 0.1+10/math.Hypot(10, 0.1)), Pt(10-0.1/math.Hypot(10, 0.1), 10/math.Hypot(10, 0.1)), Pt(10, 1), Pt(0, 1),
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.g.Bands(tc.w, 1e-6)
			if len(got) != 1 {
				t.Fatalf("Bands = %d outlines, want 1", len(got))
			}
			if !sameInOrder(got[0], tc.want) {
				t.Errorf("Bands = %v, want %v", got[0], tc.want)
			}
			if tc.area != 0 && !Eq(polygonArea(got[0]), tc.area) {
				t.Errorf("area = %v, want %v", polygonArea(got[0]), tc.area)
			}
		})
	}
}

// A piece that turns back along the last (within rounding) keeps its
// own corners: the sides' lines, parallel, cross nowhere.
func TestBandsTurnBack(t *testing.T) {
	g := Polyline{V: []Vertex{{P: Pt(0, 0)}, {P: Pt(10, 0)}, {P: Pt(0, 1e-15)}}}
	got := g.Bands([]Width{{2, 2}, {2, 2}, {}}, 1e-6)
	if len(got) != 1 {
		t.Fatalf("Bands = %d outlines, want 1", len(got))
	}
	for _, p := range got[0] {
		if p.Mag() > 11 {
			t.Errorf("Bands = %v, with %v far from the polyline", got[0], p)
		}
	}
}

func TestBandsClosed(t *testing.T) {
	sq := Polyline{V: []Vertex{{P: Pt(0, 0)}, {P: Pt(10, 0)}, {P: Pt(10, 10)}, {P: Pt(0, 10)}}, Closed: true}
	w := []Width{{2, 2}, {2, 2}, {2, 2}, {2, 2}}
	got := sq.Bands(w, 1e-6)
	if len(got) != 1 {
		t.Fatalf("Bands = %d outlines, want 1", len(got))
	}
	// A ring from -1 to 11 around a hole from 1 to 9, all corners mitred.
	if a := polygonArea(got[0]); !Eq(a, 12*12-8*8) {
		t.Errorf("area = %v, want %v", a, 12*12-8*8)
	}
	want := []Vec{Pt(-1, -1), Pt(11, -1), Pt(11, 11), Pt(-1, 11), Pt(1, 1), Pt(9, 1), Pt(9, 9), Pt(1, 9)}
	for _, p := range want {
		found := false
		for _, q := range got[0] {
			found = found || q.Same(p)
		}
		if !found {
			t.Errorf("Bands = %v, without corner %v", got[0], p)
		}
	}
}

func TestBandsArc(t *testing.T) {
	const tol = 1e-4
	// The upper half of the circle of radius 10 about the origin, both ways.
	ccw := Polyline{V: []Vertex{{P: Pt(10, 0), Bulge: 1}, {P: Pt(-10, 0)}}}
	cw := Polyline{V: []Vertex{{P: Pt(-10, 0), Bulge: -1}, {P: Pt(10, 0)}}}
	for _, tc := range []struct {
		name string
		g    Polyline
		w    Width
		// half width at the piece's start and end
		start, end Vec
		hs, he     float64
	}{
		{"constant, counter-clockwise", ccw, Width{2, 2}, Pt(10, 0), Pt(-10, 0), 1, 1},
		{"tapered, counter-clockwise", ccw, Width{2, 0.5}, Pt(10, 0), Pt(-10, 0), 1, 0.25},
		{"tapered, clockwise", cw, Width{2, 0.5}, Pt(-10, 0), Pt(10, 0), 1, 0.25},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.g.Bands([]Width{tc.w, {}}, tol)
			if len(got) != 1 {
				t.Fatalf("Bands = %d outlines, want 1", len(got))
			}
			band := got[0]
			maxHalf := math.Max(tc.hs, tc.he)
			for _, p := range band {
				if r := p.Len(); r < 10-maxHalf-1e-9 || r > 10+maxHalf+1e-9 || p.Y < -1e-9 {
					t.Fatalf("Bands has %v at %v from the centre, want within %v of 10 and above y = 0", p, r, maxHalf)
				}
			}
			// The ends are square to the arc, as wide as the widths say.
			for _, end := range []struct {
				at   Vec
				half float64
			}{{tc.start, tc.hs}, {tc.end, tc.he}} {
				out, in := end.at.Mul((10+end.half)/10), end.at.Mul((10-end.half)/10)
				if !hasPoint(band, out) || !hasPoint(band, in) {
					t.Errorf("Bands = %v, without the end corners %v and %v", band, out, in)
				}
			}
			// Everywhere the width is in proportion to the arc run so far.
			for _, p := range band {
				f := math.Atan2(p.Y, p.X) / math.Pi
				if tc.start.X < 0 {
					f = 1 - f
				}
				if want := tc.hs + (tc.he-tc.hs)*f; math.Abs(math.Abs(p.Len()-10)-want) > 1e-9 {
					t.Errorf("Bands has %v, %v from the arc, want %v", p, math.Abs(p.Len()-10), want)
				}
			}
			if a, want := polygonArea(band), math.Pi/2*((10+tc.hs)*(10+tc.he)-(10-tc.hs)*(10-tc.he)); a <= 0 || math.Abs(a-want) > 1e-3*want {
				t.Errorf("area = %v, want %v", a, want)
			}
		})
	}
}

func TestBandsMixed(t *testing.T) {
	// A straight piece, a bulged one, a straight one without width.
	g := Polyline{V: []Vertex{{P: Pt(0, 0)}, {P: Pt(10, 0), Bulge: 0.5}, {P: Pt(20, 0)}, {P: Pt(30, 0)}}}
	got := g.Bands([]Width{{1, 1}, {1, 1}, {}, {}}, 1e-4)
	if len(got) != 2 {
		t.Fatalf("Bands = %d outlines, want 2 (the straight piece, the bulged one)", len(got))
	}
	for i, b := range got {
		if polygonArea(b) <= 0 {
			t.Errorf("outline %d runs clockwise (area %v)", i, polygonArea(b))
		}
		for _, p := range b {
			if p.X > 20.5 { // the bulged piece's end is square to its arc
				t.Errorf("outline %d reaches %v, beyond the piece without width", i, p)
			}
		}
	}
	if got := (Polyline{V: g.V}).Bands(make([]Width, 4), 1e-4); len(got) != 0 {
		t.Errorf("Bands without widths = %v, want none", got)
	}
}

func sameInOrder(got, want []Vec) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !got[i].Same(want[i]) {
			return false
		}
	}
	return true
}

func hasPoint(ps []Vec, p Vec) bool {
	for _, q := range ps {
		if q.Dist(p) < 1e-6 {
			return true
		}
	}
	return false
}
