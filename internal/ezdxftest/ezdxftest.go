// Package ezdxftest checks DXF files with ezdxf (Debian's python3-ezdxf),
// the reference reader the project's DXF must satisfy.
package ezdxftest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Python returns a python3 that can import ezdxf, or "" when none can;
// under CI (CI=true), where .ci/run installs python3-ezdxf, none is a
// failure of tb.
func Python(tb testing.TB) string {
	tb.Helper()
	for _, cand := range []string{"python3", "/usr/bin/python3"} {
		if p, err := exec.LookPath(cand); err == nil && exec.Command(p, "-c", "import ezdxf").Run() == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		tb.Fatal("CI installs python3-ezdxf (.ci/run), but no python3 has it")
	}
	tb.Log("no python3 with ezdxf; skipping the ezdxf check")
	return ""
}

const script = `
import sys, collections, ezdxf
doc = ezdxf.readfile(sys.argv[1])
auditor = doc.audit()
for e in auditor.errors:
    print("AUDIT-ERROR", e.message)
for f in auditor.fixes:
    print("AUDIT-FIX", f.message)
c = collections.Counter(e.dxftype() for e in doc.modelspace())
for k, v in sorted(c.items()):
    print(k, v)
`

// Audit opens content with ezdxf: it must read, and its audit must find no
// error and fix nothing. It returns the model space's entity count by DXF
// type, or nil when no ezdxf is installed (outside CI).
func Audit(tb testing.TB, content string) map[string]int {
	tb.Helper()
	py := Python(tb)
	if py == "" {
		return nil
	}
	path := filepath.Join(tb.TempDir(), "audit.dxf")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
	out, err := exec.Command(py, "-c", script, path).CombinedOutput()
	if err != nil {
		tb.Fatalf("ezdxf could not read the DXF: %v\n%s", err, out)
	}
	counts := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasPrefix(line, "AUDIT-") {
			tb.Errorf("ezdxf audit: %s", line)
			continue
		}
		k, v, _ := strings.Cut(line, " ")
		n, _ := strconv.Atoi(v)
		counts[k] = n
	}
	return counts
}

// Run runs a Python script that imports ezdxf with args and returns what
// it prints, or "" when no ezdxf is installed (outside CI); a script that
// fails fails tb.
func Run(tb testing.TB, script string, args ...string) string {
	tb.Helper()
	py := Python(tb)
	if py == "" {
		return ""
	}
	out, err := exec.Command(py, append([]string{"-c", script}, args...)...).CombinedOutput()
	if err != nil {
		tb.Fatalf("ezdxf script failed: %v\n%s", err, out)
	}
	return string(out)
}

// File writes content to a file in tb's temporary folder and returns its
// path.
func File(tb testing.TB, name, content string) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}
