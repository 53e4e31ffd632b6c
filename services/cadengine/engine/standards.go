package engine

import (
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
)

// Standards (DESIGN §12): layer templates, linetypes, layer visibility
// and the drawing's settings. Like the layer tools, each writes through
// the call's undo log, so document_undo takes it back.

// ---- templates ----

func templateList(c *call, _ *enginev1.TemplateListArgs) (*enginev1.TemplateListResult, error) {
	res := &enginev1.TemplateListResult{}
	for _, t := range drawing.Templates {
		wire := &enginev1.Template{Name: t.Name, Description: t.Description}
		for i := range t.Layers {
			wire.Layers = append(wire.Layers, t.Layers[i].Proto(0))
		}
		res.Templates = append(res.Templates, wire)
	}
	return res, nil
}

// templateApplyLayers creates the template's layers the document lacks
// and gives those it has (ignoring case) the template's colour, linetype
// and lineweight, keeping their names and their on, frozen and locked
// states; it removes nothing.
func templateApplyLayers(c *call, a *enginev1.TemplateApplyLayersArgs) (*enginev1.TemplateApplyLayersResult, error) {
	t, ok := drawing.TemplateNamed(a.Template)
	if !ok {
		names := make([]string, len(drawing.Templates))
		for i, t := range drawing.Templates {
			names[i] = t.Name
		}
		return nil, invalidArgs("/template", reasonInvalid, "no template %q (there are %s)", a.Template, strings.Join(names, ", "))
	}
	res := &enginev1.TemplateApplyLayersResult{Template: t.Name}
	for _, want := range t.Layers {
		old := c.d.LayerFold(want.Name)
		if old == nil {
			l := want
			c.tx.PutLayer(&l)
			res.Created = append(res.Created, l.Name)
			continue
		}
		if old.Color == want.Color && old.Linetype == want.Linetype && old.Lineweight == want.Lineweight {
			res.Unchanged = append(res.Unchanged, old.Name)
			continue
		}
		l := *old
		l.Color, l.Linetype, l.Lineweight = want.Color, want.Linetype, want.Lineweight
		c.tx.PutLayer(&l)
		res.Updated = append(res.Updated, l.Name)
	}
	return res, nil
}

// ---- linetypes ----

// linetypeList lists the linetypes the document's table defines, then
// the standard ones it does not, with their patterns as the document
// draws them (before the linetype scale).
func linetypeList(c *call, _ *enginev1.LinetypeListArgs) (*enginev1.LinetypeListResult, error) {
	res := &enginev1.LinetypeListResult{Scale: c.d.LinetypeScale()}
	loaded := map[string]bool{}
	if t := c.d.Linetypes(); t != nil {
		for _, l := range t.Defined {
			loaded[strings.ToUpper(l.Name)] = true
			_, std := drawing.CanonicalLinetype(l.Name, false)
			res.Linetypes = append(res.Linetypes, linetypeInfo(l, true, std))
		}
	}
	for _, s := range drawing.StandardLinetypes {
		if loaded[strings.ToUpper(s.Name)] {
			continue
		}
		l, _ := c.d.Linetype(s.Name)
		res.Linetypes = append(res.Linetypes, linetypeInfo(l, false, true))
	}
	return res, nil
}

func linetypeInfo(l drawing.Linetype, loaded, standard bool) *enginev1.LinetypeInfo {
	return &enginev1.LinetypeInfo{Name: l.Name, Description: l.Description, Pattern: l.Pattern, Loaded: loaded, Standard: standard}
}

// linetypeLoad defines a standard linetype in the document's table, with
// the pattern the document draws it with (acadiso.lin's in a metric
// drawing, acad.lin's in inches or feet), so that exports write it. A
// linetype the table defines already (a file's own of that name, or one
// loaded before) is left as it is; Continuous is built in.
func linetypeLoad(c *call, a *enginev1.LinetypeLoadArgs) (*enginev1.LinetypeLoadResult, error) {
	name, ok := drawing.CanonicalLinetype(a.Name, false)
	if !ok { // the contract's domain checks it first
		return nil, invalidArgs("/name", reasonInvalid, "%q is not a standard linetype", a.Name)
	}
	l, _ := c.d.Linetype(name)
	t := c.d.Linetypes()
	if name == "Continuous" || t != nil && t.Defines(name) {
		return &enginev1.LinetypeLoadResult{Linetype: linetypeInfo(l, name != "Continuous", true)}, nil
	}
	if t == nil {
		t = drawing.NewLinetypes(1, nil)
	}
	c.tx.SetLinetypes(t.WithLinetype(l))
	return &enginev1.LinetypeLoadResult{Linetype: linetypeInfo(l, true, true), Loaded: true}, nil
}

// ---- layer visibility ----

