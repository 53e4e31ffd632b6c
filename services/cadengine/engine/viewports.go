package engine

import (
	"math"
	"strconv"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// The viewport tools (DESIGN §12): windows on a layout that show model
// space about a centre at a scale (drawing.Viewport), and moving entities
// through one between model space and its layout (entity_change_space).

// parseScale reads a viewport scale (at path) as paper millimetres per
// model unit, for a document in units u: a ratio "p:q" is p paper lengths
// to q model lengths, both in the same unit (so 1:50 is 0.02 for a model
// in millimetres, 20 for one in metres); a plain number is paper mm per
// model unit as it is.
func parseScale(path, s string, u enginev1.Units) (float64, error) {
	bad := func() error {
		return invalidArgs(path, reasonInvalid, "scale %q is not a ratio like \"1:50\" or \"2:1\" nor a positive number (paper mm per drawing unit)", s)
	}
	s = strings.TrimSpace(s)
	if p, q, ok := strings.Cut(s, ":"); ok {
		a, err1 := strconv.ParseFloat(strings.TrimSpace(p), 64)
		b, err2 := strconv.ParseFloat(strings.TrimSpace(q), 64)
		if err1 != nil || err2 != nil || !(a > 0) || !(b > 0) || math.IsInf(a/b, 0) || !(a/b > 0) {
			return 0, bad()
		}
		return a / b * drawing.UnitMM(u), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f > 0) || math.IsInf(f, 0) {
		return 0, bad()
	}
	return f, nil
}

// scaleName spells a factor (paper mm per unit of u) as a ratio of paper
// to model length: "1:50", "2:1", "1:2.5".
func scaleName(factor float64, u enginev1.Units) string {
	r := factor / drawing.UnitMM(u)
	if r >= 1 {
		return strconv.FormatFloat(roundSig(r), 'f', -1, 64) + ":1"
	}
	return "1:" + strconv.FormatFloat(roundSig(1/r), 'f', -1, 64)
}

// roundSig is v to 9 significant digits, so that 1/0.02 reads 50.
func roundSig(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 9, 64), 64)
	return f
}

// viewport is the window on a layout that handle names (at path).
func (c *call) viewport(path, handle string) (*drawing.Entity, drawing.Viewport, error) {
	e, err := c.Entity(path, handle)
	if err != nil {
		return nil, drawing.Viewport{}, err
	}
	v, ok := e.Geom.(drawing.Viewport)
	if !ok {
		return nil, drawing.Viewport{}, invalidArgs(path, reasonInvalid, "%s is a %s, not a viewport", handle, e.Geom.Kind().WireName())
	}
	if v.Paper() {
		return nil, drawing.Viewport{}, invalidArgs(path, reasonInvalid, "%s is layout %q's own view of its paper, not a window on model space", handle, e.Layout)
	}
	return e, v, nil
}

func viewportCreate(c *call, a *enginev1.ViewportCreateArgs) (*enginev1.ViewportCreateResult, error) {
	name, err := c.space("/layout", a.Layout)
	if err != nil {
		return nil, err
	}
	if name == "" {
		return nil, invalidArgs("/layout", reasonInvalid, "a viewport goes on a layout, not in model space")
	}
	l, ok := c.d.Layout(name)
	if !ok {
		return nil, failed("layout %q has no paper (layout_create %q gives it one)", name, name)
	}
	const tol = 1e-9
	if a.X < -tol || a.Y < -tol || a.X+a.Width > l.Width+tol || a.Y+a.Height > l.Height+tol {
		return nil, invalidArgs("/x", reasonOutOfRange, "the frame (%g, %g)–(%g, %g) is off layout %q's paper (0, 0)–(%g, %g)",
			a.X, a.Y, a.X+a.Width, a.Y+a.Height, name, l.Width, l.Height)
	}
	f, err := parseScale("/scale", a.Scale, c.d.Units)
	if err != nil {
		return nil, err
	}
	v := drawing.NewViewport(a.X, a.Y, a.Width, a.Height, geom.Pt(a.CenterX, a.CenterY), f, drawing.NextViewportID(c.onLayout(name), name))
	e, err := c.createOn("", style{}, name, v)
	if err != nil {
		return nil, err
	}
	return &enginev1.ViewportCreateResult{Handle: handleResult(e), Factor: f}, nil
}

func viewportList(c *call, a *enginev1.ViewportListArgs) (*enginev1.ViewportListResult, error) {
	name, err := c.space("/layout", a.Layout)
	if err != nil {
		return nil, err
	}
	if name == "" {
		return nil, invalidArgs("/layout", reasonInvalid, "model space has no viewports; name a layout")
	}
	res := &enginev1.ViewportListResult{Viewports: []*enginev1.ViewportInfo{}}
	for _, e := range c.onLayout(name) {
		v, ok := e.Geom.(drawing.Viewport)
		if !ok || v.Paper() {
			continue
		}
		res.Viewports = append(res.Viewports, &enginev1.ViewportInfo{
			Handle: handleResult(e), X: v.C.X - v.W/2, Y: v.C.Y - v.H/2, Width: v.W, Height: v.H,
			CenterX: v.View.X, CenterY: v.View.Y, Factor: v.Scale(), Scale: scaleName(v.Scale(), c.d.Units), Locked: v.Locked,
		})
	}
	return res, nil
}

