package drawing

import (
	"math"
	"reflect"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// texts are where a picture's texts start, by text.
func texts(p Picture) map[string]geom.Vec {
	out := map[string]geom.Vec{}
	for _, t := range p.Texts {
		out[t.Text] = t.P
	}
	return out
}

// Text of columns wraps into its columns: a line goes on in the next
// column when it would pass the column's height (its cap top at most
// the height below the top: two lines of height 1 at pitch 5/3 fit in 3,
// three do not), a column break starts the next column, and each column
// (Width + Gutter further right) has its own background box.
func TestMTextColumnsPicture(t *testing.T) {
	pitch := 5.0 / 3
	static := MText{Text: "a\nb\nc" + ColumnBreak + "d", Height: 1, Attach: 1, Spacing: 1,
		Columns:    &Columns{Count: 3, Width: 10, Gutter: 2, Height: 3},
		Background: Background{Fill: BackgroundColor | BackgroundFrame, Color: 1, Scale: 1.5}}
	p := static.Picture()
	want := map[string]geom.Vec{"a": geom.Pt(0, -1), "b": geom.Pt(0, -1-pitch), "c": geom.Pt(12, -1), "d": geom.Pt(24, -1)}
	if got := texts(p); !sameVecs(got, want) {
		t.Errorf("static columns: texts at %v, want %v", got, want)
	}
	if len(p.Backdrops) != 3 || len(p.Strokes) != 12 {
		t.Fatalf("static columns: %d backdrops and %d strokes, want 3 and 12", len(p.Backdrops), len(p.Strokes))
	}
	for i, d := range p.Backdrops {
		x := 12 * float64(i)
		box := []geom.Vec{geom.Pt(x-0.5, -3.5), geom.Pt(x+10.5, -3.5), geom.Pt(x+10.5, 0.5), geom.Pt(x-0.5, 0.5)}
		for j, q := range d.Outline {
			if !q.Same(box[j]) {
				t.Errorf("column %d's backdrop corner %d = %v, want %v", i, j, q, box[j])
			}
		}
	}
	if b := static.Bounds(); !b.Min.Same(geom.Pt(0, -3)) || !b.Max.Same(geom.Pt(34, 0)) {
		t.Errorf("static columns: bounds %v, want (0, -3) to (34, 0)", b)
	}

	// A column break in the last column is passed over: the text goes
	// on in it, as if the break were not there.
	last := MText{Text: "a" + ColumnBreak + "b" + ColumnBreak + "\nc", Height: 1, Attach: 1, Spacing: 1,
		Columns: &Columns{Count: 2, Width: 10, Gutter: 2, Height: 100}}
	want = map[string]geom.Vec{"a": geom.Pt(0, -1), "b": geom.Pt(12, -1), "c": geom.Pt(12, -1-pitch)}
	if got := texts(last.Picture()); !sameVecs(got, want) {
		t.Errorf("a break in the last column: texts at %v, want %v", got, want)
	}

	// Manual heights of 0 (as AutoCAD writes R2018's): the first column
	// is as tall as its text up to the break, the second empty.
	manual := MText{Text: "x\ny" + ColumnBreak, Height: 1, Attach: 1, Spacing: 1,
		Columns:    &Columns{Dynamic: true, Count: 2, Width: 10, Gutter: 2, Heights: []float64{0, 0}},
		Background: Background{Fill: BackgroundColor, Color: 1, Scale: 1}}
	p = manual.Picture()
	want = map[string]geom.Vec{"x": geom.Pt(0, -1), "y": geom.Pt(0, -1-pitch)}
	if got := texts(p); !sameVecs(got, want) {
		t.Errorf("manual heights 0: texts at %v, want %v", got, want)
	}
	if len(p.Backdrops) != 1 || !p.Backdrops[0].Outline[0].Same(geom.Pt(0, -pitch-(1+textDescender))) {
		t.Errorf("manual heights 0: backdrops %+v, want one, the first column's", p.Backdrops)
	}

	// Automatic height: as many columns of the height as the text needs.
	auto := MText{Text: "a\nb\nc\nd\ne", Height: 1, Attach: 1, Spacing: 1,
		Columns: &Columns{Dynamic: true, AutoHeight: true, Width: 10, Gutter: 2, Height: 3}}
	want = map[string]geom.Vec{"a": geom.Pt(0, -1), "b": geom.Pt(0, -1-pitch), "c": geom.Pt(12, -1), "d": geom.Pt(12, -1-pitch), "e": geom.Pt(24, -1)}
	if got := texts(auto.Picture()); !sameVecs(got, want) {
		t.Errorf("automatic height: texts at %v, want %v", got, want)
	}

	// Scaled, the columns scale with the text.
	big := static.Transformed(geom.ScaleAbout(geom.Pt(0, 0), 2)).(MText)
	if wantCols := (&Columns{Count: 3, Width: 20, Gutter: 4, Height: 6, Heights: nil}); !reflect.DeepEqual(big.Columns, wantCols) {
		t.Errorf("scaled columns = %+v, want %+v", big.Columns, wantCols)
	}
}

func sameVecs(a, b map[string]geom.Vec) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || math.Abs(v.X-w.X) > 1e-9 || math.Abs(v.Y-w.Y) > 1e-9 {
			return false
		}
	}
	return true
}

// Columns encode after the background and decode back; cut short they
// fail.
func TestMTextColumnsEncoding(t *testing.T) {
	for _, g := range []Geometry{
		MText{Text: "a" + ColumnBreak + "b", Height: 1, Attach: 1, Spacing: 1, Columns: &Columns{Count: 2, Width: 5, Gutter: 1, Height: 9}},
		MText{Text: "m", Height: 1, Attach: 1, Spacing: 1, Background: Background{Fill: BackgroundColor, Color: 2, Scale: 1.25},
			Columns: &Columns{Dynamic: true, Reversed: true, Count: 2, Width: 5, Gutter: 1, Heights: []float64{3, 0}}},
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
			t.Errorf("DecodeEntity of %+v cut short succeeded", g)
		}
	}
}
