package geom

import (
	"errors"
	"math"
	"sort"
)

// ---- trim, extend, break, join ----
//
// The curves these work on are a Segment, an Arc (a full one for a
// circle), an EllipseArc or a Polyline. Each is walked by a parameter
// (see path): the length along a segment, the angle from an arc's or
// ellipse's start, the piece index plus the fraction of the piece along a
// polyline. A circle, a whole ellipse and a closed polyline are periodic:
// cutting them once leaves them whole, twice opens them.

// Typed failures of the cuts.
var (
	// ErrNoCut is for a trim where no cutting edge crosses the curve.
	ErrNoCut = errors.New("no cutting edge crosses the entity: nothing bounds the part under the pick (delete the entity instead, or name other edges)")
	// ErrOneCut is for a circle, whole ellipse or closed polyline that one
	// cut cannot open.
	ErrOneCut = errors.New("the entity is closed, and only one cutting edge crosses it: a closed curve needs two cuts to lose a part")
	// ErrNothingAhead is for an extension that meets no boundary.
	ErrNothingAhead = errors.New("no boundary lies ahead of the end nearest the pick, along the entity's own curve")
	// ErrAtEnd is for a break at an end of the curve.
	ErrAtEnd = errors.New("the break point is at an end of the entity: nothing to break")
	// ErrWhole is for a break or trim that would remove the whole curve.
	ErrWhole = errors.New("the part to remove is the whole entity")
	// ErrNotConnected is for a join of curves that do not meet end to end.
	ErrNotConnected = errors.New("the entities do not connect end to end (and are not collinear lines or arcs of one circle)")
)

// path is a curve walked by a parameter in [0, end()].
type path interface {
	end() float64
	periodic() bool
	// paramOf is the parameter of the curve's point nearest p.
	paramOf(p Vec) float64
	// cuts are the parameters where edge crosses the curve.
	cuts(edge any) ([]float64, error)
	// sub is the curve from a to b (a < b; beyond end() for a periodic
	// curve, wrapping round).
	sub(a, b float64) any
	// scale is the parameter's tolerance.
	scale() float64
}

func pathOf(c any) (path, error) {
	switch c := c.(type) {
	case Segment:
		return segPath{c}, nil
	case Arc:
		return arcPath{c}, nil
	case EllipseArc:
		return ellPath{c}, nil
	case Polyline:
		ps := c.Pieces()
		if len(ps) == 0 {
			return nil, errors.New("the polyline has no length")
		}
		return polyPath{ps, c.Closed}, nil
	}
	return nil, errors.New("only lines, arcs, circles, ellipses and polylines can be cut")
}

func primCuts(p, edge any) ([]Vec, error) {
	pts, err := Intersect(p, edge)
	if errors.Is(err, ErrOverlap) {
		return nil, nil // an edge along the curve does not cut it
	}
	return pts, err
}

type segPath struct{ s Segment }

func (p segPath) end() float64   { return p.s.Length() }
func (p segPath) periodic() bool { return false }
func (p segPath) paramOf(x Vec) float64 {
	return x.Sub(p.s.A).Dot(p.s.B.Sub(p.s.A).Unit())
}
func (p segPath) cuts(edge any) ([]float64, error) {
	pts, err := primCuts(p.s, edge)
	out := make([]float64, len(pts))
	for i, x := range pts {
		out[i] = p.paramOf(x)
	}
	return out, err
}
func (p segPath) at(t float64) Vec {
	switch t {
	case 0:
		return p.s.A
	case p.end():
		return p.s.B
	}
	return p.s.A.Add(p.s.B.Sub(p.s.A).Unit().Mul(t))
}
func (p segPath) sub(a, b float64) any { return Segment{p.at(a), p.at(b)} }
func (p segPath) scale() float64 {
	return Tol(p.end(), math.Max(p.s.A.Mag(), p.s.B.Mag()))
}

type arcPath struct{ a Arc }

