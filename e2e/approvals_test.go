package e2e_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// handles names the entities and layers of the catalog walk's document
// (see catalogSetup), by binding name.
type handles map[string]string

// catalogStep is one step of cad.batch as the walk sends it.
type catalogStep struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
	Bind string         `json:"bind,omitempty"`
}

// fixture is how the catalog walk runs one tool: steps to run before it in
// the same batch (a checkpoint for a rollback to undo, say), and its args.
type fixture struct {
	before []catalogStep
	args   func(h handles) map[string]any
}

// literal is a fixture with fixed args and nothing before.
func literal(args map[string]any) fixture {
	return fixture{args: func(handles) map[string]any { return args }}
}

// on is a fixture whose args name an entity of the document.
func on(name string, args map[string]any) fixture {
	return fixture{args: func(h handles) map[string]any {
		out := maps.Clone(args)
		out["handle"] = h[name]
		return out
	}}
}

// catalogSetup is the document every tool of the walk runs on: two spare
// layers ("doomed" for the deletes, "spare" for the layer edits) and one
// entity of each basic type, each bound to its name. The line from (0,0)
// to (10,0) crosses the circle of radius 2 about (5,0).
var catalogSetup = []map[string]any{
	{"tool": "layer_create", "args": map[string]any{"name": "doomed"}},
	{"tool": "layer_create", "args": map[string]any{"name": "spare"}},
	{"tool": "entity_create_line", "args": map[string]any{"x1": 0, "y1": 0, "x2": 10, "y2": 0}, "bind": "line"},
	{"tool": "entity_create_circle", "args": map[string]any{"cx": 5, "cy": 0, "radius": 2}, "bind": "circle"},
	{"tool": "entity_create_arc", "args": map[string]any{"cx": 0, "cy": 5, "radius": 1, "start_angle": 0, "end_angle": 90}, "bind": "arc"},
	{"tool": "entity_create_polyline", "args": map[string]any{"points": []any{map[string]any{"x": 0, "y": 0}, map[string]any{"x": 3, "y": 3}}}, "bind": "poly"},
	{"tool": "entity_create_text", "args": map[string]any{"text": "t", "x": 1, "y": 1}, "bind": "text"},
	{"tool": "entity_create_point", "args": map[string]any{"x": 7, "y": 7}, "bind": "point"},
	{"tool": "entity_create_line", "args": map[string]any{"x1": 0, "y1": 9, "x2": 1, "y2": 9, "layer": "doomed"}, "bind": "doomed"},
	{"tool": "block_define", "args": map[string]any{"name": "MARK", "entities": []any{map[string]any{"type": "point", "x": 0, "y": 0}}}},
	{"tool": "block_define", "args": map[string]any{"name": "SPARE", "entities": []any{map[string]any{"type": "point", "x": 0, "y": 0}}}},
	{"tool": "block_insert", "args": map[string]any{"name": "MARK", "x": 2, "y": 2}, "bind": "insert"},
}

// minimalDXF is a DXF file with one line, for document_import.
const minimalDXF = "0\nSECTION\n2\nENTITIES\n0\nLINE\n8\n0\n10\n0\n20\n0\n11\n1\n21\n1\n0\nENDSEC\n0\nEOF\n"

