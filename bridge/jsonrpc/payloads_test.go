package jsonrpc

import (
	"runtime"
	"testing"
	"unsafe"
)

func TestSizeClass(t *testing.T) {
	for _, tt := range []struct {
		n, capacity int // capacity 0: no class
	}{
		{1, 32 << 10}, {32 << 10, 32 << 10}, {32<<10 + 1, 64 << 10}, {100 << 10, 128 << 10},
		{8 << 20, 8 << 20}, {8<<20 + 1, 0},
	} {
		k, ok := sizeClass(tt.n)
		switch {
		case tt.capacity == 0 && ok:
			t.Errorf("sizeClass(%d) = %d, want none", tt.n, k)
		case tt.capacity != 0 && (!ok || 1<<(minPooledBits+k) != tt.capacity):
			t.Errorf("sizeClass(%d) = %d, %v; want the class of %d", tt.n, k, ok, tt.capacity)
		case ok && cap(getPayload(tt.n)) != tt.capacity:
			t.Errorf("getPayload(%d) has capacity %d, want %d", tt.n, cap(getPayload(tt.n)), tt.capacity)
		}
	}
}

// TestPayloadReused: a buffer given back is what the next get of its class
// returns, and one whose capacity is no class is not kept. (One P, so that
// the put and the get meet in its pool; under the race detector sync.Pool
// drops some of what it is given, so only the second half holds there.)
func TestPayloadReused(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	b := getPayload(50 << 10)
	putPayload(b)
	if again := getPayload(40 << 10); !raceEnabled && unsafe.SliceData(again) != unsafe.SliceData(b) {
		t.Error("a buffer given back was not reused")
	}
	odd := make([]byte, 0, 50<<10)
	putPayload(odd)
	if again := getPayload(50 << 10); unsafe.SliceData(again) == unsafe.SliceData(odd) {
		t.Error("a buffer of no size class was kept")
	}
}
