package proctest_test

import (
	"errors"
	"os/exec"
	"regexp"
	"syscall"
	"testing"

	"github.com/cadbridge/cadbridge/internal/proctest"
)

// announce matches the line of the stand-in binary below.
var announce = regexp.MustCompile(`^stand-in listening on (\S+)$`)

// startShell runs a shell script as the binary, announcing an address and
// then waiting to be stopped.
func startShell(t *testing.T, script string) *proctest.Process {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skipf("no sh: %v", err)
	}
	return proctest.StartBinary(t, announce, sh, "-c", script)
}

// TestStartBinary: the address is the announced one, and a process stopped
// by a signal reports it from Wait, as often as asked.
func TestStartBinary(t *testing.T) {
	p := startShell(t, `echo "not yet"; echo "stand-in listening on 127.0.0.1:9"; exec sleep 60`)
	if p.Addr != "127.0.0.1:9" {
		t.Errorf("StartBinary().Addr = %q, want 127.0.0.1:9", p.Addr)
	}
	if p.Pid() <= 0 {
		t.Errorf("Pid() = %d, want a process id", p.Pid())
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("Signal(SIGTERM) = %v, want nil", err)
	}
	for i := range 2 {
		var exit *exec.ExitError
		if err := p.Wait(); !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
			t.Errorf("Wait() #%d after SIGTERM = %v, want killed by SIGTERM", i+1, err)
		}
	}
}

// TestKill: Kill ends a process that would not stop by itself.
func TestKill(t *testing.T) {
	p := startShell(t, `trap "" INT TERM; echo "stand-in listening on 127.0.0.1:9"; while :; do sleep 1; done`)
	p.Kill()
	if err := p.Wait(); err == nil {
		t.Errorf("Wait() after Kill = nil, want an error")
	}
}
