package geom

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// The drafting oracle: the fillets, chamfers, trims, extensions, breaks,
// joins, arrays, revision clouds, polygons, boundaries and splines of the
// drafting tools, on random figures of sizes 1e-3 to 1e6 placed up to 1e6
// from the origin, each result checked against an independent
// construction: distances and sides in 256-bit floating point or exact
// rationals, closed forms of the figure that was built, a winding number
// counted in rationals, a B-spline evaluated by the Cox–de Boor recursion
// in big floats. The tolerance is by the figure's size, with the rounding
// floor of where it sits (see Tol).

const draftCases = 300

// draftFigure is a random size (1e-3 to 1e6) and placement (the origin,
// or anywhere up to 1e6 from it).
func draftFigure(r *rand.Rand) (size float64, at Vec) {
	size = math.Pow(10, -3+9*r.Float64())
	place := 0.0
	if r.IntN(3) > 0 {
		place = math.Pow(10, 6*r.Float64())
	}
	return size, Pt(place*(2*r.Float64()-1), place*(2*r.Float64()-1))
}

// draftTol is the tolerance for points of a figure of the given size at at.
func draftTol(size float64, at Vec) float64 { return 4 * Tol(size, at.Mag()+size) }

func dirOf(a float64) Vec { return Pt(math.Cos(a), math.Sin(a)) }

const bigPrec = 256

func bf(x float64) *big.Float { return new(big.Float).SetPrec(bigPrec).SetFloat64(x) }
func bnew() *big.Float        { return new(big.Float).SetPrec(bigPrec) }

func bsub(a, b *big.Float) *big.Float { return bnew().Sub(a, b) }
func badd(a, b *big.Float) *big.Float { return bnew().Add(a, b) }
func bmul(a, b *big.Float) *big.Float { return bnew().Mul(a, b) }
func bquo(a, b *big.Float) *big.Float { return bnew().Quo(a, b) }

func f64(x *big.Float) float64 { v, _ := x.Float64(); return v }

// bigDist is |p − q| in big floats.
func bigDist(p, q Vec) float64 {
	dx, dy := bsub(bf(p.X), bf(q.X)), bsub(bf(p.Y), bf(q.Y))
	return f64(bnew().Sqrt(badd(bmul(dx, dx), bmul(dy, dy))))
}

// bigLineDist is the signed distance of p from the line through a and b
// (positive to its left), in big floats.
func bigLineDist(p, a, b Vec) float64 {
	dx, dy := bsub(bf(b.X), bf(a.X)), bsub(bf(b.Y), bf(a.Y))
	wx, wy := bsub(bf(p.X), bf(a.X)), bsub(bf(p.Y), bf(a.Y))
	cr := bsub(bmul(dx, wy), bmul(dy, wx))
	return f64(bquo(cr, bnew().Sqrt(badd(bmul(dx, dx), bmul(dy, dy)))))
}

// bigSegDist is the distance of p from the segment ab, in big floats.
func bigSegDist(p, a, b Vec) float64 {
	dx, dy := bsub(bf(b.X), bf(a.X)), bsub(bf(b.Y), bf(a.Y))
	wx, wy := bsub(bf(p.X), bf(a.X)), bsub(bf(p.Y), bf(a.Y))
	dd := badd(bmul(dx, dx), bmul(dy, dy))
	t := bquo(badd(bmul(dx, wx), bmul(dy, wy)), dd)
	if t.Sign() <= 0 {
		return bigDist(p, a)
	}
	if t.Cmp(bf(1)) >= 0 {
		return bigDist(p, b)
	}
	return math.Abs(bigLineDist(p, a, b))
}

// exactLines is where the lines through s and t meet, in rationals
// (false when parallel).
func exactLines(s, t Segment) (Vec, bool) {
	sub := func(a, b *big.Rat) *big.Rat { return new(big.Rat).Sub(a, b) }
	mul := func(a, b *big.Rat) *big.Rat { return new(big.Rat).Mul(a, b) }
	ax, ay := ratOf(s.A.X), ratOf(s.A.Y)
	d1x, d1y := sub(ratOf(s.B.X), ax), sub(ratOf(s.B.Y), ay)
	d2x, d2y := sub(ratOf(t.B.X), ratOf(t.A.X)), sub(ratOf(t.B.Y), ratOf(t.A.Y))
	den := sub(mul(d1x, d2y), mul(d1y, d2x))
	if den.Sign() == 0 {
		return Vec{}, false
	}
	wx, wy := sub(ratOf(t.A.X), ax), sub(ratOf(t.A.Y), ay)
	u := new(big.Rat).Quo(sub(mul(wx, d2y), mul(wy, d2x)), den)
	x, _ := new(big.Rat).Add(ax, mul(u, d1x)).Float64()
	y, _ := new(big.Rat).Add(ay, mul(u, d1y)).Float64()
	return Pt(x, y), true
}

// exactOrient is the sign of the turn a → b → c, exactly.
func exactOrient(a, b, c Vec) int {
	sub := func(a, b float64) *big.Rat { return new(big.Rat).Sub(ratOf(a), ratOf(b)) }
	l := new(big.Rat).Mul(sub(b.X, a.X), sub(c.Y, a.Y))
	r := new(big.Rat).Mul(sub(b.Y, a.Y), sub(c.X, a.X))
	return l.Cmp(r)
}

// exactWinding is the winding number of the polygon around q, counted
// exactly (Sunday's crossing rule with exact orientations).
func exactWinding(ps []Vec, q Vec) int {
	w := 0
	for i := range ps {
		a, b := ps[i], ps[(i+1)%len(ps)]
		if a.Y <= q.Y {
			if b.Y > q.Y && exactOrient(a, b, q) > 0 {
				w++
			}
		} else if b.Y <= q.Y && exactOrient(a, b, q) < 0 {
			w--
		}
	}
	return w
}

// bigPolyDist is the distance of q from the polygon's sides.
func bigPolyDist(ps []Vec, q Vec) float64 {
	d := math.Inf(1)
	for i := range ps {
		d = math.Min(d, bigSegDist(q, ps[i], ps[(i+1)%len(ps)]))
	}
	return d
}

// starPolygon is a simple polygon: n corners at increasing angles round
// c, each at its own distance (0.3 to 1 times size).
func starPolygon(r *rand.Rand, c Vec, size float64, n int, convex bool) []Vec {
	angles := make([]float64, n)
	for i := range angles {
		angles[i] = 2 * math.Pi * (float64(i) + 0.1 + 0.8*r.Float64()) / float64(n)
	}
	ps := make([]Vec, n)
	for i, a := range angles {
		rad := size * (0.3 + 0.7*r.Float64())
		if convex {
			rad = size
		}
		ps[i] = c.Add(dirOf(a).Mul(rad))
	}
	return ps
}

// cornerCase is two segments on rays from a corner x along u1 and u2
// (theta apart, 15° to 165°): each from g (before the corner, or short
// of it) to l along its ray, in a random order; pick1 and pick2 lie on the
// rays.
type cornerCase struct {
	x, u1, u2    Vec
	theta        float64
	l1, l2       float64
	s1, s2       Segment
	pick1, pick2 Vec
}

func randomCorner(r *rand.Rand, size float64, at Vec) cornerCase {
	var k cornerCase
	k.x = at.Add(Pt(size*r.Float64(), size*r.Float64()))
	a1 := 2 * math.Pi * r.Float64()
	k.theta = Rad(15 + 150*r.Float64())
	a2 := a1 + k.theta
	if r.IntN(2) == 0 {
		a2 = a1 - k.theta
	}
	k.u1, k.u2 = dirOf(a1), dirOf(a2)
	k.l1, k.l2 = size*(0.5+r.Float64()), size*(0.5+r.Float64())
	seg := func(u Vec, l float64) Segment {
		g := size * 0.2 * (2*r.Float64() - 1)
		s := Segment{k.x.Add(u.Mul(g)), k.x.Add(u.Mul(l))}
		if r.IntN(2) == 0 {
			s.A, s.B = s.B, s.A
		}
		return s
	}
	k.s1, k.s2 = seg(k.u1, k.l1), seg(k.u2, k.l2)
	k.pick1, k.pick2 = k.x.Add(k.u1.Mul(0.9*k.l1)), k.x.Add(k.u2.Mul(0.9*k.l2))
	return k
}

