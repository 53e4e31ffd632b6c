package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSummary: each kind of result has its one line, without JSON.
func TestSummary(t *testing.T) {
	for _, tc := range []struct {
		tool     string
		result   string
		mutating bool
		want     string
	}{
		{"entity_create_line", `{"handle":"1A"}`, true, "created line 1A at revision 4"},
		{"entity_move", `{"handle":"1A"}`, true, "entity_move: 1A at revision 4"},
		{"entity_get", `{"handle":"1A","type":"line","start":{"x":0,"y":0}}`, false, "entity_get: 1A"},
		{"entity_batch_create", `{"handles":["1","2","3","4","5","6"],"count":6}`, true, "created 6 entities: 1, 2, 3, 4, 5, … at revision 4"},
		{"entity_list", `{"entities":[{},{},{}],"total":3}`, false, "3 entities"},
		{"hatch_create", `{"handle":"2B"}`, true, "created hatch 2B at revision 4"},
		{"entity_list", `{"entities":[{}],"total":3,"next_page_token":"x"}`, false, "1 entity of 3, more on the next page"},
		{"document_create", `{"document":{"document_id":"doc-1","name":"p","entity_count":0}}`, true, `document doc-1 "p": 0 entities at revision 4`},
		{"point_from_snap", `{"x":3,"y":4.5}`, false, "point_from_snap: x 3, y 4.5"},
		{"layer_list", `{"layers":[{},{}]}`, false, "layer_list: layers 2"},
		{"view_render", `{"width":768,"height":384,"window":{"x1":0,"y1":0,"x2":200,"y2":100},"units_per_pixel":0.2604166,"entities":3,"highlighted":1,"clamped":true}`, false,
			"PNG 768×384 px of (0, 0)–(200, 100), 0.260417 units a pixel; 3 entities drawn, 1 highlighted in orange; the size asked for was clamped to 2048 px"},
	} {
		got := summary(tc.tool, json.RawMessage(tc.result), 4, tc.mutating, false)
		if got != tc.want {
			t.Errorf("summary(%s, %s) = %q, want %q", tc.tool, tc.result, got, tc.want)
		}
		if strings.ContainsAny(got, "{\n") {
			t.Errorf("summary(%s) = %q: JSON or more than a line", tc.tool, got)
		}
	}
}
