package geom

import "math"

// ---- linetype dashes ----
//
// A linetype's pattern is a list of lengths, as DXF's group code 49 has
// them: a positive length is a dash, a negative one a gap, 0 a dot. A
// curve drawn with it is cut into the pattern's dashes from its start,
// the pattern repeating to its end; a run of curves (a polyline's pieces)
// is cut as one curve, the pattern running on across their joints.

// ellipseDashSteps is how many chords a whole turn of an elliptical arc is
// dashed as (a dash along it is a chain of chords): 2·10⁻⁴ of its major
// radius away at most, under a hundredth of a pixel at a thousand pixels.
const ellipseDashSteps = 256

// PatternPeriod is the length of one repeat of pattern: the sum of its
// lengths' magnitudes.
func PatternPeriod(pattern []float64) float64 {
	var p float64
	for _, e := range pattern {
		p += math.Abs(e)
	}
	return p
}

// DashCount is at most how many pieces (dashes and dots) [Dash] makes of
// run with pattern, and how many of the pattern's lengths it steps
// through, counted from the run's length without cutting it: what a
// caller holds against a budget before dashing. It is +Inf for a pattern
// of no length.
func DashCount(run []any, pattern []float64) float64 {
	period := PatternPeriod(pattern)
	if period == 0 {
		return math.Inf(1)
	}
	marks := len(pattern) // the steps of one repeat, of which dashes and dots are pieces
	var length, extra float64
	for _, p := range run {
		length += primLength(p)
		extra++ // a dash cut at the joint of two curves is two pieces
		if e, ok := p.(EllipseArc); ok {
			extra += ellipseSteps(e) // a dash along it is a chain of chords
		}
	}
	return (math.Ceil(length/period)+1)*float64(marks) + extra
}

// Dash cuts a run of curves (segments, arcs and elliptical arcs, each
// followed in its own direction: a reversed arc from its last point) into
// the dashes and dots of pattern (see above), the pattern starting afresh
// at the run's first point. Dashes along segments and arcs are segments
// and arcs; along an elliptical arc, chains of segments. A pattern of
// fewer than two lengths, or of no length, is continuous: the run comes
// back as it is. Dash does as much work as [DashCount] says: callers
// count first.
func Dash(run []any, pattern []float64) (strokes []any, dots []Vec) {
	period := PatternPeriod(pattern)
	if len(pattern) < 2 || period == 0 {
		return run, nil
	}
	d := &dasher{pattern: pattern, left: math.Abs(pattern[0]), eps: 1e-9 * period}
	for _, p := range run {
		switch p := p.(type) {
		case Segment:
			l := p.Length()
			u := p.B.Sub(p.A).Mul(1 / l)
			at := func(s float64) Vec { return p.A.Add(u.Mul(s)) }
			d.run(l, at, func(s, t float64) any { return Segment{A: at(s), B: at(t)} })
		case Arc:
			d.run(p.Length(), p.atLength, p.between)
		case EllipseArc:
			n := int(ellipseSteps(p))
			prev := p.At(p.Start)
			for i := 1; i <= n; i++ {
				next := p.At(p.Start + p.Sweep*float64(i)/float64(n))
				d.run(Segment{A: prev, B: next}.Length(), func(s float64) Vec {
					return prev.Add(next.Sub(prev).Mul(s / prev.Dist(next)))
				}, func(s, t float64) any {
					u := next.Sub(prev).Mul(1 / prev.Dist(next))
					return Segment{A: prev.Add(u.Mul(s)), B: prev.Add(u.Mul(t))}
				})
				prev = next
			}
		default:
			d.strokes = append(d.strokes, p) // not a curve Dash knows: drawn whole
		}
	}
	return d.strokes, d.dots
}

// dasher walks a pattern along the curves of a run.
type dasher struct {
	pattern []float64
	i       int     // the element being drawn
	left    float64 // how much of it is left
	eps     float64 // a length too small to count, against rounding
	strokes []any
	dots    []Vec
}

// next moves on to the pattern's next element.
func (d *dasher) next() {
	d.i = (d.i + 1) % len(d.pattern)
	d.left = math.Abs(d.pattern[d.i])
}

// run walks the pattern along one curve of the given length, at its
// point at a length from its start, piece its part between two lengths.
func (d *dasher) run(length float64, at func(float64) Vec, piece func(s, t float64) any) {
	if !(length > 0) {
		return
	}
	pos := 0.0
	for {
		e := d.pattern[d.i]
		if e == 0 { // a dot, even at the curve's very end
			if pos > length+d.eps {
				return
			}
			d.dots = append(d.dots, at(min(pos, length)))
			d.next()
			continue
		}
		if length-pos <= d.eps {
			return
		}
		take := min(d.left, length-pos)
		if e > 0 {
			d.strokes = append(d.strokes, piece(pos, pos+take))
		}
		pos += take
		if d.left -= take; d.left <= d.eps {
			d.next()
		}
	}
}

// atLength is the arc's point at length s from its first point.
func (a Arc) atLength(s float64) Vec {
	if a.Reversed {
		return a.At(a.Start + a.Sweep - s/a.R)
	}
	return a.At(a.Start + s/a.R)
}

// between is the part of the arc from length s to length t from its
// first point, followed as the arc is.
func (a Arc) between(s, t float64) any {
	if a.Reversed {
		return Arc{C: a.C, R: a.R, Start: a.Start + a.Sweep - t/a.R, Sweep: (t - s) / a.R, Reversed: true}
	}
	return Arc{C: a.C, R: a.R, Start: a.Start + s/a.R, Sweep: (t - s) / a.R}
}

// ellipseSteps is how many chords an elliptical arc is dashed as.
func ellipseSteps(e EllipseArc) float64 {
	return math.Max(8, math.Ceil(e.Sweep/(2*math.Pi)*ellipseDashSteps))
}

// RunLength is the length of a run of curves (see Dash).
func RunLength(run []any) float64 {
	var l float64
	for _, p := range run {
		l += primLength(p)
	}
	return l
}

// primLength is a curve primitive's length (0 for what is not one).
func primLength(p any) float64 {
	switch p := p.(type) {
	case Segment:
		return p.Length()
	case Arc:
		return p.Length()
	case EllipseArc:
		return p.Length()
	}
	return 0
}
