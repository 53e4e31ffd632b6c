package svg_test

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
	"github.com/cadbridge/cadbridge/services/cadengine/svg"
)

// TestEntityAttributes checks that every drawn entity's element names its
// handle, layer and type, and that an entity of a hidden layer is left out.
func TestEntityAttributes(t *testing.T) {
	d := drawing.NewDocument("doc-1", "attrs", enginev1.Units_UNITS_MM, time.Unix(0, 0))
	d.SetLayer(`a "q" & <b>`, &drawing.Layer{Name: `a "q" & <b>`, Color: 1, Linetype: "Continuous", On: true})
	d.SetLayer("off", &drawing.Layer{Name: "off", Color: 2, Linetype: "Continuous"})
	line := d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: drawing.Line{A: geom.Pt(0, 0), B: geom.Pt(10, 0)}})
	circle := d.Add(&drawing.Entity{Layer: `a "q" & <b>`, Color: 256, Linetype: "ByLayer", Geom: drawing.Circle{C: geom.Pt(5, 5), R: 2}})
	text := d.Add(&drawing.Entity{Layer: "0", Color: 3, Linetype: "ByLayer", Geom: drawing.Text{P: geom.Pt(1, 1), Height: 2, Text: "hi"}})
	d.Add(&drawing.Entity{Layer: "off", Color: 256, Linetype: "ByLayer", Geom: drawing.Line{A: geom.Pt(0, 0), B: geom.Pt(1, 1)}})

	want := map[string][2]string{ // handle → layer, type
		drawing.FormatHandle(line.Handle):   {"0", "line"},
		drawing.FormatHandle(circle.Handle): {`a "q" & <b>`, "circle"},
		drawing.FormatHandle(text.Handle):   {"0", "text"},
	}
	got := map[string][2]string{}
	dec := xml.NewDecoder(strings.NewReader(svg.Write(d)))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("svg.Write is not well-formed XML: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		a := map[string]string{}
		for _, at := range se.Attr {
			a[at.Name.Local] = at.Value
		}
		h, ok := a["data-handle"]
		if !ok {
			continue
		}
		if a["id"] != "e"+h {
			t.Errorf("element of handle %s: id = %q, want %q", h, a["id"], "e"+h)
		}
		got[h] = [2]string{a["data-layer"], a["data-type"]}
	}
	if len(got) != len(want) {
		t.Errorf("svg.Write drew %d elements with data-handle (%v), want %d (%v)", len(got), got, len(want), want)
	}
	for h, w := range want {
		if got[h] != w {
			t.Errorf("svg.Write: handle %s has data-layer, data-type = %q, want %q", h, got[h], w)
		}
	}
}
