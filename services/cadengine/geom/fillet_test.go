package geom

import (
	"errors"
	"math"
	"math/rand"
	"testing"
)

// distToLine is the distance from x to the infinite line through s,
// computed here from the triangle's area rather than by projection.
func distToLine(s Segment, x Vec) float64 {
	a, b, c := s.A.Dist(s.B), s.A.Dist(x), s.B.Dist(x)
	// Heron, in the numerically stable form (sides sorted).
	p := []float64{a, b, c}
	for i := 0; i < 3; i++ {
		for j := i + 1; j < 3; j++ {
			if p[j] > p[i] {
				p[i], p[j] = p[j], p[i]
			}
		}
	}
	x1, y1, z1 := p[0], p[1], p[2]
	area := math.Sqrt(math.Max(0, (x1+(y1+z1))*(z1-(x1-y1))*(z1+(x1-y1))*(x1+(y1-z1)))) / 4
	return 2 * area / a
}

func onSeg(s Segment, x Vec, tol float64) bool {
	return math.Abs(s.A.Dist(x)+x.Dist(s.B)-s.Length()) <= tol
}

func TestFilletLines(t *testing.T) {
	for _, base := range []Vec{{0, 0}, {500000, 4200000}} {
		for _, tc := range []struct {
			name         string
			s1, s2       Segment
			r            float64
			pick1, pick2 Vec
		}{
			{"square corner", Segment{Pt(0, 0), Pt(100, 0)}, Segment{Pt(100, 0), Pt(100, 60)}, 10, Pt(50, 0), Pt(100, 30)},
			{"lines short of the corner", Segment{Pt(0, 0), Pt(80, 0)}, Segment{Pt(100, 20), Pt(100, 60)}, 10, Pt(40, 0), Pt(100, 40)},
			{"crossing lines, picks choose the quadrant", Segment{Pt(-50, 0), Pt(50, 0)}, Segment{Pt(0, -50), Pt(0, 50)}, 5, Pt(-30, 0), Pt(0, -30)},
			{"acute corner", Segment{Pt(0, 0), Pt(100, 0)}, Segment{Pt(0, 0), Pt(100, 30)}, 3, Pt(60, 0), Pt(60, 18)},
			{"obtuse corner", Segment{Pt(0, 0), Pt(100, 0)}, Segment{Pt(100, 0), Pt(150, 80)}, 20, Pt(20, 0), Pt(140, 64)},
		} {
			t.Run(tc.name, func(t *testing.T) {
				sh := func(s Segment) Segment { return Segment{s.A.Add(base), s.B.Add(base)} }
				s1, s2 := sh(tc.s1), sh(tc.s2)
				c, err := Fillet(s1, s2, tc.r, tc.pick1.Add(base), tc.pick2.Add(base))
				if err != nil {
					t.Fatalf("Fillet: %v", err)
				}
				tol := 1e-9 * 200
				if base.Mag() > 0 {
					tol = 1e-6
				}
				// Tangent to both lines: the centre is r from each.
				for i, s := range []Segment{s1, s2} {
					if d := distToLine(s, c.Arc.C); math.Abs(d-tc.r) > tol {
						t.Errorf("distance from centre to line %d = %v, want %v", i+1, d, tc.r)
					}
				}
				// The tangent points are the arc's ends and lie on the kept segments.
				ends := []Vec{c.Arc.At(c.Arc.Start), c.Arc.At(c.Arc.Start + c.Arc.Sweep)}
				if !(ends[0].Dist(c.T1) <= tol && ends[1].Dist(c.T2) <= tol) && !(ends[0].Dist(c.T2) <= tol && ends[1].Dist(c.T1) <= tol) {
					t.Errorf("arc ends %v, want the tangent points %v %v", ends, c.T1, c.T2)
				}
				k1, k2 := c.Keep1.(Segment), c.Keep2.(Segment)
				if !(k1.A.Dist(c.T1) <= tol || k1.B.Dist(c.T1) <= tol) || !(k2.A.Dist(c.T2) <= tol || k2.B.Dist(c.T2) <= tol) {
					t.Errorf("kept segments %v %v do not end at the tangent points %v %v", k1, k2, c.T1, c.T2)
				}
				// The picks are kept, and the arc turns less than half a turn.
				if !onSeg(k1, tc.pick1.Add(base), tol) || !onSeg(k2, tc.pick2.Add(base), tol) {
					t.Errorf("kept segments %v %v lost the picks", k1, k2)
				}
				if c.Arc.Sweep <= 0 || c.Arc.Sweep >= math.Pi {
					t.Errorf("arc sweep %v, want in (0, π)", c.Arc.Sweep)
				}
			})
		}
	}
}

