package geom

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// cadFitCase is a set of fit points for SplineThroughCAD and what ezdxf
// 0.18's fit_points_to_cad_cv is given for the same curve: the same, but
// where ezdxf fails (repeated fit points, two fit points without
// tangents, fit points in a line) or ignores a tangent, the input that
// gives the curve SplineThroughCAD makes instead.
type cadFitCase struct {
	name       string
	fit        []Vec
	start, end *Vec
	ezdxfFit   []Vec  // nil for fit
	ezdxfTan   []Vec  // nil for start and end when both are given, else none
	noTangents bool   // ezdxf gets no tangents even though ezdxfTan is nil and both are given
	closed     bool   // the spline is Closed
	note       string // why ezdxf's input differs, for failure messages
}

func ptr(v Vec) *Vec { return &v }

// randomWalk is n fit points, each a random step of length 0.2 to 5 from
// the one before, turning by less than 150°, from at.
func randomWalk(r *rand.Rand, n int, at Vec) []Vec {
	pts := []Vec{at}
	dir := 2 * math.Pi * r.Float64()
	for len(pts) < n {
		dir += (r.Float64() - 0.5) * 5 * math.Pi / 6
		pts = append(pts, polar(pts[len(pts)-1], 0.2+4.8*r.Float64(), dir))
	}
	return pts
}

func cadFitCases() []cadFitCase {
	r := rand.New(rand.NewPCG(7, 11))
	sine := make([]Vec, 0, 30)
	for i := 0; i < 30; i++ {
		x := float64(i) * 2 * math.Pi / 29
		sine = append(sine, Vec{x * 3, 3 * math.Sin(x)})
	}
	closedWalk := randomWalk(r, 12, Vec{})
	closedWalk = append(closedWalk, closedWalk[0])
	return []cadFitCase{
		{name: "three points", fit: []Vec{{0, 0}, {1, 1}, {2, 0}}},
		{name: "the 25-unit curve", fit: []Vec{{0, 0}, {5, 8}, {12, 3}, {20, 10}, {25, -2}}},
		{name: "both tangents", fit: []Vec{{0, 0}, {5, 8}, {12, 3}, {20, 10}}, start: ptr(Vec{3, 0}), end: ptr(Vec{0, -0.5})},
		{name: "a start tangent only", fit: []Vec{{0, 0}, {5, 8}, {12, 3}, {20, 10}}, start: ptr(Vec{0, 5}), noTangents: true,
			note: "ezdxf's SPLINE uses the tangents only when it has both"},
		{name: "an end tangent only", fit: []Vec{{0, 0}, {5, 8}, {12, 3}, {20, 10}}, end: ptr(Vec{1, 1}), noTangents: true,
			note: "ezdxf's SPLINE uses the tangents only when it has both"},
		{name: "a zero tangent", fit: []Vec{{0, 0}, {5, 8}, {12, 3}, {20, 10}}, start: ptr(Vec{}), end: ptr(Vec{1, 1}), noTangents: true,
			note: "ezdxf divides by the zero tangent's length; a zero tangent is none"},
		{name: "two points with tangents", fit: []Vec{{1, 1}, {4, 5}}, start: ptr(Vec{1, 0}), end: ptr(Vec{0, 1})},
		{name: "two points", fit: []Vec{{1, 1}, {4, 5}}, ezdxfTan: []Vec{{3, 4}, {3, 4}},
			note: "ezdxf fails on two fit points without tangents; the straight line has the chord as both"},
		{name: "closed", fit: []Vec{{0, 0}, {4, 0}, {4, 3}, {0, 3}, {0, 0}}, closed: true},
		{name: "closed with tangents", fit: []Vec{{0, 0}, {4, 0}, {4, 3}, {0, 3}, {0, 0}}, start: ptr(Vec{1, 0}), end: ptr(Vec{0, -1}), closed: true},
		{name: "closed random", fit: closedWalk, closed: true},
		{name: "repeated points", fit: []Vec{{0, 0}, {0, 0}, {5, 8}, {12, 3}, {12, 3}, {12, 3}, {20, 10}, {25, -2}, {25, -2}},
			ezdxfFit: []Vec{{0, 0}, {5, 8}, {12, 3}, {20, 10}, {25, -2}},
			note:     "ezdxf's system is singular with repeated fit points; they count once"},
		{name: "in a line", fit: []Vec{{0, 0}, {1, 0}, {3, 0}, {4, 0}}, ezdxfTan: []Vec{{1, 0}, {1, 0}},
			note: "ezdxf divides 0 by 0 where the end's points are in a line; Akima's α = ½ gives (1, 0)"},
		// The first three in a line but for the rounding of 0.1, which
		// decides ezdxf's weights at the start: α is 1, not ½, and the
		// start tangent points forward, not back.
		{name: "nearly in a line at the start", fit: []Vec{{0, 0}, {1, 0.1}, {6, 0.6}, {7, 2}, {9, 1}}},
		{name: "nearly in a line", fit: []Vec{{0.1, 0.7}, {1.1, 0.8}, {3.1, 1.0}, {4.1, 1.1}, {6.1, 1.3}}},
		{name: "uneven spacing", fit: []Vec{{0, 0}, {0.001, 0.001}, {10, 0}, {1000, 5}, {1001, 6}}},
		{name: "far from the origin", fit: []Vec{{1e6, 2e6}, {1e6 + 1, 2e6 + 2}, {1e6 + 3, 2e6 + 3}, {1e6 + 4, 2e6 + 1}, {1e6 + 7, 2e6 + 2}}},
		{name: "a sine, 30 points", fit: sine},
		{name: "random, 10 points", fit: randomWalk(r, 10, Vec{-3, 4})},
		{name: "random, 16 points, tangents", fit: randomWalk(r, 16, Vec{}), start: ptr(Vec{-1, 2}), end: ptr(Vec{0.3, 0.1})},
		{name: "random, 50 points", fit: randomWalk(r, 50, Vec{100, -20})},
		{name: "random, 50 points, tangents", fit: randomWalk(r, 50, Vec{}), start: ptr(Vec{1, 0}), end: ptr(Vec{-1, -1})},
	}
}

