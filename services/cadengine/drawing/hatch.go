package drawing

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Hatch is a hatch entity: Loops bound it — the first the outer boundary,
// those inside others islands, filled by the even-odd rule — and Pattern
// fills it: "SOLID", or one of HatchPatterns at Scale, turned by Angle
// degrees; a pattern read from a file that the engine does not know by
// name brings its definition, Lines (at scale 1 and angle 0). The loops
// are copies of the boundaries it was made from.
type Hatch struct {
	Pattern string
	Scale   float64
	Angle   float64
	Loops   []Loop
	Lines   []PatternLine
	// Gradient, when set, fills the hatch with a gradient instead of its
	// pattern (which is SOLID then, as DXF has it).
	Gradient *Gradient
}

// Loop is a closed boundary of a hatch: a closed polyline (bulges
// included; a circle is two half-circle bulges) or, when Ellipse is set,
// a whole ellipse E.
type Loop struct {
	Poly    geom.Polyline
	Ellipse bool
	E       geom.EllipseArc
}

// PatternLine is one family of parallel lines of a hatch pattern, as in
// acad.pat: the lines run at Angle degrees through Origin, each the
// previous moved by Delta (along the line, then across it), drawn with
// Dashes (positive dashes, negative gaps, 0 dots; none: solid).
type PatternLine struct {
	Angle  float64
	Origin geom.Vec
	Delta  geom.Vec
	Dashes []float64
}

// HatchPatterns are the named patterns the engine draws, from AutoCAD's
// acad.pat (sizes in drawing units at scale 1).
var HatchPatterns = map[string][]PatternLine{
	"ANSI31": {{Angle: 45, Delta: geom.Pt(0, 3.175)}},
	"ANSI37": {{Angle: 45, Delta: geom.Pt(0, 3.175)}, {Angle: 135, Delta: geom.Pt(0, 3.175)}},
	"NET":    {{Angle: 0, Delta: geom.Pt(0, 3.175)}, {Angle: 90, Delta: geom.Pt(0, 3.175)}},
	"DOTS":   {{Angle: 0, Delta: geom.Pt(0.79375, 1.5875), Dashes: []float64{0, -1.5875}}},
}

// HatchPatternNames lists the patterns for messages.
const HatchPatternNames = "SOLID, ANSI31, ANSI37, DOTS, NET"

// CanonicalPattern spells a pattern name the standard way (ignoring case).
func CanonicalPattern(s string) (string, bool) {
	u := strings.ToUpper(strings.TrimSpace(s))
	if _, ok := HatchPatterns[u]; ok || u == "SOLID" {
		return u, true
	}
	return "", false
}

// Solid reports whether the hatch is a solid fill.
func (g Hatch) Solid() bool { return g.Pattern == "SOLID" }

// PatternLines are the hatch's pattern's line families at scale 1 and
// angle 0: its own (Lines), or the named pattern's.
func (g Hatch) PatternLines() []PatternLine {
	if len(g.Lines) > 0 {
		return g.Lines
	}
	return HatchPatterns[g.Pattern]
}

// Kind implements [Geometry].
func (Hatch) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_HATCH }

// Prims are the loop's curves.
func (l Loop) Prims() []any {
	if l.Ellipse {
		return []any{l.E}
	}
	return l.Poly.Prims()
}

// Area is the area the loop encloses.
func (l Loop) Area() float64 {
	if l.Ellipse {
		a := l.E.Major.Len()
		return math.Pi * a * a * l.E.Ratio
	}
	return l.Poly.Area()
}

