package geom

import (
	"math"
	"testing"
)

// insidePolygon is the even-odd test of p against the polygon q.
func insidePolygon(p Vec, q []Vec) bool {
	in := false
	for i, a := range q {
		b := q[(i+1)%len(q)]
		if (a.Y > p.Y) != (b.Y > p.Y) && p.X < a.X+(p.Y-a.Y)*(b.X-a.X)/(b.Y-a.Y) {
			in = !in
		}
	}
	return in
}

// onPolygon reports whether p lies on an edge of q, within tol.
func onPolygon(p Vec, q []Vec, tol float64) bool {
	for i, a := range q {
		if c, _ := (Segment{A: a, B: q[(i+1)%len(q)]}).Closest(p); c.Dist(p) <= tol {
			return true
		}
	}
	return false
}

// TestRevcloud: a cloud's vertices lie on the polygon, its chords are
// about the arc length asked, and every arc's middle (found from the
// chord, not from the bulge's arc: the sagitta is bulge × half the
// chord, on the outer side) lies outside the polygon, whichever way the
// polygon runs.
func TestRevcloud(t *testing.T) {
	square := []Vec{Pt(0, 0), Pt(100, 0), Pt(100, 60), Pt(0, 60)}
	cw := []Vec{Pt(0, 0), Pt(0, 60), Pt(100, 60), Pt(100, 0)}
	tri := []Vec{Pt(1000, 1000), Pt(1003, 1000), Pt(1001, 1002)}
	for _, tc := range []struct {
		name      string
		p         []Vec
		arc       float64
		arcs      int
		minC      float64
		maxC      float64
		clockwise bool
	}{
		{"square", square, 10, 32, 10, 10, false},
		{"clockwise", cw, 10, 32, 10, 10, true},
		{"uneven", square, 7, 14 + 9 + 14 + 9, 100.0 / 14, 60.0 / 9, false},
		{"small triangle far away", tri, 0.5, 6 + 6 + 4, math.Sqrt(8) / 6, math.Sqrt(5) / 4, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := Revcloud(tc.p, tc.arc)
			if err != nil {
				t.Fatal(err)
			}
			size := boxOfPoints(tc.p)
			if !pl.Closed || len(pl.V) != tc.arcs {
				t.Fatalf("cloud: closed %v, %d arcs; want closed, %d", pl.Closed, len(pl.V), tc.arcs)
			}
			for i, v := range pl.V {
				w := pl.V[(i+1)%len(pl.V)].P
				if !onPolygon(v.P, tc.p, 1e-9*size) {
					t.Errorf("vertex %d %v is not on the polygon", i, v.P)
				}
				if (v.Bulge < 0) != tc.clockwise || math.Abs(v.Bulge) != RevcloudBulge {
					t.Errorf("vertex %d bulge %v, want ±%v outwards", i, v.Bulge, RevcloudBulge)
				}
				chord := v.P.Dist(w)
				if chord < math.Min(tc.minC, tc.maxC)*(1-1e-9) || chord > math.Max(tc.minC, tc.maxC)*(1+1e-9) {
					t.Errorf("arc %d chord %v, want %v to %v", i, chord, tc.minC, tc.maxC)
				}
				// The middle of the arc: right of the chord for a positive bulge.
				d := w.Sub(v.P)
				right := Vec{d.Y, -d.X}.Unit()
				mid := v.P.Mid(w).Add(right.Mul(v.Bulge * chord / 2))
				if insidePolygon(mid, tc.p) || onPolygon(mid, tc.p, 1e-9*size) {
					t.Errorf("arc %d bulges to %v, inside the polygon", i, mid)
				}
				// And the bulge's arc goes through it.
				if a := BulgeArc(v.P, w, v.Bulge); math.Abs(a.C.Dist(mid)-a.R) > 1e-9*size {
					t.Errorf("arc %d: its middle %v is %v from the centre, radius %v", i, mid, a.C.Dist(mid), a.R)
				}
			}
		})
	}
	for _, bad := range []struct {
		name string
		p    []Vec
		arc  float64
	}{
		{"two points", []Vec{Pt(0, 0), Pt(1, 0), Pt(0, 0)}, 1},
		{"on a line", []Vec{Pt(0, 0), Pt(1, 0), Pt(2, 0)}, 1},
		{"no arc length", square, 0},
		{"too many arcs", square, 1e-4},
	} {
		if _, err := Revcloud(bad.p, bad.arc); err == nil {
			t.Errorf("%s: Revcloud = nil error, want one", bad.name)
		}
	}
}
