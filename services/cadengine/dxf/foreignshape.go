package dxf

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// What a preserved entity draws and what bounds it, derived from its
// codes: points through its object coordinate system, and the outlines of
// the types whose codes say them (circles and ellipses out of the plan,
// images by their clipping, tables, MLINEs, polylines with widths,
// hatches by their boundaries, text by ezdxf's estimate of its box).

// recordPoints are the finite points of a record that bound it (with
// its text, those of its text): each x of a point (see coordRoles) with
// the y and z that follow it.
func recordPoints(r dxfRecord, typ string, toWorld func(x, y, z float64) geom.Vec, text bool) []geom.Vec {
	var out []geom.Vec
	for i, role := range coordRoles(typ, r.pairs) {
		if role == boundsIt || text && role == textCoord {
			v := pairPoint(r.pairs, i)
			if q := toWorld(v[0], v[1], v[2]); q.Finite() {
				out = append(out, q)
			}
		}
	}
	return out
}

// ocsToWorld maps a point of the record to world x and y: through its
// object coordinate system (DXF's arbitrary axis algorithm on its
// extrusion 210/220/230) for the types that have one, else as it is.
func ocsToWorld(r dxfRecord, typ string) func(x, y, z float64) geom.Vec {
	n := [3]float64{0, 0, 1}
	for _, p := range r.pairs {
		if p.code == 210 || p.code == 220 || p.code == 230 {
			if v, err := p.float(); err == nil {
				n[(p.code-210)/10] = v
			}
		}
	}
	if !ocsTypes[typ] {
		return func(x, y, _ float64) geom.Vec { return geom.Pt(x, y) }
	}
	return planeToWorld(n)
}

// planeToWorld maps a point of the object coordinate system of
// extrusion n to world x and y (as it is for a zero or non-finite n).
func planeToWorld(n [3]float64) func(x, y, z float64) geom.Vec {
	ax, ay, n, ok := arbitraryAxes(n)
	if !ok {
		return func(x, y, _ float64) geom.Vec { return geom.Pt(x, y) }
	}
	return func(x, y, z float64) geom.Vec {
		return geom.Pt(x*ax[0]+y*ay[0]+z*n[0], x*ax[1]+y*ay[1]+z*n[1])
	}
}

// arbitraryAxes are the x and y axes of the object coordinate system of
// extrusion n (normalised, as returned), by DXF's arbitrary axis
// algorithm; false for a zero or non-finite extrusion.
func arbitraryAxes(n [3]float64) (ax, ay, unit [3]float64, ok bool) {
	l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
	if !(l > 0) || math.IsInf(l, 0) {
		return ax, ay, unit, false
	}
	unit = [3]float64{n[0] / l, n[1] / l, n[2] / l}
	if math.Abs(unit[0]) < 1.0/64 && math.Abs(unit[1]) < 1.0/64 {
		ax = norm3(cross3([3]float64{0, 1, 0}, unit))
	} else {
		ax = norm3(cross3([3]float64{0, 0, 1}, unit))
	}
	return ax, norm3(cross3(unit, ax)), unit, true
}

