package proctest

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// CPUTime is the CPU time the process has used so far, user and system
// (Linux: /proc/PID/stat).
func (p *Process) CPUTime(t testing.TB) time.Duration {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.Pid()))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command, which may hold spaces, from the state.
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	var utime, stime int64
	fmt.Sscan(f[11], &utime)
	fmt.Sscan(f[12], &stime)
	return time.Duration(utime+stime) * time.Second / 100 // USER_HZ is 100 on Linux
}

// Busy fails unless the process uses at least a tenth of a core over the
// next 400 ms (an idle one uses none; a busy one on a loaded machine may
// get little more): the work a test is about to stop must have started.
func (p *Process) Busy(t testing.TB) {
	t.Helper()
	before := p.CPUTime(t)
	time.Sleep(400 * time.Millisecond)
	if used := p.CPUTime(t) - before; used < 40*time.Millisecond {
		t.Fatalf("the process used %v of CPU in 400 ms: the work to stop is not running", used)
	}
}

// IdleWithinASecond fails unless, from a second after stopped, the process
// uses under a tenth of a core for 500 ms: the work stopped with it.
func (p *Process) IdleWithinASecond(t testing.TB, stopped time.Time) {
	t.Helper()
	time.Sleep(time.Until(stopped.Add(time.Second)))
	before := p.CPUTime(t)
	time.Sleep(500 * time.Millisecond)
	if used := p.CPUTime(t) - before; used > 50*time.Millisecond {
		t.Errorf("a second after the work was stopped, the process still used %v of CPU in 500 ms", used)
	}
}

// WaitIdle waits until the process uses under a tenth of a core over
// 250 ms, for at most limit, and fails if it never does: a test that
// measures work starts from a process that does none.
func (p *Process) WaitIdle(t testing.TB, limit time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(limit); ; {
		before := p.CPUTime(t)
		time.Sleep(250 * time.Millisecond)
		if p.CPUTime(t)-before < 25*time.Millisecond {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the process was still busy %v on", limit)
		}
	}
}
