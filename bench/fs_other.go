//go:build !linux

package bench

// fsType names the file system that holds path; only Linux can tell.
func fsType(string) string { return "file system not identified" }
