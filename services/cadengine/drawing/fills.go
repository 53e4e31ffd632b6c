package drawing

import (
	"fmt"
	"math"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Fills that are not one flat colour: an MTEXT's background mask and a
// hatch's gradient.

// TrueColor is a 24-bit colour a file gave beside an ACI number (DXF's
// 420/421): 0 is none, otherwise 1<<24 | 0xRRGGBB.
type TrueColor uint32

// RGBTrue is the true colour of r, g, b.
func RGBTrue(r, g, b uint8) TrueColor {
	return TrueColor(1<<24 | uint32(r)<<16 | uint32(g)<<8 | uint32(b))
}

// Set reports whether the colour is given.
func (c TrueColor) Set() bool { return c != 0 }

// RGB is the colour's value, 0xRRGGBB.
func (c TrueColor) RGB() uint32 { return uint32(c) & 0xffffff }

// rgbOf is the colour of an ACI number, or of the true colour when set.
func rgbOf(aci int32, tc TrueColor) [3]uint8 {
	if tc.Set() {
		v := tc.RGB()
		return [3]uint8{uint8(v >> 16), uint8(v >> 8), uint8(v)}
	}
	r, g, b := ACIRGB(aci)
	return [3]uint8{r, g, b}
}

// The bits of Background.Fill, as DXF's MTEXT 90.
const (
	BackgroundColor  = 1  // filled in Background.Color
	BackgroundWindow = 2  // filled in the drawing window's colour (the page's)
	BackgroundFrame  = 16 // a frame drawn around the text (kept for export)
)

// DefaultBackgroundScale is the border offset factor of a background
// mask that does not give one (DXF's 45).
const DefaultBackgroundScale = 1.5

// Background is an MTEXT's background mask (AutoCAD's "Background
// Mask"): an opaque box behind the text, its box grown by (Scale − 1) ×
// the text height on each side (and, with BackgroundFrame, outlined),
// filled in Color (an ACI number, or True
// when the file gave one) or, with BackgroundWindow (which wins over
// BackgroundColor, as ezdxf writes both for it), in the page's colour.
// The zero Background is none.
type Background struct {
	Fill         uint8 // BackgroundColor or BackgroundWindow, | BackgroundFrame; 0: none
	Color        int32 // ACI (63)
	True         TrueColor
	Scale        float64 // the border offset factor (45), 1–5; 0 is DefaultBackgroundScale
	Transparency int32   // DXF's 441 as read, kept for export
}

// On reports whether the text has a background fill.
func (b Background) On() bool { return b.Fill&(BackgroundColor|BackgroundWindow) != 0 }

// Framed reports whether the text has a frame: the background box's
// outline, drawn in the text's colour.
func (b Background) Framed() bool { return b.Fill&BackgroundFrame != 0 }

// scale is the border offset factor, DefaultBackgroundScale when unset.
func (b Background) scale() float64 {
	if b.Scale > 0 && geom.IsFinite(b.Scale) {
		return b.Scale
	}
	return DefaultBackgroundScale
}

// mtextBackground tags an MTEXT's background at the end of its encoding
// (after its style), so that one without encodes as it always did.
const mtextBackground = 'M'

// encodeTo writes fill (1 byte), colour (4 bytes), true colour (uvarint),
// scale, transparency (4 bytes).
func (b Background) encodeTo(w *encoder) {
	w.byte(b.Fill)
	w.int32(b.Color)
	w.uvarint(uint64(b.True))
	w.float(b.Scale)
	w.int32(b.Transparency)
}

func decodeBackground(r *decoder) Background {
	b := Background{Fill: r.byte(), Color: r.int32(), True: TrueColor(r.uvarint()), Scale: r.float(), Transparency: r.int32()}
	if b.Fill == 0 {
		r.fail("mtext background")
	}
	return b
}

// Backdrop is an area a picture fills in a colour of its own before
// anything else (an MTEXT's background): in Color, or in the page's
// colour when Page is set.
type Backdrop struct {
	Outline []geom.Vec
	Page    bool
	Color   [3]uint8
}

// backdrop is the MTEXT's background box, as its picture draws it: the
// text's box (as the engine draws it, see MText.Picture) grown by
// (scale − 1) × height on each side.
func (g MText) backdrop(x0, y0, w, h float64) Backdrop {
	m := (g.Background.scale() - 1) * g.Height
	out := Backdrop{Page: g.Background.Fill&BackgroundWindow != 0, Color: rgbOf(g.Background.Color, g.Background.True)}
	for _, c := range [][2]float64{{x0 - m, y0 - m}, {x0 + w + m, y0 - m}, {x0 + w + m, y0 + h + m}, {x0 - m, y0 + h + m}} {
		out.Outline = append(out.Outline, g.frame(c[0], c[1]))
	}
	return out
}

// GradientNames are the gradients DXF names (HATCH 470).
var GradientNames = []string{"LINEAR", "CYLINDER", "INVCYLINDER", "SPHERICAL", "INVSPHERICAL", "HEMISPHERICAL", "INVHEMISPHERICAL", "CURVED", "INVCURVED"}

// CanonicalGradient spells a gradient's name as DXF does (ignoring case).
func CanonicalGradient(s string) (string, bool) {
	u := strings.ToUpper(strings.TrimSpace(s))
	for _, n := range GradientNames {
		if n == u {
			return n, true
		}
	}
	return "", false
}

// Gradient is a hatch's gradient fill (DXF HATCH 450–470): from Color1
// to Color2 (ACI numbers, or the true colours a file gave), or with
// OneColor from Color1 to it shaded towards black (Tint 0) or tinted
// towards white (Tint 1); laid out as Name says, turned by Angle
// degrees, centred or shifted up and left by Shift (DXF's 461: 0 is
// centred).
type Gradient struct {
	Name           string
	Color1, Color2 int32
	True1, True2   TrueColor
	OneColor       bool
	Tint           float64
	Angle          float64 // degrees
	Shift          float64
}

// NotCentered is the shift of a gradient that is not centred, as
// AutoCAD writes it.
const NotCentered = 0.25

// colors are the gradient's two colours.
func (g Gradient) colors() (a, b [3]uint8) {
	a = rgbOf(g.Color1, g.True1)
	if !g.OneColor {
		return a, rgbOf(g.Color2, g.True2)
	}
	t := max(0, min(1, g.Tint))
	mix := func(c uint8) uint8 {
		if t < 0.5 {
			return uint8(math.Round(float64(c) * t * 2)) // shaded towards black
		}
		return uint8(math.Round(float64(c) + (255-float64(c))*(t-0.5)*2)) // tinted towards white
	}
	return a, [3]uint8{mix(a[0]), mix(a[1]), mix(a[2])}
}

// hatchGradient tags a hatch's gradient at the end of its encoding (after
// its pattern lines), so that one without encodes as it always did.
const hatchGradient = 'G'

// encodeTo writes name (string), colours (4 bytes each), true colours
// (uvarints), one colour (1 byte), tint, angle, shift.
func (g Gradient) encodeTo(w *encoder) {
	w.string(g.Name)
	w.int32(g.Color1)
	w.int32(g.Color2)
	w.uvarint(uint64(g.True1))
	w.uvarint(uint64(g.True2))
	w.bool(g.OneColor)
	w.float(g.Tint)
	w.float(g.Angle)
	w.float(g.Shift)
}

func decodeGradient(r *decoder) Gradient {
	g := Gradient{Name: r.string(), Color1: r.int32(), Color2: r.int32(), True1: TrueColor(r.uvarint()), True2: TrueColor(r.uvarint())}
	g.OneColor = r.byte() == 1
	g.Tint, g.Angle, g.Shift = r.float(), r.float(), r.float()
	if _, ok := CanonicalGradient(g.Name); !ok {
		r.fail("hatch gradient")
	}
	return g
}

// Shade is how a picture's fills are painted when they are a gradient:
// linearly from From (offset 0) to To (offset 1), or, when Radial, in
// circles about From out to To; between the Stops' colours.
type Shade struct {
	Radial   bool
	From, To geom.Vec
	Stops    []ShadeStop
}

// ShadeStop is a colour at an offset (0–1) of a Shade.
type ShadeStop struct {
	Offset float64
	Color  [3]uint8
}

// Mean is the shade's mean colour: its stops' colours averaged over the
// offsets between them.
func (s Shade) Mean() [3]uint8 {
	var sum [3]float64
	total := 0.0
	for i := 0; i+1 < len(s.Stops); i++ {
		a, b := s.Stops[i], s.Stops[i+1]
		d := b.Offset - a.Offset
		for k := range sum {
			sum[k] += d * (float64(a.Color[k]) + float64(b.Color[k])) / 2
		}
		total += d
	}
	if total <= 0 {
		if len(s.Stops) == 0 {
			return [3]uint8{}
		}
		return s.Stops[0].Color
	}
	return [3]uint8{uint8(math.Round(sum[0] / total)), uint8(math.Round(sum[1] / total)), uint8(math.Round(sum[2] / total))}
}

// shade lays the gradient out over a box: a linear one across the box
// along Angle (CURVED across it, at right angles), a cylinder's with its
// second colour along the middle, a sphere's about the centre and a
// hemisphere's about the middle of the bottom edge (both out to half the
// diagonal); INV swaps the colours. A shifted gradient's centre moves up
// and left by Shift × half the diagonal. These are the engine's
// approximation of AutoCAD's pictures.
func (g Gradient) shade(b geom.Box) Shade {
	c1, c2 := g.colors()
	name := g.Name
	if inv, ok := strings.CutPrefix(name, "INV"); ok {
		name, c1, c2 = inv, c2, c1
	}
	c := b.Min.Add(b.Max).Mul(0.5)
	half := b.Max.Sub(b.Min).Len() / 2
	turn := g.Angle
	if name == "CURVED" {
		turn += 90
	}
	s, co := geom.SinCosDeg(turn)
	u := geom.Pt(co, s)
	if g.Shift != 0 {
		c = c.Add(geom.Pt(-co-s, co-s).Mul(g.Shift * half / math.Sqrt2))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, q := range []geom.Vec{b.Min, b.Max, geom.Pt(b.Min.X, b.Max.Y), geom.Pt(b.Max.X, b.Min.Y)} {
		t := q.Sub(c).Dot(u)
		lo, hi = math.Min(lo, t), math.Max(hi, t)
	}
	two := []ShadeStop{{0, c1}, {1, c2}}
	switch name {
	case "CYLINDER":
		return Shade{From: c.Add(u.Mul(lo)), To: c.Add(u.Mul(hi)), Stops: []ShadeStop{{0, c1}, {0.5, c2}, {1, c1}}}
	case "SPHERICAL":
		return Shade{Radial: true, From: c, To: c.Add(geom.Pt(half, 0)), Stops: []ShadeStop{{0, c2}, {1, c1}}}
	case "HEMISPHERICAL":
		down, far := u.Perp().Mul(-1), 0.0
		for _, q := range []geom.Vec{b.Min, b.Max, geom.Pt(b.Min.X, b.Max.Y), geom.Pt(b.Max.X, b.Min.Y)} {
			far = math.Max(far, q.Sub(c).Dot(down))
		}
		o := c.Add(down.Mul(far))
		return Shade{Radial: true, From: o, To: o.Add(geom.Pt(2*half, 0)), Stops: []ShadeStop{{0, c2}, {1, c1}}}
	}
	return Shade{From: c.Add(u.Mul(lo)), To: c.Add(u.Mul(hi)), Stops: two}
}

// wire is the gradient in an entity's wire form.
func (g Gradient) wire() *enginev1.HatchGradient {
	out := &enginev1.HatchGradient{Name: g.Name, Color1: g.Color1, Angle: g.Angle, Centered: g.Shift == 0}
	if g.OneColor {
		out.Tint = new(g.Tint)
	} else {
		out.Color2 = new(g.Color2)
	}
	hex := func(c TrueColor) *string {
		if !c.Set() {
			return nil
		}
		return new(fmt.Sprintf("#%06x", c.RGB()))
	}
	out.TrueColor1 = hex(g.True1)
	if !g.OneColor {
		out.TrueColor2 = hex(g.True2)
	}
	return out
}
