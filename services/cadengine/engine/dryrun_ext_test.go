package engine_test

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
)

// dryRunCases has, for every tool of the catalog, arguments that are valid
// on the fixture of TestDryRunMatchesRealCall. A tool without a case fails
// the test.
func dryRunCases(h map[string]string) map[string]obj {
	return map[string]obj{
		enginev1.ToolDocumentCreate:           {"name": "x"},
		enginev1.ToolDocumentInfo:             {},
		enginev1.ToolDocumentExport:           {"format": "svg"},
		enginev1.ToolDocumentImport:           {"format": "dxf", "content": "0\nEOF\n"},
		enginev1.ToolEntityCreatePoint:        {"x": 1, "y": 2},
		enginev1.ToolEntityCreateLine:         {"x1": 0, "y1": 0, "x2": 1, "y2": 1},
		enginev1.ToolEntityCreateCircle:       {"cx": 0, "cy": 0, "radius": 1},
		enginev1.ToolEntityCreateArc:          {"cx": 0, "cy": 0, "radius": 1, "start_angle": 0, "end_angle": 90},
		enginev1.ToolEntityCreatePolyline:     {"points": []any{obj{"x": 0, "y": 0}, obj{"x": 1, "y": 0, "bulge": 0.5}, obj{"x": 1, "y": 1}}},
		enginev1.ToolEntityCreateRectangle:    {"x1": 0, "y1": 0, "x2": 2, "y2": 1},
		enginev1.ToolEntityCreateText:         {"text": "hi", "x": 0, "y": 0},
		enginev1.ToolEntityCreateEllipse:      {"cx": 0, "cy": 0, "major_x": 2, "major_y": 0, "ratio": 0.5},
		enginev1.ToolEntityBatchCreate:        {"entities": []any{obj{"type": "point", "x": 0, "y": 0}}},
		enginev1.ToolEntityGet:                {"handle": h["line"]},
		enginev1.ToolEntityList:               {"types": []any{"line"}},
		enginev1.ToolSelectionWindow:          {"x1": -10, "y1": -10, "x2": 10, "y2": 10},
		enginev1.ToolAnalysisBoundingBox:      {},
		enginev1.ToolAnalysisMeasureDistance:  {"x1": 0, "y1": 0, "x2": 3, "y2": 4},
		enginev1.ToolAnalysisMeasureEntity:    {"handle": h["circle"]},
		enginev1.ToolEntityMove:               {"handle": h["line"], "dx": 1, "dy": 0},
		enginev1.ToolEntityCopy:               {"handle": h["line"], "dx": 1, "dy": 0},
		enginev1.ToolEntityRotate:             {"handle": h["line"], "base_x": 0, "base_y": 0, "angle": 90},
		enginev1.ToolEntityScale:              {"handle": h["circle"], "base_x": 0, "base_y": 0, "factor": 2},
		enginev1.ToolEntityMirror:             {"handle": h["line"], "x1": 0, "y1": 0, "x2": 0, "y2": 1},
		enginev1.ToolEntityOffset:             {"handle": h["circle"], "distance": 1},
		enginev1.ToolEntityEditGeometry:       {"handle": h["circle"], "radius": 3},
		enginev1.ToolEntitySetProperties:      {"handle": h["line"], "color": 1},
		enginev1.ToolEntityDelete:             {"handle": h["point"]},
		enginev1.ToolEntityDeleteMany:         {"handles": []any{h["point"]}},
		enginev1.ToolPointFromSnap:            {"handle": h["line"], "snap": "mid"},
		enginev1.ToolPointIntersection:        {"handle1": h["line"], "handle2": h["circle"]},
		enginev1.ToolPointTangent:             {"handle": h["circle"], "from_x": 5, "from_y": 0},
		enginev1.ToolLayerCreate:              {"name": "NEW"},
		enginev1.ToolLayerList:                {},
		enginev1.ToolLayerModify:              {"name": "L1", "color": 3},
		enginev1.ToolLayerSetCurrent:          {"name": "L1"},
		enginev1.ToolLayerLock:                {"name": "L1"},
		enginev1.ToolLayerUnlock:              {"name": "L1"},
		enginev1.ToolLayerDelete:              {"name": "L1"},
		enginev1.ToolTransactionBegin:         {},
		enginev1.ToolTransactionCommit:        {},
		enginev1.ToolTransactionRollback:      {},
		enginev1.ToolPointPick:                {"prompt": "where?"},
		enginev1.ToolEntityPick:               {"prompt": "which?"},
		enginev1.ToolSystemStatus:             {},
		enginev1.ToolSystemCapabilities:       {},
		enginev1.ToolEntityCreateMtext:        {"text": "two\nlines", "x": 0, "y": 0, "width": 20},
		enginev1.ToolDimensionCreateAligned:   {"p1": obj{"handle": h["line"]}, "p2": obj{"handle": h["line"], "x": 4, "y": 0}},
		enginev1.ToolDimensionCreateLinear:    {"p1": obj{"x": 0, "y": 0}, "p2": obj{"x": 3, "y": 4}, "angle": 90},
		enginev1.ToolDimensionCreateRadial:    {"handle": h["circle"]},
		enginev1.ToolDimensionCreateDiametric: {"handle": h["circle"], "angle": 30},
		enginev1.ToolDimensionCreateAngular:   {"center": obj{"x": 0, "y": 0}, "p1": obj{"x": 1, "y": 0}, "p2": obj{"x": 0, "y": 1}},
		enginev1.ToolDimensionStyleList:       {},
		enginev1.ToolHatchCreate:              {"boundaries": []any{h["circle"]}, "pattern": "ANSI31"},
		enginev1.ToolBlockDefine:              {"name": "B", "handles": []any{h["circle"]}},
		enginev1.ToolBlockInsert:              {"name": "B", "x": 1, "y": 1},
		enginev1.ToolBlockExplode:             {"handle": h["line"]},
		enginev1.ToolBlockList:                {},
		enginev1.ToolBlockDelete:              {"name": "B"},
		// view (issue #38)
		enginev1.ToolViewRender: {"window": obj{"x1": -5, "y1": -5, "x2": 5, "y2": 5}, "width": 64, "highlight": []any{h["line"]}},

		// create and arrange: the drafting toolset (issue #37, DESIGN §11)
		enginev1.ToolEntityCreateSpline:     {"fit_points": []any{obj{"x": 0, "y": 0}, obj{"x": 2, "y": 1}, obj{"x": 4, "y": 0}}},
		enginev1.ToolEntityCreateLeader:     {"points": []any{obj{"x": 0, "y": 0}, obj{"x": 5, "y": 5}}, "text": "note"},
		enginev1.ToolEntityCreateXline:      {"x": 0, "y": 0, "angle": 45},
		enginev1.ToolEntityCreateRay:        {"x": 0, "y": 0, "angle": 90},
		enginev1.ToolEntityCreateRevcloud:   {"points": []any{obj{"x": 0, "y": 0}, obj{"x": 10, "y": 0}, obj{"x": 10, "y": 5}}, "arc_length": 2},
		enginev1.ToolEntityCreateWipeout:    {"points": []any{obj{"x": 0, "y": 0}, obj{"x": 10, "y": 0}, obj{"x": 10, "y": 5}}},
		enginev1.ToolEntityCreateSolid:      {"points": []any{obj{"x": 0, "y": 0}, obj{"x": 10, "y": 0}, obj{"x": 10, "y": 5}}},
		enginev1.ToolEntityCreateTable:      {"x": 0, "y": 0, "rows": 2, "columns": 2, "row_height": 5, "column_width": 20, "cells": []any{obj{"row": 0, "column": 1, "text": "QTY"}}},
		enginev1.ToolEntityExplode:          {"handle": h["line"]},
		enginev1.ToolEntityStretch:          {"x1": 3, "y1": -1, "x2": 5, "y2": 1, "dx": 2, "dy": 0},
		enginev1.ToolEntityArrayRectangular: {"handles": []any{h["circle"]}, "rows": 2, "columns": 3, "row_spacing": 10, "column_spacing": 10},
		enginev1.ToolEntityArrayPolar:       {"handles": []any{h["point"]}, "cx": 0, "cy": 0, "count": 6},
		enginev1.ToolEntityBatchModify:      {"handles": []any{h["line"], h["circle"]}, "dx": 1, "layer": "L1"},

		// text, select & measure, block attributes (issue #37, DESIGN §11)
		enginev1.ToolTextEdit:            {"handle": h["line"], "text": "x"},
		enginev1.ToolTextFindReplace:     {"find": "M8", "replace": "M10"},
		enginev1.ToolSelectionFilter:     {"types": []any{"circle"}, "min_area": 1},
		enginev1.ToolSelectionPolygon:    {"points": []any{obj{"x": -5, "y": -5}, obj{"x": 5, "y": -5}, obj{"x": 0, "y": 5}}, "mode": "crossing"},
		enginev1.ToolAnalysisMeasureArea: {"handles": []any{h["circle"]}},
		enginev1.ToolAnalysisEntityStats: {},
		enginev1.ToolAnalysisLayerStats:  {},
		enginev1.ToolBlockAttributesGet:  {"handle": h["line"]},
		enginev1.ToolBlockAttributesSet:  {"handle": h["line"], "values": obj{"PARTNO": "M10"}},
		enginev1.ToolBlockReferences:     {"name": "B"},

		// modify: the drafting toolset's corners and cuts (issue #37, DESIGN §11)
		enginev1.ToolEntityFillet:  {"handle1": h["line"], "handle2": h["circle"], "radius": 0.5, "pick1_x": 3, "pick1_y": 0},
		enginev1.ToolEntityChamfer: {"handle1": h["line"], "handle2": h["line"], "distance1": 1, "all": true},
		enginev1.ToolEntityTrim:    {"handle": h["line"], "pick_x": 3.5, "pick_y": 0},
		enginev1.ToolEntityExtend:  {"handle": h["line"], "pick_x": -1, "pick_y": 0, "boundaries": []any{h["circle"]}},
		enginev1.ToolEntityBreak:   {"handle": h["line"], "x1": 1, "y1": 0},
		enginev1.ToolEntityJoin:    {"handles": []any{h["line"], h["circle"]}},
		// document: undo, redo, purge, audit, boundary (issue #37, DESIGN §11)
		enginev1.ToolDocumentUndo:  {},
		enginev1.ToolDocumentRedo:  {"steps": 1},
		enginev1.ToolDocumentPurge: {"what": []any{"layers"}},
		enginev1.ToolDocumentAudit: {"fix": true},
		enginev1.ToolBoundaryTrace: {"x": 0, "y": 1},
		// catalog (issue #38)
		enginev1.ToolToolSearch:   {"query": "fillet"},
		enginev1.ToolToolDescribe: {"names": []any{enginev1.ToolEntityCreateLine}},
		// annotate: hatch edits, dimensions at once
		enginev1.ToolHatchEdit:        {"handle": h["circle"], "scale": 2},
		enginev1.ToolHatchAddBoundary: {"handle": h["circle"], "boundaries": []any{h["circle"]}},
		enginev1.ToolDimensionAuto:    {"handles": []any{h["line"], h["circle"]}},
		// parts (issue 39, DESIGN §12)
		enginev1.ToolPartSpurGear: {"cx": 0, "cy": 0, "module": 2, "teeth": 20, "bore": 10},
		enginev1.ToolPartKeyway:   {"cx": 0, "cy": 0, "bore": 20, "kind": "shaft"},
		enginev1.ToolGdtFrame:     {"x": 0, "y": 0, "symbol": "position", "tolerance": "0.1", "diameter": true, "datums": []any{"A", "B"}},
		// critique (issue 39, DESIGN §12)
		enginev1.ToolDrawingCritique: {"focus": []any{"geometry"}, "tolerance": 0.5},
		// standards (issue #39)
		enginev1.ToolTemplateList:        {},
		enginev1.ToolTemplateApplyLayers: {"template": "iso"},
		enginev1.ToolLinetypeList:        {},
		enginev1.ToolLinetypeLoad:        {"name": "center2"},
		enginev1.ToolLayerFreeze:         {"name": "L1"},
		enginev1.ToolLayerThaw:           {"name": "L1"},
		enginev1.ToolLayerHide:           {"name": "L1"},
		enginev1.ToolLayerShow:           {"name": "L1"},
		enginev1.ToolLayerIsolate:        {"name": "L1"},
		enginev1.ToolDrawingSettings:     {"units": "in", "precision": 2, "ltscale": 0.5},
		// layout (issue #39, DESIGN §12)
		enginev1.ToolLayoutCreate:      {"name": "S1", "paper": "A3"},
		enginev1.ToolLayoutList:        {},
		enginev1.ToolLayoutRename:      {"name": "S1", "new_name": "S2"},
		enginev1.ToolLayoutCopy:        {"name": "S1", "new_name": "S2"},
		enginev1.ToolLayoutDelete:      {"name": "S1"},
		enginev1.ToolViewportCreate:    {"layout": "S1", "x": 10, "y": 10, "width": 100, "height": 80, "center_x": 0, "center_y": 0, "scale": "1:50"},
		enginev1.ToolViewportList:      {"layout": "S1"},
		enginev1.ToolViewportSetScale:  {"handle": h["line"], "scale": "1:2"},
		enginev1.ToolViewportLock:      {"handle": h["line"]},
		enginev1.ToolViewportDelete:    {"handle": h["line"]},
		enginev1.ToolEntityChangeSpace: {"handles": []any{h["line"]}, "layout": "S1"},
		// constraints (issue #40, DESIGN §14)
		enginev1.ToolConstraintAdd:      {"kind": "horizontal", "refs": []any{obj{"handle": h["line"]}}},
		enginev1.ToolConstraintList:     {},
		enginev1.ToolConstraintDelete:   {"constraint_id": 1},
		enginev1.ToolConstraintSetValue: {"constraint_id": 1, "value": 3},
		enginev1.ToolSketchSolve:        {"dry_run": true},
		// sheets (issue #39)
		enginev1.ToolTitleblockApply: {"layout": "Sheet", "fields": obj{"title": "Plate"}},
		// fills: on a line and a circle, which fail alike in both runs
		enginev1.ToolTextSetBackground: {"handle": h["line"], "color": 2},
		enginev1.ToolHatchSetGradient:  {"handle": h["circle"], "color1": 5, "color2": 2},
	}
}