// catalogFixtures holds a fixture for every tool of the catalog. A tool
// added to the protos without one fails TestApprovalsCoverTheCatalog: give
// it args that make it do what it does to the document above, removal
// included, so that the walk sees whether it removes anything.
var catalogFixtures = map[string]fixture{
	"document_create":           literal(map[string]any{"name": "walk"}),
	"document_info":             literal(map[string]any{}),
	"document_export":           literal(map[string]any{"format": "dxf"}),
	"document_import":           literal(map[string]any{"format": "dxf", "content": minimalDXF}),
	"entity_create_point":       literal(map[string]any{"x": 1, "y": 2}),
	"entity_create_line":        literal(map[string]any{"x1": 0, "y1": 1, "x2": 2, "y2": 3}),
	"entity_create_circle":      literal(map[string]any{"cx": 0, "cy": 0, "radius": 1}),
	"entity_create_arc":         literal(map[string]any{"cx": 0, "cy": 0, "radius": 1, "start_angle": 0, "end_angle": 45}),
	"entity_create_polyline":    literal(map[string]any{"points": []any{map[string]any{"x": 0, "y": 0}, map[string]any{"x": 1, "y": 0, "bulge": 0.5}}, "closed": true}),
	"entity_create_rectangle":   literal(map[string]any{"x1": 0, "y1": 0, "x2": 2, "y2": 1}),
	"entity_create_text":        literal(map[string]any{"text": "hello", "x": 0, "y": 0}),
	"entity_create_ellipse":     literal(map[string]any{"cx": 0, "cy": 0, "major_x": 2, "major_y": 0, "ratio": 0.5}),
	"entity_batch_create":       literal(map[string]any{"entities": []any{map[string]any{"type": "point", "x": 1, "y": 1}, map[string]any{"type": "circle", "cx": 0, "cy": 0, "radius": 1}}}),
	"entity_get":                on("line", map[string]any{}),
	"entity_list":               literal(map[string]any{}),
	"selection_window":          literal(map[string]any{"x1": -1, "y1": -1, "x2": 11, "y2": 11}),
	"analysis_bounding_box":     literal(map[string]any{}),
	"analysis_measure_distance": literal(map[string]any{"x1": 0, "y1": 0, "x2": 3, "y2": 4}),
	"analysis_measure_entity":   on("poly", map[string]any{}),
	"entity_move":               on("line", map[string]any{"dx": 1, "dy": 1}),
	"entity_copy":               on("circle", map[string]any{"dx": 1, "dy": 1}),
	"entity_rotate":             on("line", map[string]any{"base_x": 0, "base_y": 0, "angle": 30}),
	"entity_scale":              on("circle", map[string]any{"base_x": 0, "base_y": 0, "factor": 2}),
	"entity_mirror":             on("arc", map[string]any{"x1": 0, "y1": 0, "x2": 0, "y2": 1}), // in place: the handle stays
	"entity_offset":             on("line", map[string]any{"distance": 1}),
	"entity_edit_geometry":      on("poly", map[string]any{"points": []any{map[string]any{"x": 5, "y": 5}, map[string]any{"x": 6, "y": 5}}}),
	"entity_set_properties":     on("text", map[string]any{"layer": "spare", "color": 3}),
	"entity_delete":             on("point", map[string]any{}),
	"entity_delete_many":        literal(map[string]any{"layers": []any{"doomed"}}),
	"point_from_snap":           on("line", map[string]any{"snap": "mid"}),
	"point_intersection": {args: func(h handles) map[string]any {
		return map[string]any{"handle1": h["line"], "handle2": h["circle"]}
	}},
	"point_tangent":     on("circle", map[string]any{"from_x": 20, "from_y": 0}),
	"layer_create":      literal(map[string]any{"name": "fresh"}),
	"layer_list":        literal(map[string]any{}),
	"layer_modify":      literal(map[string]any{"name": "spare", "color": 3, "on": false}),
	"layer_set_current": literal(map[string]any{"name": "spare"}),
	"layer_lock":        literal(map[string]any{"name": "spare"}),
	"layer_unlock":      literal(map[string]any{"name": "spare"}),
	"layer_delete":      literal(map[string]any{"name": "doomed"}),
	"transaction_begin": literal(map[string]any{}),
	"transaction_commit": {
		before: []catalogStep{{Tool: "transaction_begin", Args: map[string]any{}}, {Tool: "entity_create_point", Args: map[string]any{"x": 0, "y": 0}}},
		args:   func(handles) map[string]any { return map[string]any{} },
	},
	"transaction_rollback": {
		before: []catalogStep{{Tool: "transaction_begin", Args: map[string]any{}}, {Tool: "entity_create_point", Args: map[string]any{"x": 0, "y": 0}}, {Tool: "layer_create", Args: map[string]any{"name": "brief"}}},
		args:   func(handles) map[string]any { return map[string]any{} },
	},
	"point_pick":          literal(map[string]any{"prompt": "a point"}),
	"entity_pick":         literal(map[string]any{"prompt": "an entity"}),
	"system_status":       literal(map[string]any{}),
	"system_capabilities": literal(map[string]any{}),

	"entity_create_mtext":        literal(map[string]any{"text": "a\nb", "x": 0, "y": 0}),
	"dimension_create_aligned":   literal(map[string]any{"p1": map[string]any{"x": 0, "y": 0}, "p2": map[string]any{"x": 3, "y": 4}}),
	"dimension_create_linear":    literal(map[string]any{"p1": map[string]any{"x": 0, "y": 0}, "p2": map[string]any{"x": 3, "y": 4}}),
	"dimension_create_radial":    on("circle", map[string]any{}),
	"dimension_create_diametric": on("circle", map[string]any{}),
	"dimension_create_angular":   literal(map[string]any{"center": map[string]any{"x": 0, "y": 0}, "p1": map[string]any{"x": 1, "y": 0}, "p2": map[string]any{"x": 0, "y": 1}}),
	"dimension_style_list":       literal(map[string]any{}),
	"hatch_create":               {args: func(h handles) map[string]any { return map[string]any{"boundaries": []any{h["circle"]}} }},
	"block_define":               literal(map[string]any{"name": "NEW", "entities": []any{map[string]any{"type": "point", "x": 0, "y": 0}}}),
	"block_insert":               literal(map[string]any{"name": "MARK", "x": 3, "y": 3}),
	"block_explode":              on("insert", map[string]any{}),
	"block_list":                 literal(map[string]any{}),
	"block_delete":               literal(map[string]any{"name": "SPARE"}),

	// view (issue #38)
	"tool_search":   literal(map[string]any{"query": "round a corner"}),
	"tool_describe": literal(map[string]any{"names": []any{"entity_fillet"}}),
	"view_render":   {args: func(h handles) map[string]any { return map[string]any{"width": 64, "highlight": []any{h["circle"]}} }},
	// create and arrange: the drafting toolset (issue #37, DESIGN §11)
	"entity_create_spline":   literal(map[string]any{"fit_points": []any{map[string]any{"x": 0, "y": 0}, map[string]any{"x": 2, "y": 1}, map[string]any{"x": 4, "y": 0}}}),
	"entity_create_leader":   literal(map[string]any{"points": []any{map[string]any{"x": 0, "y": 0}, map[string]any{"x": 2, "y": 2}}, "text": "note"}),
	"entity_create_xline":    literal(map[string]any{"x": 0, "y": 0, "angle": 45}),
	"entity_create_ray":      literal(map[string]any{"x": 0, "y": 0, "angle": 45}),
	"entity_create_revcloud": literal(map[string]any{"points": []any{map[string]any{"x": 0, "y": 0}, map[string]any{"x": 4, "y": 0}, map[string]any{"x": 4, "y": 3}}, "arc_length": 1}),
	"entity_create_wipeout":  literal(map[string]any{"points": []any{map[string]any{"x": 0, "y": 0}, map[string]any{"x": 4, "y": 0}, map[string]any{"x": 4, "y": 3}}}),
	"entity_create_solid":    literal(map[string]any{"points": []any{map[string]any{"x": 0, "y": 0}, map[string]any{"x": 4, "y": 0}, map[string]any{"x": 4, "y": 3}}}),
	"entity_create_table":    literal(map[string]any{"x": 0, "y": 0, "rows": 2, "columns": 2, "row_height": 2, "column_width": 5, "cells": []any{map[string]any{"row": 0, "column": 0, "text": "A"}}}),
	"entity_explode":         on("poly", map[string]any{}),
	"entity_stretch":         literal(map[string]any{"x1": 9, "y1": -1, "x2": 11, "y2": 1, "dx": 2, "dy": 0}),
	"entity_array_rectangular": {args: func(h handles) map[string]any {
		return map[string]any{"handles": []any{h["circle"]}, "rows": 2, "columns": 2, "row_spacing": 5, "column_spacing": 5}
	}},
	"entity_array_polar": {args: func(h handles) map[string]any {
		return map[string]any{"handles": []any{h["point"]}, "cx": 0, "cy": 0, "count": 4}
	}},
	"entity_batch_modify": {args: func(h handles) map[string]any {
		return map[string]any{"handles": []any{h["line"], h["arc"]}, "dx": 1, "layer": "spare"}
	}},
	// text, select & measure, block attributes (issue #37, DESIGN §11)
	"text_edit":             on("text", map[string]any{"text": "edited", "height": 3}),
	"text_find_replace":     literal(map[string]any{"find": "T", "replace": "u"}),
	"selection_filter":      literal(map[string]any{"types": []any{"line"}, "min_length": 1}),
	"selection_polygon":     literal(map[string]any{"points": []any{map[string]any{"x": -1, "y": -1}, map[string]any{"x": 11, "y": -1}, map[string]any{"x": 5, "y": 11}}, "mode": "crossing"}),
	"analysis_measure_area": {args: func(h handles) map[string]any { return map[string]any{"handles": []any{h["circle"]}} }},
	"analysis_entity_stats": literal(map[string]any{}),
	"analysis_layer_stats":  literal(map[string]any{}),
	"block_attributes_get":  on("insert", map[string]any{}),
	"block_attributes_set": {
		before: []catalogStep{
			{Tool: "block_define", Args: map[string]any{"name": "TAGGED", "attributes": []any{map[string]any{"tag": "PARTNO", "x": 0, "y": 0}}}},
			{Tool: "block_insert", Args: map[string]any{"name": "TAGGED", "x": 4, "y": 4}, Bind: "tagged"},
		},
		args: func(handles) map[string]any {
			return map[string]any{"handle": "$tagged", "values": map[string]any{"PARTNO": "M8"}}
		},
	},
	"block_references": literal(map[string]any{"name": "MARK"}),
	// modify: the drafting toolset's corners and cuts (issue #37, DESIGN §11)
	"entity_fillet": {args: func(h handles) map[string]any {
		return map[string]any{"handle1": h["line"], "handle2": h["circle"], "radius": 0.5, "pick1_x": 1, "pick1_y": 0}
	}},
	"entity_chamfer": {args: func(h handles) map[string]any {
		return map[string]any{"handle1": h["line"], "handle2": h["poly"], "distance1": 0.5}
	}},
	"entity_trim": on("line", map[string]any{"pick_x": 5, "pick_y": 0}),
	"entity_extend": {
		before: []catalogStep{{Tool: "entity_create_line", Args: map[string]any{"x1": 12, "y1": -1, "x2": 12, "y2": 1}}},
		args:   func(h handles) map[string]any { return map[string]any{"handle": h["line"], "pick_x": 10, "pick_y": 0} },
	},
	"entity_break": on("line", map[string]any{"x1": 5, "y1": 0}),
	"entity_join": {args: func(h handles) map[string]any {
		return map[string]any{"handles": []any{h["line"], h["poly"]}}
	}},
	// document: undo, redo, purge, audit, boundary (issue #37, DESIGN §11)
	"document_undo": {
		before: []catalogStep{{Tool: "entity_create_point", Args: map[string]any{"x": 4, "y": 4}}},
		args:   func(handles) map[string]any { return map[string]any{} }, // takes the point back
	},
	"document_redo": {
		before: []catalogStep{{Tool: "entity_delete_many", Args: map[string]any{"layers": []any{"doomed"}}}, {Tool: "document_undo", Args: map[string]any{}}},
		args:   func(handles) map[string]any { return map[string]any{} }, // deletes the doomed line again
	},
	"document_purge": literal(map[string]any{"what": []any{"layers"}}), // layer spare is empty
	"document_audit": {
		before: []catalogStep{{Tool: "entity_create_line", Args: map[string]any{"x1": 0, "y1": 0, "x2": 10, "y2": 0}}}, // a duplicate of the line
		args:   func(handles) map[string]any { return map[string]any{"fix": true} },
	},
	"boundary_trace": literal(map[string]any{"x": 5, "y": 1}), // the half of the circle above the line
	// annotate: hatch edits, dimensions at once
	"hatch_edit": {
		before: []catalogStep{{Tool: "hatch_create", Args: map[string]any{"pick_x": 5, "pick_y": 1}, Bind: "hatch"}},
		args:   func(handles) map[string]any { return map[string]any{"handle": "$hatch", "pattern": "ANSI31"} },
	},
	"hatch_add_boundary": {
		before: []catalogStep{
			{Tool: "entity_create_circle", Args: map[string]any{"cx": 30, "cy": 30, "radius": 5}, Bind: "outer"},
			{Tool: "entity_create_circle", Args: map[string]any{"cx": 30, "cy": 30, "radius": 1}, Bind: "island"},
			{Tool: "hatch_create", Args: map[string]any{"boundaries": []any{"$outer"}}, Bind: "hatch"},
		},
		args: func(handles) map[string]any {
			return map[string]any{"handle": "$hatch", "boundaries": []any{"$island"}}
		},
	},
	"dimension_auto": {args: func(h handles) map[string]any {
		return map[string]any{"handles": []any{h["line"], h["circle"]}}
	}},
	// parts (issue 39, DESIGN §12)
	"part_spur_gear": literal(map[string]any{"cx": 50, "cy": 0, "module": 1, "teeth": 12, "bore": 4}),
	"part_keyway":    literal(map[string]any{"cx": 80, "cy": 0, "bore": 20, "angle": 0}),
	"gdt_frame":      literal(map[string]any{"x": 0, "y": 20, "symbol": "perpendicularity", "tolerance": "0.02", "datums": []any{"A"}}),
	// critique (issue 39, DESIGN §12)
	"drawing_critique": literal(map[string]any{}),
	// standards (issue #39, DESIGN §12)
	"template_list":         literal(map[string]any{}),
	"template_apply_layers": literal(map[string]any{"template": "iso"}),
	"linetype_list":         literal(map[string]any{}),
	"linetype_load":         literal(map[string]any{"name": "CENTER"}),
	"layer_freeze":          literal(map[string]any{"name": "spare"}),
	"layer_thaw":            literal(map[string]any{"name": "spare"}),
	"layer_hide":            literal(map[string]any{"name": "spare"}),
	"layer_show":            literal(map[string]any{"name": "spare"}),
	"layer_isolate":         literal(map[string]any{"name": "spare"}),
	"drawing_settings":      literal(map[string]any{"units": "in", "ltscale": 2}),
	// layout: sheets, viewports and paper space (issue #39, DESIGN §12)
	"layout_create": literal(map[string]any{"name": "WalkA", "paper": "A3"}),
	"layout_list":   literal(map[string]any{}),
	"layout_rename": {
		before: []catalogStep{{Tool: "layout_create", Args: map[string]any{"name": "WalkB", "paper": "A4"}}},
		args:   func(handles) map[string]any { return map[string]any{"name": "WalkB", "new_name": "WalkB2"} },
	},
	"layout_copy": {
		before: []catalogStep{{Tool: "layout_create", Args: map[string]any{"name": "WalkC", "paper": "A4"}}},
		args:   func(handles) map[string]any { return map[string]any{"name": "WalkC", "new_name": "WalkC2"} },
	},
	"layout_delete": {
		before: []catalogStep{
			{Tool: "layout_create", Args: map[string]any{"name": "WalkD", "paper": "A4"}},
			{Tool: "entity_create_line", Args: map[string]any{"x1": 0, "y1": 0, "x2": 10, "y2": 0, "layout": "WalkD"}},
		},
		args: func(handles) map[string]any { return map[string]any{"name": "WalkD"} }, // and its line
	},
	"viewport_create": {
		before: []catalogStep{{Tool: "layout_create", Args: map[string]any{"name": "WalkE", "paper": "A3"}}},
		args: func(handles) map[string]any {
			return map[string]any{"layout": "WalkE", "x": 10, "y": 10, "width": 200, "height": 150, "center_x": 5, "center_y": 0, "scale": "1:1"}
		},
	},
	"viewport_list": {
		before: viewportFixture("WalkJ", nil).before,
		args:   func(handles) map[string]any { return map[string]any{"layout": "WalkJ"} },
	},
	"viewport_set_scale": viewportFixture("WalkF", map[string]any{"scale": "1:2"}),
	"viewport_lock":      viewportFixture("WalkG", map[string]any{}),
	"viewport_delete":    viewportFixture("WalkH", map[string]any{}),
	"entity_change_space": {
		before: viewportFixture("WalkI", nil).before,
		args: func(h handles) map[string]any {
			return map[string]any{"handles": []any{h["circle"]}, "viewport": "$vp"}
		},
	},
	// constraints (issue #40, DESIGN §14)
	"constraint_add": {args: func(h handles) map[string]any {
		return map[string]any{"kind": "radius", "refs": []any{map[string]any{"handle": h["circle"]}}}
	}},
	"constraint_list": literal(map[string]any{}),
	"constraint_delete": {
		before: []catalogStep{
			{Tool: "entity_create_line", Args: map[string]any{"x1": 0, "y1": 5, "x2": 4, "y2": 6}, Bind: "ln"},
			{Tool: "constraint_add", Args: map[string]any{"kind": "horizontal", "refs": []any{map[string]any{"handle": "$ln"}}}},
		},
		args: func(handles) map[string]any { return map[string]any{"constraint_id": 1} },
	},
	"constraint_set_value": {
		before: []catalogStep{
			{Tool: "entity_create_circle", Args: map[string]any{"cx": 20, "cy": 20, "radius": 1}, Bind: "c"},
			{Tool: "constraint_add", Args: map[string]any{"kind": "radius", "refs": []any{map[string]any{"handle": "$c"}}}},
		},
		args: func(handles) map[string]any { return map[string]any{"constraint_id": 1, "value": 3} },
	},
	"sketch_solve": literal(map[string]any{"dry_run": true}),
	// sheets: title blocks (issue #39, DESIGN §12); applied twice, the
	// second replaces the first in place and removes nothing
	"titleblock_apply": {
		before: []catalogStep{
			{Tool: "layout_create", Args: map[string]any{"name": "WalkT", "paper": "A3"}},
			{Tool: "titleblock_apply", Args: map[string]any{"layout": "WalkT", "fields": map[string]any{"title": "Walk"}}},
		},
		args: func(handles) map[string]any {
			return map[string]any{"layout": "WalkT", "fields": map[string]any{"revision": "B"}}
		},
	},
	// fills
	"text_set_background": {
		before: []catalogStep{{Tool: "entity_create_mtext", Args: map[string]any{"text": "note", "x": 60, "y": 60}, Bind: "note"}},
		args:   func(handles) map[string]any { return map[string]any{"handle": "$note", "color": 2} },
	},
	"hatch_set_gradient": {
		before: []catalogStep{{Tool: "hatch_create", Args: map[string]any{"pick_x": 5, "pick_y": 1}, Bind: "hatch"}},
		args:   func(handles) map[string]any { return map[string]any{"handle": "$hatch", "color1": 5, "color2": 2} },
	},
}

