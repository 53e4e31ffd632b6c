package svg

import (
	"regexp"
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// A gradient hatch is filled with a gradient defined beside it, a
// spherical one radial; an MTEXT's mask is a rectangle in its colour
// before its text.
func TestSVGFills(t *testing.T) {
	d := drawing.NewDocument("doc-1", "filled", enginev1.Units_UNITS_MM, time.Time{})
	sq := func(x float64) drawing.Loop {
		l, _ := drawing.LoopOf(drawing.NewPolyline([]geom.Vertex{{P: geom.Pt(x, 0)}, {P: geom.Pt(x+10, 0)}, {P: geom.Pt(x+10, 6)}, {P: geom.Pt(x, 6)}}, true))
		return l
	}
	add := func(g drawing.Geometry) { d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: g}) }
	add(drawing.Hatch{Pattern: "SOLID", Scale: 1, Loops: []drawing.Loop{sq(0)}, Gradient: &drawing.Gradient{Name: "LINEAR", Color1: 1, Color2: 5}})
	add(drawing.Hatch{Pattern: "SOLID", Scale: 1, Loops: []drawing.Loop{sq(20)}, Gradient: &drawing.Gradient{Name: "SPHERICAL", Color1: 1, Color2: 5}})
	add(drawing.MText{Text: "NOTE", P: geom.Pt(0, 20), Height: 2, Attach: 7, Spacing: 1, Background: drawing.Background{Fill: drawing.BackgroundColor, Color: 2, Scale: 1.5}})
	s := Write(d)
	lin := regexp.MustCompile(`<linearGradient id="(shade-[0-9a-f]+)" gradientUnits="userSpaceOnUse" x1="0" y1="-3" x2="10" y2="-3"><stop offset="0" stop-color="#ff0000"/><stop offset="1" stop-color="#0000ff"/></linearGradient>`).FindStringSubmatch(s)
	if lin == nil {
		t.Fatalf("no linear gradient from (0, 3) red to (10, 3) blue in\n%s", s)
	}
	if !strings.Contains(s, `fill="url(#`+lin[1]+`)"`) {
		t.Errorf("no path filled with %s", lin[1])
	}
	rad := regexp.MustCompile(`<radialGradient id="(shade-[0-9a-f]+)" gradientUnits="userSpaceOnUse" cx="25" cy="-3" r="5.83\d*"><stop offset="0" stop-color="#0000ff"/><stop offset="1" stop-color="#ff0000"/>`).FindStringSubmatch(s)
	if rad == nil || rad[1] == lin[1] || !strings.Contains(s, `fill="url(#`+rad[1]+`)"`) {
		t.Errorf("no radial gradient about (25, 3), blue inside, of its own name, filling a path:\n%s", s)
	}
	// The mask: the text's box from (0, 20), grown by 0.5 × 2 = 1.
	mask := strings.Index(s, `<path d="M -1 -19 L `)
	text := strings.Index(s, `>NOTE</text>`)
	if mask < 0 || text < mask || !strings.Contains(s[mask:text], `fill="#ffff00"`) {
		t.Errorf("no yellow mask from (-1, 19) before the text:\n%s", s)
	}
}
