//go:build linux || darwin

package bench

import (
	"fmt"
	"syscall"
)

// raiseFileLimit raises the open-file limit (RLIMIT_NOFILE) to want if
// it is lower — the hard limit too, when the process may; otherwise as
// far as the hard limit allows. It returns the soft limit now in force.
func raiseFileLimit(want uint64) (uint64, error) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, fmt.Errorf("read open-file limit: %w", err)
	}
	if l.Cur >= want {
		return l.Cur, nil
	}
	err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: want, Max: max(l.Max, want)})
	if err == nil {
		return want, nil
	}
	err = fmt.Errorf("raise open-file limit to %d: %w", want, err)
	if l.Cur < l.Max && syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: l.Max, Max: l.Max}) == nil {
		return l.Max, err
	}
	return l.Cur, err
}
