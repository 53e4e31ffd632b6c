package jsonwire

import (
	"math"
	"strconv"
	"testing"
)

// checkAppendFloat fails unless AppendFloat writes v as strconv's 'g'
// format with the shortest digits does.
func checkAppendFloat(t *testing.T, v float64) {
	t.Helper()
	if got, want := string(AppendFloat(nil, v)), strconv.FormatFloat(v, 'g', -1, 64); got != want {
		t.Errorf("AppendFloat(%v) = %s, want %s", v, got, want)
	}
}

// TestAppendFloat: every whole number the integer path takes, the edges
// of its range and the numbers beside them are written as strconv writes
// them.
func TestAppendFloat(t *testing.T) {
	for i := -1_000_001; i <= 1_000_001; i++ {
		checkAppendFloat(t, float64(i))
	}
	for _, v := range []float64{
		math.Copysign(0, -1), 0.5, -0.5, 1e6 - 0.5, -1e6 + 0.5, math.Nextafter(1e6, 0), math.Nextafter(-1e6, 0),
		1e6, -1e6, 1e21, 1e-7, 123456.789, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64,
		float64(1 << 53), -float64(1 << 53), float64(1<<63) * 2,
	} {
		checkAppendFloat(t, v)
	}
}

// FuzzAppendFloat compares AppendFloat with strconv on arbitrary bits.
func FuzzAppendFloat(f *testing.F) {
	for _, v := range []float64{0, 1, -1, 999999, 1e6, 0.1, math.Copysign(0, -1)} {
		f.Add(math.Float64bits(v))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		if v := math.Float64frombits(bits); !math.IsNaN(v) && !math.IsInf(v, 0) {
			checkAppendFloat(t, v)
		}
	})
}
