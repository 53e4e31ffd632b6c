package geom

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGridNearMatchesScan: for random boxes of every size (points, small
// boxes, boxes wider than gridMaxCells cells), Near finds exactly the
// boxes a scan of all of them finds overlapping the query, each once.
func TestGridNearMatchesScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	box := func() Box {
		p := Pt(r.Float64()*1000-500, r.Float64()*1000-500)
		s := []float64{0, 1, 10, 300}[r.IntN(4)]
		return Box{Min: p, Max: p.Add(Pt(r.Float64()*s, r.Float64()*s)), NonEmpty: true}
	}
	g := NewGrid(7)
	var all []Box
	for range 2000 {
		b := box()
		if id := g.Add(b); id != len(all) {
			t.Fatalf("Add = %d, want %d", id, len(all))
		}
		all = append(all, b)
	}
	for range 300 {
		q := box()
		var got, want []int
		g.Near(q, func(id int) bool {
			got = append(got, id)
			return true
		})
		for i, b := range all {
			if b.Overlaps(q) {
				want = append(want, i)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("Near(%v) = %v, want %v", q, got, want)
		}
	}
	// Stopping early: fn returning false ends the query.
	n := 0
	g.Near(Box{Min: Pt(-600, -600), Max: Pt(600, 600), NonEmpty: true}, func(int) bool { n++; return n < 3 })
	if n != 3 {
		t.Errorf("Near went on after fn said stop: %d calls", n)
	}
}

// TestConvexOverlap: rectangles, one turned, against their overlap along
// the axes worked out by hand.
func TestConvexOverlap(t *testing.T) {
	rect := func(x0, y0, x1, y1 float64) Polygon { return Polygon{Pt(x0, y0), Pt(x1, y0), Pt(x1, y1), Pt(x0, y1)} }
	// A unit square turned 45° about (0, 0): a diamond reaching ±√½.
	h := math.Sqrt(0.5)
	diamond := Polygon{Pt(0, -h), Pt(h, 0), Pt(0, h), Pt(-h, 0)}
	for _, c := range []struct {
		a, b   Polygon
		margin float64
		want   bool
	}{
		{rect(0, 0, 10, 5), rect(5, 2, 15, 8), 0, true},
		{rect(0, 0, 10, 5), rect(5, 2, 15, 8), 2.9, true}, // they overlap by 3 across
		{rect(0, 0, 10, 5), rect(5, 2, 15, 8), 3.1, false},
		{rect(0, 0, 10, 5), rect(10, 0, 20, 5), 0, false}, // touching
		{rect(0, 0, 10, 5), rect(11, 0, 20, 5), 0, false},
		// The diamond's corner reaches x = √½ ≈ 0.707: a box from 0.6
		// overlaps its shadow on x, and is cut off by its sloping side
		// when it starts at y 0.2 (x + y > √½ there).
		{diamond, rect(0.6, -0.05, 2, 0.05), 0, true},
		{diamond, rect(0.6, 0.2, 2, 1), 0, false},
	} {
		if got := ConvexOverlap(c.a, c.b, c.margin); got != c.want {
			t.Errorf("ConvexOverlap(%v, %v, %v) = %v, want %v", c.a, c.b, c.margin, got, c.want)
		}
	}
}

// TestPrimDistance: distances from points to a segment (inside and past
// its ends), an arc (on its sweep and off it) and a circle's centre.
func TestPrimDistance(t *testing.T) {
	quarter := Arc{C: Pt(0, 0), R: 2, Start: 0, Sweep: math.Pi / 2}
	for _, c := range []struct {
		prim any
		p    Vec
		want float64
	}{
		{Segment{Pt(0, 0), Pt(10, 0)}, Pt(5, 3), 3},
		{Segment{Pt(0, 0), Pt(10, 0)}, Pt(13, 4), 5},
		{quarter, Pt(3, 3), 3*math.Sqrt2 - 2},
		{quarter, Pt(0, -2), math.Hypot(2, 2)}, // nearest is the start (2, 0)
		{EllipseArc{C: Pt(0, 0), Major: Pt(4, 0), Ratio: 0.5, Sweep: 2 * math.Pi}, Pt(0, 5), 3},
		{"no curve", Pt(0, 0), math.Inf(1)},
	} {
		if got := PrimDistance(c.prim, c.p); math.Abs(got-c.want) > 1e-9 && got != c.want {
			t.Errorf("PrimDistance(%v, %v) = %v, want %v", c.prim, c.p, got, c.want)
		}
	}
}
