package bench

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// procIO is this process's /proc/self/io, open once, for ioCalls.
var procIO = sync.OnceValue(func() *os.File {
	f, _ := os.Open("/proc/self/io")
	return f
})

// ioCalls is how many read and write system calls (of any file or
// socket) the process has made so far, its own read of the count
// included; ok is false when the kernel does not tell.
func ioCalls() (reads, writes uint64, ok bool) {
	f := procIO()
	if f == nil {
		return 0, 0, false
	}
	var buf [512]byte
	n, err := syscall.Pread(int(f.Fd()), buf[:], 0) // one read: counted, and subtracted by callers
	if err != nil {
		return 0, 0, false
	}
	for line := range strings.Lines(string(buf[:n])) {
		name, value, _ := strings.Cut(strings.TrimSpace(line), ": ")
		v, _ := strconv.ParseUint(value, 10, 64)
		switch name {
		case "syscr":
			reads, ok = v, true
		case "syscw":
			writes = v
		}
	}
	return reads, writes, ok
}
