package solve_test

import (
	"math"
	"math/rand/v2"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
	"github.com/cadbridge/cadbridge/services/cadengine/solve"
)

// sketch builds well-constrained parts from a known solution, each
// parameter started off it by noise, to be solved back.
type sketch struct {
	s      *solve.System
	want   []float64 // by Param: the known solution
	rng    *rand.Rand
	noise  float64 // the standard deviation of the start's error, relative to a part's size
	size   float64 // of the part being built
	next   solve.ID
	widths []solve.ID // each part's driving width
	errs   []error
}

func newSketch(seed uint64, noise float64) *sketch {
	return &sketch{s: solve.New(), rng: rand.New(rand.NewPCG(seed, 7)), noise: noise}
}

func (k *sketch) param(v float64) solve.Param {
	k.want = append(k.want, v)
	return k.s.Param(v + k.rng.NormFloat64()*k.noise*k.size)
}

func (k *sketch) point(p geom.Vec) solve.Point { return solve.Point{X: k.param(p.X), Y: k.param(p.Y)} }

func (k *sketch) line(a, b geom.Vec) solve.Line { return solve.Line{A: k.point(a), B: k.point(b)} }

func (k *sketch) add(c solve.Constraint) solve.ID {
	k.next++
	if err := k.s.Add(k.next, c); err != nil {
		k.errs = append(k.errs, err)
	}
	return k.next
}

// fixAt pins p at its place in the known solution.
func (k *sketch) fixAt(p solve.Point) {
	k.add(solve.Fixed{Params: p.Params(), Values: []float64{k.want[p.X], k.want[p.Y]}})
}

// closed adds the lines through pts, each end coincident with the next
// line's start.
func (k *sketch) closed(pts ...geom.Vec) []solve.Line {
	ls := make([]solve.Line, len(pts))
	for i := range pts {
		ls[i] = k.line(pts[i], pts[(i+1)%len(pts)])
	}
	for i := range ls {
		k.add(solve.Coincident{A: ls[i].B, B: ls[(i+1)%len(ls)].A})
	}
	return ls
}

// rectangle: 11 constraints, 16 parameters.
func (k *sketch) rectangle(o geom.Vec, w, h float64) {
	k.size = math.Max(w, h)
	ls := k.closed(o, o.Add(geom.Pt(w, 0)), o.Add(geom.Pt(w, h)), o.Add(geom.Pt(0, h)))
	k.add(solve.Horizontal{A: ls[0].A, B: ls[0].B})
	k.add(solve.Vertical{A: ls[1].A, B: ls[1].B})
	k.add(solve.Horizontal{A: ls[2].A, B: ls[2].B})
	k.add(solve.Vertical{A: ls[3].A, B: ls[3].B})
	k.fixAt(ls[0].A)
	k.widths = append(k.widths, k.add(solve.DistanceX{A: ls[0].A, B: ls[0].B, Value: w}))
	k.add(solve.DistanceY{A: ls[1].A, B: ls[1].B, Value: h})
}

// triangle with two sides and the angle between them: 8 constraints,
// 12 parameters.
func (k *sketch) triangle(o geom.Vec, a, b, angle float64) {
	k.size = math.Max(a, b)
	p2 := o.Add(geom.Pt(math.Cos(angle), math.Sin(angle)).Mul(b))
	ls := k.closed(o, o.Add(geom.Pt(a, 0)), p2)
	k.fixAt(ls[0].A)
	k.add(solve.Horizontal{A: ls[0].A, B: ls[0].B})
	k.widths = append(k.widths, k.add(solve.Distance{A: ls[0].A, B: ls[0].B, Value: a}))
	k.add(solve.Distance{A: ls[2].A, B: ls[2].B, Value: b})
	// From the base's direction to the closing side's (p2 → o).
	k.add(solve.Angle{L1: ls[0], L2: ls[2], Value: angle + math.Pi})
}

