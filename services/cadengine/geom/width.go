package geom

import "math"

// Polylines drawn with a width: the filled outlines of their pieces.

// Width is how wide a polyline is drawn along the piece from a vertex to
// the next: Start at the vertex, End at the next, changing linearly in
// between (DXF's start and end widths, group codes 40 and 41).
type Width struct{ Start, End float64 }

// Zero reports whether the piece is drawn as a line (no width at either
// end).
func (w Width) Zero() bool { return w.Start == 0 && w.End == 0 }

// parallelJoin is the angle (radians) under which the sides of two
// neighbouring straight pieces are taken as parallel and not intersected:
// ezdxf's (π/100, about 1.8°).
const parallelJoin = 0.031415

// Bands is the polyline drawn with the widths w (one per vertex, as V)
// as filled outlines, built as ezdxf's TraceBuilder builds them for its
// drawing add-on: each run of straight pieces is one outline, whose
// sides meet where the sides of neighbouring pieces intersect (a mitre;
// pieces within parallelJoin of parallel keep their own corners), square
// at the run's ends; each bulged piece is an outline of its own, an
// annular sector whose width changes linearly along the arc, its ends
// square to the arc, its curved sides within tol. A closed polyline's
// last and first runs are joined into one. Every outline runs
// counter-clockwise; runs and pieces of no width are left out, and
// outlines may overlap (fill them by the non-zero rule).
func (g Polyline) Bands(w []Width, tol float64) [][]Vec {
	type point struct {
		p     Vec
		w     Width
		bulge float64
	}
	pts := make([]point, len(g.V), len(g.V)+1)
	for i, v := range g.V {
		pts[i] = point{v.P, w[i], v.Bulge}
	}
	if g.Closed && len(pts) > 1 && !pts[0].p.Same(pts[len(pts)-1].p) {
		pts = append(pts, pts[0])
	}
	type trace struct {
		run  []station // a run of straight pieces, or
		band []Vec     // a bulged piece's outline
	}
	var traces []trace
	var run []station
	var arcFrom *point
	for i := range pts {
		q := &pts[i]
		if arcFrom != nil {
			if !arcFrom.p.Same(q.p) && !arcFrom.w.Zero() {
				traces = append(traces, trace{band: arcBand(BulgeArc(arcFrom.p, q.p, arcFrom.bulge), arcFrom.w, tol)})
			}
			arcFrom = nil
		}
		if q.bulge != 0 {
			if len(run) > 0 {
				traces = append(traces, trace{run: addStation(run, q.p, q.w)})
				run = nil
			}
			arcFrom = q
			continue
		}
		run = addStation(run, q.p, q.w)
	}
	if len(run) > 0 {
		traces = append(traces, trace{run: run})
	}
	if n := len(traces); g.Closed && n > 1 && traces[0].run != nil && traces[n-1].run != nil {
		// The closing vertex joins the last run to the first.
		for _, s := range traces[0].run {
			traces[n-1].run = addStation(traces[n-1].run, s.p, s.w)
		}
		traces = traces[1:]
	}
	var out [][]Vec
	for _, t := range traces {
		band := t.band
		if t.run != nil {
			if !wide(t.run) {
				continue
			}
			band = runBand(t.run)
		}
		if polygonArea(band) < 0 {
			reverse(band)
		}
		out = append(out, band)
	}
	return out
}

// station is a vertex of a run of straight pieces, with the widths of
// the piece that starts there.
type station struct {
	p Vec
	w Width
}

// addStation appends a station to a run; one at the last one's place
// replaces it (so a run has no piece of zero length).
func addStation(run []station, p Vec, w Width) []station {
	if n := len(run); n > 0 && run[n-1].p.Same(p) {
		run = run[:n-1]
	}
	return append(run, station{p, w})
}

// wide reports whether a piece of the run has a width.
func wide(run []station) bool {
	for _, s := range run[:len(run)-1] {
		if !s.w.Zero() {
			return true
		}
	}
	return false
}

// line is an infinite line through p along d.
type line struct{ p, d Vec }

// meet is where two lines cross, or def when they are within
// parallelJoin of parallel, or parallel within rounding either way (as
// ezdxf's rays are when their slopes are within 1e-12).
func meet(a, b line, def Vec) Vec {
	c := a.d.cross(b.d)
	ang := math.Atan2(math.Abs(c), a.d.Dot(b.d))
	if ang < parallelJoin || !(math.Abs(c) > 1e-12*a.d.Len()*b.d.Len()) {
		return def
	}
	t := b.p.Sub(a.p).cross(b.d) / c
	return a.p.Add(a.d.Mul(t))
}

