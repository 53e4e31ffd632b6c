package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cadbridge/cadbridge/internal/proctest"
)

// tokensDir is the npm package that counts o200k_base tokens.
var tokensDir, _ = filepath.Abs(filepath.Join("..", "..", "tools", "tokens"))

// countTokens counts text's o200k_base tokens with npm tiktoken; it skips
// without node or the package installed, except under CI=true, where it
// fails.
func countTokens(t *testing.T, texts map[string]string) map[string]int {
	t.Helper()
	_, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(tokensDir, "node_modules", "tiktoken"))
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no tokenizer under CI (npm ci in tools/tokens): %v", err)
		}
		t.Skipf("no tokenizer (npm ci in tools/tokens): %v", err)
	}
	in, _ := json.Marshal(texts)
	cmd := exec.Command("node", "count.mjs")
	cmd.Dir = tokensDir
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node count.mjs: %v", err)
	}
	var counts map[string]int
	if err := json.Unmarshal(out, &counts); err != nil {
		t.Fatal(err)
	}
	return counts
}

// TestProfiles drives the gateway's /mcp with each --mcp-profile: what
// tools/list shows, and its exact o200k_base token count (the raw result
// as it came over the wire) held to DESIGN §13's goals; tool_search
// finds tools from draughtsmen's words; a tool the profile does not list
// is called by name.
func TestProfiles(t *testing.T) {
	texts := map[string]string{}
	counts := map[string]int{}
	for _, tc := range []struct {
		profile      string
		listed, gone []string
		most         int
	}{
		{"discover", []string{"cad_batch", "tool_search", "tool_describe", "document_create", "document_info", "document_import", "document_export"}, []string{"entity_create_line", "entity_get"}, 8},
		{"lean", []string{"cad_batch", "tool_search", "tool_describe", "entity_create_line", "entity_offset", "layer_create", "hatch_create"}, []string{"entity_scale", "transaction_begin", "point_pick"}, 35},
		{"full", []string{"cad_batch", "tool_search", "entity_scale", "point_pick", "block_delete"}, nil, 1000},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			endpoint := startGateway(t, "--mcp-profile", tc.profile)
			cs := dial(t, &mcpsdk.StreamableClientTransport{Endpoint: endpoint}, "2025-11-25", &user{})
			ctx := context.Background()
			list, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range list.Tools {
				names = append(names, tl.Name)
			}
			for _, n := range tc.listed {
				if !slices.Contains(names, n) {
					t.Errorf("%s lists %v, want %s among them", tc.profile, names, n)
				}
			}
			for _, n := range tc.gone {
				if slices.Contains(names, n) {
					t.Errorf("%s lists %s, want it left out", tc.profile, n)
				}
			}
			if len(names) > tc.most {
				t.Errorf("%s lists %d tools, want at most %d", tc.profile, len(names), tc.most)
			}
			raw, err := json.Marshal(struct {
				Tools []*mcpsdk.Tool `json:"tools"`
			}{list.Tools})
			if err != nil {
				t.Fatal(err)
			}
			texts[tc.profile] = string(raw)
			counts[tc.profile] = len(list.Tools)

			_, found := callTool(t, cs, "tool_search", map[string]any{"query": "draw a circle", "limit": 3})
			tools, _ := found["tools"].([]any)
			if len(tools) == 0 || tools[0].(map[string]any)["name"] != "entity_create_circle" {
				t.Errorf("tool_search(draw a circle) = %v, want entity_create_circle first", found)
			}
			_, described := callTool(t, cs, "tool_describe", map[string]any{"names": []any{"entity_scale"}})
			if d, _ := json.Marshal(described); !strings.Contains(string(d), `"factor"`) || !strings.Contains(string(d), `"$schema"`) {
				t.Errorf("tool_describe(entity_scale) = %s, want its full input schema", d)
			}
			_, created := callTool(t, cs, "document_create", map[string]any{"name": tc.profile})
			doc, _ := created["document"].(map[string]any)["document_id"].(string)
			_, c := callTool(t, cs, "entity_create_circle", map[string]any{"document_id": doc, "cx": 0, "cy": 0, "radius": 2})
			res, scaled := callTool(t, cs, "entity_scale", map[string]any{"document_id": doc, "handle": c["handle"], "base_x": 0, "base_y": 0, "factor": 2})
			if res.IsError || scaled["handle"] != c["handle"] {
				t.Errorf("entity_scale by name under %s = %+v, want the circle scaled", tc.profile, res)
			}
		})
	}
	if len(texts) != 3 {
		return
	}
	tokens := countTokens(t, texts)
	for profile, limit := range map[string]int{"discover": 1500, "lean": 6000, "full": 250 * counts["full"]} {
		t.Logf("tools/list, profile %s: %d tools, %d bytes, %d o200k_base tokens", profile, counts[profile], len(texts[profile]), tokens[profile])
		if tokens[profile] == 0 || tokens[profile] > limit {
			t.Errorf("profile %s: tools/list is %d tokens, want at most %d", profile, tokens[profile], limit)
		}
	}
}

// TestCatalogCost: "cadbridge mcp --catalog" prints each profile's and
// group's cost, exactly counted when it finds tools/tokens.
func TestCatalogCost(t *testing.T) {
	countTokens(t, map[string]string{}) // skips (or fails under CI) without the tokenizer
	cmd := exec.Command(proctest.Bin("cadbridge"), "mcp", "--catalog")
	cmd.Env = append(os.Environ(), "CADBRIDGE_TOKENS_DIR="+tokensDir, "CADBRIDGE_MCP_PROFILE=discover")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cadbridge mcp --catalog: %v\n%s", err, out)
	}
	for _, want := range []string{"o200k_base, exact", "\nlean ", "\nfull ", "\ndiscover ", "(served)", "\nentity ", "\ntool "} {
		if !strings.Contains(string(out), want) {
			t.Errorf("cadbridge mcp --catalog lacks %q:\n%s", want, out)
		}
	}
	t.Logf("%s", out)
}