// segEnds reports whether the segment (an any) has the ends p and q, in
// either order, within tol.
func segEnds(c any, p, q Vec, tol float64) bool {
	s, ok := c.(Segment)
	if !ok {
		return false
	}
	return (s.A.Dist(p) <= tol && s.B.Dist(q) <= tol) || (s.A.Dist(q) <= tol && s.B.Dist(p) <= tol)
}

// TestOracleFilletLines fillets two lines at a random corner: the centre
// is r from both lines (big floats) on the picked sides, at r/sin(θ/2)
// from the corner; each tangent point is on its line, r from the centre,
// at r/tan(θ/2) from the corner, and the arc's radius there is square to
// the line (its tangent along it); the arc sweeps π − θ between the
// tangent points; each kept segment runs from its tangent point to the
// far end of its line.
func TestOracleFilletLines(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for k := 0; k < draftCases; k++ {
		size, at := draftFigure(r)
		c := randomCorner(r, size, at)
		tdist := math.Min(c.l1, c.l2) * (0.05 + 0.6*r.Float64())
		rad := tdist * math.Tan(c.theta/2)
		got, err := Fillet(c.s1, c.s2, rad, c.pick1, c.pick2)
		if err != nil {
			t.Errorf("case %d (size %g at %v): Fillet(%v, %v, %g) = %v", k, size, at, c.s1, c.s2, rad, err)
			continue
		}
		tol := draftTol(size, at)
		ctr := got.Arc.C
		for i, l := range []Segment{c.s1, c.s2} {
			if d := math.Abs(bigLineDist(ctr, l.A, l.B)); math.Abs(d-rad) > tol {
				t.Errorf("case %d (size %g at %v): centre %v is %g from line %d, want %g", k, size, at, ctr, d, i+1, rad)
			}
		}
		if ctr.Sub(c.x).Dot(c.u1) <= 0 || ctr.Sub(c.x).Dot(c.u2) <= 0 {
			t.Errorf("case %d: centre %v not between the picked rays from %v", k, ctr, c.x)
		}
		if d := bigDist(ctr, c.x); math.Abs(d-rad/math.Sin(c.theta/2)) > tol {
			t.Errorf("case %d: centre %g from the corner, want %g", k, d, rad/math.Sin(c.theta/2))
		}
		for i, tp := range []struct {
			p    Vec
			l    Segment
			u    Vec
			keep any
			far  Vec
		}{{got.T1, c.s1, c.u1, got.Keep1, c.x.Add(c.u1.Mul(c.l1))}, {got.T2, c.s2, c.u2, got.Keep2, c.x.Add(c.u2.Mul(c.l2))}} {
			if d := math.Abs(bigLineDist(tp.p, tp.l.A, tp.l.B)); d > tol {
				t.Errorf("case %d (size %g at %v): tangent point %d %v is %g off its line", k, size, at, i+1, tp.p, d)
			}
			if d := bigDist(tp.p, ctr); math.Abs(d-rad) > tol {
				t.Errorf("case %d: tangent point %d is %g from the centre, want %g", k, i+1, d, rad)
			}
			if d := tp.p.Sub(c.x).Dot(tp.u); math.Abs(d-tdist) > tol {
				t.Errorf("case %d (size %g at %v): tangent point %d at %g along its line, want %g", k, size, at, i+1, d, tdist)
			}
			if cos := math.Abs(tp.p.Sub(ctr).Unit().Dot(tp.u)); cos*rad > tol {
				t.Errorf("case %d: the arc's radius at tangent point %d is not square to the line (cos %g)", k, i+1, cos)
			}
			if !segEnds(tp.keep, tp.p, tp.far, tol) {
				t.Errorf("case %d: kept part %d = %v, want %v to %v", k, i+1, tp.keep, tp.p, tp.far)
			}
		}
		a := got.Arc
		if math.Abs(a.R-rad) > tol {
			t.Errorf("case %d: arc radius %g, want %g", k, a.R, rad)
		}
		if math.Abs(a.Sweep-(math.Pi-c.theta))*rad > tol {
			t.Errorf("case %d: arc sweep %g, want π − θ = %g", k, a.Sweep, math.Pi-c.theta)
		}
		e1, e2 := a.At(a.Start), a.At(a.Start+a.Sweep)
		if !(e1.Dist(got.T1) <= tol && e2.Dist(got.T2) <= tol) && !(e1.Dist(got.T2) <= tol && e2.Dist(got.T1) <= tol) {
			t.Errorf("case %d: the arc runs %v to %v, not between the tangent points %v and %v", k, e1, e2, got.T1, got.T2)
		}
	}
}

// checkTangentCircle checks that a fillet arc (centre c, radius rad)
// touches the circle (o, R) at p: p on both circles, and o, c, p in a
// line (the circles' normals agree there).
func checkTangentCircle(t *testing.T, k int, c Vec, rad float64, o Vec, R float64, p Vec, tol float64) {
	t.Helper()
	if d := bigDist(p, o); math.Abs(d-R) > tol {
		t.Errorf("case %d: tangent point %v is %g from the circle's centre, want %g", k, p, d, R)
	}
	if d := bigDist(p, c); math.Abs(d-rad) > tol {
		t.Errorf("case %d: tangent point %v is %g from the fillet's centre, want %g", k, p, d, rad)
	}
	if d := bigDist(c, o); math.Abs(d-(R+rad)) > tol && math.Abs(d-math.Abs(R-rad)) > tol {
		t.Errorf("case %d: centres %g apart, want %g or %g", k, d, R+rad, math.Abs(R-rad))
	}
	if o.Dist(c) > tol {
		if d := math.Abs(bigLineDist(p, o, c)); d > tol {
			t.Errorf("case %d: tangent point %v is %g off the line of the centres", k, p, d)
		}
	}
}

