package solve

import (
	"math"
	"math/rand/v2"
	"testing"
)

// everyKind builds one constraint of each kind (and each variant of a
// kind) over random geometry of s.
func everyKind(s *System, rng *rand.Rand) []Constraint {
	v := func() float64 { return rng.Float64()*20 - 10 }
	pt := func() Point { return s.Point(v(), v()) }
	line := func() Line { return Line{pt(), pt()} }
	circle := func() Circle { return Circle{pt(), s.Param(1 + rng.Float64()*5)} }
	l1, l2 := line(), line()
	c1, c2 := circle(), circle()
	p, q := pt(), pt()
	return []Constraint{
		Coincident{p, q},
		Concentric{c1, c2},
		Horizontal{p, q},
		Vertical{p, q},
		Parallel{l1, l2},
		Perpendicular{l1, l2},
		Angle{l1, l2, 0.7},
		EqualLength{l1, l2},
		EqualRadius{c1, c2},
		Fixed{Params: []Param{p.X, q.Y}, Values: []float64{1, 2}},
		PointOnLine{p, l1},
		PointOnCircle{p, c1},
		Midpoint{p, l1},
		Symmetric{p, q, l1},
		Distance{p, q, 3},
		DistancePointLine{p, l1, 3},
		DistanceX{p, q, 3},
		DistanceY{p, q, -3},
		Radius{c1, 3},
		Diameter{c1, 3},
		TangentLine{l1, c1, SideLeft},
		TangentLine{l1, c1, SideRight},
		TangentCircles{c1, c2, SideExternal},
		TangentCircles{c1, c2, SideInternal1},
		TangentCircles{c1, c2, SideInternal2},
		TangentAt{l1, c1, p},
		TangentCirclesAt{c1, c2, p},
	}
}

// TestJacobians checks every analytic Jacobian against central finite
// differences at random points.
func TestJacobians(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 20 {
		s := New()
		cs := everyKind(s, rng)
		n := s.Len()
		col := make([]int32, n)
		for p := range col {
			col[p] = int32(p)
		}
		for _, c := range cs {
			m := c.rows()
			r := make([]float64, m)
			j := &jac{col: col, on: true, size: 7}
			c.eval(s.x, r, j)
			jm := make([]float64, m*n)
			for _, t := range j.terms {
				jm[int(t.row)*n+int(t.col)] += t.v
			}
			rp, rm := make([]float64, m), make([]float64, m)
			for _, p := range c.params(nil) {
				h := 1e-6 * math.Max(1, math.Abs(s.x[p]))
				x0 := s.x[p]
				s.x[p] = x0 + h
				c.eval(s.x, rp, &jac{size: 7})
				s.x[p] = x0 - h
				c.eval(s.x, rm, &jac{size: 7})
				s.x[p] = x0
				for k := range m {
					fd := (rp[k] - rm[k]) / (2 * h)
					if got := jm[k*n+int(p)]; math.Abs(got-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
						t.Errorf("trial %d: %s %T row %d: ∂r/∂x[%d] = %.9g, finite differences %.9g", trial, c.Kind(), c, k, p, got, fd)
					}
				}
			}
		}
	}
}