// roundedRectangle: a rectangle whose corners are arcs of radius r
// tangent to its sides: 27 constraints, 44 parameters.
func (k *sketch) roundedRectangle(o geom.Vec, w, h, r float64) {
	// The start's error is relative to the radius: at twice the radius
	// another solution is as near (a line on the far side of an arc).
	k.size = r
	pt := func(x, y float64) geom.Vec { return o.Add(geom.Pt(x, y)) }
	ls := []solve.Line{
		k.line(pt(r, 0), pt(w-r, 0)),
		k.line(pt(w, r), pt(w, h-r)),
		k.line(pt(w-r, h), pt(r, h)),
		k.line(pt(0, h-r), pt(0, r)),
	}
	centers := []geom.Vec{pt(w-r, r), pt(w-r, h-r), pt(r, h-r), pt(r, r)}
	arcs := make([]solve.Arc, 4)
	for i, c := range centers {
		// Arc i runs from line i's end to line i+1's start.
		next := ls[(i+1)%4]
		start := k.point(geom.Vec{X: k.want[ls[i].B.X], Y: k.want[ls[i].B.Y]})
		end := k.point(geom.Vec{X: k.want[next.A.X], Y: k.want[next.A.Y]})
		center := k.point(c)
		k.want = append(k.want, r)
		arcs[i] = k.s.Arc(center, r+k.rng.NormFloat64()*k.noise*k.size, start, end)
		k.add(solve.Coincident{A: ls[i].B, B: start})
		k.add(solve.Coincident{A: end, B: next.A})
		k.add(solve.TangentAt{L: ls[i], C: arcs[i].Circle, P: ls[i].B})
		k.add(solve.TangentAt{L: next, C: arcs[i].Circle, P: next.A})
	}
	k.add(solve.Horizontal{A: ls[0].A, B: ls[0].B})
	k.add(solve.Vertical{A: ls[1].A, B: ls[1].B})
	k.add(solve.Horizontal{A: ls[2].A, B: ls[2].B})
	k.add(solve.Vertical{A: ls[3].A, B: ls[3].B})
	for i := 1; i < 4; i++ {
		k.add(solve.EqualRadius{C1: arcs[0].Circle, C2: arcs[i].Circle})
	}
	k.add(solve.Radius{C: arcs[0].Circle, Value: r})
	k.fixAt(arcs[3].Center)
	k.widths = append(k.widths, k.add(solve.DistanceX{A: ls[3].A, B: ls[1].A, Value: w}))
	k.add(solve.DistanceY{A: ls[0].A, B: ls[2].A, Value: h})
}

// randomPart adds one part of kind i%3 with random sizes near o.
func (k *sketch) randomPart(i int) {
	rng := k.rng
	o := geom.Pt(rng.Float64()*2000-1000, rng.Float64()*2000-1000)
	w, h := 10+rng.Float64()*490, 10+rng.Float64()*490
	switch i % 3 {
	case 0:
		k.rectangle(o, w, h)
	case 1:
		k.triangle(o, w, h, geom.Rad(20+rng.Float64()*140))
	default:
		k.roundedRectangle(o, w, h, (0.05+rng.Float64()*0.4)*math.Min(w, h))
	}
}

// document is parts of every kind, in turn, until it has n constraints.
func document(seed uint64, noise float64, n int) *sketch {
	k := newSketch(seed, noise)
	for i := 0; int(k.next) < n; i++ {
		k.randomPart(i)
	}
	return k
}

// chain is one open polyline of n segments, the first horizontal from
// a fixed start, each with its length and its angle to the one before:
// one group of 3n constraints over 4n parameters.
func chain(seed uint64, noise float64, n int) *sketch {
	k := newSketch(seed, noise)
	k.size = 5
	p := geom.Pt(0, 0)
	dir := 0.0
	var prev solve.Line
	for i := range n {
		turn := 0.0
		if i > 0 {
			turn = geom.Rad(-60 + k.rng.Float64()*120)
		}
		dir += turn
		length := 5 + k.rng.Float64()*10
		q := p.Add(geom.Pt(math.Cos(dir), math.Sin(dir)).Mul(length))
		l := k.line(p, q)
		k.add(solve.Distance{A: l.A, B: l.B, Value: length})
		if i == 0 {
			k.fixAt(l.A)
			k.add(solve.Horizontal{A: l.A, B: l.B})
		} else {
			k.add(solve.Coincident{A: prev.B, B: l.A})
			k.add(solve.Angle{L1: prev, L2: l, Value: turn})
		}
		prev, p = l, q
	}
	return k
}
