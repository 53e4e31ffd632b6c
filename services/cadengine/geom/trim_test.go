package geom

import (
	"errors"
	"math"
	"math/rand"
	"testing"
)

var bases = []Vec{{0, 0}, {500000, 4200000}}

func mv(base Vec, p Vec) Vec { return p.Add(base) }

func TestTrimLine(t *testing.T) {
	for _, base := range bases {
		line := Segment{mv(base, Pt(0, 0)), mv(base, Pt(100, 0))}
		edges := []any{
			Segment{mv(base, Pt(30, -10)), mv(base, Pt(30, 10))},
			Segment{mv(base, Pt(70, -10)), mv(base, Pt(60, 10))},   // crosses at x = 65
			Segment{mv(base, Pt(100, -10)), mv(base, Pt(100, 10))}, // at the end: no cut
		}
		for _, tc := range []struct {
			name string
			pick Vec
			want []Segment
		}{
			{"middle", Pt(50, 1), []Segment{{Pt(0, 0), Pt(30, 0)}, {Pt(65, 0), Pt(100, 0)}}},
			{"start", Pt(10, 0), []Segment{{Pt(30, 0), Pt(100, 0)}}},
			{"end", Pt(90, 0), []Segment{{Pt(0, 0), Pt(65, 0)}}},
		} {
			got, err := Trim(line, edges, mv(base, tc.pick))
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%s: %v, want %v", tc.name, got, tc.want)
			}
			for i, g := range got {
				s := g.(Segment)
				w := tc.want[i]
				if s.A.Dist(mv(base, w.A)) > 1e-6 || s.B.Dist(mv(base, w.B)) > 1e-6 {
					t.Errorf("%s: piece %d = %v, want %v", tc.name, i, s, w)
				}
			}
		}
		if _, err := Trim(line, []any{Segment{mv(base, Pt(0, 5)), mv(base, Pt(10, 5))}}, mv(base, Pt(5, 0))); !errors.Is(err, ErrNoCut) {
			t.Errorf("trim with no crossing = %v, want ErrNoCut", err)
		}
	}
}

func TestTrimCircleBecomesArc(t *testing.T) {
	for _, base := range bases {
		circle := Arc{C: mv(base, Pt(0, 0)), R: 10, Sweep: 2 * math.Pi}
		cut := Segment{mv(base, Pt(-20, 6)), mv(base, Pt(20, 6))}
		got, err := Trim(circle, []any{cut}, mv(base, Pt(0, 10)))
		if err != nil || len(got) != 1 {
			t.Fatalf("Trim = %v, %v", got, err)
		}
		a := got[0].(Arc)
		// The arc runs from (8, 6) clockwise-down round to (-8, 6): it ends on the cut
		// and lost the top.
		for _, p := range []Vec{a.At(a.Start), a.At(a.Start + a.Sweep)} {
			if math.Abs(p.Y-base.Y-6) > 1e-6 || math.Abs(math.Abs(p.X-base.X)-8) > 1e-6 {
				t.Errorf("arc end %v, want on y = 6 at x = ±8", p.Sub(base))
			}
		}
		if a.Has(Rad(90)) || !a.Has(Rad(270)) {
			t.Errorf("arc %+v keeps the top or lost the bottom", a)
		}
		if want := 2*math.Pi - 2*math.Acos(0.6); math.Abs(a.Sweep-want) > 1e-9 {
			t.Errorf("sweep = %v, want %v", a.Sweep, want)
		}
		if _, err := Trim(circle, []any{Segment{mv(base, Pt(0, 0)), mv(base, Pt(20, 0))}}, mv(base, Pt(0, 10))); !errors.Is(err, ErrOneCut) {
			t.Errorf("circle cut once = %v, want ErrOneCut", err)
		}
	}
}

