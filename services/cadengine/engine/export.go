package engine

import (
	"errors"
	"fmt"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/dxf"
	"github.com/cadbridge/cadbridge/services/cadengine/plot"
	"github.com/cadbridge/cadbridge/services/cadengine/svg"
)

// Media types of the export formats.
const (
	mediaDXF = "image/vnd.dxf"
	mediaSVG = "image/svg+xml"
	mediaPNG = "image/png"
	mediaPDF = "application/pdf"
)

// exported is a rendered document: text (DXF, SVG) or bytes (PNG, PDF).
type exported struct {
	content string
	data    []byte
	media   string
}

// export renders d as f with opts (nil: the defaults: DXF 2018; SVG,
// PNG and PDF at the drawing's own size), expanding inserts and patterns
// within budget; the caller holds d.mu. PNG and PDF go through one
// renderer (see plot), so they agree. DXF writes blocks, not what they
// expand to, and needs no budget.
//
// A layout (not "") is plotted 1:1 on its paper instead of model space
// (see drawing.Document.PlotLayout); a DXF holds every layout, and is
// written whole.
func export(budget *drawing.Budget, d *drawing.Document, f enginev1.ExportFormat, opts *enginev1.ExportOptions, layout string) (exported, error) {
	if layout != "" {
		return exportLayout(budget, d, f, opts, layout)
	}
	switch f {
	case enginev1.ExportFormat_EXPORT_FORMAT_DXF:
		if opts.GetDxfVersion() == enginev1.DxfVersion_DXF_VERSION_R12 {
			return exported{content: dxf.Write(d), media: mediaDXF}, nil
		}
		return exported{content: dxf.Write2018(d), media: mediaDXF}, nil
	case enginev1.ExportFormat_EXPORT_FORMAT_SVG:
		s, err := svg.WriteWith(d, opts, budget)
		if err != nil {
			return exported{}, fmt.Errorf("draw svg: %w", err)
		}
		return exported{content: s, media: mediaSVG}, nil
	case enginev1.ExportFormat_EXPORT_FORMAT_PNG:
		b, err := plot.PNG(d, opts, budget)
		if err != nil {
			return exported{}, fmt.Errorf("render png: %w", err)
		}
		return exported{data: b, media: mediaPNG}, nil
	case enginev1.ExportFormat_EXPORT_FORMAT_PDF:
		b, err := plot.PDF(d, opts, budget)
		if err != nil {
			return exported{}, fmt.Errorf("render pdf: %w", err)
		}
		return exported{data: b, media: mediaPDF}, nil
	}
	return exported{}, fmt.Errorf("%w: export format must be dxf, svg, png or pdf", ErrInvalid)
}

// exportLayout plots a layout as an SVG, a PNG (plot.LayoutDPI by
// default) or a PDF the size of its paper.
func exportLayout(budget *drawing.Budget, d *drawing.Document, f enginev1.ExportFormat, opts *enginev1.ExportOptions, layout string) (exported, error) {
	switch f {
	case enginev1.ExportFormat_EXPORT_FORMAT_SVG:
		s, err := svg.WriteLayout(d, layout, budget)
		if err != nil {
			return exported{}, fmt.Errorf("plot layout as svg: %w", err)
		}
		return exported{content: s, media: mediaSVG}, nil
	case enginev1.ExportFormat_EXPORT_FORMAT_PNG:
		b, err := plot.LayoutPNG(d, layout, opts, budget)
		if err != nil {
			return exported{}, fmt.Errorf("plot layout as png: %w", err)
		}
		return exported{data: b, media: mediaPNG}, nil
	case enginev1.ExportFormat_EXPORT_FORMAT_PDF:
		b, err := plot.LayoutPDF(d, layout, budget)
		if err != nil {
			return exported{}, fmt.Errorf("plot layout as pdf: %w", err)
		}
		return exported{data: b, media: mediaPDF}, nil
	}
	return exported{}, fmt.Errorf("%w: a layout is plotted as svg, png or pdf", ErrInvalid)
}

func documentExport(c *call, a *enginev1.DocumentExportArgs) (*enginev1.DocumentExportResult, error) {
	layout := "" // model space, also when the layout argument is "Model"
	if a.Layout != nil {
		n, err := c.space("/layout", *a.Layout)
		if err != nil {
			return nil, err
		}
		if n != "" {
			l, err := c.sheet("/layout", n, "a plot")
			if err != nil {
				return nil, err
			}
			layout = l.Name
		}
	}
	if layout != "" {
		switch {
		case a.Format == enginev1.ExportFormat_EXPORT_FORMAT_DXF:
			return nil, invalidArgs("/layout", reasonInvalid, "a DXF file holds model space and every layout: export dxf without layout")
		case a.Options != nil && a.Options.Paper != nil:
			return nil, invalidArgs("/options/paper", reasonInvalid, "a layout is plotted on its own paper: give paper or layout, not both")
		case a.Options != nil && a.Options.Scale != nil:
			return nil, invalidArgs("/options/scale", reasonInvalid, "a layout is plotted 1:1, each viewport at its scale: give scale or layout, not both")
		}
	}
	x, err := export(c.budget(), c.d.Document, a.Format, a.Options, layout)
	if err != nil {
		switch {
		case a.Format == enginev1.ExportFormat_EXPORT_FORMAT_UNSPECIFIED:
			return nil, invalidArgs("/format", reasonInvalid, "export format must be dxf, svg, png or pdf")
		case errors.Is(err, plot.ErrTooManyPixels):
			return nil, invalidArgs("/options", reasonOutOfRange, "%v", err)
		}
		if te, ok := asToolError(err); ok {
			return nil, te
		}
		return nil, failed("%v", err)
	}
	return &enginev1.DocumentExportResult{Format: a.Format, MediaType: x.media, Content: x.content, Data: x.data}, nil
}
