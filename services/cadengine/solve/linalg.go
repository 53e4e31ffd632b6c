package solve

import "math"

// Dense linear algebra for the small matrices of one group, written out
// so that the order of every sum is fixed (the same bits every time).

// envelope is the shape of a symmetric n×n matrix's lower triangle
// kept row by row from each row's first column that can be nonzero to
// its diagonal: row i is v[off[i]:off[i+1]], holding columns first[i]
// to i. A Cholesky factor stays within its matrix's envelope, so only
// the envelope is stored and worked on, and a group whose parameters
// are numbered along its figure (a chain of lines) factors in time and
// memory linear in its size, not cubic and square.
type envelope struct {
	first []int32
	off   []int
}

// row is row i of the matrix v shaped by e.
func (e *envelope) row(v []float64, i int) []float64 { return v[e.off[i]:e.off[i+1]] }

// cholSolve solves A z = b for a symmetric positive definite A in the
// envelope e, overwriting a with its Cholesky factor L and b with z. It
// reports false when a pivot is not positive (A not safely definite).
func cholSolve(e *envelope, a, b []float64) bool {
	n := len(e.first)
	for i := range n {
		ri, fi := e.row(a, i), int(e.first[i])
		for j := fi; j < i; j++ {
			rj, fj := e.row(a, j), int(e.first[j])
			lo := max(fi, fj)
			ri[j-fi] = (ri[j-fi] - dot(ri[lo-fi:j-fi], rj[lo-fj:j-fj])) / rj[j-fj]
		}
		d := ri[i-fi] - dot(ri[:i-fi], ri[:i-fi])
		if !(d > 0) {
			return false
		}
		ri[i-fi] = math.Sqrt(d)
	}
	// L y = b, then Lᵀ z = y (a column at a time, within the envelope).
	for i := range n {
		ri, fi := e.row(a, i), int(e.first[i])
		b[i] = (b[i] - dot(ri[:i-fi], b[fi:i])) / ri[i-fi]
	}
	for i := n - 1; i >= 0; i-- {
		ri, fi := e.row(a, i), int(e.first[i])
		b[i] /= ri[i-fi]
		zi := b[i]
		for k, l := range ri[:i-fi] {
			b[fi+k] -= l * zi
		}
	}
	return true
}

// rankTol is the relative distance from the span of the rows before it
// below which a row counts as dependent.
const rankTol = 1e-8

// rowBasis grows an orthonormal basis of the span of rows, one row at a
// time: a QR factorization of the Jacobian's transpose, its columns (the
// constraints' rows) taken in order and those in the span of the ones
// before skipped. Classical Gram–Schmidt: the row's components along the
// basis come from its own nonzeros (a constraint reads a few
// parameters), so only the basis vectors it overlaps are subtracted,
// and when that took away much of it, a second pass over the same
// vectors restores what rounding lost ("twice is enough"; the vectors it
// did not overlap are orthogonal to what was subtracted to rounding).
// A chain of constraints costs a few vectors a row, not the whole basis.
type rowBasis struct {
	n    int
	q    []float64 // the basis, row-major
	k    int       // how many rows q has
	used []int32   // scratch: the basis vectors the row overlaps
	d    []float64 // scratch: its components along them
}

// add reports whether row v (length n) is independent of the rows added
// before, and adds it to the basis when it is. v is overwritten.
func (b *rowBasis) add(v []float64) bool {
	norm := math.Sqrt(dot(v, v))
	if norm == 0 {
		return false
	}
	var nz [16]int32
	nzs := nz[:0]
	for j, f := range v {
		if f != 0 {
			nzs = append(nzs, int32(j))
		}
	}
	b.used, b.d = b.used[:0], b.d[:0]
	for i := range b.k {
		qi := b.q[i*b.n : i*b.n+b.n]
		s := 0.0
		for _, j := range nzs {
			s += qi[j] * v[j]
		}
		if s != 0 {
			b.used = append(b.used, int32(i))
			b.d = append(b.d, s)
		}
	}
	b.subtract(v)
	left := math.Sqrt(dot(v, v))
	if left < 0.5*norm {
		for u, i := range b.used {
			b.d[u] = dot(b.q[int(i)*b.n:int(i)*b.n+b.n], v)
		}
		b.subtract(v)
		left = math.Sqrt(dot(v, v))
	}
	if left <= rankTol*norm {
		return false
	}
	for j := range v {
		v[j] /= left
	}
	b.q = append(b.q, v...)
	b.k++
	return true
}

// subtract takes v's components b.d along the basis vectors b.used
// away from v.
func (b *rowBasis) subtract(v []float64) {
	for u, i := range b.used {
		d := b.d[u]
		qi := b.q[int(i)*b.n : int(i)*b.n+b.n]
		for j := range v {
			v[j] -= d * qi[j]
		}
	}
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
