package engine

import (
	"cmp"
	"slices"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// hatchOf is the hatch under handle.
func (c *call) hatchOf(handle string) (*drawing.Entity, drawing.Hatch, error) {
	e, err := c.Entity("/handle", handle)
	if err != nil {
		return nil, drawing.Hatch{}, err
	}
	g, ok := e.Geom.(drawing.Hatch)
	if !ok {
		return nil, g, failed("entity %s is a %s, not a hatch", drawing.FormatHandle(e.Handle), e.Geom.Kind().WireName())
	}
	return e, g, nil
}

// replaceHatch puts g in e's place, once its pattern is not too dense to
// draw (the error names path).
func (c *call) replaceHatch(e *drawing.Entity, g drawing.Hatch, path string) error {
	if err := checkDensity(g, path); err != nil {
		return err
	}
	return c.tx.Replace(e, e.With(g))
}

func hatchEdit(c *call, a *enginev1.HatchEditArgs) (*enginev1.HatchEditResult, error) {
	e, g, err := c.hatchOf(a.Handle)
	if err != nil {
		return nil, err
	}
	if a.Pattern != nil {
		p, ok := drawing.CanonicalPattern(*a.Pattern)
		if !ok {
			return nil, invalidArgs("/pattern", reasonInvalid, "unknown hatch pattern %q (%s)", *a.Pattern, drawing.HatchPatternNames)
		}
		// A named pattern replaces a file's own, and a gradient.
		g.Pattern, g.Lines, g.Gradient = p, nil, nil
	}
	if a.Scale != nil {
		g.Scale = *a.Scale
	}
	if a.Angle != nil {
		g.Angle = geom.NormDeg(*a.Angle)
	}
	if err := c.replaceHatch(e, g, "/scale"); err != nil {
		return nil, err
	}
	return &enginev1.HatchEditResult{Handle: handleResult(e)}, nil
}

func hatchAddBoundary(c *call, a *enginev1.HatchAddBoundaryArgs) (*enginev1.HatchAddBoundaryResult, error) {
	e, g, err := c.hatchOf(a.Handle)
	if err != nil {
		return nil, err
	}
	if g.Loops, err = c.loopsOf(g.Loops, a.Boundaries); err != nil {
		return nil, err
	}
	if err := c.replaceHatch(e, g, "/boundaries"); err != nil {
		return nil, err
	}
	return &enginev1.HatchAddBoundaryResult{Handle: handleResult(e), Loops: int32(len(g.Loops)), Area: g.Area()}, nil
}

// dimPoint is a point dimension_auto may measure to, and the entity's
// snap it binds to.
type dimPoint struct {
	p    geom.Vec
	bind drawing.Bind
}

// dimPoints are the ends (a polyline's vertices) and centres of es, in
// the order of es.
func dimPoints(es []*drawing.Entity) []dimPoint {
	var out []dimPoint
	for _, e := range es {
		for _, snap := range []enginev1.SnapKind{enginev1.SnapKind_SNAP_KIND_END, enginev1.SnapKind_SNAP_KIND_CENTER} {
			for i, p := range drawing.SnapCandidates(e.Geom, snap, geom.Vec{}) {
				out = append(out, dimPoint{p, drawing.Bind{Handle: e.Handle, Snap: snap, Index: i}})
			}
		}
	}
	return out
}

// stations are the points of ps at distinct positions along axis (0 x,
// 1 y), in increasing order: of points at one position (within tol), the
// first in ps.
func stations(ps []dimPoint, axis int, tol float64) []dimPoint {
	at := func(p dimPoint) float64 { return [2]float64{p.p.X, p.p.Y}[axis] }
	sorted := slices.Clone(ps)
	slices.SortStableFunc(sorted, func(a, b dimPoint) int { return cmp.Compare(at(a), at(b)) })
	var out []dimPoint
	for _, p := range sorted {
		if len(out) == 0 || at(p)-at(out[len(out)-1]) > tol {
			out = append(out, p)
		}
	}
	return out
}

// dimensionAuto strings linear dimensions through the entities' points:
// along x below their extents, along y left of them. A chain measures
// each station from the one before, on one line; a baseline measures
// each from the first, each line a further 2 text heights out.
func dimensionAuto(c *call, a *enginev1.DimensionAutoArgs) (*enginev1.DimensionAutoResult, error) {
	es, err := c.entitiesOf(a.Handles)
	if err != nil {
		return nil, err
	}
	ps := dimPoints(es)
	var ext geom.Box
	for _, e := range es {
		ext.AddBox(e.Geom.Bounds())
	}
	style, err := c.dimensionOf(drawing.Dimension{}, dimensionCommon{style: a.Style, scale: a.Scale})
	if err != nil {
		return nil, err
	}
	st, _ := drawing.DimStyleNamed(style.Style)
	text := st.TextHeight * style.Scale
	off := cmp.Or(a.GetOffset(), 4*text)
	tol := 1e-9 * max(ext.Max.X-ext.Min.X, ext.Max.Y-ext.Min.Y, 1)

	dir := a.GetDirection()
	var axes []int
	if dir != enginev1.DimensionDirection_DIMENSION_DIRECTION_VERTICAL {
		axes = append(axes, 0)
	}
	if dir != enginev1.DimensionDirection_DIMENSION_DIRECTION_HORIZONTAL {
		axes = append(axes, 1)
	}
	baseline := a.GetRun() == enginev1.DimensionRun_DIMENSION_RUN_BASELINE
	var out []string
	for _, axis := range axes {
		at := stations(ps, axis, tol)
		for i := 1; i < len(at); i++ {
			from, row := at[i-1], 0.0
			if baseline {
				from, row = at[0], float64(i-1)
			}
			g := drawing.Dimension{Type: enginev1.DimensionKind_DIMENSION_KIND_ROTATED, P1: from.p, P2: at[i].p}
			p1, p2 := from.bind, at[i].bind
			p1.Slot, p2.Slot = enginev1.DimensionSlot_DIMENSION_SLOT_P1, enginev1.DimensionSlot_DIMENSION_SLOT_P2
			g.Binds = []drawing.Bind{p1, p2}
			// The line's signed distance to the left of the measuring
			// direction from P1: below the extents along x, left of
			// them along y.
			away := off + row*2*text
			offset := (ext.Min.Y - away) - from.p.Y
			if axis == 1 {
				g.Angle = 90
				offset = from.p.X - (ext.Min.X - away)
			}
			h, _, _, err := c.createDimension(g, dimensionCommon{style: a.Style, scale: a.Scale, layer: a.Layer, offset: &offset})
			if err != nil {
				return nil, err
			}
			out = append(out, h)
		}
	}
	if len(out) == 0 {
		return nil, failed("the entities' ends and centres lie at one point: there is no distance to dimension")
	}
	return &enginev1.DimensionAutoResult{Handles: out, Count: int32(len(out))}, nil
}
