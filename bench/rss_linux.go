package bench

import (
	"os"
	"strconv"
	"strings"
)

// resetPeakRSS starts the kernel's record of the process's peak resident
// set (VmHWM) again from what the process holds now; false when the
// kernel does not let it (Linux 4.0 and later do).
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// residentSet is the process's resident set now (VmRSS) and at its peak
// (VmHWM, since the start or the last resetPeakRSS), in bytes.
func residentSet() (now, peak int64, ok bool) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0, false
	}
	kib := func(v string) int64 {
		n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		return n << 10
	}
	for line := range strings.Lines(string(data)) {
		switch name, v, _ := strings.Cut(line, ":"); name {
		case "VmRSS":
			now = kib(v)
		case "VmHWM":
			peak = kib(v)
		}
	}
	return now, peak, now > 0 && peak > 0
}
