package engine_test

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// searchResult is tool_search's result.
type searchResult struct {
	Tools []struct {
		Name    string  `json:"name"`
		Summary string  `json:"summary"`
		Score   float64 `json:"score"`
	} `json:"tools"`
}

func (r searchResult) names() []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Name)
	}
	return out
}

func search(t *testing.T, e *fixture, query string, limit int) searchResult {
	t.Helper()
	args := obj{"query": query}
	if limit > 0 {
		args["limit"] = limit
	}
	resp := callTool(t, e.e, "", enginev1.ToolToolSearch, args)
	if !resp.Ok {
		t.Fatalf("tool_search %q: %v", query, resp.Error)
	}
	var r searchResult
	if err := json.Unmarshal(resp.ResultJson, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestToolSearchQueries runs the query set of testdata: command names and
// aliases, plain requests, German, French and Spanish words and
// misspellings, each with the tool it should find. Queries for tools the
// catalog does not have are left out.
func TestToolSearchQueries(t *testing.T) {
	f := newFixture(t)
	inCatalog := map[string]bool{}
	for _, ti := range enginev1.Tools {
		inCatalog[ti.Name] = true
	}
	file, err := os.Open("testdata/tool_search_queries.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var evaluated, top1, top3, skipped int
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		want, query, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("query line %q: want \"tool<TAB>query\"", line)
		}
		if !inCatalog[want] {
			skipped++
			continue
		}
		evaluated++
		got := search(t, f, query, 3).names()
		switch i := slices.Index(got, want); {
		case i == 0:
			top1++
			top3++
		case i > 0:
			top3++
			t.Logf("%q: %s is #%d of %v", query, want, i+1, got)
		default:
			t.Logf("%q: %s not in the top 3 %v", query, want, got)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	p1, p3 := float64(top1)/float64(evaluated), float64(top3)/float64(evaluated)
	t.Logf("tool_search: %d queries evaluated (%d for tools not in the catalog left out): top-1 %.1f%%, top-3 %.1f%%", evaluated, skipped, 100*p1, 100*p3)
	if evaluated < 150 {
		t.Errorf("%d queries evaluated, want at least 150", evaluated)
	}
	if p1 < 0.90 {
		t.Errorf("top-1 = %.1f%%, want >= 90%%", 100*p1)
	}
	if p3 < 0.98 {
		t.Errorf("top-3 = %.1f%%, want >= 98%%", 100*p3)
	}
}
