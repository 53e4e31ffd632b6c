package drawing

import (
	"reflect"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// multileader is a leader with two lines and a text, as a MULTILEADER
// reads.
func multileader() Leader {
	return Leader{
		V: []geom.Vec{geom.Pt(0, 0), geom.Pt(10, 10), geom.Pt(14, 10)}, Arrow: true, Size: 2.5, Style: "Standard", Multi: true,
		More: [][]geom.Vec{{geom.Pt(20, 0), geom.Pt(10, 10)}},
		Text: &MText{Text: "NOTE", P: geom.Pt(15, 11.25), Height: 2.5, Attach: 7, Spacing: 1},
	}
}

// TestNativeEncodings: a tolerance, a viewport and a multileader come
// back from their encoding as they were; a plain leader encodes as it
// always did (the fingerprint it had before multileaders).
func TestNativeEncodings(t *testing.T) {
	tol, err := NewTolerance(geom.Pt(1, 2), 2.5, 30, "ISO-25", []string{`{\Fgdt;j}`, `{\Fgdt;n}0.1{\Fgdt;m}`, "A"})
	if err != nil {
		t.Fatal(err)
	}
	vp := NewViewport(10, 10, 100, 50, geom.Pt(300, 200), 0.5, 3)
	vp.Frozen, vp.Locked, vp.Flags = []string{"Hidden", "Notes"}, true, 32800
	for _, g := range []Geometry{tol, vp, multileader()} {
		e := (&Entity{Handle: 0x200, Layer: "0", Linetype: "ByLayer", Color: 256, Layout: "Layout1", Geom: g}).Seal()
		back, err := DecodeEntity(0x200, e.Encode())
		if err != nil {
			t.Fatalf("DecodeEntity(%T) = %v", g, err)
		}
		if !reflect.DeepEqual(back.Geom, g) || back.Fingerprint() != e.Fingerprint() {
			t.Errorf("DecodeEntity(Encode()) = %+v, want %+v", back.Geom, g)
		}
	}
	plain := (&Entity{Layer: "0", Linetype: "ByLayer", Color: 256, Geom: Leader{V: []geom.Vec{geom.Pt(0, 0), geom.Pt(10, 10)}, Arrow: true, Size: 2.5, Style: "Standard"}}).Seal()
	if got := plain.Fingerprint(); got != plainLeaderFingerprint {
		t.Errorf("a plain leader's fingerprint = %s, want %s as before", got, plainLeaderFingerprint)
	}
}

// plainLeaderFingerprint is the fingerprint of the plain leader of
// TestNativeEncodings before leaders carried multileaders' lines and
// text (main at 1a963b0).
const plainLeaderFingerprint = "d9db56f07f67611c7f361319d670ba301efec06e84a38893c8b17e532a41e431"

// TestToleranceText: a compartment's GD&T symbols are drawn as the
// Unicode characters they stand for, formatting left out; empty
// compartments are not drawn.
func TestToleranceText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{\Fgdt;j}`, "⌖"},
		{`{\Fgdt;n}0.1{\Fgdt;m}`, "⌀0.1Ⓜ"},
		{`%%c0.05`, "⌀0.05"},
		{`{\fGDT|b0|i0;c}`, "⏥"},
		{`A{\Fgdt;l}`, "AⓁ"},
	} {
		if got := toleranceText(c.in); got != c.want {
			t.Errorf("toleranceText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	g := Tolerance{Text: `{\Fgdt;j}%%v{\Fgdt;n}0.1%%v%%vA^J{\Fgdt;c}%%v0.05%%v%%v`, Height: 1}
	if got, want := g.rows(), [][]string{{"⌖", "⌀0.1", "A"}, {"⏥", "0.05"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("rows() = %q, want %q", got, want)
	}
	// The first row is centred on P, two text heights tall; the symbol's
	// compartment is square.
	b := g.Bounds()
	if !b.Min.Same(geom.Pt(0, -3)) || !(b.Max.Y == 1) {
		t.Errorf("Bounds() = %v, want from (0, -3) (two rows of 2) up to y 1", b)
	}
	// Five compartments framed (20 edges); the symbols drawn as strokes
	// (⌖ a circle and a cross, ⌀ a circle and a stroke, ⏥ a
	// parallelogram), the rest as text.
	p := g.Picture()
	var texts []string
	for _, x := range p.Texts {
		texts = append(texts, x.Text)
	}
	if !reflect.DeepEqual(texts, []string{"0.1", "A", "0.05"}) || len(p.Strokes) != 20+3+2+4 {
		t.Errorf("Picture() has texts %q and %d strokes, want 0.1, A, 0.05 and 29", texts, len(p.Strokes))
	}
	// The position symbol's circle is centred in its square compartment.
	if c, ok := p.Strokes[20].(geom.Arc); !ok || !c.C.Same(geom.Pt(1, 0)) || c.R != 0.3 {
		t.Errorf("the position symbol's first stroke = %+v, want a circle of 0.3 about (1, 0)", p.Strokes[20])
	}
	if _, err := NewTolerance(geom.Vec{}, 1, 0, "Standard", []string{"", ""}); err == nil {
		t.Error("NewTolerance of empty compartments succeeded")
	}
}

// TestNativeTransforms: a tolerance turns and scales about a base like
// text; a viewport's frame moves and scales on its paper at the same
// view scale, a quarter turn swapping its sides; a multileader's lines
// and text move together.
func TestNativeTransforms(t *testing.T) {
	tol := Tolerance{Text: "x", P: geom.Pt(1, 0), Height: 2, Rotation: 10}
	if got := tol.Transformed(geom.RotateAbout(geom.Vec{}, 90)).(Tolerance); !got.P.Same(geom.Pt(0, 1)) || got.Rotation != 100 || got.Height != 2 {
		t.Errorf("tolerance turned 90° = %+v", got)
	}
	if got := tol.Transformed(geom.ScaleAbout(geom.Vec{}, 3)).(Tolerance); !got.P.Same(geom.Pt(3, 0)) || got.Height != 6 {
		t.Errorf("tolerance scaled 3 = %+v", got)
	}
	if got := tol.Transformed(geom.MirrorAbout(geom.Vec{}, geom.Pt(0, 1))).(Tolerance); !got.P.Same(geom.Pt(-1, 0)) || got.Rotation != 10 {
		t.Errorf("tolerance mirrored = %+v, want it readable", got)
	}

	vp := NewViewport(0, 0, 40, 20, geom.Pt(5, 5), 0.5, 2)
	got := vp.Transformed(geom.ScaleAbout(geom.Vec{}, 2)).(Viewport)
	if !got.C.Same(geom.Pt(40, 20)) || got.W != 80 || got.H != 40 || got.Scale() != 0.5 || got.View != vp.View {
		t.Errorf("viewport scaled 2 = %+v, want 80 × 40 at (40, 20), still 1:2 about %v", got, vp.View)
	}
	got = vp.Transformed(geom.RotateAbout(geom.Vec{}, 90)).(Viewport)
	if !got.C.Same(geom.Pt(-10, 20)) || got.W != 20 || got.H != 40 || !geom.Eq(got.Scale(), 0.5) {
		t.Errorf("viewport turned 90° = %+v, want 20 × 40 at (-10, 20), still 1:2", got)
	}
	if vp.Bounds() != boxOf([]geom.Vec{geom.Pt(0, 0), geom.Pt(40, 20)}) || len(vp.Picture().Strokes) != 4 {
		t.Errorf("viewport bounds %v and picture %v, want its frame", vp.Bounds(), vp.Picture())
	}
	for _, off := range []Viewport{{W: 1, H: 1, ID: 1, Status: 1}, {W: 1, H: 1, ID: 2, Status: 0}} {
		if !off.Picture().Empty() {
			t.Errorf("viewport %+v is drawn; the layout's own and one that is off are not", off)
		}
	}
	es := []*Entity{{Layout: "A", Geom: Viewport{ID: 1}}, {Layout: "A", Geom: Viewport{ID: 4}}, {Layout: "B", Geom: Viewport{ID: 9}}}
	if got := NextViewportID(es, "A"); got != 5 {
		t.Errorf("NextViewportID(A) = %d, want 5", got)
	}
	if got := NextViewportID(es, "C"); got != 2 {
		t.Errorf("NextViewportID(C) = %d, want 2", got)
	}

	ml := multileader()
	moved := ml.Transformed(geom.Translate(geom.Pt(5, -5))).(Leader)
	if !moved.More[0][0].Same(geom.Pt(25, -5)) || !moved.Text.P.Same(geom.Pt(20, 6.25)) || !moved.V[0].Same(geom.Pt(5, -5)) {
		t.Errorf("multileader moved = %+v (text %+v)", moved, moved.Text)
	}
	if ml.Text.P != geom.Pt(15, 11.25) || ml.More[0][0] != geom.Pt(20, 0) {
		t.Error("moving a multileader changed the original")
	}
	// Bounded by its lines, arrowheads and its text's box.
	b := ml.Bounds()
	if tb := ml.Text.Bounds(); !(b.Max.X >= tb.Max.X && b.Max.Y >= tb.Max.Y) || !(b.Min.X <= 0 && b.Min.Y <= 0 && b.Max.X >= 20) {
		t.Errorf("multileader bounds %v, want its lines' and its text's %v", b, tb)
	}
	if p := ml.Picture(); len(p.Fills) != 2 || len(p.Texts) != 1 {
		t.Errorf("multileader picture: %d arrowheads, %d texts; want 2 and 1", len(p.Fills), len(p.Texts))
	}
}
