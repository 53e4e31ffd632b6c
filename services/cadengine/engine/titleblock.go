package engine

import (
	"maps"
	"slices"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Sheets (DESIGN §12): titleblock_apply puts a layout's border and title
// block on it (see drawing.NewTitleblock), as an insert whose attributes
// are the fields, edited afterwards with block_attributes_set.

// titleblockLayers are the layers a title block is drawn on, made when
// the document lacks them: the insert's (0.25 mm) and the frame's (0.7
// mm).
var titleblockLayers = []drawing.Layer{
	{Name: drawing.TitleblockLayer, Color: 7, Linetype: "Continuous", Lineweight: 25, On: true},
	{Name: drawing.TitleblockBorderLayer, Color: 7, Linetype: "Continuous", Lineweight: 70, On: true},
}

// titleblockApply inserts the ISO title block of the layout's paper at
// its origin, defining its block the first time. A title block already
// on the layout (the first insert there of a block named TITLEBLOCK_…)
// is replaced in place, under its handle (an edit, not a removal); the
// fields not given keep its values.
func titleblockApply(c *call, a *enginev1.TitleblockApplyArgs) (*enginev1.TitleblockApplyResult, error) {
	if s := a.GetStandard(); s != "" && !strings.EqualFold(s, "iso") {
		return nil, invalidArgs("/standard", reasonInvalid, "unknown standard %q: the one there is is iso (ISO 5457 border, ISO 7200 title block)", s)
	}
	l, err := c.sheet("/layout", a.Layout, "a title block")
	if err != nil {
		return nil, err
	}
	values := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(a.Fields)) {
		if !slices.ContainsFunc(drawing.TitleblockFields, func(f drawing.TitleblockField) bool { return strings.EqualFold(f.Name, k) }) {
			return nil, invalidArgs(tagPath("/fields", k), reasonInvalid, "unknown field %q: the fields are %s", k, drawing.TitleblockFieldNames())
		}
	}

	// The title block there now, whose values carry over.
	var old *drawing.Entity
	for _, e := range c.d.Entities() {
		if g, ok := e.Geom.(drawing.Insert); ok && strings.EqualFold(e.Layout, l.Name) && strings.HasPrefix(strings.ToUpper(g.Name), drawing.TitleblockPrefix) {
			old = e
			for _, at := range g.Attribs {
				values[strings.ToUpper(at.Tag)] = at.Text.Text
			}
			break
		}
	}
	for k, v := range a.Fields {
		values[strings.ToUpper(k)] = v
	}

	for _, tl := range titleblockLayers {
		if c.d.LayerFold(tl.Name) == nil {
			c.tx.PutLayer(&tl)
		}
	}
	name := drawing.TitleblockName(l)
	b := c.d.Block(name)
	if b == nil {
		nb, err := drawing.NewTitleblock(l)
		if err != nil {
			return nil, failed("%v", err)
		}
		if err := c.tx.DefineBlock(nb); err != nil {
			return nil, err
		}
		b = c.d.Block(name)
	}
	g := drawing.Insert{Name: b.Name, P: geom.Pt(0, 0), Scale: 1, Def: b}
	// Only the tags the block defines: an older title block may have had
	// others.
	for k := range values {
		if !slices.ContainsFunc(variableDefs(b), func(d drawing.Attdef) bool { return strings.EqualFold(d.Tag, k) }) {
			delete(values, k)
		}
	}
	attribs, err := insertAttribs(g, values)
	if err != nil {
		return nil, err
	}
	g.Attribs = attribs
	e := &drawing.Entity{Layer: c.d.LayerFold(drawing.TitleblockLayer).Name, Color: 256, Linetype: "ByLayer", Layout: l.Name, Geom: g}
	if old != nil {
		// In place: the same entity, under its handle, redrawn.
		n := *old
		n.Layer, n.Color, n.Linetype, n.Geom = e.Layer, e.Color, e.Linetype, g
		next := n.Seal()
		if err := c.tx.Replace(old, next); err != nil {
			return nil, err
		}
		return &enginev1.TitleblockApplyResult{Handle: handleResult(next), Block: b.Name, Replaced: true}, nil
	}
	made, err := c.tx.Create(e)
	if err != nil {
		return nil, err
	}
	return &enginev1.TitleblockApplyResult{Handle: handleResult(made), Block: b.Name}, nil
}

// sheet is the layout a layout argument (at path) names, with its paper,
// for what goes on one (what, for the message): model space is refused,
// as is a layout the table lacks (it has no paper).
func (c *call) sheet(path, name, what string) (drawing.Layout, error) {
	n, err := c.space(path, name)
	if err != nil {
		return drawing.Layout{}, err
	}
	if n == "" {
		return drawing.Layout{}, invalidArgs(path, reasonInvalid, "%s goes on a layout, not in model space", what)
	}
	l, ok := c.d.Layout(n)
	if !ok {
		return drawing.Layout{}, failed("layout %q has no paper (layout_create %q gives it one)", n, n)
	}
	return l, nil
}