func TestTrimEllipseAndPolyline(t *testing.T) {
	for _, base := range bases {
		e := EllipseArc{C: base, Major: Pt(20, 0), Ratio: 0.5, Sweep: 2 * math.Pi}
		cut := Segment{mv(base, Pt(10, -20)), mv(base, Pt(10, 20))}
		cut2 := Segment{mv(base, Pt(-10, -20)), mv(base, Pt(-10, 20))}
		got, err := Trim(e, []any{cut, cut2}, mv(base, Pt(20, 0)))
		if err != nil || len(got) != 1 {
			t.Fatalf("Trim ellipse = %v, %v", got, err)
		}
		g := got[0].(EllipseArc)
		// What is left is the part x ≤ 10 from y > 0 round through x = -20.
		for _, p := range []Vec{g.At(g.Start), g.At(g.Start + g.Sweep)} {
			q := p.Sub(base)
			if math.Abs(q.X-10) > 1e-6 || math.Abs(q.X*q.X/400+q.Y*q.Y/100-1) > 1e-9 {
				t.Errorf("ellipse arc end %v, want on x = 10 and on the ellipse", q)
			}
		}
		if g.Has(0) || !g.Has(math.Pi) {
			t.Errorf("ellipse arc %+v keeps the picked end or lost the far one", g)
		}

		// An open polyline with a bulge, cut across its arc.
		pl := Polyline{V: []Vertex{{P: mv(base, Pt(0, 0))}, {P: mv(base, Pt(40, 0)), Bulge: 1}, {P: mv(base, Pt(40, 40))}, {P: mv(base, Pt(0, 40))}}}
		// The half circle from (40,0) to (40,40) bulges right to x = 60.
		got, err = Trim(pl, []any{Segment{mv(base, Pt(50, -10)), mv(base, Pt(50, 50))}}, mv(base, Pt(60, 20)))
		if err != nil || len(got) != 2 {
			t.Fatalf("Trim polyline = %v, %v", got, err)
		}
		lost := pl.Length() - got[0].(Polyline).Length() - got[1].(Polyline).Length()
		// The removed arc: from the angle where x = 50 below to above, on r = 20.
		if want := 20 * 2 * math.Asin(math.Sqrt(1-0.25)) * 1; math.Abs(lost-want) > 1e-6 {
			t.Errorf("trim removed %v of the polyline, want the arc's %v", lost, want)
		}
		for _, p := range []Vec{got[0].(Polyline).V[len(got[0].(Polyline).V)-1].P, got[1].(Polyline).V[0].P} {
			if math.Abs(p.X-base.X-50) > 1e-6 {
				t.Errorf("piece end %v, want on x = 50", p.Sub(base))
			}
		}
	}
}

func TestExtend(t *testing.T) {
	for _, base := range bases {
		wall := Segment{mv(base, Pt(100, -50)), mv(base, Pt(100, 50))}
		near := Segment{mv(base, Pt(80, -50)), mv(base, Pt(80, 50))}
		line := Segment{mv(base, Pt(0, 10)), mv(base, Pt(50, 10))}
		got, err := Extend(line, []any{wall, near}, mv(base, Pt(45, 10)))
		if err != nil {
			t.Fatal(err)
		}
		if s := got.(Segment); s.B.Dist(mv(base, Pt(80, 10))) > 1e-6 || s.A != line.A {
			t.Errorf("Extend line = %v, want to the nearer boundary at x = 80", s)
		}
		if _, err := Extend(line, []any{wall}, mv(base, Pt(1, 10))); !errors.Is(err, ErrNothingAhead) {
			t.Errorf("extend away from the boundary = %v, want ErrNothingAhead", err)
		}
		// An arc round its circle to the line y = -5 (x = -sqrt(100-25)).
		arc := Arc{C: base, R: 10, Start: 0, Sweep: math.Pi}
		floor := Segment{mv(base, Pt(-50, -5)), mv(base, Pt(50, -5))}
		got, err = Extend(arc, []any{floor}, mv(base, Pt(-10, 0)))
		if err != nil {
			t.Fatal(err)
		}
		a := got.(Arc)
		if end := a.At(a.Start + a.Sweep).Sub(base); end.Dist(Pt(-math.Sqrt(75), -5)) > 1e-6 || a.Start != 0 {
			t.Errorf("Extend arc ends at %v, want (-8.66, -5)", end)
		}
		// An open polyline's last straight piece.
		pl := Polyline{V: []Vertex{{P: mv(base, Pt(0, 0))}, {P: mv(base, Pt(20, 0)), Bulge: 0.5}, {P: mv(base, Pt(40, 0))}, {P: mv(base, Pt(40, 20))}}}
		got, err = Extend(pl, []any{Segment{mv(base, Pt(0, 70)), mv(base, Pt(100, 70))}}, mv(base, Pt(40, 19)))
		if err != nil {
			t.Fatal(err)
		}
		if v := got.(Polyline).V; v[3].P.Dist(mv(base, Pt(40, 70))) > 1e-6 || v[1].Bulge != 0.5 {
			t.Errorf("Extend polyline = %v", v)
		}
	}
}

