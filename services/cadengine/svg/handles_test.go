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

// dataAttr is, for each element of an export with data-handle, the value
// of its attribute name, and whether it has one.
func dataAttr(t *testing.T, out, name string) map[string]*string {
	t.Helper()
	got := map[string]*string{}
	dec := xml.NewDecoder(strings.NewReader(out))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return got
		}
		if err != nil {
			t.Fatalf("svg.Write is not well-formed XML: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		var h string
		var v *string
		for _, at := range se.Attr {
			switch at.Name.Local {
			case "data-handle":
				h = at.Value
			case name:
				v = &at.Value
			}
		}
		if h != "" {
			got[h] = v
		}
	}
}

// TestConstrainedAttributes checks that a constrained entity's element
// lists the ids of the constraints that name it (a ref or the dimension
// that shows one), ascending, each once, and that nothing else has the
// attribute; a document without constraints has none at all.
func TestConstrainedAttributes(t *testing.T) {
	d := drawing.NewDocument("doc-1", "constrained", enginev1.Units_UNITS_MM, time.Unix(0, 0))
	add := func(g drawing.Geometry) uint64 {
		return d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: g}).Handle
	}
	a := add(drawing.Line{A: geom.Pt(0, 0), B: geom.Pt(10, 0)})
	b := add(drawing.Line{A: geom.Pt(10, 0), B: geom.Pt(10, 5)})
	free := add(drawing.Circle{C: geom.Pt(5, 5), R: 2})
	dim := add(drawing.Line{A: geom.Pt(0, -3), B: geom.Pt(10, -3)}) // stands in for a driving dimension
	if out := svg.Write(d); strings.Contains(out, "data-constraints") {
		t.Fatalf("svg.Write of a document without constraints has data-constraints:\n%s", out)
	}
	var table *drawing.Constraints
	for _, c := range []drawing.Constraint{
		{Kind: drawing.KindHorizontal, Refs: []drawing.Ref{{Handle: a}}},
		{Kind: drawing.KindCoincident, Refs: []drawing.Ref{{Handle: a, Point: "end"}, {Handle: b, Point: "start"}}},
		{Kind: drawing.KindDistance, Refs: []drawing.Ref{{Handle: a, Point: "start"}, {Handle: a, Point: "end"}}, Value: 10, Dimension: dim},
		{Kind: drawing.KindVertical, Refs: []drawing.Ref{{Handle: b}}},
	} {
		table, _ = table.With(c)
	}
	d.SetConstraints(table)
	check := func(want map[uint64]string) {
		t.Helper()
		got := dataAttr(t, svg.Write(d), "data-constraints")
		for _, h := range []uint64{a, b, free, dim} {
			w, marked := want[h]
			g := got[drawing.FormatHandle(h)]
			switch {
			case !marked && g != nil:
				t.Errorf("entity %s: data-constraints = %q, want none", drawing.FormatHandle(h), *g)
			case marked && (g == nil || *g != w):
				t.Errorf("entity %s: data-constraints = %v, want %q", drawing.FormatHandle(h), g, w)
			}
		}
	}
	check(map[uint64]string{a: "1 2 3", b: "2 4", dim: "3"})
	d.SetConstraints(table.Without(2, 3))
	check(map[uint64]string{a: "1", b: "4"})
	d.SetConstraints(table.Without(1, 2, 3, 4))
	check(map[uint64]string{})
}