func TestFilletQuadrantFollowsPicks(t *testing.T) {
	h := Segment{Pt(-50, 0), Pt(50, 0)}
	v := Segment{Pt(0, -50), Pt(0, 50)}
	for _, q := range []Vec{{1, 1}, {-1, 1}, {-1, -1}, {1, -1}} {
		c, err := Fillet(h, v, 5, Pt(30*q.X, 0), Pt(0, 30*q.Y))
		if err != nil {
			t.Fatal(err)
		}
		want := Pt(5*q.X, 5*q.Y)
		if !c.Arc.C.Same(want) {
			t.Errorf("picks in quadrant %v: centre %v, want %v", q, c.Arc.C, want)
		}
	}
}

// TestFilletAcuteNearPicks: picks near a sharp corner, where the arc's
// tangent points fall far past them; the arc still sits in the picks'
// sector, on the bisector at r / sin(half the angle).
func TestFilletAcuteNearPicks(t *testing.T) {
	a := Rad(20)
	d := Pt(math.Cos(a), math.Sin(a))
	s1 := Segment{Pt(-50, 0), Pt(50, 0)}
	s2 := Segment{d.Mul(-50), d.Mul(50)}
	c, err := Fillet(s1, s2, 1, Pt(1, 0), d)
	if err != nil {
		t.Fatal(err)
	}
	want := Pt(math.Cos(a/2), math.Sin(a/2)).Mul(1 / math.Sin(a/2))
	if c.Arc.C.Dist(want) > 1e-9 {
		t.Errorf("centre %v, want %v on the bisector of the picks' sector", c.Arc.C, want)
	}
}

func TestFilletCurves(t *testing.T) {
	for _, base := range []Vec{{0, 0}, {500000, 4200000}} {
		sh := func(p any) any { return shifted(p, base.Mul(-1)) }
		line := Segment{Pt(-100, 0), Pt(100, 0)}
		circle := Arc{C: Pt(0, 30), R: 20, Sweep: 2 * math.Pi}
		arc := Arc{C: Pt(60, 30), R: 20, Start: math.Pi, Sweep: math.Pi}
		for _, tc := range []struct {
			name         string
			p, q         any
			r            float64
			pick1, pick2 Vec
			// the centre's distance to each carrier's centre, or -1 for a line
			want1, want2 float64
		}{
			{"line and circle outside", line, circle, 10, Pt(-40, 0), Pt(0, 10), -1, 30},
			{"circle and circle", Arc{C: Pt(0, 0), R: 10, Sweep: 2 * math.Pi}, Arc{C: Pt(50, 0), R: 15, Sweep: 2 * math.Pi}, 20, Pt(0, 10), Pt(50, 15), 30, 35},
			{"line and arc", line, arc, 5, Pt(90, 0), Pt(40, 30), -1, 25},
		} {
			t.Run(tc.name, func(t *testing.T) {
				c, err := Fillet(sh(tc.p), sh(tc.q), tc.r, tc.pick1.Add(base), tc.pick2.Add(base))
				if err != nil {
					t.Fatalf("Fillet: %v", err)
				}
				tol := 1e-6
				for i, pair := range []struct {
					prim any
					want float64
				}{{sh(tc.p), tc.want1}, {sh(tc.q), tc.want2}} {
					switch s := pair.prim.(type) {
					case Segment:
						if d := distToLine(s, c.Arc.C); math.Abs(d-tc.r) > tol {
							t.Errorf("curve %d: centre %v from the line, want %v", i+1, d, tc.r)
						}
					case Arc:
						if d := c.Arc.C.Dist(s.C); math.Abs(d-pair.want) > tol {
							t.Errorf("curve %d: centre %v from its centre, want %v", i+1, d, pair.want)
						}
					}
				}
				// Tangent points on both circles: the fillet's and the curve's.
				for _, p := range []Vec{c.T1, c.T2} {
					if d := p.Dist(c.Arc.C); math.Abs(d-tc.r) > tol {
						t.Errorf("tangent point %v is %v from the fillet's centre, want %v", p, d, tc.r)
					}
				}
			})
		}
	}
}

