package engine

import (
	"errors"
	"slices"
	"strconv"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// hatchCreate hatches the inside of closed boundaries: copies of closed
// polylines, circles and whole ellipses, the first the outer boundary and
// those inside others islands (even-odd); or, given a pick point, the
// region traced around it with its islands (see call.pickedLoops).
// Boundaries that cross, and patterns too dense for them, fail.
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
	switch picked := a.PickX != nil || a.PickY != nil; {
	case picked && (a.PickX == nil || a.PickY == nil):
		missing := "/pick_x"
		if a.PickY == nil {
			missing = "/pick_y"
		}
		return nil, invalidArgs(missing, reasonMissing, "a pick point needs both pick_x and pick_y")
	case picked && len(a.Boundaries) > 0:
		return nil, invalidArgs("/boundaries", reasonInvalid, "give boundaries or a pick point (pick_x, pick_y), not both")
	case picked:
		loops, err := c.pickedLoops(*a.PickX, *a.PickY)
		if err != nil {
			return nil, err
		}
		g.Loops = loops
	case len(a.Boundaries) == 0:
		return nil, invalidArgs("/boundaries", reasonMissing, "name the boundaries, or give a pick point (pick_x, pick_y) inside the region")
	}
	loops, err := c.loopsOf(g.Loops, a.Boundaries)
	if err != nil {
		return nil, err
	}
	g.Loops = loops
	if err := checkDensity(g, "/scale"); err != nil {
		return nil, err
	}
	e, err := c.Create("", style{a.Layer, a.Color, nil}, g)
	if err != nil {
		return nil, err
	}
	return &enginev1.HatchCreateResult{Handle: handleResult(e), Area: g.Area()}, nil
}

// loopsOf is loops and, after them, the loops of the boundary entities
// named by handles (at /boundaries/i), once none of them crosses another.
func (c *call) loopsOf(loops []drawing.Loop, handles []string) ([]drawing.Loop, error) {
	loops = slices.Clip(loops) // appending leaves the caller's alone
	for i, h := range handles {
		path := "/boundaries/" + strconv.Itoa(i)
		e, err := c.Entity(path, h)
		if err != nil {
			return nil, err
		}
		l, ok := drawing.LoopOf(e.Geom)
		if !ok {
			return nil, invalidArgs(path, reasonInvalid, "entity %s is a %s: a hatch boundary is a closed polyline, a circle or a whole ellipse", drawing.FormatHandle(e.Handle), e.Geom.Kind().WireName())
		}
		loops = append(loops, l)
	}
	if err := drawing.CheckLoops(loops); err != nil {
		return nil, failed("%v", err)
	}
	return loops, nil
}

// checkDensity refuses, at path, a hatch whose pattern is too dense to
// draw.
func checkDensity(g drawing.Hatch, path string) error {
	if err := g.CheckDensity(); errors.Is(err, drawing.ErrPatternTooDense) {
		return invalidArgs(path, reasonOutOfRange, "%v", err)
	}
	return nil
}
