package drawing

import "math"

// ACIRGB is an approximate RGB colour of an AutoCAD Color Index: the nine
// standard colours exactly (7 as black, for a white page), 10–249 from
// the ACI hue wheel, 250–255 greys. 0 (by block) is drawn black.
func ACIRGB(c int32) (r, g, b uint8) {
	switch c {
	case 1:
		return 0xff, 0, 0
	case 2:
		return 0xff, 0xff, 0
	case 3:
		return 0, 0xff, 0
	case 4:
		return 0, 0xff, 0xff
	case 5:
		return 0, 0, 0xff
	case 6:
		return 0xff, 0, 0xff
	case 8:
		return 0x80, 0x80, 0x80
	case 9:
		return 0xc0, 0xc0, 0xc0
	case 250, 251, 252, 253, 254, 255:
		g := []uint8{0x33, 0x50, 0x69, 0x82, 0xbe, 0xff}[c-250]
		return g, g, g
	}
	if c < 10 || c > 249 {
		return 0, 0, 0
	}
	hue := float64(c/10-1) * 15
	value := []float64{1, 0.8, 0.6, 0.5, 0.3}[(c%10)/2]
	sat := 1.0
	if c%2 == 1 {
		sat = 0.5
	}
	return hsv(hue, sat, value)
}

func hsv(h, s, v float64) (uint8, uint8, uint8) {
	c := v * s
	x := c * (1 - math.Abs(math.Mod(h/60, 2)-1))
	m := v - c
	var r, g, b float64
	switch {
	case h < 60:
		r, g, b = c, x, 0
	case h < 120:
		r, g, b = x, c, 0
	case h < 180:
		r, g, b = 0, c, x
	case h < 240:
		r, g, b = 0, x, c
	case h < 300:
		r, g, b = x, 0, c
	default:
		r, g, b = c, 0, x
	}
	to := func(f float64) uint8 { return uint8(math.Round((f + m) * 255)) }
	return to(r), to(g), to(b)
}
