package geom

import (
	"math"
	"sort"
)

// ---- polylines that cross themselves ----
//
// A closed polyline that crosses itself (a bow-tie, a figure eight) has
// lobes of opposite orientation, whose signed areas cancel in the shoelace
// sum. Its enclosed area is the area of the points it winds around (the
// nonzero rule), which enclosedArea measures by vertical slabs: between
// two consecutive x-coordinates where something happens (a vertex, a
// crossing, the left- or rightmost point of an arc) the pieces over the
// slab do not cross, so they can be ordered by height, and the winding
// number between two neighbours is the sum of the directions of the
// pieces below.

// crossing is a point where piece i and piece j (i < j) of a polyline
// meet, at parameters ti and tj along their direction of travel.
type crossing struct {
	i, j   int
	ti, tj float64
	p      Vec
}

// pieceParam is the parameter in [0, 1] of a point of a piece, along its
// direction of travel.
func pieceParam(s Piece, p Vec) float64 {
	switch a := s.Prim().(type) {
	case Segment:
		_, t := a.Closest(p)
		return t
	case Arc:
		f := NormRad(p.Sub(a.C).Angle()-a.Start) / a.Sweep
		if f > 1 && NormRad(p.Sub(a.C).Angle()-a.Start) > math.Pi+a.Sweep/2 {
			f = 0 // just before the start
		}
		f = math.Min(f, 1)
		if a.Reversed {
			return 1 - f
		}
		return f
	}
	return 0
}

// crossings lists where pieces of the polyline meet other than where
// consecutive pieces join; an overlap along a stretch is ErrOverlap.
func crossings(ps []Piece, closed bool) ([]crossing, error) {
	n := len(ps)
	prims := make([]any, n)
	boxes := make([]Box, n)
	order := make([]int, n)
	size := 0.0
	for i, s := range ps {
		prims[i] = s.Prim()
		boxes[i] = PrimBounds(prims[i : i+1])
		order[i] = i
		size = math.Max(size, math.Max(boxes[i].Max.X-boxes[i].Min.X, boxes[i].Max.Y-boxes[i].Min.Y))
	}
	sort.Slice(order, func(a, b int) bool { return boxes[order[a]].Min.X < boxes[order[b]].Min.X })
	var out []crossing
	for a := 0; a < n; a++ {
		i := order[a]
		for b := a + 1; b < n; b++ {
			j := order[b]
			if boxes[j].Min.X > boxes[i].Max.X+boxes[i].tol() {
				break
			}
			if !boxes[i].Overlaps(boxes[j]) {
				continue
			}
			lo, hi := min(i, j), max(i, j)
			pts, err := Intersect(prims[lo], prims[hi])
			if err != nil {
				return nil, err
			}
			for _, p := range pts {
				// Consecutive pieces share their joint; that is no crossing.
				if hi == lo+1 && p.SameIn(ps[lo].B, size) || closed && lo == 0 && hi == n-1 && p.SameIn(ps[0].A, size) {
					continue
				}
				out = append(out, crossing{i: lo, j: hi, ti: pieceParam(ps[lo], p), tj: pieceParam(ps[hi], p), p: p})
			}
		}
	}
	return out, nil
}

// SelfIntersects reports whether the polyline crosses or touches itself
// anywhere but where consecutive pieces join (or overlaps itself).
func (g Polyline) SelfIntersects() bool {
	cs, err := crossings(g.Pieces(), g.Closed)
	return err != nil || len(cs) > 0
}

// Area is the area a closed polyline encloses, bulges included: for a
// simple one the shoelace sum; for one that crosses itself, the area of
// the points it winds around (nonzero rule), so that the lobes of a
// bow-tie add up instead of cancelling.
func (g Polyline) Area() float64 {
	ps := g.Pieces()
	if cs, err := crossings(ps, true); err == nil && len(cs) > 0 {
		return enclosedArea(ps, cs)
	}
	return math.Abs(g.signedArea())
}

// signedArea is the shoelace sum with the bulges' segments: positive
// counter-clockwise.
func (g Polyline) signedArea() float64 {
	// Relative to the first vertex, so that a figure far from the origin
	// loses no precision to where it sits.
	a := 0.0
	ps := g.Pieces()
	if len(ps) == 0 {
		return 0
	}
	o := ps[0].A
	for _, s := range ps {
		a += s.A.Sub(o).cross(s.B.Sub(o)) / 2
		a += bulgeSegmentArea(s.A, s.B, s.Bulge)
	}
	// The shoelace sum is positive counter-clockwise. A positive bulge bows
	// to the right of its chord: out of a counter-clockwise polygon (adding
	// area) and into a clockwise one (removing it), which is adding its
	// signed segment area to the signed total either way.
	return a
}

// monoPiece is a piece of a closed curve that is monotone in x: a segment
// or a half-circle's arc, running left to right (dir +1) or right to left.
type monoPiece struct {
	x0, x1 float64 // x0 < x1
	dir    float64
	seg    *Segment
	c      Vec // arc: centre, radius, upper or lower half
	r      float64
	upper  bool
}

