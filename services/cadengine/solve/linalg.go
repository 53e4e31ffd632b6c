package solve

import "math"

// Dense linear algebra for the small matrices of one group, written out
// so that the order of every sum is fixed (the same bits every time).

// cholSolve solves A z = b for a symmetric positive definite n×n A
// (row-major), overwriting A with its Cholesky factor and b with z. It
// reports false when a pivot is not positive (A not safely definite).
func cholSolve(a []float64, b []float64, n int) bool {
	for j := 0; j < n; j++ {
		rj := a[j*n : j*n+n]
		d := rj[j]
		for k := 0; k < j; k++ {
			d -= rj[k] * rj[k]
		}
		if !(d > 0) {
			return false
		}
		d = math.Sqrt(d)
		rj[j] = d
		for i := j + 1; i < n; i++ {
			ri := a[i*n : i*n+n]
			v := ri[j]
			for k := 0; k < j; k++ {
				v -= ri[k] * rj[k]
			}
			ri[j] = v / d
		}
	}
	// L y = b, then Lᵀ z = y.
	for i := 0; i < n; i++ {
		v := b[i]
		for k := 0; k < i; k++ {
			v -= a[i*n+k] * b[k]
		}
		b[i] = v / a[i*n+i]
	}
	for i := n - 1; i >= 0; i-- {
		v := b[i]
		for k := i + 1; k < n; k++ {
			v -= a[k*n+i] * b[k]
		}
		b[i] = v / a[i*n+i]
	}
	return true
}

// rankTol is the relative size below which a pivot of a QR factor, or
// what is left of a row once projected off the rows before it, counts
// as zero. The residuals are all lengths and the derivatives mostly of
// order one, so one relative threshold serves every sketch.
const rankTol = 1e-8

// rank is the numerical rank of the m×n row-major matrix a, by a
// Householder QR with column pivoting (a is overwritten).
func rank(a []float64, m, n int) int {
	if m == 0 || n == 0 {
		return 0
	}
	norms := make([]float64, n)
	perm := make([]int, n)
	for j := range n {
		perm[j] = j
		norms[j] = colNorm2(a, m, n, j, 0)
	}
	r := 0
	first := 0.0
	for k := 0; k < min(m, n); k++ {
		// Pivot: the column with the most left below row k (ties to
		// the lowest index).
		p := k
		for j := k + 1; j < n; j++ {
			if norms[j] > norms[p] {
				p = j
			}
		}
		if p != k {
			for i := range m {
				a[i*n+k], a[i*n+p] = a[i*n+p], a[i*n+k]
			}
			norms[k], norms[p] = norms[p], norms[k]
			perm[k], perm[p] = perm[p], perm[k]
		}
		// Householder reflection of column k below row k.
		alpha := math.Sqrt(colNorm2(a, m, n, k, k))
		if k == 0 {
			first = alpha
		}
		if alpha <= rankTol*first || alpha == 0 {
			break
		}
		r++
		if a[k*n+k] > 0 {
			alpha = -alpha
		}
		v0 := a[k*n+k] - alpha
		// v = (v0, a[k+1..m-1][k]); H = I - 2 v vᵀ / vᵀv.
		vv := v0 * v0
		for i := k + 1; i < m; i++ {
			vv += a[i*n+k] * a[i*n+k]
		}
		a[k*n+k] = alpha
		if vv == 0 {
			continue
		}
		for j := k + 1; j < n; j++ {
			s := v0 * a[k*n+j]
			for i := k + 1; i < m; i++ {
				s += a[i*n+k] * a[i*n+j]
			}
			f := 2 * s / vv
			a[k*n+j] -= f * v0
			for i := k + 1; i < m; i++ {
				a[i*n+j] -= f * a[i*n+k]
			}
			// What is left of column j below row k.
			norms[j] = colNorm2(a, m, n, j, k+1)
		}
	}
	return r
}

func colNorm2(a []float64, m, n, j, from int) float64 {
	s := 0.0
	for i := from; i < m; i++ {
		s += a[i*n+j] * a[i*n+j]
	}
	return s
}

// rowBasis grows an orthonormal basis of the span of rows, one row at a
// time (modified Gram–Schmidt, twice, for the rounding).
type rowBasis struct {
	n int
	q []float64 // the basis, row-major
	k int       // how many rows q has
}

// add reports whether row v (length n) is independent of the rows added
// before, and adds it to the basis when it is. v is overwritten.
func (b *rowBasis) add(v []float64) bool {
	norm := math.Sqrt(dot(v, v))
	if norm == 0 {
		return false
	}
	for range 2 {
		for i := range b.k {
			qi := b.q[i*b.n : i*b.n+b.n]
			d := dot(qi, v)
			for j := range v {
				v[j] -= d * qi[j]
			}
		}
	}
	left := math.Sqrt(dot(v, v))
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

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
