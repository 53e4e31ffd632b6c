package drawing

import (
	"math"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// SnapCandidates are the points of kind on g, in the entity's natural
// order; r is the reference point of the perp and near snaps.
func SnapCandidates(g Geometry, kind enginev1.SnapKind, r geom.Vec) []geom.Vec {
	switch g := g.(type) {
	case Point:
		return []geom.Vec{g.P}
	case Text:
		return []geom.Vec{g.P}
	case MText:
		return []geom.Vec{g.P}
	case Spline:
		switch kind {
		case enginev1.SnapKind_SNAP_KIND_END:
			return g.Ends()
		case enginev1.SnapKind_SNAP_KIND_MID:
			return []geom.Vec{g.Mid()}
		case enginev1.SnapKind_SNAP_KIND_NEAR:
			_, q := g.Closest(r)
			return []geom.Vec{q}
		}
	case Insert:
		// The placed entities' snaps, in the block's order; the insertion
		// point when they have none.
		var out []geom.Vec
		for _, e := range g.Placed() {
			for _, p := range SnapCandidates(e.Geom, kind, r) {
				out = geom.AppendUnique(out, p)
			}
		}
		if len(out) == 0 {
			out = []geom.Vec{g.P}
		}
		return out
	}
	var out []geom.Vec
	add := func(ps ...geom.Vec) {
		for _, p := range ps {
			out = geom.AppendUnique(out, p)
		}
	}
	for _, p := range g.Prims() {
		switch p := p.(type) {
		case geom.Segment:
			switch kind {
			case enginev1.SnapKind_SNAP_KIND_END:
				add(p.A, p.B)
			case enginev1.SnapKind_SNAP_KIND_MID:
				add(p.A.Mid(p.B))
			case enginev1.SnapKind_SNAP_KIND_PERP:
				d := p.B.Sub(p.A)
				t := r.Sub(p.A).Dot(d) / d.Dot(d)
				tol := geom.TolAt(d.Len()) / d.Len()
				if t >= -tol && t <= 1+tol {
					add(p.A.Add(d.Mul(t)))
				}
			case enginev1.SnapKind_SNAP_KIND_NEAR:
				q, _ := p.Closest(r)
				add(q)
			}
		case geom.Arc:
			switch kind {
			case enginev1.SnapKind_SNAP_KIND_END:
				if !p.Full() {
					add(p.First(), p.Last())
				}
			case enginev1.SnapKind_SNAP_KIND_MID:
				if !p.Full() {
					add(p.At(p.Start + p.Sweep/2))
				}
			case enginev1.SnapKind_SNAP_KIND_CENTER:
				add(p.C)
			case enginev1.SnapKind_SNAP_KIND_QUAD:
				add(p.Quadrants()...)
			case enginev1.SnapKind_SNAP_KIND_PERP:
				if d := r.Sub(p.C); d.Len() > geom.TolAt(p.R) {
					for _, t := range []float64{d.Angle(), d.Angle() + math.Pi} {
						if p.Has(t) {
							add(p.At(t))
						}
					}
				}
			case enginev1.SnapKind_SNAP_KIND_NEAR:
				add(p.Closest(r))
			}
		case geom.EllipseArc:
			switch kind {
			case enginev1.SnapKind_SNAP_KIND_END:
				if !p.Full() {
					add(p.At(p.Start), p.At(p.Start+p.Sweep))
				}
			case enginev1.SnapKind_SNAP_KIND_MID:
				if !p.Full() {
					add(p.At(p.ParamAtLength(p.Length() / 2)))
				}
			case enginev1.SnapKind_SNAP_KIND_CENTER:
				add(p.C)
			case enginev1.SnapKind_SNAP_KIND_QUAD:
				add(p.Quadrants()...)
			case enginev1.SnapKind_SNAP_KIND_PERP:
				for _, t := range p.Feet(r) {
					add(p.At(t))
				}
			case enginev1.SnapKind_SNAP_KIND_NEAR:
				add(p.Closest(r))
			}
		}
	}
	return out
}
