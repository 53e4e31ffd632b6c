package engine_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

func TestCreateDocumentDefaults(t *testing.T) {
	f := newFixture(t)
	info := f.info()
	if !regexp.MustCompile(`^doc-[0-9a-f]{16}$`).MatchString(info.DocumentId) {
		t.Errorf("document id = %q, want doc-<16 hex>", info.DocumentId)
	}
	if info.Units != enginev1.Units_UNITS_MM || info.Revision != 0 || info.EntityCount != 0 || info.CurrentLayer != "0" {
		t.Errorf("new document = %v, want mm, revision 0, no entities, current layer 0", info)
	}
	if len(info.Layers) != 1 {
		t.Fatalf("layers = %v, want only layer 0", info.Layers)
	}
	l := info.Layers[0]
	if l.Name != "0" || l.Color != 7 || l.Linetype != "Continuous" || !l.On || l.Locked || l.Frozen {
		t.Errorf("layer 0 = %v, want colour 7, Continuous, on", l)
	}
	if len(info.ContentHash) != 64 {
		t.Errorf("content hash = %q, want 64 hex digits", info.ContentHash)
	}
}

func TestDocumentNotFound(t *testing.T) {
	e := newEngine(t, nil)
	ctx := context.Background()
	if _, err := e.GetDocument(ctx, "doc-nope"); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("GetDocument(doc-nope) = %v, want ErrNotFound", err)
	}
	doc := "doc-nope"
	_, err := e.CallTool(ctx, engine.Caller{Principal: "p"}, &enginev1.CallToolRequest{Tool: enginev1.ToolEntityGet, DocumentId: &doc})
	if !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("CallTool on doc-nope = %v, want ErrNotFound", err)
	}
	_, err = e.CallTool(ctx, engine.Caller{Principal: "p"}, &enginev1.CallToolRequest{Tool: enginev1.ToolEntityGet})
	if !errors.Is(err, engine.ErrInvalid) {
		t.Errorf("CallTool without document_id = %v, want ErrInvalid", err)
	}
	_, err = e.ExportDocument(ctx, &enginev1.ExportDocumentRequest{DocumentId: "doc-nope", Format: enginev1.ExportFormat_EXPORT_FORMAT_SVG})
	if !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("ExportDocument(doc-nope) = %v, want ErrNotFound", err)
	}
}

func TestUnknownTool(t *testing.T) {
	f := newFixture(t)
	resp := f.call("entity_create_hexagon", obj{})
	if resp.Ok || resp.Error.GetKind() != kindUnknownTool {
		t.Fatalf("unknown tool = %v, want unknown_tool", resp)
	}
	if resp.Tool != "entity_create_hexagon" || !strings.HasPrefix(resp.OperationId, "op-") || resp.Error.GetOperationId() != resp.OperationId {
		t.Errorf("unknown tool response = %v, want tool name and a generated op- id on response and error", resp)
	}
}

func TestOperationIDEchoed(t *testing.T) {
	f := newFixture(t)
	id := "my-op-1"
	resp, err := f.e.CallTool(context.Background(), engine.Caller{Principal: "p"}, &enginev1.CallToolRequest{Tool: enginev1.ToolDocumentInfo, DocumentId: &f.doc, OperationId: &id})
	if err != nil || resp.OperationId != id {
		t.Fatalf("CallTool with operation_id = %v, %v; want it echoed", resp, err)
	}
	resp, err = f.e.CallTool(context.Background(), engine.Caller{Principal: "p"}, &enginev1.CallToolRequest{Tool: enginev1.ToolSystemStatus})
	if err != nil || !resp.Ok {
		t.Fatalf("system_status: %v %v", resp, err)
	}
	if ops := resultObj(resp.ResultJson)["recent_operations"].([]any); len(ops) != 2 || ops[0] != resp.OperationId || ops[1] != id {
		t.Errorf("recent_operations = %v, want [%s %s] (newest first)", ops, resp.OperationId, id)
	}
	// Another principal does not see them.
	resp, err = f.e.CallTool(context.Background(), engine.Caller{Principal: "someone-else"}, &enginev1.CallToolRequest{Tool: enginev1.ToolSystemStatus})
	if err != nil || !resp.Ok {
		t.Fatalf("system_status: %v %v", resp, err)
	}
	ops := resultObj(resp.ResultJson)["recent_operations"].([]any)
	if len(ops) != 1 || ops[0] != resp.OperationId {
		t.Errorf("recent operations of another principal = %v, want only its own call %s", ops, resp.OperationId)
	}
}

