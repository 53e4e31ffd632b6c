//go:build !linux

package bench

// fsType names the file system that holds path; only Linux can tell.
func fsType(string) string { return "file system not identified" }

// ioCalls counts the process's read and write system calls; only Linux
// can tell.
func ioCalls() (reads, writes uint64, ok bool) { return 0, 0, false }
