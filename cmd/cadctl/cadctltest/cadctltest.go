// Package cadctltest builds cadbridge's binaries (cadengine, gateway and
// cadctl) and runs them on free loopback ports, for tests that drive
// cadctl the way a user does: as a subprocess against real services.
//
// A test package builds once, in TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(cadctltest.Main(m)) }
//
// and then, in a test, starts services and runs cadctl:
//
//	s := cadctltest.Start(t)
//	res := s.Cadctl(t, "status")
package cadctltest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// binDir holds the binaries Main builds.
var binDir string

// Packages are the binaries Main builds, by import path relative to the
// module root.
var Packages = []string{"./services/cadengine/cmd/cadengine", "./services/gateway/cmd/gateway", "./cmd/cadctl"}

// Main builds the binaries into a temporary directory, runs the tests and
// removes the directory; it returns the exit code for os.Exit.
func Main(m *testing.M) int {
	dir, err := os.MkdirTemp("", "cadctltest-")
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
	build := exec.Command("go", append([]string{"build", "-o", dir + string(filepath.Separator)}, Packages...)...)
	build.Dir = root
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "cadctltest: build:", err)
		return 1
	}
	binDir = dir
	return m.Run()
}

// Bin is the path of a built binary (cadengine, gateway or cadctl).
func Bin(name string) string {
	if binDir == "" {
		panic("cadctltest: Bin before Main built the binaries")
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
// the binaries changes. It must run inside a test.
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

// Process is a running binary that announced its address.
type Process struct {
	Addr   string
	cmd    *exec.Cmd
	stderr *SyncBuffer
	done   chan struct{}
}

// The lines by which cadengine and gateway announce their address.
var (
	EngineAnnounce  = regexp.MustCompile(`^cadengine listening on (\S+)$`)
	GatewayAnnounce = regexp.MustCompile(`^gateway listening on http://(\S+) `)
)

// StartBinary runs path with args and waits for the stdout line matching
// announce, whose first group is the address. The process is interrupted
// (then killed) when the test ends; its stderr is logged if the test failed.
func StartBinary(t testing.TB, announce *regexp.Regexp, path string, args ...string) *Process {
	t.Helper()
	touchSources()
	cmd := exec.Command(path, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &Process{cmd: cmd, stderr: &SyncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addrs := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := announce.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addrs <- m[1]:
				default:
				}
			}
		}
		cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			t.Logf("%s stderr:\n%s", filepath.Base(path), p.stderr.String())
		}
	})
	select {
	case p.Addr = <-addrs:
	case <-p.done:
		t.Fatalf("%s exited before announcing its address; stderr:\n%s", filepath.Base(path), p.stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("%s did not announce its address; stderr:\n%s", filepath.Base(path), p.stderr.String())
	}
	return p
}

// Stop interrupts the process and waits for it, killing it after 10 s.
func (p *Process) Stop() {
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// Kill kills the process at once, as a crash would, and waits for it.
func (p *Process) Kill() {
	p.cmd.Process.Kill()
	<-p.done
}

// Services are an engine on the memory store and a gateway in front of
// it, on free loopback ports.
type Services struct {
	Engine  *Process
	Gateway *Process
	// URL is the gateway's URL, for cadctl's --url.
	URL string
}

// Start starts an engine and a gateway.
func Start(t testing.TB) *Services {
	t.Helper()
	e := StartEngine(t, "--store", "memory:")
	g := StartGateway(t, "127.0.0.1:0", e.Addr)
	return &Services{Engine: e, Gateway: g, URL: "http://" + g.Addr}
}

// StartEngine starts an engine on a free loopback port, without its
// metrics listener, with the extra args given (--store …).
func StartEngine(t testing.TB, args ...string) *Process {
	t.Helper()
	return StartBinary(t, EngineAnnounce, Bin("cadengine"), append([]string{"--listen", "127.0.0.1:0", "--metrics-listen", ""}, args...)...)
}

// StartGateway starts a gateway on listen in front of the engine at
// engine. Tests that restart a gateway give the address the first one
// had.
func StartGateway(t testing.TB, listen, engine string) *Process {
	t.Helper()
	return StartBinary(t, GatewayAnnounce, Bin("gateway"), "--listen", listen, "--engine", engine)
}

// Result is how a cadctl run ended.
type Result struct {
	Code   int
	Stdout string
	Stderr string
}

func (r Result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
}

// Cadctl runs cadctl against the services' gateway and waits for it (at
// most a minute).
func (s *Services) Cadctl(t testing.TB, args ...string) Result {
	t.Helper()
	cmd := s.Command(args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return wait(t, cmd, &stdout, &stderr)
}

// Command returns a cadctl command aimed at the services' gateway (by
// CADBRIDGE_URL), for a test that wires its standard streams itself.
func (s *Services) Command(args ...string) *exec.Cmd {
	cmd := exec.Command(Bin("cadctl"), args...)
	cmd.Env = append(os.Environ(), "CADBRIDGE_URL=http://"+s.Gateway.Addr, "CADBRIDGE_TOKEN=")
	return cmd
}

// wait runs cmd to its end.
func wait(t testing.TB, cmd *exec.Cmd, stdout, stderr *bytes.Buffer) Result {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-ctx.Done():
		cmd.Process.Kill()
		<-done
		t.Fatalf("cadctl %s did not finish within a minute\nstdout:\n%s\nstderr:\n%s", strings.Join(cmd.Args[1:], " "), stdout, stderr)
	}
	return Result{Code: cmd.ProcessState.ExitCode(), Stdout: stdout.String(), Stderr: stderr.String()}
}

// AuditDXF checks content with ezdxf: it must read, and its audit must
// report no errors and fix nothing (skipped, and logged, where no python3
// has ezdxf; never under CI, which installs it).
func AuditDXF(t testing.TB, content string) {
	t.Helper()
	ezdxftest.Audit(t, content)
}

// SyncBuffer is a bytes.Buffer safe for concurrent use.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var _ io.Writer = (*SyncBuffer)(nil)