// setLayerState changes a layer's on and frozen states through set,
// writing the layer only when that changes it (as setLocked does).
func (c *call) setLayerState(name string, set func(l *drawing.Layer) error) error {
	old, err := c.layerNamed(name)
	if err != nil {
		return err
	}
	l := *old
	if err := set(&l); err != nil {
		return err
	}
	if l != *old {
		c.tx.PutLayer(&l)
	}
	return nil
}

// layerFreeze freezes a layer; the current layer is refused, as
// layer_modify refuses it.
func layerFreeze(c *call, a *enginev1.LayerFreezeArgs) (*enginev1.LayerFreezeResult, error) {
	err := c.setLayerState(a.Name, func(l *drawing.Layer) error {
		if l.Name == c.d.CurrentLayer() {
			return refused("layer %q is the current layer and cannot be frozen: make another layer current first (layer_set_current)", l.Name)
		}
		l.Frozen = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &enginev1.LayerFreezeResult{Name: a.Name}, nil
}

func layerThaw(c *call, a *enginev1.LayerThawArgs) (*enginev1.LayerThawResult, error) {
	if err := c.setLayerState(a.Name, func(l *drawing.Layer) error { l.Frozen = false; return nil }); err != nil {
		return nil, err
	}
	return &enginev1.LayerThawResult{Name: a.Name}, nil
}

func layerHide(c *call, a *enginev1.LayerHideArgs) (*enginev1.LayerHideResult, error) {
	if err := c.setLayerState(a.Name, func(l *drawing.Layer) error { l.On = false; return nil }); err != nil {
		return nil, err
	}
	return &enginev1.LayerHideResult{Name: a.Name}, nil
}

func layerShow(c *call, a *enginev1.LayerShowArgs) (*enginev1.LayerShowResult, error) {
	if err := c.setLayerState(a.Name, func(l *drawing.Layer) error { l.On = true; return nil }); err != nil {
		return nil, err
	}
	return &enginev1.LayerShowResult{Name: a.Name}, nil
}

// layerIsolate turns the layer on (and thaws it) and every other layer
// off, as AutoCAD's LAYISO does by default; frozen layers stay frozen and
// the current layer stays current, even when it is turned off.
func layerIsolate(c *call, a *enginev1.LayerIsolateArgs) (*enginev1.LayerIsolateResult, error) {
	keep, err := c.layerNamed(a.Name)
	if err != nil {
		return nil, err
	}
	if err := c.setLayerState(keep.Name, func(l *drawing.Layer) error { l.On, l.Frozen = true, false; return nil }); err != nil {
		return nil, err
	}
	res := &enginev1.LayerIsolateResult{Name: keep.Name}
	for _, l := range c.d.SortedLayers() {
		if l.Name == keep.Name || !l.On {
			continue
		}
		off := *l
		off.On = false
		c.tx.PutLayer(&off)
		res.Hidden = append(res.Hidden, l.Name)
	}
	return res, nil
}

// ---- settings ----

// drawingSettings changes the settings given and answers them all. The
// linetype scale is the linetype table's (see drawing.Linetypes); the
// rest are the document's settings (see drawing.Settings). Changing the
// units relabels the drawing, as AutoCAD's UNITS does: no coordinate
// changes.
func drawingSettings(c *call, a *enginev1.DrawingSettingsArgs) (*enginev1.DrawingSettingsResult, error) {
	s := c.d.Settings()
	next := s
	if a.Units != nil {
		if *a.Units == enginev1.Units_UNITS_UNSPECIFIED {
			return nil, invalidArgs("/units", reasonInvalid, "give a unit: mm, cm, m, in or ft")
		}
		next.Units = *a.Units
	}
	if a.Precision != nil {
		next.Precision = *a.Precision
	}
	if a.Dimscale != nil {
		next.DimScale = *a.Dimscale
	}
	if a.TextHeight != nil {
		next.TextHeight = *a.TextHeight
	}
	if !next.Valid() { // the contract's bounds check each first
		return nil, invalidArgs("", reasonInvalid, "the settings are out of range")
	}
	if next != s {
		c.tx.SetSettings(&next)
	}
	if a.Ltscale != nil && *a.Ltscale != c.d.LinetypeScale() {
		t := c.d.Linetypes()
		if t == nil {
			t = drawing.NewLinetypes(1, nil)
		}
		c.tx.SetLinetypes(t.WithScale(*a.Ltscale))
	}
	return settingsResult(c.d.Document), nil
}

func settingsResult(d *drawing.Document) *enginev1.DrawingSettingsResult {
	s := d.Settings()
	return &enginev1.DrawingSettingsResult{Units: s.Units, Precision: s.Precision, Dimscale: s.DimScale, TextHeight: s.TextHeight, Ltscale: d.LinetypeScale()}
}
