package examples_test

import (
	"bytes"
	"encoding/json"
	"flag"
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

var update = flag.Bool("update", false, "rewrite the expected SVGs from the drawings the examples make")

func TestMain(m *testing.M) { os.Exit(cadctltest.Main(m)) }

// example is one run of a batch file with cadctl, and what it must do.
type example struct {
	name string   // the expected drawing is name.svg
	file string   // the batch
	args []string // extra cadctl flags
	// export are extra flags of cadctl export (a paper and a plot scale);
	// with png, the example also has a golden PNG, name.png.
	export []string
	png    bool
	// ok, status and counts are the batch result's.
	ok                                   bool
	status                               string
	executed, succeeded, failed, skipped int
}

var examples = []example{
	{name: "bracket", file: "bracket.json", png: true, ok: true, status: "completed", executed: 43, succeeded: 43},
	// The drafting toolset: fillets, a polar array, trims, a traced boundary hatched, a block with attributes.
	{name: "flange", file: "flange.json", png: true, ok: true, status: "completed", executed: 26, succeeded: 26},
	// The floor plan is plotted on A3 at 1:50.
	{name: "floorplan", file: "floorplan.json", export: []string{"--paper", "a3", "--scale", "50"}, png: true, ok: true, status: "completed", executed: 33, succeeded: 33},
	// The same failing batch under each on_error mode: step 4 moves an
	// entity on a layer step 3 locked, and is refused. Under continue every
	// step ran, so the batch is completed, but not ok.
	{name: "failing-stop", file: "failing.json", args: []string{"--on-error", "stop"}, status: "failed", executed: 5, succeeded: 4, failed: 1, skipped: 2},
	{name: "failing-continue", file: "failing.json", args: []string{"--on-error", "continue"}, status: "completed", executed: 7, succeeded: 6, failed: 1},
	{name: "failing-rollback", file: "failing.json", args: []string{"--on-error", "rollback"}, status: "rolled_back", executed: 5, succeeded: 4, failed: 1, skipped: 2},
	// Constraints (issue #40): a plate drawn roughly and made exact, its bore
	// centred; then the same made 160 wide by one constraint_set_value.
	{name: "sketch", file: "sketch.json", png: true, ok: true, status: "completed", executed: 24, succeeded: 24},
	{name: "sketch-wider", file: "sketch-wider.json", png: true, ok: true, status: "completed", executed: 25, succeeded: 25},
}

var createdDocument = regexp.MustCompile(`created document (doc-[0-9a-f]+)`)

// TestExamples runs every example as the README shows (cadctl batch FILE,
// then cadctl export), checks the batch result, compares the SVG with the
// one checked in (go test ./examples -update rewrites them), and audits the
// DXF with ezdxf when it is installed.
func TestExamples(t *testing.T) {
	s := cadctltest.Start(t)
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			res := s.Cadctl(t, append([]string{"batch", ex.file, "--json"}, ex.args...)...)
			wantCode := 0
			if !ex.ok {
				wantCode = 1
			}
			if res.Code != wantCode {
				t.Fatalf("cadctl batch %s: %s\nwant exit %d", ex.file, res, wantCode)
			}
			m := createdDocument.FindStringSubmatch(res.Stderr)
			if m == nil {
				t.Fatalf("cadctl batch did not say which document it created:\n%s", res.Stderr)
			}
			doc := m[1]
			checkResult(t, ex, res.Stdout)

			dir := t.TempDir()
			svgPath := filepath.Join(dir, ex.name+".svg")
			if r := s.Cadctl(t, append([]string{"export", doc, "--format", "svg", "-o", svgPath}, ex.export...)...); r.Code != 0 {
				t.Fatalf("cadctl export svg: %s", r)
			}
			got, err := os.ReadFile(svgPath)
			if err != nil {
				t.Fatal(err)
			}
			golden := ex.name + ".svg"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./examples -update to create it)", err)
			}
			if diff := firstDifference(canonicalSVG(string(want)), canonicalSVG(string(got))); diff != "" {
				t.Errorf("the drawing differs from %s (go test ./examples -update rewrites it):\n%s", golden, diff)
			}

			if ex.png {
				checkPNG(t, s, doc, ex, dir)
			}

			dxfPath := filepath.Join(dir, ex.name+".dxf")
			if r := s.Cadctl(t, "export", doc, "-o", dxfPath); r.Code != 0 {
				t.Fatalf("cadctl export dxf: %s", r)
			}
			dxf, err := os.ReadFile(dxfPath)
			if err != nil {
				t.Fatal(err)
			}
			cadctltest.AuditDXF(t, string(dxf))
		})
	}
}