func TestInvalidArgs(t *testing.T) {
	f := newFixture(t)
	line := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 0})
	tests := []struct {
		tool   string
		args   obj
		path   string
		reason enginev1.ViolationReason
	}{
		{enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": -1}, "/radius", enginev1.ViolationReason_VIOLATION_REASON_OUT_OF_RANGE},
		{enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 1, "bogus": 1}, "/bogus", enginev1.ViolationReason_VIOLATION_REASON_UNKNOWN_FIELD},
		{enginev1.ToolEntityCreateCircle, obj{"cx": 0, "radius": 1}, "/cy", enginev1.ViolationReason_VIOLATION_REASON_MISSING},
		{enginev1.ToolEntityCreateCircle, obj{"cx": "0", "cy": 0, "radius": 1}, "/cx", enginev1.ViolationReason_VIOLATION_REASON_WRONG_TYPE},
		{enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 1, "color": 257}, "/color", enginev1.ViolationReason_VIOLATION_REASON_OUT_OF_RANGE},
		{enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 1, "color": 1.5}, "/color", enginev1.ViolationReason_VIOLATION_REASON_WRONG_TYPE},
		{enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 0, "y2": 0}, "/x2", enginev1.ViolationReason_VIOLATION_REASON_INVALID},
		{enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 0, "linetype": "wiggly"}, "/linetype", enginev1.ViolationReason_VIOLATION_REASON_INVALID},
		{enginev1.ToolEntityCreatePolyline, obj{"points": []any{obj{"x": 0, "y": 0}}}, "/points", enginev1.ViolationReason_VIOLATION_REASON_OUT_OF_RANGE},
		{enginev1.ToolEntityCreatePolyline, obj{"points": []any{obj{"x": 0, "y": 0}, obj{"x": 1}}}, "/points/1/y", enginev1.ViolationReason_VIOLATION_REASON_MISSING},
		{enginev1.ToolEntityCreateArc, obj{"cx": 0, "cy": 0, "radius": 1, "start_angle": 30, "end_angle": 390}, "/end_angle", enginev1.ViolationReason_VIOLATION_REASON_INVALID},
		{enginev1.ToolPointFromSnap, obj{"handle": line, "snap": "sideways"}, "/snap", enginev1.ViolationReason_VIOLATION_REASON_INVALID},
		{enginev1.ToolPointFromSnap, obj{"handle": line, "snap": "near"}, "/ref_x", enginev1.ViolationReason_VIOLATION_REASON_MISSING},
		{enginev1.ToolEntityGet, obj{"handle": "not-hex"}, "/handle", enginev1.ViolationReason_VIOLATION_REASON_INVALID},
		{enginev1.ToolEntityEditGeometry, obj{"handle": line, "radius": 3}, "/radius", enginev1.ViolationReason_VIOLATION_REASON_INVALID},
		{enginev1.ToolEntityBatchCreate, obj{"entities": []any{obj{"type": "line", "x1": 0, "y1": 0, "x2": 1, "y2": 1}, obj{"type": "circle", "cx": 0, "cy": 0}}}, "/entities/1/radius", enginev1.ViolationReason_VIOLATION_REASON_MISSING},
		{enginev1.ToolEntityBatchCreate, obj{"entities": []any{obj{"type": "circle", "cx": 0, "cy": 0, "radius": -2}}}, "/entities/0/radius", enginev1.ViolationReason_VIOLATION_REASON_OUT_OF_RANGE},
		{enginev1.ToolEntityBatchCreate, obj{"entities": []any{obj{"type": "point", "x": 0, "y": 0, "radius": 2}}}, "/entities/0/radius", enginev1.ViolationReason_VIOLATION_REASON_INVALID},
		// What entity_batch_create's dense decoder leaves to the ordinary way
		// is answered as before (see decodeNewEntities).
		{enginev1.ToolEntityBatchCreate, obj{"entities": []any{obj{"type": "point", "x": 0, "y": 0}, obj{"type": "line", "x1": 0, "y1": 0, "x2": 1, "y2": 1, "bogus": 1}}}, "/entities/1/bogus", enginev1.ViolationReason_VIOLATION_REASON_UNKNOWN_FIELD},
		{enginev1.ToolEntityBatchCreate, obj{"entities": []any{obj{"type": "line", "x1": 0, "y1": "0", "x2": 1, "y2": 1}}}, "/entities/0/y1", enginev1.ViolationReason_VIOLATION_REASON_WRONG_TYPE},
		{enginev1.ToolEntityBatchCreate, obj{"entities": []any{obj{"type": "point", "x": 0, "y": 0}}, "bogus": 1}, "/bogus", enginev1.ViolationReason_VIOLATION_REASON_UNKNOWN_FIELD},
		{enginev1.ToolEntityBatchCreate, obj{"entities": []any{obj{"type": "point", "x": 0, "y": 0}, obj{"type": "line", "x1": 0, "y1": 0, "x2": 0, "y2": 0}}}, "/entities/1/x2", enginev1.ViolationReason_VIOLATION_REASON_INVALID},
		{enginev1.ToolEntityBatchCreate, obj{"entities": []any{obj{"type": "point", "x": 0, "y": 0, "color": 300}}}, "/entities/0/color", enginev1.ViolationReason_VIOLATION_REASON_OUT_OF_RANGE},
		{enginev1.ToolEntityBatchCreate, obj{"entities": []any{obj{"type": "point", "x": 0, "y": 0, "linetype": "wiggly"}}}, "/entities/0/linetype", enginev1.ViolationReason_VIOLATION_REASON_INVALID},
		{enginev1.ToolEntityBatchCreate, obj{"entities": []any{obj{"type": "text", "x": 0, "y": 0, "text": ""}}}, "/entities/0/text", enginev1.ViolationReason_VIOLATION_REASON_OUT_OF_RANGE},
		{enginev1.ToolEntityBatchCreate, obj{"entities": []any{}}, "/entities", enginev1.ViolationReason_VIOLATION_REASON_OUT_OF_RANGE},
		{enginev1.ToolEntityBatchCreate, obj{}, "/entities", enginev1.ViolationReason_VIOLATION_REASON_MISSING},
		{enginev1.ToolLayerCreate, obj{"name": "a/b"}, "/name", enginev1.ViolationReason_VIOLATION_REASON_INVALID},
	}
	for _, tt := range tests {
		t.Run(tt.tool+tt.path, func(t *testing.T) {
			before := f.info()
			e := f.fail(tt.tool, tt.args, kindInvalid)
			if e.GetPath() != tt.path || e.GetReason() != tt.reason {
				t.Errorf("%s(%s) error = path %q reason %v, want %q %v (%s)", tt.tool, js(tt.args), e.GetPath(), e.GetReason(), tt.path, tt.reason, e.GetMessage())
			}
			if after := f.info(); after.Revision != before.Revision || after.ContentHash != before.ContentHash {
				t.Errorf("a rejected call changed the document: revision %d→%d", before.Revision, after.Revision)
			}
		})
	}
}

