package engine

import (
	"fmt"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/dxf"
	"github.com/cadbridge/cadbridge/services/cadengine/svg"
)

// Media types of the export formats.
const (
	mediaDXF = "image/vnd.dxf"
	mediaSVG = "image/svg+xml"
)

// export renders d; the caller holds d.mu.
func export(d *drawing.Document, f enginev1.ExportFormat) (content, media string, err error) {
	switch f {
	case enginev1.ExportFormat_EXPORT_FORMAT_DXF:
		return dxf.Write(d), mediaDXF, nil
	case enginev1.ExportFormat_EXPORT_FORMAT_SVG:
		return svg.Write(d), mediaSVG, nil
	}
	return "", "", fmt.Errorf("%w: export format must be dxf or svg", ErrInvalid)
}

func documentExport(c *call, a *enginev1.DocumentExportArgs) (*enginev1.DocumentExportResult, error) {
	content, media, err := export(c.d.Document, a.Format)
	if err != nil {
		return nil, invalidArgs("/format", reasonInvalid, "export format must be dxf or svg")
	}
	return &enginev1.DocumentExportResult{Format: a.Format, MediaType: media, Content: content}, nil
}