func TestBreak(t *testing.T) {
	for _, base := range bases {
		line := Segment{mv(base, Pt(0, 0)), mv(base, Pt(100, 0))}
		got, err := Break(line, mv(base, Pt(40, 3)), nil)
		if err != nil || len(got) != 2 || got[0].(Segment).B.Dist(mv(base, Pt(40, 0))) > 1e-6 || got[1].(Segment).A.Dist(mv(base, Pt(40, 0))) > 1e-6 {
			t.Errorf("Break line at 40 = %v, %v", got, err)
		}
		p2 := mv(base, Pt(60, 0))
		got, err = Break(line, mv(base, Pt(40, 0)), &p2)
		if err != nil || len(got) != 2 || got[0].(Segment).Length()+got[1].(Segment).Length() > 80+1e-6 {
			t.Errorf("Break line 40..60 = %v, %v", got, err)
		}
		if _, err := Break(line, mv(base, Pt(0, 0)), nil); !errors.Is(err, ErrAtEnd) {
			t.Errorf("Break at the start = %v, want ErrAtEnd", err)
		}
		circle := Arc{C: base, R: 10, Sweep: 2 * math.Pi}
		q := mv(base, Pt(0, 10))
		got, err = Break(circle, mv(base, Pt(10, 0)), &q)
		if err != nil || len(got) != 1 {
			t.Fatalf("Break circle = %v, %v", got, err)
		}
		// Counter-clockwise from (10, 0) to (0, 10) is removed: 270° stay,
		// from 90° on.
		if a := got[0].(Arc); math.Abs(a.Sweep-1.5*math.Pi) > 1e-9 || math.Abs(NormRad(a.Start)-math.Pi/2) > 1e-9 {
			t.Errorf("Break circle = %+v, want the arc from 90° through 270°", a)
		}
	}
}

