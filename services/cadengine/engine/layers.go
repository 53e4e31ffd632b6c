package engine

import (
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
)

// layerNamed finds a layer by its exact name; a missing layer fails,
// naming a case variant when there is one.
func (c *call) layerNamed(name string) (*drawing.Layer, error) {
	if l := c.d.Layer(name); l != nil {
		return l, nil
	}
	if l := c.d.LayerFold(name); l != nil {
		return nil, failed("the document has no layer %q (there is %q)", name, l.Name)
	}
	return nil, failed("the document has no layer %q", name)
}

// layerCreate creates a layer (colour 7, Continuous, default lineweight
// unless given). Layer names are unique ignoring case, as in DXF; a taken
// name is refused.
func layerCreate(c *call, a *enginev1.LayerCreateArgs) (*enginev1.LayerCreateResult, error) {
	if err := drawing.CheckLayerName(a.Name); err != nil {
		return nil, invalidArgs("/name", reasonInvalid, "%v", err)
	}
	if l := c.d.LayerFold(a.Name); l != nil {
		return nil, refused("layer %q already exists", l.Name)
	}
	l := &drawing.Layer{Name: a.Name, Color: 7, Linetype: "Continuous", Lineweight: -3, On: true}
	if a.Color != nil {
		l.Color = *a.Color
	}
	if err := styleLayer(l, a.Linetype, a.Lineweight); err != nil {
		return nil, err
	}
	c.tx.PutLayer(l)
	return &enginev1.LayerCreateResult{Name: l.Name}, nil
}

func layerList(c *call, _ *enginev1.LayerListArgs) (*enginev1.LayerListResult, error) {
	return &enginev1.LayerListResult{Layers: c.d.LayerProtos(), CurrentLayer: c.d.CurrentLayer()}, nil
}

// layerModify changes colour, linetype, lineweight, on or frozen. Freezing
// the current layer is refused. A locked layer can still be modified:
// locking protects its entities, not its properties.
func layerModify(c *call, a *enginev1.LayerModifyArgs) (*enginev1.LayerModifyResult, error) {
	old, err := c.layerNamed(a.Name)
	if err != nil {
		return nil, err
	}
	l := *old
	if a.Color != nil {
		l.Color = *a.Color
	}
	if err := styleLayer(&l, a.Linetype, a.Lineweight); err != nil {
		return nil, err
	}
	if a.On != nil {
		l.On = *a.On
	}
	if a.Frozen != nil {
		if *a.Frozen && l.Name == c.d.CurrentLayer() {
			return nil, refused("layer %q is the current layer and cannot be frozen", l.Name)
		}
		l.Frozen = *a.Frozen
	}
	c.tx.PutLayer(&l)
	return &enginev1.LayerModifyResult{Name: l.Name}, nil
}

// layerSetCurrent makes a layer current; a frozen layer is refused.
func layerSetCurrent(c *call, a *enginev1.LayerSetCurrentArgs) (*enginev1.LayerSetCurrentResult, error) {
	l, err := c.layerNamed(a.Name)
	if err != nil {
		return nil, err
	}
	if l.Frozen {
		return nil, refused("layer %q is frozen and cannot be made current", l.Name)
	}
	if c.d.CurrentLayer() != l.Name {
		c.tx.SetCurrent(l.Name)
	}
	return &enginev1.LayerSetCurrentResult{Name: l.Name}, nil
}

func (c *call) setLocked(name string, locked bool) error {
	old, err := c.layerNamed(name)
	if err != nil {
		return err
	}
	if old.Locked != locked {
		l := *old
		l.Locked = locked
		c.tx.PutLayer(&l)
	}
	return nil
}

func layerLock(c *call, a *enginev1.LayerLockArgs) (*enginev1.LayerLockResult, error) {
	if err := c.setLocked(a.Name, true); err != nil {
		return nil, err
	}
	return &enginev1.LayerLockResult{Name: a.Name}, nil
}

func layerUnlock(c *call, a *enginev1.LayerUnlockArgs) (*enginev1.LayerUnlockResult, error) {
	if err := c.setLocked(a.Name, false); err != nil {
		return nil, err
	}
	return &enginev1.LayerUnlockResult{Name: a.Name}, nil
}

// layerDelete deletes a layer and every entity on it. Layer 0, the current
// layer, locked layers and layers that entities of a block are on are
// refused.
func layerDelete(c *call, a *enginev1.LayerDeleteArgs) (*enginev1.LayerDeleteResult, error) {
	l, err := c.layerNamed(a.Name)
	if err != nil {
		return nil, err
	}
	switch {
	case l.Name == "0":
		return nil, refused("layer 0 cannot be deleted")
	case l.Name == c.d.CurrentLayer():
		return nil, refused("layer %q is the current layer and cannot be deleted", l.Name)
	case l.Locked:
		return nil, refused("layer %q is locked", l.Name)
	}
	if b := c.d.BlockOnLayer(l.Name); b != "" {
		return nil, refused("block %q has entities on layer %q: delete the block first", b, l.Name)
	}
	var victims []*drawing.Entity
	if c.d.LayerEntityCount(l.Name) > 0 {
		c.d.Each(0, func(e *drawing.Entity) bool {
			if e.Layer == l.Name {
				victims = append(victims, e)
			}
			return true
		})
	}
	for _, e := range victims {
		if err := c.tx.Remove(e); err != nil {
			return nil, err
		}
	}
	c.tx.RemoveLayer(l.Name)
	return &enginev1.LayerDeleteResult{Name: l.Name, DeletedEntities: int64(len(victims))}, nil
}

// styleLayer sets the linetype and lineweight given (nil keeps the current
// ones), refusing a linetype or lineweight DXF does not have.
func styleLayer(l *drawing.Layer, linetype *string, lineweight *int32) error {
	if linetype != nil {
		lt, ok := drawing.CanonicalLinetype(*linetype, false)
		if !ok {
			return invalidArgs("/linetype", reasonInvalid, "unknown layer linetype %q", *linetype)
		}
		l.Linetype = lt
	}
	if lineweight != nil {
		if !drawing.ValidLineweight(*lineweight) {
			return invalidArgs("/lineweight", reasonInvalid, "%d is not a DXF lineweight", *lineweight)
		}
		l.Lineweight = *lineweight
	}
	return nil
}
