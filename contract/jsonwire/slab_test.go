package jsonwire

import "testing"

// TestSlab: every value New hands out is new, zero, and keeps what was
// written to it while many more are handed out (across chunks).
func TestSlab(t *testing.T) {
	var s Slab[[2]int]
	var got []*[2]int
	for i := range 3 * maxChunk {
		p := s.New()
		if *p != [2]int{} {
			t.Fatalf("value %d is not zero: %v", i, *p)
		}
		*p = [2]int{i, -i}
		got = append(got, p)
	}
	seen := map[*[2]int]bool{}
	for i, p := range got {
		if seen[p] {
			t.Fatalf("value %d handed out twice", i)
		}
		seen[p] = true
		if *p != [2]int{i, -i} {
			t.Fatalf("value %d = %v, want [%d %d]", i, *p, i, -i)
		}
	}
}

// TestFloat64Ref: each optional double decoded points to its own value.
func TestFloat64Ref(t *testing.T) {
	var d Decoder
	a, b := d.Float64Ref(1.5), d.Float64Ref(-2)
	if a == b || *a != 1.5 || *b != -2 {
		t.Fatalf("Float64Ref = %p %v, %p %v; want two pointers to 1.5 and -2", a, *a, b, *b)
	}
}
