//go:build race

package e2e_test

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = true
