package engine

import (
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Standard parts (DESIGN §12): a spur gear drawn from its module and
// teeth, a bore with its DIN 6885-1 keyway, a GD&T feature control frame.
// The geometry is geom's (geom.SpurGear, geom.KeyedCircle); the frame is
// a drawing.Tolerance.

// defaultPressureAngle is a spur gear's pressure angle when none is given,
// ISO 53's, in degrees.
const defaultPressureAngle = 20.0

// partSpurGear draws a gear's outline, and its bore when asked.
func partSpurGear(c *call, a *enginev1.PartSpurGearArgs) (*enginev1.PartSpurGearResult, error) {
	alpha := defaultPressureAngle
	if a.PressureAngle != nil {
		alpha = *a.PressureAngle
	}
	g := geom.SpurGear{C: geom.Pt(a.Cx, a.Cy), Module: a.Module, Teeth: int(a.Teeth), PressureAngle: geom.Rad(alpha)}
	root := 2 * g.RootRadius()
	if a.Bore != nil && *a.Bore >= root {
		return nil, invalidArgs("/bore", reasonOutOfRange, "a bore of %g does not fit inside the root diameter %g: give a smaller bore", *a.Bore, root)
	}
	pl, err := g.Profile()
	if err != nil {
		return nil, invalidArgs("/teeth", reasonInvalid, "%v", err)
	}
	s := style{layer: a.Layer}
	e, err := c.Create("", s, drawing.Polyline{Polyline: pl})
	if err != nil {
		return nil, err
	}
	out := &enginev1.PartSpurGearResult{
		Handle:        handleResult(e),
		PitchDiameter: 2 * g.PitchRadius(),
		TipDiameter:   2 * g.TipRadius(),
		RootDiameter:  root,
		BaseDiameter:  2 * g.BaseRadius(),
		Undercut:      g.Undercut(),
	}
	if a.Bore != nil {
		b, err := c.Create("", s, drawing.Circle{C: g.C, R: *a.Bore / 2})
		if err != nil {
			return nil, err
		}
		out.Bore = new(handleResult(b))
	}
	return out, nil
}

// partKeyway draws a bore with its keyway (or a shaft with its keyseat),
// the key chosen from DIN 6885-1 by the diameter in millimetres.
func partKeyway(c *call, a *enginev1.PartKeywayArgs) (*enginev1.PartKeywayResult, error) {
	mm := drawing.UnitMM(c.d.Units)
	key, ok := geom.ParallelKeyFor(a.Bore * mm)
	if !ok {
		return nil, invalidArgs("/bore", reasonOutOfRange, "DIN 6885-1 has keys for diameters of %g to %g mm; %g mm is outside it", geom.ParallelKeyMin, geom.ParallelKeyMax, a.Bore*mm)
	}
	angle := 90.0
	if a.Angle != nil {
		angle = *a.Angle
	}
	b, depth := key.B/mm, key.T2/mm
	top, check := a.Bore/2+depth, a.Bore+depth
	if a.GetKind() == enginev1.KeywayKind_KEYWAY_KIND_SHAFT {
		depth = key.T1 / mm
		top, check = a.Bore/2-depth, a.Bore-depth
	}
	pl, err := geom.KeyedCircle(geom.Pt(a.Cx, a.Cy), a.Bore, b, top, geom.Rad(angle))
	if err != nil {
		return nil, failed("%v", err) // cannot happen for the table's rows
	}
	e, err := c.Create("", style{layer: a.Layer}, drawing.Polyline{Polyline: pl})
	if err != nil {
		return nil, err
	}
	return &enginev1.PartKeywayResult{Handle: handleResult(e), Width: b, KeyHeight: key.H / mm, Depth: depth, Check: check}, nil
}

// gdtSymbolNames are drawing.GDTSymbol's names of the characteristics.
var gdtSymbolNames = map[enginev1.GdtSymbol]string{
	enginev1.GdtSymbol_GDT_SYMBOL_POSITION:         "position",
	enginev1.GdtSymbol_GDT_SYMBOL_FLATNESS:         "flatness",
	enginev1.GdtSymbol_GDT_SYMBOL_STRAIGHTNESS:     "straightness",
	enginev1.GdtSymbol_GDT_SYMBOL_CIRCULARITY:      "circularity",
	enginev1.GdtSymbol_GDT_SYMBOL_CYLINDRICITY:     "cylindricity",
	enginev1.GdtSymbol_GDT_SYMBOL_PROFILE_LINE:     "line_profile",
	enginev1.GdtSymbol_GDT_SYMBOL_PROFILE_SURFACE:  "surface_profile",
	enginev1.GdtSymbol_GDT_SYMBOL_PERPENDICULARITY: "perpendicularity",
	enginev1.GdtSymbol_GDT_SYMBOL_PARALLELISM:      "parallelism",
	enginev1.GdtSymbol_GDT_SYMBOL_ANGULARITY:       "angularity",
	enginev1.GdtSymbol_GDT_SYMBOL_CONCENTRICITY:    "concentricity",
	enginev1.GdtSymbol_GDT_SYMBOL_SYMMETRY:         "symmetry",
	enginev1.GdtSymbol_GDT_SYMBOL_CIRCULAR_RUNOUT:  "circular_runout",
	enginev1.GdtSymbol_GDT_SYMBOL_TOTAL_RUNOUT:     "total_runout",
}

// gdtSymbol is the TOLERANCE text of a GD&T symbol drawing.GDTSymbol
// knows by name.
func gdtSymbol(name string) string {
	s, _ := drawing.GDTSymbol(name)
	return s
}

// gdtFrame draws a feature control frame of one row: the symbol, the
// tolerance (⌀ before it, a material condition after it) and the datums.
func gdtFrame(c *call, a *enginev1.GdtFrameArgs) (*enginev1.GdtFrameResult, error) {
	name, ok := gdtSymbolNames[a.Symbol]
	if !ok {
		return nil, invalidArgs("/symbol", reasonInvalid, "give the characteristic's symbol (position, flatness, perpendicularity…)")
	}
	var tol strings.Builder
	if a.GetDiameter() {
		tol.WriteString(gdtSymbol("diameter"))
	}
	tol.WriteString(a.Tolerance)
	switch a.GetModifier() {
	case enginev1.GdtModifier_GDT_MODIFIER_MMC:
		tol.WriteString(gdtSymbol("mmc"))
	case enginev1.GdtModifier_GDT_MODIFIER_LMC:
		tol.WriteString(gdtSymbol("lmc"))
	}
	st := drawing.DefaultDimStyle(c.d.Units)
	height := st.TextHeight
	if a.Height != nil {
		height = *a.Height
	}
	row := append([]string{gdtSymbol(name), tol.String()}, a.Datums...)
	g, err := drawing.NewTolerance(geom.Pt(a.X, a.Y), height, 0, st.Name, row)
	if err != nil {
		return nil, failed("%v", err) // cannot happen: the symbol's compartment has text
	}
	e, err := c.Create("", style{layer: a.Layer}, g)
	if err != nil {
		return nil, err
	}
	return &enginev1.GdtFrameResult{Handle: handleResult(e), Text: g.Text}, nil
}
