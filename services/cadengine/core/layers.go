package core

import (
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// layerNamed finds a layer by its exact name; a missing layer fails,
// naming a case variant when there is one.
func (c *call) layerNamed(name string) (*layer, error) {
	if l := c.d.layer(name); l != nil {
		return l, nil
	}
	if l := c.d.layerFold(name); l != nil {
		return nil, failed("the document has no layer %q (there is %q)", name, l.name)
	}
	return nil, failed("the document has no layer %q", name)
}

// layerCreate creates a layer (colour 7, Continuous, default lineweight
// unless given). Layer names are unique ignoring case, as in DXF; a taken
// name is refused.
func layerCreate(c *call, a *enginev1.LayerCreateArgs) (*enginev1.LayerCreateResult, error) {
	if err := checkLayerName(a.Name); err != nil {
		return nil, invalidArgs("/name", reasonInvalid, "%v", err)
	}
	if l := c.d.layerFold(a.Name); l != nil {
		return nil, refused("layer %q already exists", l.name)
	}
	l := &layer{name: a.Name, color: 7, linetype: "Continuous", lineweight: -3, on: true}
	if a.Color != nil {
		l.color = *a.Color
	}
	if err := styleLayer(l, a.Linetype, a.Lineweight); err != nil {
		return nil, err
	}
	c.tx.putLayer(l)
	return &enginev1.LayerCreateResult{Name: l.name}, nil
}

func layerList(c *call, _ *enginev1.LayerListArgs) (*enginev1.LayerListResult, error) {
	return &enginev1.LayerListResult{Layers: c.d.layerProtos(), CurrentLayer: c.d.currentLayer()}, nil
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
		l.color = *a.Color
	}
	if err := styleLayer(&l, a.Linetype, a.Lineweight); err != nil {
		return nil, err
	}
	if a.On != nil {
		l.on = *a.On
	}
	if a.Frozen != nil {
		if *a.Frozen && l.name == c.d.currentLayer() {
			return nil, refused("layer %q is the current layer and cannot be frozen", l.name)
		}
		l.frozen = *a.Frozen
	}
	c.tx.putLayer(&l)
	return &enginev1.LayerModifyResult{Name: l.name}, nil
}

// layerSetCurrent makes a layer current; a frozen layer is refused.
func layerSetCurrent(c *call, a *enginev1.LayerSetCurrentArgs) (*enginev1.LayerSetCurrentResult, error) {
	l, err := c.layerNamed(a.Name)
	if err != nil {
		return nil, err
	}
	if l.frozen {
		return nil, refused("layer %q is frozen and cannot be made current", l.name)
	}
	if c.d.currentLayer() != l.name {
		c.tx.setCurrent(l.name)
	}
	return &enginev1.LayerSetCurrentResult{Name: l.name}, nil
}

func (c *call) setLocked(name string, locked bool) error {
	old, err := c.layerNamed(name)
	if err != nil {
		return err
	}
	if old.locked != locked {
		l := *old
		l.locked = locked
		c.tx.putLayer(&l)
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
// layer and locked layers are refused.
func layerDelete(c *call, a *enginev1.LayerDeleteArgs) (*enginev1.LayerDeleteResult, error) {
	l, err := c.layerNamed(a.Name)
	if err != nil {
		return nil, err
	}
	switch {
	case l.name == "0":
		return nil, refused("layer 0 cannot be deleted")
	case l.name == c.d.currentLayer():
		return nil, refused("layer %q is the current layer and cannot be deleted", l.name)
	case l.locked:
		return nil, refused("layer %q is locked", l.name)
	}
	var victims []*entity
	if c.d.layerEntityCount(l.name) > 0 {
		c.d.each(0, func(e *entity) bool {
			if e.layer == l.name {
				victims = append(victims, e)
			}
			return true
		})
	}
	for _, e := range victims {
		if err := c.tx.remove(e); err != nil {
			return nil, err
		}
	}
	c.tx.removeLayer(l.name)
	return &enginev1.LayerDeleteResult{Name: l.name, DeletedEntities: int64(len(victims))}, nil
}

// styleLayer sets the linetype and lineweight given (nil keeps the current
// ones), refusing a linetype or lineweight DXF does not have.
func styleLayer(l *layer, linetype *string, lineweight *int32) error {
	if linetype != nil {
		lt, ok := canonicalLinetype(*linetype, false)
		if !ok {
			return invalidArgs("/linetype", reasonInvalid, "unknown layer linetype %q", *linetype)
		}
		l.linetype = lt
	}
	if lineweight != nil {
		if !validLineweight(*lineweight) {
			return invalidArgs("/lineweight", reasonInvalid, "%d is not a DXF lineweight", *lineweight)
		}
		l.lineweight = *lineweight
	}
	return nil
}
