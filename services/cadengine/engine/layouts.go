package engine

import (
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
)

// The layout tools (DESIGN §12): a document's sheets are its layout table
// (drawing.Layouts); the entities on a sheet are those whose Layout is its
// name. Model space is no layout: its name "Model" is reserved, and a
// layout argument of "" or "Model" means it.

// modelSpace is the name model space goes by, reserved for it.
const modelSpace = "Model"

// paperNames lists the standard papers, for messages.
const paperNames = "A0, A1, A2, A3, A4, ANSI_A, ANSI_B, ANSI_C, ANSI_D, ANSI_E"

// space resolves a layout argument (at path) to the name its entities
// carry: "" for model space ("" or "Model", any case), else the layout's
// name as the table spells it, or as the entities spell a layout the table
// lacks (one an older store kept without a table).
func (c *call) space(path, name string) (string, error) {
	if name == "" || strings.EqualFold(name, modelSpace) {
		return "", nil
	}
	if l, ok := c.d.Layout(name); ok {
		return l.Name, nil
	}
	if n, ok := c.untabled(name); ok {
		return n, nil
	}
	return "", invalidArgs(path, reasonInvalid, "the document has no layout %q (layout_list lists them; layout_create adds one)", name)
}

// untabled is the spelling of a layout named name (ignoring case) that
// entities carry but the table lacks.
func (c *call) untabled(name string) (string, bool) {
	if c.d.Layouts().Index(name) >= 0 {
		return "", false
	}
	found := ""
	c.d.Each(0, func(e *drawing.Entity) bool {
		if e.Layout != "" && strings.EqualFold(e.Layout, name) {
			found = e.Layout
			return false
		}
		return true
	})
	return found, found != ""
}

// onLayout is the entities whose Layout is name, in handle order.
func (c *call) onLayout(name string) []*drawing.Entity {
	var out []*drawing.Entity
	c.d.Each(0, func(e *drawing.Entity) bool {
		if e.Layout == name {
			out = append(out, e)
		}
		return true
	})
	return out
}

// newLayoutName checks a name for a new or renamed layout: not model
// space's, not taken by another layout (but keep, the layout renamed,
// may change its own case).
func (c *call) newLayoutName(path, name, keep string) error {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return invalidArgs(path, reasonInvalid, "a layout needs a name")
	case strings.EqualFold(name, modelSpace):
		return invalidArgs(path, reasonInvalid, "%q is model space's name; give the layout another", name)
	case strings.ContainsAny(name, "<>/\\\":;?*|=`"):
		return invalidArgs(path, reasonInvalid, "a layout name may not hold any of <>/\\\":;?*|=`")
	}
	if strings.EqualFold(name, keep) {
		return nil
	}
	if _, ok := c.d.Layout(name); ok {
		return refused("the document already has a layout %q", name)
	}
	if n, ok := c.untabled(name); ok {
		return refused("entities already name a layout %q (layout_create %q gives it a paper)", n, n)
	}
	return nil
}

func layoutCreate(c *call, a *enginev1.LayoutCreateArgs) (*enginev1.LayoutCreateResult, error) {
	name := strings.TrimSpace(a.Name)
	adopt := ""
	if n, ok := c.untabled(name); ok {
		adopt = n // entities name it, the table lacks it: give it its paper
	} else if err := c.newLayoutName("/name", name, ""); err != nil {
		return nil, err
	}
	l := drawing.Layout{Name: name}
	switch {
	case a.Paper != nil:
		if a.Width != nil || a.Height != nil {
			return nil, invalidArgs("/width", reasonInvalid, "give paper or width and height, not both")
		}
		p, ok := drawing.PaperNamed(*a.Paper)
		if !ok {
			return nil, invalidArgs("/paper", reasonInvalid, "unknown paper %q (one of %s, or width and height in mm)", *a.Paper, paperNames)
		}
		l.Paper, l.Width, l.Height = p.Name, p.Width, p.Height
		if a.GetOrientation() == enginev1.LayoutOrientation_LAYOUT_ORIENTATION_PORTRAIT {
			l.Width, l.Height = p.Height, p.Width
		}
	case a.Width != nil && a.Height != nil:
		if a.Orientation != nil {
			return nil, invalidArgs("/orientation", reasonInvalid, "orientation is for a standard paper; width and height say how the paper lies")
		}
		l.Width, l.Height = *a.Width, *a.Height
	case a.Width != nil:
		return nil, invalidArgs("/height", reasonMissing, "a paper of its own size needs height as well as width")
	case a.Height != nil:
		return nil, invalidArgs("/width", reasonMissing, "a paper of its own size needs width as well as height")
	default:
		return nil, invalidArgs("/paper", reasonMissing, "give paper (%s) or width and height in mm", paperNames)
	}
	if adopt != "" {
		l.Name = adopt
	}
	c.tx.SetLayouts(c.d.Layouts().With(-1, l))
	return &enginev1.LayoutCreateResult{Name: l.Name, Width: l.Width, Height: l.Height}, nil
}

