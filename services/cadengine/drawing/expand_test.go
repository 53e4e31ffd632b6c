package drawing

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// placedBounds is the exact extents of what an insert draws, its nested
// inserts expanded all the way down.
func placedBounds(g Insert) geom.Box {
	var b geom.Box
	for _, e := range g.Placed() {
		if in, ok := e.Geom.(Insert); ok {
			b.AddBox(placedBounds(in))
			continue
		}
		b.AddBox(e.Geom.Bounds())
	}
	return b
}

// nested is a document of blocks: a leaf of curves (and text), a middle
// block of turned, scaled, mirrored and gridded inserts of the leaf.
//
// Text placed by a mirrored insert keeps its own rotation (it stays
// readable, see Text.Transformed), so it does not move with the insert as
// a rigid body would: its extents are outside what the block's hull can
// promise, and the tests that mirror leave it out.
func nested(t *testing.T, withText bool) *Document {
	t.Helper()
	d := NewDocument("d", "n", enginev1.Units_UNITS_MM, time.Time{})
	arc, _ := NewArc(geom.Pt(3, 1), 2, 30, 250)
	ell, _ := NewEllipse(geom.Pt(-2, 4), geom.Pt(3, 1), 0.3, 10, 200)
	leaf := []*Entity{
		{Layer: "0", Linetype: "ByBlock", Geom: Line{geom.Pt(0, 0), geom.Pt(5, 1)}},
		{Layer: "0", Linetype: "ByBlock", Geom: arc},
		{Layer: "0", Linetype: "ByBlock", Geom: ell},
		{Layer: "0", Linetype: "ByBlock", Geom: Circle{C: geom.Pt(-1, -3), R: 1.5}},
	}
	if withText {
		leaf = append(leaf, &Entity{Layer: "0", Linetype: "ByBlock", Geom: Text{Text: "M8", P: geom.Pt(1, 6), Height: 1, Rotation: 33}})
	}
	d.AddBlock(NewBlock("LEAF", geom.Pt(1, 1), leaf))
	mid := []*Entity{
		{Layer: "0", Linetype: "ByBlock", Geom: Insert{Name: "LEAF", Def: d.Block("LEAF"), P: geom.Pt(10, 0), Scale: 2, Rotation: 40}},
		{Layer: "0", Linetype: "ByBlock", Geom: Insert{Name: "LEAF", Def: d.Block("LEAF"), P: geom.Pt(-5, 3), Scale: 0.5, Rotation: 300, Mirror: true}},
		{Layer: "0", Linetype: "ByBlock", Geom: Insert{Name: "LEAF", Def: d.Block("LEAF"), P: geom.Pt(0, -8), Scale: 1, Rotation: 15, Cols: 3, Rows: 4, ColSpacing: 7, RowSpacing: -6}},
		{Layer: "0", Linetype: "ByBlock", Geom: Line{geom.Pt(-20, 0), geom.Pt(-19, 1)}},
	}
	d.AddBlock(NewBlock("MID", geom.Pt(0, 0), mid))
	return d
}

// TestInsertBoundsHull holds an insert's extents, which come from its
// block's convex hull without expanding it, to the exact extents of what
// it draws: they contain them, and no side is further out than the
// tangent polygons of the curves allow.
func TestInsertBoundsHull(t *testing.T) {
	mirrored, plain := nested(t, false), nested(t, true)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 400 {
		d, mirror := plain, i%2 == 1
		if mirror {
			d = mirrored
		}
		g := Insert{Name: "MID", Def: d.Block("MID"), P: geom.Pt(rng.Float64()*100-50, rng.Float64()*100-50),
			Scale: 0.1 + rng.Float64()*3, Rotation: rng.Float64() * 360, Mirror: mirror}
		if i%3 == 0 {
			g.Cols, g.Rows, g.ColSpacing, g.RowSpacing = 1+rng.Int64N(4), 1+rng.Int64N(4), rng.Float64()*80-40, rng.Float64()*80-40
		}
		got, want := g.Bounds(), placedBounds(g)
		// Curves lie within 2e-5 of their radius of their tangent polygons;
		// the largest radius here is 6 (a circle of 1.5 scaled 2) times the
		// insert's scale.
		slack := 6 * g.Scale * 2e-5
		if !want.Inside(got) || got.Min.X < want.Min.X-slack || got.Min.Y < want.Min.Y-slack || got.Max.X > want.Max.X+slack || got.Max.Y > want.Max.Y+slack {
			t.Fatalf("%+v: Bounds() = %v, want %v within %g", g, got, want, slack)
		}
	}
}