func (p arcPath) end() float64   { return p.a.Sweep }
func (p arcPath) periodic() bool { return p.a.Full() }
func (p arcPath) paramOf(x Vec) float64 {
	t := NormRad(x.Sub(p.a.C).Angle() - p.a.Start)
	if !p.periodic() && t > p.a.Sweep && 2*math.Pi-t < t-p.a.Sweep {
		return t - 2*math.Pi // just before the start
	}
	return t
}
func (p arcPath) cuts(edge any) ([]float64, error) {
	pts, err := primCuts(p.a, edge)
	out := make([]float64, len(pts))
	for i, x := range pts {
		out[i] = p.paramOf(x)
	}
	return out, err
}
func (p arcPath) sub(a, b float64) any {
	return Arc{C: p.a.C, R: p.a.R, Start: NormRad(p.a.Start + a), Sweep: b - a, Reversed: p.a.Reversed}
}
func (p arcPath) scale() float64 { return Tol(p.a.R, p.a.C.Mag()) / p.a.R }

type ellPath struct{ e EllipseArc }

func (p ellPath) end() float64   { return p.e.Sweep }
func (p ellPath) periodic() bool { return p.e.Full() }
func (p ellPath) paramOf(x Vec) float64 {
	t := NormRad(p.e.toUnit(p.e.Closest(x)).Angle() - p.e.Start)
	if !p.periodic() && t > p.e.Sweep && 2*math.Pi-t < t-p.e.Sweep {
		return t - 2*math.Pi
	}
	return t
}
func (p ellPath) cuts(edge any) ([]float64, error) {
	pts, err := primCuts(p.e, edge)
	out := make([]float64, len(pts))
	for i, x := range pts {
		out[i] = NormRad(p.e.toUnit(x).Angle() - p.e.Start)
	}
	return out, err
}
func (p ellPath) sub(a, b float64) any {
	e := p.e
	e.Start, e.Sweep = NormRad(e.Start+a), b-a
	return e
}
func (p ellPath) scale() float64 {
	a := p.e.Major.Len()
	return Tol(a, p.e.C.Mag()) / (a * p.e.Ratio)
}

type polyPath struct {
	ps     []Piece
	closed bool
}

func (p polyPath) end() float64   { return float64(len(p.ps)) }
func (p polyPath) periodic() bool { return p.closed }

// local is the fraction along piece s of its point nearest x.
func local(s Piece, x Vec) float64 {
	if s.Bulge == 0 {
		d := s.B.Sub(s.A)
		return math.Max(0, math.Min(1, x.Sub(s.A).Dot(d)/d.Dot(d)))
	}
	a := BulgeArc(s.A, s.B, s.Bulge)
	theta := 4 * math.Atan(s.Bulge)
	c := a.Closest(x)
	from := s.A.Sub(a.C).Angle()
	var f float64
	if theta > 0 {
		f = NormRad(c.Sub(a.C).Angle()-from) / theta
	} else {
		f = NormRad(from-c.Sub(a.C).Angle()) / -theta
	}
	if f > 1 { // a point just before the start reads as a full turn
		f = 0
	}
	return f
}

// pointAt is the point of piece s at fraction f.
func pointAt(s Piece, f float64) Vec {
	switch f {
	case 0:
		return s.A
	case 1:
		return s.B
	}
	if s.Bulge == 0 {
		return s.A.Add(s.B.Sub(s.A).Mul(f))
	}
	a := BulgeArc(s.A, s.B, s.Bulge)
	return a.At(s.A.Sub(a.C).Angle() + f*4*math.Atan(s.Bulge))
}

// subBulge is the bulge of piece s from fraction f0 to f1.
func subBulge(s Piece, f0, f1 float64) float64 {
	if s.Bulge == 0 {
		return 0
	}
	return math.Tan((f1 - f0) * math.Atan(s.Bulge))
}

func (p polyPath) paramOf(x Vec) float64 {
	best, bd := 0.0, math.Inf(1)
	for i, s := range p.ps {
		f := local(s, x)
		if d := pointAt(s, f).Dist(x); d < bd {
			best, bd = float64(i)+f, d
		}
	}
	return best
}

func (p polyPath) cuts(edge any) ([]float64, error) {
	var out []float64
	for i, s := range p.ps {
		pts, err := primCuts(s.Prim(), edge)
		if err != nil {
			return nil, err
		}
		for _, x := range pts {
			out = append(out, float64(i)+local(s, x))
		}
	}
	return out, nil
}

func (p polyPath) piece(t float64) (int, float64) {
	n := len(p.ps)
	i := int(math.Floor(t))
	f := t - float64(i)
	if !p.closed && i >= n {
		return n - 1, 1
	}
	return ((i % n) + n) % n, f
}