// viewportFixture is a fixture whose args name a viewport made in the
// same batch on a new layout.
func viewportFixture(layout string, args map[string]any) fixture {
	return fixture{
		before: []catalogStep{
			{Tool: "layout_create", Args: map[string]any{"name": layout, "paper": "A3"}},
			{Tool: "viewport_create", Args: map[string]any{"layout": layout, "x": 10, "y": 10, "width": 200, "height": 150, "center_x": 5, "center_y": 0, "scale": "1:1"}, Bind: "vp"},
		},
		args: func(handles) map[string]any {
			out := maps.Clone(args)
			out["handle"] = "$vp"
			return out
		},
	}
}

// catalogState is what a document holds: its entities' handles (and its
// blocks, as "block NAME") and its
// layers' names.
type catalogState struct {
	entities, layers map[string]bool
}

// walkRun is what running one tool did.
type walkRun struct {
	asked   []string // tools whose approval was asked
	ok      bool     // the tool's step succeeded
	kind    string   // its error kind, when it failed
	created catalogState
}

// TestApprovalsCoverTheCatalog walks every tool of the catalog
// (enginev1.Tools) over a real WebSocket against a real gateway and
// engine, in a session with approval policy "destructive" that declared
// approval, pick.point and pick.entities. For each tool it checks that it
// asks for approval exactly when it is marked destructive, that a denied
// step is "denied" and removes nothing, that a tool that does not ask
// removes nothing (no entity or layer that existed before it ran, or was
// made by an earlier step of its batch, is gone afterwards: so a rollback
// that throws work away counts too), and that an approved destructive tool
// does remove something. A new tool that removes anything without the flag
// fails here, as does a new tool without a fixture.
func TestApprovalsCoverTheCatalog(t *testing.T) {
	gateway, _ := startServices(t)
	p := newPeer(t, gateway)
	p.call(1, "session.create", map[string]any{
		"capabilities":    map[string]any{"server_requests": []string{"approval", "pick.point", "pick.entities"}},
		"approval_policy": "destructive",
	})
	var s sessionInfo
	if f := p.response(1); f.Error != nil || json.Unmarshal(f.Result, &s) != nil {
		t.Fatalf("session.create = %+v", f)
	}
	w := &walker{p: p, session: s.SessionID, id: 10}
	for _, tool := range enginev1.Tools {
		fx, ok := catalogFixtures[tool.Name]
		if !ok {
			t.Errorf("tool %s has no fixture in catalogFixtures: add one that makes it do what it does", tool.Name)
			continue
		}
		destructive := tool.Annotations.GetDestructive()
		decisions := []string{"deny"}
		if destructive {
			decisions = append(decisions, "approve")
		}
		for _, decision := range decisions {
			t.Run(tool.Name+"/"+decision, func(t *testing.T) {
				w.t = t
				doc, h := w.setup()
				before := w.state(doc)
				run := w.run(doc, tool, fx, h, decision)
				after := w.state(doc)
				var removed []string
				for e := range union(before.entities, run.created.entities) {
					if !after.entities[e] {
						removed = append(removed, "entity "+e)
					}
				}
				for l := range union(before.layers, run.created.layers) {
					if !after.layers[l] {
						removed = append(removed, "layer "+l)
					}
				}
				slices.Sort(removed)
				asked := slices.Contains(run.asked, tool.Name)
				switch {
				case asked != destructive:
					t.Errorf("%s asked for approval: %v, want %v (destructive: %v)", tool.Name, asked, destructive, destructive)
				case !destructive && len(removed) > 0:
					t.Errorf("%s removed %v without asking: a tool that removes entities or layers or throws work away must be destructive", tool.Name, removed)
				case !destructive && !run.ok:
					t.Errorf("%s failed (%s) on its fixture: the walk learns nothing from it; fix the fixture", tool.Name, run.kind)
				case destructive && decision == "deny" && (run.ok || run.kind != "denied" || len(removed) > 0):
					t.Errorf("%s denied: ok %v, kind %q, removed %v; want kind denied and nothing removed", tool.Name, run.ok, run.kind, removed)
				case destructive && decision == "approve" && (!run.ok || len(removed) == 0):
					t.Errorf("%s approved: ok %v (%s), removed %v; want it to run and remove something (else its fixture proves nothing)", tool.Name, run.ok, run.kind, removed)
				}
			})
		}
	}
}