// yAt is the piece's height at x (x0 <= x <= x1).
func (m monoPiece) yAt(x float64) float64 {
	if m.seg != nil {
		a, b := m.seg.A, m.seg.B
		return a.Y + (x-a.X)*(b.Y-a.Y)/(b.X-a.X)
	}
	h := math.Sqrt(math.Max(0, m.r*m.r-(x-m.c.X)*(x-m.c.X)))
	if m.upper {
		return m.c.Y + h
	}
	return m.c.Y - h
}

// integral is ∫ y dx over [u, v] ⊆ [x0, x1].
func (m monoPiece) integral(u, v float64) float64 {
	if m.seg != nil {
		return (m.yAt(u) + m.yAt(v)) / 2 * (v - u)
	}
	g := func(x float64) float64 {
		t := math.Max(-1, math.Min(1, (x-m.c.X)/m.r))
		return m.r * m.r / 2 * (t*math.Sqrt(1-t*t) + math.Asin(t))
	}
	s := g(v) - g(u)
	if !m.upper {
		s = -s
	}
	return m.c.Y*(v-u) + s
}

// monotone splits the pieces into monotone ones, relative to origin o
// (which keeps far-away figures precise).
func monotone(ps []Piece, o Vec) []monoPiece {
	var out []monoPiece
	addSeg := func(a, b Vec) {
		if a.X == b.X {
			return // vertical: no width over any slab
		}
		dir := 1.0
		if b.X < a.X {
			a, b, dir = b, a, -1
		}
		s := Segment{a, b}
		out = append(out, monoPiece{x0: a.X, x1: b.X, dir: dir, seg: &s})
	}
	for _, s := range ps {
		a, b := s.A.Sub(o), s.B.Sub(o)
		if s.Bulge == 0 {
			addSeg(a, b)
			continue
		}
		arc := BulgeArc(a, b, s.Bulge)
		// Cut at the angles 0 and π, where x turns.
		cuts := []float64{0}
		for _, k := range []float64{0, math.Pi, 2 * math.Pi, 3 * math.Pi} {
			if d := k - NormRad(arc.Start); d > 0 && d < arc.Sweep {
				cuts = append(cuts, d)
			}
		}
		cuts = append(cuts, arc.Sweep)
		sort.Float64s(cuts)
		for k := 0; k+1 < len(cuts); k++ {
			t0, t1 := arc.Start+cuts[k], arc.Start+cuts[k+1]
			p, q := arc.At(t0), arc.At(t1)
			if p.X == q.X {
				continue
			}
			upper := math.Sin((t0+t1)/2) > 0
			// Counter-clockwise on the upper half runs right to left.
			dir := 1.0
			if upper {
				dir = -1
			}
			if arc.Reversed {
				dir = -dir
			}
			out = append(out, monoPiece{x0: math.Min(p.X, q.X), x1: math.Max(p.X, q.X), dir: dir, c: arc.C, r: arc.R, upper: upper})
		}
	}
	return out
}

// enclosedArea is the area wound around by the closed curve of ps (nonzero
// rule), given its crossings.
func enclosedArea(ps []Piece, cs []crossing) float64 {
	o := ps[0].A
	mono := monotone(ps, o)
	var xs []float64
	for _, m := range mono {
		xs = append(xs, m.x0, m.x1)
	}
	for _, c := range cs {
		xs = append(xs, c.p.X-o.X)
	}
	sort.Float64s(xs)
	type cut struct{ y, dir, area float64 }
	area := 0.0
	var over []cut
	for k := 0; k+1 < len(xs); k++ {
		u, v := xs[k], xs[k+1]
		if v-u <= 0 {
			continue
		}
		mid := (u + v) / 2
		over = over[:0]
		for _, m := range mono {
			if m.x0 <= mid && m.x1 >= mid {
				over = append(over, cut{y: m.yAt(mid), dir: m.dir, area: m.integral(math.Max(u, m.x0), math.Min(v, m.x1))})
			}
		}
		sort.Slice(over, func(a, b int) bool { return over[a].y < over[b].y })
		w := 0.0
		for i := 0; i+1 < len(over); i++ {
			w += over[i].dir
			if w != 0 {
				area += over[i+1].area - over[i].area
			}
		}
	}
	return area
}

// Distance is the distance from p to the nearest point of the polyline.
func (g Polyline) Distance(p Vec) float64 {
	best := math.Inf(1)
	for _, s := range g.Pieces() {
		switch a := s.Prim().(type) {
		case Segment:
			q, _ := a.Closest(p)
			best = math.Min(best, q.Dist(p))
		case Arc:
			best = math.Min(best, a.Closest(p).Dist(p))
		}
	}
	if len(g.V) == 1 {
		best = g.V[0].P.Dist(p)
	}
	return best
}