// cadFitScript prints, for each case it reads, the control points and
// knots ezdxf makes of its fit points and its points at the parameters.
const cadFitScript = `
import sys, json
from ezdxf.math import fit_points_to_cad_cv
out = []
for c in json.load(sys.stdin):
    s = fit_points_to_cad_cv(c["fit"], tangents=c["tangents"])
    out.append({
        "control": [[p.x, p.y] for p in s.control_points],
        "knots": list(s.knots()),
        "points": [[p.x, p.y] for p in s.points(c["params"])],
    })
print(json.dumps(out))
`

// ezdxfPython is a python3 that can import ezdxf, or "" when none can;
// under CI (CI=true), which installs python3-ezdxf, none is a failure. It
// is internal/ezdxftest's Python, which geom's tests, standard library
// only like geom, do not import.
func ezdxfPython(t *testing.T) string {
	t.Helper()
	for _, cand := range []string{"python3", "/usr/bin/python3"} {
		if p, err := exec.LookPath(cand); err == nil && exec.Command(p, "-c", "import ezdxf").Run() == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("CI installs python3-ezdxf, but no python3 has it")
	}
	t.Skip("no python3 with ezdxf")
	return ""
}

// cadTol is the tolerance for points of a curve through fit: 1e-9 of the
// fit points' extent, or the rounding of where they sit if coarser.
func cadTol(fit []Vec) float64 {
	var b Box
	for _, p := range fit {
		b.AddPoint(p)
	}
	size := math.Max(b.Max.X-b.Min.X, b.Max.Y-b.Min.Y)
	return math.Max(1e-9*size, RoundingFloor(math.Max(b.Min.Mag(), b.Max.Mag())))
}

