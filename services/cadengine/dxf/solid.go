package dxf

import (
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// SOLID and TRACE, read into a native drawing.Solid and written back as
// the type they were. DXF lists a four-cornered one's corners 1, 2, 4, 3
// round it (the third and fourth swapped); a triangle repeats its third.

// solid reads a SOLID or TRACE: its corners 10–13 in its object
// coordinate system; why says what keeps it out.
func (r dxfRecord) solid(c dxfCommon) (drawing.Geometry, string, error) {
	v, err := r.values(10, 20, 11, 21, 12, 22, 13, 23)
	if err != nil {
		return nil, "", err
	}
	mirrored, ok := c.ocs()
	if !ok {
		return nil, "3D (its extrusion direction is not ±Z)", nil
	}
	d := []geom.Vec{geom.Pt(v[10], v[20]), geom.Pt(v[11], v[21]), geom.Pt(v[12], v[22]), geom.Pt(v[13], v[23])}
	if !r.has(13) {
		d[3] = d[2]
	}
	if mirrored {
		for i := range d {
			d[i].X = -d[i].X
		}
	}
	g := drawing.Solid{P: []geom.Vec{d[0], d[1], d[3], d[2]}, Trace: r.kind == "TRACE"}
	if d[3] == d[2] {
		g.P = d[:3]
	}
	return g, "", nil
}

// has says whether the record has a pair of the code.
func (r dxfRecord) has(code int) bool {
	for _, p := range r.pairs {
		if p.code == code {
			return true
		}
	}
	return false
}

// solidEntity writes a solid entity: a SOLID, or a TRACE when it was
// one.
func (w *dxfWriter) solidEntity(e *drawing.Entity, g drawing.Solid) {
	if !g.Trace {
		w.solid(e.Handle, e, g.P)
		return
	}
	w.common("TRACE", e.Handle, e)
	w.sub("AcDbTrace")
	for i, p := range dxfCorners(g.P) {
		w.Point(10+i, p)
	}
}

// dxfCorners are 3 or 4 corners given in order round a shape as SOLID and
// TRACE list them: the third and fourth crosswise, a triangle's third
// twice.
func dxfCorners(q []geom.Vec) [4]geom.Vec {
	c := [4]geom.Vec{q[0], q[1], q[len(q)-1], q[len(q)-1]}
	if len(q) == 4 {
		c[2], c[3] = q[3], q[2]
	}
	return c
}
