package e2e_test

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestCatalogToolsOverRPC: tool_search and tool_describe are engine tools,
// so /rpc answers them as MCP does: over HTTP and WebSocket through the
// built gateway and engine, a command alias, a German word and a
// misspelling find their tools, and tool_describe gives the schema the
// catalog (tools.list) has.
func TestCatalogToolsOverRPC(t *testing.T) {
	gateway, _ := startServices(t)
	for name, c := range map[string]client{
		"http":      &httpClient{url: "http://" + gateway + "/rpc"},
		"websocket": dialWebSocket(t, gateway),
	} {
		t.Run(name, func(t *testing.T) {
			for i, tc := range []struct{ query, want string }{
				{"PL", "entity_create_polyline"},
				{"Schraffur", "hatch_create"},
				{"rotae", "entity_rotate"},
				{"dimension the width of the part", "dimension_create_linear"},
			} {
				var found struct {
					OK     bool `json:"ok"`
					Result struct {
						Tools []struct {
							Name    string  `json:"name"`
							Summary string  `json:"summary"`
							Score   float64 `json:"score"`
						} `json:"tools"`
					} `json:"result"`
				}
				mustCall(t, c, 10+i, "tools.call", map[string]any{"tool": "tool_search", "args": map[string]any{"query": tc.query, "limit": 3}}, &found)
				if !found.OK || len(found.Result.Tools) == 0 || found.Result.Tools[0].Name != tc.want {
					t.Errorf("tool_search(%q) = %+v, want %s first", tc.query, found, tc.want)
					continue
				}
				if top := found.Result.Tools[0]; top.Summary == "" || top.Score <= 0 || top.Score > 1 {
					t.Errorf("tool_search(%q) top = %+v, want a summary and a score in (0, 1]", tc.query, top)
				}
			}
			var described struct {
				OK     bool `json:"ok"`
				Result struct {
					Tools []struct {
						Name        string          `json:"name"`
						InputSchema json.RawMessage `json:"input_schema"`
						Annotations struct {
							Destructive bool `json:"destructive"`
						} `json:"annotations"`
					} `json:"tools"`
				} `json:"result"`
			}
			mustCall(t, c, 20, "tools.call", map[string]any{"tool": "tool_describe", "args": map[string]any{"names": []string{"entity_delete", "layer_create"}}}, &described)
			var list struct {
				Tools []struct {
					Name        string          `json:"name"`
					InputSchema json.RawMessage `json:"input_schema"`
				} `json:"tools"`
			}
			mustCall(t, c, 21, "tools.list", nil, &list)
			i := slices.IndexFunc(list.Tools, func(tl struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"input_schema"`
			}) bool {
				return tl.Name == "entity_delete"
			})
			if !described.OK || len(described.Result.Tools) != 2 || described.Result.Tools[0].Name != "entity_delete" || !described.Result.Tools[0].Annotations.Destructive || i < 0 {
				t.Fatalf("tool_describe = %+v (tools.list has entity_delete at %d), want entity_delete (destructive), layer_create", described, i)
			}
			if got, want := compactJSON(t, described.Result.Tools[0].InputSchema), compactJSON(t, list.Tools[i].InputSchema); got != want {
				t.Errorf("tool_describe(entity_delete) input schema = %s, tools.list has %s", got, want)
			}
			resp := call(t, c, 22, "tools.call", map[string]any{"tool": "tool_describe", "args": map[string]any{"names": []string{"entity_fly"}}})
			var failed struct {
				OK    bool `json:"ok"`
				Error struct {
					Kind string `json:"kind"`
					Path string `json:"path"`
				} `json:"error"`
			}
			if resp.Error != nil || json.Unmarshal(resp.Result, &failed) != nil || failed.OK || failed.Error.Path != "/names/0" {
				t.Errorf("tool_describe(entity_fly) = %s %v, want a failure at /names/0", resp.Result, resp.Error)
			}
		})
	}
}

// compactJSON is data re-encoded with sorted keys and no spaces.
func compactJSON(t *testing.T, data json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}
