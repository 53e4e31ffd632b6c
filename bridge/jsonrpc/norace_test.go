//go:build !race

package jsonrpc

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = false
