package dxf

import (
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// LEADER, read into a native drawing.Leader and written back as one (R12,
// which has none, gets its line as a polyline).

// leader reads a LEADER: style 3, arrowhead 71, path type 72 (1: a
// spline), vertices 10/20/30 in world coordinates. Its arrowhead is its
// style's DIMASZ times its DIMSCALE, from the file's DIMSTYLE table (the
// engine's default for the file's units when the table lacks them); its
// text (340) is an MTEXT of its own.
func (r dxfRecord) leader(f *File) (drawing.Geometry, string, error) {
	g := drawing.Leader{Style: "Standard"}
	var z []float64
	for i, p := range r.pairs {
		switch p.code {
		case 3:
			g.Style = strings.TrimSpace(p.value)
		case 71, 72:
			n, err := p.int()
			if err != nil {
				return nil, "", err
			}
			if p.code == 71 {
				g.Arrow = n == 1
			} else {
				g.Curved = n == 1
			}
		case 10:
			q, qz, err := r.pointAt(i)
			if err != nil {
				return nil, "", err
			}
			g.V, z = append(g.V, q), append(z, qz)
		}
	}
	for _, v := range z {
		if v != z[0] {
			return nil, "3D (its vertices are not in one plane parallel to XY)", nil
		}
	}
	if len(g.V) < 2 {
		return nil, "degenerate (fewer than two vertices)", nil
	}
	g.Size = f.dimSize(r, g.Style, drawing.DefaultDimStyle(f.Units).ArrowSize, dimArrow)
	return g, "", nil
}

// dimSize is a size an annotation takes from its dimension style (named
// style) at code (see dimLayers: the entity's own overrides, ACAD DSTYLE
// data, its style's DIMSTYLE entry, the HEADER; fallback when none sets
// it), times the style's DIMSCALE (40) taken so too.
func (f *File) dimSize(r dxfRecord, style string, fallback float64, code int) float64 {
	l := f.dimLayers(style, r.dstyle())
	size, scale := fallback, 1.0
	l.size(code, &size)
	l.size(dimScale, &scale)
	return size * scale
}

// leader writes a LEADER (2018): its style (which the DIMSTYLE table
// names, see dimStyles), arrowhead and path type, no annotation (73 = 3),
// its vertices. R12 gets its line as a polyline.
func (w *dxfWriter) leader(e *drawing.Entity, g drawing.Leader) {
	if !w.v2018 {
		v := make([]geom.Vertex, len(g.V))
		for i, p := range g.V {
			v[i] = geom.Vertex{P: p}
		}
		w.polyline(e, v, nil, false)
		return
	}
	w.common("LEADER", e.Handle, e)
	w.sub("AcDbLeader")
	w.pair(3, dimStyleName(g.Style))
	w.int(71, boolInt(g.Arrow))
	w.int(72, boolInt(g.Curved))
	w.int(73, 3)
	w.int(74, 0)
	w.int(75, 0)
	w.int(76, len(g.V))
	for _, p := range g.V {
		w.Point(10, p)
	}
	// The arrowhead's size, whatever the style's: DIMSCALE 1, DIMASZ the
	// size.
	w.pair(1001, "ACAD")
	w.pair(1000, "DSTYLE")
	w.pair(1002, "{")
	w.int(1070, 40)
	w.float(1040, 1)
	w.int(1070, 41)
	w.float(1040, g.Size)
	w.pair(1002, "}")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