func (p polyPath) sub(a, b float64) any {
	var v []Vertex
	add := func(x Vec, bulge float64) {
		if len(v) > 0 && v[len(v)-1].P == x {
			v[len(v)-1].Bulge = bulge
			return
		}
		v = append(v, Vertex{P: x, Bulge: bulge})
	}
	for t := a; t < b; {
		i, f := p.piece(t)
		next := math.Min(b, math.Floor(t)+1)
		f1 := f + (next - t)
		if f1 > 1 {
			f1 = 1
		}
		s := p.ps[i]
		add(pointAt(s, f), subBulge(s, f, f1))
		add(pointAt(s, f1), 0)
		t = next
	}
	return Polyline{V: v}
}

func (p polyPath) scale() float64 {
	var b Box
	for _, s := range p.ps {
		b.AddBox(PrimBounds([]any{s.Prim()}))
	}
	size := math.Max(b.Max.X-b.Min.X, b.Max.Y-b.Min.Y)
	minLen := math.Inf(1)
	for _, s := range p.ps {
		minLen = math.Min(minLen, s.Length())
	}
	return Tol(size, b.Max.Mag()) / minLen
}

// cutParams are the parameters where the edges cross c, sorted, without
// repeats.
func cutParams(p path, edges []any) ([]float64, error) {
	var ts []float64
	for _, e := range edges {
		found, err := p.cuts(e)
		if err != nil {
			return nil, err
		}
		ts = append(ts, found...)
	}
	sort.Float64s(ts)
	tol := p.scale()
	out := ts[:0]
	for _, t := range ts {
		if len(out) == 0 || t-out[len(out)-1] > tol {
			out = append(out, t)
		}
	}
	if p.periodic() && len(out) > 1 && out[len(out)-1]-out[0] >= p.end()-tol {
		out = out[:len(out)-1] // the same place, a turn apart
	}
	return out, nil
}

// Trim removes the part of curve c under pick between the nearest places
// where the edges (primitives) cross it, and returns what is left: one
// or two curves of c's kind (a circle or a whole ellipse becomes an arc,
// a closed polyline an open one). A cut at an end of an open curve does
// not count.
func Trim(c any, edges []any, pick Vec) ([]any, error) {
	p, err := pathOf(c)
	if err != nil {
		return nil, err
	}
	ts, err := cutParams(p, edges)
	if err != nil {
		return nil, err
	}
	tp := p.paramOf(pick)
	tol := p.scale()
	if p.periodic() {
		if len(ts) == 0 {
			return nil, ErrNoCut
		}
		// The cut ahead of the pick and the one behind; a single cut
		// cannot open the curve.
		l := p.end()
		if len(ts) == 1 {
			return nil, ErrOneCut
		}
		hi := math.Inf(1)
		lo := math.Inf(-1)
		for _, t := range ts {
			d := t - tp
			for d <= 0 {
				d += l
			}
			hi = math.Min(hi, tp+d)
			lo = math.Max(lo, tp+d-l)
		}
		return []any{p.sub(hi, lo+l)}, nil
	}
	lo, hi := math.Inf(-1), math.Inf(1)
	for _, t := range ts {
		if t <= tol || t >= p.end()-tol {
			continue
		}
		if t <= tp {
			lo = math.Max(lo, t)
		} else {
			hi = math.Min(hi, t)
		}
	}
	if math.IsInf(lo, -1) && math.IsInf(hi, 1) {
		return nil, ErrNoCut
	}
	var out []any
	if !math.IsInf(lo, -1) {
		out = append(out, p.sub(0, lo))
	}
	if !math.IsInf(hi, 1) {
		out = append(out, p.sub(hi, p.end()))
	}
	return out, nil
}