// walker runs the catalog walk's calls on one WebSocket.
type walker struct {
	t       *testing.T
	p       *peer
	session string
	id      int // the last request id used
}

// call sends method and returns its response, answering the server
// requests that arrive meanwhile: approvals with decision (recording the
// tool asked about), pick.point with (0, 0) and pick.entities with the
// line of catalogSetup.
func (w *walker) call(method string, params any, decision string, h handles) (json.RawMessage, []string) {
	w.t.Helper()
	w.id++
	id := w.id
	w.p.t = w.t
	w.p.call(id, method, params)
	var asked []string
	for {
		f := w.p.next(fmt.Sprintf("response %d", id), func(f frame) bool { return len(f.ID) > 0 })
		var answer any
		switch {
		case f.Method == "" && string(f.ID) == fmt.Sprint(id):
			if f.Error != nil {
				w.t.Fatalf("%s = error %d %s %s", method, f.Error.Code, f.Error.Message, f.Error.Data)
			}
			return f.Result, asked
		case f.Method == "approval":
			var ap struct {
				Tool string `json:"tool"`
			}
			json.Unmarshal(f.Params, &ap)
			asked = append(asked, ap.Tool)
			answer = map[string]any{"decision": decision}
		case f.Method == "pick.point":
			answer = map[string]any{"x": 0, "y": 0}
		case f.Method == "pick.entities":
			answer = map[string]any{"handles": []string{h["line"]}}
		default:
			continue
		}
		w.p.send(map[string]any{"jsonrpc": "2.0", "id": f.ID, "result": answer})
	}
}