func TestRevisionBumpsOnlyOnCommittedWrites(t *testing.T) {
	f := newFixture(t)
	rev := func() int64 { return f.info().Revision }
	h := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 0})
	if got := rev(); got != 1 {
		t.Fatalf("revision after a create = %d, want 1", got)
	}
	for _, tool := range []string{enginev1.ToolDocumentInfo, enginev1.ToolEntityList, enginev1.ToolLayerList, enginev1.ToolAnalysisBoundingBox} {
		resp := f.call(tool, obj{})
		if !resp.Ok || resp.Revision != 1 {
			t.Errorf("%s = %v, want ok at revision 1", tool, resp)
		}
	}
	f.ok(enginev1.ToolEntityGet, obj{"handle": h})
	f.fail(enginev1.ToolEntityMove, obj{"handle": "FFFF", "dx": 1, "dy": 1}, kindFailed)
	f.fail(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 0}, kindInvalid)
	if got := rev(); got != 1 {
		t.Fatalf("revision after reads and failures = %d, want 1", got)
	}
	resp := f.call(enginev1.ToolEntityMove, obj{"handle": h, "dx": 1, "dy": 0})
	if !resp.Ok || resp.Revision != 2 {
		t.Fatalf("move = %v, want ok at revision 2", resp)
	}
}