// Flatten is the loop as a polygon within tol of it.
func (l Loop) Flatten(tol float64) []geom.Vec {
	if l.Ellipse {
		a := l.E.Major.Len()
		n := max(16, int(math.Ceil(2*math.Pi/(2*math.Acos(math.Max(-1, 1-tol/a))))))
		n = min(n, 4096)
		out := make([]geom.Vec, n)
		for i := range out {
			out[i] = l.E.At(2 * math.Pi * float64(i) / float64(n))
		}
		return out
	}
	var out []geom.Vec
	for _, s := range l.Poly.Pieces() {
		out = append(out, s.A)
		if s.Bulge == 0 {
			continue
		}
		a := geom.BulgeArc(s.A, s.B, s.Bulge)
		n := max(2, int(math.Ceil(a.Sweep/(2*math.Acos(math.Max(-1, 1-tol/a.R))))))
		n = min(n, 4096)
		for i := 1; i < n; i++ {
			f := float64(i) / float64(n)
			if a.Reversed {
				f = 1 - f
			}
			out = append(out, a.At(a.Start+a.Sweep*f))
		}
	}
	return out
}

// Bounds is the loop's extents.
func (l Loop) Bounds() geom.Box { return geom.PrimBounds(l.Prims()) }

// transformed is the loop under x.
func (l Loop) transformed(x geom.Xform) Loop {
	if l.Ellipse {
		e := l.E
		e.C, e.Major = x.Point(e.C), x.Linear(e.Major)
		return Loop{Ellipse: true, E: e}
	}
	return Loop{Poly: Polyline{Polyline: l.Poly}.Transformed(x).(Polyline).Polyline}
}

// ErrLoopsCross is a hatch whose boundaries cross themselves or each
// other, which has no inside the engine can tell.
var ErrLoopsCross = errors.New("hatch boundaries must not cross themselves or each other")

// CheckLoops checks that no loop crosses itself or another.
func CheckLoops(loops []Loop) error {
	for i, l := range loops {
		if !l.Ellipse && l.Poly.SelfIntersects() {
			return fmt.Errorf("boundary %d: %w", i, ErrLoopsCross)
		}
		for j := i + 1; j < len(loops); j++ {
			if !l.Bounds().Overlaps(loops[j].Bounds()) {
				continue
			}
			for _, p := range l.Prims() {
				for _, q := range loops[j].Prims() {
					pts, err := geom.Intersect(p, q)
					if err != nil || len(pts) > 0 {
						return fmt.Errorf("boundaries %d and %d: %w", i, j, ErrLoopsCross)
					}
				}
			}
		}
	}
	return nil
}

// Depths is, for each loop, how many other loops hold it: the outer
// boundaries are at 0, islands at odd depths.
func (g Hatch) Depths() []int {
	polys := make([][]geom.Vec, len(g.Loops))
	for i, l := range g.Loops {
		polys[i] = l.Flatten(1e-6 * boxSize(l.Bounds()))
	}
	out := make([]int, len(g.Loops))
	for i, l := range g.Loops {
		p := l.E.At(0)
		if !l.Ellipse {
			p = l.Poly.V[0].P
		}
		for j := range g.Loops {
			if i != j && insidePolygon(polys[j], p) {
				out[i]++
			}
		}
	}
	return out
}

func boxSize(b geom.Box) float64 { return math.Max(b.Max.X-b.Min.X, b.Max.Y-b.Min.Y) }

// insidePolygon is the even-odd test of p against the polygon.
func insidePolygon(poly []geom.Vec, p geom.Vec) bool {
	in := false
	for i := range poly {
		a, b := poly[i], poly[(i+1)%len(poly)]
		if (a.Y > p.Y) != (b.Y > p.Y) && p.X < a.X+(p.Y-a.Y)*(b.X-a.X)/(b.Y-a.Y) {
			in = !in
		}
	}
	return in
}

// Area is the hatched area: each loop's area, added at even depths and
// taken away at odd ones (islands).
func (g Hatch) Area() float64 {
	a := 0.0
	for i, d := range g.Depths() {
		if d%2 == 0 {
			a += g.Loops[i].Area()
		} else {
			a -= g.Loops[i].Area()
		}
	}
	return math.Abs(a)
}

// flatTol is the flattening tolerance of the hatch's picture.
func (g Hatch) flatTol() float64 { return 1e-4 * math.Max(boxSize(g.Bounds()), 1e-9) }

// maxPatternSegments bounds the lines a pattern may draw.
const maxPatternSegments = 200000

// ErrPatternTooDense is a pattern so small against its boundaries that it
// would draw more than maxPatternSegments lines.
var ErrPatternTooDense = errors.New("the pattern is too dense for the boundaries: use a larger scale")

// CheckDensity fails with ErrPatternTooDense when the pattern would draw
// too many lines (see Dense).
func (g Hatch) CheckDensity() error {
	if g.Dense() {
		return ErrPatternTooDense
	}
	return nil
}

// Dense reports whether the pattern would draw more than
// maxPatternSegments lines (dashes and dots counted) over the boundaries'
// extents: such a hatch is drawn solid, as ezdxf's drawing add-on draws
// it, and the tools that make hatches refuse it.
func (g Hatch) Dense() bool { return !g.Solid() && !(g.patternSegments() <= maxPatternSegments) }

// patternSegments estimates the pattern's lines, dashes and dots over the
// boundaries' extents: +Inf for a pattern of zero spacing, NaN for one
// whose extents or scale overflow.
func (g Hatch) patternSegments() float64 {
	b := g.Bounds()
	d := math.Hypot(b.Max.X-b.Min.X, b.Max.Y-b.Min.Y)
	n := 0.0
	for _, f := range g.PatternLines() {
		lines := d / (math.Abs(f.Delta.Y) * g.Scale)
		per := 1.0
		if len(f.Dashes) > 0 {
			per = math.Max(1, d/(patternLength(f.Dashes)*g.Scale))
		}
		n += lines * per
	}
	return n
}

// cost is what drawing the hatch makes (see Cost): its pattern's lines,
// or the vertices of its loops when it is drawn solid.
func (g Hatch) cost() int64 {
	if g.Solid() || g.Dense() {
		n := int64(0)
		for _, l := range g.Loops {
			n = addSat(n, int64(max(1, len(l.Poly.V))))
		}
		return max(1, n)
	}
	return max(1, int64(g.patternSegments()))
}

func patternLength(d []float64) float64 {
	l := 0.0
	for _, x := range d {
		l += math.Abs(x)
	}
	return l
}

// Picture implements [Pictured]: a solid hatch fills its loops; a pattern
// draws its lines (and dots) clipped to the inside.
func (g Hatch) Picture() Picture {
	tol := g.flatTol()
	polys := make([][]geom.Vec, len(g.Loops))
	for i, l := range g.Loops {
		polys[i] = l.Flatten(tol)
	}
	if g.Gradient != nil {
		return Picture{Fills: polys, Shade: new(g.Gradient.shade(g.Bounds()))}
	}
	if g.Solid() || g.Dense() {
		return Picture{Fills: polys}
	}
	var p Picture
	b := g.Bounds()
	if !b.NonEmpty {
		return p
	}
	for _, f := range g.PatternLines() {
		hatchFamily(&p, f, g.Scale, g.Angle, polys, b)
	}
	return p
}

