package jsonwire

import (
	"math"
	"strconv"
	"testing"
)

// TestExactFloat: every number exactFloat takes is strconv.ParseFloat's
// value to the bit, and it leaves the numbers it cannot convert exactly.
func TestExactFloat(t *testing.T) {
	for _, tc := range []struct {
		num  string
		took bool
	}{
		{"0", true}, {"-0", true}, {"-0.0", true}, {"0.1", true}, {"-2.25", true}, {"10.5", true},
		{"123456789012345", true}, {"0.12345678901234", true}, {"12345678.1234567", true},
		{"1234567890123456", false}, {"9007199254740993", false}, {"0.123456789012345", false},
		{"1e5", false}, {"1.5E-3", false}, {"-12345678901234567890", false},
	} {
		x, ok := exactFloat([]byte(tc.num))
		if ok != tc.took {
			t.Errorf("exactFloat(%s) took it: %v, want %v", tc.num, ok, tc.took)
		}
		if ok {
			checkExact(t, tc.num, x)
		}
	}
}

// FuzzExactFloat compares exactFloat with strconv.ParseFloat on the JSON
// numbers among arbitrary inputs.
func FuzzExactFloat(f *testing.F) {
	for _, s := range []string{"0", "-0.5", "3.14159", "100000000000000", "0.000000000000001", "1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := NewDecoder([]byte(s))
		num, ok := d.number()
		if !ok || string(num) != s {
			return // not one JSON number
		}
		if x, ok := exactFloat(num); ok {
			checkExact(t, s, x)
		}
		// Number takes what exactFloat takes (no exponent, at most 15
		// digits), and gives its value.
		x, n, ok := Number([]byte(s + ","))
		want, wok := exactFloat(num)
		if ok != wok || ok && (n != len(s) || math.Float64bits(x) != math.Float64bits(want)) {
			t.Errorf("Number(%q) = %v, %d, %v; exactFloat: %v, %v", s, x, n, ok, want, wok)
		}
	})
}

func checkExact(t *testing.T, num string, x float64) {
	t.Helper()
	want, err := strconv.ParseFloat(num, 64)
	if err != nil {
		t.Fatalf("exactFloat took %s, which strconv refuses: %v", num, err)
	}
	if math.Float64bits(x) != math.Float64bits(want) {
		t.Errorf("exactFloat(%s) = %v (%#x), strconv says %v (%#x)", num, x, math.Float64bits(x), want, math.Float64bits(want))
	}
}

// TestFork: a decoder forked at the comma before an element reads the
// rest as the one it was forked from does.
func TestFork(t *testing.T) {
	data := []byte(`{"a": [1, 2 , 3], "b": 4}`)
	d := NewDecoder(data)
	if !d.OpenObject() {
		t.Fatal("OpenObject")
	}
	if key, ok := d.NextKey(); !ok || string(key) != "a" || !d.OpenArray() || !d.NextElement() {
		t.Fatal("a")
	}
	if x, ok := d.Float64(); !ok || x != 1 {
		t.Fatalf("first element = %v, %v", x, ok)
	}
	at := d.Offset() // the comma after 1
	if data[at] != ',' {
		t.Fatalf("Offset() = %d, at %q, want the comma", at, data[at])
	}
	read := func(d *Decoder) []float64 {
		var got []float64
		for d.NextElement() {
			x, _ := d.Float64()
			got = append(got, x)
		}
		if key, ok := d.NextKey(); !ok || string(key) != "b" {
			t.Fatalf("after the array: key %q, %v", key, ok)
		}
		x, _ := d.Float64()
		if _, ok := d.NextKey(); ok || !d.End() {
			t.Fatal("not at the end")
		}
		return append(got, x)
	}
	f := d.Fork(at)
	got, want := read(f), read(d)
	if len(got) != 3 || len(want) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("the fork read %v, the decoder %v", got, want)
	}
	if g := NewDecoder(data).Fork(len(data) + 1); g.NextElement() || !g.Failed() {
		t.Error("a fork past the end reads")
	}
}

// TestNumber: Number reads what Float64 reads, to the bit, where it reads
// anything, and leaves what it does not take.
func TestNumber(t *testing.T) {
	for _, tc := range []struct {
		in string
		n  int // 0: not taken
	}{
		{"0", 1}, {"-0", 2}, {"0.5,", 3}, {"-12.25}", 6}, {"999.5", 5}, {"01", 1},
		{"123456789012345", 15}, {"1234567890123456", 0}, {"1e5", 0}, {"1.5E3", 0},
		{"1.", 0}, {"-", 0}, {".5", 0}, {"", 0}, {"x", 0}, {"-a", 0},
	} {
		x, n, ok := Number([]byte(tc.in))
		if ok != (tc.n > 0) || n != tc.n {
			t.Errorf("Number(%q) = %v, %d, %v; want length %d", tc.in, x, n, ok, tc.n)
			continue
		}
		if ok {
			checkExact(t, tc.in[:n], x)
		}
	}
}
