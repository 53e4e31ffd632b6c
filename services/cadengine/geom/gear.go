package geom

import (
	"errors"
	"fmt"
	"math"
)

// SpurGear is a standard external spur gear without profile shift, cut
// by the ISO 53 basic rack: addendum Module, dedendum 1.25 × Module.
// Its first tooth is centred on the +x axis from C, the others follow
// counter-clockwise every 360°/Teeth.
type SpurGear struct {
	C             Vec
	Module        float64
	Teeth         int
	PressureAngle float64 // radians
}

// MinGearTeeth is the fewest teeth SpurGear draws: below it the tooth
// tips come close to a point and the gear barely meshes.
const MinGearTeeth = 6

// GearChordError is the largest distance, in modules, between a drawn
// flank (a chord between two exact involute points) and the involute it
// stands for.
const GearChordError = 1e-4

// PitchRadius is m z / 2.
func (g SpurGear) PitchRadius() float64 { return g.Module * float64(g.Teeth) / 2 }

// TipRadius is the addendum circle's radius, m (z + 2) / 2.
func (g SpurGear) TipRadius() float64 { return g.PitchRadius() + g.Module }

// RootRadius is the dedendum circle's radius, m (z − 2.5) / 2.
func (g SpurGear) RootRadius() float64 { return g.PitchRadius() - 1.25*g.Module }

// BaseRadius is the radius of the circle the flanks are involutes of,
// the pitch radius × cos(pressure angle).
func (g SpurGear) BaseRadius() float64 { return g.PitchRadius() * math.Cos(g.PressureAngle) }

// Undercut reports whether the rack that cuts the gear would undercut
// its flanks: fewer teeth than 2 / sin²(pressure angle) rounded, the
// limit gear tables give (17 at 20°, 32 at 14.5°, 11 at 25°).
// Profile draws the involute down to the base circle and a radial line
// below it either way, not the trochoid a cutter leaves.
func (g SpurGear) Undercut() bool {
	s := math.Sin(g.PressureAngle)
	return float64(g.Teeth) < math.Round(2/(s*s))
}

// involute is inv(a) = tan a − a.
func involute(a float64) float64 { return math.Tan(a) - a }

// halfThickness is the angle, seen from the centre, between a tooth's
// middle and its flank on the circle through the point of the involute
// rolled off by roll angle t: the half thickness at the pitch circle,
// π / 2z, plus inv(α) less the involute's polar angle t − atan t.
func (g SpurGear) halfThickness(t float64) float64 {
	return math.Pi/(2*float64(g.Teeth)) + involute(g.PressureAngle) - (t - math.Atan(t))
}

// Profile is the gear's outline as one closed polyline, counter-
// clockwise: for each tooth a flank of exact involute points up to the
// tip circle, an arc of the tip circle, the other flank down, and an arc
// of the root circle to the next tooth. Where the base circle is above
// the root circle a flank starts at the base circle and a radial line
// joins it to the root circle. Each flank's points are spaced so that
// no chord is further than GearChordError modules from the involute,
// and its point on the pitch circle is one of them.
func (g SpurGear) Profile() (Polyline, error) {
	if err := g.check(); err != nil {
		return Polyline{}, err
	}
	rb, rf := g.BaseRadius(), g.RootRadius()
	rolls := g.flankRolls()
	tip, root := g.halfThickness(rolls[len(rolls)-1]), g.halfThickness(rolls[0])
	pitch := 2 * math.Pi / float64(g.Teeth)
	tipBulge := math.Tan(2 * tip / 4)
	rootBulge := math.Tan((pitch - 2*root) / 4)
	radial := rb > rf

	at := func(r, a float64) Vertex { return Vertex{P: polar(g.C, r, a)} }
	v := make([]Vertex, 0, g.Teeth*(2*len(rolls)+2))
	for k := range g.Teeth {
		mid := pitch * float64(k)
		if radial {
			v = append(v, at(rf, mid-root))
		}
		for _, t := range rolls { // the flank before the tooth's middle, up
			v = append(v, at(rb*math.Sqrt(1+t*t), mid-g.halfThickness(t)))
		}
		v[len(v)-1].Bulge = tipBulge
		for i := len(rolls) - 1; i >= 0; i-- { // the flank after it, down
			t := rolls[i]
			v = append(v, at(rb*math.Sqrt(1+t*t), mid+g.halfThickness(t)))
		}
		if radial {
			v = append(v, at(rf, mid+root))
		}
		v[len(v)-1].Bulge = rootBulge
	}
	return Polyline{V: v, Closed: true}, nil
}

// check refuses gears that cannot be drawn.
func (g SpurGear) check() error {
	switch {
	case !(g.Module > 0) || !IsFinite(g.Module):
		return errors.New("a gear's module must be positive")
	case g.Teeth < MinGearTeeth:
		return fmt.Errorf("a gear needs at least %d teeth", MinGearTeeth)
	case !(g.PressureAngle > 0 && g.PressureAngle < math.Pi/4):
		return errors.New("a gear's pressure angle must be between 0° and 45°")
	}
	rolls := g.flankRolls()
	if g.halfThickness(rolls[len(rolls)-1]) <= 0 {
		return fmt.Errorf("the teeth of %d at %.4g° come to a point below the tip circle: give more teeth or a smaller pressure angle", g.Teeth, Deg(g.PressureAngle))
	}
	if 2*g.halfThickness(rolls[0]) >= 2*math.Pi/float64(g.Teeth) {
		return fmt.Errorf("the teeth of %d at %.4g° leave no gap at the root circle", g.Teeth, Deg(g.PressureAngle))
	}
	return nil
}

// flankRolls are the roll angles of a flank's points, from the base
// circle or the root circle (whichever is larger) to the tip circle.
// The involute's radius of curvature at roll angle t is r_b t, and its
// tangent turns by the change of t, so a chord across roll angles t to
// t + d is off the curve by at most r_b (t + d) d² / 8; each step is the
// d that makes this e, 0.9 GearChordError modules (a margin for
// rounding). The pitch circle's roll angle, tan α, is put in among them.
func (g SpurGear) flankRolls() []float64 {
	rb, ra := g.BaseRadius(), g.TipRadius()
	from := 0.0
	if rf := g.RootRadius(); rf > rb {
		from = math.Sqrt(rf*rf/(rb*rb) - 1)
	}
	to := math.Sqrt(ra*ra/(rb*rb) - 1)
	k := 8 * 0.9 * GearChordError * g.Module / rb // r_b (t + d) d² / 8 = e is (t + d) d² = k
	pitch := math.Tan(g.PressureAngle)
	out := []float64{from}
	for t := from; t < to; {
		// Newton's method on (t + d) d² − k from above, where it is
		// convex and increasing: from the smaller of the roots of t d² = k
		// and d³ = k, both at least d.
		d := math.Cbrt(k)
		if t > 0 {
			d = math.Min(d, math.Sqrt(k/t))
		}
		for range 8 {
			d -= ((t+d)*d*d - k) / (2*t*d + 3*d*d)
		}
		next := t + d
		switch {
		case next >= to:
			next = to
		case to-next < d/2: // two even steps to the tip, not a sliver
			next = (t + to) / 2
		}
		if pitch > t && pitch < next {
			out = append(out, pitch)
		}
		out = append(out, next)
		t = next
	}
	return out
}
