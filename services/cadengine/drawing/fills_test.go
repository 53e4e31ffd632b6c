package drawing

import (
	"crypto/sha256"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// An MTEXT without a background and a hatch without a gradient encode as
// they did before either existed: the hashes are those of the encoder of
// commit e8c6878 (the last before fills), for the same entities.
func TestFillsLeavePlainEncodingsAlone(t *testing.T) {
	square := []geom.Vertex{{P: geom.Pt(0, 0)}, {P: geom.Pt(10, 0)}, {P: geom.Pt(10, 5), Bulge: 0.5}, {P: geom.Pt(0, 5)}}
	for _, c := range []struct {
		g    Geometry
		want string
	}{
		{MText{Text: "note\nline two", P: geom.Pt(3, 4), Height: 2.5, Width: 30, Rotation: 15, Attach: 5, Spacing: 1},
			"844745700cada1e7298960da937bea366b412b4fc12348a5aeafcb0a7b2b1b8f"},
		{MText{Text: "m", Height: 1, Attach: 1, Spacing: 1, Style: TextStyle{Name: "Narrow", Font: "romans.shx", Width: 0.7}},
			"d44de4f807c8e32c976ebf9c7345730f347ecdd6ab7078f934c07ad708571892"},
		{Hatch{Pattern: "SOLID", Scale: 1, Loops: []Loop{{Poly: geom.Polyline{Closed: true, V: square}}}},
			"67648761cec9e058a9cc5920b25ae5a47f3111ffdcf7a35b48825c0d2a43e674"},
		{Hatch{Pattern: "ANSI31", Scale: 2, Angle: 30, Loops: []Loop{{Ellipse: true, E: geom.EllipseArc{C: geom.Pt(1, 1), Major: geom.Pt(4, 0), Ratio: 0.5, Sweep: 2 * math.Pi}}}},
			"5f8fda2443ac8ace867aaa2cd2b55ab2bda3ef3c89eeb3f363164f3790cf40fc"},
	} {
		e := &Entity{Layer: "0", Linetype: "ByLayer", Color: 256, Geom: c.g}
		if got := fmt.Sprintf("%x", sha256.Sum256(e.Encode())); got != c.want {
			t.Errorf("sha256(Encode(%T)) = %s, want %s (as before fills)", c.g, got, c.want)
		}
	}
}

// A background and a gradient encode after what was there, and decode
// back; cut short they fail.
func TestFillsEncodingRoundTrip(t *testing.T) {
	loop := Loop{Poly: geom.Polyline{Closed: true, V: []geom.Vertex{{P: geom.Pt(0, 0)}, {P: geom.Pt(10, 0)}, {P: geom.Pt(10, 5)}, {P: geom.Pt(0, 5)}}}}
	for _, g := range []Geometry{
		MText{Text: "m", Height: 1, Attach: 1, Spacing: 1, Background: Background{Fill: BackgroundColor, Color: 2, Scale: 1.25}},
		MText{Text: "m", Height: 1, Attach: 1, Spacing: 1, Style: TextStyle{Name: "N", Width: 0.8},
			Background: Background{Fill: BackgroundWindow | BackgroundFrame, True: RGBTrue(1, 2, 3), Transparency: 7}},
		Hatch{Pattern: "SOLID", Scale: 1, Loops: []Loop{loop}, Gradient: &Gradient{Name: "SPHERICAL", Color1: 5, Color2: 2, Angle: 30, Shift: NotCentered}},
		Hatch{Pattern: "SOLID", Scale: 1, Loops: []Loop{loop}, Gradient: &Gradient{Name: "LINEAR", Color1: 5, True1: RGBTrue(9, 8, 7), OneColor: true, Tint: 0.25}},
	} {
		e := &Entity{Layer: "0", Linetype: "ByLayer", Color: 256, Geom: g}
		enc := e.Encode()
		back, err := DecodeEntity(0x100, enc)
		if err != nil {
			t.Fatalf("DecodeEntity(%+v): %v", g, err)
		}
		if !reflect.DeepEqual(back.Geom, g) {
			t.Errorf("DecodeEntity = %+v, want %+v", back.Geom, g)
		}
		if _, err := DecodeEntity(0x100, enc[:len(enc)-3]); err == nil {
			t.Errorf("DecodeEntity of %T cut short succeeded", g)
		}
	}
}

// The background box is the text's box as drawn, grown by (scale − 1) ×
// height on each side, and comes before the text; it is not in the
// bounds.
func TestMTextBackdrop(t *testing.T) {
	g := MText{Text: "abc", P: geom.Pt(10, 20), Height: 2, Attach: 7, Spacing: 1}
	plain := g.Picture()
	g.Background = Background{Fill: BackgroundColor, Color: 1, Scale: 2}
	p := g.Picture()
	if len(p.Backdrops) != 1 || len(plain.Backdrops) != 0 {
		t.Fatalf("backdrops = %d (plain %d), want 1 (0)", len(p.Backdrops), len(plain.Backdrops))
	}
	d := p.Backdrops[0]
	if d.Page || d.Color != [3]uint8{0xff, 0, 0} {
		t.Errorf("backdrop colour = %v page %v, want red", d.Color, d.Page)
	}
	// Bottom-left attachment: the box runs from P right and up, as wide
	// as the drawn line (to the right of its ink), (1 + descender) ×
	// height tall.
	w := dejaVuInk(t, "abc") / capHeightOf(TypefaceRegular) * 2
	h := (1 + textDescender) * 2
	want := []geom.Vec{geom.Pt(8, 18), geom.Pt(12+w, 18), geom.Pt(12+w, 22+h), geom.Pt(8, 22+h)}
	for i, q := range d.Outline {
		if !q.Same(want[i]) {
			t.Errorf("backdrop corner %d = %v, want %v", i, q, want[i])
		}
	}
	if g.Bounds() != (MText{Text: "abc", P: geom.Pt(10, 20), Height: 2, Attach: 7, Spacing: 1}).Bounds() {
		t.Errorf("a background changed the bounds")
	}
	g.Background = Background{Fill: BackgroundWindow}
	if d := g.Picture().Backdrops[0]; !d.Page {
		t.Errorf("window colour backdrop = %+v, want the page's", d)
	}
	if len(p.Strokes) != 0 {
		t.Errorf("an unframed mask strokes %d segments", len(p.Strokes))
	}
	// A frame alone: the box's outline, no mask.
	g.Background = Background{Fill: BackgroundFrame, Scale: 2}
	fp := g.Picture()
	if len(fp.Backdrops) != 0 || len(fp.Strokes) != 4 {
		t.Fatalf("framed picture = %d backdrops, %d strokes, want 0 and 4", len(fp.Backdrops), len(fp.Strokes))
	}
	for i, s := range fp.Strokes {
		if seg := s.(geom.Segment); !seg.A.Same(want[i]) || !seg.B.Same(want[(i+1)%4]) {
			t.Errorf("frame side %d = %v, want %v to %v", i, seg, want[i], want[(i+1)%4])
		}
	}
}

// A gradient hatch paints its fills with a shade laid over its bounds.
func TestHatchGradientShade(t *testing.T) {
	loop := Loop{Poly: geom.Polyline{Closed: true, V: []geom.Vertex{{P: geom.Pt(0, 0)}, {P: geom.Pt(10, 0)}, {P: geom.Pt(10, 4)}, {P: geom.Pt(0, 4)}}}}
	h := Hatch{Pattern: "SOLID", Scale: 1, Loops: []Loop{loop}, Gradient: &Gradient{Name: "LINEAR", Color1: 1, Color2: 5}}
	p := h.Picture()
	if p.Shade == nil || len(p.Fills) != 1 {
		t.Fatalf("picture = %+v, want one fill with a shade", p)
	}
	s := *p.Shade
	if s.Radial || !s.From.Same(geom.Pt(0, 2)) || !s.To.Same(geom.Pt(10, 2)) {
		t.Errorf("linear shade = %+v, want from (0, 2) to (10, 2)", s)
	}
	if len(s.Stops) != 2 || s.Stops[0].Color != [3]uint8{0xff, 0, 0} || s.Stops[1].Color != [3]uint8{0, 0, 0xff} {
		t.Errorf("stops = %+v, want red to blue", s.Stops)
	}
	if m := s.Mean(); m != [3]uint8{0x80, 0, 0x80} {
		t.Errorf("Mean = %v, want #800080", m)
	}
	// Turned 90°: bottom to top.
	h.Gradient.Angle = 90
	if s := *h.Picture().Shade; !s.From.Same(geom.Pt(5, 0)) || !s.To.Same(geom.Pt(5, 4)) {
		t.Errorf("shade at 90° = %v → %v, want (5, 0) → (5, 4)", s.From, s.To)
	}
	// INVSPHERICAL: radial about the centre, the first colour inside.
	h.Gradient.Name, h.Gradient.Angle = "INVSPHERICAL", 0
	s = *h.Picture().Shade
	if !s.Radial || !s.From.Same(geom.Pt(5, 2)) || math.Abs(s.To.Sub(s.From).Len()-math.Hypot(5, 2)) > 1e-9 || s.Stops[0].Color != [3]uint8{0xff, 0, 0} {
		t.Errorf("INVSPHERICAL shade = %+v, want about (5, 2), red inside", s)
	}
	// One colour, tinted to white.
	g := Gradient{Name: "LINEAR", Color1: 1, OneColor: true, Tint: 1}
	if a, b := g.colors(); a != [3]uint8{0xff, 0, 0} || b != [3]uint8{0xff, 0xff, 0xff} {
		t.Errorf("one-colour colours = %v, %v, want red and white", a, b)
	}
	// Moved and turned, the gradient turns with the hatch.
	h.Gradient.Name, h.Gradient.Angle = "LINEAR", 10
	moved := h.Transformed(geom.RotateAbout(geom.Vec{}, 90)).(Hatch)
	if math.Abs(moved.Gradient.Angle-100) > 1e-9 || h.Gradient.Angle != 10 {
		t.Errorf("turned gradient angle = %v (original %v), want 100 (10)", moved.Gradient.Angle, h.Gradient.Angle)
	}
}