// setup makes a document as catalogSetup has it and returns its id and
// the handles bound.
func (w *walker) setup() (string, handles) {
	w.t.Helper()
	res, _ := w.call("document.create", map[string]any{"name": "catalog"}, "", nil)
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	json.Unmarshal(res, &doc)
	res, _ = w.call("cad.batch", map[string]any{"document_id": doc.DocumentID, "steps": catalogSetup}, "", nil)
	var b struct {
		OK       bool              `json:"ok"`
		Bindings map[string]string `json:"bindings"`
	}
	if json.Unmarshal(res, &b) != nil || !b.OK {
		w.t.Fatalf("setup batch = %s", res)
	}
	return doc.DocumentID, b.Bindings
}

// state reads what the document holds: the entities of model space and
// of each layout, the layers and the blocks.
func (w *walker) state(doc string) catalogState {
	w.t.Helper()
	st := catalogState{entities: map[string]bool{}, layers: map[string]bool{}}
	res, _ := w.call("tools.call", map[string]any{"document_id": doc, "tool": "entity_list", "args": map[string]any{"page_size": 10000}}, "", nil)
	var list struct {
		Result struct {
			Entities []struct {
				Handle string `json:"handle"`
			} `json:"entities"`
		} `json:"result"`
	}
	json.Unmarshal(res, &list)
	for _, e := range list.Result.Entities {
		st.entities[e.Handle] = true
	}
	// And those of every paper-space layout (issue #39).
	res, _ = w.call("tools.call", map[string]any{"document_id": doc, "tool": "layout_list", "args": map[string]any{}}, "", nil)
	var sheets struct {
		Result struct {
			Layouts []struct {
				Name string `json:"name"`
			} `json:"layouts"`
		} `json:"result"`
	}
	json.Unmarshal(res, &sheets)
	for _, l := range sheets.Result.Layouts {
		list.Result.Entities = nil
		res, _ = w.call("tools.call", map[string]any{"document_id": doc, "tool": "entity_list", "args": map[string]any{"page_size": 10000, "layout": l.Name}}, "", nil)
		json.Unmarshal(res, &list)
		for _, e := range list.Result.Entities {
			st.entities[e.Handle] = true
		}
	}
	res, _ = w.call("tools.call", map[string]any{"document_id": doc, "tool": "layer_list", "args": map[string]any{}}, "", nil)
	var layers struct {
		Result struct {
			Layers []struct {
				Name string `json:"name"`
			} `json:"layers"`
		} `json:"result"`
	}
	json.Unmarshal(res, &layers)
	for _, l := range layers.Result.Layers {
		st.layers[l.Name] = true
	}
	res, _ = w.call("tools.call", map[string]any{"document_id": doc, "tool": "block_list", "args": map[string]any{}}, "", nil)
	var blocks struct {
		Result struct {
			Blocks []struct {
				Name string `json:"name"`
			} `json:"blocks"`
		} `json:"result"`
	}
	json.Unmarshal(res, &blocks)
	for _, b := range blocks.Result.Blocks {
		st.entities["block "+b.Name] = true // a block removed is something removed
	}
	res, _ = w.call("tools.call", map[string]any{"document_id": doc, "tool": "constraint_list", "args": map[string]any{}}, "", nil)
	var cons struct {
		Result struct {
			Constraints []struct {
				ID int `json:"constraint_id"`
			} `json:"constraints"`
		} `json:"result"`
	}
	json.Unmarshal(res, &cons)
	for _, c := range cons.Result.Constraints {
		st.entities[fmt.Sprintf("constraint %d", c.ID)] = true // so is a constraint
	}
	if len(st.entities) == 0 || len(st.layers) == 0 {
		w.t.Fatalf("state of %s: entity_list %s, layer_list %s", doc, res, res)
	}
	return st
}

