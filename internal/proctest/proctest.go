// Package proctest builds cadbridge's binaries and runs them as
// subprocesses on free loopback ports, for tests that drive the real
// services over real sockets (the in-process counterpart is stacktest).
//
// A test package builds once, in TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(proctest.Main(m)) }
//
// and then, in a test, starts services:
//
//	engine := proctest.StartEngine(t, "127.0.0.1:0", "memory:")
//	gateway := proctest.StartGateway(t, "127.0.0.1:0", engine.Addr)
package proctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// binDir holds the binaries Main builds.
var binDir string

// services are the binaries Main always builds, by import path relative to
// the module root.
var services = []string{"./services/cadengine/cmd/cadengine", "./services/gateway/cmd/gateway"}

// Main builds cadengine, gateway and the binaries of pkgs (import paths
// relative to the module root, such as "./cmd/cadctl") into a temporary
// directory, runs the tests and removes the directory; it returns the exit
// code for os.Exit.
func Main(m *testing.M, pkgs ...string) int {
	dir, err := os.MkdirTemp("", "proctest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	root, err := ModuleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	args := append([]string{"build", "-o", dir + string(filepath.Separator)}, services...)
	build := exec.Command("go", append(args, pkgs...)...)
	build.Dir = root
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "proctest: build:", err)
		return 1
	}
	binDir = dir
	return m.Run()
}

// Bin is the path of a binary Main built ("cadengine", "gateway", …).
func Bin(name string) string {
	if binDir == "" {
		panic("proctest: Bin before Main built the binaries")
	}
	return filepath.Join(binDir, name)
}

// ModuleRoot finds the directory of go.mod above the working directory.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// touchSources stats every Go file of the module, so that go test's cache,
// which tracks the files a test opens, reruns the tests when the code of
// the binaries changes. It must run inside a test: the tracking is not on
// yet in TestMain.
var touchSources = sync.OnceFunc(func() {
	root, err := ModuleRoot()
	if err != nil {
		return
	}
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) == ".go" {
			os.Stat(path)
		}
		return nil
	})
})
