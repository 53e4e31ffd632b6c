package geom

import (
	"errors"
	"math"
)

// ---- arrays ----

// PolarAngles are the angles, in degrees, of the count items of a polar
// array that fills fill degrees (AutoCAD's convention): over a whole turn
// (|fill| = 360) the items are 360/count apart, the last one short of the
// first again; over less, fill/(count−1) apart, the last at fill. The
// first is 0, the original. Each angle is computed from its index (not
// by adding steps up), so that angles that are whole multiples of 90°
// come out exactly and turn exactly (see [RotateAbout]). A count below 2,
// a fill of 0 or beyond ±360 is an error.
func PolarAngles(count int, fill float64) ([]float64, error) {
	switch {
	case count < 2:
		return nil, errors.New("a polar array needs at least two items")
	case !IsFinite(fill) || fill == 0 || math.Abs(fill) > 360:
		return nil, errors.New("the fill angle must be between -360 and 360 degrees, not 0")
	}
	steps := float64(count - 1)
	if math.Abs(fill) == 360 {
		steps = float64(count)
	}
	out := make([]float64, count)
	for i := range out {
		out[i] = fill * float64(i) / steps
	}
	return out, nil
}

// GridOffsets are the moves from item (0, 0) to every item of a
// rectangular array of rows × columns, row by row (row 0 first, each row
// by column): columns columnSpacing apart along the direction angle
// degrees, rows rowSpacing apart along the direction 90° further. Each
// offset is computed from its indices, the first being (0, 0).
func GridOffsets(rows, columns int, rowSpacing, columnSpacing, angle float64) []Vec {
	s, c := SinCosDeg(angle)
	along, across := Vec{c, s}, Vec{-s, c}
	out := make([]Vec, 0, rows*columns)
	for r := 0; r < rows; r++ {
		for k := 0; k < columns; k++ {
			out = append(out, along.Mul(float64(k)*columnSpacing).Add(across.Mul(float64(r)*rowSpacing)))
		}
	}
	return out
}
