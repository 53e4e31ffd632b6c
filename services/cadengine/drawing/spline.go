package drawing

import (
	"math"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Spline is a NURBS curve (see [geom.Spline]), as DXF's SPLINE has it,
// with the points it was made through when it was (Fit: kept as the file
// or the caller gave them, for the programs that edit a spline by them).
// It is measured, bounded, snapped and transformed exactly; it is drawn,
// and intersected, as the polyline within splineTolerance of its size.
type Spline struct {
	geom.Spline
	Fit []geom.Vec
}

// splineTolerance is how far, as a fraction of the curve's size (the
// larger side of its extents), the polyline a spline is drawn and
// intersected as may stray from it.
const splineTolerance = 1e-6

// Kind implements [Geometry].
func (Spline) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_SPLINE }

// Prims implements [Geometry]: the curve as segments within
// splineTolerance of its size.
func (g Spline) Prims() []any {
	pts := g.Polyline()
	out := make([]any, 0, len(pts))
	for i := 1; i < len(pts); i++ {
		out = append(out, geom.Segment{A: pts[i-1], B: pts[i]})
	}
	return out
}

// Polyline is the curve as points within splineTolerance of its size.
func (g Spline) Polyline() []geom.Vec {
	b := g.Bounds()
	return g.Flatten(splineTolerance * math.Max(b.Max.X-b.Min.X, b.Max.Y-b.Min.Y))
}

// Bounds implements [Geometry]: exact (see [geom.Spline.Bounds]).
func (g Spline) Bounds() geom.Box { return g.Spline.Bounds() }

// Finite implements [Geometry]; a valid spline (see geom.Spline.Validate)
// is finite.
func (g Spline) Finite() bool {
	for _, p := range g.Fit {
		if !p.Finite() {
			return false
		}
	}
	return g.Validate() == nil
}

// Transformed implements [Geometry]: exact, the control and fit points
// mapped.
func (g Spline) Transformed(x geom.Xform) Geometry {
	out := Spline{Spline: g.Spline.Transformed(x)}
	if g.Fit != nil {
		out.Fit = make([]geom.Vec, len(g.Fit))
		for i, p := range g.Fit {
			out.Fit[i] = x.Point(p)
		}
	}
	return out
}

// Length is the curve's length.
func (g Spline) Length() float64 { return g.Spline.Length() }

// Ends are the curve's start and end points (one, when it is closed).
func (g Spline) Ends() []geom.Vec {
	t0, t1 := g.Domain()
	a, b := g.At(t0), g.At(t1)
	if g.Closed || a.Same(b) {
		return []geom.Vec{a}
	}
	return []geom.Vec{a, b}
}

// Mid is the point halfway along the curve, within splineTolerance of
// its size.
func (g Spline) Mid() geom.Vec {
	pts := g.Polyline()
	total := 0.0
	for i := 1; i < len(pts); i++ {
		total += pts[i-1].Dist(pts[i])
	}
	half := total / 2
	for i := 1; i < len(pts); i++ {
		d := pts[i-1].Dist(pts[i])
		if half <= d && d > 0 {
			return pts[i-1].Add(pts[i].Sub(pts[i-1]).Mul(half / d))
		}
		half -= d
	}
	return pts[len(pts)-1]
}

// encodeTo writes: degree (uvarint), closed (byte), the knots, the
// control points, the weights (0 of them for a non-rational spline) and
// the fit points, each a uvarint count and its numbers.
func (g Spline) encodeTo(w *encoder) {
	w.uvarint(uint64(g.Degree))
	w.bool(g.Closed)
	w.uvarint(uint64(len(g.Knots)))
	for _, k := range g.Knots {
		w.float(k)
	}
	w.uvarint(uint64(len(g.Control)))
	for _, p := range g.Control {
		w.vec(p)
	}
	w.uvarint(uint64(len(g.Weights)))
	for _, v := range g.Weights {
		w.float(v)
	}
	w.uvarint(uint64(len(g.Fit)))
	for _, p := range g.Fit {
		w.vec(p)
	}
}

func decodeSpline(r *decoder) Spline {
	var g Spline
	degree := r.uvarint()
	if degree > 25 {
		r.fail("spline degree")
		return g
	}
	g.Degree, g.Closed = int(degree), r.byte() == 1
	floats := func(size uint64) int { // a count of items of size bytes, bounded by what is left
		n := r.uvarint()
		if n > uint64(len(r.b))/size {
			r.fail("spline")
			return 0
		}
		return int(n)
	}
	g.Knots = make([]float64, floats(8))
	for i := range g.Knots {
		g.Knots[i] = r.float()
	}
	g.Control = make([]geom.Vec, floats(16))
	for i := range g.Control {
		g.Control[i] = r.vec()
	}
	if n := floats(8); n > 0 {
		g.Weights = make([]float64, n)
		for i := range g.Weights {
			g.Weights[i] = r.float()
		}
	}
	if n := floats(16); n > 0 {
		g.Fit = make([]geom.Vec, n)
		for i := range g.Fit {
			g.Fit[i] = r.vec()
		}
	}
	if r.err == nil && g.Validate() != nil {
		r.fail("spline")
	}
	return g
}

func (g Spline) fill(w *wire) {
	pb := &enginev1.Spline{Degree: int32(g.Degree), Knots: g.Knots, Weights: g.Weights, Closed: g.Closed,
		ControlPoints: make([]*enginev1.Point, len(g.Control))}
	for i, p := range g.Control {
		pb.ControlPoints[i] = pbPoint(p)
	}
	for _, p := range g.Fit {
		pb.FitPoints = append(pb.FitPoints, pbPoint(p))
	}
	w.pb.Spline, w.pb.Length = pb, w.num(g.Length())
}

// Affined implements [Geometry]: exact, a NURBS curve's control points
// mapped.
func (g Spline) Affined(m geom.Affine) Geometry {
	out := Spline{Spline: g.Spline.Affine(m)}
	for _, p := range g.Fit {
		out.Fit = append(out.Fit, m.Point(p))
	}
	return out
}
