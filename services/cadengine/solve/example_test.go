package solve_test

import (
	"context"
	"fmt"

	"github.com/cadbridge/cadbridge/services/cadengine/solve"
)

// A sloppy rectangle made exact, then made wider by its driving value.
func Example() {
	s := solve.New()
	bottom := s.Line(0, 0, 119.7, 0.4)
	right := s.Line(120.2, 0.3, 119.8, 80.6)
	top := s.Line(120.1, 79.9, 0.2, 80.3)
	left := s.Line(-0.3, 80.2, 0.1, 0.2)
	sides := []solve.Line{bottom, right, top, left}
	id := solve.ID(0)
	add := func(c solve.Constraint) solve.ID {
		id++
		if err := s.Add(id, c); err != nil {
			panic(err)
		}
		return id
	}
	for i, l := range sides {
		add(solve.Coincident{A: l.B, B: sides[(i+1)%4].A})
	}
	add(solve.Horizontal{A: bottom.A, B: bottom.B})
	add(solve.Horizontal{A: top.A, B: top.B})
	add(solve.Vertical{A: right.A, B: right.B})
	add(solve.Vertical{A: left.A, B: left.B})
	add(solve.Fixed{Params: bottom.A.Params(), Values: []float64{0, 0}})
	width := add(solve.DistanceX{A: bottom.A, B: bottom.B, Value: 120})
	add(solve.DistanceY{A: right.A, B: right.B, Value: 80})

	res, _ := s.Solve(context.Background())
	x, y := s.PointAt(top.A)
	fmt.Printf("%v, dof %d: far corner (%.6g, %.6g)\n", res.Status, res.DOF, x, y)

	_ = s.SetConstraintValue(width, 150)
	res, _ = s.Solve(context.Background())
	x, y = s.PointAt(top.A)
	fmt.Printf("%v: far corner (%.6g, %.6g), left side moved: %v\n", res.Status, x, y, res.Moved(left.Params()...))
	// Output:
	// solved, dof 0: far corner (120, 80)
	// solved: far corner (150, 80), left side moved: false
}
