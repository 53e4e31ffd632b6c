package solve_test

import (
	"context"
	"math"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
	"github.com/cadbridge/cadbridge/services/cadengine/solve"
)

const eps = 1e-9

func vec(s *solve.System, p solve.Point) geom.Vec {
	x, y := s.PointAt(p)
	return geom.Pt(x, y)
}

func fix(s *solve.System, ps ...solve.Param) {
	for _, p := range ps {
		s.Fix(p, true)
	}
}

func mustAdd(t testing.TB, s *solve.System, id solve.ID, c solve.Constraint) {
	t.Helper()
	if err := s.Add(id, c); err != nil {
		t.Fatal(err)
	}
}

func mustSolve(t testing.TB, s *solve.System) solve.Result {
	t.Helper()
	res, err := s.Solve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// direction is the angle of a line in [0, π): lines, not vectors.
func direction(s *solve.System, l solve.Line) float64 {
	a := vec(s, l.B).Sub(vec(s, l.A)).Angle()
	return math.Mod(a+2*math.Pi, math.Pi)
}

func sameAngle(a, b float64) bool {
	d := math.Mod(math.Abs(a-b), math.Pi)
	return math.Min(d, math.Pi-d) <= eps
}

// TestKinds solves one constraint of each kind on geometry in general
// position, the rest held fixed, and checks the relation it states on
// the solved values with a construction of its own.
func TestKinds(t *testing.T) {
	type check func(t *testing.T, s *solve.System)
	cases := []struct {
		name  string
		build func(s *solve.System) (solve.Constraint, check)
	}{
		{"coincident", func(s *solve.System) (solve.Constraint, check) {
			p, q := s.Point(1, 2), s.Point(4, -3)
			fix(s, q.Params()...)
			return solve.Coincident{A: p, B: q}, func(t *testing.T, s *solve.System) {
				if got := vec(s, p); !got.Same(geom.Pt(4, -3)) {
					t.Errorf("p = %v, want (4, -3)", got)
				}
			}
		}},
		{"horizontal", func(s *solve.System) (solve.Constraint, check) {
			l := s.Line(1, 2, 7, 3.5)
			fix(s, l.A.Params()...)
			return solve.Horizontal{A: l.A, B: l.B}, func(t *testing.T, s *solve.System) {
				// Only y needs to change; the smallest change keeps x.
				if got := vec(s, l.B); !got.Same(geom.Pt(7, 2)) {
					t.Errorf("B = %v, want (7, 2)", got)
				}
			}
		}},
		{"vertical", func(s *solve.System) (solve.Constraint, check) {
			l := s.Line(1, 2, 1.7, 9)
			fix(s, l.A.Params()...)
			return solve.Vertical{A: l.A, B: l.B}, func(t *testing.T, s *solve.System) {
				if got := vec(s, l.B); !got.Same(geom.Pt(1, 9)) {
					t.Errorf("B = %v, want (1, 9)", got)
				}
			}
		}},
		{"parallel", func(s *solve.System) (solve.Constraint, check) {
			l1, l2 := s.Line(0, 0, 10, 3), s.Line(2, 5, 9, 12)
			fix(s, l1.Params()...)
			fix(s, l2.A.Params()...)
			return solve.Parallel{L1: l1, L2: l2}, func(t *testing.T, s *solve.System) {
				if a, b := direction(s, l1), direction(s, l2); !sameAngle(a, b) {
					t.Errorf("directions %v and %v, want one", a, b)
				}
			}
		}},
		{"perpendicular", func(s *solve.System) (solve.Constraint, check) {
			l1, l2 := s.Line(0, 0, 10, 3), s.Line(2, 5, 5, 13)
			fix(s, l1.Params()...)
			fix(s, l2.A.Params()...)
			return solve.Perpendicular{L1: l1, L2: l2}, func(t *testing.T, s *solve.System) {
				if a, b := direction(s, l1), direction(s, l2); !sameAngle(a+math.Pi/2, b) {
					t.Errorf("directions %v and %v, want 90° apart", a, b)
				}
			}
		}},
		{"angle", func(s *solve.System) (solve.Constraint, check) {
			l1, l2 := s.Line(0, 0, 10, 3), s.Line(2, 5, 9, 10)
			fix(s, l1.Params()...)
			fix(s, l2.A.Params()...)
			return solve.Angle{L1: l1, L2: l2, Value: geom.Rad(30)}, func(t *testing.T, s *solve.System) {
				if a, b := direction(s, l1), direction(s, l2); !sameAngle(a+geom.Rad(30), b) {
					t.Errorf("directions %v and %v, want 30° apart", geom.Deg(a), geom.Deg(b))
				}
			}
		}},
		{"equal lengths", func(s *solve.System) (solve.Constraint, check) {
			l1, l2 := s.Line(0, 0, 10, 3), s.Line(2, 5, 9, 10)
			fix(s, l1.Params()...)
			fix(s, l2.A.Params()...)
			return solve.EqualLength{L1: l1, L2: l2}, func(t *testing.T, s *solve.System) {
				want := math.Hypot(10, 3)
				if got := vec(s, l2.B).Dist(vec(s, l2.A)); !geom.Eq(got, want) {
					t.Errorf("|l2| = %v, want %v", got, want)
				}
			}
		}},
		{"equal radii", func(s *solve.System) (solve.Constraint, check) {
			c1, c2 := s.Circle(0, 0, 4), s.Circle(9, 9, 2)
			fix(s, c1.Params()...)
			return solve.EqualRadius{C1: c1, C2: c2}, func(t *testing.T, s *solve.System) {
				if got := s.Value(c2.R); !geom.Eq(got, 4) {
					t.Errorf("r2 = %v, want 4", got)
				}
			}
		}},
		{"concentric", func(s *solve.System) (solve.Constraint, check) {
			c1, c2 := s.Circle(1, 2, 4), s.Circle(9, 9, 2)
			fix(s, c1.Params()...)
			return solve.Concentric{C1: c1, C2: c2}, func(t *testing.T, s *solve.System) {
				if got := vec(s, c2.Center); !got.Same(geom.Pt(1, 2)) {
					t.Errorf("center = %v, want (1, 2)", got)
				}
			}
		}},
		{"fixed", func(s *solve.System) (solve.Constraint, check) {
			p := s.Point(1, 2)
			return solve.Fixed{Params: p.Params(), Values: []float64{3, 4}}, func(t *testing.T, s *solve.System) {
				if got := vec(s, p); !got.Same(geom.Pt(3, 4)) {
					t.Errorf("p = %v, want (3, 4)", got)
				}
			}
		}},
		{"point on line", func(s *solve.System) (solve.Constraint, check) {
			l, p := s.Line(0, 0, 4, 2), s.Point(7, 9)
			fix(s, l.Params()...)
			return solve.PointOnLine{P: p, L: l}, func(t *testing.T, s *solve.System) {
				// The foot of the perpendicular: the nearest point of the
				// extension, beyond B.
				u := geom.Pt(4, 2).Unit()
				want := u.Mul(geom.Pt(7, 9).Dot(u))
				if got := vec(s, p); !got.Same(want) {
					t.Errorf("p = %v, want %v", got, want)
				}
			}
		}},
		{"point on circle", func(s *solve.System) (solve.Constraint, check) {
			c, p := s.Circle(1, 1, 5), s.Point(4, 3)
			fix(s, c.Params()...)
			return solve.PointOnCircle{P: p, C: c}, func(t *testing.T, s *solve.System) {
				want := geom.Pt(1, 1).Add(geom.Pt(3, 2).Unit().Mul(5))
				if got := vec(s, p); !got.Same(want) {
					t.Errorf("p = %v, want %v", got, want)
				}
			}
		}},
		{"midpoint", func(s *solve.System) (solve.Constraint, check) {
			l, p := s.Line(0, 0, 4, 2), s.Point(7, 9)
			fix(s, l.Params()...)
			return solve.Midpoint{P: p, L: l}, func(t *testing.T, s *solve.System) {
				if got := vec(s, p); !got.Same(geom.Pt(2, 1)) {
					t.Errorf("p = %v, want (2, 1)", got)
				}
			}
		}},
		{"symmetric", func(s *solve.System) (solve.Constraint, check) {
			l, p, q := s.Line(0, 1, 4, 3), s.Point(1, 5), s.Point(3, 0)
			fix(s, l.Params()...)
			fix(s, p.Params()...)
			return solve.Symmetric{P: p, Q: q, L: l}, func(t *testing.T, s *solve.System) {
				want := geom.MirrorAbout(geom.Pt(0, 1), geom.Pt(4, 3)).Point(geom.Pt(1, 5))
				if got := vec(s, q); !got.Same(want) {
					t.Errorf("q = %v, want %v", got, want)
				}
			}
		}},
		{"distance", func(s *solve.System) (solve.Constraint, check) {
			p, q := s.Point(1, 1), s.Point(4, 5)
			fix(s, p.Params()...)
			return solve.Distance{A: p, B: q, Value: 10}, func(t *testing.T, s *solve.System) {
				// Along the ray from p through q: 3-4-5 doubled.
				if got := vec(s, q); !got.Same(geom.Pt(7, 9)) {
					t.Errorf("q = %v, want (7, 9)", got)
				}
			}
		}},
		{"distance point line", func(s *solve.System) (solve.Constraint, check) {
			l, p := s.Line(0, 0, 10, 0), s.Point(3, -1)
			fix(s, l.Params()...)
			return solve.DistancePointLine{P: p, L: l, Value: 2.5}, func(t *testing.T, s *solve.System) {
				if got := vec(s, p); !got.Same(geom.Pt(3, -2.5)) {
					t.Errorf("p = %v, want (3, -2.5) (the side it was on)", got)
				}
			}
		}},
		{"distance_x", func(s *solve.System) (solve.Constraint, check) {
			p, q := s.Point(1, 1), s.Point(4, 5)
			fix(s, p.Params()...)
			return solve.DistanceX{A: p, B: q, Value: -4}, func(t *testing.T, s *solve.System) {
				if got := vec(s, q); !got.Same(geom.Pt(-3, 5)) {
					t.Errorf("q = %v, want (-3, 5)", got)
				}
			}
		}},
		{"distance_y", func(s *solve.System) (solve.Constraint, check) {
			p, q := s.Point(1, 1), s.Point(4, 5)
			fix(s, p.Params()...)
			return solve.DistanceY{A: p, B: q, Value: 6}, func(t *testing.T, s *solve.System) {
				if got := vec(s, q); !got.Same(geom.Pt(4, 7)) {
					t.Errorf("q = %v, want (4, 7)", got)
				}
			}
		}},
		{"radius", func(s *solve.System) (solve.Constraint, check) {
			c := s.Circle(1, 1, 2)
			return solve.Radius{C: c, Value: 7}, func(t *testing.T, s *solve.System) {
				if got := s.Value(c.R); !geom.Eq(got, 7) {
					t.Errorf("r = %v, want 7", got)
				}
			}
		}},
		{"diameter", func(s *solve.System) (solve.Constraint, check) {
			c := s.Circle(1, 1, 2)
			return solve.Diameter{C: c, Value: 9}, func(t *testing.T, s *solve.System) {
				if got := s.Value(c.R); !geom.Eq(got, 4.5) {
					t.Errorf("r = %v, want 4.5", got)
				}
			}
		}},
		{"tangent line circle", func(s *solve.System) (solve.Constraint, check) {
			l, c := s.Line(0, 0, 10, 0), s.Circle(4, -3, 2)
			fix(s, l.Params()...)
			fix(s, c.Center.Params()...)
			return solve.TangentLine{L: l, C: c}, func(t *testing.T, s *solve.System) {
				if got := s.Value(c.R); !geom.Eq(got, 3) {
					t.Errorf("r = %v, want 3", got)
				}
			}
		}},
		{"tangent circles external", func(s *solve.System) (solve.Constraint, check) {
			c1, c2 := s.Circle(0, 0, 3), s.Circle(8, 6, 4)
			fix(s, c1.Params()...)
			fix(s, c2.Center.Params()...)
			return solve.TangentCircles{C1: c1, C2: c2}, func(t *testing.T, s *solve.System) {
				if got := s.Value(c2.R); !geom.Eq(got, 7) {
					t.Errorf("r2 = %v, want 7 (10 - 3)", got)
				}
			}
		}},
		{"tangent circles internal", func(s *solve.System) (solve.Constraint, check) {
			c1, c2 := s.Circle(0, 0, 10), s.Circle(3, 4, 4)
			fix(s, c1.Params()...)
			fix(s, c2.Center.Params()...)
			return solve.TangentCircles{C1: c1, C2: c2}, func(t *testing.T, s *solve.System) {
				if got := s.Value(c2.R); !geom.Eq(got, 5) {
					t.Errorf("r2 = %v, want 5 (10 - 5)", got)
				}
			}
		}},
		{"tangent at a shared point", func(s *solve.System) (solve.Constraint, check) {
			// A line from the origin to (10, 1) and an arc's center at
			// (10, 5) with the line's end on it: the end must turn so
			// that the radius to it is square to the line.
			l := s.Line(0, 0, 10, 1)
			c := s.Circle(10, 5, 4)
			fix(s, l.A.Params()...)
			fix(s, c.Params()...)
			fix(s, l.B.X)
			return solve.TangentAt{L: l, C: c, P: l.B}, func(t *testing.T, s *solve.System) {
				d := vec(s, l.B).Sub(vec(s, l.A))
				e := vec(s, l.B).Sub(geom.Pt(10, 5))
				if got := d.Dot(e) / d.Len(); math.Abs(got) > eps {
					t.Errorf("radius·direction = %v, want 0", got)
				}
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := solve.New()
			c, check := tc.build(s)
			mustAdd(t, s, 1, c)
			res := mustSolve(t, s)
			if res.Status == solve.OverConstrained {
				t.Fatalf("status %v, conflicting %v", res.Status, res.Conflicting)
			}
			check(t, s)
		})
	}
}
