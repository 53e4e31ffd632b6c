package dxf

import (
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// 3DFACE, read into a native drawing.Face (corners with their z, the
// hidden edges of its flags 70) and written back as one.

// face reads a 3DFACE: its corners 10–13 in world coordinates, with z,
// and its invisible edges (70); three corners when it has no fourth.
func (r dxfRecord) face() (drawing.Geometry, string, error) {
	v, err := r.values(10, 20, 30, 11, 21, 31, 12, 22, 32, 13, 23, 33, 70)
	if err != nil {
		return nil, "", err
	}
	n := 4
	if !r.has(13) {
		n = 3
	}
	g := drawing.Face{Hidden: int32(v[70]) & 15}
	for i := range n {
		g.P = append(g.P, geom.Pt(v[10+i], v[20+i]))
		g.Z = append(g.Z, v[30+i])
	}
	return g, "", nil
}

// face writes a 3DFACE; a triangle repeats its third corner, as DXF has
// four.
func (w *dxfWriter) face(e *drawing.Entity, g drawing.Face) {
	w.common("3DFACE", e.Handle, e)
	w.sub("AcDbFace")
	for i := range 4 {
		j := min(i, len(g.P)-1)
		w.float(10+i, g.P[j].X)
		w.float(20+i, g.P[j].Y)
		w.float(30+i, g.Z[j])
	}
	if g.Hidden != 0 {
		w.int(70, int(g.Hidden))
	}
}
