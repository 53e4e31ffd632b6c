package solve

import (
	"context"
	"math"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// maxIterations bounds the Levenberg–Marquardt iterations of one solve
// of one group; a well-posed group converges in a handful.
const maxIterations = 100

// lambdaDrop is the most the damping shrinks after a good step
// (Nielsen's rule has 1/3): a long chain of constraints has small
// singular values, which a damping shrinking by thirds approaches only
// linearly.
const lambdaDrop = 1e-3

// work is the scratch space of solving one group: the columns of its
// free parameters and the matrices, reused from group to group.
type work struct {
	col   []int32 // by Param: the column in the group being solved, or -1
	r     []float64
	rt    []float64 // residuals at a trial point
	j     jac       // the Jacobian's nonzeros
	a     []float64 // n × n, JᵀJ's lower triangle within its envelope
	g     []float64
	d     []float64
	fac   []float64 // A + λI and its factor
	old   []float64 // the parameters before a trial step
	first []int32   // by column: the envelope of JᵀJ (see cholSolve)
}

// growKeep is s at length n, its contents left as they are.
func growKeep(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// grow is s at length n, zeroed.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// problem is a set of constraints of one group over its free parameters.
type problem struct {
	s       *System
	entries []int32
	params  []Param
	rows    int
	w       *work
}

func (s *System) problem(w *work, entries []int32, params []Param) *problem {
	rows := 0
	for _, k := range entries {
		rows += s.entries[k].c.rows()
	}
	return &problem{s: s, entries: entries, params: params, rows: rows, w: w}
}

// eval writes the residuals into r and, when withJ, the Jacobian's
// nonzeros into p.w.j.
func (p *problem) eval(r []float64, withJ bool) {
	var j *jac
	if withJ {
		j = &p.w.j
		j.col = p.w.col
		j.terms = j.terms[:0]
		j.spans = j.spans[:0]
	}
	row := 0
	for _, k := range p.entries {
		c := p.s.entries[k].c
		if j != nil {
			j.row = row
			j.spans = append(j.spans, int32(len(j.terms)))
		}
		c.eval(p.s.x, r[row:row+c.rows()], j)
		row += c.rows()
	}
	if j != nil {
		j.spans = append(j.spans, int32(len(j.terms)))
	}
}

// tolerances is how far from zero the residuals of p may be: done, when
// the solve may stop, and held, when the constraints count as holding
// (see [geom.Tol]: relative to the size of the figure, never finer than
// the rounding of its coordinates).
func (p *problem) tolerances() (done, held float64) {
	lo, hi, mag := math.Inf(1), math.Inf(-1), 0.0
	for _, k := range p.entries {
		for _, q := range p.s.entries[k].ps {
			v := p.s.x[q]
			lo, hi, mag = math.Min(lo, v), math.Max(hi, v), math.Max(mag, math.Abs(v))
		}
	}
	size := 1.0
	if hi > lo {
		size = math.Max(1, hi-lo)
	}
	held = geom.Tol(size, mag)
	return math.Max(held*1e-6, geom.RoundingFloor(mag)/8), held
}

// envelope sets w.first: for each column of JᵀJ, the first column it
// shares a constraint with.
func (p *problem) envelope() {
	n := len(p.params)
	w := p.w
	if cap(w.first) < n {
		w.first = make([]int32, n)
	}
	w.first = w.first[:n]
	for c := range w.first {
		w.first[c] = int32(c)
	}
	for _, k := range p.entries {
		ps := p.s.entries[k].ps
		lo := int32(n)
		for _, q := range ps {
			if c := w.col[q]; c >= 0 {
				lo = min(lo, c)
			}
		}
		for _, q := range ps {
			if c := w.col[q]; c >= 0 {
				w.first[c] = min(w.first[c], lo)
			}
		}
	}
}

// solve runs Levenberg–Marquardt on p from the current values and
// reports whether the constraints hold at the end.
func (p *problem) solve(ctx context.Context) (bool, error) {
	m, n := p.rows, len(p.params)
	w := p.w
	w.r = grow(w.r, m)
	w.rt = grow(w.rt, m)
	w.a = growKeep(w.a, n*n)
	w.g = grow(w.g, n)
	w.d = grow(w.d, n)
	w.fac = growKeep(w.fac, n*n)
	w.old = grow(w.old, n)
	x := p.s.x
	p.envelope()
	done, held := p.tolerances()
	p.eval(w.r, true)
	cost := dot(w.r, w.r) / 2
	if n == 0 {
		return maxAbs(w.r) <= held, nil
	}
	lambda, nu := -1.0, 2.0
	maxDiag := 0.0
	for it := 0; it < maxIterations; it++ {
		if maxAbs(w.r) <= done {
			break
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		// A = JᵀJ (its lower triangle) and g = Jᵀr, from each
		// constraint's nonzeros: a column may come twice in a row (a
		// point read twice), and the products add up right.
		for c := range n {
			clear(w.a[c*n+int(w.first[c]) : c*n+c+1])
		}
		clear(w.g)
		t := w.j.terms
		for e := range len(w.j.spans) - 1 {
			ts := t[w.j.spans[e]:w.j.spans[e+1]]
			for _, a := range ts {
				w.g[a.col] += a.v * w.r[a.row]
				ac := w.a[int(a.col)*n : int(a.col)*n+n]
				for _, b := range ts {
					if b.row == a.row && b.col <= a.col {
						ac[b.col] += a.v * b.v
					}
				}
			}
		}
		maxDiag = 0
		for c := range n {
			maxDiag = math.Max(maxDiag, w.a[c*n+c])
		}
		scale := math.Max(1, maxDiag)
		if lambda < 0 {
			lambda = 1e-3 * scale
		}
		accepted := false
		for !accepted {
			lambda = math.Max(lambda, 1e-12*scale)
			if lambda > 1e16*scale {
				return maxAbs(w.r) <= held, nil // no step reduces the residuals: a minimum
			}
			// (A + λI) δ = -g, on a copy: A is kept for the next λ.
			step, fac := w.d, w.fac
			for c := range n {
				copy(fac[c*n+int(w.first[c]):c*n+c+1], w.a[c*n+int(w.first[c]):c*n+c+1])
				fac[c*n+c] += lambda
				step[c] = -w.g[c]
			}
			if !cholSolve(fac, step, w.first, n) {
				lambda *= nu
				nu *= 2
				continue
			}
			// The step's size against the parameters': nothing left
			// to gain.
			big, xs := 0.0, 0.0
			for c, q := range p.params {
				big = math.Max(big, math.Abs(step[c]))
				xs = math.Max(xs, math.Abs(x[q]))
			}
			if big <= 1e-15*math.Max(1, xs) {
				return maxAbs(w.r) <= held, nil
			}
			// The reduction the linear model predicts: ½ δᵀ(λδ - g).
			pred := 0.0
			for c := range n {
				pred += step[c] * (lambda*step[c] - w.g[c])
			}
			pred /= 2
			old := w.old
			for c, q := range p.params {
				old[c] = x[q]
				x[q] += step[c]
			}
			trial := w.rt
			p.eval(trial, false)
			tcost := dot(trial, trial) / 2
			if rho := (cost - tcost) / pred; pred > 0 && rho > 0 && !math.IsNaN(tcost) && !math.IsInf(tcost, 0) {
				accepted = true
				cost = tcost
				lambda *= math.Max(lambdaDrop, 1-math.Pow(2*rho-1, 3))
				nu = 2
				p.eval(w.r, true)
				continue
			}
			for c, q := range p.params {
				x[q] = old[c]
			}
			lambda *= nu
			nu *= 2
		}
	}
	return maxAbs(w.r) <= held, nil
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, f := range v {
		m = math.Max(m, math.Abs(f))
	}
	return m
}
