package mcp

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

func names(tools []*tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.name)
	}
	return out
}

// TestProfiles: every profile lists the base tools the catalog has; full
// lists all, lean the tools marked lean, discover the four document tools
// besides; --mcp-tools still chooses by hand.
func TestProfiles(t *testing.T) {
	catalog, err := Catalog()
	if err != nil {
		t.Fatal(err)
	}
	all := names(catalog)
	var base []string
	for _, n := range baseTools {
		if slices.Contains(all, n) {
			base = append(base, n)
		}
	}
	for _, n := range []string{BatchTool, enginev1.ToolToolSearch, enginev1.ToolToolDescribe} {
		if !slices.Contains(base, n) {
			t.Fatalf("the catalog has no %s", n)
		}
	}
	var lean []string
	for _, ti := range enginev1.Tools {
		if ti.Lean {
			lean = append(lean, ti.Name)
		}
	}
	for _, tc := range []struct {
		profile string
		want    []string
	}{
		{ProfileFull, all},
		{ProfileLean, append(slices.Clone(base), lean...)},
		{ProfileDiscover, append(slices.Clone(base), discoverTools...)},
		{"", append(slices.Clone(base), lean...)},
	} {
		listed, err := Listed(catalog, tc.profile, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := names(listed)
		slices.Sort(got)
		slices.Sort(tc.want)
		if !slices.Equal(got, slices.Compact(tc.want)) {
			t.Errorf("Listed(%q) = %v, want %v", tc.profile, got, tc.want)
		}
	}
	if n := len(lean); n < 20 || n > 30 {
		t.Errorf("%d tools are marked lean, want about 25", n)
	}
	if _, err := Listed(catalog, "tiny", nil); err == nil {
		t.Errorf("Listed(tiny) = nil error, want an unknown profile")
	}
	if got, err := Listed(catalog, ProfileDiscover, []string{"layer"}); err != nil || len(got) != 12 {
		t.Errorf("Listed with --mcp-tools layer = %v, %v; want the 12 layer tools (7, and issue 39's freeze, thaw, hide, show, isolate)", names(got), err)
	}
}

// TestListedSchemas: every listed schema, compacted, still compiles, and
// the compaction keeps what an agent needs (properties, required, enums)
// and drops the engine's own keywords.
func TestListedSchemas(t *testing.T) {
	catalog, err := Catalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range catalog {
		in, _ := json.Marshal(tl.mcp.InputSchema)
		out, _ := json.Marshal(tl.mcp.OutputSchema)
		for kind, s := range map[string][]byte{"input": in, "output": out} {
			if _, err := contract.CompileSchema(tl.name+"."+kind, string(s)); err != nil {
				t.Errorf("%s %s schema: %v", tl.name, kind, err)
			}
			for _, gone := range []string{`"$schema"`, `"x-cad-handle"`, `"additionalProperties":false`, `cad.engine.v1.`} {
				if slices.Contains([]string{"cad_batch"}, tl.name) && gone == `cad.engine.v1.` {
					continue
				}
				if json.Valid(s) && contains(s, gone) {
					t.Errorf("%s %s schema has %s", tl.name, kind, gone)
				}
			}
		}
	}
	line := byName(catalog, enginev1.ToolEntityCreateLine)
	in, _ := json.Marshal(line.mcp.InputSchema)
	for _, want := range []string{`"x1"`, `"document_id"`, `"required":["x1","y1","x2","y2"]`, `"examples":["ByLayer"`} {
		if !contains(in, want) {
			t.Errorf("entity_create_line input schema %s lacks %s", in, want)
		}
	}
	create := byName(catalog, enginev1.ToolDocumentCreate)
	if in, _ := json.Marshal(create.mcp.InputSchema); contains(in, "document_id") {
		t.Errorf("document_create lists document_id: %s", in)
	}
}

func byName(catalog []*tool, name string) *tool {
	for _, t := range catalog {
		if t.name == name {
			return t
		}
	}
	return nil
}

func contains(b []byte, s string) bool { return strings.Contains(string(b), s) }

// TestCatalogTokens counts each profile's tools/list in o200k_base tokens
// with npm tiktoken (tools/tokens) and holds them to DESIGN §13's goals.
// Without node or tools/tokens/node_modules it skips, except under
// CI=true, where it fails.
func TestCatalogTokens(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "tools", "tokens"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("CADBRIDGE_TOKENS_DIR", dir)
	dir, err = FindTokenizer()
	if err == nil {
		_, err = exec.LookPath("node")
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no tokenizer under CI: %v", err)
		}
		t.Skipf("no tokenizer: %v", err)
	}
	catalog, err := Catalog()
	if err != nil {
		t.Fatal(err)
	}
	profiles, groups, err := CatalogCost(catalog, NodeTokenCounter(dir))
	if err != nil {
		t.Fatal(err)
	}
	// cadbridge mcp --catalog counts in Go: the same numbers.
	goCount, err := GoTokenCounter(dir)
	if err != nil {
		t.Fatal(err)
	}
	goProfiles, goGroups, err := CatalogCost(catalog, goCount)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(profiles, goProfiles) || !slices.Equal(groups, goGroups) {
		t.Errorf("Go counts %v %v, tiktoken's %v %v; want the same", goProfiles, goGroups, profiles, groups)
	}
	// The counter against a known count: o200k_base of this text.
	if c, err := NodeTokenCounter(dir)(map[string]string{"x": `{"tools":[]}`}); err != nil || c["x"] != 4 {
		t.Errorf(`tokens of {"tools":[]} = %v, %v; want 4`, c, err)
	}
	for _, c := range append(profiles, groups...) {
		t.Logf("%-12s %3d tools %6d bytes %6d tokens (%d a tool)", c.Name, c.Tools, c.Bytes, c.Tokens, c.Tokens/c.Tools)
	}
	for _, c := range profiles {
		var limit int
		switch c.Name {
		case ProfileDiscover:
			limit = 1500
		case ProfileLean:
			limit = 6000
		case ProfileFull:
			limit = 250 * c.Tools
		}
		if !c.Exact || c.Tokens > limit || c.Tokens < c.Bytes/8 {
			t.Errorf("profile %s: %d tokens (exact %v), want at most %d", c.Name, c.Tokens, c.Exact, limit)
		}
	}
}