// hatchFamily draws one family of pattern lines inside the polygons.
func hatchFamily(p *Picture, f PatternLine, scale, angle float64, polys [][]geom.Vec, b geom.Box) {
	s, c := geom.SinCosDeg(f.Angle + angle)
	u := geom.Pt(c, s)
	n := u.Perp()
	origin := geom.Pt(f.Origin.X*scale, f.Origin.Y*scale)
	step := u.Mul(f.Delta.X * scale).Add(n.Mul(f.Delta.Y * scale))
	spacing := f.Delta.Y * scale
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, q := range []geom.Vec{b.Min, b.Max, geom.Pt(b.Min.X, b.Max.Y), geom.Pt(b.Max.X, b.Min.Y)} {
		k := q.Sub(origin).Dot(n) / spacing
		lo, hi = math.Min(lo, k), math.Max(hi, k)
	}
	dashes := make([]float64, len(f.Dashes))
	for i, d := range f.Dashes {
		dashes[i] = d * scale
	}
	period := patternLength(dashes)
	var ts []float64
	for k := math.Floor(lo); k <= math.Ceil(hi); k++ {
		o := origin.Add(step.Mul(k))
		ts = ts[:0]
		for _, poly := range polys {
			for i := range poly {
				a, bb := poly[i], poly[(i+1)%len(poly)]
				sa, sb := a.Sub(o).Dot(n), bb.Sub(o).Dot(n)
				if (sa >= 0) == (sb >= 0) {
					continue
				}
				x := a.Add(bb.Sub(a).Mul(sa / (sa - sb)))
				ts = append(ts, x.Sub(o).Dot(u))
			}
		}
		sort.Float64s(ts)
		for i := 0; i+1 < len(ts); i += 2 {
			t0, t1 := ts[i], ts[i+1]
			if len(dashes) == 0 || period == 0 {
				p.Strokes = append(p.Strokes, geom.Segment{A: o.Add(u.Mul(t0)), B: o.Add(u.Mul(t1))})
				continue
			}
			t := math.Floor(t0/period) * period
			for t < t1 {
				for _, d := range dashes {
					switch {
					case d > 0:
						a, e := math.Max(t, t0), math.Min(t+d, t1)
						if e > a {
							p.Strokes = append(p.Strokes, geom.Segment{A: o.Add(u.Mul(a)), B: o.Add(u.Mul(e))})
						}
					case d == 0:
						if t >= t0 && t <= t1 {
							p.Dots = append(p.Dots, o.Add(u.Mul(t)))
						}
					}
					t += math.Abs(d)
				}
			}
		}
	}
}

// Prims implements [Geometry]: the boundaries.
func (g Hatch) Prims() []any {
	var out []any
	for _, l := range g.Loops {
		out = append(out, l.Prims()...)
	}
	return out
}

// Bounds implements [Geometry]: the boundaries' extents.
func (g Hatch) Bounds() geom.Box { return geom.PrimBounds(g.Prims()) }

// Finite implements [Geometry].
func (g Hatch) Finite() bool {
	if !geom.IsFinite(g.Scale) || !geom.IsFinite(g.Angle) {
		return false
	}
	for _, l := range g.Loops {
		if l.Ellipse && !(l.E.C.Finite() && l.E.Major.Finite() && geom.IsFinite(l.E.Ratio)) || !l.Ellipse && !l.Poly.Finite() {
			return false
		}
	}
	return true
}

// Transformed maps the boundaries; the pattern scales and turns with them.
func (g Hatch) Transformed(x geom.Xform) Geometry {
	out := Hatch{Pattern: g.Pattern, Scale: g.Scale * x.Scale, Angle: x.Direction(g.Angle), Lines: g.Lines}
	if g.Gradient != nil {
		gr := *g.Gradient
		gr.Angle = x.Direction(gr.Angle)
		out.Gradient = &gr
	}
	for _, l := range g.Loops {
		out.Loops = append(out.Loops, l.transformed(x))
	}
	return out
}

func (g Hatch) encodeTo(w *encoder) {
	w.string(g.Pattern)
	w.float(g.Scale)
	w.float(g.Angle)
	w.uvarint(uint64(len(g.Loops)))
	for _, l := range g.Loops {
		w.bool(l.Ellipse)
		if l.Ellipse {
			w.vec(l.E.C)
			w.vec(l.E.Major)
			w.float(l.E.Ratio)
			continue
		}
		w.uvarint(uint64(len(l.Poly.V)))
		for _, v := range l.Poly.V {
			w.vec(v.P)
			w.float(v.Bulge)
		}
	}
	w.uvarint(uint64(len(g.Lines)))
	for _, f := range g.Lines {
		w.float(f.Angle)
		w.vec(f.Origin)
		w.vec(f.Delta)
		w.uvarint(uint64(len(f.Dashes)))
		for _, d := range f.Dashes {
			w.float(d)
		}
	}
	if g.Gradient != nil {
		w.byte(hatchGradient)
		g.Gradient.encodeTo(w)
	}
}