// checkResult checks the batch result cadctl printed with --json.
func checkResult(t *testing.T, ex example, stdout string) {
	t.Helper()
	var res struct {
		OK     bool   `json:"ok"`
		Status string `json:"status"`
		Counts struct {
			Executed, Succeeded, Failed, Skipped int
		} `json:"counts"`
		Results []struct {
			I      int    `json:"i"`
			Status string `json:"status"`
			Error  *struct {
				Kind string `json:"kind"`
			} `json:"error"`
		} `json:"results"`
		Atomicity struct {
			RolledBack bool `json:"rolled_back"`
			Verified   bool `json:"verified"`
		} `json:"atomicity"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("--json output %q: %v", stdout, err)
	}
	c := res.Counts
	if res.Status != ex.status || res.OK != ex.ok || c.Executed != ex.executed || c.Succeeded != ex.succeeded || c.Failed != ex.failed || c.Skipped != ex.skipped {
		t.Errorf("batch %s %v = ok %v, status %s, counts %+v; want ok %v, status %s, counts {%d %d %d %d}",
			ex.file, ex.args, res.OK, res.Status, c, ex.ok, ex.status, ex.executed, ex.succeeded, ex.failed, ex.skipped)
	}
	if ex.failed > 0 {
		refused := false
		for _, r := range res.Results {
			if r.I == 4 && r.Status == "error" && r.Error != nil && r.Error.Kind == "refused" {
				refused = true
			}
		}
		if !refused {
			t.Errorf("step 4 of %s: want status error, kind refused; results %+v", ex.file, res.Results)
		}
	}
	if ex.status == "rolled_back" && (!res.Atomicity.RolledBack || !res.Atomicity.Verified) {
		t.Errorf("atomicity = %+v, want rolled back and verified", res.Atomicity)
	}
}

var number = regexp.MustCompile(`-?\d+(\.\d+)?(e[-+]?\d+)?`)

// canonicalSVG rounds every number to 1e-6, so that the comparison does
// not depend on the last bits of floating point (fused multiply-add on
// some processors).
func canonicalSVG(s string) string {
	return number.ReplaceAllStringFunc(s, func(n string) string {
		f, err := strconv.ParseFloat(n, 64)
		if err != nil {
			return n
		}
		r := math.Round(f*1e6) / 1e6
		if r == 0 {
			r = 0 // no -0
		}
		return strconv.FormatFloat(r, 'f', -1, 64)
	})
}

// firstDifference describes the first line where want and got differ, or
// returns "" if they are equal.
func firstDifference(want, got string) string {
	if want == got {
		return ""
	}
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  want " + wl + "\n  got  " + gl
		}
	}
	return "the files differ"
}

// checkPNG exports the example as PNG (as its SVG) and compares it with
// the golden name.png pixel by pixel: at most 0.2% of the pixels may
// differ (anti-aliasing at the last bits of floating point).
func checkPNG(t *testing.T, s *cadctltest.Services, doc string, ex example, dir string) {
	t.Helper()
	path := filepath.Join(dir, ex.name+".png")
	if r := s.Cadctl(t, append([]string{"export", doc, "--format", "png", "-o", path}, ex.export...)...); r.Code != 0 {
		t.Fatalf("cadctl export png: %s", r)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden := ex.name + ".png"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	comparePNG(t, golden, got)
}

// comparePNG compares a PNG with the golden file pixel by pixel: at most
// 0.2% of the pixels may differ (anti-aliasing at the last bits of
// floating point).
func comparePNG(t *testing.T, golden string, got []byte) {
	t.Helper()
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./examples -update to create it)", err)
	}
	a, err := png.Decode(bytes.NewReader(want))
	if err != nil {
		t.Fatalf("%s: %v", golden, err)
	}
	b, err := png.Decode(bytes.NewReader(got))
	if err != nil {
		t.Fatalf("the PNG does not decode: %v", err)
	}
	if a.Bounds() != b.Bounds() {
		t.Fatalf("the PNG is %v, %s is %v (go test ./examples -update rewrites it)", b.Bounds(), golden, a.Bounds())
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
		t.Errorf("%d of %d pixels differ from %s (go test ./examples -update rewrites it)", differ, n, golden)
	}
}