func TestJoin(t *testing.T) {
	for _, base := range bases {
		// Collinear lines, with a gap: one line over all.
		got, err := Join([]any{Segment{mv(base, Pt(0, 0)), mv(base, Pt(10, 0))}, Segment{mv(base, Pt(30, 0)), mv(base, Pt(15, 0))}})
		if s, ok := got.(Segment); err != nil || !ok || s.A.Dist(mv(base, Pt(0, 0))) > 1e-6 || s.B.Dist(mv(base, Pt(30, 0))) > 1e-6 {
			t.Errorf("Join collinear = %v, %v", got, err)
		}
		// Arcs of one circle.
		a1 := Arc{C: base, R: 5, Start: 0, Sweep: math.Pi / 2}
		a2 := Arc{C: base, R: 5, Start: math.Pi / 2, Sweep: math.Pi / 2}
		got, err = Join([]any{a1, a2})
		if a, ok := got.(Arc); err != nil || !ok || math.Abs(a.Sweep-math.Pi) > 1e-9 || math.Abs(NormRad(a.Start)) > 1e-9 {
			t.Errorf("Join co-circular = %+v, %v", got, err)
		}
		// Four lines end to end, in any order and direction: a closed
		// rectangle, its area by formula.
		sq := []any{
			Segment{mv(base, Pt(0, 0)), mv(base, Pt(40, 0))},
			Segment{mv(base, Pt(0, 30)), mv(base, Pt(40, 30))},
			Segment{mv(base, Pt(0, 30)), mv(base, Pt(0, 0))},
			Segment{mv(base, Pt(40, 0)), mv(base, Pt(40, 30))},
		}
		got, err = Join(sq)
		if g, ok := got.(Polyline); err != nil || !ok || !g.Closed || len(g.V) != 4 || math.Abs(g.Area()-1200) > 1e-6 {
			t.Errorf("Join rectangle = %+v, %v", got, err)
		}
		// A line and an arc meeting end to end: a polyline with the bulge.
		got, err = Join([]any{Segment{mv(base, Pt(-10, 5)), mv(base, Pt(5, 0))}, a1})
		if g, ok := got.(Polyline); err != nil || !ok || len(g.V) != 3 || math.Abs(g.Length()-(math.Hypot(15, 5)+5*math.Pi/2)) > 1e-6 {
			t.Errorf("Join line and arc = %+v, %v", got, err)
		}
		var je *JoinError
		_, err = Join([]any{sq[0], Segment{mv(base, Pt(100, 100)), mv(base, Pt(110, 90))}})
		if !errors.As(err, &je) || len(je.Left) != 1 || je.Left[0] != 1 {
			t.Errorf("Join apart = %v, want a JoinError naming the second", err)
		}
	}
}

func TestTrimAndBreakClosedPolyline(t *testing.T) {
	for _, base := range bases {
		rect := Polyline{Closed: true, V: []Vertex{{P: mv(base, Pt(0, 0))}, {P: mv(base, Pt(40, 0))}, {P: mv(base, Pt(40, 30))}, {P: mv(base, Pt(0, 30))}}}
		// Two vertical cuts through the bottom and top: the right part goes.
		cuts := []any{Segment{mv(base, Pt(10, -5)), mv(base, Pt(10, 35))}, Segment{mv(base, Pt(30, -5)), mv(base, Pt(30, 35))}}
		got, err := Trim(rect, cuts, mv(base, Pt(40, 15)))
		if err != nil || len(got) != 1 {
			t.Fatalf("Trim = %v, %v", got, err)
		}
		g := got[0].(Polyline)
		if g.Closed || math.Abs(g.Length()-(140-(10+30+10))) > 1e-6 {
			t.Errorf("trimmed rectangle = %+v length %v, want open, 90 long", g, g.Length())
		}
		first, last := g.V[0].P.Sub(base), g.V[len(g.V)-1].P.Sub(base)
		if first.Dist(Pt(30, 30)) > 1e-6 || last.Dist(Pt(30, 0)) > 1e-6 {
			t.Errorf("trimmed rectangle runs %v..%v, want (30,30)..(30,0)", first, last)
		}
		// Broken at one point it opens there, whole.
		got, err = Break(rect, mv(base, Pt(20, 0)), nil)
		if err != nil || len(got) != 1 {
			t.Fatalf("Break = %v, %v", got, err)
		}
		g = got[0].(Polyline)
		if g.Closed || math.Abs(g.Length()-140) > 1e-6 || g.V[0].P.Sub(base).Dist(Pt(20, 0)) > 1e-6 || g.V[len(g.V)-1].P.Sub(base).Dist(Pt(20, 0)) > 1e-6 {
			t.Errorf("broken rectangle = %+v", g)
		}
	}
}

