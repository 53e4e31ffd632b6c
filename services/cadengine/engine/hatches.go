package engine

import (
	"errors"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// hatchCreate hatches the inside of closed boundaries: copies of closed
// polylines, circles and whole ellipses, the first the outer boundary and
// those inside others islands (even-odd). Boundaries that cross, and
// patterns too dense for them, fail.
func hatchCreate(c *call, a *enginev1.HatchCreateArgs) (*enginev1.HatchCreateResult, error) {
	g := drawing.Hatch{Pattern: "SOLID", Scale: 1}
	if a.Pattern != nil {
		p, ok := drawing.CanonicalPattern(*a.Pattern)
		if !ok {
			return nil, invalidArgs("/pattern", reasonInvalid, "unknown hatch pattern %q (%s)", *a.Pattern, drawing.HatchPatternNames)
		}
		g.Pattern = p
	}
	if a.Scale != nil {
		g.Scale = *a.Scale
	}
	if a.Angle != nil {
		g.Angle = geom.NormDeg(*a.Angle)
	}
	for i, h := range a.Boundaries {
		path := "/boundaries/" + string(appendInt(nil, i))
		e, err := c.Entity(path, h)
		if err != nil {
			return nil, err
		}
		l, ok := drawing.LoopOf(e.Geom)
		if !ok {
			return nil, invalidArgs(path, reasonInvalid, "entity %s is a %s: a hatch boundary is a closed polyline, a circle or a whole ellipse", drawing.FormatHandle(e.Handle), e.Geom.Kind().WireName())
		}
		g.Loops = append(g.Loops, l)
	}
	if err := drawing.CheckLoops(g.Loops); err != nil {
		return nil, failed("%v", err)
	}
	if err := g.CheckDensity(); errors.Is(err, drawing.ErrPatternTooDense) {
		return nil, invalidArgs("/scale", reasonOutOfRange, "%v", err)
	}
	e, err := c.Create("", style{a.Layer, a.Color, nil}, g)
	if err != nil {
		return nil, err
	}
	return &enginev1.HatchCreateResult{Handle: handleResult(e), Area: g.Area()}, nil
}
