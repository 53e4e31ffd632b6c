package geom

import "math"

// ClipLine is the part inside the box b of the line through p along d,
// endless both ways, or, for a ray, from p on (Liang–Barsky); false when
// none of it is inside, or d is zero.
func ClipLine(p, d Vec, ray bool, b Box) (Segment, bool) {
	if !b.NonEmpty || d == (Vec{}) {
		return Segment{}, false
	}
	t0, t1 := math.Inf(-1), math.Inf(1)
	if ray {
		t0 = 0
	}
	for _, c := range [...]struct{ p, d, lo, hi float64 }{{p.X, d.X, b.Min.X, b.Max.X}, {p.Y, d.Y, b.Min.Y, b.Max.Y}} {
		if c.d == 0 {
			if c.p < c.lo || c.p > c.hi {
				return Segment{}, false
			}
			continue
		}
		a, z := (c.lo-c.p)/c.d, (c.hi-c.p)/c.d
		if a > z {
			a, z = z, a
		}
		t0, t1 = math.Max(t0, a), math.Min(t1, z)
	}
	if t0 > t1 {
		return Segment{}, false
	}
	return Segment{A: p.Add(d.Mul(t0)), B: p.Add(d.Mul(t1))}, true
}
