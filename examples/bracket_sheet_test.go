package examples_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/cmd/cadctl/cadctltest"
)

// TestBracketSheet runs examples/bracket_sheet.json through the built
// binaries: the bracket of bracket.json put on an A3 sheet (DESIGN §12)
// in a viewport at 2:1 with an ISO title block, filled in and edited, and
// plotted by the batch's last two steps (document_export with layout).
// It checks the plot on its paper (A3 in millimetres; the plate's 104 mm
// straight bottom edge 208 mm long, the dimensions reading the model's
// lengths), then compares the SVG and the PNG
// with bracket_sheet.svg and bracket_sheet.png (go test ./examples
// -update rewrites them).
func TestBracketSheet(t *testing.T) {
	s := cadctltest.Start(t)
	res := s.Cadctl(t, "batch", "bracket_sheet.json", "--json")
	if res.Code != 0 {
		t.Fatalf("cadctl batch bracket_sheet.json: %s", res)
	}
	var batch struct {
		OK       bool                       `json:"ok"`
		Bindings map[string]json.RawMessage `json:"bindings"`
		Results  []struct {
			Tool   string          `json:"tool"`
			Result json.RawMessage `json:"result"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &batch); err != nil {
		t.Fatal(err)
	}
	var svg string
	var pic []byte
	for _, r := range batch.Results {
		var x struct {
			Format  string `json:"format"`
			Content string `json:"content"`
			Data    string `json:"data"`
		}
		if len(r.Result) == 0 {
			continue
		}
		decode(t, r.Result, &x)
		switch {
		case r.Tool == "document_export" && x.Format == "svg":
			svg = x.Content
		case r.Tool == "document_export" && x.Format == "png":
			b, err := base64.StdEncoding.DecodeString(x.Data)
			if err != nil {
				t.Fatal(err)
			}
			pic = b
		}
	}
	if !batch.OK || svg == "" || pic == nil {
		t.Fatalf("the batch did not plot the sheet (ok %v, svg %d bytes, png %d bytes)", batch.OK, len(svg), len(pic))
	}
	if !strings.Contains(svg, `width="420mm" height="297mm"`) {
		t.Error("the sheet is not A3 landscape in millimetres")
	}
	// The plate's bottom edge runs from (8, 0) to (112, 0): 104 mm of
	// model, 208 of paper.
	var plate string
	decode(t, batch.Bindings["plate"], &plate)
	m := regexp.MustCompile(`data-handle="` + plate + `"[^>]* d="M ([-0-9.e]+) ([-0-9.e]+) L ([-0-9.e]+) ([-0-9.e]+)`).FindStringSubmatch(svg)
	if m == nil {
		t.Fatalf("the plate %s is not drawn as a path", plate)
	}
	var v [4]float64
	for i := range v {
		v[i], _ = strconv.ParseFloat(m[i+1], 64)
	}
	if l := math.Hypot(v[2]-v[0], v[3]-v[1]); math.Abs(l-208) > 1e-9 {
		t.Errorf("the plate's bottom edge is %v mm on paper, want 208", l)
	}
	for _, field := range []string{">Bracket</text>", ">CB-0001</text>", ">reviewer</text>"} {
		if !strings.Contains(svg, field) {
			t.Errorf("the title block does not show %s", field)
		}
	}
	// The dimensions read the model's lengths, not the paper's.
	for _, dim := range []string{">120</text>", ">64</text>", ">Ø30</text>", ">PCD Ø56</text>"} {
		if !strings.Contains(svg, dim) {
			t.Errorf("the sheet does not show the dimension %s", dim)
		}
	}

	// cadctl export --layout plots the sheet too: an A3 page in points.
	doc := createdDocument.FindStringSubmatch(res.Stderr)
	if doc == nil {
		t.Fatalf("cadctl batch did not say which document it created:\n%s", res.Stderr)
	}
	pdfPath := filepath.Join(t.TempDir(), "sheet.pdf")
	if r := s.Cadctl(t, "export", doc[1], "--layout", "A3", "-o", pdfPath); r.Code != 0 {
		t.Fatalf("cadctl export --layout A3: %s", r)
	}
	pdf, err := os.ReadFile(pdfPath)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`/MediaBox\s*\[\s*0 0 1190\.55\d* 841\.889\d*\s*\]`).Match(pdf) {
		t.Error("cadctl export --layout A3 did not write an A3 page (1190.55 × 841.89 pt)")
	}

	if *update {
		if err := os.WriteFile("bracket_sheet.svg", []byte(svg), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("bracket_sheet.png", pic, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("bracket_sheet.svg")
	if err != nil {
		t.Fatalf("%v (run go test ./examples -update to create it)", err)
	}
	if diff := firstDifference(canonicalSVG(string(want)), canonicalSVG(svg)); diff != "" {
		t.Errorf("the sheet differs from bracket_sheet.svg (go test ./examples -update rewrites it):\n%s", diff)
	}
	golden, err := os.ReadFile("bracket_sheet.png")
	if err != nil {
		t.Fatal(err)
	}
	a, err := png.Decode(bytes.NewReader(golden))
	if err != nil {
		t.Fatal(err)
	}
	b, err := png.Decode(bytes.NewReader(pic))
	if err != nil {
		t.Fatalf("the plotted PNG does not decode: %v", err)
	}
	if a.Bounds() != b.Bounds() {
		t.Fatalf("the PNG is %v, bracket_sheet.png is %v", b.Bounds(), a.Bounds())
	}
	differ := 0
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				differ++
			}
		}
	}
	if n := r.Dx() * r.Dy(); differ*500 > n {
		t.Errorf("%d of %d pixels differ from bracket_sheet.png (go test ./examples -update rewrites it)", differ, n)
	}
}
