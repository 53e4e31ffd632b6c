package architecture

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/cadbridge/cadbridge"

// rule forbids packages under from (a path below the module, or the
// module's root "") to import packages under any of to. stdlibOnly
// forbids every import outside the standard library instead.
type rule struct {
	from       string
	to         []string
	except     []string // allowed though under to
	stdlibOnly bool
	also       []string // with stdlibOnly: module paths allowed besides the standard library
	why        string
}

var rules = []rule{
	{from: "services", to: []string{"cmd"}, why: "services are used by mains, not the other way"},
	{from: "bridge", to: []string{"cmd", "services", "internal", "gen", "contract"}, why: "the JSON-RPC bridge knows nothing of cadbridge"},
	{from: "bridge/jsonrpc", stdlibOnly: true, why: "bridge/jsonrpc is standard library only"},
	{from: "services/cadengine", to: []string{"services/gateway"}, why: "the engine never imports the gateway"},
	{from: "services/gateway", to: []string{"services/cadengine"}, why: "the gateway reaches the engine over gRPC only"},
	{from: "services/gateway/viewer", stdlibOnly: true, why: "the viewer is static files and their handler, standard library only"},
	{from: "services/cadengine/geom", stdlibOnly: true, why: "geometry is standard library only"},
	{from: "services/cadengine/solve", stdlibOnly: true, also: []string{module + "/services/cadengine/geom"}, why: "the constraint solver is standard library and geom only"},
	{from: "services/cadengine/drawing", to: []string{"services/cadengine/engine", "services/cadengine/dxf", "services/cadengine/svg", "services/cadengine/plot", "services/cadengine/store"}, why: "the drawing model sits below the engine, its file formats and the stores"},
	{from: "services/cadengine/dxf", to: []string{"services/cadengine/engine", "services/cadengine/store", "services/cadengine/svg"}, why: "file formats never import the engine or the stores"},
	{from: "services/cadengine/svg", to: []string{"services/cadengine/engine", "services/cadengine/store", "services/cadengine/dxf"}, why: "file formats never import the engine or the stores"},
	{from: "services/cadengine/plot", to: []string{"services/cadengine/engine", "services/cadengine/store", "services/cadengine/dxf", "services/cadengine/svg"}, why: "file formats never import the engine or the stores"},
	{from: "services/cadengine/store", to: []string{"services/cadengine/engine", "services/cadengine/drawing", "services/cadengine/dxf", "services/cadengine/svg"}, why: "a store never imports the engine"},
	{from: "services/cadengine/engine", to: []string{"services/cadengine/store/memory", "services/cadengine/store/sqlite", "services/cadengine/store/postgres", "internal/stacktest"}, why: "the engine works on the Store interface; the service chooses the store"},
	{from: "gen", to: []string{"services", "internal", "cmd", "bridge", "contract"}, except: []string{"contract/jsonwire"}, why: "generated code is importable by other modules (its codecs need only their runtime, contract/jsonwire)"},
	{from: "contract/jsonwire", stdlibOnly: true, also: []string{"google.golang.org/protobuf"}, why: "the generated codecs' runtime needs only protobuf"},
}

// pkg is one package of the module: its path and its imports (not those
// of its tests).
type pkg struct {
	path    string
	imports []string
}

func TestImportArrows(t *testing.T) {
	pkgs, standard := listPackages(t)
	for _, v := range violations(rules, pkgs, standard) {
		t.Error(v)
	}
}

// TestRulesCatchViolations feeds the rules a package graph with every
// forbidden arrow: a rule that cannot fail would be no rule.
func TestRulesCatchViolations(t *testing.T) {
	standard := map[string]bool{"fmt": true}
	for _, r := range rules {
		from := module + "/" + r.from
		bad := "github.com/someone/else"
		if !r.stdlibOnly {
			bad = module + "/" + r.to[0]
		}
		got := violations([]rule{r}, []pkg{{path: from, imports: []string{"fmt", bad}}}, standard)
		if len(got) != 1 {
			t.Errorf("rule %q on %s importing %s: %d violations, want 1", r.why, from, bad, len(got))
		}
		if got := violations([]rule{r}, []pkg{{path: from, imports: []string{"fmt"}}}, standard); len(got) != 0 {
			t.Errorf("rule %q on %s importing fmt only: %v, want none", r.why, from, got)
		}
	}
}

func under(path, dir string) bool {
	p := module
	if dir != "" {
		p += "/" + dir
	}
	return path == p || strings.HasPrefix(path, p+"/")
}

func violations(rules []rule, pkgs []pkg, standard map[string]bool) []string {
	var out []string
	for _, p := range pkgs {
		for _, r := range rules {
			if !under(p.path, r.from) {
				continue
			}
			for _, imp := range p.imports {
				bad := false
				if r.stdlibOnly {
					bad = !standard[imp]
					for _, a := range r.also {
						bad = bad && imp != a && !strings.HasPrefix(imp, a+"/")
					}
				}
				for _, to := range r.to {
					bad = bad || under(imp, to)
				}
				for _, ok := range r.except {
					bad = bad && !under(imp, ok)
				}
				if bad {
					out = append(out, fmt.Sprintf("%s imports %s: %s", strings.TrimPrefix(p.path, module+"/"), imp, r.why))
				}
			}
		}
	}
	return out
}

// statSources looks at a package's folder and files, so that go test's
// cache, which knows only what a test opened or looked at (not what go
// list read), runs the test again when an import changes or a file is
// added.
func statSources(dir string, files []string) {
	os.Stat(dir)
	for _, f := range files {
		os.Stat(filepath.Join(dir, f))
	}
}

// listPackages lists every package of the module with its imports, and
// which import paths are in the standard library.
func listPackages(t *testing.T) ([]pkg, map[string]bool) {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}\t{{.Standard}}\t{{join .Imports \" \"}}\t{{.Dir}}\t{{join .GoFiles \" \"}}", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	standard := map[string]bool{}
	var pkgs []pkg
	for _, line := range strings.Split(strings.TrimSpace(string(outb)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			t.Fatalf("go list line %q", line)
		}
		if f[1] == "true" {
			standard[f[0]] = true
		}
		if under(f[0], "") {
			pkgs = append(pkgs, pkg{path: f[0], imports: strings.Fields(f[2])})
			statSources(f[3], strings.Fields(f[4]))
		}
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages of the module, want the whole tree", len(pkgs))
	}
	return pkgs, standard
}