// TestGridTransformed checks that transforming a gridded insert places
// every copy where transforming the copies would: the grid's spacing
// scales, and a reflection reverses its columns.
func TestGridTransformed(t *testing.T) {
	d := nested(t, false)
	g := Insert{Name: "LEAF", Def: d.Block("LEAF"), P: geom.Pt(3, 4), Scale: 1.5, Rotation: 25, Cols: 3, Rows: 2, ColSpacing: 9, RowSpacing: -7}
	for name, x := range map[string]geom.Xform{
		"moved":    geom.Translate(geom.Pt(5, -2)),
		"rotated":  geom.RotateAbout(geom.Pt(1, 1), 70),
		"scaled":   geom.ScaleAbout(geom.Pt(-3, 2), 2.5),
		"mirrored": geom.MirrorAbout(geom.Pt(0, 1), geom.Pt(3, 5)),
	} {
		got, want := g.Transformed(x).(Insert).Placed(), g.Placed()
		if len(got) != len(want) || len(got) != 3*2*len(d.Block("LEAF").Entities) {
			t.Fatalf("%s: %d placed entities, want %d", name, len(got), len(want))
		}
		for i := range got {
			w := want[i].Geom.Transformed(x)
			if gb, wb := got[i].Geom.Bounds(), w.Bounds(); !gb.Min.SameIn(wb.Min, 100) || !gb.Max.SameIn(wb.Max, 100) {
				t.Errorf("%s: copy %d (%T) has extents %v, want %v", name, i, w, gb, wb)
			}
		}
	}
}

// TestNestedCost: ten levels of ten inserts cost 10^10 primitives, known
// without expanding any of them, and a grid multiplies its block's cost.
func TestNestedCost(t *testing.T) {
	d := NewDocument("d", "n", enginev1.Units_UNITS_MM, time.Time{})
	d.AddBlock(NewBlock("B0", geom.Vec{}, []*Entity{{Layer: "0", Geom: Line{geom.Pt(0, 0), geom.Pt(1, 0)}}}))
	for level := 1; level < 10; level++ {
		var ins []*Entity
		below := d.Block(fmt.Sprintf("B%d", level-1))
		for i := range 10 {
			ins = append(ins, &Entity{Layer: "0", Geom: Insert{Name: below.Name, Def: below, P: geom.Pt(float64(i), 0), Scale: 1}})
		}
		d.AddBlock(NewBlock(fmt.Sprintf("B%d", level), geom.Vec{}, ins))
	}
	top := Insert{Name: "B9", Def: d.Block("B9"), Scale: 1}
	if got := Cost(top); got != 1e9 {
		t.Errorf("Cost(insert of 9 levels of 10) = %d, want 1e9", got)
	}
	grid := top
	grid.Cols, grid.Rows = 100000, 100000
	if got := Cost(grid); got != math.MaxInt64 {
		t.Errorf("Cost(10^10 copies of 10^9) = %d, want it saturated at MaxInt64", got)
	}
	if b := top.Bounds(); b.Min.X != 0 || b.Max.X != 9*9+1 {
		t.Errorf("Bounds(insert of 9 levels) = %v, want x from 0 to 82", b)
	}
	budget := NewBudget(context.Background(), 1000)
	var tl *TooLargeError
	if err := budget.Afford(Cost(grid)); !errors.As(err, &tl) || tl.Needed != math.MaxInt64 {
		t.Errorf("Afford(10^10 copies of 10^9) = %v, want TooLargeError needing MaxInt64", err)
	}
	leafGrid := Insert{Name: "B0", Def: d.Block("B0"), Scale: 1, Cols: 1000, Rows: 1000}
	_, err := budget.PlacedFor(leafGrid, &Entity{Layer: "0", Geom: leafGrid})
	if !errors.As(err, &tl) || tl.Needed != 1e6 || tl.Limit != 1000 {
		t.Errorf("PlacedFor(10^6 copies of a line) = %v, want TooLargeError needing 1e6 of 1000", err)
	}
}

