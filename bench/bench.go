// Package bench runs cadbridge's services in process on loopback for
// benchmarks and the cadbench load tool: side-by-side measurements whose
// ratios, not absolute times, are the results.
package bench

import "github.com/cadbridge/cadbridge/internal/stacktest"

// Stack is an engine and a gateway serving on loopback (see
// internal/stacktest).
type Stack = stacktest.Stack

// Options configure a Stack.
type Options = stacktest.Options

// Start runs an engine and a gateway until Close.
func Start(opts Options) (*Stack, error) { return stacktest.Start(opts) }

// StartTB is Start for tests and benchmarks, stopped by tb.Cleanup.
var StartTB = stacktest.StartTB