// TestOracleFilletCircles fillets a line and a circle, and two circles,
// picked at random: when a fillet is found, its centre is r from the line
// (big floats) and R ± r from each circle's centre, and each tangent
// point is on its curve and on the fillet, a circle's on the line of the
// two centres. Most cases must find one.
func TestOracleFilletCircles(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	found := 0
	for k := 0; k < draftCases; k++ {
		size, at := draftFigure(r)
		tol := draftTol(size, at)
		o := at.Add(Pt(size*r.Float64(), size*r.Float64()))
		R := size * (0.2 + 0.8*r.Float64())
		circle := Arc{C: o, R: R, Sweep: 2 * math.Pi}
		rad := size * (0.05 + 0.5*r.Float64())
		pick2 := o.Add(dirOf(2 * math.Pi * r.Float64()).Mul(R))
		if k%2 == 0 {
			d := dirOf(2 * math.Pi * r.Float64())
			foot := o.Add(d.Perp().Mul(R * 1.5 * (2*r.Float64() - 1)))
			line := Segment{foot.Sub(d.Mul(2 * R)), foot.Add(d.Mul(2 * R))}
			pick1 := foot.Add(d.Mul(1.8 * R))
			if r.IntN(2) == 0 {
				pick1 = foot.Sub(d.Mul(1.8 * R))
			}
			got, err := Fillet(line, circle, rad, pick1, pick2)
			if err != nil {
				if !errors.Is(err, ErrNoFillet) && !errors.Is(err, ErrTooLarge) {
					t.Errorf("case %d: Fillet(%v, %v, %g) = %v", k, line, circle, rad, err)
				}
				continue
			}
			found++
			if d := math.Abs(bigLineDist(got.Arc.C, line.A, line.B)); math.Abs(d-rad) > tol {
				t.Errorf("case %d (size %g at %v): centre %g from the line, want %g", k, size, at, d, rad)
			}
			if d := math.Abs(bigLineDist(got.T1, line.A, line.B)); d > tol {
				t.Errorf("case %d: tangent point %v is %g off the line", k, got.T1, d)
			}
			if d := bigDist(got.T1, got.Arc.C); math.Abs(d-rad) > tol {
				t.Errorf("case %d: tangent point on the line is %g from the centre, want %g", k, d, rad)
			}
			checkTangentCircle(t, k, got.Arc.C, rad, o, R, got.T2, tol)
			continue
		}
		o2 := at.Add(Pt(size*r.Float64(), size*r.Float64()))
		R2 := size * (0.2 + 0.8*r.Float64())
		pick1 := o2.Add(dirOf(2 * math.Pi * r.Float64()).Mul(R2))
		got, err := Fillet(Arc{C: o2, R: R2, Sweep: 2 * math.Pi}, circle, rad, pick1, pick2)
		if err != nil {
			if !errors.Is(err, ErrNoFillet) && !errors.Is(err, ErrTooLarge) {
				t.Errorf("case %d: Fillet of two circles = %v", k, err)
			}
			continue
		}
		found++
		checkTangentCircle(t, k, got.Arc.C, rad, o2, R2, got.T1, tol)
		checkTangentCircle(t, k, got.Arc.C, rad, o, R, got.T2, tol)
	}
	if found < draftCases/2 {
		t.Errorf("only %d of %d fillets with circles found", found, draftCases)
	}
	t.Logf("fillets with circles: %d of %d found and checked", found, draftCases)
}

// TestOracleChamfer chamfers two lines at a random corner: each cut point
// is on its line, d1 and d2 from where the lines meet (in rationals) on
// the picked side, and each kept segment runs from its cut point to the
// far end of its line.
func TestOracleChamfer(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for k := 0; k < draftCases; k++ {
		size, at := draftFigure(r)
		c := randomCorner(r, size, at)
		d1, d2 := c.l1*(0.05+0.6*r.Float64()), c.l2*(0.05+0.6*r.Float64())
		got, err := Chamfer(c.s1, c.s2, d1, d2, c.pick1, c.pick2)
		if err != nil {
			t.Errorf("case %d (size %g at %v): Chamfer(%v, %v, %g, %g) = %v", k, size, at, c.s1, c.s2, d1, d2, err)
			continue
		}
		tol := draftTol(size, at)
		x, ok := exactLines(c.s1, c.s2)
		if !ok {
			t.Fatalf("case %d: the lines are parallel", k)
		}
		for i, cut := range []struct {
			p, pick, far Vec
			l            Segment
			d            float64
			keep         any
		}{{got.T1, c.pick1, c.x.Add(c.u1.Mul(c.l1)), c.s1, d1, got.Keep1}, {got.T2, c.pick2, c.x.Add(c.u2.Mul(c.l2)), c.s2, d2, got.Keep2}} {
			if d := math.Abs(bigLineDist(cut.p, cut.l.A, cut.l.B)); d > tol {
				t.Errorf("case %d (size %g at %v): cut point %d %v is %g off its line", k, size, at, i+1, cut.p, d)
			}
			if d := bigDist(cut.p, x); math.Abs(d-cut.d) > tol {
				t.Errorf("case %d (size %g at %v): cut point %d is %g from the corner, want %g", k, size, at, i+1, d, cut.d)
			}
			if cut.p.Sub(x).Dot(cut.pick.Sub(x)) <= 0 {
				t.Errorf("case %d: cut point %d %v is not on the picked side of the corner %v", k, i+1, cut.p, x)
			}
			if !segEnds(cut.keep, cut.p, cut.far, tol) {
				t.Errorf("case %d: kept part %d = %v, want %v to %v", k, i+1, cut.keep, cut.p, cut.far)
			}
		}
	}
}

// TestOraclePolylineCorners rounds or cuts one corner of a random convex
// polygon: a fillet's two new vertices are on the corner's sides (big
// floats) at equal distances from the corner, and its bulge arc has the
// radius, its centre r from both sides' lines and inside the polygon; a
// chamfer's new vertices are on the sides, d1 back along the side into
// the corner and d2 along the side out of it. The other vertices stay.
func TestOraclePolylineCorners(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	done := 0
	for k := 0; k < draftCases; k++ {
		size, at := draftFigure(r)
		n := 3 + r.IntN(6)
		ps := starPolygon(r, at, size, n, true)
		if r.IntN(2) == 0 { // clockwise half the time
			for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
				ps[i], ps[j] = ps[j], ps[i]
			}
		}
		g := Polyline{Closed: true}
		for _, p := range ps {
			g.V = append(g.V, Vertex{P: p})
		}
		i := r.IntN(n)
		prev, next := ps[(i-1+n)%n], ps[(i+1)%n]
		short := math.Min(ps[i].Dist(prev), ps[i].Dist(next))
		chamfer := k%2 == 1
		rad := size * 0.01 * (0.1 + r.Float64())
		d1, d2 := short*0.4*r.Float64(), short*0.4*r.Float64()
		got, count, err := PolylineCorners(g, i, chamfer, rad, d1, d2)
		if errors.Is(err, ErrTooLarge) {
			continue // a sharp corner: the fillet does not fit
		}
		if err != nil || count != 1 || len(got.V) != n+1 {
			t.Errorf("case %d (size %g at %v): PolylineCorners(%v, %d, %v, %g, %g, %g) = %d vertices, %d, %v", k, size, at, ps, i, chamfer, rad, d1, d2, len(got.V), count, err)
			continue
		}
		done++
		tol := draftTol(size, at)
		// The new vertices are i and i+1; the rest are the old ones.
		for j := 0; j < n; j++ {
			if j == i {
				continue
			}
			nj := j
			if j > i {
				nj = j + 1
			}
			if got.V[nj].P != ps[j] {
				t.Errorf("case %d: vertex %d moved from %v to %v", k, j, ps[j], got.V[nj].P)
			}
		}
		a, b := got.V[i], got.V[i+1]
		if d := math.Abs(bigLineDist(a.P, prev, ps[i])); d > tol {
			t.Errorf("case %d (size %g at %v): new vertex %v is %g off the side into the corner", k, size, at, a.P, d)
		}
		if d := math.Abs(bigLineDist(b.P, ps[i], next)); d > tol {
			t.Errorf("case %d (size %g at %v): new vertex %v is %g off the side out of the corner", k, size, at, b.P, d)
		}
		da, db := bigDist(a.P, ps[i]), bigDist(b.P, ps[i])
		if chamfer {
			if math.Abs(da-d1) > tol || math.Abs(db-d2) > tol || a.Bulge != 0 {
				t.Errorf("case %d (size %g at %v): chamfer cut %g and %g from the corner (bulge %g), want %g and %g", k, size, at, da, db, a.Bulge, d1, d2)
			}
			continue
		}
		if math.Abs(da-db) > tol {
			t.Errorf("case %d: fillet's tangent points %g and %g from the corner", k, da, db)
		}
		arc := BulgeArc(a.P, b.P, a.Bulge)
		if math.Abs(arc.R-rad) > tol {
			t.Errorf("case %d (size %g at %v): fillet arc radius %g, want %g", k, size, at, arc.R, rad)
		}
		for _, side := range [][2]Vec{{prev, ps[i]}, {ps[i], next}} {
			if d := math.Abs(bigLineDist(arc.C, side[0], side[1])); math.Abs(d-rad) > tol {
				t.Errorf("case %d (size %g at %v): fillet centre %g from a side, want %g", k, size, at, d, rad)
			}
		}
		if exactWinding(ps, arc.C) == 0 {
			t.Errorf("case %d: fillet centre %v outside the polygon", k, arc.C)
		}
	}
	if done < draftCases/2 {
		t.Errorf("only %d of %d corners changed", done, draftCases)
	}
	t.Logf("polyline corners: %d of %d changed and checked", done, draftCases)
}