// layoutList lists the table's layouts in tab order, then the layouts
// entities name that the table lacks, in the order their first entity
// comes, as untabled (no paper).
func layoutList(c *call, _ *enginev1.LayoutListArgs) (*enginev1.LayoutListResult, error) {
	res := &enginev1.LayoutListResult{Layouts: []*enginev1.LayoutInfo{}}
	at := map[string]*enginev1.LayoutInfo{}
	if t := c.d.Layouts(); t != nil {
		for _, l := range t.List {
			info := &enginev1.LayoutInfo{Name: l.Name, Paper: l.Paper, Width: l.Width, Height: l.Height}
			res.Layouts = append(res.Layouts, info)
			at[l.Name] = info
		}
	}
	c.d.Each(0, func(e *drawing.Entity) bool {
		if e.Layout == "" {
			return true
		}
		info := at[e.Layout]
		if info == nil {
			info = &enginev1.LayoutInfo{Name: e.Layout, Untabled: true}
			res.Layouts = append(res.Layouts, info)
			at[e.Layout] = info
		}
		info.Entities++
		if v, ok := e.Geom.(drawing.Viewport); ok && !v.Paper() {
			info.Viewports++
		}
		return true
	})
	return res, nil
}

// layoutNamed is the layout a rename, copy or delete names: its index in
// the table (-1 for an untabled one) and its name as its entities carry
// it.
func (c *call) layoutNamed(name string) (int, string, error) {
	if strings.EqualFold(name, modelSpace) {
		return 0, "", invalidArgs("/name", reasonInvalid, "model space is not a layout")
	}
	n, err := c.space("/name", name)
	if err != nil {
		return 0, "", failed("the document has no layout %q (layout_list lists them)", name)
	}
	return c.d.Layouts().Index(n), n, nil
}

func layoutRename(c *call, a *enginev1.LayoutRenameArgs) (*enginev1.LayoutRenameResult, error) {
	i, old, err := c.layoutNamed(a.Name)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(a.NewName)
	if err := c.newLayoutName("/new_name", name, old); err != nil {
		return nil, err
	}
	if i >= 0 {
		l := c.d.Layouts().List[i]
		l.Name = name
		c.tx.SetLayouts(c.d.Layouts().With(i, l))
	}
	es := c.onLayout(old)
	for _, e := range es {
		n := *e
		n.Layout = name
		if err := c.tx.Replace(e, n.Seal()); err != nil {
			return nil, err
		}
	}
	return &enginev1.LayoutRenameResult{Name: name, Count: int64(len(es))}, nil
}

func layoutCopy(c *call, a *enginev1.LayoutCopyArgs) (*enginev1.LayoutCopyResult, error) {
	i, old, err := c.layoutNamed(a.Name)
	if err != nil {
		return nil, err
	}
	if i < 0 {
		return nil, failed("layout %q has no paper to copy (layout_create %q gives it one)", old, old)
	}
	name := strings.TrimSpace(a.NewName)
	if err := c.newLayoutName("/new_name", name, ""); err != nil {
		return nil, err
	}
	l := c.d.Layouts().List[i]
	l.Name = name
	c.tx.SetLayouts(c.d.Layouts().With(-1, l))
	res := &enginev1.LayoutCopyResult{Name: name, Handles: []string{}}
	for _, e := range c.onLayout(old) {
		n := *e
		n.Layout = name
		made, err := c.tx.Create(&n)
		if err != nil {
			return nil, err
		}
		res.Handles = append(res.Handles, handleResult(made))
	}
	return res, nil
}

func layoutDelete(c *call, a *enginev1.LayoutDeleteArgs) (*enginev1.LayoutDeleteResult, error) {
	i, old, err := c.layoutNamed(a.Name)
	if err != nil {
		return nil, err
	}
	es := c.onLayout(old)
	for _, e := range es {
		if err := c.tx.Remove(e); err != nil {
			return nil, err
		}
	}
	if i >= 0 {
		c.tx.SetLayouts(c.d.Layouts().Without(i))
	}
	return &enginev1.LayoutDeleteResult{Count: int64(len(es))}, nil
}
