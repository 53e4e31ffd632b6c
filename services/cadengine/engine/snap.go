package engine

import (
	"errors"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// ref is the optional reference point of the exact-point tools.
func ref(x, y *float64) (geom.Vec, bool) {
	if x == nil || y == nil {
		return geom.Vec{}, false
	}
	return geom.Pt(*x, *y), true
}

// refArgs checks that ref_x and ref_y come together.
func refArgs(x, y *float64) error {
	switch {
	case x != nil && y == nil:
		return invalidArgs("/ref_y", reasonMissing, "ref_x and ref_y go together")
	case x == nil && y != nil:
		return invalidArgs("/ref_x", reasonMissing, "ref_x and ref_y go together")
	}
	return nil
}

// pick chooses among candidates: the one nearest the reference point, or
// without one the first in the entity's natural order (line start before
// end, arcs counter-clockwise from their start, quadrants from 0°,
// polyline pieces in vertex order).
func pick(cands []geom.Vec, r geom.Vec, hasRef bool) geom.Vec {
	if !hasRef {
		return cands[0]
	}
	p, _ := geom.NearestTo(cands, r)
	return p
}

// pointFromSnap finds an exact point on an entity. Candidates by snap:
//
//	end     line ends, arc and elliptical-arc ends, polyline vertices
//	mid     midpoints of lines, arcs, polyline pieces (bulge arcs at their
//	        middle), elliptical arcs (by length)
//	center  centres of circles, arcs, ellipses, polyline bulge arcs
//	quad    points at 0°, 90°, 180°, 270° of circles and arcs, axis ends of
//	        ellipses, where they lie on the entity
//	perp    feet of perpendiculars from the reference point that lie on the
//	        entity (needs ref_x, ref_y)
//	near    the nearest point of the entity (needs ref_x, ref_y)
//
// A point's location and a text's insertion point answer every snap. The
// chosen candidate is the one nearest the reference point (see pick). No
// candidate fails.
func pointFromSnap(c *call, a *enginev1.PointFromSnapArgs) (*enginev1.PointFromSnapResult, error) {
	if err := refArgs(a.RefX, a.RefY); err != nil {
		return nil, err
	}
	e, err := c.Entity("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	r, hasRef := ref(a.RefX, a.RefY)
	if !hasRef && (a.Snap == enginev1.SnapKind_SNAP_KIND_PERP || a.Snap == enginev1.SnapKind_SNAP_KIND_NEAR) {
		return nil, invalidArgs("/ref_x", reasonMissing, "snap %s needs ref_x and ref_y", a.Snap.WireName())
	}
	if err := c.expands(e); err != nil {
		return nil, err
	}
	cands := drawing.SnapCandidates(e.Geom, a.Snap, r)
	if len(cands) == 0 {
		return nil, failed("entity %s (%s) has no %s point", drawing.FormatHandle(e.Handle), e.Geom.Kind().WireName(), a.Snap.WireName())
	}
	p := pick(cands, r, hasRef)
	return &enginev1.PointFromSnapResult{X: p.X, Y: p.Y}, nil
}

// pointIntersection intersects two entities made of lines, circles, arcs
// and elliptical arcs (within their sweeps), polylines (piece by piece,
// bulges included) and ellipses. Ellipses meet lines in closed form and
// circles, arcs and other ellipses numerically, to Tolerance (see
// [geom.Intersect]); curves that touch within Tolerance meet at the touching
// point. It answers the intersection nearest the reference point (or the
// first found) and how many distinct ones there are; curves that overlap
// along a stretch, or that do not meet, fail.
func pointIntersection(c *call, a *enginev1.PointIntersectionArgs) (*enginev1.PointIntersectionResult, error) {
	if err := refArgs(a.RefX, a.RefY); err != nil {
		return nil, err
	}
	e1, err := c.Entity("/handle1", a.Handle1)
	if err != nil {
		return nil, err
	}
	e2, err := c.Entity("/handle2", a.Handle2)
	if err != nil {
		return nil, err
	}
	if e1 == e2 {
		return nil, invalidArgs("/handle2", reasonInvalid, "handle1 and handle2 name the same entity")
	}
	for _, e := range []*drawing.Entity{e1, e2} {
		if err := c.expands(e); err != nil {
			return nil, err
		}
		if len(e.Geom.Prims()) == 0 {
			return nil, failed("entity %s is a %s, which has no curve to intersect", drawing.FormatHandle(e.Handle), e.Geom.Kind().WireName())
		}
	}
	pts, err := intersectEntities(e1, e2)
	if err != nil {
		return nil, err
	}
	if len(pts) == 0 {
		return nil, failed("entities %s and %s do not intersect", drawing.FormatHandle(e1.Handle), drawing.FormatHandle(e2.Handle))
	}
	r, hasRef := ref(a.RefX, a.RefY)
	p := pick(pts, r, hasRef)
	return &enginev1.PointIntersectionResult{X: p.X, Y: p.Y, Count: int32(len(pts))}, nil
}

func intersectEntities(e1, e2 *drawing.Entity) ([]geom.Vec, error) {
	var pts []geom.Vec
	for _, p := range e1.Geom.Prims() {
		for _, q := range e2.Geom.Prims() {
			found, err := geom.Intersect(p, q)
			switch {
			case errors.Is(err, geom.ErrOverlap):
				return nil, failed("entities %s and %s overlap along a stretch: their intersections are not points", drawing.FormatHandle(e1.Handle), drawing.FormatHandle(e2.Handle))
			case errors.Is(err, geom.ErrUnsupportedPair):
				return nil, unsupported("intersection_"+e1.Geom.Kind().WireName()+"_"+e2.Geom.Kind().WireName(), "intersecting a %s with a %s is not implemented", e1.Geom.Kind().WireName(), e2.Geom.Kind().WireName())
			case err != nil:
				return nil, err
			}
			for _, f := range found {
				pts = geom.AppendUnique(pts, f)
			}
		}
	}
	return pts, nil
}

// pointTangent finds where a line from (from_x, from_y) touches a circle,
// arc, ellipse or elliptical arc: two points from outside (for an arc,
// those on its sweep), the from point itself when it lies on the curve,
// none from inside (which fails). Ellipse tangents are exact: tangency
// survives the affine map that makes the ellipse a unit circle (see
// geom.EllipseArc.TangentsFrom). It answers the one nearest the reference
// point, or else the one counter-clockwise of the direction from the
// centre to the from point.
func pointTangent(c *call, a *enginev1.PointTangentArgs) (*enginev1.PointTangentResult, error) {
	if err := refArgs(a.RefX, a.RefY); err != nil {
		return nil, err
	}
	e, err := c.Entity("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	from := geom.Pt(a.FromX, a.FromY)
	var pts []geom.Vec
	switch g := e.Geom.(type) {
	case drawing.Circle:
		pts = geom.TangentPoints(g.C, g.R, from)
	case drawing.Arc:
		ar := g.Arc()
		for _, p := range geom.TangentPoints(g.C, g.R, from) {
			if ar.Has(p.Sub(g.C).Angle()) {
				pts = append(pts, p)
			}
		}
	case drawing.Ellipse:
		pts = g.Arc().TangentsFrom(from)
	default:
		return nil, failed("entity %s is a %s: point_tangent works on circles, arcs and ellipses", drawing.FormatHandle(e.Handle), e.Geom.Kind().WireName())
	}
	if len(pts) == 0 {
		return nil, failed("no tangent from (%g, %g) touches entity %s", a.FromX, a.FromY, drawing.FormatHandle(e.Handle))
	}
	r, hasRef := ref(a.RefX, a.RefY)
	p := pick(pts, r, hasRef)
	return &enginev1.PointTangentResult{X: p.X, Y: p.Y, Count: int32(len(pts))}, nil
}
