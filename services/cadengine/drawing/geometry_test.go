package drawing

import (
	"math"
	"reflect"
	"slices"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// samePoints reports whether got and want hold the same points, within
// Tolerance, in any order.
func samePoints(got, want []geom.Vec) bool {
	if len(got) != len(want) {
		return false
	}
	left := slices.Clone(got)
	for _, w := range want {
		i := slices.IndexFunc(left, w.Same)
		if i < 0 {
			return false
		}
		left = slices.Delete(left, i, i+1)
	}
	return true
}

func TestSnapCandidates(t *testing.T) {
	line := Line{geom.Pt(0, 0), geom.Pt(4, 0)}
	arc90, _ := NewArc(geom.Pt(0, 0), 2, 0, 90)
	circle := Circle{C: geom.Pt(1, 1), R: 1}
	poly := NewPolyline([]geom.Vertex{{P: geom.Pt(0, 0)}, {P: geom.Pt(2, 0), Bulge: 1}, {P: geom.Pt(2, 2)}}, false)
	ellipse, _ := NewEllipse(geom.Vec{}, geom.Pt(2, 0), 0.5, 0, 360)
	halfEllipse, _ := NewEllipse(geom.Vec{}, geom.Pt(2, 0), 0.5, 0, 180)
	const (
		end    = enginev1.SnapKind_SNAP_KIND_END
		mid    = enginev1.SnapKind_SNAP_KIND_MID
		center = enginev1.SnapKind_SNAP_KIND_CENTER
		quad   = enginev1.SnapKind_SNAP_KIND_QUAD
		perp   = enginev1.SnapKind_SNAP_KIND_PERP
		nearS  = enginev1.SnapKind_SNAP_KIND_NEAR
	)
	r2 := math.Sqrt2
	tests := []struct {
		name string
		g    Geometry
		kind enginev1.SnapKind
		ref  geom.Vec
		want []geom.Vec
	}{
		{"line end", line, end, geom.Vec{}, []geom.Vec{geom.Pt(0, 0), geom.Pt(4, 0)}},
		{"line mid", line, mid, geom.Vec{}, []geom.Vec{geom.Pt(2, 0)}},
		{"line perp", line, perp, geom.Pt(3, 5), []geom.Vec{geom.Pt(3, 0)}},
		{"line perp beyond the segment", line, perp, geom.Pt(5, 5), nil},
		{"line near clamps to the end", line, nearS, geom.Pt(9, 1), []geom.Vec{geom.Pt(4, 0)}},
		{"line has no centre", line, center, geom.Vec{}, nil},
		{"arc end", arc90, end, geom.Vec{}, []geom.Vec{geom.Pt(2, 0), geom.Pt(0, 2)}},
		{"arc mid", arc90, mid, geom.Vec{}, []geom.Vec{geom.Pt(r2, r2)}},
		{"arc quad within sweep", arc90, quad, geom.Vec{}, []geom.Vec{geom.Pt(2, 0), geom.Pt(0, 2)}},
		{"arc perp", arc90, perp, geom.Pt(3, 3), []geom.Vec{geom.Pt(r2, r2)}},
		{"arc perp outside sweep", arc90, perp, geom.Pt(-3, 1), nil},
		{"arc perp: the far foot", arc90, perp, geom.Pt(-3, -3), []geom.Vec{geom.Pt(r2, r2)}},
		{"arc near outside sweep picks an end", arc90, nearS, geom.Pt(1, -5), []geom.Vec{geom.Pt(2, 0)}},
		{"circle quad", circle, quad, geom.Vec{}, []geom.Vec{geom.Pt(2, 1), geom.Pt(1, 2), geom.Pt(0, 1), geom.Pt(1, 0)}},
		{"circle perp", circle, perp, geom.Pt(1, 5), []geom.Vec{geom.Pt(1, 2), geom.Pt(1, 0)}},
		{"circle near", circle, nearS, geom.Pt(1, 5), []geom.Vec{geom.Pt(1, 2)}},
		{"circle has no end", circle, end, geom.Vec{}, nil},
		{"polyline end (vertices)", poly, end, geom.Vec{}, []geom.Vec{geom.Pt(0, 0), geom.Pt(2, 0), geom.Pt(2, 2)}},
		{"polyline mid (bulge at its middle)", poly, mid, geom.Vec{}, []geom.Vec{geom.Pt(1, 0), geom.Pt(3, 1)}},
		{"polyline center of the bulge arc", poly, center, geom.Vec{}, []geom.Vec{geom.Pt(2, 1)}},
		{"ellipse quad (axis ends)", ellipse, quad, geom.Vec{}, []geom.Vec{geom.Pt(2, 0), geom.Pt(0, 1), geom.Pt(-2, 0), geom.Pt(0, -1)}},
		{"ellipse perp", ellipse, perp, geom.Pt(0, 5), []geom.Vec{geom.Pt(0, 1), geom.Pt(0, -1)}},
		{"ellipse near", ellipse, nearS, geom.Pt(0, 5), []geom.Vec{geom.Pt(0, 1)}},
		{"half ellipse end", halfEllipse, end, geom.Vec{}, []geom.Vec{geom.Pt(2, 0), geom.Pt(-2, 0)}},
		{"half ellipse mid (by length)", halfEllipse, mid, geom.Vec{}, []geom.Vec{geom.Pt(0, 1)}},
		{"point answers every snap", Point{geom.Pt(3, 4)}, quad, geom.Vec{}, []geom.Vec{geom.Pt(3, 4)}},
	}
	for _, tt := range tests {
		got := SnapCandidates(tt.g, tt.kind, tt.ref)
		if tt.kind == nearS && len(got) > 0 {
			p, _ := geom.NearestTo(got, tt.ref)
			got = []geom.Vec{p}
		}
		if !samePoints(got, tt.want) {
			t.Errorf("%s: candidates = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestTransforms(t *testing.T) {
	check := func(name string, got, want Geometry) {
		t.Helper()
		ge := &Entity{Layer: "0", Linetype: "ByLayer", Color: 256, Geom: got}
		we := &Entity{Layer: "0", Linetype: "ByLayer", Color: 256, Geom: want}
		if ge.Seal().fp != we.Seal().fp {
			t.Errorf("%s = %+v, want %+v", name, got, want)
		}
	}
	arc, _ := NewArc(geom.Pt(1, 0), 1, 0, 90)
	check("rotate a line 90° about the origin (exact)", Line{geom.Pt(1, 0), geom.Pt(2, 0)}.Transformed(geom.RotateAbout(geom.Vec{}, 90)), Line{geom.Pt(0, 1), geom.Pt(0, 2)})
	check("rotate an arc 90°", arc.Transformed(geom.RotateAbout(geom.Vec{}, 90)), Arc{C: geom.Pt(0, 1), R: 1, Start: 90, End: 180})
	check("rotate an arc 300° wraps", arc.Transformed(geom.RotateAbout(geom.Pt(1, 0), 300)), Arc{C: geom.Pt(1, 0), R: 1, Start: 300, End: 30})
	check("rotate about a base", Point{geom.Pt(2, 1)}.Transformed(geom.RotateAbout(geom.Pt(1, 1), 180)), Point{geom.Pt(0, 1)})
	check("scale a circle about a base", Circle{C: geom.Pt(2, 0), R: 1}.Transformed(geom.ScaleAbout(geom.Pt(1, 0), 3)), Circle{C: geom.Pt(4, 0), R: 3})
	check("mirror an arc about the y axis", arc.Transformed(geom.MirrorAbout(geom.Pt(0, 0), geom.Pt(0, 1))), Arc{C: geom.Pt(-1, 0), R: 1, Start: 90, End: 180})
	check("mirror an arc about the x axis", arc.Transformed(geom.MirrorAbout(geom.Pt(0, 0), geom.Pt(1, 0))), Arc{C: geom.Pt(1, 0), R: 1, Start: 270, End: 0})
	poly := NewPolyline([]geom.Vertex{{P: geom.Pt(0, 0), Bulge: 0.5}, {P: geom.Pt(1, 0)}}, false)
	check("mirror negates bulges", poly.Transformed(geom.MirrorAbout(geom.Pt(0, 0), geom.Pt(1, 0))), Polyline{Polyline: geom.Polyline{V: []geom.Vertex{{P: geom.Pt(0, 0), Bulge: -0.5}, {P: geom.Pt(1, 0)}}}})
	ell, _ := NewEllipse(geom.Vec{}, geom.Pt(2, 0), 0.5, 0, 90)
	check("mirror an elliptical arc about the x axis", ell.Transformed(geom.MirrorAbout(geom.Pt(0, 0), geom.Pt(1, 0))), Ellipse{Major: geom.Pt(2, 0), Ratio: 0.5, Start: 270, End: 0})
	check("rotate an ellipse keeps its parameters", ell.Transformed(geom.RotateAbout(geom.Vec{}, 90)), Ellipse{Major: geom.Pt(0, 2), Ratio: 0.5, Start: 0, End: 90})
	check("mirror text keeps it readable", Text{Text: "A", P: geom.Pt(1, 1), Height: 2, Rotation: 30}.Transformed(geom.MirrorAbout(geom.Pt(0, 0), geom.Pt(0, 1))), Text{Text: "A", P: geom.Pt(-1, 1), Height: 2, Rotation: 30})

	// The mirrored elliptical arc covers the mirrored points.
	m := geom.MirrorAbout(geom.Pt(0, 0), geom.Pt(1, 1))
	img := ell.Transformed(m).(Ellipse).Arc()
	for _, t0 := range []float64{0, 0.3, 1, math.Pi / 2} {
		p := m.Point(ell.Arc().At(t0))
		if q := img.Closest(p); !q.Same(p) {
			t.Errorf("mirror of ellipse point %v is %v, not on the image (nearest %v)", ell.Arc().At(t0), p, q)
		}
	}
	// Reflecting twice is the identity.
	twice := arc.Transformed(m).Transformed(m)
	check("mirror twice", twice, arc)
}

func TestBounds(t *testing.T) {
	arc, _ := NewArc(geom.Pt(0, 0), 1, 45, 135)
	b := arc.Bounds()
	r := math.Sqrt2 / 2
	if !b.Min.Same(geom.Pt(-r, r)) || !b.Max.Same(geom.Pt(r, 1)) {
		t.Errorf("arc 45°-135° bounds = %v %v, want (-%g,%g) (%g,1)", b.Min, b.Max, r, r, r)
	}
	// An ellipse with major axis along the diagonal.
	ell, _ := NewEllipse(geom.Vec{}, geom.Pt(math.Sqrt2, math.Sqrt2), 0.5, 0, 360)
	b = ell.Bounds()
	// Half-width: sqrt(a²cos²θ + b²sin²θ) with a=2, b=1, θ=45°.
	w := math.Sqrt(4*0.5 + 1*0.5)
	if !b.Min.Same(geom.Pt(-w, -w)) || !b.Max.Same(geom.Pt(w, w)) {
		t.Errorf("rotated ellipse bounds = %v %v, want ±%v", b.Min, b.Max, w)
	}
}

// A dimension read with what its writer drew is drawn as that: moved,
// turned and scaled with it, kept through its encoding, and drawn afresh
// from its style once reflected or bound points are computed again.
func TestDrawnDimension(t *testing.T) {
	g := Dimension{Type: enginev1.DimensionKind_DIMENSION_KIND_ROTATED, P1: geom.Pt(0, 0), P2: geom.Pt(10, 0), Offset: 2, Style: "Standard", Scale: 1, Drawn: &samplePicture}
	if got := g.Picture(); !reflect.DeepEqual(got, samplePicture) {
		t.Fatalf("picture = %+v, want the drawn one", got)
	}
	want := samplePicture.Bounds()
	want.AddPoint(g.P1)
	want.AddPoint(g.P2)
	if got := g.Bounds(); got != want {
		t.Errorf("bounds = %+v, want the drawn picture's and the measured points' %+v", got, want)
	}
	e := (&Entity{Layer: "0", Linetype: "ByLayer", Color: 256, Geom: g}).Seal()
	back, err := DecodeEntity(1, e.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Geom, g) {
		t.Errorf("decoded %+v, want %+v", back.Geom, g)
	}
	plain := g
	plain.Drawn = nil
	if (&Entity{Layer: "0", Linetype: "ByLayer", Color: 256, Geom: plain}).Seal().fp == e.fp {
		t.Error("the fingerprint does not cover what the writer drew")
	}

	x := geom.RotateAbout(geom.Pt(0, 0), 90).Then(geom.Translate(geom.Pt(1, 1)))
	moved := g.Transformed(x).(Dimension)
	if moved.Drawn == nil {
		t.Fatal("turning the dimension forgot what its writer drew")
	}
	pic := moved.Picture()
	if s := pic.Strokes[0].(geom.Segment); !s.A.Same(x.Point(geom.Pt(0, 2))) || !s.B.Same(x.Point(geom.Pt(10, 2))) {
		t.Errorf("the line turned to %v, want it through %v and %v", s, x.Point(geom.Pt(0, 2)), x.Point(geom.Pt(10, 2)))
	}
	if a := pic.Strokes[1].(geom.Arc); !a.C.Same(geom.Pt(-1, 6)) || math.Abs(a.Start-math.Pi/2) > 1e-12 || a.Sweep != math.Pi {
		t.Errorf("the arc turned to %+v, want centre (-1, 6) from 90°", a)
	}
	if tx := pic.Texts[0]; !tx.P.Same(x.Point(geom.Pt(4, 2.5))) || tx.Rotation != 90 {
		t.Errorf("the text turned to %+v", tx)
	}
	if !pic.Fills[0][1].Same(x.Point(geom.Pt(1, 2.2))) || !pic.Dots[0].Same(x.Point(geom.Pt(5, 5))) {
		t.Errorf("the fill or the dot did not turn: %v %v", pic.Fills[0], pic.Dots)
	}
	// An uneven scale maps the arc as chords through its mapped points.
	sheared := g.Affined(geom.Affine{A: 2, E: 1}).(Dimension).Picture()
	for _, s := range sheared.Strokes[1:] {
		seg := s.(geom.Segment)
		if r := math.Hypot((seg.B.X-10)/2, seg.B.Y-2); math.Abs(r-1) > 1e-12 {
			t.Fatalf("chord end %v is not on the stretched arc", seg.B)
		}
	}

	if g.Transformed(geom.MirrorAbout(geom.Pt(0, 0), geom.Pt(0, 1))).(Dimension).Drawn != nil {
		t.Error("a reflected dimension keeps what its writer drew, its text backwards")
	}
	bound := g
	bound.Binds = []Bind{{Slot: enginev1.DimensionSlot_DIMENSION_SLOT_P1, Handle: 7, Snap: enginev1.SnapKind_SNAP_KIND_END}}
	line := &Entity{Handle: 7, Geom: Line{geom.Pt(1, 0), geom.Pt(5, 5)}}
	look := func(h uint64) *Entity { return map[uint64]*Entity{7: line}[h] }
	if bound.Rebind(look, false).(Dimension).Drawn != nil {
		t.Error("a dimension whose points follow an entity keeps the picture of where they were")
	}
}

func TestPictureOf(t *testing.T) {
	arrow := NewBlock("_ARROW", geom.Vec{}, []*Entity{{Layer: "0", Geom: Solid{P: []geom.Vec{geom.Pt(0, 0), geom.Pt(-1, 0.2), geom.Pt(-1, -0.2)}}}})
	ents := []*Entity{
		{Layer: "0", Geom: Line{geom.Pt(0, 0), geom.Pt(10, 0)}},
		{Layer: "0", Geom: Insert{Name: "_ARROW", Def: arrow, P: geom.Pt(10, 0), Scale: 2}},
		{Layer: "Defpoints", Geom: Point{geom.Pt(0, -3)}},
		{Layer: "0", Geom: Point{geom.Pt(5, 1)}},
		{Layer: "0", Geom: Text{Text: "10", P: geom.Pt(4, 0.5), Height: 1}},
		{Layer: "0", Geom: Ellipse{Major: geom.Pt(2, 0), Ratio: 0.5, Start: 0, End: 90}},
	}
	p, ok := PictureOf(ents, 1000)
	if !ok {
		t.Fatal("a small block does not make a picture")
	}
	if len(p.Fills) != 1 || !p.Fills[0][1].Same(geom.Pt(8, 0.4)) {
		t.Errorf("the arrowhead insert placed %v, want its corner at (8, 0.4)", p.Fills)
	}
	if len(p.Dots) != 1 || !p.Dots[0].Same(geom.Pt(5, 1)) {
		t.Errorf("dots %v: want (5, 1) and no defpoint", p.Dots)
	}
	if len(p.Texts) != 1 || p.Texts[0].Text != "10" {
		t.Errorf("texts %v", p.Texts)
	}
	// The line, the solid's outline, and the quarter ellipse as 16 chords.
	var chords int
	for _, s := range p.Strokes {
		seg := s.(geom.Segment)
		if q := seg.B; math.Abs(q.X*q.X/4+q.Y*q.Y-1) < 1e-9 && q.Y > 0 {
			chords++
		}
	}
	if chords != 16 || len(p.Strokes) != 1+3+16 {
		t.Errorf("%d strokes, %d of them chords ending on the ellipse: want 20 and 16", len(p.Strokes), chords)
	}
	if _, ok := PictureOf(ents, 5); ok {
		t.Error("a block over the limit makes a picture")
	}
}

// An aligned text is placed by its alignment: its estimated box around
// its point, its encoding and its wire attachment keeping it.
func TestTextAlign(t *testing.T) {
	g := Text{Text: "ABCD", P: geom.Pt(10, 5), Height: 2, Align: Align{H: AlignCenter, V: AlignMiddle}}
	// 4 characters × 2 wide, centred on x = 10; capitals from 4 to 6.
	if s := g.Start(); !s.Same(geom.Pt(6, 4)) {
		t.Errorf("start = %v, want (6, 4)", s)
	}
	b := g.Bounds()
	if !b.Min.Same(geom.Pt(6, 4-textDescender*2)) || !b.Max.Same(geom.Pt(14, 6)) {
		t.Errorf("bounds = %+v, want (6, %g)–(14, 6)", b, 4-textDescender*2)
	}
	right := Text{Text: "AB", P: geom.Pt(0, 0), Height: 1, Rotation: 90, Align: Align{H: AlignRight, V: AlignTop}}
	if s := right.Start(); !s.Same(geom.Pt(1, -2)) {
		t.Errorf("start of a turned right-top text = %v, want (1, -2)", s)
	}
	for _, a := range []Align{{}, {H: AlignCenter}, {H: AlignRight, V: AlignBottom}, {V: AlignTop}} {
		for _, geo := range []Geometry{
			Text{Text: "x", P: geom.Pt(1, 2), Height: 1, Align: a},
			Attdef{Tag: "T", Text: Text{Text: "x", Height: 1, Align: a}},
			Insert{Name: "B", Scale: 1, Attribs: []Attrib{{Tag: "A", Text: Text{Text: "1", Height: 1}}, {Tag: "B", Text: Text{Text: "2", Height: 1, Align: a}}}},
		} {
			e := (&Entity{Layer: "0", Linetype: "ByLayer", Color: 256, Geom: geo}).Seal()
			back, err := DecodeEntity(1, e.Encode())
			if err != nil {
				t.Fatalf("%T aligned %+v: %v", geo, a, err)
			}
			if !reflect.DeepEqual(back.Geom, geo) {
				t.Errorf("%T aligned %+v decodes as %+v", geo, a, back.Geom)
			}
		}
	}
	enc := (&Entity{Layer: "0", Linetype: "ByLayer", Color: 256, Geom: Text{Text: "x", Height: 1, Align: Align{H: AlignRight}}}).Encode()
	enc[len(enc)-1] = 0x05 // H 5: DXF has no such alignment
	if _, err := DecodeEntity(1, enc); err == nil {
		t.Error("an alignment DXF does not have decodes")
	}
	for a, want := range map[Align]enginev1.TextAttachment{
		{H: AlignLeft, V: AlignTop}:        enginev1.TextAttachment_TEXT_ATTACHMENT_TOP_LEFT,
		{H: AlignCenter, V: AlignMiddle}:   enginev1.TextAttachment_TEXT_ATTACHMENT_MIDDLE_CENTER,
		{H: AlignRight, V: AlignBottom}:    enginev1.TextAttachment_TEXT_ATTACHMENT_BOTTOM_RIGHT,
		{H: AlignCenter, V: AlignBaseline}: enginev1.TextAttachment_TEXT_ATTACHMENT_BASELINE_CENTER,
	} {
		if got := a.Attachment(); got != want {
			t.Errorf("%+v is %v on the wire, want %v", a, got, want)
		}
	}
}

// Multi-line text is drawn wrapped where the Go font's widths wrap it,
// while its extents keep ezdxf's estimate (a character as wide as the
// height): ezdxf's drawing wraps by its font, its bounding box by the
// estimate.
func TestMTextWrapsAsDrawn(t *testing.T) {
	if !(drawnWidth("i", 1) < drawnWidth("W", 1) && drawnWidth("W", 1) < 1.5) {
		t.Fatalf("the Go font's widths: i %v, W %v (in heights)", drawnWidth("i", 1), drawnWidth("W", 1))
	}
	g := MText{Text: "one two three four five six", P: geom.Pt(0, 0), Height: 1, Width: 12, Attach: 1, Spacing: 1}
	// Estimated, 12 characters a line: "one two", "three four", "five six".
	if got := g.Lines(); !slices.Equal(got, []string{"one two", "three four", "five six"}) {
		t.Errorf("estimated lines %q", got)
	}
	var drawn []string
	for _, tx := range g.Picture().Texts {
		drawn = append(drawn, tx.Text)
		if w := drawnWidth(tx.Text, 1); w > 12 {
			t.Errorf("drawn line %q is %v wide, over the width 12", tx.Text, w)
		}
	}
	if len(drawn) != 2 {
		t.Errorf("drawn lines %q: want two, the Go font being narrower than the estimate", drawn)
	}
	if b := g.Bounds(); math.Abs(b.Max.Y-b.Min.Y-(2*5.0/3+1+textDescender)) > 1e-9 {
		t.Errorf("extents %+v: want the estimate's three lines", b)
	}
}
