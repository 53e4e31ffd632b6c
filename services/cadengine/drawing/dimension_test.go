package drawing

import (
	"encoding/hex"
	"math"
	"reflect"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// TestLinearDimensionArrowsFit: a linear dimension too short for its two
// arrowheads and the text's gap (ISO-25: 2.5 + 2.5 + 0.625) has them
// outside its extension lines, pointing in, each with a tail of the
// dimension line (the second carried on under its text, "2", which does
// not fit either: see TestLinearDimensionTextMovedOut); a long one has
// them inside, pointing out (one just long enough with a text, "x", that
// fits too).
func TestLinearDimensionArrowsFit(t *testing.T) {
	seg := func(ax, ay, bx, by float64) geom.Segment { return geom.Segment{A: geom.Pt(ax, ay), B: geom.Pt(bx, by)} }
	for _, c := range []struct {
		name string
		long float64
		text string // the text, "" for the measurement
		// whether each arrowhead's base is left of its tip
		baseLeftOfFirst, baseLeftOfSecond bool
		tails                             []geom.Segment
	}{
		{"too short", 2, "", true, false, []geom.Segment{seg(-2.5, 5, -5, 5), seg(2, 5, 7.625, 5)}},
		{"just long enough", 5.625, "x", false, true, nil},
		{"long", 40, "", false, true, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := Dimension{Type: enginev1.DimensionKind_DIMENSION_KIND_ROTATED, P1: geom.Pt(0, 0), P2: geom.Pt(c.long, 0), Offset: 5, Style: "ISO-25", Scale: 1, Text: c.text}
			p := g.Picture()
			if len(p.Fills) != 2 {
				t.Fatalf("Picture() has %d fills, want 2 arrowheads", len(p.Fills))
			}
			for i, want := range []bool{c.baseLeftOfFirst, c.baseLeftOfSecond} {
				a := p.Fills[i]
				if left := a[1].X < a[0].X && a[2].X < a[0].X; left != want {
					t.Errorf("arrowhead %d = %v: base left of its tip %v, want %v", i, a, left, want)
				}
			}
			for _, tail := range c.tails {
				found := false
				for _, s := range p.Strokes {
					if s, ok := s.(geom.Segment); ok && s.A.Same(tail.A) && s.B.Same(tail.B) {
						found = true
					}
				}
				if !found {
					t.Errorf("Picture() strokes %v lack the tail %v", p.Strokes, tail)
				}
			}
			if want := 3 + len(c.tails); len(p.Strokes) != want {
				t.Errorf("Picture() has %d strokes, want %d (two extension lines, the dimension line, the tails)", len(p.Strokes), want)
			}
		})
	}
}

// TestDimensionBoundsHoldMeasuredPoints: an angular dimension whose arc
// (radius 10) lies well inside its rays' points, (50, 0) and (0, 40),
// is bounded by those points too, as a CAD program's extents hold the
// definition points of a dimension's block (on layer Defpoints) — drawn
// from its style or from what its writer drew.
func TestDimensionBoundsHoldMeasuredPoints(t *testing.T) {
	g := Dimension{Type: enginev1.DimensionKind_DIMENSION_KIND_ANGULAR, Center: geom.Pt(0, 0), P1: geom.Pt(50, 0), P2: geom.Pt(0, 40), Offset: 10, Style: "ISO-25", Scale: 1}
	drawn := g
	drawn.Drawn = &Picture{Strokes: []any{geom.Arc{C: geom.Pt(0, 0), R: 10, Start: 0, Sweep: math.Pi / 2}}}
	for _, c := range []struct {
		name string
		g    Dimension
	}{{"from its style", g}, {"as drawn", drawn}} {
		b := c.g.Bounds()
		if b.Max.X < 50 || b.Max.Y < 40 || b.Min.X > 0 || b.Min.Y > 0 {
			t.Errorf("%s: Bounds() = %v, want it to hold (0, 0), (50, 0) and (0, 40)", c.name, b)
		}
		if b.Max.X > 51 || b.Max.Y > 41 {
			t.Errorf("%s: Bounds() = %v, want nothing beyond the points and the arc", c.name, b)
		}
	}
}

