package engine

import (
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// systemStatus reports the engine. Recent operations are the calling
// principal's only, newest first.
func systemStatus(c *call, _ *enginev1.SystemStatusArgs) (*enginev1.SystemStatusResult, error) {
	return &enginev1.SystemStatusResult{
		Version:          c.e.version,
		Store:            c.e.store.Kind(),
		Epoch:            c.e.epoch,
		Documents:        int64(c.e.DocumentCount()),
		RecentOperations: c.e.recentOperations(c.principal),
	}, nil
}

func systemCapabilities(c *call, _ *enginev1.SystemCapabilitiesArgs) (*enginev1.SystemCapabilitiesResult, error) {
	return &enginev1.SystemCapabilitiesResult{
		EntityTypes: []enginev1.EntityType{
			enginev1.EntityType_ENTITY_TYPE_POINT,
			enginev1.EntityType_ENTITY_TYPE_LINE,
			enginev1.EntityType_ENTITY_TYPE_CIRCLE,
			enginev1.EntityType_ENTITY_TYPE_ARC,
			enginev1.EntityType_ENTITY_TYPE_POLYLINE,
			enginev1.EntityType_ENTITY_TYPE_TEXT,
			enginev1.EntityType_ENTITY_TYPE_ELLIPSE,
			enginev1.EntityType_ENTITY_TYPE_MTEXT,
			enginev1.EntityType_ENTITY_TYPE_DIMENSION,
			enginev1.EntityType_ENTITY_TYPE_HATCH,
			enginev1.EntityType_ENTITY_TYPE_INSERT,
		},
		ExportFormats: []enginev1.ExportFormat{
			enginev1.ExportFormat_EXPORT_FORMAT_DXF,
			enginev1.ExportFormat_EXPORT_FORMAT_SVG,
			enginev1.ExportFormat_EXPORT_FORMAT_PNG,
			enginev1.ExportFormat_EXPORT_FORMAT_PDF,
		},
		Guarantee:     "undo_log",
		MaxBatchSteps: c.e.maxStep,
		Tolerance:     geom.Tolerance,
	}, nil
}
