package engine

import (
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Fills that are not one flat colour: an MTEXT's background mask
// (text_set_background) and a hatch's gradient (hatch_set_gradient).

func textSetBackground(c *call, a *enginev1.TextSetBackgroundArgs) (*enginev1.TextSetBackgroundResult, error) {
	e, err := c.Entity("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	g, ok := e.Geom.(drawing.MText)
	if !ok {
		return nil, failed("entity %s is a %s: a background mask is for a multi-line text (MTEXT) only", drawing.FormatHandle(e.Handle), e.Geom.Kind().WireName())
	}
	g.Background = drawing.Background{}
	if a.GetEnabled() || a.Enabled == nil {
		g.Background = drawing.Background{Fill: drawing.BackgroundWindow, Scale: a.GetScale()}
		if a.Color != nil {
			g.Background.Fill, g.Background.Color = drawing.BackgroundColor, a.GetColor()
		}
		if a.Scale == nil {
			g.Background.Scale = drawing.DefaultBackgroundScale
		}
	}
	if err := c.tx.Replace(e, e.With(g)); err != nil {
		return nil, err
	}
	return &enginev1.TextSetBackgroundResult{Handle: handleResult(e)}, nil
}

func hatchSetGradient(c *call, a *enginev1.HatchSetGradientArgs) (*enginev1.HatchSetGradientResult, error) {
	e, g, err := c.hatchOf(a.Handle)
	if err != nil {
		return nil, err
	}
	gr := drawing.Gradient{Name: "LINEAR", Color1: a.Color1, Angle: geom.NormDeg(a.GetAngle())}
	if a.Name != nil {
		n, ok := drawing.CanonicalGradient(*a.Name)
		if !ok {
			return nil, invalidArgs("/name", reasonInvalid, "unknown gradient %q (LINEAR, CYLINDER, SPHERICAL, HEMISPHERICAL, CURVED, or INV and one of the last four)", *a.Name)
		}
		gr.Name = n
	}
	if a.Color2 != nil {
		gr.Color2 = *a.Color2
	} else {
		gr.OneColor, gr.Tint = true, 1
	}
	if a.Centered != nil && !*a.Centered {
		gr.Shift = drawing.NotCentered
	}
	// A gradient fills solid, as DXF has it.
	g.Pattern, g.Lines, g.Gradient = "SOLID", nil, &gr
	if err := c.replaceHatch(e, g, "/handle"); err != nil {
		return nil, err
	}
	return &enginev1.HatchSetGradientResult{Handle: handleResult(e)}, nil
}