// Break splits curve c at the point nearest p1 (p2 nil) or removes its
// part between the points nearest p1 and p2: for a closed curve, the part
// from p1 to p2 in its own direction (counter-clockwise for a circle).
// It returns the pieces left, of c's kind (a circle broken becomes an
// arc, a closed polyline an open one).
func Break(c any, p1 Vec, p2 *Vec) ([]any, error) {
	p, err := pathOf(c)
	if err != nil {
		return nil, err
	}
	tol := p.scale()
	l := p.end()
	clamp := func(t float64) float64 { return math.Max(0, math.Min(l, t)) }
	t1 := p.paramOf(p1)
	if p.periodic() {
		t1 = math.Mod(t1+l, l)
		if p2 == nil {
			if _, isPoly := p.(polyPath); !isPoly {
				return nil, errors.New("a circle or a whole ellipse cannot be broken at one point: give two points")
			}
			return []any{p.sub(t1, t1+l)}, nil
		}
		t2 := math.Mod(p.paramOf(*p2)+l, l)
		d := t2 - t1
		if d < 0 {
			d += l
		}
		if d <= tol || d >= l-tol {
			return nil, errors.New("the two break points are the same point")
		}
		return []any{p.sub(t1+d, t1+l)}, nil
	}
	t1 = clamp(t1)
	if p2 == nil {
		if t1 <= tol || t1 >= l-tol {
			return nil, ErrAtEnd
		}
		return []any{p.sub(0, t1), p.sub(t1, l)}, nil
	}
	t2 := clamp(p.paramOf(*p2))
	if t2 < t1 {
		t1, t2 = t2, t1
	}
	if t2-t1 <= tol {
		return nil, errors.New("the two break points are the same point: give one point to split the entity")
	}
	var out []any
	if t1 > tol {
		out = append(out, p.sub(0, t1))
	}
	if t2 < l-tol {
		out = append(out, p.sub(t2, l))
	}
	if len(out) == 0 {
		return nil, ErrWhole
	}
	return out, nil
}

// Extend lengthens curve c (a Segment, an arc that is not a circle, or an
// open Polyline) at the end nearest pick, along its own curve — straight
// on, or round the arc's circle — to the nearest place where a boundary
// (primitive) crosses that continuation, and returns the longer curve.
func Extend(c any, boundaries []any, pick Vec) (any, error) {
	switch c := c.(type) {
	case Segment:
		atB := pick.Dist(c.B) <= pick.Dist(c.A)
		from, end := c.A, c.B
		if !atB {
			from, end = c.B, c.A
		}
		x, err := extendRay(from, end, boundaries)
		if err != nil {
			return nil, err
		}
		if atB {
			return Segment{c.A, x}, nil
		}
		return Segment{x, c.B}, nil
	case Arc:
		if c.Full() {
			return nil, errors.New("a circle has no end to extend")
		}
		return extendArc(c, pick.Dist(c.At(c.Start+c.Sweep)) <= pick.Dist(c.At(c.Start)), boundaries)
	case Polyline:
		if c.Closed {
			return nil, errors.New("a closed polyline has no end to extend")
		}
		v := append([]Vertex(nil), c.V...)
		n := len(v)
		if n < 2 {
			return nil, errors.New("the polyline has no length")
		}
		atEnd := pick.Dist(v[n-1].P) <= pick.Dist(v[0].P)
		i, j := n-2, n-1 // the end piece, from i to j
		if !atEnd {
			i, j = 1, 0
		}
		a, b := v[i].P, v[j].P
		bulge := v[min(i, j)].Bulge
		if bulge == 0 {
			x, err := extendRay(a, b, boundaries)
			if err != nil {
				return nil, err
			}
			v[j].P = x
			return Polyline{V: v, Closed: false}, nil
		}
		arc := BulgeArc(v[min(i, j)].P, v[max(i, j)].P, bulge)
		// Which end of the arc (counter-clockwise) is the polyline's end.
		ccwEnd := arc.At(arc.Start+arc.Sweep).Dist(b) <= arc.At(arc.Start).Dist(b)
		got, err := extendArc(Arc{C: arc.C, R: arc.R, Start: arc.Start, Sweep: arc.Sweep}, ccwEnd, boundaries)
		if err != nil {
			return nil, err
		}
		g := got.(Arc)
		theta := g.Sweep
		if bulge < 0 {
			theta = -theta
		}
		v[j].P = endOf(g, ccwEnd)
		v[min(i, j)].Bulge = math.Tan(theta / 4)
		return Polyline{V: v, Closed: false}, nil
	}
	return nil, errors.New("only lines, arcs and open polylines can be extended")
}

func endOf(a Arc, ccwEnd bool) Vec {
	if ccwEnd {
		return a.At(a.Start + a.Sweep)
	}
	return a.At(a.Start)
}

