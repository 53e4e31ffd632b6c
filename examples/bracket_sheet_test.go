package examples_test

import (
	"encoding/base64"
	"encoding/json"
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
	sh := runSheet(t, s, "bracket_sheet.json")
	svg := sh.svg
	// The plate's bottom edge runs from (8, 0) to (112, 0): 104 mm of
	// model, 208 of paper.
	var plate string
	decode(t, sh.bindings["plate"], &plate)
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
	pdfPath := filepath.Join(t.TempDir(), "sheet.pdf")
	if r := s.Cadctl(t, "export", sh.doc, "--layout", "A3", "-o", pdfPath); r.Code != 0 {
		t.Fatalf("cadctl export --layout A3: %s", r)
	}
	pdf, err := os.ReadFile(pdfPath)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`/MediaBox\s*\[\s*0 0 1190\.55\d* 841\.889\d*\s*\]`).Match(pdf) {
		t.Error("cadctl export --layout A3 did not write an A3 page (1190.55 × 841.89 pt)")
	}
	compareSheet(t, "bracket_sheet", sh)
}

// TestFloorplanSheet runs examples/floorplan_sheet.json: the floor plan
// of floorplan.json on an A3 sheet at 1:50 with a title block, plotted
// by the batch (its viewport on layer 0, made current again); the
// dimensions read the model's millimetres (10000), not the paper's 200.
func TestFloorplanSheet(t *testing.T) {
	s := cadctltest.Start(t)
	sh := runSheet(t, s, "floorplan_sheet.json")
	for _, want := range []string{">10000</text>", ">Floor plan</text>", ">1:50</text>"} {
		if !strings.Contains(sh.svg, want) {
			t.Errorf("the sheet does not show %s", want)
		}
	}
	compareSheet(t, "floorplan_sheet", sh)
}

// sheetRun is what a sheet example's batch made: its document, its
// bindings, and the SVG and PNG its document_export steps plotted.
type sheetRun struct {
	doc      string
	bindings map[string]json.RawMessage
	svg      string
	png      []byte
}

// runSheet runs a batch that ends by plotting a layout as SVG and PNG.
func runSheet(t *testing.T, s *cadctltest.Services, file string) sheetRun {
	t.Helper()
	res := s.Cadctl(t, "batch", file, "--json")
	if res.Code != 0 {
		t.Fatalf("cadctl batch %s: %s", file, res)
	}
	doc := createdDocument.FindStringSubmatch(res.Stderr)
	if doc == nil {
		t.Fatalf("cadctl batch did not say which document it created:\n%s", res.Stderr)
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
	out := sheetRun{doc: doc[1], bindings: batch.Bindings}
	for _, r := range batch.Results {
		if r.Tool != "document_export" || len(r.Result) == 0 {
			continue
		}
		var x struct {
			Format  string `json:"format"`
			Content string `json:"content"`
			Data    string `json:"data"`
		}
		decode(t, r.Result, &x)
		switch x.Format {
		case "svg":
			out.svg = x.Content
		case "png":
			b, err := base64.StdEncoding.DecodeString(x.Data)
			if err != nil {
				t.Fatal(err)
			}
			out.png = b
		}
	}
	if !batch.OK || out.svg == "" || out.png == nil {
		t.Fatalf("%s did not plot its sheet (ok %v, svg %d bytes, png %d bytes)", file, batch.OK, len(out.svg), len(out.png))
	}
	if !strings.Contains(out.svg, `width="420mm" height="297mm"`) {
		t.Errorf("%s: the sheet is not A3 landscape in millimetres", file)
	}
	// The DXF, layout, viewport and title block with it, audits clean.
	dxfPath := filepath.Join(t.TempDir(), "sheet.dxf")
	if r := s.Cadctl(t, "export", out.doc, "-o", dxfPath); r.Code != 0 {
		t.Fatalf("cadctl export dxf: %s", r)
	}
	dxf, err := os.ReadFile(dxfPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(dxf), "TITLEBLOCK_ISO_A3") {
		t.Errorf("%s: the DXF has no title block", file)
	}
	cadctltest.AuditDXF(t, string(dxf))
	return out
}

// compareSheet compares a sheet's plots with name.svg and name.png (go
// test ./examples -update rewrites them): the SVG to 1e-6, the PNG to
// 0.2% of its pixels.
func compareSheet(t *testing.T, name string, sh sheetRun) {
	t.Helper()
	if *update {
		if err := os.WriteFile(name+".svg", []byte(sh.svg), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name+".png", sh.png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(name + ".svg")
	if err != nil {
		t.Fatalf("%v (run go test ./examples -update to create it)", err)
	}
	if diff := firstDifference(canonicalSVG(string(want)), canonicalSVG(sh.svg)); diff != "" {
		t.Errorf("the sheet differs from %s.svg (go test ./examples -update rewrites it):\n%s", name, diff)
	}
	comparePNG(t, name+".png", sh.png)
}
