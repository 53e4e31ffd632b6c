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
	col []int32 // by Param: the column in the group being solved, or -1
	r   []float64
	rt  []float64 // residuals at a trial point
	j   jac       // the Jacobian's nonzeros
	env envelope  // the shape of JᵀJ
	a   []float64 // JᵀJ within env
	g   []float64
	d   []float64
	fac []float64 // A + λI and its factor, within env
	old []float64 // the parameters before a trial step
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
	scale
}

func (s *System) problem(w *work, entries []int32, params []Param, sc scale) *problem {
	rows := 0
	for _, k := range entries {
		rows += s.entries[k].c.rows()
	}
	return &problem{s: s, entries: entries, params: params, rows: rows, w: w, scale: sc}
}

// scale is the size of a group's figure and the magnitude of its
// coordinates, taken once before it is solved: the tolerances and the
// angle residuals of every solve of the group (its subsets' included)
// are in its terms.
type scale struct{ size, mag float64 }

// measure is the scale of the parameters the entries read: the size the
// larger of the points' spans in x and in y and the other lengths (at
// least 1), the magnitude the largest absolute value.
func (s *System) measure(entries []int32) scale {
	var lo, hi [3]float64
	for k := range lo {
		lo[k], hi[k] = math.Inf(1), math.Inf(-1)
	}
	sc := scale{size: 1}
	for _, k := range entries {
		for _, q := range s.entries[k].ps {
			v := s.x[q]
			sc.mag = math.Max(sc.mag, math.Abs(v))
			if kd := s.kind[q]; kd == kindLength {
				sc.size = math.Max(sc.size, math.Abs(v))
			} else {
				lo[kd], hi[kd] = math.Min(lo[kd], v), math.Max(hi[kd], v)
			}
		}
	}
	for k := range lo {
		if hi[k] > lo[k] {
			sc.size = math.Max(sc.size, hi[k]-lo[k])
		}
	}
	return sc
}

// eval writes the residuals into r and, when withJ, the Jacobian's
// nonzeros into p.w.j.
func (p *problem) eval(r []float64, withJ bool) {
	j := &p.w.j
	j.on, j.size, j.col = withJ, p.size, p.w.col
	if withJ {
		j.terms = j.terms[:0]
		j.spans = j.spans[:0]
	}
	row := 0
	for _, k := range p.entries {
		c := p.s.entries[k].c
		if withJ {
			j.row = row
			j.spans = append(j.spans, int32(len(j.terms)))
		}
		c.eval(p.s.x, r[row:row+c.rows()], j)
		row += c.rows()
	}
	if withJ {
		j.spans = append(j.spans, int32(len(j.terms)))
	}
}

// tolerances is how far from zero the residuals of p may be: done, when
// the solve may stop, and held, when the constraints count as holding
// (see [geom.Tol]: relative to the size of the figure, never finer than
// the rounding of its coordinates).
func (p *problem) tolerances() (done, held float64) {
	held = geom.Tol(p.size, p.mag)
	// Residuals are lengths of the figure's size at coordinates of its
	// magnitude: their rounding is about that of the larger.
	return math.Max(held*1e-6, geom.RoundingFloor(math.Max(p.size, p.mag))), held
}

// shape sets w.env to the envelope of JᵀJ: each column's first is the
// first column it shares a constraint with.
func (p *problem) shape() {
	n := len(p.params)
	e := &p.w.env
	e.first = e.first[:0]
	for c := range n {
		e.first = append(e.first, int32(c))
	}
	for _, k := range p.entries {
		ps := p.s.entries[k].ps
		lo := int32(n)
		for _, q := range ps {
			if c := p.w.col[q]; c >= 0 {
				lo = min(lo, c)
			}
		}
		for _, q := range ps {
			if c := p.w.col[q]; c >= 0 {
				e.first[c] = min(e.first[c], lo)
			}
		}
	}
	e.off = append(e.off[:0], 0)
	for c := range n {
		e.off = append(e.off, e.off[c]+c-int(e.first[c])+1)
	}
}

// solve runs Levenberg–Marquardt on p from the current values and
// reports whether the constraints hold at the end.
func (p *problem) solve(ctx context.Context) (bool, error) {
	m, n := p.rows, len(p.params)
	w := p.w
	w.r = grow(w.r, m)
	w.rt = grow(w.rt, m)
	w.g = grow(w.g, n)
	w.d = grow(w.d, n)
	w.old = grow(w.old, n)
	x := p.s.x
	p.shape()
	env := &w.env
	w.a = growKeep(w.a, env.off[n])
	w.fac = growKeep(w.fac, env.off[n])
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
		clear(w.a)
		clear(w.g)
		t := w.j.terms
		for e := range len(w.j.spans) - 1 {
			ts := t[w.j.spans[e]:w.j.spans[e+1]]
			for _, a := range ts {
				w.g[a.col] += a.v * w.r[a.row]
				ac, fc := env.row(w.a, int(a.col)), env.first[a.col]
				for _, b := range ts {
					if b.row == a.row && b.col <= a.col {
						ac[b.col-fc] += a.v * b.v
					}
				}
			}
		}
		maxDiag = 0
		for c := range n {
			maxDiag = math.Max(maxDiag, w.a[env.off[c+1]-1])
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
			copy(fac, w.a)
			for c := range n {
				fac[env.off[c+1]-1] += lambda
				step[c] = -w.g[c]
			}
			if !cholSolve(env, fac, step) {
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