// crossingCutter is a segment of length about size through the point
// p at 20° to 160° from the direction u.
func crossingCutter(r *rand.Rand, p, u Vec, size float64) Segment {
	d := dirOf(u.Angle() + Rad(20+140*r.Float64()))
	return Segment{p.Sub(d.Mul(size * (0.2 + 0.5*r.Float64()))), p.Add(d.Mul(size * (0.2 + 0.5*r.Float64())))}
}

// TestOracleTrim trims a random segment crossed by two cutting edges, the
// pick between the cuts (two parts kept) or before the first (one kept):
// each kept part keeps its far end, and its new end lies on its cutter
// and where the segment crosses it (in rationals). It trims a circle
// crossed by a line too: the arc left has both ends on the line and on
// the circle, and lies on the other side of the line from the pick.
func TestOracleTrim(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 30))
	for k := 0; k < draftCases; k++ {
		size, at := draftFigure(r)
		tol := draftTol(size, at)
		if k%3 == 2 {
			o := at.Add(Pt(size*r.Float64(), size*r.Float64()))
			R := size * (0.3 + 0.7*r.Float64())
			d := dirOf(2 * math.Pi * r.Float64())
			n := d.Perp()
			foot := o.Add(n.Mul(R * 0.8 * (2*r.Float64() - 1)))
			line := Segment{foot.Sub(d.Mul(2 * R)), foot.Add(d.Mul(2 * R))}
			// The pick: the circle's point furthest on one side of the line.
			side := 1.0
			if r.IntN(2) == 0 {
				side = -1
			}
			pick := o.Add(n.Mul(side * R))
			got, err := Trim(Arc{C: o, R: R, Sweep: 2 * math.Pi}, []any{line}, pick)
			if err != nil || len(got) != 1 {
				t.Errorf("case %d (size %g at %v): Trim(circle %v %g, %v, %v) = %v, %v", k, size, at, o, R, line, pick, got, err)
				continue
			}
			a, ok := got[0].(Arc)
			if !ok {
				t.Errorf("case %d: trimmed circle is %T", k, got[0])
				continue
			}
			for _, e := range []Vec{a.At(a.Start), a.At(a.Start + a.Sweep)} {
				if dl, dc := math.Abs(bigLineDist(e, line.A, line.B)), bigDist(e, o); dl > tol || math.Abs(dc-R) > tol {
					t.Errorf("case %d (size %g at %v): arc end %v is %g off the line and %g from the centre (radius %g)", k, size, at, e, dl, dc, R)
				}
			}
			mid := a.At(a.Start + a.Sweep/2)
			if bigLineDist(mid, line.A, line.B)*bigLineDist(pick, line.A, line.B) >= 0 {
				t.Errorf("case %d: the arc left (middle %v) is on the pick's side of the line", k, mid)
			}
			continue
		}
		s := Segment{at.Add(Pt(size*r.Float64(), size*r.Float64())), at.Add(Pt(size*r.Float64(), size*r.Float64()))}
		if s.Length() < size/4 {
			s.B = s.A.Add(s.B.Sub(s.A).Unit().Mul(size / 4))
		}
		u := s.B.Sub(s.A).Unit()
		t1 := 0.1 + 0.35*r.Float64()
		t2 := t1 + 0.1 + 0.35*r.Float64()
		c1 := crossingCutter(r, lerp(s.A, s.B, t1), u, size)
		c2 := crossingCutter(r, lerp(s.A, s.B, t2), u, size)
		x1, ok1 := exactSegments(s, c1)
		x2, ok2 := exactSegments(s, c2)
		if !ok1 || !ok2 {
			t.Fatalf("case %d: the cutters do not cross the segment", k)
		}
		between := k%3 == 0
		pick := lerp(s.A, s.B, (t1+t2)/2)
		if !between {
			pick = lerp(s.A, s.B, t1/2)
		}
		got, err := Trim(s, []any{c2, c1}, pick)
		if err != nil {
			t.Errorf("case %d (size %g at %v): Trim(%v, %v) = %v", k, size, at, s, []Segment{c1, c2}, err)
			continue
		}
		var want [][2]Vec
		var cutters []Segment
		if between {
			want, cutters = [][2]Vec{{s.A, x1}, {x2, s.B}}, []Segment{c1, c2}
		} else {
			want, cutters = [][2]Vec{{x1, s.B}}, []Segment{c1}
		}
		if len(got) != len(want) {
			t.Errorf("case %d (size %g at %v): Trim(%v, …, %v) = %d parts, want %d", k, size, at, s, pick, len(got), len(want))
			continue
		}
		for i, w := range want {
			g, ok := got[i].(Segment)
			if !ok || g.A.Dist(w[0]) > tol || g.B.Dist(w[1]) > tol {
				t.Errorf("case %d (size %g at %v): part %d = %v, want %v", k, size, at, i, got[i], w)
				continue
			}
			end := g.B
			if !between {
				end = g.A
			}
			if i == 1 {
				end = g.A
			}
			if d := math.Abs(bigLineDist(end, cutters[i].A, cutters[i].B)); d > tol {
				t.Errorf("case %d (size %g at %v): part %d's new end %v is %g off its cutter", k, size, at, i, end, d)
			}
		}
	}
}

// TestOracleExtend extends a random segment to a boundary ahead of its
// picked end, and an arc round its circle to a boundary line: the new end
// lies on the boundary (big floats), where the line meets it (rationals),
// the segment's new end on the original's line beyond the old end and the
// other end unmoved; the arc keeps its centre and radius and its other
// end.
func TestOracleExtend(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for k := 0; k < draftCases; k++ {
		size, at := draftFigure(r)
		tol := draftTol(size, at)
		if k%2 == 1 {
			o := at.Add(Pt(size*r.Float64(), size*r.Float64()))
			R := size * (0.3 + 0.7*r.Float64())
			a := Arc{C: o, R: R, Start: 2 * math.Pi * r.Float64(), Sweep: 0.3 + 2*r.Float64()}
			gap := 0.2 + 2*r.Float64()
			ahead := a.At(a.Start + a.Sweep + gap) // on the circle beyond the end
			radial := ahead.Sub(o).Unit()
			bnd := Segment{ahead.Sub(radial.Mul(0.3 * R)), ahead.Add(radial.Mul(0.3 * R))}
			got, err := Extend(a, []any{bnd}, a.At(a.Start+a.Sweep*0.9))
			if err != nil {
				t.Errorf("case %d (size %g at %v): Extend(%v, %v) = %v", k, size, at, a, bnd, err)
				continue
			}
			g := got.(Arc)
			end, start := g.At(g.Start+g.Sweep), g.At(g.Start)
			if g.C != a.C || g.R != a.R || start.Dist(a.At(a.Start)) > tol {
				t.Errorf("case %d: extended arc %v moved from %v", k, g, a)
			}
			if d := math.Abs(bigLineDist(end, bnd.A, bnd.B)); d > tol || end.Dist(ahead) > tol {
				t.Errorf("case %d (size %g at %v): extended arc ends at %v, %g off the boundary; want %v", k, size, at, end, d, ahead)
			}
			if math.Abs(g.Sweep-(a.Sweep+gap))*R > tol {
				t.Errorf("case %d: extended sweep %g, want %g", k, g.Sweep, a.Sweep+gap)
			}
			continue
		}
		s := Segment{at.Add(Pt(size*r.Float64(), size*r.Float64())), at.Add(Pt(size*r.Float64(), size*r.Float64()))}
		if s.Length() < size/4 {
			s.B = s.A.Add(s.B.Sub(s.A).Unit().Mul(size / 4))
		}
		atB := r.IntN(2) == 0
		from, end := s.A, s.B
		if !atB {
			from, end = s.B, s.A
		}
		u := end.Sub(from).Unit()
		bnd := crossingCutter(r, end.Add(u.Mul(size*(0.05+r.Float64()))), u, size)
		want, ok := exactLines(s, bnd)
		if !ok {
			t.Fatalf("case %d: parallel boundary", k)
		}
		got, err := Extend(s, []any{bnd}, lerp(from, end, 0.9))
		if err != nil {
			t.Errorf("case %d (size %g at %v): Extend(%v, %v) = %v", k, size, at, s, bnd, err)
			continue
		}
		g := got.(Segment)
		kept, moved := g.A, g.B
		if !atB {
			kept, moved = g.B, g.A
		}
		if kept != from {
			t.Errorf("case %d: the far end moved from %v to %v", k, from, kept)
		}
		if d := math.Abs(bigLineDist(moved, bnd.A, bnd.B)); d > tol || moved.Dist(want) > tol {
			t.Errorf("case %d (size %g at %v): new end %v is %g off the boundary, want %v", k, size, at, moved, d, want)
		}
		if d := math.Abs(bigLineDist(moved, s.A, s.B)); d > tol {
			t.Errorf("case %d (size %g at %v): new end %v is %g off the segment's line", k, size, at, moved, d)
		}
		if moved.Sub(end).Dot(u) <= 0 {
			t.Errorf("case %d: new end %v is not beyond the old end %v", k, moved, end)
		}
	}
}