// TestExtendPolylineArcEnd: an open polyline ending in a quarter circle
// (bulge tan(22.5°)) goes on round its circle to a vertical boundary.
func TestExtendPolylineArcEnd(t *testing.T) {
	for _, base := range bases {
		// From (0,0) right to (10,0), then a quarter circle about (10,10)
		// to (20,10), counter-clockwise.
		pl := Polyline{V: []Vertex{{P: mv(base, Pt(0, 0))}, {P: mv(base, Pt(10, 0)), Bulge: math.Tan(math.Pi / 8)}, {P: mv(base, Pt(20, 10))}}}
		wall := Segment{mv(base, Pt(15, 0)), mv(base, Pt(15, 40))}
		got, err := Extend(pl, []any{wall}, mv(base, Pt(20, 11)))
		if err != nil {
			t.Fatal(err)
		}
		v := got.(Polyline).V
		// The circle about (10,10) of radius 10 meets x = 15 at y = 10 + sqrt(75).
		want := Pt(15, 10+math.Sqrt(75))
		if v[2].P.Sub(base).Dist(want) > 1e-6 {
			t.Errorf("extended end %v, want %v", v[2].P.Sub(base), want)
		}
		// The arc now turns 90° + 60°.
		if b := v[1].Bulge; math.Abs(b-math.Tan(Rad(150)/4)) > 1e-9 {
			t.Errorf("bulge %v, want tan(150°/4)", b)
		}
	}
}

// offLine is how far x is from the line through s: the height of the
// parallelogram on s and x (Heron's formula, used for the fillets'
// distances, loses half its digits next to zero).
func offLine(s Segment, x Vec) float64 {
	u, v := s.B.Sub(s.A), x.Sub(s.A)
	return math.Abs(u.X*v.Y-u.Y*v.X) / math.Hypot(u.X, u.Y)
}

// TestTrimRandomLines: a line cut by two random crossing lines, picked
// between them, keeps its two outer pieces, each ending on a cutting
// line and neither holding the pick.
func TestTrimRandomLines(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for i := 0; i < 1000; i++ {
		base := Pt(rng.Float64()*1e6, rng.Float64()*5e6)
		scale := math.Pow(10, rng.Float64()*4-1)
		a := rng.Float64() * 2 * math.Pi
		d := Pt(math.Cos(a), math.Sin(a))
		line := Segment{base, base.Add(d.Mul(scale))}
		// Cuts at 0.2–0.4 and 0.6–0.8 of the way, at random slants.
		var cuts []any
		var at []float64
		for _, u := range []float64{0.2 + 0.2*rng.Float64(), 0.6 + 0.2*rng.Float64()} {
			p := base.Add(d.Mul(u * scale))
			b := a + 0.3 + rng.Float64()*(math.Pi-0.6)
			e := Pt(math.Cos(b), math.Sin(b)).Mul(scale)
			cuts = append(cuts, Segment{p.Sub(e), p.Add(e)})
			at = append(at, u)
		}
		pick := base.Add(d.Mul((at[0] + at[1]) / 2 * scale))
		got, err := Trim(line, cuts, pick)
		if err != nil || len(got) != 2 {
			t.Fatalf("case %d: Trim = %v, %v", i, got, err)
		}
		tol := 1e-9*scale + RoundingFloor(base.Mag())*16
		first, second := got[0].(Segment), got[1].(Segment)
		if first.A != line.A || second.B != line.B {
			t.Fatalf("case %d: the outer ends moved: %v %v", i, first, second)
		}
		if offLine(cuts[0].(Segment), first.B) > tol || offLine(cuts[1].(Segment), second.A) > tol {
			t.Fatalf("case %d: pieces end %v from the cuts", i, []float64{offLine(cuts[0].(Segment), first.B), offLine(cuts[1].(Segment), second.A)})
		}
		if onSeg(first, pick, tol) || onSeg(second, pick, tol) {
			t.Fatalf("case %d: the pick survived", i)
		}
	}
}
