package geom

import (
	"errors"
	"math"
	"sort"
)

// Boundaries around a point, as AutoCAD's BPOLY: the curves (segments and
// arcs; a full circle is an arc of sweep 2π) are cut where they meet into
// the edges of a planar arrangement, edges that end nowhere are pruned,
// the faces are traced (each keeps its inside on the left, so bounded
// faces run counter-clockwise), and the smallest face whose outline
// winds around the point is the boundary. Other pieces of the drawing
// that lie wholly inside that face, touching nothing of it, are its
// islands.

// ErrNoBoundary reports a point that no closed region encloses.
var ErrNoBoundary = errors.New("the point is in no closed region: no lines, arcs, circles or polylines enclose it")

// Boundary is the region around a point.
type Boundary struct {
	// Outline is the face's outline: closed, counter-clockwise, a bulge
	// on each arc piece.
	Outline Polyline
	// Sources are the indexes of the curves the outline's pieces lie on,
	// each once, ascending.
	Sources []int
	// Islands are the outlines of the separate figures inside the face
	// (closed, counter-clockwise), for a hatch to leave out (even-odd).
	Islands []Polyline
}

// Area is the outline's area (islands not subtracted).
func (b Boundary) Area() float64 { return b.Outline.signedArea() }

// TraceBoundary finds the smallest region around p that curves (Segment
// or Arc values; others are ignored) enclose. The work grows with the
// square of the curves: the caller narrows them (by layer, or to those
// near the point) first.
func TraceBoundary(curves []any, p Vec) (Boundary, error) {
	a := newArrangement(curves)
	if a == nil {
		return Boundary{}, ErrNoBoundary
	}
	a.split()
	a.prune()
	faces := a.faces()
	best := -1
	bestArea := math.Inf(1)
	for i, f := range faces {
		if f.area > 0 && f.area < bestArea && f.outline.winds(p) {
			best, bestArea = i, f.area
		}
	}
	if best < 0 {
		return Boundary{}, ErrNoBoundary
	}
	out := faces[best]
	b := Boundary{Outline: out.outline}
	seen := map[int]bool{}
	for _, s := range out.sources {
		if !seen[s] {
			seen[s] = true
			b.Sources = append(b.Sources, s)
		}
	}
	sort.Ints(b.Sources)
	// Islands: the outer outlines (clockwise faces) of other figures,
	// inside the face and not around p.
	for _, f := range faces {
		if f.area >= 0 || f.comp == out.comp || len(f.outline.V) == 0 {
			continue
		}
		if !out.outline.winds(f.outline.V[0].P) || f.outline.winds(p) {
			continue
		}
		b.Islands = append(b.Islands, f.outline.reversed())
	}
	return b, nil
}

// arrangement is the curves cut into edges between nodes.
type arrangement struct {
	curves []any
	orig   []int   // the index each curve had in the caller's list
	eps    float64 // the distance under which two points are one node
	cuts   [][]float64
	nodes  []Vec
	grid   map[[2]int64][]int
	edges  []bedge
	// between lists the edges between two nodes (the lower first), to
	// find an edge that overlapping curves make twice.
	between map[[2]int][]int
	alive   []bool
}

// bedge is an edge: a piece of curve src between two nodes. Arc edges run
// counter-clockwise from angle a0 to a1 (a1 > a0).
type bedge struct {
	src      int
	from, to int
	p, q     Vec // the ends, as cut
	arc      bool
	c        Vec
	r        float64
	a0, a1   float64
}

func newArrangement(curves []any) *arrangement {
	var box Box
	var kept []any
	var orig []int
	for i, c := range curves {
		switch g := c.(type) {
		case Segment:
			if g.A == g.B {
				continue
			}
			box.AddBox(g.Bounds())
		case Arc:
			if g.R <= 0 || g.Sweep <= 0 {
				continue
			}
			box.AddBox(g.Bounds())
		default:
			continue
		}
		kept = append(kept, c)
		orig = append(orig, i)
	}
	if len(kept) == 0 {
		return nil
	}
	size := math.Max(box.Max.X-box.Min.X, box.Max.Y-box.Min.Y)
	mag := math.Max(box.Min.Mag(), box.Max.Mag())
	eps := math.Max(1e-8*size, 16*RoundingFloor(math.Max(mag, size)))
	return &arrangement{curves: kept, orig: orig, eps: eps, grid: map[[2]int64][]int{}, between: map[[2]int][]int{}, cuts: make([][]float64, len(kept))}
}

