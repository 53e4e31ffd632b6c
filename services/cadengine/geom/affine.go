package geom

// Affine is the affine map (x, y) → (A·x + B·y + C, D·x + E·y + F): any
// combination of moves, rotations, scalings (uniform or not), shears and
// reflections, such as a non-uniformly scaled block insert applies. An
// [Xform] is the special case that keeps shapes (see [Xform.Affine]).
type Affine struct{ A, B, C, D, E, F float64 }

// Point maps a point.
func (m Affine) Point(p Vec) Vec { return Vec{m.A*p.X + m.B*p.Y + m.C, m.D*p.X + m.E*p.Y + m.F} }

// Linear maps a vector: the map without its translation.
func (m Affine) Linear(v Vec) Vec { return Vec{m.A*v.X + m.B*v.Y, m.D*v.X + m.E*v.Y} }

// Then is the map that applies m, then n.
func (m Affine) Then(n Affine) Affine {
	return Affine{
		A: n.A*m.A + n.B*m.D, B: n.A*m.B + n.B*m.E, C: n.A*m.C + n.B*m.F + n.C,
		D: n.D*m.A + n.E*m.D, E: n.D*m.B + n.E*m.E, F: n.D*m.C + n.E*m.F + n.F,
	}
}

// Det is the determinant of the linear part: the factor by which m scales
// areas, negative when it reflects, 0 when it flattens the plane.
func (m Affine) Det() float64 { return m.A*m.E - m.B*m.D }

// Affine is x as an [Affine] map.
func (x Xform) Affine() Affine {
	return Affine{A: x.m[0][0], B: x.m[0][1], C: x.t.X, D: x.m[1][0], E: x.m[1][1], F: x.t.Y}
}