// TestDryRunMatchesRealCall walks every tool, with valid arguments and with
// an unknown argument: a dry run gives the same validation as the real
// batch, and changes nothing (revision, content hash, journal).
func TestDryRunMatchesRealCall(t *testing.T) {
	cases := dryRunCases(nil)
	for _, tool := range enginev1.Tools {
		if _, ok := cases[tool.Name]; !ok {
			t.Errorf("tool %s has no dry-run case", tool.Name)
		}
	}
	ctx := context.Background()
	for _, tool := range enginev1.Tools {
		for _, variant := range []string{"valid", "unknown argument"} {
			t.Run(tool.Name+"/"+variant, func(t *testing.T) {
				f := newFixture(t)
				f.ok(enginev1.ToolLayerCreate, obj{"name": "L1"})
				h := map[string]string{
					"line":   f.handle(enginev1.ToolEntityCreateLine, obj{"x1": -1, "y1": 0, "x2": 4, "y2": 0}),
					"circle": f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 2}),
					"point":  f.handle(enginev1.ToolEntityCreatePoint, obj{"x": 7, "y": 7}),
				}
				args := dryRunCases(h)[tool.Name]
				if variant != "valid" {
					args = obj{"bogus": true}
					for k, v := range dryRunCases(h)[tool.Name] {
						args[k] = v
					}
				}
				before := f.info()
				opID := "op-dry-" + tool.Name
				req := f.batchReq(st(tool.Name, args))
				req.OperationId = &opID
				req.DryRun = proto.Bool(true)
				dry := f.batch(req)
				after := f.info()
				if after.Revision != before.Revision || after.ContentHash != before.ContentHash || after.EntityCount != before.EntityCount {
					t.Errorf("dry run changed the document: %v → %v", before, after)
				}
				if _, err := f.e.GetOperation(ctx, "tester", opID); !errors.Is(err, engine.ErrOperationNotFound) {
					t.Errorf("dry run journaled operation %s: GetOperation = %v, want not found", opID, err)
				}

				req.DryRun = nil
				real := f.batch(req)
				dryRefused := dry.Status == enginev1.BatchStatus_BATCH_STATUS_REFUSED
				realRefused := real.Status == enginev1.BatchStatus_BATCH_STATUS_REFUSED
				if dryRefused != realRefused {
					t.Fatalf("dry run status %v, real call status %v: validation differs", dry.Status, real.Status)
				}
				if variant != "valid" && !dryRefused {
					t.Errorf("an unknown argument passed validation: %v", dry.Status)
				}
				if dryRefused {
					if len(dry.Errors) != len(real.Errors) {
						t.Fatalf("dry run errors %v, real errors %v", dry.Errors, real.Errors)
					}
					for i := range dry.Errors {
						d, r := dry.Errors[i], real.Errors[i]
						if d.GetKind() != r.GetKind() || d.GetPath() != r.GetPath() {
							t.Errorf("error %d: dry run %v at %q, real %v at %q", i, d.GetKind(), d.GetPath(), r.GetKind(), r.GetPath())
						}
					}
					return
				}
				if dry.Status != enginev1.BatchStatus_BATCH_STATUS_VALIDATED {
					t.Errorf("dry run status = %v, want validated", dry.Status)
				}
			})
		}
	}
}
