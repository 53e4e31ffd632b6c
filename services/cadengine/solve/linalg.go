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
