package geom

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// ---- offsets that cross themselves ----
//
// Offsetting each piece and joining neighbours (rawOffset) gives a curve
// that can cross itself where pieces that are not neighbours come within
// the distance of each other: inside a neck narrower than twice the
// distance, or around a concave corner. The true offset — the points at
// exactly the distance on the offset side — is what remains after the
// curve is cut at its crossings into loops (uncrossing each crossing:
// the piece arriving on one branch goes on along the other) and the
// loops that come closer to the original than the distance are dropped.

// ErrOffsetSplits is an offset that comes apart into several pieces,
// asked of a tool that returns one.
var ErrOffsetSplits = errors.New("the offset comes apart into several pieces")

// ErrOffsetCrosses is an offset of an open polyline that would cross
// itself.
var ErrOffsetCrosses = errors.New("the offset would cross itself")

// ErrOffsetVanishes is an offset that leaves nothing: every loop of it
// comes closer to the original than the distance.
var ErrOffsetVanishes = errors.New("the offset leaves nothing")

// OffsetError is an offset the engine refuses to make as asked: Err is
// ErrOffsetSplits (Pieces says into how many), ErrOffsetCrosses or
// ErrOffsetVanishes.
type OffsetError struct {
	Err      error
	Distance float64
	Pieces   int
}

// Error says what happened.
func (e *OffsetError) Error() string {
	switch e.Err {
	case ErrOffsetSplits:
		return fmt.Sprintf("%v (%d): the polyline is narrower than twice the distance somewhere", e.Err, e.Pieces)
	case ErrOffsetCrosses:
		return fmt.Sprintf("%v: the open polyline comes within the distance of itself", e.Err)
	}
	return fmt.Sprintf("%v: the polyline is narrower than twice the distance everywhere", e.Err)
}

// Unwrap is Err.
func (e *OffsetError) Unwrap() error { return e.Err }

// OffsetPieces offsets a polyline as OffsetPolyline does, and returns every
// piece of the true offset: one polyline, or several where a closed
// polyline comes apart; none of them crosses itself. An open polyline
// whose offset would cross itself is ErrOffsetCrosses.
func OffsetPieces(g Polyline, d float64) ([]Polyline, error) {
	raw, err := rawOffset(g, d)
	if err != nil {
		return nil, err
	}
	ps := raw.Pieces()
	cs, err := meetings(ps, raw.Closed)
	if err != nil {
		return nil, &OffsetError{Err: ErrOffsetCrosses, Distance: d}
	}
	if len(cs) == 0 {
		return []Polyline{raw}, nil
	}
	if !raw.Closed {
		return nil, &OffsetError{Err: ErrOffsetCrosses, Distance: d}
	}
	loops, ok := trueLoops(g, ps, cs, math.Abs(d))
	if !ok {
		return nil, &OffsetError{Err: ErrOffsetCrosses, Distance: d}
	}
	if len(loops) == 0 {
		return nil, &OffsetError{Err: ErrOffsetVanishes, Distance: d}
	}
	return loops, nil
}

// meetings is crossings, with pieces that overlap along a stretch meeting
// at the ends of the stretch.
func meetings(ps []Piece, closed bool) ([]crossing, error) {
	cs, err := crossings(ps, closed)
	if !errors.Is(err, ErrOverlap) {
		return cs, err
	}
	cs = cs[:0]
	n := len(ps)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			pts, err := Intersect(ps[i].Prim(), ps[j].Prim())
			if errors.Is(err, ErrOverlap) {
				pts = nil
				for _, p := range []Vec{ps[i].A, ps[i].B, ps[j].A, ps[j].B} {
					if onPiece(ps[i], p) && onPiece(ps[j], p) {
						pts = AppendUnique(pts, p)
					}
				}
			} else if err != nil {
				return nil, err
			}
			for _, p := range pts {
				if j == i+1 && p == ps[i].B || closed && i == 0 && j == n-1 && p == ps[0].A {
					continue
				}
				cs = append(cs, crossing{i: i, j: j, ti: pieceParam(ps[i], p), tj: pieceParam(ps[j], p), p: p})
			}
		}
	}
	return cs, nil
}

// onPiece reports whether p lies on the piece.
func onPiece(s Piece, p Vec) bool {
	switch a := s.Prim().(type) {
	case Segment:
		return onSegment(a, p)
	case Arc:
		return onArc(a, p)
	}
	return false
}

