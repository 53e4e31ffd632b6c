package geom

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// The gear tests measure the profile with their own means: arcs from
// their bulges by the chord formula, crossings of the pitch circle by the
// segment–circle quadratic, flanks by the involute's defining property
// (the string unwound from the base circle: a point's tangent to the base
// circle is as long as the arc of the base circle it unrolled), and the
// radii from the ISO 53 rack typed from the standard (tip m(z+2)/2, root
// m(z−2.5)/2, tooth and gap πm/2 wide on the pitch circle).

// bulgeCircle is the centre and radius of the arc from a to b of bulge
// w (counter-clockwise for w > 0).
func bulgeCircle(a, b Vec, w float64) (Vec, float64) {
	chord := b.Sub(a)
	half := chord.Len() / 2
	theta := 4 * math.Atan(w) // included angle
	r := half / math.Sin(theta/2)
	h := half / math.Tan(theta/2) // from the chord's middle to the centre, to its left
	left := Vec{-chord.Y, chord.X}.Mul(1 / chord.Len())
	return a.Mid(b).Add(left.Mul(h)), math.Abs(r)
}

// segmentDist is the distance from p to the segment ab.
func segmentDist(p, a, b Vec) float64 {
	d := b.Sub(a)
	s := math.Max(0, math.Min(1, p.Sub(a).Dot(d)/d.Dot(d)))
	return p.Dist(a.Add(d.Mul(s)))
}

func TestSpurGearProfile(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 53))
	cases := []SpurGear{
		{C: Pt(0, 0), Module: 1, Teeth: 6, PressureAngle: Rad(20)},
		{C: Pt(10, -4), Module: 2.5, Teeth: 17, PressureAngle: Rad(20)},
		{C: Pt(0, 0), Module: 3, Teeth: 41, PressureAngle: Rad(20)}, // base circle just above the root
		{C: Pt(0, 0), Module: 3, Teeth: 42, PressureAngle: Rad(20)}, // and just below it
		{C: Pt(-100, 7), Module: 0.5, Teeth: 120, PressureAngle: Rad(14.5)},
	}
	for range 12 {
		cases = append(cases, SpurGear{
			C:             Pt(rng.Float64()*200-100, rng.Float64()*200-100),
			Module:        0.2 + rng.Float64()*12,
			Teeth:         6 + rng.IntN(95),
			PressureAngle: Rad(14.5 + rng.Float64()*10.5),
		})
	}
	for _, g := range cases {
		pl, err := g.Profile()
		if err != nil {
			t.Fatalf("%+v: %v", g, err)
		}
		checkGear(t, g, pl)
	}
}