func cross3(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func norm3(a [3]float64) [3]float64 {
	l := math.Sqrt(a[0]*a[0] + a[1]*a[1] + a[2]*a[2])
	return [3]float64{a[0] / l, a[1] / l, a[2] / l}
}

func openOutline(pts []geom.Vec) []geom.Segment {
	var out []geom.Segment
	for i := 1; i < len(pts); i++ {
		if !pts[i-1].Same(pts[i]) {
			out = append(out, geom.Segment{A: pts[i-1], B: pts[i]})
		}
	}
	return out
}

func closedOutline(pts []geom.Vec) []geom.Segment {
	out := openOutline(pts)
	if n := len(pts); n > 2 && !pts[n-1].Same(pts[0]) {
		out = append(out, geom.Segment{A: pts[n-1], B: pts[0]})
	}
	return out
}

// finitePoints are pts, or nil when any of them is not finite: an
// outline through such a point is not drawn.
func finitePoints(pts []geom.Vec) []geom.Vec {
	for _, q := range pts {
		if !q.Finite() {
			return nil
		}
	}
	return pts
}

// turnSteps is how many pieces a curve of sweep radians is drawn in: 64
// a turn, at least 2.
func turnSteps(sweep float64) int {
	n := math.Ceil(math.Abs(sweep) / (2 * math.Pi) * 64)
	if !(n >= 2) {
		return 2
	}
	return int(min(n, 4096))
}

// circleOutline is a circle or arc outside the plan (its extrusion not
// ±Z) as 64 pieces a turn in world x and y: an ellipse, seen from above.
func circleOutline(r dxfRecord, toWorld func(x, y, z float64) geom.Vec) ([]geom.Segment, []geom.Vec) {
	v, err := r.values(10, 20, 30, 40, 50, 51)
	if err != nil || !(v[40] > 0) {
		return nil, nil
	}
	start, sweep := 0.0, 360.0
	if r.kind == "ARC" {
		start, sweep = v[50], geom.SweepDeg(v[50], v[51])
	}
	n := turnSteps(geom.Rad(sweep))
	pts := make([]geom.Vec, n+1)
	for i := range pts {
		s, c := geom.SinCosDeg(start + sweep*float64(i)/float64(n))
		pts[i] = toWorld(v[10]+v[40]*c, v[20]+v[40]*s, v[30])
	}
	pts = finitePoints(pts)
	return openOutline(pts), pts
}

// ellipseOutline is an ELLIPSE (its centre 10 and major axis 11 in world
// coordinates, the minor axis ratio 40 of it turned about the extrusion)
// from parameter 41 to 42, in pieces, seen from above.
func ellipseOutline(r dxfRecord) ([]geom.Segment, []geom.Vec) {
	c, _ := firstPoint(r.pairs, 10)
	major, _ := firstPoint(r.pairs, 11)
	n := [3]float64{firstFloat(r.pairs, 210, 0), firstFloat(r.pairs, 220, 0), firstFloat(r.pairs, 230, 1)}
	ratio := firstFloat(r.pairs, 40, 1)
	l := math.Sqrt(major[0]*major[0] + major[1]*major[1] + major[2]*major[2])
	if !(l > 0) || n == ([3]float64{}) {
		return nil, nil
	}
	minor := norm3(cross3(n, major))
	for i := range minor {
		minor[i] *= l * ratio
	}
	start, end := firstFloat(r.pairs, 41, 0), firstFloat(r.pairs, 42, 2*math.Pi)
	if end <= start {
		end += 2 * math.Pi
	}
	steps := turnSteps(end - start)
	pts := make([]geom.Vec, steps+1)
	for i := range pts {
		s, co := math.Sincos(start + (end-start)*float64(i)/float64(steps))
		pts[i] = geom.Pt(c[0]+major[0]*co+minor[0]*s, c[1]+major[1]*co+minor[1]*s)
	}
	pts = finitePoints(pts)
	return openOutline(pts), pts
}

// imageOutline is a preserved image's or wipeout's boundary (one whose
// pixels leave the plan), in plan, as the native types place it (see
// drawing.Raster.Boundary).
func imageOutline(r dxfRecord) ([]geom.Segment, []geom.Vec) {
	g, err := r.rasterPlan()
	if err != nil {
		return nil, nil
	}
	pts := finitePoints(g.Boundary())
	return closedOutline(pts), pts
}

// tableOutline is a table's frame: from its insertion point (10), along
// its direction (11), as wide as its columns (142, one for each) and,
// downwards, as tall as its rows (141).
func tableOutline(r dxfRecord) ([]geom.Segment, []geom.Vec) {
	p, _ := firstPoint(r.pairs, 10)
	u := geom.Pt(firstFloat(r.pairs, 11, 1), firstFloat(r.pairs, 21, 0)).Unit()
	sum := func(code int) float64 {
		total, in := 0.0, false
		for _, q := range r.pairs {
			switch {
			case q.code == code:
				v, _ := q.float()
				total, in = total+v, true
			case in:
				return total
			}
		}
		return total
	}
	w, h := sum(142), sum(141)
	o := geom.Pt(p[0], p[1])
	down := u.Perp().Mul(-h)
	pts := finitePoints([]geom.Vec{o, o.Add(u.Mul(w)), o.Add(u.Mul(w)).Add(down), o.Add(down)})
	return closedOutline(pts), pts
}

// mlineOutline is a multiline's elements: each vertex (11) moved along
// its miter direction (13) by the offset of each element (the first of
// its parameters, 41 after their count 74), joined from vertex to
// vertex; closed when 71 says so (2).
func mlineOutline(r dxfRecord) ([]geom.Segment, []geom.Vec) {
	var elems [][]geom.Vec // by element, its points
	var vertex, miter [3]float64
	elem, offset := -1, false
	for i, p := range r.pairs {
		switch p.code {
		case 11:
			vertex, elem = pairPoint(r.pairs, i), -1
		case 13:
			miter = pairPoint(r.pairs, i)
		case 74:
			elem, offset = elem+1, true
		case 41:
			if elem < 0 || !offset {
				continue
			}
			d, _ := p.float()
			for len(elems) <= elem {
				elems = append(elems, nil)
			}
			elems[elem] = append(elems[elem], geom.Pt(vertex[0]+miter[0]*d, vertex[1]+miter[1]*d))
			offset = false
		}
	}
	var out []geom.Segment
	var pts []geom.Vec
	for _, e := range elems {
		e = finitePoints(e)
		if firstInt(r.pairs, 71, 0)&2 != 0 {
			out = append(out, closedOutline(e)...)
		} else {
			out = append(out, openOutline(e)...)
		}
		pts = append(pts, e...)
	}
	if len(pts) == 0 { // no elements: its vertices
		pts = recordPoints(r, "MLINE", ocsToWorld(r, "MLINE"), true)
		return openOutline(pts), pts
	}
	return out, pts
}

// plineVertex is a vertex of a 2D polyline, in its object coordinate
// system: its point, the bulge of the piece to the next vertex, and the
// widths of that piece at its start and end.
type plineVertex struct {
	p          geom.Vec
	bulge      float64
	start, end float64
}

// plineOutline is a 2D polyline at elevation z in the plane of its
// object coordinate system: its centre line (arcs in pieces) and, where
// it has width, the corners of its band too (see plineBands).
func plineOutline(vs []plineVertex, closed bool, z float64, toWorld func(x, y, z float64) geom.Vec) ([]geom.Segment, []geom.Vec) {
	world := func(q geom.Vec) geom.Vec { return toWorld(q.X, q.Y, z) }
	if len(vs) == 0 {
		return nil, nil
	}
	line := []geom.Vec{world(vs[0].p)}
	n, count := len(vs), len(vs)-1
	if closed {
		count = n
	}
	for i := range count {
		a, b := vs[i], vs[(i+1)%n]
		if a.bulge == 0 || a.p.Same(b.p) {
			line = append(line, world(b.p))
			continue
		}
		for _, q := range arcPoints(a, b.p)[1:] {
			line = append(line, world(q))
		}
	}
	line = finitePoints(line)
	pts := slices.Clone(line)
	for _, f := range plineBands(vs, closed, z, toWorld) {
		pts = append(pts, f...)
	}
	return openOutline(line), pts
}

// plineBands are the areas a 2D polyline at elevation z in the plane of
// its object coordinate system fills where it has width, in world
// coordinates: its band's outlines as geom.Polyline.Bands makes them
// (ezdxf's TraceBuilder), seen from above; none without widths, and none
// that would not be finite.
func plineBands(vs []plineVertex, closed bool, z float64, toWorld func(x, y, z float64) geom.Vec) [][]geom.Vec {
	if !slices.ContainsFunc(vs, func(v plineVertex) bool { return v.start != 0 || v.end != 0 }) {
		return nil
	}
	g := geom.Polyline{V: make([]geom.Vertex, len(vs)), Closed: closed}
	w := make([]geom.Width, len(vs))
	for i, v := range vs {
		g.V[i] = geom.Vertex{P: v.p, Bulge: v.bulge}
		w[i] = geom.Width{Start: math.Abs(v.start), End: math.Abs(v.end)}
	}
	if !g.Finite() {
		return nil
	}
	b := g.Bounds()
	tol := 1e-4 * math.Max(math.Max(b.Max.X-b.Min.X, b.Max.Y-b.Min.Y), 1e-9)
	var out [][]geom.Vec
	for _, f := range g.Bands(w, tol) {
		for i, q := range f {
			f[i] = toWorld(q.X, q.Y, z)
		}
		if len(finitePoints(f)) == len(f) {
			out = append(out, f)
		}
	}
	return out
}

// wideBands are the areas a preserved 2D polyline fills where it has
// width (an LWPOLYLINE, or a POLYLINE neither 3D nor a mesh), in world
// coordinates (see plineBands).
func wideBands(r dxfRecord, subs []dxfRecord) [][]geom.Vec {
	switch toWorld := ocsToWorld(r, r.kind); {
	case r.kind == "LWPOLYLINE":
		return plineBands(lwpolylineVertices(r), r.flags()&1 != 0, firstFloat(r.pairs, 38, 0), toWorld)
	case r.kind == "POLYLINE" && r.flags()&(8|16|64) == 0:
		return plineBands(polylineVertices(r, subs), r.flags()&1 != 0, firstFloat(r.pairs, 30, 0), toWorld)
	}
	return nil
}

// arcPoints are the points of the arc from a to b of a's bulge, 64 a
// turn.
func arcPoints(a plineVertex, b geom.Vec) []geom.Vec {
	arc := geom.BulgeArc(a.p, b, a.bulge)
	k := turnSteps(arc.Sweep)
	out := make([]geom.Vec, k+1)
	for j := range out {
		f := float64(j) / float64(k)
		if arc.Reversed {
			f = 1 - f
		}
		out[j] = arc.At(arc.Start + arc.Sweep*f)
	}
	return out
}

// polylineOutline is a POLYLINE: a polygon mesh as polygonMeshOutline
// draws it, bounded by its vertices; a polyface mesh as polyfaceOutline
// draws its faces (the VERTEXes that index others, 71–74, from 1),
// bounded by the vertices of its faces; a 3D polyline through its
// vertices; a 2D one as plineOutline draws it, with the widths of its
// vertices (40, 41) or else its own.
func polylineOutline(r dxfRecord, subs []dxfRecord, toWorld func(x, y, z float64) geom.Vec) ([]geom.Segment, []geom.Vec) {
	flags := r.flags()
	var pts []geom.Vec
	var vflags []int64
	var faces [][]int64
	var used []bool // of a polyface mesh's vertices, those of its faces
	for _, s := range subs {
		if f := s.flags(); s.kind != "VERTEX" || f&128 != 0 && f&64 == 0 {
			if s.kind != "VERTEX" {
				continue
			}
			face := polyfaceFace(s)
			for _, k := range face {
				if k := int(abs64(k)); k <= len(subs) {
					used = append(used, make([]bool, max(0, k-len(used)))...)
					used[k-1] = true
				}
			}
			faces = append(faces, face)
			continue
		}
		p, _ := firstPoint(s.pairs, 10)
		pts = append(pts, toWorld(p[0], p[1], p[2]))
		vflags = append(vflags, s.flags())
	}
	pts = finitePoints(pts)
	switch {
	case flags&64 != 0:
		var bounds []geom.Vec
		for k, p := range pts {
			if k < len(used) && used[k] {
				bounds = append(bounds, p)
			}
		}
		return polyfaceOutline(pts, faces), bounds
	case flags&16 != 0:
		if len(pts) != len(vflags) {
			return nil, nil
		}
		return polygonMeshOutline(r, pts, vflags), pts
	case flags&8 != 0 && flags&1 != 0:
		return closedOutline(pts), pts
	case flags&8 != 0:
		return openOutline(pts), pts
	}
	return plineOutline(polylineVertices(r, subs), flags&1 != 0, firstFloat(r.pairs, 30, 0), toWorld)
}

// polylineVertices are the vertices of a 2D POLYLINE (its VERTEX
// records that are not a mesh's faces), with their widths (40, 41) or
// else the polyline's.
func polylineVertices(r dxfRecord, subs []dxfRecord) []plineVertex {
	sw, ew := firstFloat(r.pairs, 40, 0), firstFloat(r.pairs, 41, 0)
	var vs []plineVertex
	for _, s := range subs {
		if f := s.flags(); s.kind != "VERTEX" || f&128 != 0 && f&64 == 0 {
			continue
		}
		p, _ := firstPoint(s.pairs, 10)
		vs = append(vs, plineVertex{p: geom.Pt(p[0], p[1]), bulge: firstFloat(s.pairs, 42, 0), start: firstFloat(s.pairs, 40, sw), end: firstFloat(s.pairs, 41, ew)})
	}
	return vs
}

// lwpolylineOutline is an LWPOLYLINE outside the plan: its vertices (10)
// with their widths (40, 41, or its constant width 43) and bulges (42),
// at its elevation (38), as plineOutline draws it.
func lwpolylineOutline(r dxfRecord, toWorld func(x, y, z float64) geom.Vec) ([]geom.Segment, []geom.Vec) {
	return plineOutline(lwpolylineVertices(r), r.flags()&1 != 0, firstFloat(r.pairs, 38, 0), toWorld)
}

// lwpolylineVertices are an LWPOLYLINE's vertices (10) with their bulges
// (42) and widths (40, 41, or its constant width 43).
func lwpolylineVertices(r dxfRecord) []plineVertex {
	cw := firstFloat(r.pairs, 43, 0)
	var vs []plineVertex
	for i, p := range r.pairs {
		if p.code == 10 {
			q := pairPoint(r.pairs, i)
			vs = append(vs, plineVertex{p: geom.Pt(q[0], q[1]), start: cw, end: cw})
			continue
		}
		if len(vs) == 0 || p.code < 40 || p.code > 42 {
			continue
		}
		v, _ := p.float()
		switch last := &vs[len(vs)-1]; {
		case p.code == 42:
			last.bulge = v
		case cw != 0: // the constant width is every vertex's (as AutoCAD draws it)
		case p.code == 40:
			last.start = v
		default:
			last.end = v
		}
	}
	return vs
}

// A hatchCursor reads a HATCH's codes in order (walkHatch).
type hatchCursor struct {
	ps    []dxfPair
	i     int
	roles []coordRole
	ok    bool
}

// num is the value of the next pair when it has code c (else def).
func (c *hatchCursor) num(code int, def float64) float64 {
	if c.ok && c.i < len(c.ps) && c.ps[c.i].code == code {
		v, err := c.ps[c.i].float()
		c.i++
		if err == nil {
			return v
		}
	}
	return def
}

// count is the next pair's value, which must have code c and be a
// count.
func (c *hatchCursor) count(code int) int {
	if !c.ok || c.i >= len(c.ps) || c.ps[c.i].code != code {
		c.ok = false
		return 0
	}
	n, err := c.ps[c.i].int()
	c.i++
	if err != nil || n < 0 || n > int64(len(c.ps)) {
		c.ok = false
		return 0
	}
	return int(n)
}

// point is the point whose x is the next pair, which must have code c;
// the pair takes the role.
func (c *hatchCursor) point(code int, role coordRole) geom.Vec {
	if !c.ok || c.i >= len(c.ps) || c.ps[c.i].code != code {
		c.ok = false
		return geom.Vec{}
	}
	c.roles[c.i] = role
	v := pairPoint(c.ps, c.i)
	c.i++
	for c.i < len(c.ps) && (c.ps[c.i].code == code+10 || c.ps[c.i].code == code+20) {
		c.i++
	}
	return geom.Pt(v[0], v[1])
}

// walkHatch reads a HATCH's boundary paths (AcDbHatch, after their count
// 91) and its seed points (after their count 98): it sets the roles of
// its points (the elevation point is none; the boundaries' points bound
// it; an ellipse's axis and a spline's tangents are directions; the seed
// points move with it), and, with loops, appends each path, in the
// hatch's object coordinate system, arcs, ellipses and splines in
// pieces. Codes it cannot read keep the roles of other types.
func walkHatch(ps []dxfPair, roles []coordRole, loops *[][]geom.Vec) {
	c := &hatchCursor{ps: ps, roles: roles, ok: true}
	for c.i < len(ps) && ps[c.i].code != 91 {
		c.i++
	}
	paths := c.count(91)
	for range paths {
		var loop []geom.Vec
		if flags := c.count(92); flags&2 != 0 {
			c.num(72, 0)
			closed := c.num(73, 1) != 0
			var vs []plineVertex
			for range c.count(93) {
				p := c.point(10, boundsIt)
				vs = append(vs, plineVertex{p: p, bulge: c.num(42, 0)})
			}
			_, loop = plineOutline(vs, closed, 0, func(x, y, _ float64) geom.Vec { return geom.Pt(x, y) })
		} else {
			for range c.count(93) {
				loop = append(loop, c.edge()...)
			}
		}
		for range c.count(97) {
			c.i++ // 330, the boundary's source
		}
		if !c.ok {
			break
		}
		if loops != nil {
			*loops = append(*loops, loop)
		}
	}
	for c.ok && c.i < len(ps) && ps[c.i].code != 98 {
		c.i++
	}
	for range c.count(98) {
		c.point(10, movesOnly)
	}
	if !c.ok { // from where it failed, as other types
		for i := c.i; i < len(ps); i++ {
			if p := ps[i].code; p >= 10 && p <= 18 {
				roles[i] = boundsIt
			}
		}
	}
}

// edge reads one edge of a boundary path (72, its type, first) and is
// it in pieces.
func (c *hatchCursor) edge() []geom.Vec {
	switch int(c.num(72, 0)) {
	case 1: // line
		return []geom.Vec{c.point(10, boundsIt), c.point(11, boundsIt)}
	case 2: // circular arc
		centre, r := c.point(10, boundsIt), c.num(40, 0)
		return edgeArc(centre, geom.Pt(r, 0), 1, c.num(50, 0), c.num(51, 360), c.num(73, 1) != 0)
	case 3: // elliptical arc
		centre, major := c.point(10, boundsIt), c.point(11, notCoord)
		return edgeArc(centre, major, c.num(40, 1), c.num(50, 0), c.num(51, 360), c.num(73, 1) != 0)
	case 4: // spline
		degree := int(c.num(94, 3))
		c.num(73, 0)
		c.num(74, 0)
		nk, nc := c.count(95), c.count(96)
		knots := make([]float64, 0, nk)
		for range nk {
			knots = append(knots, c.num(40, 0))
		}
		var control []geom.Vec
		var weights []float64
		for range nc {
			control = append(control, c.point(10, boundsIt))
			if c.ok && c.i < len(c.ps) && c.ps[c.i].code == 42 {
				weights = append(weights, c.num(42, 1))
			}
		}
		var fit []geom.Vec
		if c.i < len(c.ps) && c.ps[c.i].code == 97 {
			for range c.count(97) {
				fit = append(fit, c.point(11, boundsIt))
			}
			if c.i < len(c.ps) && c.ps[c.i].code == 12 {
				c.point(12, notCoord)
				c.point(13, notCoord)
			}
		}
		if len(weights) != len(control) {
			weights = nil
		}
		if s, err := geom.NewSpline(degree, knots, control, weights); err == nil {
			return s.Flatten(1e-4 * math.Max(1e-9, controlSize(control)))
		}
		if len(control) > 0 {
			return control
		}
		return fit
	}
	c.ok = false
	return nil
}

// controlSize is the larger side of the points' box.
func controlSize(pts []geom.Vec) float64 {
	var b geom.Box
	for _, p := range pts {
		b.AddPoint(p)
	}
	return math.Max(b.Max.X-b.Min.X, b.Max.Y-b.Min.Y)
}

// edgeArc is a boundary path's arc of an ellipse (of a circle, ratio 1)
// about centre, with major axis major, from start to end (degrees),
// counter-clockwise or, when !ccw, clockwise, which DXF writes as the
// angles' complements (as ezdxf reads it, its EllipseEdge's angles are
// turned into parameters).
func edgeArc(centre, major geom.Vec, ratio, start, end float64, ccw bool) []geom.Vec {
	if !ccw {
		start, end = 360-end, 360-start
	}
	param := func(deg float64) float64 {
		s, c := geom.SinCosDeg(deg)
		return math.Atan2(s/ratio, c)
	}
	t0, t1 := param(start), param(end)
	sweep := math.Mod(t1-t0, 2*math.Pi)
	if sweep <= 1e-12 {
		sweep += 2 * math.Pi
	}
	minor := major.Perp().Mul(ratio)
	n := turnSteps(sweep)
	out := make([]geom.Vec, n+1)
	for i := range out {
		s, co := math.Sincos(t0 + sweep*float64(i)/float64(n))
		out[i] = centre.Add(major.Mul(co)).Add(minor.Mul(s))
	}
	if !ccw {
		slices.Reverse(out)
	}
	return out
}

// hatchOutline is a HATCH outside the plan, or one the engine does not
// model: its boundary paths (see walkHatch) at its elevation (30).
func hatchOutline(r dxfRecord, toWorld func(x, y, z float64) geom.Vec) ([]geom.Segment, []geom.Vec) {
	var out []geom.Segment
	var pts []geom.Vec
	for _, w := range hatchLoops(r, toWorld) {
		out, pts = append(out, closedOutline(w)...), append(pts, w...)
	}
	return out, pts
}

// hatchLoops are a HATCH's boundary paths (see walkHatch) in world
// coordinates, at its elevation (30); a path through a point that is
// not finite is empty.
func hatchLoops(r dxfRecord, toWorld func(x, y, z float64) geom.Vec) [][]geom.Vec {
	var loops [][]geom.Vec
	walkHatch(r.pairs, make([]coordRole, len(r.pairs)), &loops)
	z := firstFloat(r.pairs, 30, 0)
	for i, l := range loops {
		w := make([]geom.Vec, len(l))
		for j, q := range l {
			w[j] = toWorld(q.X, q.Y, z)
		}
		loops[i] = finitePoints(w)
	}
	return loops
}

// hatchFills are the areas a preserved HATCH fills when it is solid (70
// bit 1, or the pattern SOLID; a gradient is solid too, and fills in its
// entity's colour here): its boundary paths, filled as the engine fills
// a hatch, by the even-odd rule (islands left empty). A preserved
// entity's fills go by the non-zero rule, so each path is turned to wind
// counter-clockwise when as many other paths hold it as an even number,
// clockwise when odd: for paths that do not cross, the two rules then
// fill the same. A patterned hatch fills nothing (its outline is drawn).
func hatchFills(r dxfRecord) [][]geom.Vec {
	if r.kind != "HATCH" {
		return nil
	}
	solid := firstInt(r.pairs, 70, 0)&1 != 0
	if i := slices.IndexFunc(r.pairs, func(p dxfPair) bool { return p.code == 2 }); i >= 0 {
		solid = solid || strings.EqualFold(r.pairs[i].word(), "SOLID")
	}
	if !solid {
		return nil
	}
	var fills [][]geom.Vec
	for _, l := range hatchLoops(r, ocsToWorld(r, r.kind)) {
		if len(l) >= 3 {
			fills = append(fills, l)
		}
	}
	for i, f := range fills {
		depth := 0
		for j, g := range fills {
			if i != j && geom.Polygon(g).Where(f[0]) == geom.Inside {
				depth++
			}
		}
		if ccw := geom.Polygon(f).SignedArea() > 0; ccw != (depth%2 == 0) {
			slices.Reverse(f)
		}
	}
	return fills
}

// monoDescender is how far below its baseline text reaches in ezdxf's
// estimate without fonts, as a fraction of its height: the estimate of
// [drawing.Text], every character as wide as the text is tall (times its
// width factor).
const monoDescender = 0.333

// A textBox is a line of text as ezdxf estimates it without fonts (its
// TextLinePrimitive, with fonts.MonospaceFont).
type textBox struct {
	chars              int
	height, width      float64 // the cap height; the width factor
	stretchX, stretchY float64 // a fit or aligned text's stretch to its two points
	// The alignment as ezdxf unifies it: left 0, centre 1, right 2;
	// baseline 0, bottom 1, middle 2, top 3, and 4 the middle of the
	// whole height (TEXT's "middle").
	halign, valign   int
	oblique, angle   float64 // radians
	mirrorX, mirrorY bool
}

// corners are the corners of the box, in the text's plane, the text's
// location at the origin.
func (t textBox) corners() [4]geom.Vec {
	top, desc := t.height*t.stretchY, monoDescender*t.height*t.stretchY
	w := float64(t.chars) * t.height * math.Abs(t.width) * t.stretchX
	var shift geom.Vec
	switch t.halign {
	case 1:
		shift.X = -w / 2
	case 2:
		shift.X = -w
	}
	switch t.valign {
	case 0:
	case 2:
		shift.Y = -top / 2
	case 3:
		shift.Y = -top
	case 4:
		shift.Y = -top + (top+desc)/2
	default: // bottom
		shift.Y = desc
	}
	mx, my := 1.0, 1.0
	if t.mirrorX {
		mx = -1
	}
	if t.mirrorY {
		my = -1
	}
	slant := math.Tan(t.oblique)
	s, c := math.Sincos(t.angle)
	out := [4]geom.Vec{{X: 0, Y: -desc}, {X: w, Y: -desc}, {X: w, Y: top}, {X: 0, Y: top}}
	for i, q := range out {
		q.X += q.Y * slant
		q = q.Add(shift)
		q.X, q.Y = q.X*mx, q.Y*my
		out[i] = geom.Pt(c*q.X-s*q.Y, s*q.X+c*q.Y)
	}
	return out
}

// textOutline is the box of a TEXT, ATTRIB or ATTDEF (whose tag, 2, is
// what it shows out of a block) as ezdxf estimates it: its characters
// (1) at its height (40) and width factor (41), aligned (72, and 73, or
// 74 for attributes) on its insertion point (10) or its alignment point
// (11), stretched between the two when fit or aligned, slanted (51),
// turned (50) and mirrored (71) in its plane.
func textOutline(r dxfRecord, toWorld func(x, y, z float64) geom.Vec) ([]geom.Segment, []geom.Vec) {
	content, vcode := 1, 73
	if r.kind != "TEXT" {
		vcode = 74
	}
	if r.kind == "ATTDEF" {
		content = 2
	}
	n := 0
	for _, p := range r.pairs {
		if p.code == content {
			n = utf8.RuneCountInString(decodeDXFText(p.value))
			break
		}
	}
	if n == 0 {
		return nil, nil
	}
	p1, _ := firstPoint(r.pairs, 10)
	p2, ok := firstPoint(r.pairs, 11)
	if !ok {
		p2 = p1
	}
	h, v := int(firstInt(r.pairs, 72, 0)), int(firstInt(r.pairs, vcode, 0))
	t := textBox{
		chars: n, height: firstFloat(r.pairs, 40, 2.5), width: firstFloat(r.pairs, 41, 1), stretchX: 1, stretchY: 1,
		halign: h, valign: v, oblique: geom.Rad(firstFloat(r.pairs, 51, 0)), angle: geom.Rad(firstFloat(r.pairs, 50, 0)),
		mirrorX: r.flags()&2 != 0, mirrorY: r.flags()&4 != 0,
	}
	switch h {
	case 3, 5: // aligned, fit: centred on the baseline between the two points
		t.halign, t.valign = 1, 0
	case 4: // middle: centred on the middle of the whole height
		t.halign, t.valign = 1, 4
	}
	at := p2
	switch {
	case h == 3 || h == 5:
		at = [3]float64{(p1[0] + p2[0]) / 2, (p1[1] + p2[1]) / 2, (p1[2] + p2[2]) / 2}
		d := [3]float64{p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]}
		l := math.Sqrt(d[0]*d[0] + d[1]*d[1] + d[2]*d[2])
		if l > 1e-12 {
			t.angle = math.Atan2(d[1], d[0])
		}
		if w := float64(n) * t.height * math.Abs(t.width); w > 1e-9 {
			t.stretchX = l / w
		}
		if h == 3 {
			t.stretchY = t.stretchX
		}
	case h == 0 && v == 0, h < 0, h > 5, h <= 2 && (v < 0 || v > 3):
		at = p1 // left on the baseline, or an alignment ezdxf does not know
	}
	var pts []geom.Vec
	for _, q := range t.corners() {
		pts = append(pts, toWorld(at[0]+q.X, at[1]+q.Y, at[2]))
	}
	pts = finitePoints(pts)
	return closedOutline(pts), pts
}