// trueLoops cuts the pieces at their meetings, keeps the bits that are
// nowhere closer to g than dist (one of each pair that overlaps) and
// chains them into closed loops; false when they do not close.
func trueLoops(g Polyline, ps []Piece, cs []crossing, dist float64) ([]Polyline, bool) {
	cuts := make([][]crossing, len(ps))
	for _, c := range cs {
		cuts[c.i] = append(cuts[c.i], crossing{ti: c.ti, p: c.p})
		cuts[c.j] = append(cuts[c.j], crossing{ti: c.tj, p: c.p})
	}
	tol := 1e-7*dist + RoundingFloor(figureMag(g))
	// Points that are the same within the figure's tolerance are one
	// point: the ends of overlapping pieces, mitres computed twice.
	size := PrimBounds(g.Prims())
	figure := math.Max(size.Max.X-size.Min.X, size.Max.Y-size.Min.Y)
	var reps []Vec
	canon := func(p Vec) Vec {
		for _, q := range reps {
			if q.SameIn(p, figure) {
				return q
			}
		}
		reps = append(reps, p)
		return p
	}
	type key struct{ a, b Vec }
	kept := map[key]bool{}
	from := map[Vec][]Piece{}
	for i, s := range ps {
		cl := cuts[i]
		sort.Slice(cl, func(a, b int) bool { return cl[a].ti < cl[b].ti })
		var ts []float64
		var pts []Vec
		for _, c := range cl {
			if c.ti > 0 && c.ti < 1 && (len(ts) == 0 || ts[len(ts)-1] != c.ti) {
				ts, pts = append(ts, c.ti), append(pts, c.p)
			}
		}
		for _, b := range splitPiece(s, ts, pts) {
			b.A, b.B = canon(b.A), canon(b.B)
			if b.A == b.B || kept[key{b.A, b.B}] {
				continue
			}
			if g.Distance(pieceMid(b)) < dist-tol {
				continue
			}
			kept[key{b.A, b.B}] = true
			from[b.A] = append(from[b.A], b)
		}
	}
	var loops []Polyline
	for len(from) > 0 {
		var start Vec
		for p := range from {
			start = p
			break
		}
		var v []Vertex
		at := start
		for {
			out := from[at]
			if len(out) == 0 {
				if at == start && len(v) > 0 {
					break
				}
				return nil, false
			}
			b := out[0]
			if len(out) == 1 {
				delete(from, at)
			} else {
				from[at] = out[1:]
			}
			v = append(v, Vertex{P: b.A, Bulge: b.Bulge})
			at = b.B
			if at == start {
				break
			}
		}
		loop := Polyline{V: mergeStraight(v), Closed: true}
		if len(loop.V) >= 2 && math.Abs(loop.signedArea()) > Tolerance*dist*dist {
			loops = append(loops, loop)
		}
	}
	// Largest first: a stable order for callers.
	sort.SliceStable(loops, func(a, b int) bool { return math.Abs(loops[a].signedArea()) > math.Abs(loops[b].signedArea()) })
	return loops, true
}

// pieceMid is the middle of a piece along it.
func pieceMid(s Piece) Vec {
	if s.Bulge == 0 {
		return s.A.Mid(s.B)
	}
	a := BulgeArc(s.A, s.B, s.Bulge)
	return a.At(a.Start + a.Sweep/2)
}

// splitPiece is s cut at the parameters ts (ascending, inside (0, 1)) at
// the points ps.
func splitPiece(s Piece, ts []float64, ps []Vec) []Piece {
	var sweep float64
	if s.Bulge != 0 {
		sweep = 4 * math.Atan(s.Bulge) // signed
	}
	out := make([]Piece, 0, len(ts)+1)
	a, ta := s.A, 0.0
	for k, t := range append(ts, 1) {
		b := s.B
		if k < len(ts) {
			b = ps[k]
		}
		p := Piece{A: a, B: b}
		if s.Bulge != 0 {
			p.Bulge = math.Tan(sweep * (t - ta) / 4)
		}
		out = append(out, p)
		a, ta = b, t
	}
	return out
}

// mergeStraight drops the vertices of a closed loop that lie between two
// straight pieces going the same way (left where the loop was cut).
func mergeStraight(v []Vertex) []Vertex {
	for changed := true; changed && len(v) > 2; {
		changed = false
		for i := range v {
			prev, next := v[(i+len(v)-1)%len(v)], v[(i+1)%len(v)]
			if prev.Bulge != 0 || v[i].Bulge != 0 {
				continue
			}
			d1, d2 := v[i].P.Sub(prev.P), next.P.Sub(v[i].P)
			if math.Abs(d1.cross(d2)) <= Tolerance*d1.Len()*d2.Len() && d1.Dot(d2) > 0 {
				v = append(v[:i], v[i+1:]...)
				changed = true
				break
			}
		}
	}
	return v
}

// figureMag is the largest magnitude of the polyline's coordinates.
func figureMag(g Polyline) float64 {
	m := 0.0
	for _, v := range g.V {
		m = math.Max(m, v.P.Mag())
	}
	return m
}
