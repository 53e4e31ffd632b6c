package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

var update = flag.Bool("update", false, "rewrite the golden summaries in testdata/summary")

// TestPrintBatch renders batch results (testdata/summary/*.json) as the
// summary cadctl prints, compared with the .txt beside each.
func TestPrintBatch(t *testing.T) {
	files, err := filepath.Glob("testdata/summary/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no results in testdata/summary: %v", err)
	}
	// The steps of the batch behind completed.json, for its labels.
	steps := map[string][]stepSpec{"completed.json": {{Tool: "entity_create_circle", Bind: "bore"}, {Tool: "point_from_snap", Bind: "c"}}}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var res enginev1.ExecuteBatchResponse
			if err := contract.Unmarshal(data, &res); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			printBatch(&b, &res, steps[filepath.Base(file)])
			golden := strings.TrimSuffix(file, ".json") + ".txt"
			if *update {
				os.WriteFile(golden, []byte(b.String()), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./cmd/cadctl -run TestPrintBatch -update writes it)", err)
			}
			if b.String() != string(want) {
				t.Errorf("summary of %s:\n%s\nwant:\n%s", file, b.String(), want)
			}
		})
	}
}