// TestRadialDimensionTextOutside: a radius or diameter dimension drawn
// from its style sets its text outside the circle beyond the point at
// its angle (AutoCAD's default, DIMTIX off), on the dimension line
// carried on under the text from an arrowhead that points in at the
// circle there.
func TestRadialDimensionTextOutside(t *testing.T) {
	for _, kind := range []enginev1.DimensionKind{enginev1.DimensionKind_DIMENSION_KIND_RADIAL, enginev1.DimensionKind_DIMENSION_KIND_DIAMETRIC} {
		t.Run(kind.String(), func(t *testing.T) {
			g := Dimension{Type: kind, Center: geom.Pt(0, 0), Radius: 10, Angle: 0, Text: "AB", Style: "ISO-25", Scale: 1}
			p := g.Picture()
			if len(p.Texts) != 1 {
				t.Fatalf("Picture() has %d texts, want 1", len(p.Texts))
			}
			tb := p.Texts[0].Bounds()
			if tb.Min.X <= 10 || p.Texts[0].P.Y <= 0 {
				t.Errorf("text at %v, bounds %v: want it outside the circle (x > 10), its baseline above the line (y > 0)", p.Texts[0].P, tb)
			}
			inAt := false
			for _, f := range p.Fills {
				tip, body := f[0], f[1:]
				if tip.Same(geom.Pt(10, 0)) && body[0].X > 10 && body[1].X > 10 {
					inAt = true
				}
			}
			if !inAt {
				t.Errorf("Picture() fills %v lack an arrowhead with its tip at (10, 0) pointing in", p.Fills)
			}
			under := false
			for _, s := range p.Strokes {
				if s, ok := s.(geom.Segment); ok && s.A.Y == 0 && s.B.Y == 0 && math.Max(s.A.X, s.B.X) >= tb.Max.X-1e-9 && math.Min(s.A.X, s.B.X) <= 10+2.5+1e-9 {
					under = true
				}
			}
			if !under {
				t.Errorf("Picture() strokes %v lack the line from the arrowhead on under the text (to x = %g)", p.Strokes, tb.Max.X)
			}
		})
	}
}

// A dimension without a style of its own encodes as it always did (its
// stored form and fingerprint unchanged); one with its own style adds
// it, and decodes back with it; cut short, it does not decode.
func TestDimensionOwnStyleEncoding(t *testing.T) {
	g := Dimension{Type: enginev1.DimensionKind_DIMENSION_KIND_ROTATED, P1: geom.Pt(0, 0), P2: geom.Pt(10, 0), Offset: 5, Style: "ISO-25", Scale: 1, Text: "<> x", Binds: []Bind{{Slot: enginev1.DimensionSlot_DIMENSION_SLOT_P1, Handle: 0x2A, Snap: enginev1.SnapKind_SNAP_KIND_END}}}
	e := &Entity{Layer: "0", Linetype: "ByLayer", Color: 256, Geom: g}
	const before = "45010901300742794c6179657200000100020000000000000000000000000000000040240000000000000000000000000000000000000000000000000000000000000000000000000000401400000000000000000000000000003ff0000000000000043c3e20780649534f2d323501012a010000"
	if got := hex.EncodeToString(e.Encode()); got != before {
		t.Errorf("Encode(dimension without its own style) = %s, want it as before: %s", got, before)
	}
	g.Style = "Drafting"
	g.Own = DimStyle{Name: "Drafting", TextHeight: 3.5, ArrowSize: 4, ExtOffset: 1, ExtBeyond: 1.25, TextGap: 1.5, Decimals: 3,
		Text: TextStyle{Name: "DimText", Font: "Arial.ttf", Width: 0.8}, Centred: true, Zeros: ZerosLeading, Post: "<> mm", Round: 0.5}
	g.Drawn = &Picture{Strokes: []any{geom.Segment{B: geom.Pt(1, 0)}}}
	e.Geom = g
	enc := e.Encode()
	back, err := DecodeEntity(0x100, enc)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Geom, g) {
		t.Errorf("DecodeEntity = %+v, want %+v", back.Geom, g)
	}
	if _, err := DecodeEntity(0x100, enc[:len(enc)-60]); err == nil {
		t.Error("DecodeEntity of a dimension cut short in its style succeeded")
	}
}

