package geom

import (
	"errors"
	"math"
)

// ParallelKey is a row of DIN 6885-1 (form A, high; ISO 773 has the same
// sizes): for shaft diameters over Over up to UpTo, the key's width B and
// height H, the keyseat's depth in the shaft T1 and the keyway's depth in
// the hub T2, in millimetres.
type ParallelKey struct {
	Over, UpTo float64
	B, H       float64
	T1, T2     float64
}

// parallelKeys is DIN 6885-1's table, 6 to 500 mm.
var parallelKeys = []ParallelKey{
	{6, 8, 2, 2, 1.2, 1.0},
	{8, 10, 3, 3, 1.8, 1.4},
	{10, 12, 4, 4, 2.5, 1.8},
	{12, 17, 5, 5, 3.0, 2.3},
	{17, 22, 6, 6, 3.5, 2.8},
	{22, 30, 8, 7, 4.0, 3.3},
	{30, 38, 10, 8, 5.0, 3.3},
	{38, 44, 12, 8, 5.0, 3.3},
	{44, 50, 14, 9, 5.5, 3.8},
	{50, 58, 16, 10, 6.0, 4.3},
	{58, 65, 18, 11, 7.0, 4.4},
	{65, 75, 20, 12, 7.5, 4.9},
	{75, 85, 22, 14, 9.0, 5.4},
	{85, 95, 25, 14, 9.0, 5.4},
	{95, 110, 28, 16, 10.0, 6.4},
	{110, 130, 32, 18, 11.0, 7.4},
	{130, 150, 36, 20, 12.0, 8.4},
	{150, 170, 40, 22, 13.0, 9.4},
	{170, 200, 45, 25, 15.0, 10.4},
	{200, 230, 50, 28, 17.0, 11.4},
	{230, 260, 56, 32, 20.0, 12.4},
	{260, 290, 63, 32, 20.0, 12.4},
	{290, 330, 70, 36, 22.0, 14.4},
	{330, 380, 80, 40, 25.0, 15.4},
	{380, 440, 90, 45, 28.0, 17.4},
	{440, 500, 100, 50, 31.0, 19.5},
}

// ParallelKeyMin and ParallelKeyMax bound the diameters, in millimetres,
// ParallelKeyFor has a key for.
const (
	ParallelKeyMin = 6.0
	ParallelKeyMax = 500.0
)

// ParallelKeyFor is the DIN 6885-1 key for a shaft of diameter d mm:
// the row whose range holds d (over its lower bound, up to and with its
// upper; 6 itself takes the first row, as makers' tables do), or false
// outside 6 to 500 mm.
func ParallelKeyFor(d float64) (ParallelKey, bool) {
	if d == ParallelKeyMin {
		return parallelKeys[0], true
	}
	for _, k := range parallelKeys {
		if d > k.Over && d <= k.UpTo {
			return k, true
		}
	}
	return ParallelKey{}, false
}

// KeyedCircle is the closed outline of a circle of diameter d about c
// with a rectangular notch of width b centred on the direction angle
// (radians), its flat at distance top from c: a hub's bore with its
// keyway when top is beyond the circle, a shaft with its keyseat when
// top is inside it. The outline runs counter-clockwise from the notch's
// side at +b/2: the circle as two arcs to the other side, then the
// notch's side, flat and side (the notch's corners are sharp).
func KeyedCircle(c Vec, d, b, top, angle float64) (Polyline, error) {
	r := d / 2
	if !(r > 0) || !(b > 0) || b >= d {
		return Polyline{}, errors.New("a keyway must be narrower than its circle")
	}
	edge := math.Sqrt(r*r - b*b/4) // where the notch's sides meet the circle
	if !(top > r || (top > 0 && top < edge)) {
		return Polyline{}, errors.New("a keyway's flat must be outside the circle (a hub) or inside the chord its sides cut (a shaft)")
	}
	u := Vec{math.Cos(angle), math.Sin(angle)}
	v := u.Perp()
	half := math.Asin(b / d) // the angle from the notch's middle to a side
	bulge := math.Tan((math.Pi - half) / 4)
	return Polyline{Closed: true, V: []Vertex{
		{P: c.Add(u.Mul(edge)).Add(v.Mul(b / 2)), Bulge: bulge},
		{P: c.Sub(u.Mul(r)), Bulge: bulge},
		{P: c.Add(u.Mul(edge)).Sub(v.Mul(b / 2))},
		{P: c.Add(u.Mul(top)).Sub(v.Mul(b / 2))},
		{P: c.Add(u.Mul(top)).Add(v.Mul(b / 2))},
	}}, nil
}