func checkGear(t *testing.T, g SpurGear, pl Polyline) {
	t.Helper()
	m, z, alpha := g.Module, float64(g.Teeth), g.PressureAngle
	ra, rf, r := m*(z+2)/2, m*(z-2.5)/2, m*z/2
	rb := r * math.Cos(alpha)
	eps := 1e-9 * ra
	n := len(pl.V)
	if !pl.Closed || n%g.Teeth != 0 {
		t.Fatalf("%+v: %d vertices, closed %v; want a closed profile, the same vertices for each tooth", g, n, pl.Closed)
	}

	// Extreme radii: vertices and segments by distance, arcs by their
	// circle, which must be the tip or the root circle about the centre.
	hi, lo := 0.0, math.Inf(1)
	arcs := map[string]int{}
	for i, v := range pl.V {
		w := pl.V[(i+1)%n]
		hi = math.Max(hi, v.P.Dist(g.C))
		if v.Bulge == 0 {
			lo = math.Min(lo, segmentDist(g.C, v.P, w.P))
			continue
		}
		c, rad := bulgeCircle(v.P, w.P, v.Bulge)
		switch {
		case c.Dist(g.C) > eps:
			t.Fatalf("%+v: arc %d about %v, want about the centre %v", g, i, c, g.C)
		case math.Abs(rad-ra) < eps:
			arcs["tip"]++
		case math.Abs(rad-rf) < eps:
			arcs["root"]++
		default:
			t.Fatalf("%+v: arc %d of radius %v, want the tip %v or the root %v", g, i, rad, ra, rf)
		}
		hi, lo = math.Max(hi, rad), math.Min(lo, rad)
	}
	if math.Abs(hi-ra) > 1e-9*ra || math.Abs(lo-rf) > 1e-9*rf {
		t.Errorf("%+v: radii %v to %v, want the root %v to the tip %v", g, lo, hi, rf, ra)
	}
	if arcs["tip"] != g.Teeth || arcs["root"] != g.Teeth {
		t.Errorf("%+v: arcs %v, want %d of each", g, arcs, g.Teeth)
	}

	// The pitch circle: 2z crossings; between each outward crossing and
	// the next inward one a tooth πm/2 wide, then a gap as wide.
	type crossing struct {
		angle   float64
		outward bool
	}
	var cross []crossing
	for i, v := range pl.V {
		w := pl.V[(i+1)%n]
		if v.Bulge != 0 {
			continue
		}
		a, d := v.P.Sub(g.C), w.P.Sub(v.P)
		qa, qb, qc := d.Dot(d), 2*a.Dot(d), a.Dot(a)-r*r
		disc := qb*qb - 4*qa*qc
		if disc < 0 {
			continue
		}
		for _, s := range []float64{(-qb - math.Sqrt(disc)) / (2 * qa), (-qb + math.Sqrt(disc)) / (2 * qa)} {
			if s < -1e-12 || s > 1+1e-12 {
				continue
			}
			p := a.Add(d.Mul(s))
			c := crossing{math.Atan2(p.Y, p.X), p.Dot(d) > 0}
			if len(cross) > 0 && math.Abs(NormRad(cross[len(cross)-1].angle-c.angle+math.Pi)-math.Pi)*r < eps {
				continue // the same crossing, at a vertex, seen from both its segments
			}
			cross = append(cross, c)
		}
	}
	if len(cross) > 1 && math.Abs(NormRad(cross[0].angle-cross[len(cross)-1].angle+math.Pi)-math.Pi)*r < eps {
		cross = cross[:len(cross)-1]
	}
	if len(cross) != 2*g.Teeth {
		t.Fatalf("%+v: %d crossings of the pitch circle, want %d", g, len(cross), 2*g.Teeth)
	}
	sort.Slice(cross, func(i, j int) bool { return cross[i].angle < cross[j].angle })
	for i, c := range cross {
		next := cross[(i+1)%len(cross)]
		arc := NormRad(next.angle-c.angle) * r
		kind := "gap"
		if c.outward {
			kind = "tooth"
		}
		if c.outward == next.outward || math.Abs(arc-math.Pi*m/2) > 1e-9*m*z {
			t.Fatalf("%+v: %s at %v° is %v wide on the pitch circle (next crossing outward %v), want πm/2 = %v", g, kind, Deg(c.angle), arc, next.outward, math.Pi*m/2)
		}
	}

	// Flanks: runs of straight pieces between the start circle and the
	// tip. Each point's tangent to the base circle is as long as the base
	// circle's arc from the run's common origin to the tangent point, and
	// no chord strays more than 1e-4 m from that involute.
	start := math.Max(rb, rf)
	onFlank := func(v Vertex) bool {
		d := v.P.Dist(g.C)
		return d > start-eps && d < ra+eps
	}
	flanks := 0
	for i := 0; i < n; i++ {
		if prev := pl.V[(i+n-1)%n]; !onFlank(pl.V[i]) || prev.Bulge == 0 && onFlank(prev) {
			continue // not the first point of a run
		}
		run := []Vec{pl.V[i].P}
		for j := i; pl.V[j%n].Bulge == 0 && onFlank(pl.V[(j+1)%n]); j++ {
			run = append(run, pl.V[(j+1)%n].P)
		}
		if len(run) < 3 {
			continue // a tip land's two points
		}
		flanks++
		up := run[len(run)-1].Dist(g.C) > run[0].Dist(g.C)
		sign := 1.0 // unwound counter-clockwise: the rising flank
		if !up {
			sign = -1
		}
		var origin float64
		rolls := make([]float64, len(run))
		for k, p := range run {
			q := p.Sub(g.C)
			rho := q.Len()
			tangent := math.Sqrt(math.Max(0, rho*rho-rb*rb))
			// The tangent point: the right angle at it makes the angle at
			// the centre atan(tangent / rb).
			touch := math.Atan2(q.Y, q.X) + sign*math.Atan2(tangent, rb)
			o := touch - sign*tangent/rb
			rolls[k] = tangent / rb
			if k == 0 {
				origin = o
			} else if d := math.Abs(NormRad(o-origin+math.Pi) - math.Pi); d*rb > eps {
				t.Fatalf("%+v: flank point %d unrolls from %v, the flank's first from %v: not one involute", g, k, o, origin)
			}
		}
		involutePt := func(u float64) Vec {
			a := origin + sign*u
			return g.C.Add(Vec{math.Cos(a), math.Sin(a)}.Mul(rb)).Add(Vec{math.Sin(a), -math.Cos(a)}.Mul(sign * rb * u))
		}
		for k := 0; k+1 < len(run); k++ {
			for s := 1; s < 16; s++ {
				u := rolls[k] + (rolls[k+1]-rolls[k])*float64(s)/16
				if d := segmentDist(involutePt(u), run[k], run[k+1]); d > 1e-4*m {
					t.Fatalf("%+v: chord %d of a flank is %v from the involute, want at most 1e-4 m = %v", g, k, d, 1e-4*m)
				}
			}
		}
	}
	if flanks != 2*g.Teeth {
		t.Errorf("%+v: %d flanks, want %d", g, flanks, 2*g.Teeth)
	}

	// Symmetry: turning by one tooth maps each vertex onto the one a tooth
	// further on, with the same bulge.
	step := n / g.Teeth
	turn := RotateAbout(g.C, 360/z)
	for i, v := range pl.V {
		w := pl.V[(i+step)%n]
		if p := turn.Point(v.P); p.Dist(w.P) > eps || v.Bulge != w.Bulge && math.Abs(v.Bulge-w.Bulge) > 1e-12 {
			t.Fatalf("%+v: vertex %d turned by a tooth is %v (bulge %v), want vertex %d %v (bulge %v)", g, i, p, v.Bulge, (i+step)%n, w.P, w.Bulge)
		}
	}
}

func TestSpurGearRefuses(t *testing.T) {
	for _, g := range []SpurGear{
		{Module: 1, Teeth: 5, PressureAngle: Rad(20)},
		{Module: 0, Teeth: 20, PressureAngle: Rad(20)},
		{Module: -1, Teeth: 20, PressureAngle: Rad(20)},
		{Module: 1, Teeth: 20, PressureAngle: 0},
		{Module: 1, Teeth: 6, PressureAngle: Rad(35)}, // pointed teeth
	} {
		if _, err := g.Profile(); err == nil {
			t.Errorf("%+v: Profile succeeded, want an error", g)
		}
	}
}

func TestSpurGearUndercut(t *testing.T) {
	for _, c := range []struct {
		teeth int
		alpha float64
		want  bool
	}{
		{16, 20, true}, {17, 20, false}, {11, 25, false}, {10, 25, true}, {31, 14.5, true}, {32, 14.5, false},
	} {
		g := SpurGear{Module: 1, Teeth: c.teeth, PressureAngle: Rad(c.alpha)}
		if got := g.Undercut(); got != c.want {
			t.Errorf("Undercut(%d teeth, %v°) = %v, want %v", c.teeth, c.alpha, got, c.want)
		}
	}
}
