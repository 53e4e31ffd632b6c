package engine

import (
	"fmt"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/plot"
)

// viewRender draws a view of the document as a PNG with the renderer of
// document_export's PNG (see plot.View): a layout or model space, a
// window or the extents, some layers or those shown, some entities
// highlighted. A named layer must exist; a highlighted handle must name
// an entity. Work is bounded by the call's expansion budget and context.
func viewRender(c *call, a *enginev1.ViewRenderArgs) (*enginev1.ViewRenderResult, error) {
	o := plot.ViewOptions{Layout: a.GetLayout(), Width: int(a.GetWidth()), Height: int(a.GetHeight())}
	if w := a.Window; w != nil {
		o.Window = windowBox(w.X1, w.Y1, w.X2, w.Y2)
	}
	if len(a.Layers) > 0 {
		var bad int
		if o.Layers, bad = c.layerSet(a.Layers); bad >= 0 {
			return nil, invalidArgs(fmt.Sprintf("/layers/%d", bad), reasonInvalid, "the document has no layer %q", a.Layers[bad])
		}
	}
	o.Highlight = make(map[uint64]bool, len(a.Highlight))
	for i, h := range a.Highlight {
		e, err := c.Entity(fmt.Sprintf("/highlight/%d", i), h)
		if err != nil {
			return nil, err
		}
		o.Highlight[e.Handle] = true
	}
	pic, err := plot.View(c.d.Document, o, c.budget())
	if err != nil {
		if te, ok := asToolError(err); ok {
			return nil, te
		}
		return nil, failed("%v", err)
	}
	win := pic.Window
	return &enginev1.ViewRenderResult{
		MediaType:     mediaPNG,
		Data:          pic.PNG,
		Width:         int32(pic.Width),
		Height:        int32(pic.Height),
		Window:        &enginev1.ViewWindow{X1: win.Min.X, Y1: win.Min.Y, X2: win.Max.X, Y2: win.Max.Y},
		UnitsPerPixel: pic.UnitsPerPixel,
		Entities:      int64(pic.Entities),
		Highlighted:   int64(pic.Highlighted),
		Clamped:       pic.Clamped,
	}, nil
}
