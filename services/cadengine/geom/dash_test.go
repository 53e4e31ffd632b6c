package geom

import (
	"math"
	"testing"
)

// ends are the first and last points of dashes, for comparing.
func ends(t *testing.T, strokes []any) [][2]Vec {
	t.Helper()
	var out [][2]Vec
	for _, s := range strokes {
		switch s := s.(type) {
		case Segment:
			out = append(out, [2]Vec{s.A, s.B})
		case Arc:
			if s.Reversed {
				out = append(out, [2]Vec{s.At(s.Start + s.Sweep), s.At(s.Start)})
			} else {
				out = append(out, [2]Vec{s.At(s.Start), s.At(s.Start + s.Sweep)})
			}
		default:
			t.Fatalf("a dash of type %T", s)
		}
	}
	return out
}

func sameEnds(got, want [][2]Vec) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i][0].Dist(want[i][0]) > 1e-12 || got[i][1].Dist(want[i][1]) > 1e-12 {
			return false
		}
	}
	return true
}

func TestDash(t *testing.T) {
	seg := func(ax, ay, bx, by float64) Segment { return Segment{A: Pt(ax, ay), B: Pt(bx, by)} }
	pair := func(ax, ay, bx, by float64) [2]Vec { return [2]Vec{Pt(ax, ay), Pt(bx, by)} }
	at := func(deg float64) Vec { return Pt(math.Cos(Rad(deg)), math.Sin(Rad(deg))) }
	q := math.Pi / 4 // an eighth of the unit circle's length
	for _, tc := range []struct {
		name    string
		run     []any
		pattern []float64
		want    [][2]Vec
		dots    []Vec
	}{
		{"segment", []any{seg(0, 0, 10, 0)}, []float64{2, -1},
			[][2]Vec{pair(0, 0, 2, 0), pair(3, 0, 5, 0), pair(6, 0, 8, 0), pair(9, 0, 10, 0)}, nil},
		{"starts with a gap", []any{seg(0, 0, 0, 5)}, []float64{-1, 2},
			[][2]Vec{pair(0, 1, 0, 3), pair(0, 4, 0, 5)}, nil},
		{"dots", []any{seg(0, 0, 3, 0)}, []float64{0, -1},
			nil, []Vec{Pt(0, 0), Pt(1, 0), Pt(2, 0), Pt(3, 0)}},
		{"dash and dot", []any{seg(0, 0, 6, 0)}, []float64{2, -1, 0, -1},
			[][2]Vec{pair(0, 0, 2, 0), pair(4, 0, 6, 0)}, []Vec{Pt(3, 0)}},
		{"arc", []any{Arc{C: Pt(0, 0), R: 1, Start: 0, Sweep: math.Pi}}, []float64{q, -q},
			[][2]Vec{{at(0), at(45)}, {at(90), at(135)}}, nil},
		{"reversed arc", []any{Arc{C: Pt(0, 0), R: 1, Start: 0, Sweep: math.Pi, Reversed: true}}, []float64{q, -q},
			[][2]Vec{{at(180), at(135)}, {at(90), at(45)}}, nil},
		{"across a joint", []any{seg(0, 0, 3, 0), seg(3, 0, 3, 3)}, []float64{2, -2},
			[][2]Vec{pair(0, 0, 2, 0), pair(3, 1, 3, 3)}, nil},
		{"a dash across a joint", []any{seg(0, 0, 3, 0), seg(3, 0, 3, 3)}, []float64{4, -1},
			[][2]Vec{pair(0, 0, 3, 0), pair(3, 0, 3, 1), pair(3, 2, 3, 3)}, nil},
		{"continuous", []any{seg(0, 0, 3, 0)}, []float64{1},
			[][2]Vec{pair(0, 0, 3, 0)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			strokes, dots := Dash(tc.run, tc.pattern)
			if got := ends(t, strokes); !sameEnds(got, tc.want) {
				t.Errorf("Dash(%v, %v) dashes = %v, want %v", tc.run, tc.pattern, got, tc.want)
			}
			if len(dots) != len(tc.dots) {
				t.Fatalf("Dash(%v, %v) dots = %v, want %v", tc.run, tc.pattern, dots, tc.dots)
			}
			for i := range dots {
				if dots[i].Dist(tc.dots[i]) > 1e-12 {
					t.Errorf("Dash(%v, %v) dots = %v, want %v", tc.run, tc.pattern, dots, tc.dots)
					break
				}
			}
			if n := float64(len(strokes) + len(dots)); n > DashCount(tc.run, tc.pattern) {
				t.Errorf("DashCount(%v, %v) = %v, fewer than the %v pieces Dash made", tc.run, tc.pattern, DashCount(tc.run, tc.pattern), n)
			}
		})
	}
}

// TestDashEllipse checks that dashes along an elliptical arc lie on it
// and cover the pattern's share of its length.
func TestDashEllipse(t *testing.T) {
	e := EllipseArc{C: Pt(1, 2), Major: Pt(10, 0), Ratio: 0.5, Start: 0, Sweep: 2 * math.Pi}
	strokes, dots := Dash([]any{e}, []float64{3, -1})
	if len(dots) != 0 {
		t.Errorf("dots %v, want none", dots)
	}
	var drawn float64
	for _, s := range strokes {
		seg := s.(Segment)
		drawn += seg.Length()
		if p := e.Closest(seg.A); p.Dist(seg.A) > 1e-3 {
			t.Fatalf("a dash starts at %v, %v off the ellipse", seg.A, p.Dist(seg.A))
		}
	}
	if want := e.Length() * 3 / 4; math.Abs(drawn-want) > 0.05*want {
		t.Errorf("dashes drawn %v long, want about %v (3/4 of %v)", drawn, want, e.Length())
	}
	if n := float64(len(strokes)); n > DashCount([]any{e}, []float64{3, -1}) {
		t.Errorf("DashCount = %v, fewer than the %v pieces made", DashCount([]any{e}, []float64{3, -1}), n)
	}
}

// TestDashCountTiny checks that a pattern far finer than its curve is
// counted, not cut: what a caller refuses before any work.
func TestDashCountTiny(t *testing.T) {
	run := []any{Segment{A: Pt(0, 0), B: Pt(1000, 0)}}
	if n := DashCount(run, []float64{0.5e-12, -0.25e-12}); n < 1e15 {
		t.Errorf("DashCount of a 1000-long segment in 0.75e-12 repeats = %v, want more than 1e15", n)
	}
	if n := DashCount(run, []float64{0, 0}); !math.IsInf(n, 1) {
		t.Errorf("DashCount of a pattern of no length = %v, want +Inf", n)
	}
}
