package engine

import (
	"maps"
	"slices"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Block attributes (DESIGN §11): block_define declares them (see
// attributeDefs), block_insert gives each insert its values (see
// insertAttribs), block_attributes_get and block_attributes_set read and
// change them, and block_references finds a block's inserts. The drawing
// holds them as DXF does: drawing.Attdef among the block's entities,
// drawing.Attrib on the insert.

// attributeDefs are the block's attribute definitions from block_define's
// attributes: on layer 0, their tags upper case (as DXF keeps them) and
// unique among them and the ones copied (taken), the prompt the tag's
// unless given.
func attributeDefs(defs []*enginev1.BlockAttributeDefinition, taken map[string]bool) ([]*drawing.Entity, error) {
	var out []*drawing.Entity
	for i, d := range defs {
		tag := strings.ToUpper(d.Tag)
		if taken[tag] {
			return nil, invalidArgs("/attributes/"+string(appendInt(nil, i))+"/tag", reasonInvalid, "the block already has an attribute %s", tag)
		}
		taken[tag] = true
		g := drawing.Attdef{Tag: tag, Prompt: tag, Text: drawing.Text{Text: d.GetDefault(), P: geom.Pt(d.X, d.Y), Height: drawing.DefaultTextHeight}}
		if d.Prompt != nil {
			g.Prompt = *d.Prompt
		}
		if d.Height != nil {
			g.Text.Height = *d.Height
		}
		out = append(out, &drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: g})
	}
	return out, nil
}

// attdefTags are the tags of the attribute definitions among ents.
func attdefTags(ents []*drawing.Entity) map[string]bool {
	out := map[string]bool{}
	for _, e := range ents {
		if d, ok := e.Geom.(drawing.Attdef); ok {
			out[strings.ToUpper(d.Tag)] = true
		}
	}
	return out
}

// variableDefs are the block's attribute definitions whose value each
// insert carries (all but the constant ones, which the block shows).
func variableDefs(b *drawing.Block) []drawing.Attdef {
	var out []drawing.Attdef
	if b == nil {
		return nil
	}
	for _, e := range b.Entities {
		if d, ok := e.Geom.(drawing.Attdef); ok && !d.Constant() {
			out = append(out, d)
		}
	}
	return out
}

// placedAttrib is the value of attribute definition d on insert g: its
// text placed as the insert places the block's entities.
func placedAttrib(g drawing.Insert, d drawing.Attdef, value string) drawing.Attrib {
	t := d.Text
	t.Text = value
	var placed drawing.Geometry
	if g.Uneven() {
		placed = t.Affined(g.Placement())
	} else {
		placed = t.Transformed(g.Xform())
	}
	return drawing.Attrib{Tag: d.Tag, Text: placed.(drawing.Text), Invisible: d.Flags&1 != 0}
}

// unknownTag is the failure of a value for a tag the block does not
// define, at path.
func unknownTag(path, tag string, b *drawing.Block) error {
	var tags []string
	for _, d := range variableDefs(b) {
		tags = append(tags, d.Tag)
	}
	has := "it has no attributes"
	if len(tags) > 0 {
		has = "its attributes are " + strings.Join(tags, ", ")
	}
	return invalidArgs(path, reasonInvalid, "block %q has no attribute %q: %s", b.Name, tag, has)
}

// tagPath is the JSON pointer of key in the object at path.
func tagPath(path, key string) string {
	return path + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}

// insertAttribs are the attribute values of a new insert g: each of its
// block's definitions with the value given under its tag (case ignored),
// else its default. A tag the block does not define fails.
func insertAttribs(g drawing.Insert, values map[string]string) ([]drawing.Attrib, error) {
	defs := variableDefs(g.Def)
	given := make([]string, len(defs))
	set := make([]bool, len(defs))
	for _, k := range slices.Sorted(maps.Keys(values)) {
		i := slices.IndexFunc(defs, func(d drawing.Attdef) bool { return strings.EqualFold(d.Tag, k) })
		if i < 0 {
			return nil, unknownTag(tagPath("/attributes", k), k, g.Def)
		}
		given[i], set[i] = values[k], true
	}
	var out []drawing.Attrib
	for i, d := range defs {
		value := d.Text.Text
		if set[i] {
			value = given[i]
		}
		out = append(out, placedAttrib(g, d, value))
	}
	return out, nil
}

// insertOf is the insert at handle (path), or a failure.
func (c *call) insertOf(path, handle string) (*drawing.Entity, drawing.Insert, error) {
	e, err := c.Entity(path, handle)
	if err != nil {
		return nil, drawing.Insert{}, err
	}
	g, ok := e.Geom.(drawing.Insert)
	if !ok {
		return nil, drawing.Insert{}, failed("entity %s is a %s, not an insert", handleResult(e), e.Geom.Kind().WireName())
	}
	return e, g, nil
}

// blockAttributesGet reads an insert's attribute values, in its order,
// with the prompts of their definitions.
func blockAttributesGet(c *call, a *enginev1.BlockAttributesGetArgs) (*enginev1.BlockAttributesGetResult, error) {
	e, g, err := c.insertOf("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	prompts := map[string]string{}
	for _, d := range variableDefs(g.Def) {
		prompts[strings.ToUpper(d.Tag)] = d.Prompt
	}
	res := &enginev1.BlockAttributesGetResult{Handle: handleResult(e), Block: g.Name, Values: map[string]string{}, Attributes: []*enginev1.BlockAttributeValue{}}
	for _, at := range g.Attribs {
		res.Values[at.Tag] = at.Text.Text
		res.Attributes = append(res.Attributes, &enginev1.BlockAttributeValue{
			Tag: at.Tag, Value: at.Text.Text, Prompt: prompts[strings.ToUpper(at.Tag)], Invisible: at.Invisible,
		})
	}
	return res, nil
}

// blockAttributesSet sets an insert's attribute values by tag (case
// ignored). A tag the insert lacks but its block defines (an insert
// written before the definition, as DXF files may hold) is added where
// the definition puts it; a tag neither has fails, naming it, and nothing
// changes.
func blockAttributesSet(c *call, a *enginev1.BlockAttributesSetArgs) (*enginev1.BlockAttributesSetResult, error) {
	if len(a.Values) == 0 {
		return nil, invalidArgs("/values", reasonMissing, "give at least one value, by tag")
	}
	e, g, err := c.insertOf("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	attribs := append([]drawing.Attrib(nil), g.Attribs...) // the entity's own is never changed
	defs := variableDefs(g.Def)
	for _, k := range slices.Sorted(maps.Keys(a.Values)) {
		v := a.Values[k]
		if i := slices.IndexFunc(attribs, func(at drawing.Attrib) bool { return strings.EqualFold(at.Tag, k) }); i >= 0 {
			attribs[i].Text.Text = v
			continue
		}
		i := slices.IndexFunc(defs, func(d drawing.Attdef) bool { return strings.EqualFold(d.Tag, k) })
		if i < 0 {
			if g.Def == nil {
				return nil, invalidArgs(tagPath("/values", k), reasonInvalid, "insert %s has no attribute %q", handleResult(e), k)
			}
			return nil, unknownTag(tagPath("/values", k), k, g.Def)
		}
		attribs = append(attribs, placedAttrib(g, defs[i], v))
	}
	g.Attribs = attribs
	next := e.With(g)
	if err := c.tx.Replace(e, next); err != nil {
		return nil, err
	}
	return &enginev1.BlockAttributesSetResult{Handle: handleResult(next)}, nil
}

// blockReferences lists the inserts of a block, in model space and the
// layouts, and counts those inside other blocks.
func blockReferences(c *call, a *enginev1.BlockReferencesArgs) (*enginev1.BlockReferencesResult, error) {
	if c.d.Block(a.Name) == nil {
		return nil, failed("the document has no block %q", a.Name)
	}
	res := &enginev1.BlockReferencesResult{Handles: []string{}}
	err := c.walk(true, func(e *drawing.Entity) error {
		if g, ok := e.Geom.(drawing.Insert); ok && g.Name == a.Name {
			res.Handles = append(res.Handles, handleResult(e))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, b := range c.d.Blocks() {
		for _, e := range b.Entities {
			if g, ok := e.Geom.(drawing.Insert); ok && g.Name == a.Name {
				res.Nested++
			}
		}
	}
	res.Count = int64(len(res.Handles))
	return res, nil
}
