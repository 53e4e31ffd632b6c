package contract_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// TestSeedToolTable checks docs/seed-tools.md against the seed's list of
// tools (../shared/seed-tools.md) and the catalog: every seed tool has one
// row, and every cadbridge tool a row names is in the catalog, unless the
// row says the issue that will bring it. It prints how many rows have no
// equivalent.
func TestSeedToolTable(t *testing.T) {
	seedList, err := os.ReadFile("../../shared/seed-tools.md")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the seed's tool list: %v", err)
		}
		t.Skipf("the seed's tool list: %v", err)
	}
	table, err := os.ReadFile("../docs/seed-tools.md")
	if err != nil {
		t.Fatal(err)
	}
	seedRow := regexp.MustCompile("(?m)^\\| [a-z_]+ \\| `([a-z_0-9]+)` \\|")
	var seed []string
	for _, m := range seedRow.FindAllStringSubmatch(string(seedList), -1) {
		seed = append(seed, m[1])
	}
	if len(seed) != 154 {
		t.Fatalf("the seed's list has %d tools, want 154", len(seed))
	}

	catalog := map[string]bool{"cad_batch": true} // cad.batch, as MCP names it
	for _, tool := range enginev1.Tools {
		catalog[tool.Name] = true
	}
	rows := map[string]bool{}
	without, pending := 0, 0
	row := regexp.MustCompile("(?m)^\\| [a-z_]+ \\| `([a-z_0-9]+)` \\| ([^|]*) \\| ([^|]*) \\|$")
	name := regexp.MustCompile("`([a-z_0-9]+)`")
	for _, m := range row.FindAllStringSubmatch(string(table), -1) {
		seedTool, tools, note := m[1], m[2], m[3]
		if rows[seedTool] {
			t.Errorf("%s has two rows", seedTool)
		}
		rows[seedTool] = true
		if strings.TrimSpace(tools) == "—" {
			without++
			if strings.TrimSpace(note) == "" {
				t.Errorf("%s: no equivalent and no reason given", seedTool)
			}
			continue
		}
		waiting := strings.Contains(note, "*issue ")
		if waiting {
			pending++
		}
		for _, n := range name.FindAllStringSubmatch(tools, -1) {
			if !catalog[n[1]] && !waiting {
				t.Errorf("%s: %s is not a tool of the catalog", seedTool, n[1])
			}
		}
	}
	for _, s := range seed {
		if !rows[s] {
			t.Errorf("%s has no row in docs/seed-tools.md", s)
		}
	}
	if len(rows) != len(seed) {
		t.Errorf("docs/seed-tools.md has %d rows, want %d", len(rows), len(seed))
	}
	t.Logf("%d of %d seed tools have no equivalent; %d more wait for the issue their row names", without, len(seed), pending)
}