func TestLockedLayerRefused(t *testing.T) {
	f := newFixture(t)
	f.ok(enginev1.ToolLayerCreate, obj{"name": "walls", "color": 1})
	h := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 0, "layer": "walls"})
	other := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 1})
	f.ok(enginev1.ToolLayerLock, obj{"name": "walls"})
	before := f.info()
	writes := []struct {
		tool string
		args obj
	}{
		{enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 1, "layer": "walls"}},
		{enginev1.ToolEntityBatchCreate, obj{"entities": []any{obj{"type": "point", "x": 0, "y": 0}, obj{"type": "point", "x": 1, "y": 0, "layer": "walls"}}}},
		{enginev1.ToolEntityMove, obj{"handle": h, "dx": 1, "dy": 1}},
		{enginev1.ToolEntityRotate, obj{"handle": h, "base_x": 0, "base_y": 0, "angle": 90}},
		{enginev1.ToolEntityScale, obj{"handle": h, "base_x": 0, "base_y": 0, "factor": 2}},
		{enginev1.ToolEntityMirror, obj{"handle": h, "x1": 0, "y1": 0, "x2": 0, "y2": 1}},
		{enginev1.ToolEntityCopy, obj{"handle": h, "dx": 1, "dy": 1}},
		{enginev1.ToolEntityOffset, obj{"handle": h, "distance": 1}},
		{enginev1.ToolEntityEditGeometry, obj{"handle": h, "end": obj{"x": 5, "y": 5}}},
		{enginev1.ToolEntitySetProperties, obj{"handle": h, "color": 3}},
		{enginev1.ToolEntitySetProperties, obj{"handle": other, "layer": "walls"}},
		{enginev1.ToolEntityDelete, obj{"handle": h}},
		{enginev1.ToolEntityDeleteMany, obj{"handles": []any{other, h}}},
		{enginev1.ToolLayerDelete, obj{"name": "walls"}},
	}
	for _, w := range writes {
		f.fail(w.tool, w.args, kindRefused)
	}
	after := f.info()
	if after.Revision != before.Revision || after.ContentHash != before.ContentHash || after.EntityCount != before.EntityCount {
		t.Fatalf("refused writes changed the document: %v → %v", before, after)
	}
	f.ok(enginev1.ToolLayerUnlock, obj{"name": "walls"})
	f.ok(enginev1.ToolEntityMove, obj{"handle": h, "dx": 1, "dy": 1})
}

