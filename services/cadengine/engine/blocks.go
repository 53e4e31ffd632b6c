package engine

import (
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Blocks: a named group of entities defined once (block_define), placed as
// inserts (block_insert), exploded back into entities (block_explode),
// listed (block_list) and deleted when no insert uses it (block_delete).
// Definitions are never changed; see drawing.Block.

// checkBlockName rejects names DXF cannot hold, and anonymous ones.
func checkBlockName(name string) error {
	if strings.HasPrefix(name, "*") {
		return invalidArgs("/name", reasonInvalid, "a block name cannot start with * (DXF's anonymous blocks)")
	}
	if err := drawing.CheckLayerName(name); err != nil {
		return invalidArgs("/name", reasonInvalid, "%s", strings.Replace(err.Error(), "layer", "block", 1))
	}
	return nil
}

// blockDefine defines a block from copies of entities (moved so that the
// base point is the origin; a dimension's bindings are dropped, a block
// having no entities to follow) and new entities in block coordinates
// (on layer 0 unless given: entities on layer 0 take the insert's layer),
// and attribute definitions (see attributeDefs).
func blockDefine(c *call, a *enginev1.BlockDefineArgs) (*enginev1.BlockDefineResult, error) {
	if err := checkBlockName(a.Name); err != nil {
		return nil, err
	}
	if c.d.Block(a.Name) != nil {
		return nil, failed("the document already has a block %q", a.Name)
	}
	if len(a.Handles) == 0 && len(a.Entities) == 0 && len(a.Attributes) == 0 {
		return nil, invalidArgs("", reasonMissing, "give handles to copy, entities to create or attributes")
	}
	base := geom.Pt(a.GetBaseX(), a.GetBaseY())
	toLocal := geom.Translate(base.Mul(-1))
	var ents []*drawing.Entity
	for i, h := range a.Handles {
		e, err := c.Entity("/handles/"+string(appendInt(nil, i)), h)
		if err != nil {
			return nil, err
		}
		g := e.Geom.Transformed(toLocal)
		if d, ok := g.(drawing.Dimension); ok {
			d.Binds = nil
			g = d
		}
		n := *e
		n.Geom = g
		ents = append(ents, &n)
	}
	for i, ne := range a.Entities {
		path := "/entities/" + string(appendInt(nil, i))
		g, err := newEntityGeometry(path, ne)
		if err != nil {
			return nil, err
		}
		e, err := entityOf(path, style{ne.Layer, ne.Color, ne.Linetype}, "0", g)
		if err != nil {
			return nil, err
		}
		if c.d.Layer(e.Layer) == nil {
			return nil, failed("the document has no layer %q", e.Layer)
		}
		ents = append(ents, e)
	}
	defs, err := attributeDefs(a.Attributes, attdefTags(ents))
	if err != nil {
		return nil, err
	}
	ents = append(ents, defs...)
	b := drawing.NewBlock(a.Name, base, ents)
	if err := c.tx.DefineBlock(b); err != nil {
		return nil, err
	}
	return &enginev1.BlockDefineResult{Name: b.Name, Count: int64(len(b.Entities))}, nil
}

// blockInsert places a block, with a value for each of its attributes:
// the one given, else the default.
func blockInsert(c *call, a *enginev1.BlockInsertArgs) (*enginev1.BlockInsertResult, error) {
	b := c.d.Block(a.Name)
	if b == nil {
		return nil, failed("the document has no block %q", a.Name)
	}
	g := drawing.Insert{Name: b.Name, P: geom.Pt(a.X, a.Y), Scale: 1, Mirror: a.GetMirrored(), Def: b}
	if a.Scale != nil {
		g.Scale = *a.Scale
	}
	if a.Rotation != nil {
		g.Rotation = geom.NormDeg(*a.Rotation)
	}
	attribs, err := insertAttribs(g, a.Attributes)
	if err != nil {
		return nil, err
	}
	g.Attribs = attribs
	e, err := c.Create("", style{a.Layer, a.Color, nil}, g)
	if err != nil {
		return nil, err
	}
	return &enginev1.BlockInsertResult{Handle: handleResult(e)}, nil
}

// blockExplode replaces an insert with its placed entities (a table
// with its lines and texts, as entity_explode does). As in DXF,
// an entity on layer 0 takes the insert's layer, and colour and linetype
// ByBlock take the insert's.
func blockExplode(c *call, a *enginev1.BlockExplodeArgs) (*enginev1.BlockExplodeResult, error) {
	e, err := c.Entity("/handle", a.Handle)
	if err != nil {
		return nil, err
	}
	if _, ok := e.Geom.(drawing.Table); ok {
		// A table is drawn like an insert of its block: its lines and
		// texts, as entity_explode gives them.
		r, err := entityExplode(c, &enginev1.EntityExplodeArgs{Handle: a.Handle})
		if err != nil {
			return nil, err
		}
		return &enginev1.BlockExplodeResult{Handle: r.Handle, Handles: r.Handles, Count: r.Count}, nil
	}
	in, ok := e.Geom.(drawing.Insert)
	if !ok {
		return nil, failed("entity %s is a %s, not an insert", drawing.FormatHandle(e.Handle), e.Geom.Kind().WireName())
	}
	placed, err := c.budget().PlacedFor(in, e)
	if err != nil {
		return nil, err
	}
	res := &enginev1.BlockExplodeResult{Handle: handleResult(e), Handles: []string{}}
	for _, n := range placed {
		made, err := c.tx.Create(n)
		if err != nil {
			return nil, err
		}
		res.Handles = append(res.Handles, handleResult(made))
	}
	if err := c.tx.Remove(e); err != nil {
		return nil, err
	}
	res.Count = int64(len(res.Handles))
	return res, nil
}

func blockList(c *call, _ *enginev1.BlockListArgs) (*enginev1.BlockListResult, error) {
	res := &enginev1.BlockListResult{Blocks: []*enginev1.BlockInfo{}}
	for _, b := range c.d.Blocks() {
		res.Blocks = append(res.Blocks, &enginev1.BlockInfo{
			Name: b.Name, Base: &enginev1.Point{X: b.Base.X, Y: b.Base.Y},
			EntityCount: int64(len(b.Entities)), InsertCount: int64(c.d.BlockUses(b.Name)),
		})
	}
	return res, nil
}

// blockDelete deletes a block definition that no insert uses.
func blockDelete(c *call, a *enginev1.BlockDeleteArgs) (*enginev1.BlockDeleteResult, error) {
	if err := c.tx.RemoveBlock(a.Name); err != nil {
		return nil, err
	}
	return &enginev1.BlockDeleteResult{Name: a.Name}, nil
}