// run runs tool with its fixture in the walk's session: as the last step
// of a batch after the fixture's steps when it is batchable (on_error
// stop), else as a tools.call.
func (w *walker) run(doc string, tool enginev1.ToolInfo, fx fixture, h handles, decision string) walkRun {
	w.t.Helper()
	var out walkRun
	out.created = catalogState{entities: map[string]bool{}, layers: map[string]bool{}}
	args := fx.args(h)
	if !tool.Annotations.GetBatchable() {
		// A tool that is no batch step gets its fixture's steps as calls
		// of their own, outside the session (so they ask nothing).
		for _, st := range fx.before {
			res, _ := w.call("tools.call", map[string]any{"document_id": doc, "tool": st.Tool, "args": st.Args}, "", h)
			var r struct {
				OK     bool `json:"ok"`
				Result struct {
					Handle string `json:"handle"`
				} `json:"result"`
			}
			if json.Unmarshal(res, &r) != nil || !r.OK {
				w.t.Fatalf("%s: fixture step %s = %s", tool.Name, st.Tool, res)
			}
			if r.Result.Handle != "" {
				out.created.entities[r.Result.Handle] = true
			}
		}
		res, asked := w.call("tools.call", map[string]any{"session_id": w.session, "document_id": doc, "tool": tool.Name, "args": args}, decision, h)
		var r struct {
			OK    bool `json:"ok"`
			Error *struct {
				Kind string `json:"kind"`
			} `json:"error"`
		}
		json.Unmarshal(res, &r)
		out.asked, out.ok = asked, r.OK
		if r.Error != nil {
			out.kind = r.Error.Kind
		}
		return out
	}
	steps := append(slices.Clone(fx.before), catalogStep{Tool: tool.Name, Args: args})
	res, asked := w.call("cad.batch", map[string]any{"session_id": w.session, "document_id": doc, "steps": steps, "on_error": "stop"}, decision, h)
	var b struct {
		Results []struct {
			Tool   string `json:"tool"`
			Status string `json:"status"`
			Handle string `json:"handle"`
			Result struct {
				Name         string `json:"name"`
				ConstraintID int    `json:"constraint_id"`
			} `json:"result"`
			Error *struct {
				Kind string `json:"kind"`
			} `json:"error"`
		} `json:"results"`
	}
	if json.Unmarshal(res, &b) != nil || len(b.Results) != len(steps) {
		w.t.Fatalf("%s batch = %s", tool.Name, res)
	}
	for i, r := range b.Results[:len(steps)-1] {
		if r.Status != "ok" {
			w.t.Fatalf("%s: step %d (%s) of its fixture = %s", tool.Name, i, r.Tool, res)
		}
		if r.Handle != "" {
			out.created.entities[r.Handle] = true
		}
		if r.Tool == "layer_create" {
			out.created.layers[r.Result.Name] = true
		}
		if r.Tool == "constraint_add" {
			out.created.entities[fmt.Sprintf("constraint %d", r.Result.ConstraintID)] = true
		}
	}
	last := b.Results[len(steps)-1]
	out.asked, out.ok = asked, last.Status == "ok"
	if last.Error != nil {
		out.kind = last.Error.Kind
	}
	return out
}

// union is the keys of a and b.
func union(a, b map[string]bool) map[string]bool {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}