func TestEveryToolAnswers(t *testing.T) {
	// Every catalog tool either works on minimal arguments or fails with a
	// typed error — none is a protocol error or unknown. Each runs on a
	// fresh document holding circle 100, line 101, layer L1 and block B.
	const h, h2 = "100", "101"
	minimal := map[string]obj{
		enginev1.ToolDocumentExport:           {"format": "svg"},
		enginev1.ToolDocumentImport:           {"format": "dxf", "content": "0\nEOF\n"},
		enginev1.ToolEntityCreatePoint:        {"x": 0, "y": 0},
		enginev1.ToolEntityCreateLine:         {"x1": 0, "y1": 0, "x2": 1, "y2": 1},
		enginev1.ToolEntityCreateCircle:       {"cx": 0, "cy": 0, "radius": 1},
		enginev1.ToolEntityCreateArc:          {"cx": 0, "cy": 0, "radius": 1, "start_angle": 0, "end_angle": 90},
		enginev1.ToolEntityCreatePolyline:     {"points": []any{obj{"x": 0, "y": 0}, obj{"x": 1, "y": 0}}},
		enginev1.ToolEntityCreateRectangle:    {"x1": 0, "y1": 0, "x2": 1, "y2": 1},
		enginev1.ToolEntityCreateText:         {"text": "a", "x": 0, "y": 0},
		enginev1.ToolEntityCreateEllipse:      {"cx": 0, "cy": 0, "major_x": 2, "major_y": 0, "ratio": 0.5},
		enginev1.ToolEntityBatchCreate:        {"entities": []any{obj{"type": "point", "x": 0, "y": 0}}},
		enginev1.ToolEntityGet:                {"handle": h},
		enginev1.ToolSelectionWindow:          {"x1": -5, "y1": -5, "x2": 5, "y2": 5},
		enginev1.ToolAnalysisMeasureDistance:  {"x1": 0, "y1": 0, "x2": 3, "y2": 4},
		enginev1.ToolAnalysisMeasureEntity:    {"handle": h},
		enginev1.ToolEntityMove:               {"handle": h, "dx": 1, "dy": 0},
		enginev1.ToolEntityCopy:               {"handle": h, "dx": 1, "dy": 0},
		enginev1.ToolEntityRotate:             {"handle": h, "base_x": 0, "base_y": 0, "angle": 0},
		enginev1.ToolEntityScale:              {"handle": h, "base_x": 0, "base_y": 0, "factor": 1},
		enginev1.ToolEntityMirror:             {"handle": h, "x1": 0, "y1": 0, "x2": 1, "y2": 0, "copy": true},
		enginev1.ToolEntityOffset:             {"handle": h, "distance": 1},
		enginev1.ToolEntityEditGeometry:       {"handle": h, "radius": 2},
		enginev1.ToolEntitySetProperties:      {"handle": h, "color": 1},
		enginev1.ToolPointFromSnap:            {"handle": h, "snap": "center"},
		enginev1.ToolPointIntersection:        {"handle1": h, "handle2": h2},
		enginev1.ToolPointTangent:             {"handle": h, "from_x": 10, "from_y": 0},
		enginev1.ToolLayerCreate:              {"name": "L2"},
		enginev1.ToolLayerModify:              {"name": "0"},
		enginev1.ToolLayerSetCurrent:          {"name": "0"},
		enginev1.ToolLayerLock:                {"name": "L1"},
		enginev1.ToolLayerUnlock:              {"name": "L1"},
		enginev1.ToolLayerDelete:              {"name": "L1"},
		enginev1.ToolPointPick:                {"prompt": "pick"},
		enginev1.ToolEntityPick:               {"prompt": "pick"},
		enginev1.ToolEntityDelete:             {"handle": h},
		enginev1.ToolEntityDeleteMany:         {"layers": []any{"0"}},
		enginev1.ToolEntityCreateMtext:        {"text": "a", "x": 0, "y": 0},
		enginev1.ToolDimensionCreateAligned:   {"p1": obj{"x": 0, "y": 0}, "p2": obj{"x": 1, "y": 0}},
		enginev1.ToolDimensionCreateLinear:    {"p1": obj{"handle": h2}, "p2": obj{"handle": h2, "x": 2, "y": 0}},
		enginev1.ToolDimensionCreateRadial:    {"handle": h},
		enginev1.ToolDimensionCreateDiametric: {"handle": h},
		enginev1.ToolDimensionCreateAngular:   {"center": obj{"x": 0, "y": 0}, "p1": obj{"x": 1, "y": 0}, "p2": obj{"x": 0, "y": 1}},
		enginev1.ToolHatchCreate:              {"boundaries": []any{h}},
		enginev1.ToolBlockDefine:              {"name": "A", "handles": []any{h}},
		enginev1.ToolBlockInsert:              {"name": "B", "x": 0, "y": 0},
		enginev1.ToolBlockExplode:             {"handle": "103"},
		enginev1.ToolBlockDelete:              {"name": "B"},

		// create and arrange: the drafting toolset (issue #37, DESIGN §11)
		enginev1.ToolEntityCreateSpline:     {"fit_points": []any{obj{"x": 0, "y": 0}, obj{"x": 1, "y": 1}}},
		enginev1.ToolEntityCreateLeader:     {"points": []any{obj{"x": 0, "y": 0}, obj{"x": 1, "y": 1}}},
		enginev1.ToolEntityCreateXline:      {"x": 0, "y": 0, "angle": 0},
		enginev1.ToolEntityCreateRay:        {"x": 0, "y": 0, "angle": 0},
		enginev1.ToolEntityCreateRevcloud:   {"points": []any{obj{"x": 0, "y": 0}, obj{"x": 1, "y": 0}, obj{"x": 0, "y": 1}}},
		enginev1.ToolEntityCreateWipeout:    {"points": []any{obj{"x": 0, "y": 0}, obj{"x": 1, "y": 0}, obj{"x": 0, "y": 1}}},
		enginev1.ToolEntityCreateSolid:      {"points": []any{obj{"x": 0, "y": 0}, obj{"x": 1, "y": 0}, obj{"x": 0, "y": 1}}},
		enginev1.ToolEntityCreateTable:      {"x": 0, "y": 0, "rows": 1, "columns": 1, "row_height": 1, "column_width": 1},
		enginev1.ToolEntityExplode:          {"handle": "103"},
		enginev1.ToolEntityStretch:          {"x1": 0, "y1": 0, "x2": 1, "y2": 1, "dx": 1, "dy": 0},
		enginev1.ToolEntityArrayRectangular: {"handles": []any{h}, "rows": 1, "columns": 2, "row_spacing": 0, "column_spacing": 3},
		enginev1.ToolEntityArrayPolar:       {"handles": []any{h2}, "cx": 5, "cy": 5, "count": 2},
		enginev1.ToolEntityBatchModify:      {"handles": []any{h}, "dx": 1},
		// text, select & measure, block attributes (issue #37, DESIGN §11)
		enginev1.ToolTextEdit:            {"handle": "105", "text": "x"},
		enginev1.ToolTextFindReplace:     {"find": "x", "replace": "y"},
		enginev1.ToolSelectionPolygon:    {"points": []any{obj{"x": -5, "y": -5}, obj{"x": 5, "y": -5}, obj{"x": 0, "y": 5}}},
		enginev1.ToolAnalysisMeasureArea: {"handles": []any{h}},
		enginev1.ToolBlockAttributesGet:  {"handle": "104"},
		enginev1.ToolBlockAttributesSet:  {"handle": "104", "values": obj{"T": "v"}},
		enginev1.ToolBlockReferences:     {"name": "B"},
		// modify: the drafting toolset's corners and cuts (issue #37, DESIGN §11)
		enginev1.ToolEntityFillet:  {"handle1": h2, "handle2": h, "radius": 0.5, "pick1_x": 1.5, "pick1_y": 0},
		enginev1.ToolEntityChamfer: {"handle1": h2, "handle2": h, "distance1": 0.5},
		enginev1.ToolEntityTrim:    {"handle": h2, "pick_x": 1.5, "pick_y": 0},
		enginev1.ToolEntityExtend:  {"handle": h2, "pick_x": 2, "pick_y": 0},
		enginev1.ToolEntityBreak:   {"handle": h2, "x1": 0, "y1": 0},
		enginev1.ToolEntityJoin:    {"handles": []any{h2, "103"}},
		// document: undo, redo, purge, audit, boundary (issue #37, DESIGN §11)
		enginev1.ToolBoundaryTrace: {"x": 0, "y": 0.5},
		// catalog (issue #38)
		enginev1.ToolToolSearch:   {"query": "line"},
		enginev1.ToolToolDescribe: {"names": []any{enginev1.ToolEntityCreateLine}},
		// annotate: hatch edits, dimensions at once
		enginev1.ToolHatchEdit:        {"handle": "103", "scale": 2},
		enginev1.ToolHatchAddBoundary: {"handle": "103", "boundaries": []any{"104"}},
		enginev1.ToolDimensionAuto:    {"handles": []any{h, h2}},
		// parts (issue 39, DESIGN §12)
		enginev1.ToolPartSpurGear: {"cx": 0, "cy": 0, "module": 1, "teeth": 12},
		enginev1.ToolPartKeyway:   {"cx": 0, "cy": 0, "bore": 10},
		enginev1.ToolGdtFrame:     {"x": 0, "y": 0, "symbol": "flatness", "tolerance": "0.05"},
		// critique (issue 39, DESIGN §12)
		enginev1.ToolDrawingCritique: {},
		// standards (issue #39)
		enginev1.ToolTemplateApplyLayers: {"template": "iso"},
		enginev1.ToolLinetypeLoad:        {"name": "HIDDEN"},
		enginev1.ToolLayerFreeze:         {"name": "L1"},
		enginev1.ToolLayerThaw:           {"name": "L1"},
		enginev1.ToolLayerHide:           {"name": "L1"},
		enginev1.ToolLayerShow:           {"name": "L1"},
		enginev1.ToolLayerIsolate:        {"name": "L1"},
		// layout (issue #39): layout S (table 103) and its viewport 104
		enginev1.ToolLayoutCreate:      {"name": "N", "paper": "A4"},
		enginev1.ToolLayoutRename:      {"name": "S", "new_name": "T"},
		enginev1.ToolLayoutCopy:        {"name": "S", "new_name": "T"},
		enginev1.ToolLayoutDelete:      {"name": "S"},
		enginev1.ToolViewportCreate:    {"layout": "S", "x": 10, "y": 10, "width": 100, "height": 80, "center_x": 0, "center_y": 0, "scale": "1:50"},
		enginev1.ToolViewportList:      {"layout": "S"},
		enginev1.ToolViewportSetScale:  {"handle": "104", "scale": "1:2"},
		enginev1.ToolViewportLock:      {"handle": "104"},
		enginev1.ToolViewportDelete:    {"handle": "104"},
		enginev1.ToolEntityChangeSpace: {"handles": []any{h}, "layout": "S"},
		// constraints (issue #40, DESIGN §14): constraint 1 is circle 100's radius
		enginev1.ToolConstraintAdd:      {"kind": "horizontal", "refs": []any{obj{"handle": h2}}},
		enginev1.ToolConstraintDelete:   {"constraint_id": 1},
		enginev1.ToolConstraintSetValue: {"constraint_id": 1, "value": 2},
		// sheets (issue #39): on layout Sheet
		enginev1.ToolTitleblockApply: {"layout": "Sheet", "fields": obj{"title": "T"}},
		// fills: multi-line text 103, hatch 103
		enginev1.ToolTextSetBackground: {"handle": "103", "color": 2},
		enginev1.ToolHatchSetGradient:  {"handle": "103", "color1": 5, "color2": 2},
	}
	for _, tool := range enginev1.Tools {
		f := newFixture(t)
		f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 1})
		f.handle(enginev1.ToolEntityCreateLine, obj{"x1": -2, "y1": 0, "x2": 2, "y2": 0})
		f.ok(enginev1.ToolLayerCreate, obj{"name": "L1"})
		// Block B (handle 102) and, for block_explode, an insert of it (103).
		f.ok(enginev1.ToolBlockDefine, obj{"name": "B", "entities": []any{obj{"type": "point", "x": 0, "y": 0}}})
		if tool.Name == enginev1.ToolBlockExplode || tool.Name == enginev1.ToolEntityExplode {
			f.handle(enginev1.ToolBlockInsert, obj{"name": "B", "x": 1, "y": 1})
		}
		// For the text and block attribute tools: block BA (103) with an
		// attribute T, an insert of it (104) and a text (105). For modify
		// (issue #37): line 103, a boundary ahead of line 101 to extend
		// to, or a line from its end to join. For the hatch edits, a
		// hatch (103).
		switch tool.Name {
		case enginev1.ToolTextEdit, enginev1.ToolBlockAttributesGet, enginev1.ToolBlockAttributesSet:
			f.ok(enginev1.ToolBlockDefine, obj{"name": "BA", "attributes": []any{obj{"tag": "T", "x": 0, "y": 0}}})
			f.handle(enginev1.ToolBlockInsert, obj{"name": "BA", "x": 1, "y": 1})
			f.handle(enginev1.ToolEntityCreateText, obj{"text": "t", "x": 0, "y": 0})
		case enginev1.ToolEntityExtend:
			f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 3, "y1": -1, "x2": 3, "y2": 1})
		case enginev1.ToolEntityJoin:
			f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 2, "y1": 0, "x2": 3, "y2": 1})
		case enginev1.ToolDocumentRedo:
			f.ok(enginev1.ToolDocumentUndo, obj{}) // something to redo
		case enginev1.ToolHatchEdit, enginev1.ToolHatchAddBoundary, enginev1.ToolHatchSetGradient:
			// A hatch of circle 100 (103) and a circle inside it (104).
			f.handle(enginev1.ToolHatchCreate, obj{"boundaries": []any{h}})
			f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 0.5})
		case enginev1.ToolLayoutRename, enginev1.ToolLayoutCopy, enginev1.ToolLayoutDelete, enginev1.ToolViewportCreate, enginev1.ToolViewportList,
			enginev1.ToolViewportSetScale, enginev1.ToolViewportLock, enginev1.ToolViewportDelete, enginev1.ToolEntityChangeSpace:
			f.ok(enginev1.ToolLayoutCreate, obj{"name": "S", "paper": "A3"})
			f.handle(enginev1.ToolViewportCreate, obj{"layout": "S", "x": 10, "y": 10, "width": 200, "height": 150, "center_x": 0, "center_y": 0, "scale": "1:1"})
		case enginev1.ToolConstraintDelete, enginev1.ToolConstraintSetValue:
			f.ok(enginev1.ToolConstraintAdd, obj{"kind": "radius", "refs": []any{obj{"handle": h}}})
		case enginev1.ToolTitleblockApply:
			f.ok(enginev1.ToolLayoutCreate, obj{"name": "Sheet", "paper": "A3"})
		case enginev1.ToolTextSetBackground:
			f.handle(enginev1.ToolEntityCreateMtext, obj{"text": "m", "x": 0, "y": 0})
		}
		args := minimal[tool.Name]
		if args == nil {
			args = obj{}
		}
		doc := f.doc
		resp, err := f.e.CallTool(context.Background(), engine.Caller{Principal: "p"}, &enginev1.CallToolRequest{Tool: tool.Name, DocumentId: &doc, Args: mustStruct(t, args)})
		if err != nil {
			t.Errorf("%s: protocol error %v", tool.Name, err)
			continue
		}
		switch k := resp.Error.GetKind(); {
		case resp.Ok:
		case k == kindUnsupported && resp.Error.GetCapability() != "":
		default:
			t.Errorf("%s(%s) = %v, want ok or unsupported with a capability", tool.Name, js(args), resp.Error)
		}
	}
}

