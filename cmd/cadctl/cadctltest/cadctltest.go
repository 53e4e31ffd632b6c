// Package cadctltest runs cadctl the way a user does: as a subprocess
// against real services, which it starts with proctest.
//
// A test package builds the binaries (cadengine, gateway and cadctl) once,
// in TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(cadctltest.Main(m)) }
//
// and then, in a test, starts services and runs cadctl:
//
//	s := cadctltest.Start(t)
//	res := s.Cadctl(t, "status")
package cadctltest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/internal/ezdxftest"
	"github.com/cadbridge/cadbridge/internal/proctest"
)

// Main builds the services and cadctl, runs the tests and removes the
// binaries; it returns the exit code for os.Exit (see [proctest.Main]).
func Main(m *testing.M) int { return proctest.Main(m, "./cmd/cadctl") }

// Services are an engine on the memory store and a gateway in front of
// it, on free loopback ports.
type Services struct {
	Engine  *proctest.Process
	Gateway *proctest.Process
	// URL is the gateway's URL, for cadctl's --url.
	URL string
}

// Start starts an engine and a gateway.
func Start(t testing.TB) *Services {
	t.Helper()
	e := proctest.StartEngine(t, "127.0.0.1:0", "memory:")
	g := proctest.StartGateway(t, "127.0.0.1:0", e.Addr)
	return &Services{Engine: e, Gateway: g, URL: "http://" + g.Addr}
}

// Result is how a cadctl run ended.
type Result struct {
	Code   int
	Stdout string
	Stderr string
}

// String is the result for a failure message: the exit code and both
// outputs.
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
	cmd := exec.Command(proctest.Bin("cadctl"), args...)
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