// TestOracleBreak breaks a random segment at a point near it (two parts
// meeting at the point's foot, computed in big floats) or between two
// (the parts from each end to the nearer foot).
func TestOracleBreak(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for k := 0; k < draftCases; k++ {
		size, at := draftFigure(r)
		tol := draftTol(size, at)
		s := Segment{at.Add(Pt(size*r.Float64(), size*r.Float64())), at.Add(Pt(size*r.Float64(), size*r.Float64()))}
		if s.Length() < size/4 {
			s.B = s.A.Add(s.B.Sub(s.A).Unit().Mul(size / 4))
		}
		n := s.B.Sub(s.A).Unit().Perp()
		t1 := 0.1 + 0.35*r.Float64()
		t2 := t1 + 0.1 + 0.35*r.Float64()
		p1 := lerp(s.A, s.B, t1).Add(n.Mul(size * 0.1 * (2*r.Float64() - 1)))
		p2 := lerp(s.A, s.B, t2).Add(n.Mul(size * 0.1 * (2*r.Float64() - 1)))
		f1, f2 := bigFoot(p1, s), bigFoot(p2, s)
		var got []any
		var err error
		var want [][2]Vec
		if k%2 == 0 {
			got, err = Break(s, p1, nil)
			want = [][2]Vec{{s.A, f1}, {f1, s.B}}
		} else {
			got, err = Break(s, p2, &p1)
			want = [][2]Vec{{s.A, f1}, {f2, s.B}}
		}
		if err != nil || len(got) != len(want) {
			t.Errorf("case %d (size %g at %v): Break(%v, %v, %v) = %v, %v", k, size, at, s, p1, p2, got, err)
			continue
		}
		for i, w := range want {
			g, ok := got[i].(Segment)
			if !ok || g.A.Dist(w[0]) > tol || g.B.Dist(w[1]) > tol {
				t.Errorf("case %d (size %g at %v): part %d = %v, want %v", k, size, at, i, got[i], w)
			}
		}
	}
}

// bigFoot is the foot of p on the line of s, in big floats.
func bigFoot(p Vec, s Segment) Vec {
	dx, dy := bsub(bf(s.B.X), bf(s.A.X)), bsub(bf(s.B.Y), bf(s.A.Y))
	wx, wy := bsub(bf(p.X), bf(s.A.X)), bsub(bf(p.Y), bf(s.A.Y))
	t := bquo(badd(bmul(dx, wx), bmul(dy, wy)), badd(bmul(dx, dx), bmul(dy, dy)))
	return Pt(f64(badd(bf(s.A.X), bmul(t, dx))), f64(badd(bf(s.A.Y), bmul(t, dy))))
}

// TestOracleJoin joins a segment cut into three collinear pieces with
// gaps, shuffled and some reversed (the whole segment back), and a random
// chain of segments given end to end, some reversed (a polyline through
// the chain's points, in order from the first segment's start).
func TestOracleJoin(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	for k := 0; k < draftCases; k++ {
		size, at := draftFigure(r)
		tol := draftTol(size, at)
		if k%2 == 0 {
			s := Segment{at.Add(Pt(size*r.Float64(), size*r.Float64())), at.Add(Pt(size*r.Float64(), size*r.Float64()))}
			if s.Length() < size/4 {
				s.B = s.A.Add(s.B.Sub(s.A).Unit().Mul(size / 4))
			}
			ts := []float64{0, 0.2 + 0.1*r.Float64(), 0.35 + 0.1*r.Float64(), 0.55 + 0.1*r.Float64(), 0.7 + 0.1*r.Float64(), 1}
			var pieces []any
			for i := 0; i < 6; i += 2 {
				p := Segment{lerp(s.A, s.B, ts[i]), lerp(s.A, s.B, ts[i+1])}
				if ts[i] == 0 {
					p.A = s.A
				}
				if ts[i+1] == 1 {
					p.B = s.B
				}
				if r.IntN(2) == 0 {
					p.A, p.B = p.B, p.A
				}
				pieces = append(pieces, p)
			}
			r.Shuffle(len(pieces), func(i, j int) { pieces[i], pieces[j] = pieces[j], pieces[i] })
			got, err := Join(pieces)
			if err != nil || !segEnds(got, s.A, s.B, tol) {
				t.Errorf("case %d (size %g at %v): Join(%v) = %v, %v; want %v", k, size, at, pieces, got, err, s)
			}
			continue
		}
		n := 3 + r.IntN(4)
		ps := make([]Vec, n)
		for i := range ps {
			ps[i] = at.Add(Pt(size*float64(i)/float64(n), size*r.Float64()))
		}
		var cs []any
		for i := 0; i+1 < n; i++ {
			s := Segment{ps[i], ps[i+1]}
			if i > 0 && r.IntN(2) == 0 {
				s.A, s.B = s.B, s.A
			}
			cs = append(cs, s)
		}
		got, err := Join(cs)
		g, ok := got.(Polyline)
		if err != nil || !ok || g.Closed || len(g.V) != n {
			t.Errorf("case %d (size %g at %v): Join(%v) = %v, %v; want a polyline through %v", k, size, at, cs, got, err, ps)
			continue
		}
		for i, v := range g.V {
			if v.P.Dist(ps[i]) > tol || v.Bulge != 0 {
				t.Errorf("case %d: vertex %d = %v, want %v", k, i, v, ps[i])
			}
		}
	}
}

// bigPi is π to 100 digits.
var bigPi, _ = new(big.Float).SetPrec(bigPrec).SetString("3.141592653589793238462643383279502884197169399375105820974944592307816406286208998628034825342117068")

// bigSinCos is sin and cos of x (radians, |x| up to a few turns) by their
// Taylor series in big floats.
func bigSinCos(x *big.Float) (sin, cos *big.Float) {
	sin, cos = bnew(), bf(1)
	term := bf(1) // x^n / n!
	for n := 1; n < 200; n++ {
		term = bquo(bmul(term, x), bf(float64(n)))
		switch n % 4 {
		case 1:
			sin = badd(sin, term)
		case 2:
			cos = bsub(cos, term)
		case 3:
			sin = bsub(sin, term)
		case 0:
			cos = badd(cos, term)
		}
	}
	return sin, cos
}