// param is where q lies along curve i: a fraction of a segment, an angle
// from an arc's start.
func (a *arrangement) param(i int, q Vec) float64 {
	switch g := a.curves[i].(type) {
	case Segment:
		d := g.B.Sub(g.A)
		return q.Sub(g.A).Dot(d) / d.Dot(d)
	case Arc:
		return NormRad(q.Sub(g.C).Angle() - g.Start)
	}
	return 0
}

// split cuts every curve where it meets another (or itself ends on one).
func (a *arrangement) split() {
	n := len(a.curves)
	boxes := make([]Box, n)
	for i, c := range a.curves {
		switch g := c.(type) {
		case Segment:
			a.cuts[i] = []float64{0, 1}
			boxes[i] = g.Bounds()
		case Arc:
			if g.Full() {
				a.cuts[i] = []float64{0, math.Pi, 2 * math.Pi}
			} else {
				a.cuts[i] = []float64{0, g.Sweep}
			}
			boxes[i] = g.Bounds()
		}
		boxes[i].Min = boxes[i].Min.Sub(Vec{a.eps, a.eps})
		boxes[i].Max = boxes[i].Max.Add(Vec{a.eps, a.eps})
	}
	// Sweep along x: only curves whose boxes overlap in x are paired.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(x, y int) bool { return boxes[order[x]].Min.X < boxes[order[y]].Min.X })
	for oi, i := range order {
		for _, j := range order[oi+1:] {
			if boxes[j].Min.X > boxes[i].Max.X {
				break
			}
			if !boxes[i].Overlaps(boxes[j]) {
				continue
			}
			pts, err := Intersect(a.curves[i], a.curves[j])
			if err != nil {
				// Overlapping curves: cut each where the other ends.
				pts = append(pts[:0], curveEnds(a.curves[i])...)
				pts = append(pts, curveEnds(a.curves[j])...)
			}
			for _, q := range pts {
				if a.on(i, q) {
					a.cuts[i] = append(a.cuts[i], a.param(i, q))
				}
				if a.on(j, q) {
					a.cuts[j] = append(a.cuts[j], a.param(j, q))
				}
			}
		}
	}
	for i, c := range a.curves {
		ts := a.cuts[i]
		sort.Float64s(ts)
		switch g := c.(type) {
		case Segment:
			for k := 1; k < len(ts); k++ {
				t0, t1 := math.Max(ts[k-1], 0), math.Min(ts[k], 1)
				p, q := g.A.Add(g.B.Sub(g.A).Mul(t0)), g.A.Add(g.B.Sub(g.A).Mul(t1))
				a.addEdge(bedge{src: a.orig[i]}, p, q)
			}
		case Arc:
			for k := 1; k < len(ts); k++ {
				t0, t1 := math.Max(ts[k-1], 0), math.Min(ts[k], g.Sweep)
				e := bedge{src: a.orig[i], arc: true, c: g.C, r: g.R, a0: g.Start + t0, a1: g.Start + t1}
				a.addEdge(e, g.At(e.a0), g.At(e.a1))
			}
		}
	}
}

// curveEnds are a curve's end points; for a full circle, the two points
// it is always cut at (see split).
func curveEnds(c any) []Vec {
	switch g := c.(type) {
	case Segment:
		return []Vec{g.A, g.B}
	case Arc:
		if g.Full() {
			return []Vec{g.At(g.Start), g.At(g.Start + math.Pi)}
		}
		return []Vec{g.At(g.Start), g.At(g.Start + g.Sweep)}
	}
	return nil
}

// on reports whether q lies on curve i, within eps.
func (a *arrangement) on(i int, q Vec) bool {
	switch g := a.curves[i].(type) {
	case Segment:
		c, _ := g.Closest(q)
		return c.Dist(q) <= a.eps
	case Arc:
		return g.Closest(q).Dist(q) <= a.eps
	}
	return false
}

// addEdge adds e from p to q, unless it is shorter than eps or the same
// as an edge there already (overlapping curves).
func (a *arrangement) addEdge(e bedge, p, q Vec) {
	if p.Dist(q) <= a.eps && !(e.arc && e.a1-e.a0 > math.Pi) {
		return
	}
	e.p, e.q = p, q
	e.from, e.to = a.node(p), a.node(q)
	if e.from == e.to {
		return
	}
	mid := e.mid()
	pair := [2]int{min(e.from, e.to), max(e.from, e.to)}
	for _, k := range a.between[pair] {
		if a.edges[k].mid().Dist(mid) <= a.eps {
			return
		}
	}
	a.between[pair] = append(a.between[pair], len(a.edges))
	a.edges = append(a.edges, e)
}