// A dimension with a style of its own is drawn in it: its text in its
// text style's face at its height times the scale, its arrowheads and
// extension lines its sizes, its measurement written as it says; DIMTAD
// 0 centres the text on the line, broken for it. Scaled, the sizes stay
// (they are paper sizes).
func TestDimensionDrawnInItsOwnStyle(t *testing.T) {
	own := DimStyle{Name: "Drafting", TextHeight: 3.5, ArrowSize: 4, ExtOffset: 1, ExtBeyond: 2, TextGap: 1, Decimals: 3, Text: TextStyle{Name: "DimText", Font: "Arial.ttf"}, Zeros: ZerosLeading, Post: "<>mm"}
	g := Dimension{Type: enginev1.DimensionKind_DIMENSION_KIND_ROTATED, P1: geom.Pt(0, 0), P2: geom.Pt(0.5, 0), Offset: 10, Style: "Drafting", Scale: 2, Own: own}
	if got := g.DisplayText(); got != ".500mm" {
		t.Errorf("DisplayText() = %q, want .500mm", got)
	}
	g.P2 = geom.Pt(100, 0)
	p := g.Picture()
	if len(p.Texts) != 1 {
		t.Fatalf("texts %+v, want one", p.Texts)
	}
	text := p.Texts[0]
	if text.Height != 7 || text.Style != own.Text || text.Setting().Typeface != TypefaceTrueType {
		t.Errorf("text %+v, want 7 high in DimText (Liberation Sans)", text)
	}
	if mid := text.Setting().Anchor; !mid.Same(geom.Pt(50, 12)) || text.Align.H != AlignCenter {
		t.Errorf("text anchored at %v (%+v), want centred at (50, 12): the gap 2 above the line", mid, text.Align)
	}
	for _, f := range p.Fills {
		if l := f[0].Dist(f[1].Mid(f[2])); math.Abs(l-8) > 1e-9 {
			t.Errorf("arrowhead %v is %g long, want 8", f, l)
		}
	}
	ext := p.Strokes[0].(geom.Segment)
	if !ext.A.Same(geom.Pt(0, 2)) || !ext.B.Same(geom.Pt(0, 14)) {
		t.Errorf("first extension line %v, want from (0, 2) to (0, 14)", ext)
	}
	scaled := g.Transformed(geom.ScaleAbout(geom.Vec{}, 3)).(Dimension)
	if scaled.Own != own || scaled.Picture().Texts[0].Height != 7 {
		t.Errorf("scaled: Own %+v, text %+v; want the style and its 7 high text kept", scaled.Own, scaled.Picture().Texts[0])
	}
	g.Own.Centred = true
	p = g.Picture()
	if a := p.Texts[0].Setting().Anchor; math.Abs(a.Y-(10-3.5)) > 1e-9 {
		t.Errorf("centred text's baseline at y = %g, want 6.5 (half its height below the line)", a.Y)
	}
	pieces := 0
	for _, s := range p.Strokes {
		if s, ok := s.(geom.Segment); ok && s.A.Y == 10 && s.B.Y == 10 {
			if s.A.X < 50 && s.B.X > 50 {
				t.Errorf("the dimension line %v runs through the centred text", s)
			}
			pieces++
		}
	}
	if pieces != 2 {
		t.Errorf("strokes %v, want the dimension line in two pieces", p.Strokes)
	}
}

// TestLinearDimensionTextMovedOut: text longer than its dimension line
// (by ezdxf's estimate: "platewidth", 10 × 2.5, over 2) is moved out
// beside the line past the second extension line, as AutoCAD's best fit
// places it: above the line carried on under it, starting an arrowhead
// and a text gap past the extension line; centred across the line
// (DIMTAD 0), past the arrowhead's tail. Text that fits stays centred.
func TestLinearDimensionTextMovedOut(t *testing.T) {
	for _, c := range []struct {
		name         string
		p2           geom.Vec
		centred      bool
		mid, lineEnd geom.Vec // the text's centre on its baseline, the carried line's end
	}{
		{"horizontal", geom.Pt(2, 0), false, geom.Pt(2+2.5+0.625+12.5, 5.625), geom.Pt(2+2.5+0.625+25, 5)},
		{"vertical, second point below", geom.Pt(0, -2), false, geom.Pt(-5.625, -2-2.5-0.625-12.5), geom.Pt(-5, -2-2.5-0.625-25)},
		{"centred across the line", geom.Pt(2, 0), true, geom.Pt(2+5+0.625+12.5, 5-1.25), geom.Pt(2+5, 5)},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := Dimension{Type: enginev1.DimensionKind_DIMENSION_KIND_ALIGNED, P1: geom.Pt(0, 0), P2: c.p2, Offset: 5, Style: "ISO-25", Scale: 1, Text: "platewidth"}
			if c.p2.X == 0 {
				g.Offset = -5 // the line at x = -5
			}
			if c.centred {
				g.Own = BuiltinDimStyle("ISO-25")
				g.Own.Centred = true
			}
			p := g.Picture()
			if len(p.Texts) != 1 {
				t.Fatalf("texts %+v, want one", p.Texts)
			}
			if a := p.Texts[0].Setting().Anchor; !a.Same(c.mid) {
				t.Errorf("text centred at %v, want %v", a, c.mid)
			}
			d2 := c.p2.Add(g.direction().Perp().Mul(g.Offset))
			carried := false
			for _, s := range p.Strokes {
				if s, ok := s.(geom.Segment); ok && s.A.Same(d2) && s.B.Same(c.lineEnd) {
					carried = true
				}
			}
			if !carried {
				t.Errorf("strokes %v lack the dimension line carried on from %v to %v", p.Strokes, d2, c.lineEnd)
			}
		})
	}
	fits := Dimension{Type: enginev1.DimensionKind_DIMENSION_KIND_ALIGNED, P2: geom.Pt(30, 0), Offset: 5, Style: "ISO-25", Scale: 1, Text: "platewidth"}
	if a := fits.Picture().Texts[0].Setting().Anchor; !a.Same(geom.Pt(15, 5.625)) {
		t.Errorf("text that fits centred at %v, want (15, 5.625)", a)
	}
}