// mtextOutline is the box of an MTEXT outside the plan, seen from above,
// as the engine estimates a native one (see [drawing.MText]): its text
// (3, then 1), at its height (40), wrapped at its width (41), on its
// attachment point (71, at 10), along its direction (11) or rotation
// (50), its lines 44 apart. What an embedded object (101 on) says of its
// columns is left out.
func mtextOutline(r dxfRecord) ([]geom.Segment, []geom.Vec) {
	ps := r.pairs
	if i := slices.IndexFunc(ps, func(p dxfPair) bool { return p.code == 101 }); i >= 0 {
		ps = ps[:i]
	}
	var b strings.Builder
	last := ""
	for _, p := range ps {
		switch p.code {
		case 3:
			b.WriteString(p.value)
		case 1:
			last = p.value
		}
	}
	b.WriteString(last)
	text := decodeMTextValue(b.String())
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	g := drawing.MText{
		Text: text, P: geom.Pt(firstFloat(ps, 10, 0), firstFloat(ps, 20, 0)), Height: firstFloat(ps, 40, 2.5),
		Width: math.Max(0, firstFloat(ps, 41, 0)), Rotation: firstFloat(ps, 50, 0),
		Attach: uint8(min(max(firstInt(ps, 71, 1), 1), 9)), Spacing: firstFloat(ps, 44, 1),
	}
	if d, ok := firstPoint(ps, 11); ok && (d[0] != 0 || d[1] != 0) {
		g.Rotation = geom.Deg(math.Atan2(d[1], d[0]))
	}
	if !(g.Height > 0) {
		g.Height = drawing.DefaultTextHeight
	}
	if !(g.Spacing >= 0.25 && g.Spacing <= 4) {
		g.Spacing = 1
	}
	box := g.Bounds()
	pts := finitePoints([]geom.Vec{box.Min, geom.Pt(box.Max.X, box.Min.Y), box.Max, geom.Pt(box.Min.X, box.Max.Y)})
	return closedOutline(pts), pts
}