func TestUnsupportedToolsNameTheirCapability(t *testing.T) {
	f := newFixture(t)
	for tool, want := range map[string]string{
		enginev1.ToolTransactionBegin:    "transactions_outside_batch",
		enginev1.ToolTransactionCommit:   "transactions_outside_batch",
		enginev1.ToolTransactionRollback: "transactions_outside_batch",
	} {
		e := f.fail(tool, obj{}, kindUnsupported)
		if e.GetCapability() != want {
			t.Errorf("%s capability = %q, want %q", tool, e.GetCapability(), want)
		}
	}
	e := f.fail(enginev1.ToolPointPick, obj{"prompt": "where?"}, kindUnsupported)
	if e.GetCapability() != "server_request:pick.point" {
		t.Errorf("point_pick capability = %q", e.GetCapability())
	}
	if f.info().Revision != 0 {
		t.Errorf("unsupported tools bumped the revision")
	}
}

func TestDocumentCreateTool(t *testing.T) {
	e := newEngine(t, nil)
	resp := callTool(t, e, "", enginev1.ToolDocumentCreate, obj{"name": "Plan", "units": "in"})
	if !resp.Ok {
		t.Fatalf("document_create = %v", resp.Error)
	}
	d := resultObj(resp.ResultJson)["document"].(map[string]any)
	if d["name"] != "Plan" || d["units"] != "in" || d["revision"] != 0.0 {
		t.Errorf("document_create result = %v", d)
	}
	info := callTool(t, e, d["document_id"].(string), enginev1.ToolDocumentInfo, nil)
	if !info.Ok || resultObj(info.ResultJson)["name"] != "Plan" {
		t.Errorf("document_info = %v", info)
	}
}

