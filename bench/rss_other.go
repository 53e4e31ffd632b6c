//go:build !linux

package bench

// resetPeakRSS resets the record of the process's peak resident set; only
// Linux can.
func resetPeakRSS() bool { return false }

// residentSet is the process's resident set now and at its peak; only
// Linux tells.
func residentSet() (now, peak int64, ok bool) { return 0, 0, false }