// extendRay is the nearest place beyond end, on the ray from `from`
// through end, where a boundary crosses it.
func extendRay(from, end Vec, boundaries []any) (Vec, error) {
	d := end.Sub(from).Unit()
	b := PrimBounds(boundaries)
	if !b.NonEmpty {
		return Vec{}, ErrNothingAhead
	}
	reach := 1.0
	for _, c := range b.corners() {
		reach = math.Max(reach, c.Dist(end))
	}
	ray := Segment{end, end.Add(d.Mul(2 * reach))}
	tol := Tol(math.Max(reach, end.Dist(from)), end.Mag())
	best, bd := Vec{}, math.Inf(1)
	for _, e := range boundaries {
		pts, err := primCuts(ray, e)
		if err != nil {
			return Vec{}, err
		}
		for _, x := range pts {
			if dist := x.Sub(end).Dot(d); dist > tol && dist < bd {
				best, bd = x, dist
			}
		}
	}
	if math.IsInf(bd, 1) {
		return Vec{}, ErrNothingAhead
	}
	return best, nil
}

// extendArc lengthens a round its circle past its counter-clockwise end
// (atEnd) or back past its start, to the nearest boundary.
func extendArc(a Arc, atEnd bool, boundaries []any) (any, error) {
	gap := 2*math.Pi - a.Sweep
	rest := Arc{C: a.C, R: a.R, Start: a.Start + a.Sweep, Sweep: gap}
	tol := Tol(a.R, a.C.Mag()) / a.R
	best := math.Inf(1)
	for _, e := range boundaries {
		pts, err := primCuts(rest, e)
		if err != nil {
			return nil, err
		}
		for _, x := range pts {
			t := NormRad(x.Sub(a.C).Angle() - rest.Start) // ahead of the end
			if !atEnd {
				t = NormRad(a.Start - x.Sub(a.C).Angle()) // behind the start
			}
			if t > tol && t < gap-tol && t < best {
				best = t
			}
		}
	}
	if math.IsInf(best, 1) {
		return nil, ErrNothingAhead
	}
	if atEnd {
		return Arc{C: a.C, R: a.R, Start: a.Start, Sweep: a.Sweep + best, Reversed: a.Reversed}, nil
	}
	return Arc{C: a.C, R: a.R, Start: NormRad(a.Start - best), Sweep: a.Sweep + best, Reversed: a.Reversed}, nil
}

// Join makes one curve of several: collinear segments become the segment
// over all of them (gaps closed, as AutoCAD's JOIN), arcs of one circle
// the arc over all of them (a full one when they close the circle), and
// segments, arcs and open polylines that meet end to end one Polyline in
// the order they chain (closed when the chain closes), starting with the
// first curve in its own direction.
func Join(cs []any) (any, error) {
	if len(cs) < 2 {
		return nil, errors.New("joining needs at least two entities")
	}
	if s, ok := joinCollinear(cs); ok {
		return s, nil
	}
	if a, ok := joinCocircular(cs); ok {
		return a, nil
	}
	return joinChain(cs)
}

func figureOf(cs []any) (size, mag float64) {
	var b Box
	for _, c := range cs {
		switch c := c.(type) {
		case Polyline:
			b.AddBox(c.Bounds())
		default:
			b.AddBox(PrimBounds([]any{c}))
		}
	}
	return math.Max(b.Max.X-b.Min.X, b.Max.Y-b.Min.Y), math.Max(b.Max.Mag(), b.Min.Mag())
}

func joinCollinear(cs []any) (any, bool) {
	first, ok := cs[0].(Segment)
	if !ok || first.A == first.B {
		return nil, false
	}
	size, mag := figureOf(cs)
	tol := Tol(size, mag)
	d := first.B.Sub(first.A).Unit()
	lo, hi := 0.0, first.Length()
	for _, c := range cs[1:] {
		s, ok := c.(Segment)
		if !ok {
			return nil, false
		}
		for _, p := range []Vec{s.A, s.B} {
			w := p.Sub(first.A)
			if math.Abs(d.cross(w)) > tol {
				return nil, false
			}
			lo, hi = math.Min(lo, w.Dot(d)), math.Max(hi, w.Dot(d))
		}
	}
	return Segment{first.A.Add(d.Mul(lo)), first.A.Add(d.Mul(hi))}, true
}

