package main_test

import (
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/cmd/cadctl/cadctltest"
	"github.com/cadbridge/cadbridge/internal/proctest"
)

// ptyUser is a user at a pseudo-terminal that is cadctl's stdin and
// stderr; cadctl's stdout (the --json result) goes to a buffer.
type ptyUser struct {
	t      *testing.T
	screen proctest.SyncBuffer
	keys   io.Writer
	cmd    *exec.Cmd
	stdout proctest.SyncBuffer
	read   chan struct{} // closed when the terminal has closed
}

func startAtTerminal(t *testing.T, cmd *exec.Cmd) *ptyUser {
	t.Helper()
	controller, terminal, err := openPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	u := &ptyUser{t: t, keys: controller, cmd: cmd, read: make(chan struct{})}
	cmd.Stdin, cmd.Stderr, cmd.Stdout = terminal, terminal, &u.stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	terminal.Close() // cadctl has its own copy
	go func() {
		defer close(u.read)
		io.Copy(&u.screen, controller) // ends with EIO once cadctl exits
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		controller.Close()
	})
	return u
}

// waitScreen waits until the screen shows text n times.
func (u *ptyUser) waitScreen(text string, n int) {
	u.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(u.screen.String(), text) < n {
		select {
		case <-u.read:
			u.t.Fatalf("cadctl exited without showing %q; the terminal shows:\n%s\nstdout:\n%s", text, u.screen.String(), u.stdout.String())
		default:
		}
		if time.Now().After(deadline) {
			u.t.Fatalf("the terminal never showed %q; it shows:\n%s", text, u.screen.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (u *ptyUser) typeLine(line string) {
	u.t.Helper()
	if _, err := io.WriteString(u.keys, line+"\n"); err != nil {
		u.t.Fatal(err)
	}
}

// wait waits for cadctl to exit and returns its exit code and stdout.
func (u *ptyUser) wait() cadctltest.Result {
	u.t.Helper()
	done := make(chan struct{})
	go func() { u.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		u.t.Fatalf("cadctl did not exit; the terminal shows:\n%s", u.screen.String())
	}
	select {
	case <-u.read:
	case <-time.After(5 * time.Second):
	}
	return cadctltest.Result{Code: u.cmd.ProcessState.ExitCode(), Stdout: u.stdout.String(), Stderr: u.screen.String()}
}

// TestCadctlApprovalAtTerminal answers the approval of a destructive step
// at the prompt cadctl shows on its terminal.
func TestCadctlApprovalAtTerminal(t *testing.T) {
	s := cadctltest.Start(t)
	doc := createDocument(t, s, "prompted")
	u := startAtTerminal(t, s.Command("batch", "testdata/cleanup.json", "--document", doc, "--json"))
	u.waitScreen("Approve? [y/N]", 1)
	if !strings.Contains(u.screen.String(), "approval: entity_delete_many") {
		t.Errorf("the prompt does not name the tool:\n%s", u.screen.String())
	}
	u.typeLine("y")
	res := u.wait()
	if res.Code != 0 {
		t.Fatalf("cadctl batch at a terminal: %s", res)
	}
	r := parseCleanup(t, res)
	if last := r.Results[4]; !r.OK || last.Status != "ok" || last.Result.Count != 2 {
		t.Errorf("batch approved at the prompt = %+v, want completed with 2 entities deleted", r)
	}
	if n := entityCount(t, s, doc); n != 1 {
		t.Errorf("entities after the approved deletion = %d, want 1", n)
	}
}

// TestCadctlResumesAfterGatewayRestart kills the gateway while cadctl's
// approval prompt is on screen and starts another on the same address:
// cadctl reconnects and resumes its session, the answer typed afterwards
// reaches the engine, and the batch completes.
func TestCadctlResumesAfterGatewayRestart(t *testing.T) {
	engine := proctest.StartEngine(t, "127.0.0.1:0", "memory:")
	g1 := proctest.StartGateway(t, "127.0.0.1:0", engine.Addr)
	s := &cadctltest.Services{Engine: engine, Gateway: g1, URL: "http://" + g1.Addr}
	doc := createDocument(t, s, "resumed")
	u := startAtTerminal(t, s.Command("batch", "testdata/cleanup.json", "--document", doc, "--json"))
	u.waitScreen("Approve? [y/N]", 1)
	g1.Kill()
	s.Gateway = proctest.StartGateway(t, g1.Addr, engine.Addr)
	u.waitScreen("reconnected", 1)
	u.typeLine("y")
	res := u.wait()
	if res.Code != 0 {
		t.Fatalf("cadctl batch across a gateway restart: %s", res)
	}
	r := parseCleanup(t, res)
	if last := r.Results[4]; !r.OK || last.Status != "ok" || last.Result.Count != 2 {
		t.Errorf("batch = %+v, want completed with 2 entities deleted", r)
	}
	if n := strings.Count(res.Stderr, "Approve?"); n != 1 {
		t.Errorf("asked %d times, want once:\n%s", n, res.Stderr)
	}
	if n := entityCount(t, s, doc); n != 1 {
		t.Errorf("entities after the approved deletion = %d, want 1", n)
	}
}