// bigRotate turns p about c by deg degrees (a rational) in big floats.
func bigRotate(p, c Vec, deg *big.Rat) Vec {
	rad := bquo(bmul(bnew().SetRat(deg), bigPi), bf(180))
	s, co := bigSinCos(rad)
	dx, dy := bsub(bf(p.X), bf(c.X)), bsub(bf(p.Y), bf(c.Y))
	x := badd(bf(c.X), bsub(bmul(co, dx), bmul(s, dy)))
	y := badd(bf(c.Y), badd(bmul(s, dx), bmul(co, dy)))
	return Pt(f64(x), f64(y))
}

// TestOracleArrays checks a polar array's angles against fill·i/steps in
// rationals (to a unit in the last place; multiples of 90° exactly) and
// the copies they make (RotateAbout about a random centre) against a
// rotation in big floats with a 100-digit π; and a grid's offsets against
// column·spacing along the angle plus row·spacing across it, in big
// floats.
func TestOracleArrays(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 38))
	copies := 0
	for k := 0; k < draftCases; k++ {
		size, at := draftFigure(r)
		count := 2 + r.IntN(11)
		var fill float64
		switch k % 3 {
		case 0:
			fill = 360
		case 1:
			fill = -360
		default:
			fill = math.Round(720*r.Float64()-360) + []float64{0, 0.5, 0.25}[r.IntN(3)]
			if fill == 0 {
				fill = 45
			}
		}
		angles, err := PolarAngles(count, fill)
		if err != nil || len(angles) != count {
			t.Errorf("case %d: PolarAngles(%d, %g) = %v, %v", k, count, fill, angles, err)
			continue
		}
		steps := int64(count - 1)
		if math.Abs(fill) == 360 {
			steps = int64(count)
		}
		c := at.Add(Pt(size*r.Float64(), size*r.Float64()))
		p := c.Add(dirOf(2 * math.Pi * r.Float64()).Mul(size))
		tol := draftTol(size, at)
		for i, a := range angles {
			exact := new(big.Rat).Mul(ratOf(fill), big.NewRat(int64(i), steps))
			want, _ := exact.Float64()
			if a != want && math.Abs(a-want) > math.Abs(math.Nextafter(want, math.Inf(1))-want) {
				t.Errorf("case %d: PolarAngles(%d, %g)[%d] = %v, exactly %v", k, count, fill, i, a, exact.FloatString(20))
			}
			if q := new(big.Rat).Quo(exact, big.NewRat(90, 1)); q.IsInt() && a != want {
				t.Errorf("case %d: PolarAngles(%d, %g)[%d] = %v, not the multiple of 90° %v", k, count, fill, i, a, want)
			}
			got := RotateAbout(c, a).Point(p)
			if w := bigRotate(p, c, exact); got.Dist(w) > tol {
				t.Errorf("case %d (size %g at %v): copy %d at %v°: %v, want %v (%g off)", k, size, at, i, a, got, w, got.Dist(w))
			}
			copies++
		}
		rows, cols := 1+r.IntN(5), 1+r.IntN(5)
		rs, cs := size*(2*r.Float64()-1), size*(2*r.Float64()-1)
		angle := 360 * r.Float64()
		if k%4 == 0 {
			angle = float64(90 * r.IntN(4))
		}
		offs := GridOffsets(rows, cols, rs, cs, angle)
		if len(offs) != rows*cols {
			t.Errorf("case %d: GridOffsets(%d, %d) = %d offsets", k, rows, cols, len(offs))
			continue
		}
		s, co := bigSinCos(bquo(bmul(bf(angle), bigPi), bf(180)))
		gtol := draftTol(size*float64(rows+cols), Vec{})
		for i, o := range offs {
			row, col := bf(float64(i/cols)*rs), bf(float64(i%cols)*cs)
			wx := f64(bsub(bmul(col, co), bmul(row, s)))
			wy := f64(badd(bmul(col, s), bmul(row, co)))
			if o.Dist(Pt(wx, wy)) > gtol {
				t.Errorf("case %d: GridOffsets(%d, %d, %g, %g, %g)[%d] = %v, want (%v, %v)", k, rows, cols, rs, cs, angle, i, o, wx, wy)
			}
		}
	}
	t.Logf("arrays: %d polar copies and %d grids checked", copies, draftCases)
}

// TestOracleRevcloud clouds a random convex polygon: each side is cut into
// round(length/arc length) arcs (at least one; lengths in big floats), its
// vertices evenly spaced along the side from its first corner, every arc
// of bulge tan 30° with its middle outside the polygon (an exact winding
// number of 0) at the sagitta b·chord/2 from the side.
func TestOracleRevcloud(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 40))
	checked := 0
	for k := 0; k < draftCases; k++ {
		size, at := draftFigure(r)
		n := 3 + r.IntN(5)
		ps := starPolygon(r, at, size, n, true)
		if k%2 == 1 {
			for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
				ps[i], ps[j] = ps[j], ps[i]
			}
		}
		per := 0.0
		for i := range ps {
			per += bigDist(ps[i], ps[(i+1)%n])
		}
		arcLen := per / (6 + 40*r.Float64())
		var counts []int
		ambiguous := false
		for i := range ps {
			q := bigDist(ps[i], ps[(i+1)%n]) / arcLen
			if math.Abs(q-math.Floor(q)-0.5) < 1e-6 {
				ambiguous = true
			}
			counts = append(counts, max(1, int(math.Round(q))))
		}
		if ambiguous {
			continue // a side of half a number of arcs: either rounding is right
		}
		got, err := Revcloud(ps, arcLen)
		total := 0
		for _, c := range counts {
			total += c
		}
		if err != nil || !got.Closed || len(got.V) != total {
			t.Errorf("case %d (size %g at %v): Revcloud(%v, %g) = %d vertices, %v; want %d", k, size, at, ps, arcLen, len(got.V), err, total)
			continue
		}
		checked++
		tol := draftTol(size, at)
		ccw := k%2 == 0
		j := 0
		for i, c := range counts {
			a, b := ps[i], ps[(i+1)%n]
			for m := 0; m < c; m++ {
				v := got.V[j]
				next := got.V[(j+1)%len(got.V)].P
				want := lerp(a, b, float64(m)/float64(c))
				if v.P.Dist(want) > tol || math.Abs(bigLineDist(v.P, a, b)) > tol {
					t.Errorf("case %d (size %g at %v): vertex %d = %v, want %v on side %d", k, size, at, j, v.P, want, i)
				}
				if math.Abs(v.Bulge) != math.Tan(math.Pi/6) || (v.Bulge > 0) != ccw {
					t.Errorf("case %d: vertex %d bulge %v (counter-clockwise %v)", k, j, v.Bulge, ccw)
				}
				d := next.Sub(v.P)
				mid := v.P.Mid(next).Sub(d.Perp().Mul(v.Bulge / 2))
				if exactWinding(ps, mid) != 0 {
					t.Errorf("case %d: the middle %v of arc %d is inside the polygon", k, mid, j)
				}
				if h := math.Abs(bigLineDist(mid, a, b)); math.Abs(h-math.Abs(v.Bulge)*d.Len()/2) > tol {
					t.Errorf("case %d: arc %d bulges %g from its side, want %g", k, j, h, math.Abs(v.Bulge)*d.Len()/2)
				}
				j++
			}
		}
	}
	if checked < draftCases*9/10 {
		t.Errorf("only %d of %d clouds checked", checked, draftCases)
	}
	t.Logf("revision clouds: %d of %d checked", checked, draftCases)
}