func (e bedge) mid() Vec {
	if e.arc {
		return polar(e.c, e.r, (e.a0+e.a1)/2)
	}
	return e.p.Mid(e.q)
}

// node is the node at p, made if there is none within eps.
func (a *arrangement) node(p Vec) int {
	cell := func(v float64) int64 { return int64(math.Floor(v / (4 * a.eps))) }
	cx, cy := cell(p.X), cell(p.Y)
	for dx := int64(-1); dx <= 1; dx++ {
		for dy := int64(-1); dy <= 1; dy++ {
			for _, k := range a.grid[[2]int64{cx + dx, cy + dy}] {
				if a.nodes[k].Dist(p) <= a.eps {
					return k
				}
			}
		}
	}
	a.nodes = append(a.nodes, p)
	k := len(a.nodes) - 1
	a.grid[[2]int64{cx, cy}] = append(a.grid[[2]int64{cx, cy}], k)
	return k
}

// prune removes edges that end at a node no other edge reaches, until
// none is left: they bound nothing.
func (a *arrangement) prune() {
	a.alive = make([]bool, len(a.edges))
	deg := make([]int, len(a.nodes))
	at := make([][]int, len(a.nodes))
	for i, e := range a.edges {
		a.alive[i] = true
		deg[e.from]++
		deg[e.to]++
		at[e.from] = append(at[e.from], i)
		at[e.to] = append(at[e.to], i)
	}
	var queue []int
	for k, d := range deg {
		if d == 1 {
			queue = append(queue, k)
		}
	}
	for len(queue) > 0 {
		k := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, i := range at[k] {
			if !a.alive[i] {
				continue
			}
			a.alive[i] = false
			e := a.edges[i]
			for _, m := range [2]int{e.from, e.to} {
				deg[m]--
				if deg[m] == 1 {
					queue = append(queue, m)
				}
			}
		}
	}
}

// A half-edge is an edge run one way: 2i from edge i's from to its to,
// 2i+1 back.

func (a *arrangement) start(h int) int {
	if e := a.edges[h/2]; h%2 == 0 {
		return e.from
	} else {
		return e.to
	}
}

// leaving is the direction a half-edge leaves its start in, as an angle,
// and its curvature there (positive turning left), which orders
// half-edges that leave in the same direction.
func (a *arrangement) leaving(h int) (angle, curvature float64) {
	e := a.edges[h/2]
	switch {
	case !e.arc && h%2 == 0:
		return a.nodes[e.to].Sub(a.nodes[e.from]).Angle(), 0
	case !e.arc:
		return a.nodes[e.from].Sub(a.nodes[e.to]).Angle(), 0
	case h%2 == 0:
		return Vec{-math.Sin(e.a0), math.Cos(e.a0)}.Angle(), 1 / e.r
	default:
		return Vec{math.Sin(e.a1), -math.Cos(e.a1)}.Angle(), -1 / e.r
	}
}

// face is a traced face: its outline, the curves of its pieces, its
// signed area (positive for the bounded faces) and the connected figure
// it belongs to.
type face struct {
	outline Polyline
	sources []int
	area    float64
	comp    int
}

// faces traces every face of the arrangement's live edges.
func (a *arrangement) faces() []face {
	// Half-edges leaving each node, counter-clockwise.
	out := make([][]int, len(a.nodes))
	type key struct{ angle, curvature float64 }
	keys := make([]key, 2*len(a.edges))
	for i := range a.edges {
		if !a.alive[i] {
			continue
		}
		for _, h := range [2]int{2 * i, 2*i + 1} {
			an, cu := a.leaving(h)
			keys[h] = key{an, cu}
			out[a.start(h)] = append(out[a.start(h)], h)
		}
	}
	pos := make([]int, 2*len(a.edges))
	for k := range out {
		hs := out[k]
		sort.Slice(hs, func(x, y int) bool {
			kx, ky := keys[hs[x]], keys[hs[y]]
			if math.Abs(kx.angle-ky.angle) > 1e-9 {
				return kx.angle < ky.angle
			}
			return kx.curvature < ky.curvature
		})
		for i, h := range hs {
			pos[h] = i
		}
	}
	comp := a.components()
	next := func(h int) int {
		twin := h ^ 1
		hs := out[a.start(twin)]
		return hs[(pos[twin]-1+len(hs))%len(hs)]
	}
	seen := make([]bool, 2*len(a.edges))
	var faces []face
	for h0 := range seen {
		if seen[h0] || !a.alive[h0/2] {
			continue
		}
		var hs []int
		for h := h0; !seen[h]; h = next(h) {
			seen[h] = true
			hs = append(hs, h)
		}
		f := face{outline: a.outline(hs), comp: comp[a.start(h0)]}
		for _, h := range hs {
			f.sources = append(f.sources, a.edges[h/2].src)
		}
		f.area = f.outline.signedArea()
		faces = append(faces, f)
	}
	return faces
}

