package jsonwire

// Slab hands out new zero values of T from chunks it allocates, so that a
// decoder filling a list of many messages, or many optional numbers,
// makes a few allocations instead of one per value. A chunk is never
// handed out twice, so a value stays valid as long as anything points to
// it (and keeps its whole chunk alive).
type Slab[T any] struct{ chunk []T }

// maxChunk bounds a chunk: the first holds 4 values, each next one twice
// as many as the last, up to this.
const maxChunk = 256

// New is a pointer to a new zero T.
func (s *Slab[T]) New() *T {
	if len(s.chunk) == cap(s.chunk) {
		s.chunk = make([]T, 0, min(max(2*cap(s.chunk), 4), maxChunk))
	}
	s.chunk = s.chunk[:len(s.chunk)+1]
	return &s.chunk[len(s.chunk)-1]
}

// Float64Ref is a pointer to v in the decoder's own slab: what a generated
// decoder sets an optional double field to.
func (d *Decoder) Float64Ref(v float64) *float64 {
	p := d.floats.New()
	*p = v
	return p
}
