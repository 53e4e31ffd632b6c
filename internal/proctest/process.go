package proctest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// Process is a running binary that announced its address.
type Process struct {
	// Addr is the address the process announced.
	Addr   string
	cmd    *exec.Cmd
	stdout *SyncBuffer // every line read from stdout so far
	stderr *SyncBuffer
	done   chan struct{} // closed when the process has exited and waitErr is set
	// waitErr is what cmd.Wait returned.
	waitErr error
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
	p := &Process{cmd: cmd, stdout: &SyncBuffer{}, stderr: &SyncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addrs := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			fmt.Fprintln(p.stdout, sc.Text())
			if m := announce.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addrs <- m[1]:
				default:
				}
			}
		}
		p.waitErr = cmd.Wait()
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

// StartEngine starts the cadengine Main built, listening on listen
// ("127.0.0.1:0" for a free port) with the store given ("memory:",
// "sqlite:PATH"), without its metrics listener, and with the extra args
// given.
func StartEngine(t testing.TB, listen, store string, args ...string) *Process {
	t.Helper()
	return StartBinary(t, EngineAnnounce, Bin("cadengine"), append([]string{"--listen", listen, "--store", store, "--metrics-listen", ""}, args...)...)
}

// StartGateway starts the gateway Main built, listening on listen in front
// of the engine at engine, with the extra args given (--tokens …). Tests
// that restart a gateway give the address the first one had.
func StartGateway(t testing.TB, listen, engine string, args ...string) *Process {
	t.Helper()
	return StartBinary(t, GatewayAnnounce, Bin("gateway"), append([]string{"--listen", listen, "--engine", engine}, args...)...)
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

// Signal sends sig to the process.
func (p *Process) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Wait waits for the process to exit and returns how it ended, as
// [exec.Cmd.Wait] does. It may be called any number of times.
func (p *Process) Wait() error {
	<-p.done
	return p.waitErr
}

// Stdout is what the process has printed on stdout so far, by lines
// (the announcement included).
func (p *Process) Stdout() string { return p.stdout.String() }

// Pid is the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }
