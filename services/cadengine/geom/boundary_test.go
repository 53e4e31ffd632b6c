package geom

import (
	"errors"
	"math"
	"testing"
)

// sampledArea is the area of the points of box [x0, x1] × [y0, y1] that in
// accepts, counted on an n × n grid of cell centres: an estimate that
// shares nothing with the tracing.
func sampledArea(x0, y0, x1, y1 float64, n int, in func(Vec) bool) float64 {
	hx, hy := (x1-x0)/float64(n), (y1-y0)/float64(n)
	count := 0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if in(Vec{x0 + (float64(i)+0.5)*hx, y0 + (float64(j)+0.5)*hy}) {
				count++
			}
		}
	}
	return float64(count) * hx * hy
}

func rectSegments(x0, y0, x1, y1 float64) []any {
	return []any{
		Segment{Vec{x0, y0}, Vec{x1, y0}}, Segment{Vec{x1, y0}, Vec{x1, y1}},
		Segment{Vec{x1, y1}, Vec{x0, y1}}, Segment{Vec{x0, y1}, Vec{x0, y0}},
	}
}

func circle(c Vec, r float64) Arc { return Arc{C: c, R: r, Start: 0, Sweep: 2 * math.Pi} }

// onAny reports whether p lies on one of the curves.
func onAny(curves []any, p Vec, tol float64) bool {
	for _, c := range curves {
		switch g := c.(type) {
		case Segment:
			q, _ := g.Closest(p)
			if q.Dist(p) <= tol {
				return true
			}
		case Arc:
			if g.Closest(p).Dist(p) <= tol {
				return true
			}
		}
	}
	return false
}

func TestTraceBoundarySquareDiagonal(t *testing.T) {
	for _, o := range []Vec{{0, 0}, {3e6, -4e6}} {
		// A piece of no length first: sources still count from the
		// caller's list.
		curves := append([]any{Segment{o, o}}, rectSegments(o.X, o.Y, o.X+10, o.Y+10)...)
		curves = append(curves, Segment{o, o.Add(Vec{10, 10})})
		b, err := TraceBoundary(curves, o.Add(Vec{7, 2}))
		if err != nil {
			t.Fatalf("at %v: TraceBoundary = %v", o, err)
		}
		want := []Vec{o, o.Add(Vec{10, 0}), o.Add(Vec{10, 10})}
		if len(b.Outline.V) != 3 {
			t.Fatalf("at %v: outline %v, want the triangle %v", o, b.Outline.V, want)
		}
		for _, w := range want {
			found := false
			for _, v := range b.Outline.V {
				found = found || v.P.Dist(w) <= 1e-9*10 && v.Bulge == 0
			}
			if !found {
				t.Errorf("at %v: outline %v lacks corner %v", o, b.Outline.V, w)
			}
		}
		if got := b.Area(); math.Abs(got-50) > 1e-6 {
			t.Errorf("at %v: area = %v, want 50 (counter-clockwise)", o, got)
		}
		if js := b.Sources; len(js) != 3 || js[0] != 1 || js[1] != 2 || js[2] != 5 {
			t.Errorf("at %v: sources = %v, want the bottom (1) and right (2) sides and the diagonal (5)", o, b.Sources)
		}
		if _, err := TraceBoundary(curves, o.Add(Vec{20, 5})); !errors.Is(err, ErrNoBoundary) {
			t.Errorf("at %v: a point outside = %v, want ErrNoBoundary", o, err)
		}
	}
}

func TestTraceBoundaryCircleCrossingRectangle(t *testing.T) {
	c := Vec{4, 1}
	curves := append(rectSegments(0, 0, 4, 2), circle(c, 1.5))
	inRect := func(p Vec) bool { return p.X > 0 && p.X < 4 && p.Y > 0 && p.Y < 2 }
	inCircle := func(p Vec) bool { return p.Dist(c) < 1.5 }
	tests := []struct {
		name string
		p    Vec
		in   func(Vec) bool
	}{
		{"rectangle less circle", Vec{1, 1}, func(p Vec) bool { return inRect(p) && !inCircle(p) }},
		{"lens", Vec{3.5, 1}, func(p Vec) bool { return inRect(p) && inCircle(p) }},
		{"circle less rectangle", Vec{5, 1}, func(p Vec) bool { return !inRect(p) && inCircle(p) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := TraceBoundary(curves, tt.p)
			if err != nil {
				t.Fatalf("TraceBoundary = %v", err)
			}
			want := sampledArea(-1, -1, 6, 3, 1400, tt.in)
			if got := b.Area(); math.Abs(got-want) > 5e-3*want {
				t.Errorf("area = %v, sampled %v", got, want)
			}
			for i, v := range b.Outline.V {
				if !onAny(curves, v.P, 1e-9) {
					t.Errorf("vertex %d %v is on no curve", i, v.P)
				}
				if !b.Outline.Closed {
					t.Errorf("outline is open")
				}
			}
			// Points well inside and outside the region agree with it.
			for _, q := range []Vec{tt.p, {-0.5, 1}, {2, 2.5}, {4.9, 1.1}, {3.7, 0.4}, {0.5, 0.5}} {
				if got := b.Outline.winds(q); got != tt.in(q) {
					t.Errorf("winds(%v) = %v, want %v", q, got, tt.in(q))
				}
			}
		})
	}
}

func TestTraceBoundaryArcs(t *testing.T) {
	// A half disc: an arc and a line that runs past its ends (the ends
	// are pruned).
	semi := []any{Arc{C: Vec{0, 0}, R: 2, Start: 0, Sweep: math.Pi}, Segment{Vec{-3, 0}, Vec{3, 0}}}
	b, err := TraceBoundary(semi, Vec{0, 1})
	if err != nil {
		t.Fatalf("half disc: %v", err)
	}
	if got := b.Area(); math.Abs(got-2*math.Pi) > 1e-9 {
		t.Errorf("half disc area = %v, want 2π", got)
	}
	if n := len(b.Outline.V); n != 2 {
		t.Errorf("half disc outline %v, want a chord and one arc (2 vertices)", b.Outline.V)
	}
	bulges := 0
	for _, v := range b.Outline.V {
		if math.Abs(math.Abs(v.Bulge)-1) < 1e-12 {
			bulges++
		}
	}
	if bulges != 1 {
		t.Errorf("half disc outline %v: want one piece of bulge 1 (a half circle)", b.Outline.V)
	}
	if _, err := TraceBoundary(semi, Vec{0, -1}); !errors.Is(err, ErrNoBoundary) {
		t.Errorf("below the half disc = %v, want ErrNoBoundary", err)
	}

	// A slot: two half circles and two lines; and a hole in it.
	slot := []any{
		Segment{Vec{0, 0}, Vec{6, 0}}, Arc{C: Vec{6, 1}, R: 1, Start: -math.Pi / 2, Sweep: math.Pi},
		Segment{Vec{6, 2}, Vec{0, 2}}, Arc{C: Vec{0, 1}, R: 1, Start: math.Pi / 2, Sweep: math.Pi},
		circle(Vec{3, 1}, 0.5),
	}
	inSlot := func(p Vec) bool {
		return p.X >= 0 && p.X <= 6 && p.Y > 0 && p.Y < 2 || p.Dist(Vec{0, 1}) < 1 || p.Dist(Vec{6, 1}) < 1
	}
	b, err = TraceBoundary(slot, Vec{1, 1})
	if err != nil {
		t.Fatalf("slot: %v", err)
	}
	if want := sampledArea(-1.5, -0.5, 7.5, 2.5, 1500, inSlot); math.Abs(b.Area()-want) > 5e-3*want {
		t.Errorf("slot area = %v, sampled %v", b.Area(), want)
	}
	if want := 12 + math.Pi; math.Abs(b.Area()-want) > 1e-9 {
		t.Errorf("slot area = %v, want 12 + π", b.Area())
	}
	if len(b.Islands) != 1 || math.Abs(b.Islands[0].signedArea()-math.Pi/4) > 1e-9 {
		t.Errorf("slot islands = %v, want the hole (area π/4, counter-clockwise)", b.Islands)
	}
	// On the chord of the circle's halves, at its centre.
	h, err := TraceBoundary(slot, Vec{3, 1})
	if err != nil || math.Abs(h.Area()-math.Pi/4) > 1e-9 || len(h.Islands) != 0 {
		t.Errorf("in the hole: area %v, islands %d, err %v; want π/4, none", h.Area(), len(h.Islands), err)
	}
}

func TestTraceBoundaryEmpty(t *testing.T) {
	for name, curves := range map[string][]any{
		"none":        nil,
		"open chain":  {Segment{Vec{0, 0}, Vec{1, 0}}, Segment{Vec{1, 0}, Vec{1, 1}}},
		"tiny pieces": {Segment{Vec{0, 0}, Vec{0, 0}}},
	} {
		if _, err := TraceBoundary(curves, Vec{0.5, 0.5}); !errors.Is(err, ErrNoBoundary) {
			t.Errorf("%s: TraceBoundary = %v, want ErrNoBoundary", name, err)
		}
	}
}

// TestTraceBoundaryOverlaps draws a side twice, in part, and a circle
// twice: the copies are one edge, and the regions are those of the
// figure drawn once.
func TestTraceBoundaryOverlaps(t *testing.T) {
	curves := append(rectSegments(0, 0, 10, 10),
		Segment{Vec{2, 0}, Vec{8, 0}}, Segment{Vec{10, 10}, Vec{10, 4}},
		circle(Vec{5, 5}, 2), Arc{C: Vec{5, 5}, R: 2, Start: 1, Sweep: 2 * math.Pi})
	b, err := TraceBoundary(curves, Vec{1, 1})
	if err != nil {
		t.Fatalf("TraceBoundary = %v", err)
	}
	if got, want := b.Area(), 100.0; math.Abs(got-want) > 1e-9 || len(b.Islands) != 1 {
		t.Errorf("area %v with %d islands, want %v with the circle", got, len(b.Islands), want)
	}
	if got := b.Outline.Length(); math.Abs(got-40) > 1e-9 {
		t.Errorf("outline length %v, want 40 (no side twice)", got)
	}
	in, err := TraceBoundary(curves, Vec{5, 5.5})
	if err != nil || math.Abs(in.Area()-4*math.Pi) > 1e-9 {
		t.Errorf("in the circle: area %v, err %v; want 4π", in.Area(), err)
	}
}
