package solve

import "math"

// Dense linear algebra for the small matrices of one group, written out
// so that the order of every sum is fixed (the same bits every time).

// cholSolve solves A z = b for a symmetric positive definite n×n A
// (row-major), overwriting A with its Cholesky factor L and b with z.
// first[i] is the first column of row i of A's lower triangle that can
// be nonzero (its envelope): the factor stays within it, so only the
// envelope is worked on, and a group whose parameters are numbered
// along its figure (a chain of lines) factors in time linear in its
// size, not cubic. It reports false when a pivot is not positive (A not
// safely definite).
func cholSolve(a, b []float64, first []int32, n int) bool {
	for i := range n {
		ri := a[i*n : i*n+n]
		fi := int(first[i])
		for j := fi; j < i; j++ {
			rj := a[j*n : j*n+n]
			v := ri[j]
			for k := max(fi, int(first[j])); k < j; k++ {
				v -= ri[k] * rj[k]
			}
			ri[j] = v / rj[j]
		}
		d := ri[i]
		for k := fi; k < i; k++ {
			d -= ri[k] * ri[k]
		}
		if !(d > 0) {
			return false
		}
		ri[i] = math.Sqrt(d)
	}
	// L y = b, then Lᵀ z = y (a column at a time, within the envelope).
	for i := range n {
		v := b[i]
		for k := int(first[i]); k < i; k++ {
			v -= a[i*n+k] * b[k]
		}
		b[i] = v / a[i*n+i]
	}
	for i := n - 1; i >= 0; i-- {
		b[i] /= a[i*n+i]
		zi := b[i]
		for k := int(first[i]); k < i; k++ {
			b[k] -= a[i*n+k] * zi
		}
	}
	return true
}

// rankTol is the relative size below which what is left of a row once
// projected off the rows before it counts as zero. The residuals are all lengths and the derivatives mostly of
// order one, so one relative threshold serves every sketch.
const rankTol = 1e-8

// rowBasis grows an orthonormal basis of the span of rows, one row at a
// time: a QR factorization of the Jacobian's transpose, its columns (the
// constraints' rows) taken in order and those in the span of the ones
// before skipped. Classical Gram–Schmidt, the first pass over the new
// row's nonzeros only (a constraint reads a few parameters), and a
// second pass when the first took away much of it ("twice is enough").
type rowBasis struct {
	n int
	q []float64 // the basis, row-major
	k int       // how many rows q has
	d []float64 // scratch: the row's components along the basis
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
	b.d = grow(b.d, b.k)
	for i := range b.k {
		qi := b.q[i*b.n : i*b.n+b.n]
		s := 0.0
		for _, j := range nzs {
			s += qi[j] * v[j]
		}
		b.d[i] = s
	}
	b.subtract(v)
	left := math.Sqrt(dot(v, v))
	if left < 0.5*norm {
		for i := range b.k {
			b.d[i] = dot(b.q[i*b.n:i*b.n+b.n], v)
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

// subtract takes v's components d along the basis away from v.
func (b *rowBasis) subtract(v []float64) {
	for i, d := range b.d[:b.k] {
		if d == 0 {
			continue
		}
		qi := b.q[i*b.n : i*b.n+b.n]
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