func TestListDocumentsPaging(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	e, err := engine.New(memory.New(), engine.Options{Now: func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	var want []string
	for i := 0; i < 7; i++ {
		info, err := e.CreateDocument(ctx, &enginev1.CreateDocumentRequest{})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, info.DocumentId)
	}
	var got []string
	tok := ""
	for pages := 0; ; pages++ {
		size := int32(3)
		resp, err := e.ListDocuments(ctx, &enginev1.ListDocumentsRequest{PageSize: &size, PageToken: &tok})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range resp.Documents {
			got = append(got, d.DocumentId)
		}
		if resp.NextPageToken == "" {
			break
		}
		tok = resp.NextPageToken
		if pages > 5 {
			t.Fatal("paging does not end")
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("paged documents = %v, want %v (creation order)", got, want)
	}
	bad := "garbage"
	if _, err := e.ListDocuments(ctx, &enginev1.ListDocumentsRequest{PageToken: &bad}); !errors.Is(err, engine.ErrInvalid) {
		t.Errorf("bad page token = %v, want ErrInvalid", err)
	}
}

func TestClose(t *testing.T) {
	e := newEngine(t, nil)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{}); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("CreateDocument after Close = %v, want ErrClosed", err)
	}
}

func TestConcurrentWritersAndReaders(t *testing.T) {
	f := newFixture(t)
	var wg sync.WaitGroup
	const writers, each = 4, 25
	for w := 0; w < writers; w++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				resp := callTool(t, f.e, f.doc, enginev1.ToolEntityCreatePoint, obj{"x": float64(i), "y": 0})
				if !resp.Ok {
					t.Errorf("create: %v", resp.Error)
				}
			}
		}()
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				callTool(t, f.e, f.doc, enginev1.ToolEntityList, obj{"page_size": 5})
			}
		}()
	}
	wg.Wait()
	if info := f.info(); info.Revision != writers*each || info.EntityCount != writers*each {
		t.Errorf("after %d concurrent creates: revision %d, %d entities", writers*each, info.Revision, info.EntityCount)
	}
}

func TestCancelledContextWaitingForLane(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := f.e.CallTool(ctx, engine.Caller{Principal: "p"}, &enginev1.CallToolRequest{Tool: enginev1.ToolEntityCreatePoint, DocumentId: &f.doc, Args: mustStruct(t, obj{"x": 0, "y": 0})})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool with a cancelled context = %v, want context.Canceled", err)
	}
	if f.info().Revision != 0 {
		t.Error("a cancelled call committed")
	}
}