func decodeHatch(r *decoder) Hatch {
	g := Hatch{Pattern: r.string(), Scale: r.float(), Angle: r.float()}
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail("hatch loops")
		return g
	}
	for i := uint64(0); i < n && r.err == nil; i++ {
		if r.byte() == 1 {
			c := r.vec()
			m := r.vec()
			g.Loops = append(g.Loops, Loop{Ellipse: true, E: geom.EllipseArc{C: c, Major: m, Ratio: r.float(), Sweep: 2 * math.Pi}})
			continue
		}
		k := r.uvarint()
		if k > uint64(len(r.b)/24) {
			r.fail("hatch loop")
			return g
		}
		v := make([]geom.Vertex, k)
		for j := range v {
			p := r.vec()
			v[j] = geom.Vertex{P: p, Bulge: r.float()}
		}
		g.Loops = append(g.Loops, Loop{Poly: geom.Polyline{V: v, Closed: true}})
	}
	n = r.uvarint()
	if n > uint64(len(r.b)/40) {
		r.fail("hatch pattern")
		return g
	}
	for i := uint64(0); i < n && r.err == nil; i++ {
		f := PatternLine{Angle: r.float(), Origin: r.vec(), Delta: r.vec()}
		k := r.uvarint()
		if k > uint64(len(r.b)/8) {
			r.fail("hatch pattern dashes")
			return g
		}
		for j := uint64(0); j < k; j++ {
			f.Dashes = append(f.Dashes, r.float())
		}
		g.Lines = append(g.Lines, f)
	}
	if len(r.b) > 0 && r.b[0] == hatchGradient {
		r.byte()
		g.Gradient = new(decodeGradient(r))
	}
	return g
}

func (g Hatch) fill(w *wire) {
	pb := &w.pb
	h := &enginev1.Hatch{Pattern: g.Pattern, Scale: g.Scale, Angle: g.Angle, Area: g.Area()}
	for _, l := range g.Loops {
		pl := &enginev1.HatchLoop{}
		if l.Ellipse {
			pl.Center, pl.MajorAxis, pl.Ratio = pbPoint(l.E.C), pbPoint(l.E.Major), new(l.E.Ratio)
		} else {
			for _, v := range l.Poly.V {
				pv := &enginev1.Vertex{X: v.P.X, Y: v.P.Y}
				if v.Bulge != 0 {
					pv.Bulge = new(v.Bulge)
				}
				pl.Points = append(pl.Points, pv)
			}
		}
		h.Loops = append(h.Loops, pl)
	}
	if gr := g.Gradient; gr != nil {
		h.Gradient = gr.wire()
	}
	pb.Hatch = h
}

// LoopOf is the hatch loop of a closed entity's geometry: a closed
// polyline, a circle (two half-circle bulges) or a whole ellipse; false
// for anything else.
func LoopOf(g Geometry) (Loop, bool) {
	switch g := g.(type) {
	case Polyline:
		if g.Closed && len(g.Pieces()) >= 2 {
			return Loop{Poly: geom.Polyline{V: append([]geom.Vertex(nil), g.V...), Closed: true}}, true
		}
	case Circle:
		return Loop{Poly: geom.Polyline{Closed: true, V: []geom.Vertex{
			{P: g.C.Add(geom.Pt(g.R, 0)), Bulge: 1}, {P: g.C.Sub(geom.Pt(g.R, 0)), Bulge: 1},
		}}}, true
	case Ellipse:
		if g.Full() {
			return Loop{Ellipse: true, E: g.Arc()}, true
		}
	}
	return Loop{}, false
}