// TestSplineThroughCADAsEzdxf holds SplineThroughCAD to ezdxf 0.18's
// fit_points_to_cad_cv: the same knots and control points, to 1e-9 of
// the fit points' extent, and the same points along the curve.
func TestSplineThroughCADAsEzdxf(t *testing.T) {
	py := ezdxfPython(t)
	cases := cadFitCases()
	params := make([]float64, 41)
	for i := range params {
		params[i] = float64(i) / 40
	}
	type input struct {
		Fit      [][2]float64 `json:"fit"`
		Tangents [][2]float64 `json:"tangents"`
		Params   []float64    `json:"params"`
	}
	pairs := func(vs []Vec) [][2]float64 {
		out := make([][2]float64, len(vs))
		for i, v := range vs {
			out[i] = [2]float64{v.X, v.Y}
		}
		return out
	}
	var in []input
	for _, c := range cases {
		fit, tan := c.ezdxfFit, c.ezdxfTan
		if fit == nil {
			fit = c.fit
		}
		if tan == nil && c.start != nil && c.end != nil && !c.noTangents {
			tan = []Vec{*c.start, *c.end}
		}
		in = append(in, input{Fit: pairs(fit), Tangents: pairs(tan), Params: params})
		if tan == nil {
			in[len(in)-1].Tangents = nil
		}
	}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-c", cadFitScript)
	cmd.Stdin = bytes.NewReader(data)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ezdxf: %v\n%s", err, stderr.String())
	}
	var want []struct {
		Control [][2]float64
		Knots   []float64
		Points  [][2]float64
	}
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("ezdxf said %q: %v", out, err)
	}
	if len(want) != len(cases) {
		t.Fatalf("ezdxf answered %d cases, want %d", len(want), len(cases))
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.note != "" {
				t.Log(c.note)
			}
			s, err := SplineThroughCAD(c.fit, c.start, c.end)
			if err != nil {
				t.Fatalf("SplineThroughCAD = %v", err)
			}
			w := want[i]
			tol := cadTol(c.fit)
			if len(s.Knots) != len(w.Knots) || len(s.Control) != len(w.Control) {
				t.Fatalf("SplineThroughCAD has %d knots and %d control points, ezdxf %d and %d", len(s.Knots), len(s.Control), len(w.Knots), len(w.Control))
			}
			for j, k := range w.Knots {
				if math.Abs(s.Knots[j]-k) > 1e-9 {
					t.Errorf("knot %d = %.17g, ezdxf %.17g", j, s.Knots[j], k)
				}
			}
			for j, p := range w.Control {
				if q := Pt(p[0], p[1]); s.Control[j].Dist(q) > tol {
					t.Errorf("control point %d = %v, ezdxf %v (%g apart, want under %g)", j, s.Control[j], q, s.Control[j].Dist(q), tol)
				}
			}
			for j, p := range w.Points {
				if q, got := Pt(p[0], p[1]), s.At(params[j]); got.Dist(q) > tol {
					t.Errorf("At(%g) = %v, ezdxf %v (%g apart, want under %g)", params[j], got, q, got.Dist(q), tol)
				}
			}
			if s.Closed != c.closed {
				t.Errorf("Closed = %v, want %v", s.Closed, c.closed)
			}
		})
	}
}

