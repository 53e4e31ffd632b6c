package dxf

import (
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// XLINE and RAY, read into a native drawing.XLine and written back as the
// type they were. R12 has neither: its writer leaves them out.

// xline reads an XLINE or a RAY: base point 10, direction 11, in world
// coordinates; one out of the plan (a direction with z) is kept out.
func (r dxfRecord) xline() (drawing.Geometry, string, error) {
	v, err := r.values(10, 20, 11, 21, 31)
	if err != nil {
		return nil, "", err
	}
	d := geom.Pt(v[11], v[21])
	switch {
	case v[31] != 0:
		return nil, "3D (its direction leaves the plan)", nil
	case d.Len() == 0:
		return nil, "degenerate (no direction)", nil
	}
	return drawing.XLine{P: geom.Pt(v[10], v[20]), Dir: d.Unit(), Ray: r.kind == "RAY"}, "", nil
}

// xline writes an XLINE or a RAY (2018 only).
func (w *dxfWriter) xline(e *drawing.Entity, g drawing.XLine) {
	if !w.v2018 {
		return
	}
	kind, class := "XLINE", "AcDbXline"
	if g.Ray {
		kind, class = "RAY", "AcDbRay"
	}
	w.common(kind, e.Handle, e)
	w.sub(class)
	w.Point(10, g.P)
	w.Point(11, g.Dir)
}
