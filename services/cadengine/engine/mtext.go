package engine

import (
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// createMtext creates multi-line text (see drawing.MText for the layout):
// height 2.5, no wrapping, top-left attachment and single spacing unless
// given.
func createMtext(c *call, a *enginev1.EntityCreateMtextArgs) (*enginev1.EntityCreateMtextResult, error) {
	g := drawing.MText{Text: a.Text, P: geom.Pt(a.X, a.Y), Height: drawing.DefaultTextHeight, Attach: 1, Spacing: 1}
	if a.Height != nil {
		g.Height = *a.Height
	}
	if a.Width != nil {
		g.Width = *a.Width
	}
	if a.Rotation != nil {
		g.Rotation = geom.NormDeg(*a.Rotation)
	}
	if a.Attachment != nil && *a.Attachment > enginev1.TextAttachment_TEXT_ATTACHMENT_BOTTOM_RIGHT {
		return nil, invalidArgs("/attachment", enginev1.ViolationReason_VIOLATION_REASON_INVALID, "multi-line text has no baseline: attach it at a corner, an edge's middle or its centre")
	}
	if a.Attachment != nil && *a.Attachment != enginev1.TextAttachment_TEXT_ATTACHMENT_UNSPECIFIED {
		g.Attach = uint8(*a.Attachment)
	}
	if a.LineSpacing != nil {
		g.Spacing = *a.LineSpacing
	}
	e, err := c.Create("", style{a.Layer, a.Color, a.Linetype}, g)
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityCreateMtextResult{Handle: handleResult(e)}, nil
}
