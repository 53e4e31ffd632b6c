package tokens_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/internal/tokens"
)

// tokensDir is the npm package with tiktoken (npm ci in tools/tokens).
var tokensDir = filepath.Join("..", "..", "tools", "tokens")

// need loads the table; without it the test skips, except under CI=true.
func need(t *testing.T) *tokens.Encoding {
	t.Helper()
	e, err := tokens.Load(filepath.Join(tokensDir, "node_modules", "tiktoken", "encoders", "o200k_base.json"))
	if err == nil {
		_, err = exec.LookPath("node")
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no o200k_base table or node under CI (npm ci in tools/tokens): %v", err)
		}
		t.Skipf("no o200k_base table or node (npm ci in tools/tokens): %v", err)
	}
	return e
}

// TestCountAgreesWithTiktoken counts texts with this package and with npm
// tiktoken (tools/tokens/count.mjs): the counts must be equal.
func TestCountAgreesWithTiktoken(t *testing.T) {
	e := need(t)
	texts := map[string]string{
		"empty":       "",
		"words":       "Create a line from (x1, y1) to (x2, y2), in document units.",
		"json":        `{"tools":[{"name":"entity_create_line","inputSchema":{"properties":{"x1":{"type":"number"}},"required":["x1"]}}]}`,
		"spaces":      "a  b   c \t d\n\n  e   \r\n f    ",
		"numbers":     "12345678 3.14159 -2147483648 1e-6 0x1F",
		"contraction": "It's what they'll do, DON'T WE'VE I'm",
		"unicode":     "Bemaßung größer, congé, empalme, círculo Ø 25 ± 0,1 — 直径 √2 😀",
		"code":        "func (e *Encoding) Count(text string) int {\n\tn := 0\n\treturn n\n}\n",
		"punctuation": `"$name.field" …//\\ ^(?:[Bb][Yy])$ <tag/> &amp;`,
		"mixed case":  "CamelCaseWords HTTPServer iPhone ABCdef xYZ",
		"newlines":    "line\n\n\nnext\r\n\r\n  indented\n",
	}
	// And the catalog's own words: every description and keyword list of
	// a sizeable document.
	var long strings.Builder
	for i := 0; i < 50; i++ {
		long.WriteString(`{"annotations":{"destructiveHint":false},"description":"Make a parallel copy at a distance; positive is left.","name":"entity_offset"}`)
	}
	texts["long"] = long.String()
	in, _ := json.Marshal(texts)
	cmd := exec.Command("node", "count.mjs")
	cmd.Dir = tokensDir
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node count.mjs: %v", err)
	}
	var want map[string]int
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	for name, text := range texts {
		if got := e.Count(text); got != want[name] {
			t.Errorf("Count(%s %q) = %d, want %d (tiktoken)", name, text, got, want[name])
		}
	}
}
