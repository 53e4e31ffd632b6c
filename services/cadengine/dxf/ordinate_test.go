package dxf

import (
	"strconv"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// TestOrdinatePicture: an ordinate dimension without a block is drawn
// from its points with the ISO-25 sizes (text and arrowheads 2.5, DIMEXO
// and DIMGAP 0.625): the leader off the feature, a jog two arrowheads
// long before its end, on under the text, and the measured distance above
// it, level for a y-type one, turned along the leader for an x-type one.
func TestOrdinatePicture(t *testing.T) {
	seg := func(ax, ay, bx, by float64) geom.Segment { return geom.Segment{A: geom.Pt(ax, ay), B: geom.Pt(bx, by)} }
	for _, c := range []struct {
		name    string
		flags   int
		strokes []geom.Segment
		text    string
		at      geom.Vec
		turn    float64
	}{
		// From (10, 5) along x: 10 to the jog (20 - 5·2 is less than
		// one leg), the jog to 5 before (30, 20), then on 2.5 (one
		// character "5") under the text, which is 1.875 above.
		{"y-type", 6, []geom.Segment{seg(10.625, 5, 20, 5), seg(20, 5, 25, 20), seg(25, 20, 32.5, 20)}, "5", geom.Pt(31.25, 21.875), 0},
		// From (10, 5) along y: the leg's 5 (15 - 10 is less), the jog to
		// (30, 15), on 5 past the end ("10"), the text left of the leader.
		{"x-type", 6 | 64, []geom.Segment{seg(10, 5.625, 10, 10), seg(10, 10, 30, 15), seg(30, 15, 30, 25)}, "10", geom.Pt(28.125, 22.5), 90},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &File{dimStyles: map[string]dimVars{}, dimHeader: dimVars{}, styles: textStyles{}, styleNames: map[string]string{}}
			r := dxfRecord{kind: "DIMENSION", pairs: []dxfPair{
				{code: 10, value: "0"}, {code: 20, value: "0"}, {code: 70, value: strconv.Itoa(c.flags)},
				{code: 13, value: "10"}, {code: 23, value: "5"}, {code: 14, value: "30"}, {code: 24, value: "20"},
			}}
			p := f.ordinatePicture(r, r.dimStyleName())
			if p == nil {
				t.Fatal("ordinatePicture = nil, want a picture")
			}
			if len(p.Strokes) != len(c.strokes) {
				t.Fatalf("strokes = %v, want %v", p.Strokes, c.strokes)
			}
			for i, want := range c.strokes {
				if got, ok := p.Strokes[i].(geom.Segment); !ok || !got.A.Same(want.A) || !got.B.Same(want.B) {
					t.Errorf("stroke %d = %v, want %v", i, p.Strokes[i], want)
				}
			}
			if len(p.Texts) != 1 {
				t.Fatalf("texts = %+v, want one", p.Texts)
			}
			got := p.Texts[0]
			center := drawing.Align{H: drawing.AlignCenter, V: drawing.AlignMiddle}
			if got.Text != c.text || !got.P.Same(c.at) || got.Rotation != c.turn || got.Align != center || got.Height != 2.5 {
				t.Errorf("text = %q at %v turned %g, %+v, %g high; want %q centred at %v turned %g, 2.5 high", got.Text, got.P, got.Rotation, got.Align, got.Height, c.text, c.at, c.turn)
			}
		})
	}
}
