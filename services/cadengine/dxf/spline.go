package dxf

import (
	"fmt"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// SPLINE: read into a native drawing.Spline, written back as one (R12,
// which has none, gets the polyline it is drawn as).

// spline reads a SPLINE: flags 70 (1 closed, 4 rational), degree 71,
// knots 40, weights 41, control points 10/20/30, fit points 11/21/31 and
// the end tangents 12/22 and 13/23. A spline of control points is taken
// as it is; one of fit points only is the cubic through them (see
// geom.SplineThroughCAD). why says what keeps it out: points off one plane
// parallel to XY, a definition that is not a valid NURBS curve.
func (r dxfRecord) spline() (drawing.Geometry, string, error) {
	var (
		degree         int64 = 3
		flags          int64
		knots, weights []float64
		ctrl, fit      []geom.Vec
		start, end     *geom.Vec
		z              []float64
	)
	for i, p := range r.pairs {
		switch p.code {
		case 70, 71:
			n, err := p.int()
			if err != nil {
				return nil, "", err
			}
			if p.code == 70 {
				flags = n
			} else {
				degree = n
			}
		case 40, 41:
			v, err := p.float()
			if err != nil {
				return nil, "", err
			}
			if p.code == 40 {
				knots = append(knots, v)
			} else {
				weights = append(weights, v)
			}
		case 10, 11, 12, 13:
			q, pz, err := r.pointAt(i)
			if err != nil {
				return nil, "", err
			}
			switch p.code {
			case 10:
				ctrl, z = append(ctrl, q), append(z, pz)
			case 11:
				fit, z = append(fit, q), append(z, pz)
			case 12:
				start = &q
			case 13:
				end = &q
			}
		}
	}
	for _, v := range z {
		if v != z[0] {
			return nil, "3D (its points are not in one plane parallel to XY)", nil
		}
	}
	if degree < 1 || degree > 25 {
		return nil, fmt.Sprintf("degree %d (the engine holds 1 to 25)", degree), nil
	}
	var s geom.Spline
	var err error
	switch {
	case len(ctrl) > 0:
		if flags&4 == 0 || allOnes(weights) {
			weights = nil
		}
		s, err = geom.NewSpline(int(degree), knots, ctrl, weights)
	case len(fit) >= 2:
		s, err = geom.SplineThroughCAD(fit, start, end)
	default:
		return nil, "degenerate (no control points, and fewer than two fit points)", nil
	}
	if err != nil {
		return nil, "not a valid NURBS curve: " + err.Error(), nil
	}
	s.Closed = flags&1 != 0
	return drawing.Spline{Spline: s, Fit: fit}, "", nil
}

// pointAt is the point whose x is the record's pair i, with the y and z
// that follow it.
func (r dxfRecord) pointAt(i int) (geom.Vec, float64, error) {
	var v [3]float64
	for k := 0; k < 3 && i+k < len(r.pairs) && r.pairs[i+k].code == r.pairs[i].code+10*k; k++ {
		f, err := r.pairs[i+k].float()
		if err != nil {
			return geom.Vec{}, 0, err
		}
		v[k] = f
	}
	return geom.Pt(v[0], v[1]), v[2], nil
}

func allOnes(ws []float64) bool {
	for _, w := range ws {
		if w != 1 {
			return false
		}
	}
	return true
}

// spline writes a SPLINE (2018): planar (8), rational (4) when it has
// weights, closed (1) as the entity says; its knots, weights, control
// points and fit points. R12 has no SPLINE: it gets the spline's polyline.
func (w *dxfWriter) spline(e *drawing.Entity, g drawing.Spline) {
	if !w.v2018 {
		pts := g.Polyline()
		v := make([]geom.Vertex, len(pts))
		for i, p := range pts {
			v[i] = geom.Vertex{P: p}
		}
		w.polyline(e, v, nil, false)
		return
	}
	w.common("SPLINE", e.Handle, e)
	w.sub("AcDbSpline")
	w.float(210, 0) // the normal: +Z
	w.float(220, 0)
	w.float(230, 1)
	flags := 8
	if len(g.Weights) > 0 {
		flags |= 4
	}
	if g.Closed {
		flags |= 1
	}
	w.int(70, flags)
	w.int(71, g.Degree)
	w.int(72, len(g.Knots))
	w.int(73, len(g.Control))
	w.int(74, len(g.Fit))
	w.float(42, 1e-10)
	w.float(43, 1e-10)
	if len(g.Fit) > 0 {
		w.float(44, 1e-10)
	}
	for _, k := range g.Knots {
		w.float(40, k)
	}
	for _, v := range g.Weights {
		w.float(41, v)
	}
	for _, p := range g.Control {
		w.Point(10, p)
	}
	for _, p := range g.Fit {
		w.Point(11, p)
	}
}