func joinCocircular(cs []any) (any, bool) {
	first, ok := cs[0].(Arc)
	if !ok {
		return nil, false
	}
	tol := Tol(first.R, first.C.Mag())
	// Angular intervals relative to the first arc's start.
	type span struct{ a, b float64 }
	var spans []span
	for _, c := range cs {
		a, ok := c.(Arc)
		if !ok || a.C.Dist(first.C) > tol || math.Abs(a.R-first.R) > tol {
			return nil, false
		}
		if a.Full() {
			return Arc{C: first.C, R: first.R, Sweep: 2 * math.Pi}, true
		}
		s := NormRad(a.Start - first.Start)
		spans = append(spans, span{s, s + a.Sweep})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].a < spans[j].a })
	// The largest gap between the covered stretches is what stays open.
	angTol := tol / first.R
	reach := spans[0].b
	gapAt, gap := 0.0, -1.0
	for _, s := range spans[1:] {
		if g := s.a - reach; g > gap {
			gapAt, gap = reach, g
		}
		reach = math.Max(reach, s.b)
	}
	if g := spans[0].a + 2*math.Pi - reach; g > gap {
		gapAt, gap = reach, g
	}
	if gap <= angTol {
		return Arc{C: first.C, R: first.R, Sweep: 2 * math.Pi}, true
	}
	start := first.Start + gapAt + gap
	return Arc{C: first.C, R: first.R, Start: NormRad(start), Sweep: 2*math.Pi - gap}, true
}

// strand is a curve as polyline vertices in its own direction.
func strand(c any) ([]Vertex, error) {
	switch c := c.(type) {
	case Segment:
		return []Vertex{{P: c.A}, {P: c.B}}, nil
	case Arc:
		if c.Full() {
			return nil, errors.New("a circle cannot be joined to other entities")
		}
		return []Vertex{{P: c.At(c.Start), Bulge: math.Tan(c.Sweep / 4)}, {P: c.At(c.Start + c.Sweep)}}, nil
	case Polyline:
		if c.Closed {
			return nil, errors.New("a closed polyline cannot be joined to other entities")
		}
		v := append([]Vertex(nil), c.V...)
		v[len(v)-1].Bulge = 0
		return v, nil
	}
	return nil, errors.New("only lines, arcs and polylines can be joined into a polyline")
}

func reversed(v []Vertex) []Vertex {
	n := len(v)
	out := make([]Vertex, n)
	for i := 0; i < n; i++ {
		out[i].P = v[n-1-i].P
		if i < n-1 {
			out[i].Bulge = -v[n-2-i].Bulge
		}
	}
	return out
}

// JoinError names the curves (their indexes) that did not connect.
type JoinError struct{ Left []int }

func (e *JoinError) Error() string { return ErrNotConnected.Error() }

// Unwrap is ErrNotConnected.
func (e *JoinError) Unwrap() error { return ErrNotConnected }

func joinChain(cs []any) (any, error) {
	size, mag := figureOf(cs)
	strands := make([][]Vertex, len(cs))
	for i, c := range cs {
		s, err := strand(c)
		if err != nil {
			return nil, err
		}
		strands[i] = s
	}
	chain := strands[0]
	used := make([]bool, len(cs))
	used[0] = true
	same := func(a, b Vec) bool { return a.SameIn(b, size) || a.Dist(b) <= Tol(size, mag) }
	for grew := true; grew; {
		grew = false
		for i, s := range strands {
			if used[i] {
				continue
			}
			head, tail := chain[0].P, chain[len(chain)-1].P
			first, last := s[0].P, s[len(s)-1].P
			switch {
			case same(tail, first):
				chain = append(chain[:len(chain)-1], s...)
			case same(tail, last):
				chain = append(chain[:len(chain)-1], reversed(s)...)
			case same(head, last):
				chain = append(append([]Vertex(nil), s[:len(s)-1]...), chain...)
			case same(head, first):
				r := reversed(s)
				chain = append(append([]Vertex(nil), r[:len(r)-1]...), chain...)
			default:
				continue
			}
			used[i], grew = true, true
		}
	}
	var left []int
	for i, u := range used {
		if !u {
			left = append(left, i)
		}
	}
	if len(left) > 0 {
		return nil, &JoinError{Left: left}
	}
	closed := len(chain) > 2 && same(chain[0].P, chain[len(chain)-1].P)
	if closed {
		chain = chain[:len(chain)-1]
	}
	return Polyline{V: chain, Closed: closed}, nil
}