func viewportSetScale(c *call, a *enginev1.ViewportSetScaleArgs) (*enginev1.ViewportSetScaleResult, error) {
	e, v, err := c.viewport("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	if v.Locked {
		return nil, refused("viewport %s is locked (viewport_lock with locked false unlocks it)", a.Handle)
	}
	f, err := parseScale("/scale", a.Scale, c.d.Units)
	if err != nil {
		return nil, err
	}
	v.ViewHeight = v.H / f
	if err := c.tx.Replace(e, e.With(v)); err != nil {
		return nil, err
	}
	return &enginev1.ViewportSetScaleResult{Handle: handleResult(e), Factor: f}, nil
}

func viewportLock(c *call, a *enginev1.ViewportLockArgs) (*enginev1.ViewportLockResult, error) {
	e, v, err := c.viewport("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	v.Locked = a.Locked == nil || *a.Locked
	if err := c.tx.Replace(e, e.With(v)); err != nil {
		return nil, err
	}
	return &enginev1.ViewportLockResult{Handle: handleResult(e)}, nil
}

func viewportDelete(c *call, a *enginev1.ViewportDeleteArgs) (*enginev1.ViewportDeleteResult, error) {
	e, _, err := c.viewport("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	if err := c.tx.Remove(e); err != nil {
		return nil, err
	}
	return &enginev1.ViewportDeleteResult{Handle: handleResult(e)}, nil
}

// paperXform is the map from model space to the paper through a
// viewport: p_paper = (p_model − view) × scale + the frame's centre.
func paperXform(v drawing.Viewport) geom.Xform {
	return geom.Translate(v.View.Mul(-1)).Then(geom.ScaleAbout(geom.Vec{}, v.Scale())).Then(geom.Translate(v.C))
}

// modelXform is paperXform's inverse.
func modelXform(v drawing.Viewport) geom.Xform {
	return geom.Translate(v.C.Mul(-1)).Then(geom.ScaleAbout(geom.Vec{}, 1/v.Scale())).Then(geom.Translate(v.View))
}

// entityChangeSpace moves entities, all in one space, to the other
// through a viewport: from model space to the viewport's layout, or from
// a layout to model space. Their handles stay.
func entityChangeSpace(c *call, a *enginev1.EntityChangeSpaceArgs) (*enginev1.EntityChangeSpaceResult, error) {
	es := make([]*drawing.Entity, 0, len(a.Handles))
	seen := map[uint64]bool{}
	for i, h := range a.Handles {
		path := "/handles/" + strconv.Itoa(i)
		e, err := c.Entity(path, h)
		if err != nil {
			return nil, err
		}
		if _, ok := e.Geom.(drawing.Viewport); ok {
			return nil, invalidArgs(path, reasonInvalid, "%s is a viewport: it stays on its layout", h)
		}
		if len(es) > 0 && e.Layout != es[0].Layout {
			return nil, invalidArgs(path, reasonInvalid, "%s is in %s but %s in %s: move entities of one space at a time", h, spaceName(e.Layout), a.Handles[0], spaceName(es[0].Layout))
		}
		if !seen[e.Handle] {
			seen[e.Handle] = true
			es = append(es, e)
		}
	}
	from := es[0].Layout
	target := from // the layout the viewport is on
	if from == "" {
		if a.Layout == nil && a.Viewport == nil {
			return nil, invalidArgs("/layout", reasonMissing, "the entities are in model space: name the layout (or viewport) to move them to")
		}
	} else if a.Layout != nil && !strings.EqualFold(*a.Layout, modelSpace) && *a.Layout != "" {
		return nil, invalidArgs("/layout", reasonInvalid, "the entities are on layout %q: they go to model space (layout \"Model\" or none)", from)
	}
	if from == "" && a.Layout != nil {
		n, err := c.space("/layout", *a.Layout)
		if err != nil {
			return nil, err
		}
		target = n
	}
	var (
		ve  *drawing.Entity
		v   drawing.Viewport
		err error
	)
	if a.Viewport != nil {
		if ve, v, err = c.viewport("/viewport", *a.Viewport); err != nil {
			return nil, err
		}
		if target == "" {
			target = ve.Layout
		}
		if ve.Layout != target {
			return nil, invalidArgs("/viewport", reasonInvalid, "viewport %s is on layout %q, not %q", *a.Viewport, ve.Layout, target)
		}
	} else {
		for _, e := range c.onLayout(target) {
			if w, ok := e.Geom.(drawing.Viewport); ok && !w.Paper() {
				if ve != nil {
					return nil, invalidArgs("/viewport", reasonMissing, "layout %q has several viewports: name the one to go through", target)
				}
				ve, v = e, w
			}
		}
		if ve == nil {
			return nil, failed("layout %q has no viewport to go through (viewport_create makes one)", target)
		}
	}
	if !(v.Scale() > 0) {
		return nil, failed("viewport %s has no scale", drawing.FormatHandle(ve.Handle))
	}
	x, to := paperXform(v), target
	if from != "" {
		x, to = modelXform(v), ""
	}
	res := &enginev1.EntityChangeSpaceResult{Handles: make([]string, 0, len(es)), Space: spaceName(to)}
	for _, e := range es {
		n := *e
		n.Geom, n.Layout = e.Geom.Transformed(x), to
		if err := c.tx.Replace(e, n.Seal()); err != nil {
			return nil, err
		}
		res.Handles = append(res.Handles, handleResult(e))
	}
	return res, nil
}

// spaceName is how a space is named to people: "Model" or the layout's
// name.
func spaceName(layout string) string {
	if layout == "" {
		return modelSpace
	}
	return layout
}
