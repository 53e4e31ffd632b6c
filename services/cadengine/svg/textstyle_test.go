package svg

import (
	"fmt"
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// A text in a style is drawn through a matrix that scales its glyphs
// across by the width factor and slants them by the oblique angle, in the
// family of its font, and mirrors them as its generation flags say; a
// text set between two points is stretched to their distance by
// textLength; a text without either is drawn as it always was.
func TestTextStyles(t *testing.T) {
	d := drawing.NewDocument("doc-1", "styles", enginev1.Units_UNITS_MM, time.Time{})
	add := func(g drawing.Geometry) {
		d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: g})
	}
	add(drawing.Text{Text: "plain", P: geom.Pt(1, 2), Height: 0.72})
	add(drawing.Text{Text: "narrow", P: geom.Pt(1, 2), Height: 0.72, Style: drawing.TextStyle{Name: "N", Width: 0.7}})
	add(drawing.Text{Text: "lean", P: geom.Pt(1, 2), Height: 0.72, Rotation: 90, Style: drawing.TextStyle{Oblique: 45, Font: "cour.ttf"}})
	add(drawing.Text{Text: "fit", P: geom.Pt(0, 0), Height: 0.72, Fit: drawing.FitWidth, End: geom.Pt(3, 4)})
	add(drawing.Text{Text: "back", P: geom.Pt(1, 2), Height: 0.72, Style: drawing.TextStyle{Mirror: drawing.MirrorBackward}})
	add(drawing.Text{Text: "down", P: geom.Pt(1, 2), Height: 0.72, Style: drawing.TextStyle{Mirror: drawing.MirrorUpsideDown}})
	s := Write(d)
	for _, want := range []string{
		`<text id="e100" data-handle="100" data-layer="0" data-type="text" x="1" y="-2" font-size="1" font-family="sans-serif" stroke="none" fill="#000000">plain</text>`,
		// x' = 0.7 x: matrix(0.7 0 0 1 1 -2).
		`<text id="e101" data-handle="101" data-layer="0" data-type="text" x="0" y="0" font-size="1" font-family="sans-serif" stroke="none" fill="#000000" transform="matrix(0.7 0 0 1 1 -2)">narrow</text>`,
		// Turned 90°: the glyphs' x runs up (SVG's -y), their y (down)
		// along +x; a glyph's top (y = -1) leans along the baseline, up
		// by tan 45° = 1: (x, y) ↦ (1 + y, -2 - x + y), so the top of
		// its foot (0, -1) is at world (0, 3), one up from (0, 2).
		`x="0" y="0" font-size="1" font-family="monospace" stroke="none" fill="#000000" transform="matrix(0 -1 1 1 1 -2)">lean</text>`,
		// Fitted from (0, 0) to (3, 4): 5 long, turned atan2(4, 3),
		// centred between them.
		fmt.Sprintf(`text-anchor="middle" stroke="none" fill="#000000" transform="matrix(%s %s %s %s 1.5 -2)" textLength="5" lengthAdjust="spacingAndGlyphs">fit</text>`, num(0.6), num(-0.8), num(0.8), num(0.6)),
		// Backwards: x' = -x about its point.
		`transform="matrix(-1 0 0 1 1 -2)">back</text>`,
		// Upside down: y' = -y about its point.
		`transform="matrix(1 0 0 -1 1 -2)">down</text>`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("Write has no %s:\n%s", want, s)
		}
	}
}
