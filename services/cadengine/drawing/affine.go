package drawing

import (
	"math"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Affine maps of the core geometries (see Geometry.Affined): what a
// block's entities become placed by an insert scaled unevenly. Lines and
// polylines map point by point; circles, arcs and ellipses become
// ellipses (geom.ConjugateEllipse); a polyline that bulges becomes the
// spline of its pieces (geom.Polyline.Spline); text, multi-line text and
// a dimension's sizes take the similarity nearest the map at their
// reference point.

// Affined implements [Geometry].
func (g Point) Affined(m geom.Affine) Geometry { return Point{m.Point(g.P)} }

// Affined implements [Geometry].
func (g Line) Affined(m geom.Affine) Geometry { return Line{m.Point(g.A), m.Point(g.B)} }

// Affined implements [Geometry]: an ellipse.
func (g Circle) Affined(m geom.Affine) Geometry {
	return ellipseOf(geom.ConjugateEllipse(m.Point(g.C), m.Linear(geom.Pt(g.R, 0)), m.Linear(geom.Pt(0, g.R)), 0, 2*math.Pi))
}

// Affined implements [Geometry]: an elliptical arc.
func (g Arc) Affined(m geom.Affine) Geometry {
	a := g.Arc()
	return ellipseOf(geom.ConjugateEllipse(m.Point(g.C), m.Linear(geom.Pt(g.R, 0)), m.Linear(geom.Pt(0, g.R)), a.Start, a.Sweep))
}

// Affined implements [Geometry].
func (g Ellipse) Affined(m geom.Affine) Geometry {
	a := g.Arc()
	minor := a.Major.Perp().Mul(a.Ratio)
	return ellipseOf(geom.ConjugateEllipse(m.Point(a.C), m.Linear(a.Major), m.Linear(minor), a.Start, a.Sweep))
}

// ellipseOf is the entity of an elliptical arc (a whole ellipse for a
// full turn).
func ellipseOf(a geom.EllipseArc) Ellipse {
	if a.Full() {
		return Ellipse{C: a.C, Major: a.Major, Ratio: a.Ratio, Start: 0, End: 360}
	}
	return Ellipse{C: a.C, Major: a.Major, Ratio: a.Ratio, Start: geom.NormDeg(geom.Deg(a.Start)), End: geom.NormDeg(geom.Deg(a.Start + a.Sweep))}
}

// Affined implements [Geometry]: a polyline of straight pieces maps
// vertex by vertex, its widths scaled as areas are (by the square root
// of the map's determinant); one that bulges becomes the spline of its
// pieces, which has no widths.
func (g Polyline) Affined(m geom.Affine) Geometry {
	bulges := false
	for _, v := range g.V {
		bulges = bulges || v.Bulge != 0
	}
	if bulges {
		if s, ok := g.Polyline.Spline(); ok {
			return Spline{Spline: s.Affine(m)}
		}
	}
	v := make([]geom.Vertex, len(g.V))
	for i, p := range g.V {
		v[i] = geom.Vertex{P: m.Point(p.P)}
	}
	return Polyline{Polyline: geom.Polyline{V: v, Closed: g.Closed}, Widths: scaledWidths(g.Widths, math.Sqrt(math.Abs(m.Det())))}
}

// Affined implements [Geometry]: at its insertion point, as the nearest
// similarity places it (text has no width factor or slant).
func (g Text) Affined(m geom.Affine) Geometry { return g.Transformed(m.Nearest(g.P)) }

// Affined implements [Geometry]: as Text's.
func (g MText) Affined(m geom.Affine) Geometry { return g.Transformed(m.Nearest(g.P)) }

// Affined implements [Geometry]: its definition points mapped, its sizes
// and directions as the nearest similarity at its first point; what its
// writer drew (Drawn) mapped by m.
func (g Dimension) Affined(m geom.Affine) Geometry {
	out := g.Transformed(m.Nearest(g.P1)).(Dimension)
	out.P1, out.P2, out.Center = m.Point(g.P1), m.Point(g.P2), m.Point(g.Center)
	out.Drawn = g.Drawn.placed(m)
	return out
}

// Affined implements [Geometry]: polygon loops map vertex by vertex, loops
// that bulge as the polygons within flattening of them, ellipses as
// ellipses; the pattern scales and turns as the nearest similarity.
func (g Hatch) Affined(m geom.Affine) Geometry {
	out := g.Transformed(m.Nearest(geom.Vec{})).(Hatch)
	tol := g.flatTol()
	for i, l := range g.Loops {
		if l.Ellipse {
			minor := l.E.Major.Perp().Mul(l.E.Ratio)
			out.Loops[i] = Loop{Ellipse: true, E: geom.ConjugateEllipse(m.Point(l.E.C), m.Linear(l.E.Major), m.Linear(minor), 0, 2*math.Pi)}
			continue
		}
		pts := l.Flatten(tol)
		v := make([]geom.Vertex, len(pts))
		for k, p := range pts {
			v[k] = geom.Vertex{P: m.Point(p)}
		}
		out.Loops[i] = Loop{Poly: geom.Polyline{V: v, Closed: true}}
	}
	return out
}