// components numbers the connected figures, by node.
func (a *arrangement) components() []int {
	parent := make([]int, len(a.nodes))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for i, e := range a.edges {
		if a.alive[i] {
			parent[find(e.from)] = find(e.to)
		}
	}
	for i := range parent {
		parent[i] = find(i)
	}
	return parent
}

// outline is the closed polyline along half-edges hs, pieces of one
// curve that follow each other merged into one.
func (a *arrangement) outline(hs []int) Polyline {
	type piece struct {
		src   int
		back  bool
		p     Vec
		sweep float64 // of an arc, signed (negative clockwise); 0 for a segment
	}
	ps := make([]piece, len(hs))
	for i, h := range hs {
		e := a.edges[h/2]
		pc := piece{src: e.src, back: h%2 == 1, p: a.nodes[a.start(h)]}
		if e.arc {
			pc.sweep = e.a1 - e.a0
			if pc.back {
				pc.sweep = -pc.sweep
			}
		}
		ps[i] = pc
	}
	same := func(x, y piece) bool {
		return x.src == y.src && x.back == y.back && math.Abs(x.sweep+y.sweep) < 2*math.Pi-1e-6
	}
	// Start at a piece that does not continue the one before it.
	first := 0
	for i := range ps {
		if !same(ps[(i-1+len(ps))%len(ps)], ps[i]) {
			first = i
			break
		}
	}
	var g Polyline
	g.Closed = true
	for k := 0; k < len(ps); k++ {
		pc := ps[(first+k)%len(ps)]
		if n := len(g.V); n > 0 && k > 0 {
			prev := ps[(first+k-1)%len(ps)]
			if same(prev, pc) && math.Abs(g.sweepOf(n-1)+pc.sweep) < 2*math.Pi-1e-6 {
				g.V[n-1].Bulge = math.Tan((g.sweepOf(n-1) + pc.sweep) / 4)
				continue
			}
		}
		g.V = append(g.V, Vertex{P: pc.p, Bulge: math.Tan(pc.sweep / 4)})
	}
	return g
}

// sweepOf is the signed included angle of vertex i's piece.
func (g Polyline) sweepOf(i int) float64 { return 4 * math.Atan(g.V[i].Bulge) }

// winds reports whether the closed polyline g, which does not cross
// itself, goes around p: p is inside its chords' polygon, or else inside
// one of its bulges, an odd number of times in all.
func (g Polyline) winds(p Vec) bool {
	in := false
	var pieces []Piece
	for _, s := range g.Pieces() {
		// A point on the chord of a bulge is on the edge of both tests:
		// halve the bulge, whose two chords pass by the point.
		if c, _ := (Segment{s.A, s.B}).Closest(p); s.Bulge != 0 && c.Dist(p) <= Tol(s.A.Dist(s.B), p.Mag()) {
			arc := BulgeArc(s.A, s.B, s.Bulge)
			mid := arc.At(arc.Start + arc.Sweep/2)
			half := math.Tan(math.Atan(s.Bulge) / 2)
			pieces = append(pieces, Piece{s.A, mid, half}, Piece{mid, s.B, half})
			continue
		}
		pieces = append(pieces, s)
	}
	for _, s := range pieces {
		a, b := s.A, s.B
		if (a.Y > p.Y) != (b.Y > p.Y) && p.X < a.X+(p.Y-a.Y)*(b.X-a.X)/(b.Y-a.Y) {
			in = !in
		}
		if s.Bulge != 0 {
			arc := BulgeArc(a, b, s.Bulge)
			// Inside the circle and on the bulge's side of the chord.
			side := b.Sub(a).cross(p.Sub(a))
			if p.Dist(arc.C) < arc.R && (side < 0) == (s.Bulge > 0) {
				in = !in
			}
		}
	}
	return in
}

// reversed is g run the other way.
func (g Polyline) reversed() Polyline {
	n := len(g.V)
	out := Polyline{Closed: g.Closed, V: make([]Vertex, n)}
	for i := range g.V {
		// Vertex i's piece runs to i+1; reversed, vertex i+1 runs to i.
		out.V[n-1-i] = Vertex{P: g.V[(i+1)%n].P, Bulge: -g.V[i].Bulge}
	}
	return out
}