// TestSplineThroughCADGolden holds SplineThroughCAD to control points and
// knots ezdxf 0.18.1 printed (fit_points_to_cad_cv), so that it is
// checked where no ezdxf is installed.
func TestSplineThroughCADGolden(t *testing.T) {
	tests := []struct {
		name       string
		fit        []Vec
		start, end *Vec
		knots      []float64
		control    []Vec
	}{
		{
			name:  "the 25-unit curve",
			fit:   []Vec{{0, 0}, {5, 8}, {12, 3}, {20, 10}, {25, -2}},
			knots: []float64{0, 0, 0, 0, 0.2264167125171558, 0.4328735815423386, 0.6879983941539469, 1, 1, 1, 1},
			control: []Vec{{0, 0}, {0.8362563835952133, 3.031429390532648}, {4.379648196202645, 12.916100779956286},
				{12.666124026778014, -2.580892544535927}, {21.31364509076933, 17.56305689512089},
				{24.30373905764592, 2.2770315030322132}, {25, -2}},
		},
		{
			name:  "both tangents",
			fit:   []Vec{{0, 0}, {5, 8}, {12, 3}, {20, 10}},
			start: ptr(Vec{1, 0}), end: ptr(Vec{0, -1}),
			knots: []float64{0, 0, 0, 0, 0.32909482702439663, 0.629178185909368, 1, 1, 1, 1},
			control: []Vec{{0, 0}, {3.1446603773522015, 0}, {3.6417462057980874, 14.62960723622066},
				{12.189290878829961, -4.551391015749221}, {20.000000000000004, 13.543381937578218},
				{20.000000000000004, 10.000000000000002}},
		},
		{
			name:  "closed",
			fit:   []Vec{{0, 0}, {4, 0}, {4, 3}, {0, 0}},
			knots: []float64{0, 0, 0, 0, 0.3333333333333333, 0.5833333333333334, 1, 1, 1, 1},
			control: []Vec{{0, 0}, {1.2935233335271092, -0.3233808333817773}, {4.683068038528689, -1.5504300618795783},
				{4.365450373218879, 5.4061017212224725}, {1.1785113019775793, 1.1785113019775793}, {0, 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := SplineThroughCAD(tt.fit, tt.start, tt.end)
			if err != nil {
				t.Fatalf("SplineThroughCAD = %v", err)
			}
			if len(s.Knots) != len(tt.knots) || len(s.Control) != len(tt.control) {
				t.Fatalf("SplineThroughCAD has %d knots and %d control points, want %d and %d", len(s.Knots), len(s.Control), len(tt.knots), len(tt.control))
			}
			for j, k := range tt.knots {
				if math.Abs(s.Knots[j]-k) > 1e-12 {
					t.Errorf("knot %d = %.17g, want %.17g", j, s.Knots[j], k)
				}
			}
			tol := 1e-12 * sizeOf(s)
			for j, c := range tt.control {
				if !near(s.Control[j], c, 1, tol) {
					t.Errorf("control point %d = %.17g, want %.17g", j, s.Control[j], c)
				}
			}
		})
	}
}

// TestSplineThroughCAD checks what a user sees of the curve: it runs
// through the fit points (fit point k at knot k+3), from the first to the
// last; given both tangents, its derivative at each end is the tangent's
// direction times the total chord length, whatever the tangent's length;
// a single or zero tangent is no tangent; repeated fit points count once;
// two fit points make the straight line between them.
func TestSplineThroughCAD(t *testing.T) {
	for _, c := range cadFitCases() {
		t.Run(c.name, func(t *testing.T) {
			s, err := SplineThroughCAD(c.fit, c.start, c.end)
			if err != nil {
				t.Fatalf("SplineThroughCAD = %v", err)
			}
			if s.Degree != 3 || s.Closed != c.closed {
				t.Errorf("degree %d, closed %v; want 3, %v", s.Degree, s.Closed, c.closed)
			}
			q, err := distinctFitPoints(c.fit)
			if err != nil {
				t.Fatal(err)
			}
			tol := cadTol(c.fit)
			for k, p := range q {
				if got := s.At(s.Knots[k+3]); got.Dist(p) > tol {
					t.Errorf("At(knot %d) = %v, want fit point %d %v", k+3, got, k, p)
				}
			}
			if t0, t1 := s.Domain(); t0 != 0 || t1 != 1 || s.At(0) != q[0] || s.At(1) != q[len(q)-1] {
				t.Errorf("runs from %v at %g to %v at %g, want %v at 0 to %v at 1", s.At(t0), t0, s.At(t1), t1, q[0], q[len(q)-1])
			}
			chord := 0.0
			for k := 1; k < len(q); k++ {
				chord += q[k].Dist(q[k-1])
			}
			if c.start == nil || c.end == nil || *c.start == (Vec{}) || *c.end == (Vec{}) {
				plain, err := SplineThroughCAD(c.fit, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				for j := range s.Control {
					if s.Control[j] != plain.Control[j] {
						t.Errorf("control point %d = %v, without tangents %v: a lone or zero tangent must count as none", j, s.Control[j], plain.Control[j])
					}
				}
				return
			}
			for _, e := range []struct {
				at  float64
				tan Vec
			}{{0, *c.start}, {1, *c.end}} {
				want := e.tan.Unit().Mul(chord)
				if got := s.Derivative(e.at); !near(got, want, 1e-12, chord) {
					t.Errorf("Derivative(%g) = %v, want %v (the tangent's direction times the chord length %g)", e.at, got, want, chord)
				}
			}
			longer, err := SplineThroughCAD(c.fit, ptr(c.start.Mul(7)), ptr(c.end.Mul(0.01)))
			if err != nil {
				t.Fatal(err)
			}
			for j := range s.Control {
				if !near(longer.Control[j], s.Control[j], 1e-12, sizeOf(s)) {
					t.Errorf("with the tangents scaled, control point %d = %v, want %v", j, longer.Control[j], s.Control[j])
				}
			}
		})
	}
	t.Run("repeated points count once", func(t *testing.T) {
		a, _ := SplineThroughCAD([]Vec{{0, 0}, {0, 0}, {1, 2}, {1, 2}, {3, 3}, {4, 1}, {4, 1}}, nil, nil)
		b, _ := SplineThroughCAD([]Vec{{0, 0}, {1, 2}, {3, 3}, {4, 1}}, nil, nil)
		if fmt.Sprint(a.Knots, a.Control) != fmt.Sprint(b.Knots, b.Control) {
			t.Errorf("with repeats %v %v, without %v %v", a.Knots, a.Control, b.Knots, b.Control)
		}
	})
	t.Run("two points make a straight line", func(t *testing.T) {
		s, err := SplineThroughCAD([]Vec{{1, 1}, {4, 5}}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := []Vec{{1, 1}, {2, 1 + 4.0/3}, {3, 1 + 8.0/3}, {4, 5}}
		for j, c := range want {
			if !near(s.Control[j], c, 1e-15, 5) {
				t.Errorf("control point %d = %v, want %v", j, s.Control[j], c)
			}
		}
	})
	t.Run("an end in a line", func(t *testing.T) {
		// ezdxf divides 0 by 0 at the start; Akima's α = ½ gives the
		// start's chord (1, 0), the line's direction.
		s, err := SplineThroughCAD([]Vec{{0, 0}, {1, 0}, {2, 0}, {3, 1}, {4, 3}}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := s.Derivative(0); math.Abs(d.Y) > 1e-15*d.Len() || d.X <= 0 {
			t.Errorf("Derivative(0) = %v, want along +x", d)
		}
	})
}

// TestSplineThroughCADLong makes the spline through 10,000 fit points,
// which the tridiagonal solve does in linear time, and checks that it
// runs through each.
func TestSplineThroughCADLong(t *testing.T) {
	fit := randomWalk(rand.New(rand.NewPCG(3, 5)), 10000, Vec{})
	s, err := SplineThroughCAD(fit, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Control) != len(fit)+2 {
		t.Fatalf("%d control points, want %d", len(s.Control), len(fit)+2)
	}
	tol := cadTol(fit)
	for k, p := range fit {
		if got := s.At(s.Knots[k+3]); got.Dist(p) > tol {
			t.Fatalf("At(knot %d) = %v, want fit point %d %v (%g apart)", k+3, got, k, p, got.Dist(p))
		}
	}
}

func TestSplineThroughCADErrors(t *testing.T) {
	inf := Vec{math.Inf(1), 0}
	tests := []struct {
		name       string
		fit        []Vec
		start, end *Vec
		want       string
	}{
		{"none", nil, nil, nil, "at least 2 distinct fit points, not 0"},
		{"one", []Vec{{1, 1}}, nil, nil, "at least 2 distinct fit points, not 1"},
		{"one, repeated", []Vec{{1, 1}, {1, 1}}, nil, nil, "at least 2 distinct fit points, not 1"},
		{"NaN", []Vec{{0, 0}, {math.NaN(), 1}}, nil, nil, "fit point 1 is (NaN, 1)"},
		{"infinite tangent", []Vec{{0, 0}, {1, 1}}, &inf, ptr(Vec{1, 0}), "the start tangent is (+Inf, 0)"},
		{"overflow", []Vec{{-1e308, 0}, {1e308, 0}, {1e308, 1}}, nil, nil, "too far apart"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := SplineThroughCAD(tt.fit, tt.start, tt.end)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("SplineThroughCAD(%v) = %v, want an error with %q", tt.fit, err, tt.want)
			}
		})
	}
}

func BenchmarkSplineThroughCAD(b *testing.B) {
	fit := randomWalk(rand.New(rand.NewPCG(3, 5)), 10000, Vec{})
	for b.Loop() {
		if _, err := SplineThroughCAD(fit, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleSplineThroughCAD() {
	s, err := SplineThroughCAD([]Vec{{0, 0}, {1, 1}, {2, 0}}, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("knots:", s.Knots)
	for _, c := range s.Control {
		fmt.Printf("control (%.4f, %.4f)\n", c.X, c.Y)
	}
	fmt.Printf("through (1, 1): %.4f\n", s.At(s.Knots[4]))
	// Output:
	// knots: [0 0 0 0 0.5 1 1 1 1]
	// control (0.0000, 0.0000)
	// control (0.2108, 0.4216)
	// control (1.0000, 1.5784)
	// control (1.7892, 0.4216)
	// control (2.0000, 0.0000)
	// through (1, 1): {1.0000 1.0000}
}