// runBand is the outline of a run of straight pieces (ezdxf's
// LinearTrace): its right side forward, then its left side back.
func runBand(run []station) []Vec {
	n := len(run) - 1 // pieces
	if n < 1 {
		return nil
	}
	type sides struct{ left1, left2, right1, right2 Vec }
	pieces := make([]sides, n)
	for i := range pieces {
		a, b := run[i].p, run[i+1].p
		o := b.Sub(a).Unit().Perp()
		s, e := o.Mul(run[i].w.Start/2), o.Mul(run[i].w.End/2)
		pieces[i] = sides{a.Add(s), b.Add(e), a.Sub(s), b.Sub(e)}
	}
	lines := func(i int) (left, right line) {
		s := pieces[i]
		along := run[i+1].p.Sub(run[i].p)
		l, r := s.left2.Sub(s.left1), s.right2.Sub(s.right1)
		if s.left1.Same(s.left2) {
			l = along
		}
		if s.right1.Same(s.right2) {
			r = along
		}
		return line{s.left1, l}, line{s.right1, r}
	}
	closed := run[0].p.Same(run[n].p)
	lastLeft, lastRight := pieces[n-1].left2, pieces[n-1].right2
	left, right := lines(0)
	var prevLeft, prevRight line
	fwd := make([]Vec, 0, 2*n)  // the right side
	back := make([]Vec, 0, 2*n) // the left side
	for i, s := range pieces {
		var l1, r1, l2, r2 Vec
		if i == 0 {
			l1, r1 = s.left1, s.right1
			if closed {
				ll, lr := lines(n - 1)
				l1, r1 = meet(ll, left, s.left1), meet(lr, right, s.right1)
				lastLeft, lastRight = l1, r1
			}
		} else {
			l1, r1 = meet(prevLeft, left, s.left1), meet(prevRight, right, s.right1)
		}
		if i < n-1 {
			nl, nr := lines(i + 1)
			r2, l2 = meet(nr, right, s.right2), meet(nl, left, s.left2)
			prevLeft, prevRight, left, right = left, right, nl, nr
		} else {
			r2, l2 = lastRight, lastLeft
		}
		fwd = appendDistinct(appendDistinct(fwd, r1), r2)
		back = appendDistinct(appendDistinct(back, l1), l2)
	}
	for i := len(back) - 1; i >= 0; i-- {
		fwd = append(fwd, back[i])
	}
	return fwd
}

// arcBand is the outline of a bulged piece drawn with width w (ezdxf's
// CurvedTrace): the side away from the centre from the piece's start to
// its end, then the side towards it back; its width at each point is
// w.Start to w.End in proportion to the arc run so far.
func arcBand(a Arc, w Width, tol float64) []Vec {
	r := a.R + math.Max(w.Start, w.End)/2
	n := 3
	if tol > 0 && tol < r {
		n = max(n, int(math.Ceil(a.Sweep/(2*math.Acos(1-tol/r)))))
	}
	n = min(n, 4096)
	out := make([]Vec, 2*(n+1))
	for i := 0; i <= n; i++ {
		f := float64(i) / float64(n)
		t := f
		if a.Reversed { // the piece runs from the arc's end to its start
			t = 1 - f
		}
		d := polar(Vec{}, 1, a.Start+a.Sweep*t)
		half := (w.Start + (w.End-w.Start)*f) / 2
		out[i] = a.C.Add(d.Mul(a.R + half))
		out[2*n+1-i] = a.C.Add(d.Mul(a.R - half))
	}
	return out
}

// appendDistinct appends p unless it is the last point already.
func appendDistinct(dst []Vec, p Vec) []Vec {
	if n := len(dst); n > 0 && dst[n-1].Same(p) {
		return dst
	}
	return append(dst, p)
}

// polygonArea is the signed area of a polygon, positive when it runs
// counter-clockwise: the shoelace sum taken relative to the first corner,
// so that a small polygon far from the origin keeps its area (and sign).
func polygonArea(p []Vec) float64 {
	if len(p) == 0 {
		return 0
	}
	a := 0.0
	o := p[0]
	for i, q := range p {
		a += q.Sub(o).cross(p[(i+1)%len(p)].Sub(o))
	}
	return a / 2
}

func reverse(p []Vec) {
	for i, j := 0, len(p)-1; i < j; i, j = i+1, j-1 {
		p[i], p[j] = p[j], p[i]
	}
}