// TestOraclePolygon checks a random simple (star-shaped) polygon's area
// against the shoelace sum in rationals, its perimeter against the sides'
// lengths in big floats, and Where for random points against an exact
// winding number (points nearer a side than the tolerance left out; the
// sides' midpoints are OnEdge). Selection by a random convex polygon:
// Encloses a segment exactly when both its ends are inside (winding
// number), Touches it when an end is inside or it crosses a side (in
// rationals); segments passing within the tolerance of a corner or side
// are left out.
func TestOraclePolygon(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	points, segs := 0, 0
	for k := 0; k < draftCases; k++ {
		size, at := draftFigure(r)
		n := 3 + r.IntN(10)
		convex := k%2 == 0
		ps := starPolygon(r, at, size, n, convex)
		if r.IntN(2) == 0 {
			for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
				ps[i], ps[j] = ps[j], ps[i]
			}
		}
		p := Polygon(ps)
		want, _ := exactShoelace(ps).Float64()
		want = math.Abs(want) / 2
		if got := p.Area(); math.Abs(got-want) > 1e-9*size*size+4*float64(n)*size*RoundingFloor(at.Mag()+size) {
			t.Errorf("case %d (size %g at %v): Area(%v) = %v, exact %v", k, size, at, ps, got, want)
		}
		per := bnew()
		for i := range ps {
			a, b := ps[i], ps[(i+1)%n]
			dx, dy := bsub(bf(b.X), bf(a.X)), bsub(bf(b.Y), bf(a.Y))
			per = badd(per, bnew().Sqrt(badd(bmul(dx, dx), bmul(dy, dy))))
		}
		if got, w := p.Perimeter(), f64(per); math.Abs(got-w) > 1e-12*w+4*float64(n)*RoundingFloor(at.Mag()+size) {
			t.Errorf("case %d (size %g at %v): Perimeter = %v, exact %v", k, size, at, got, w)
		}
		tol := draftTol(2*size, at)
		for m := 0; m < 20; m++ {
			q := at.Add(Pt(size*(2.4*r.Float64()-1.2), size*(2.4*r.Float64()-1.2)))
			if bigPolyDist(ps, q) <= tol {
				continue
			}
			points++
			in := exactWinding(ps, q) != 0
			if got := p.Where(q); (got == Inside) != in || got == OnEdge {
				t.Errorf("case %d (size %g at %v): Where(%v) in %v = %v, exact winding says inside %v", k, size, at, q, ps, got, in)
			}
		}
		if i := r.IntN(n); p.Where(ps[i].Mid(ps[(i+1)%n])) != OnEdge {
			t.Errorf("case %d: the middle of side %d is not OnEdge", k, i)
		}
		if !convex {
			continue
		}
		for m := 0; m < 10; m++ {
			s := Segment{at.Add(Pt(size*(2.4*r.Float64()-1.2), size*(2.4*r.Float64()-1.2))), at.Add(Pt(size*(2.4*r.Float64()-1.2), size*(2.4*r.Float64()-1.2)))}
			near := bigPolyDist(ps, s.A) <= tol || bigPolyDist(ps, s.B) <= tol
			for _, c := range ps {
				near = near || bigSegDist(c, s.A, s.B) <= tol
			}
			if near {
				continue
			}
			segs++
			inA, inB := exactWinding(ps, s.A) != 0, exactWinding(ps, s.B) != 0
			crosses := false
			for i := range ps {
				if _, ok := exactSegments(s, Segment{ps[i], ps[(i+1)%n]}); ok {
					crosses = true
				}
			}
			if got := p.Encloses(s); got != (inA && inB) {
				t.Errorf("case %d (size %g at %v): Encloses(%v) = %v, ends inside %v %v", k, size, at, s, got, inA, inB)
			}
			if got := p.Touches(s); got != (inA || inB || crosses) {
				t.Errorf("case %d (size %g at %v): Touches(%v) = %v, ends inside %v %v, crosses %v", k, size, at, s, got, inA, inB, crosses)
			}
		}
	}
	t.Logf("polygons: %d cases, %d points located, %d segments selected", draftCases, points, segs)
}

// TestOracleTraceBoundary traces the boundary around a point in a random
// rectangle cut by a chord between two of its sides (the chord running on
// past them, its dangling ends to be pruned): the piece around the point
// has the area of the polygon of the rectangle's corners on its side of
// the chord and the chord's crossings (in rationals), its sources are the
// chord and the sides it runs along, and its outline's vertices lie on
// them.
func TestOracleTraceBoundary(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for k := 0; k < draftCases; k++ {
		size, at := draftFigure(r)
		w, h := size*(0.5+r.Float64()), size*(0.5+r.Float64())
		corners := []Vec{at, at.Add(Pt(w, 0)), at.Add(Pt(w, h)), at.Add(Pt(0, h))}
		var curves []any
		for i := range corners {
			curves = append(curves, Segment{corners[i], corners[(i+1)%4]})
		}
		s1 := r.IntN(4)
		s2 := (s1 + 1 + r.IntN(3)) % 4
		on := func(side int) Vec { return lerp(corners[side], corners[(side+1)%4], 0.15+0.7*r.Float64()) }
		p1, p2 := on(s1), on(s2)
		chord := Segment{p1.Add(p1.Sub(p2).Mul(0.2)), p2.Add(p2.Sub(p1).Mul(0.2))}
		curves = append(curves, chord)
		x1, ok1 := exactSegments(chord, curves[s1].(Segment))
		x2, ok2 := exactSegments(chord, curves[s2].(Segment))
		if !ok1 || !ok2 {
			t.Fatalf("case %d: the chord misses its sides", k)
		}
		// The piece from x1 round the corners counter-clockwise to x2, or
		// the other one.
		from, to, a, b := s1, s2, x1, x2
		if r.IntN(2) == 0 {
			from, to, a, b = s2, s1, x2, x1
		}
		piece := []Vec{a}
		sources := []int{4}
		for i := from; ; i = (i + 1) % 4 {
			sources = append(sources, i)
			if i == to {
				break
			}
			piece = append(piece, corners[(i+1)%4])
		}
		piece = append(piece, b)
		var q Vec
		for _, v := range piece {
			q = q.Add(v.Sub(at))
		}
		q = at.Add(q.Mul(1 / float64(len(piece))))
		if math.Abs(bigLineDist(q, chord.A, chord.B)) < size*1e-3 {
			continue // the point on the chord, as far as the figure tells
		}
		want, _ := exactShoelace(piece).Float64()
		want = math.Abs(want) / 2
		got, err := TraceBoundary(curves, q)
		if err != nil {
			t.Errorf("case %d (size %g at %v): TraceBoundary(%v, %v) = %v", k, size, at, curves, q, err)
			continue
		}
		if a := got.Area(); math.Abs(a-want) > 1e-9*size*size+32*size*RoundingFloor(at.Mag()+size) {
			t.Errorf("case %d (size %g at %v): boundary area %v, exact %v (piece %v)", k, size, at, a, want, piece)
		}
		sortInts(sources)
		if len(got.Sources) != len(sources) {
			t.Errorf("case %d: sources %v, want %v", k, got.Sources, sources)
		} else {
			for i := range sources {
				if got.Sources[i] != sources[i] {
					t.Errorf("case %d: sources %v, want %v", k, got.Sources, sources)
					break
				}
			}
		}
		tol := draftTol(size, at)
		for _, v := range got.Outline.V {
			d := math.Inf(1)
			for _, c := range curves {
				s := c.(Segment)
				d = math.Min(d, bigSegDist(v.P, s.A, s.B))
			}
			if d > tol || v.Bulge != 0 {
				t.Errorf("case %d (size %g at %v): outline vertex %v is %g off the figure", k, size, at, v, d)
			}
		}
	}
}

func sortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// bigSplineAt evaluates a (rational) B-spline at t by the Cox–de Boor
// recursion (the basis functions of the span holding t) in big floats.
func bigSplineAt(deg int, knots []float64, ctrl []Vec, w []float64, t float64) Vec {
	m := len(ctrl)
	k := deg
	for k+1 < m && knots[k+1] <= t {
		k++
	}
	bt := bf(t)
	n := []*big.Float{bf(1)}
	left, right := make([]*big.Float, deg+1), make([]*big.Float, deg+1)
	for j := 1; j <= deg; j++ {
		left[j] = bsub(bt, bf(knots[k+1-j]))
		right[j] = bsub(bf(knots[k+j]), bt)
		saved := bnew()
		for i := 0; i < j; i++ {
			tmp := bquo(n[i], badd(right[i+1], left[j-i]))
			n[i] = badd(saved, bmul(right[i+1], tmp))
			saved = bmul(left[j-i], tmp)
		}
		n = append(n, saved)
	}
	x, y, sw := bnew(), bnew(), bnew()
	for i := 0; i <= deg; i++ {
		c := n[i]
		if w != nil {
			c = bmul(c, bf(w[k-deg+i]))
		}
		p := ctrl[k-deg+i]
		x, y, sw = badd(x, bmul(c, bf(p.X))), badd(y, bmul(c, bf(p.Y))), badd(sw, c)
	}
	return Pt(f64(bquo(x, sw)), f64(bquo(y, sw)))
}

// TestOracleSplineFromControl makes random splines of degree 1 to 5 from
// control points (weights or none; open or closed) and evaluates them at
// random parameters against the Cox–de Boor recursion in big floats over
// the knots the documentation gives: clamped uniform (0 … n−degree, the
// ends repeated degree+1 times), or for a closed spline the control
// points' first degree repeated after the last over knots 0, 1, 2, ….
// An open one starts and ends at its end control points; a closed one
// ends where it starts.
func TestOracleSplineFromControl(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	for k := 0; k < draftCases; k++ {
		size, at := draftFigure(r)
		deg := 1 + r.IntN(5)
		n := deg + 1 + r.IntN(6)
		ctrl := make([]Vec, n)
		for i := range ctrl {
			ctrl[i] = at.Add(Pt(size*r.Float64(), size*r.Float64()))
		}
		var w []float64
		if r.IntN(2) == 0 {
			w = make([]float64, n)
			for i := range w {
				w[i] = 0.5 + 1.5*r.Float64()
			}
		}
		closed := k%3 == 0
		s, err := SplineFromControl(ctrl, deg, w, nil, closed)
		if err != nil {
			t.Errorf("case %d: SplineFromControl(%d points, degree %d, closed %v) = %v", k, n, deg, closed, err)
			continue
		}
		var knots []float64
		c, ww := ctrl, w
		if closed {
			c = append(append([]Vec(nil), ctrl...), ctrl[:deg]...)
			if w != nil {
				ww = append(append([]float64(nil), w...), w[:deg]...)
			}
			for i := 0; i < len(c)+deg+1; i++ {
				knots = append(knots, float64(i))
			}
		} else {
			for i := 0; i <= deg; i++ {
				knots = append(knots, 0)
			}
			for i := 1; i < n-deg; i++ {
				knots = append(knots, float64(i))
			}
			for i := 0; i <= deg; i++ {
				knots = append(knots, float64(n-deg))
			}
		}
		t0, t1 := knots[deg], knots[len(c)]
		if g0, g1 := s.Domain(); g0 != t0 || g1 != t1 {
			t.Errorf("case %d: domain [%g, %g], want [%g, %g]", k, g0, g1, t0, t1)
			continue
		}
		tol := draftTol(size, at)
		ts := []float64{t0, t1}
		for m := 0; m < 8; m++ {
			ts = append(ts, t0+(t1-t0)*r.Float64())
		}
		for _, u := range ts {
			got, want := s.At(u), bigSplineAt(deg, knots, c, ww, u)
			if got.Dist(want) > tol {
				t.Errorf("case %d (size %g at %v): degree %d closed %v at t = %g: %v, Cox–de Boor %v (%g off)", k, size, at, deg, closed, u, got, want, got.Dist(want))
			}
		}
		if closed {
			if a, b := s.At(t0), s.At(t1); a.Dist(b) > tol {
				t.Errorf("case %d: a closed spline starts at %v and ends at %v", k, a, b)
			}
		} else if s.At(t0).Dist(ctrl[0]) > tol || s.At(t1).Dist(ctrl[n-1]) > tol {
			t.Errorf("case %d: an open spline runs %v to %v, not %v to %v", k, s.At(t0), s.At(t1), ctrl[0], ctrl[n-1])
		}
	}
}

// TestOracleSplineThrough fits random splines through 3 to 8 fit points
// (open, with or without end tangents, or closed): the curve passes
// through each fit point at its cumulative chord length (summed in big
// floats), its end derivatives point along the given tangents, and a
// closed one ends where it starts with the same derivative. The CAD
// (ezdxf) fit passes through the fit points too, as Closest finds.
func TestOracleSplineThrough(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 48))
	for k := 0; k < draftCases; k++ {
		size, at := draftFigure(r)
		n := 3 + r.IntN(6)
		closed := k%4 == 3
		var fit []Vec
		if closed {
			fit = starPolygon(r, at, size, max(n, 4), false)
			fit = append(fit, fit[0])
		} else {
			for i := 0; i < n; i++ {
				fit = append(fit, at.Add(Pt(size*(float64(i)+0.2+0.6*r.Float64())/float64(n), size*r.Float64())))
			}
		}
		var t0, t1 *Vec
		if !closed && k%4 == 1 {
			a, b := dirOf(Rad(120*r.Float64()-60)), dirOf(Rad(120*r.Float64()-60))
			t0, t1 = &a, &b
		}
		s, err := SplineThrough(fit, t0, t1)
		if err != nil {
			t.Errorf("case %d: SplineThrough(%v) = %v", k, fit, err)
			continue
		}
		tol := draftTol(size, at)
		u := bnew()
		for i, q := range fit {
			if i > 0 {
				u = badd(u, bf(bigDist(q, fit[i-1])))
			}
			if got := s.At(f64(u)); got.Dist(q) > tol {
				t.Errorf("case %d (size %g at %v): at chord length %v the spline is at %v, not fit point %d %v (%g off)", k, size, at, f64(u), got, i, q, got.Dist(q))
			}
		}
		// A derivative is a direction: points off by tol over the shortest
		// chord turn it by tol/chord.
		chord := math.Inf(1)
		for i := 1; i < len(fit); i++ {
			chord = math.Min(chord, fit[i].Dist(fit[i-1]))
		}
		dtol := 1e-9 + 4*tol/chord
		d0, d1 := s.Domain()
		if t0 != nil {
			for _, e := range []struct {
				d Vec
				t Vec
			}{{s.Derivative(d0), *t0}, {s.Derivative(d1), *t1}} {
				if dd := e.d.Unit(); math.Abs(dd.cross(e.t)) > dtol || dd.Dot(e.t) <= 0 {
					t.Errorf("case %d (size %g at %v): end derivative %v not along the tangent %v", k, size, at, e.d, e.t)
				}
			}
		}
		if closed {
			a, b := s.Derivative(d0), s.Derivative(d1)
			if s.At(d0).Dist(s.At(d1)) > tol || a.Sub(b).Len() > dtol*a.Len() {
				t.Errorf("case %d (size %g at %v): closed spline ends %v %v, derivatives %v %v", k, size, at, s.At(d0), s.At(d1), a, b)
			}
		}
		cad, err := SplineThroughCAD(fit, t0, t1)
		if err != nil {
			t.Errorf("case %d: SplineThroughCAD(%v) = %v", k, fit, err)
			continue
		}
		for i, q := range fit {
			if _, got := cad.Closest(q); got.Dist(q) > tol {
				t.Errorf("case %d (size %g at %v): the CAD spline passes %g from fit point %d %v", k, size, at, got.Dist(q), i, q)
			}
		}
	}
}
