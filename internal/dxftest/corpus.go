package dxftest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"unicode/utf8"
)

// The corpus of real DXF files beside the project (../shared/dxfcorpus:
// 99 files that other programs wrote, and what ezdxf reads in each). Tests
// read it where it is, never from a copy.

// Oracle is what ezdxf reads in one corpus file (the fields of the
// corpus's oracle.json that the tests use; oracle.py defines them all).
type Oracle struct {
	Loads      bool           `json:"loads"`
	LoadMode   string         `json:"load_mode"`
	ACADVer    *string        `json:"acadver"`
	InsUnits   *int           `json:"insunits"`
	Modelspace map[string]int `json:"modelspace"`
	Paperspace map[string]int `json:"paperspace"`
	// Layouts are the paper-space layouts, each with its entity count.
	Layouts       map[string]int `json:"layouts"`
	Extents       []float64      `json:"extents"`
	ExtentsNoText []float64      `json:"extents_no_text"`
	// ExtentsSkipped are the entities ezdxf left out of its extents, by
	// type.
	ExtentsSkipped map[string]int `json:"extents_skipped"`
	MaxInsertDepth int            `json:"max_insert_depth"`
}

// Corpus is the corpus's directory, or "" when the project's checkout has
// no ../shared beside it; under CI (CI=true), which always has it, that
// is a failure of tb.
func Corpus(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
	corpus := filepath.Join(dir, "..", "shared", "dxfcorpus")
	if _, err := os.Stat(filepath.Join(corpus, "oracle.json")); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("CI has ../shared/dxfcorpus beside the checkout, but: %v", err)
		}
		tb.Logf("no DXF corpus at %s; skipping", corpus)
		return ""
	}
	return corpus
}

// CorpusFile is one file of the corpus: its name, its bytes and what
// ezdxf reads in it.
type CorpusFile struct {
	Name   string
	Data   []byte
	Oracle Oracle
}

// CorpusFiles are the corpus's files in name order (nil, and tb skipped,
// when there is no corpus; see Corpus).
func CorpusFiles(tb testing.TB) []CorpusFile {
	tb.Helper()
	dir := Corpus(tb)
	if dir == "" {
		tb.SkipNow()
	}
	raw, err := os.ReadFile(filepath.Join(dir, "oracle.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var oracle map[string]Oracle
	if err := json.Unmarshal(raw, &oracle); err != nil {
		tb.Fatalf("oracle.json: %v", err)
	}
	names := make([]string, 0, len(oracle))
	for name := range oracle {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]CorpusFile, 0, len(names))
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, "files", name))
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, CorpusFile{Name: name, Data: data, Oracle: oracle[name]})
	}
	return out
}

// Text is a file's bytes as text for the wire (JSON, a proto string):
// UTF-8 as it is, anything else read as Latin-1, a character a byte, for
// the engine to decode by the file's code page (see dxf.ReadText).
func Text(data []byte) string {
	if utf8.Valid(data) {
		return string(data)
	}
	r := make([]rune, len(data))
	for i, b := range data {
		r[i] = rune(b)
	}
	return string(r)
}