// TestBudget spends a budget down, past it, and past a cancelled context.
func TestBudget(t *testing.T) {
	b := NewBudget(context.Background(), 10000)
	if err := b.Afford(10000); err != nil {
		t.Errorf("Afford(10000) of 10000 = %v, want nil", err)
	}
	if err := b.Spend(9000); err != nil {
		t.Fatalf("Spend(9000) = %v", err)
	}
	var tl *TooLargeError
	if err := b.Spend(2000); !errors.As(err, &tl) || tl.Needed != 11000 {
		t.Errorf("Spend(2000) after 9000 of 10000 = %v, want TooLargeError needing 11000", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b = NewBudget(ctx, 0)
	cancel()
	var err error
	spent := 0
	for err == nil && spent < 10*checkEvery {
		err = b.Spend(1)
		spent++
	}
	if !errors.Is(err, context.Canceled) || spent > checkEvery {
		t.Errorf("a cancelled budget failed after %d primitives with %v, want context.Canceled within %d", spent, err, checkEvery)
	}
	if (*Budget)(nil).Spend(math.MaxInt64) != nil {
		t.Error("a nil budget refused work")
	}
}

// TestDenseHatchDrawsSolid: a pattern that would draw more lines than
// maxPatternSegments is drawn as a solid fill.
func TestDenseHatchDrawsSolid(t *testing.T) {
	square := Loop{Poly: geom.Polyline{V: []geom.Vertex{{P: geom.Pt(0, 0)}, {P: geom.Pt(1000, 0)}, {P: geom.Pt(1000, 1000)}, {P: geom.Pt(0, 1000)}}, Closed: true}}
	for _, scale := range []float64{1e-12, 1e-300, 5e-324} {
		h := Hatch{Pattern: "ANSI31", Scale: scale, Loops: []Loop{square}}
		pic := h.Picture()
		if !h.Dense() || len(pic.Strokes) != 0 || len(pic.Fills) != 1 {
			t.Errorf("ANSI31 at scale %g over 1 km: Dense() = %v, %d strokes and %d fills, want dense, drawn as one fill", scale, h.Dense(), len(pic.Strokes), len(pic.Fills))
		}
		if c := Cost(h); c != 4 {
			t.Errorf("Cost(dense hatch) = %d, want its 4 vertices", c)
		}
	}
	h := Hatch{Pattern: "ANSI31", Scale: 100, Loops: []Loop{square}}
	if h.Dense() || len(h.Picture().Strokes) == 0 {
		t.Errorf("ANSI31 at scale 100 over 1 km is dense or draws no lines")
	}
}

// TestGridAttribs: a grid shows its insert's visible attribute values in
// every copy, bounds them there, and pays for each.
func TestGridAttribs(t *testing.T) {
	d := nested(t, false)
	g := Insert{Name: "LEAF", Def: d.Block("LEAF"), P: geom.Pt(3, 4), Scale: 1, Rotation: 90, Cols: 3, Rows: 2, ColSpacing: 10, RowSpacing: 20,
		Attribs: []Attrib{{Tag: "NO", Text: Text{Text: "7", P: geom.Pt(2, 4), Height: 1}}, {Tag: "KG", Text: Text{Text: "2", P: geom.Pt(2, 2), Height: 1}, Invisible: true}}}
	var texts []geom.Vec
	for _, p := range g.PlacedFor(&Entity{Layer: "L", Geom: g}) {
		if t, ok := p.Geom.(Text); ok && t.Text == "7" {
			texts = append(texts, t.P)
		}
	}
	// Turned 90°: columns go up y, rows go along -x.
	want := []geom.Vec{{X: 2, Y: 4}, {X: 2, Y: 14}, {X: 2, Y: 24}, {X: -18, Y: 4}, {X: -18, Y: 14}, {X: -18, Y: 24}}
	if len(texts) != len(want) {
		t.Fatalf("the value is shown at %v, want at %v", texts, want)
	}
	for i := range want {
		if !texts[i].SameIn(want[i], 4) {
			t.Errorf("copy %d shows the value at %v, want %v", i, texts[i], want[i])
		}
	}
	last := Text{Text: "7", P: geom.Pt(-18, 24), Height: 1}.Bounds()
	if b := g.Bounds(); !last.Inside(b) {
		t.Errorf("Bounds() = %v leaves out the last copy's value %v", b, last)
	}
	if got, want := Cost(g), 6*(d.Block("LEAF").Cost()+2); got != want {
		t.Errorf("Cost = %d, want %d (each copy's block and values)", got, want)
	}
}

// A text in a block inserted at a negative scale is drawn reflected with
// the block, as CAD programs draw it: mirrored in y, a text reading along
// +x from (1, 0) reads along -x from (-1, 0), its glyphs reversed (drawn
// at 180°, upside down about its baseline, so still above it); turned 90°
// after that, it runs down from (0, -1) with its top towards -x (where
// the turn takes +y).
func TestPlacedTextReflected(t *testing.T) {
	b := NewBlock("T", geom.Vec{}, []*Entity{{Layer: "0", Geom: Text{Text: "AB", P: geom.Pt(1, 0), Height: 1}}})
	for _, c := range []struct {
		name     string
		ins      Insert
		p        geom.Vec
		rotation float64
		box      geom.Box
	}{
		// The box of the estimate (each character as wide as it is tall,
		// a descender of a third) mirrored: x from -3 to -1, y from
		// -1/3 to 1.
		{"mirrored", Insert{Name: "T", Def: b, Scale: 1, Mirror: true}, geom.Pt(-1, 0), 180,
			geom.Box{Min: geom.Pt(-3, -textDescender), Max: geom.Pt(-1, 1), NonEmpty: true}},
		{"mirrored, turned 90°", Insert{Name: "T", Def: b, Scale: 1, Mirror: true, Rotation: 90}, geom.Pt(0, -1), 270,
			geom.Box{Min: geom.Pt(-1, -3), Max: geom.Pt(textDescender, -1), NonEmpty: true}},
	} {
		placed := c.ins.Placed()
		if len(placed) != 1 {
			t.Fatalf("%s: Placed = %d entities, want 1", c.name, len(placed))
		}
		got, ok := placed[0].Geom.(Text)
		if !ok {
			t.Fatalf("%s: Placed = %T, want a Text", c.name, placed[0].Geom)
		}
		if !got.P.Same(c.p) || math.Abs(got.Rotation-c.rotation) > 1e-9 {
			t.Errorf("%s: placed at %v, %v°; want %v, %v°", c.name, got.P, got.Rotation, c.p, c.rotation)
		}
		if st := got.Setting(); st.MirrorX != 1 || st.MirrorY != -1 {
			t.Errorf("%s: drawn mirrored %v along and %v across its baseline, want 1 and -1", c.name, st.MirrorX, st.MirrorY)
		}
		if b := got.Bounds(); !nearBox(b, c.box) {
			t.Errorf("%s: Bounds = %v, want %v", c.name, b, c.box)
		}
	}
}
