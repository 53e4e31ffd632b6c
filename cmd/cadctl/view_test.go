package main

import "testing"

// TestViewUsageErrors: a view needs one document, and a window of four
// numbers.
func TestViewUsageErrors(t *testing.T) {
	g := newFakeGateway(t, nil)
	for _, args := range [][]string{
		{"view"},
		{"view", "doc-1", "doc-2"},
		{"view", "doc-1", "--window", "0,0,10"},
		{"view", "doc-1", "--window", "0,0,10,x"},
	} {
		if code, _ := runCadctl(t, g, newTerminal(t), false, args...); code != exitUsage {
			t.Errorf("cadctl %v: exit %d, want %d", args, code, exitUsage)
		}
	}
}
