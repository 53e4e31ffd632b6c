package geom

// Vertex is a polyline vertex; bulge is the tangent of a quarter of the
// included angle of the arc to the next vertex (DXF).
type Vertex struct {
	P     Vec
	Bulge float64
}

// Polyline is an open or closed chain of straight and bulged pieces
// through its vertices. The bulge of the last vertex of an open polyline is
// always 0.
type Polyline struct {
	V      []Vertex
	Closed bool
}

// Pieces are the polyline's pieces: from vertex i to the next, with its
// bulge; zero-length pieces are left out.
func (g Polyline) Pieces() []Piece {
	n := len(g.V)
	count := n - 1
	if g.Closed {
		count = n
	}
	out := make([]Piece, 0, count)
	for i := 0; i < count; i++ {
		a, b := g.V[i], g.V[(i+1)%n]
		if a.P == b.P {
			continue
		}
		out = append(out, Piece{A: a.P, B: b.P, Bulge: a.Bulge})
	}
	return out
}

// Piece is one piece of a polyline.
type Piece struct {
	A, B  Vec
	Bulge float64
}

// Prim is the piece as a primitive: a Segment, or an Arc for a bulged piece.
func (s Piece) Prim() any {
	if s.Bulge == 0 {
		return Segment{s.A, s.B}
	}
	return BulgeArc(s.A, s.B, s.Bulge)
}

// Length is the piece's length.
func (s Piece) Length() float64 {
	switch p := s.Prim().(type) {
	case Segment:
		return p.Length()
	case Arc:
		return p.Length()
	}
	return 0
}

// Length is the polyline's length, bulges included.
func (g Polyline) Length() float64 {
	l := 0.0
	for _, s := range g.Pieces() {
		l += s.Length()
	}
	return l
}

// Prims are the polyline's pieces as primitives, in order.
func (g Polyline) Prims() []any {
	segs := g.Pieces()
	out := make([]any, len(segs))
	for i, s := range segs {
		out[i] = s.Prim()
	}
	return out
}

// Bounds is the polyline's tight bounding box.
func (g Polyline) Bounds() Box { return PrimBounds(g.Prims()) }

// Finite reports whether every vertex and bulge is finite.
func (g Polyline) Finite() bool {
	for _, v := range g.V {
		if !v.P.Finite() || !IsFinite(v.Bulge) {
			return false
		}
	}
	return true
}

// PrimBounds is the bounding box of curve primitives.
func PrimBounds(prims []any) Box {
	var b Box
	for _, p := range prims {
		switch p := p.(type) {
		case Segment:
			b.AddBox(p.Bounds())
		case Arc:
			b.AddBox(p.Bounds())
		case EllipseArc:
			b.AddBox(p.Bounds())
		}
	}
	return b
}
