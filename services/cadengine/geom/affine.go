package geom

import "math"

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

// Similar reports whether m keeps shapes (its linear part a rotation,
// reflection and uniform scale, within rounding): then an Xform can say
// it.
func (m Affine) Similar() bool {
	p, q := Vec{m.A, m.D}, Vec{m.B, m.E}
	tol := 1e-12 * math.Max(p.Dot(p), q.Dot(q))
	return math.Abs(p.Dot(q)) <= tol && math.Abs(p.Dot(p)-q.Dot(q)) <= tol
}

// ConjugateEllipse is the elliptical arc c + p·cos t + q·sin t for t from
// start through sweep (p and q conjugate semi-diameters: the image of a
// circle's or an ellipse's axes under an affine map), as an EllipseArc:
// its major axis the longest semi-diameter, its parameters measured from
// it, counter-clockwise (an arc that ran clockwise runs the other way from
// its other end).
func ConjugateEllipse(c, p, q Vec, start, sweep float64) EllipseArc {
	// The longest semi-diameter is at t0 with tan 2t0 = 2p·q / (|p|² − |q|²).
	t0 := math.Atan2(2*p.Dot(q), p.Dot(p)-q.Dot(q)) / 2
	s0, c0 := math.Sincos(t0)
	a := p.Mul(c0).Add(q.Mul(s0))
	b := q.Mul(c0).Sub(p.Mul(s0)) // the semi-diameter at t0 + 90°
	e := EllipseArc{C: c, Major: a, Ratio: b.Len() / a.Len(), Sweep: sweep}
	if a.cross(b) >= 0 { // b turns counter-clockwise from a: t runs with it
		e.Start = start - t0
	} else { // mirrored: the parameter runs the other way
		e.Start = t0 - start - sweep
	}
	if e.Ratio > 1 { // a circle's rounding can make b a hair longer
		e.Ratio = 1
	}
	e.Start = NormRad(e.Start)
	return e
}

// Spline is the polyline as one exact rational quadratic spline: each
// straight piece a quadratic Bézier with its middle control point halfway,
// each bulged one its arc (see [Arc.Spline]); vertex i is at knot i.
// It is what the polyline becomes under an affine map that does not keep
// shapes (see [Spline.Affine]). False for a polyline without pieces.
func (g Polyline) Spline() (Spline, bool) {
	pieces := g.Pieces()
	if len(pieces) == 0 {
		return Spline{}, false
	}
	s := Spline{Degree: 2, Closed: g.Closed, Knots: []float64{0, 0, 0}, Control: []Vec{pieces[0].A}, Weights: []float64{1}}
	add := func(mid, end Vec, w, knot float64) {
		s.Control = append(s.Control, mid, end)
		s.Weights = append(s.Weights, w, 1)
		s.Knots = append(s.Knots, knot, knot)
	}
	k := 0.0 // the piece: vertex i is at knot i
	for _, p := range pieces {
		if p.Bulge == 0 {
			add(p.A.Mid(p.B), p.B, 1, k+1)
			k++
			continue
		}
		arc := BulgeArc(p.A, p.B, p.Bulge).Spline() // from A to B, in Béziers of at most 90°
		n := (len(arc.Control) - 1) / 2
		for j := range n {
			add(arc.Control[2*j+1], arc.Control[2*j+2], arc.Weights[2*j+1], k+float64(j+1)/float64(n))
		}
		k++
	}
	s.Knots = append(s.Knots, k)
	return s, true
}

// Nearest is the similarity nearest m about ref: it takes ref where m
// does, and turns (or reflects, when m does) and scales as m does on
// average (the rotation of m's polar decomposition, and the square root
// of its determinant). It places what an affine map cannot keep the shape
// of (text, a dimension's offsets) as well as a similarity can.
func (m Affine) Nearest(ref Vec) Xform {
	det := m.Det()
	scale := math.Sqrt(math.Abs(det))
	if det >= 0 {
		angle := Deg(math.Atan2(m.D-m.B, m.A+m.E))
		r := Similarity(Vec{}, scale, angle, false)
		return Similarity(m.Point(ref).Sub(r.Point(ref)), scale, angle, false)
	}
	// m = R·diag(1, −1)·P: the reflection in the line at half R's angle.
	axis := Deg(math.Atan2(m.D+m.B, m.A-m.E)) / 2
	r := Similarity(Vec{}, scale, axis, true)
	return Similarity(m.Point(ref).Sub(r.Point(ref)), scale, axis, true)
}