func TestFilletSharpCorner(t *testing.T) {
	c, err := Fillet(Segment{Pt(0, 0), Pt(80, 0)}, Segment{Pt(100, 20), Pt(100, 60)}, 0, Pt(40, 0), Pt(100, 40))
	if err != nil {
		t.Fatal(err)
	}
	if !c.T1.Same(Pt(100, 0)) || c.Keep1.(Segment) != (Segment{Pt(0, 0), Pt(100, 0)}) || c.Keep2.(Segment) != (Segment{Pt(100, 0), Pt(100, 60)}) {
		t.Errorf("sharp corner = %+v, want both lines extended to (100, 0)", c)
	}
}

func TestFilletFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		p, q any
		r    float64
		want error
	}{
		{"parallel", Segment{Pt(0, 0), Pt(10, 0)}, Segment{Pt(0, 5), Pt(10, 5)}, 1, ErrParallel},
		{"too large", Segment{Pt(0, 0), Pt(10, 0)}, Segment{Pt(10, 0), Pt(10, 10)}, 20, ErrTooLarge},
		{"circles too far apart", Arc{C: Pt(0, 0), R: 1, Sweep: 2 * math.Pi}, Arc{C: Pt(100, 0), R: 1, Sweep: 2 * math.Pi}, 2, ErrNoFillet},
	} {
		_, err := Fillet(tc.p, tc.q, tc.r, DefaultPick(tc.p, tc.q), DefaultPick(tc.q, tc.p))
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: Fillet = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestChamferLines(t *testing.T) {
	base := Pt(500000, 4200000)
	s := Segment{base, base.Add(Pt(100, 0))}
	u := Segment{base.Add(Pt(100, 0)), base.Add(Pt(100, 60))}
	c, err := Chamfer(s, u, 10, 5, base.Add(Pt(50, 0)), base.Add(Pt(100, 30)))
	if err != nil {
		t.Fatal(err)
	}
	if c.T1.Dist(base.Add(Pt(90, 0))) > 1e-6 || c.T2.Dist(base.Add(Pt(100, 5))) > 1e-6 {
		t.Errorf("chamfer ends %v %v, want 10 and 5 from the corner", c.T1, c.T2)
	}
	if k := c.Keep1.(Segment); k.B.Dist(c.T1) > 1e-6 || k.A != s.A {
		t.Errorf("first line kept as %v", k)
	}
	if _, err := Chamfer(s, u, 200, 5, base.Add(Pt(50, 0)), base.Add(Pt(100, 30))); !errors.Is(err, ErrTooLarge) || err.Error() != ErrChamferTooLarge.Error() {
		t.Errorf("chamfer past the line's end = %v, want ErrChamferTooLarge", err)
	}
	if _, err := Chamfer(s, Segment{base.Add(Pt(0, 5)), base.Add(Pt(50, 5))}, 1, 1, base, base); !errors.Is(err, ErrParallel) {
		t.Errorf("chamfer of parallel lines = %v, want ErrParallel", err)
	}
}

func TestPolylineCorners(t *testing.T) {
	for _, base := range []Vec{{0, 0}, {500000, 4200000}} {
		w, h := 100.0, 60.0
		rect := Polyline{Closed: true, V: []Vertex{{P: base}, {P: base.Add(Pt(w, 0))}, {P: base.Add(Pt(w, h))}, {P: base.Add(Pt(0, h))}}}
		r := 10.0
		g, n, err := PolylineCorners(rect, -1, false, r, 0, 0)
		if err != nil || n != 4 || len(g.V) != 8 {
			t.Fatalf("fillet all = %d corners, %d vertices, %v; want 4 and 8", n, len(g.V), err)
		}
		// The area of a rectangle with rounded corners, by formula.
		if want := w*h - (4-math.Pi)*r*r; math.Abs(g.Area()-want) > 1e-6 {
			t.Errorf("rounded area = %v, want %v", g.Area(), want)
		}
		if l, want := g.Length(), 2*(w+h)-8*r+2*math.Pi*r; math.Abs(l-want) > 1e-6 {
			t.Errorf("rounded length = %v, want %v", l, want)
		}
		g, n, err = PolylineCorners(rect, 2, true, 0, 10, 5)
		if err != nil || n != 1 || len(g.V) != 5 {
			t.Fatalf("chamfer vertex 2 = %d corners, %d vertices, %v", n, len(g.V), err)
		}
		if want := w*h - 10*5/2.0; math.Abs(g.Area()-want) > 1e-6 {
			t.Errorf("chamfered area = %v, want %v", g.Area(), want)
		}
		if _, _, err := PolylineCorners(rect, 1, false, 61, 0, 0); !errors.Is(err, ErrTooLarge) {
			t.Errorf("fillet radius 61 on a 60 side = %v, want ErrTooLarge", err)
		}
		if _, _, err := PolylineCorners(rect, -1, false, 31, 0, 0); !errors.Is(err, ErrTooLarge) {
			t.Errorf("every corner at radius 31, two to a 60 side = %v, want ErrTooLarge", err)
		}
		if _, _, err := PolylineCorners(rect, 1, false, 31, 0, 0); err != nil {
			t.Errorf("one corner of radius 31: %v", err)
		}
	}
}

// TestFilletTrimsArc: a line and the lower half of a circle above it,
// not touching; the fillet joins the line's left part to the arc's left
// part, and the arc is trimmed from its left end down to the tangent point.
func TestFilletTrimsArc(t *testing.T) {
	for _, base := range bases {
		line := Segment{mv(base, Pt(-50, 0)), mv(base, Pt(50, 0))}
		arc := Arc{C: mv(base, Pt(0, 30)), R: 20, Start: math.Pi, Sweep: math.Pi}
		c, err := Fillet(line, arc, 10, mv(base, Pt(-40, 0)), mv(base, Pt(-20, 30)))
		if err != nil {
			t.Fatal(err)
		}
		// The centre 10 above the line and 30 from the arc's centre, on the left.
		want := mv(base, Pt(-math.Sqrt(500), 10))
		if c.Arc.C.Dist(want) > 1e-6 {
			t.Errorf("centre %v, want %v", c.Arc.C.Sub(base), want.Sub(base))
		}
		k := c.Keep2.(Arc)
		tt := c.T2.Sub(arc.C).Angle() + 2*math.Pi
		if math.Abs(NormRad(k.Start)-math.Pi) > 1e-9 || math.Abs(k.Sweep-(tt-math.Pi)) > 1e-9 {
			t.Errorf("kept arc %v+%v, want from 180° to the tangent point at %v", k.Start, k.Sweep, tt)
		}
		if s := c.Keep1.(Segment); s.A != line.A || s.B.Dist(mv(base, Pt(-math.Sqrt(500), 0))) > 1e-6 {
			t.Errorf("kept line %v", s)
		}
	}
}

// TestFilletRandomCorners: corners of two lines at random angles, sizes
// and places (up to survey coordinates), picks on random parts; every
// fillet is tangent to both lines (checked by Heron's distance), touches
// them on the kept segments, which keep the picks, and runs between the
// tangent points.
func TestFilletRandomCorners(t *testing.T) {
	rng := rand.New(rand.NewSource(37))
	done := 0
	for i := 0; i < 2000; i++ {
		base := Pt(rng.Float64()*1e6, rng.Float64()*5e6)
		scale := math.Pow(10, rng.Float64()*4-1) // 0.1 to 1000
		x := base.Add(Pt(rng.Float64(), rng.Float64()).Mul(scale))
		a1 := rng.Float64() * 2 * math.Pi
		a2 := a1 + (0.2+rng.Float64()*(math.Pi-0.4))*float64(1-2*rng.Intn(2))
		d1, d2 := Pt(math.Cos(a1), math.Sin(a1)), Pt(math.Cos(a2), math.Sin(a2))
		// Each line from a little behind the corner to well past it; the
		// pick on the long side.
		s1 := Segment{x.Sub(d1.Mul(0.1 * scale)), x.Add(d1.Mul(3 * scale))}
		s2 := Segment{x.Sub(d2.Mul(0.1 * scale)), x.Add(d2.Mul(3 * scale))}
		r := scale * (0.05 + rng.Float64()*0.5)
		p1, p2 := x.Add(d1.Mul(2*scale)), x.Add(d2.Mul(2*scale))
		c, err := Fillet(s1, s2, r, p1, p2)
		if errors.Is(err, ErrTooLarge) {
			continue
		}
		if err != nil {
			t.Fatalf("case %d: Fillet: %v", i, err)
		}
		done++
		tol := 1e-9*scale + RoundingFloor(base.Mag())*16
		for k, s := range []Segment{s1, s2} {
			if d := distToLine(s, c.Arc.C); math.Abs(d-r) > tol+1e-7*r {
				t.Fatalf("case %d: centre %v from line %d, want %v", i, d, k+1, r)
			}
		}
		k1, k2 := c.Keep1.(Segment), c.Keep2.(Segment)
		// The tangent points lie on the lines' picked rays, the kept
		// segments run from them to the far ends and hold the picks
		// when the picks lie beyond the tangent points.
		t1, t2 := c.T1.Sub(x).Dot(d1), c.T2.Sub(x).Dot(d2)
		if t1 <= 0 || t2 <= 0 || !onSeg(k1, s1.B, tol) || !onSeg(k2, s2.B, tol) || !onSeg(k1, c.T1, tol) || !onSeg(k2, c.T2, tol) {
			t.Fatalf("case %d: kept %v %v, tangent points %v %v", i, k1, k2, c.T1, c.T2)
		}
		if (t1 < 2*scale && !onSeg(k1, p1, tol)) || (t2 < 2*scale && !onSeg(k2, p2, tol)) {
			t.Fatalf("case %d: kept %v %v lost the picks %v %v", i, k1, k2, p1, p2)
		}
		ends := []Vec{c.Arc.At(c.Arc.Start), c.Arc.At(c.Arc.Start + c.Arc.Sweep)}
		if math.Min(ends[0].Dist(c.T1)+ends[1].Dist(c.T2), ends[0].Dist(c.T2)+ends[1].Dist(c.T1)) > 2*tol+1e-9*r {
			t.Fatalf("case %d: arc ends %v, tangent points %v %v", i, ends, c.T1, c.T2)
		}
		// The arc bends towards the corner: its midpoint is nearer the
		// corner than its centre is.
		mid := c.Arc.At(c.Arc.Start + c.Arc.Sweep/2)
		if mid.Dist(x) >= c.Arc.C.Dist(x) {
			t.Fatalf("case %d: the arc bulges away from the corner", i)
		}
	}
	if done < 1000 {
		t.Errorf("only %d of 2000 corners filleted", done)
	}
}
