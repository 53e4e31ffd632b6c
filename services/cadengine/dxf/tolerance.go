package dxf

import (
	"math"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// TOLERANCE, read into a native drawing.Tolerance and written back as
// one (R12, which has none, gets what it draws: its frames as lines, its
// texts as TEXT).

// tolerance reads a TOLERANCE: style 3, insertion 10, text 1, direction
// 11 (in the world). Its text height is its code 40 when it has one,
// else its style's DIMTXT (overridden by its ACAD DSTYLE data, as a
// leader's arrowhead is) times its DIMSCALE; the engine's default for
// the file's units when the file has neither.
func (r dxfRecord) tolerance(c dxfCommon, f *File) (drawing.Geometry, string, error) {
	if _, ok := c.ocs(); !ok {
		return nil, "3D (its extrusion direction is not ±Z)", nil
	}
	v, err := r.values(10, 20, 11, 21, 40)
	if err != nil {
		return nil, "", err
	}
	g := drawing.Tolerance{P: geom.Pt(v[10], v[20]), Style: "Standard"}
	for _, p := range r.pairs {
		switch p.code {
		case 1:
			g.Text = p.value
		case 3:
			g.Style = strings.TrimSpace(p.value)
		}
	}
	if v[11] != 0 || v[21] != 0 {
		g.Rotation = geom.NormDeg(geom.Deg(math.Atan2(v[21], v[11])))
	}
	g.Height = f.dimSize(r, g.Style, drawing.DefaultDimStyle(f.Units).TextHeight, dimText)
	if v[40] > 0 {
		g.Height = v[40]
	}
	if strings.TrimSpace(g.Text) == "" || !g.Bounds().NonEmpty {
		return nil, "degenerate (no text)", nil
	}
	return g, "", nil
}

// tolerance writes a TOLERANCE (2018): its style, insertion, text and
// direction, its text height as its DSTYLE data's DIMTXT (DIMSCALE 1),
// whatever its style's. R12 gets what it draws.
func (w *dxfWriter) tolerance(e *drawing.Entity, g drawing.Tolerance) {
	if !w.v2018 {
		w.pictureAs(g.Picture(), e)
		return
	}
	w.common("TOLERANCE", e.Handle, e)
	w.sub("AcDbFcf")
	w.pair(3, dimStyleName(g.Style))
	w.Point(10, g.P)
	w.pair(1, g.Text)
	s, c := geom.SinCosDeg(g.Rotation)
	w.Point(11, geom.Pt(c, s))
	w.pair(1001, "ACAD")
	w.pair(1000, "DSTYLE")
	w.pair(1002, "{")
	w.int(1070, 40)
	w.float(1040, 1)
	w.int(1070, 140)
	w.float(1040, g.Height)
	w.pair(1002, "}")
}
