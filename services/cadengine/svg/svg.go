// Package svg draws a drawing as SVG, for people to look at: model
// space ([Write], [WriteWith]) or a paper-space layout plotted on its
// paper ([WriteLayout]).
package svg

import (
	"encoding/xml"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Write draws the document for people: one group per visible layer
// (layers that are off or frozen are left out), thin strokes in the ACI
// colours (7 drawn black on white), y flipped so that +Y is up, and a
// viewBox of the extents with a 2% margin. Curves are drawn with their
// linetypes' dashes (see drawing.Document.Dashed), a pattern finer than
// the stroke's width solid. Each entity's element carries its handle,
// layer and type, and the ids of the constraints that name it
// (entityAttrs).
func Write(d *drawing.Document) string {
	out, _ := WriteWith(d, nil, nil) // no budget: nothing to refuse
	return out
}

// WriteWith draws the document as Write does, plotted on a paper and at a
// scale when opts asks for them (see drawing.NewSheet): the SVG's width
// and height are then the paper's in millimetres, its viewBox the part of
// the world the paper shows, and strokes are drawn at their plotted
// widths (a layer's lineweight, 0.25 mm by default).
//
// Inserts are drawn within budget (nil: no limit): a drawing that would
// expand to more primitives than it allows is refused up front with a
// *drawing.TooLargeError, and a call whose context ends stops drawing with
// the context's error.
func WriteWith(d *drawing.Document, opts *enginev1.ExportOptions, budget *drawing.Budget) (string, error) {
	ents := d.Entities()
	visible := func(e *drawing.Entity) bool { // model space, on a layer shown
		l := d.Layer(e.Layer)
		return e.Layout == "" && l != nil && l.On && !l.Frozen
	}
	var ext geom.Box
	var shown []*drawing.Entity
	for _, e := range ents {
		if visible(e) {
			ext.AddBox(e.Geom.Bounds())
			shown = append(shown, e)
		}
	}
	if err := budget.Afford(drawing.CostOf(shown)); err != nil {
		return "", err
	}
	if !ext.NonEmpty {
		ext = geom.Box{Min: geom.Pt(0, 0), Max: geom.Pt(100, 100), NonEmpty: true}
	}
	sheet := drawing.NewSheet(ext, d.Units, opts.GetPaper(), opts.GetScale())
	w, h := ext.Max.X-ext.Min.X, ext.Max.Y-ext.Min.Y
	margin := math.Max(math.Max(w, h)*0.02, 1e-6*math.Max(1, ext.Max.Mag()))
	if w == 0 && h == 0 {
		margin = 1
	}
	vx, vy := ext.Min.X-margin, -(ext.Max.Y + margin)
	vw, vh := w+2*margin, h+2*margin
	if sheet.Fixed {
		lo, hi := sheet.World(geom.Vec{}), sheet.World(geom.Pt(sheet.Width, sheet.Height))
		vx, vy, vw, vh = lo.X, -hi.Y, hi.X-lo.X, hi.Y-lo.Y
	}

	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="%s %s %s %s"`, num(vx), num(vy), num(vw), num(vh))
	if sheet.Fixed {
		fmt.Fprintf(&b, ` width="%smm" height="%smm"`, num(sheet.Width), num(sheet.Height))
	} else if uw, ok := svgLength(vw, d.Units); ok {
		uh, _ := svgLength(vh, d.Units)
		fmt.Fprintf(&b, ` width="%s" height="%s"`, uw, uh)
	}
	b.WriteString(">\n")
	b.WriteString("<title>")
	xml.EscapeText(&b, []byte(d.Name))
	b.WriteString("</title>\n")
	fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n", num(vx), num(vy), num(vw), num(vh), pageColor)
	// Strokes are 0.2% of the larger side: about 2 px when the drawing is
	// shown 1000 px wide, whatever its units; on a sheet, 0.25 mm.
	stroke := math.Max(vw, vh) / 500
	if sheet.Fixed {
		stroke = 0.25 / sheet.Factor
	}
	fmt.Fprintf(&b, `<g fill="none" stroke-width="%s" stroke-linecap="round" stroke-linejoin="round">`+"\n", num(stroke))
	colorOf := func(layer string) int32 {
		if l := d.Layer(layer); l != nil {
			return l.Color
		}
		return 7
	}
	dr := &drawer{doc: d, colorOf: colorOf, stroke: stroke, budget: budget,
		view: geom.Box{Min: geom.Pt(vx, -(vy + vh)), Max: geom.Pt(vx+vw, -vy), NonEmpty: true}}
	factor := 0.0 // lineweights drawn only on a sheet
	if sheet.Fixed {
		factor = sheet.Factor
	}
	dr.factor = factor
	if err := dr.layers(&b, shown, "layer-", factor, namer(d)); err != nil {
		return "", err
	}
	b.WriteString("</g>\n</svg>\n")
	return b.String(), nil
}

// layers draws es as one group per layer, in the layers' order, each
// element named by attrs; a group's id is prefix and the layer's index.
// With factor above 0 (paper millimetres per unit) a layer's lineweight
// is its group's stroke width.
func (dr *drawer) layers(b *strings.Builder, es []*drawing.Entity, prefix string, factor float64, attrs func(*drawing.Entity) string) error {
	byLayer := map[string][]*drawing.Entity{}
	for _, e := range es {
		byLayer[e.Layer] = append(byLayer[e.Layer], e)
	}
	for i, l := range dr.doc.SortedLayers() {
		es := byLayer[l.Name]
		if len(es) == 0 {
			continue
		}
		width := ""
		if factor > 0 && l.Lineweight > 0 {
			width = fmt.Sprintf(` stroke-width="%s"`, num(float64(l.Lineweight)/100/factor))
		}
		fmt.Fprintf(b, `<g id="%s%d" data-layer="%s" stroke="%s"%s>`+"\n", prefix, i, attr(l.Name), aciRGB(l.Color), width)
		for _, e := range es {
			if err := dr.entity(b, e, attrs(e)); err != nil {
				return err
			}
		}
		b.WriteString("</g>\n")
	}
	return nil
}

// svgLength is a length in document units as an SVG length.
func svgLength(v float64, u enginev1.Units) (string, bool) {
	switch u {
	case enginev1.Units_UNITS_MM:
		return num(v) + "mm", true
	case enginev1.Units_UNITS_CM:
		return num(v) + "cm", true
	case enginev1.Units_UNITS_M:
		return num(v*1000) + "mm", true
	case enginev1.Units_UNITS_IN:
		return num(v) + "in", true
	case enginev1.Units_UNITS_FT:
		return num(v*12) + "in", true
	}
	return "", false
}

func num(f float64) string {
	if f == 0 {
		return "0"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// pt is a point in SVG coordinates (y flipped).
func pt(p geom.Vec) string { return num(p.X) + " " + num(-p.Y) }

func attr(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// drawer is what drawing an entity needs besides it: a layer's colour
// (which text and fills need), the stroke width, the budget inserts expand
// within, and the part of the world the SVG shows (what construction
// lines are drawn across).
type drawer struct {
	doc     *drawing.Document // what linetypes are drawn from
	colorOf func(layer string) int32
	stroke  float64
	budget  *drawing.Budget
	view    geom.Box
	// paper says the entities are on a layout's paper, where linetypes
	// are laid out in paper millimetres (see drawing.Document.DashedOnPaper).
	paper bool
	// factor, above 0 on a sheet, is paper millimetres per unit: strokes
	// are then the layers' lineweights.
	factor float64
}

// entity draws one entity with attrs naming its element ("" for none).
func (dr *drawer) entity(b *strings.Builder, e *drawing.Entity, attrs string) error {
	colorOf, stroke := dr.colorOf, dr.stroke
	layerColor := colorOf(e.Layer)
	style := ""
	if e.Color != 256 {
		style = fmt.Sprintf(` stroke="%s"`, aciRGB(e.Color))
	}
	id := "" // the element's naming attributes, with their space
	if attrs != "" {
		id = " " + attrs
	}
	dashed := dr.doc.Dashed
	if dr.paper {
		dashed = dr.doc.DashedOnPaper
	}
	if pic, ok, err := dashed(e, stroke, dr.budget); err != nil {
		return err
	} else if ok {
		svgDashes(b, pic, id, style)
		return nil
	}
	switch g := e.Geom.(type) {
	case drawing.Point:
		fmt.Fprintf(b, `<path%s d="M %s l 0 0"%s stroke-width="%s"/>`+"\n", id, pt(g.P), style, num(3*stroke))
	case drawing.Line:
		fmt.Fprintf(b, `<line%s x1="%s" y1="%s" x2="%s" y2="%s"%s/>`+"\n", id, num(g.A.X), num(-g.A.Y), num(g.B.X), num(-g.B.Y), style)
	case drawing.Circle:
		fmt.Fprintf(b, `<circle%s cx="%s" cy="%s" r="%s"%s/>`+"\n", id, num(g.C.X), num(-g.C.Y), num(g.R), style)
	case drawing.Arc:
		a := g.Arc()
		fmt.Fprintf(b, `<path%s d="M %s %s"%s/>`+"\n", id, pt(a.At(a.Start)), svgArcTo(a.R, a.R, 0, a.Sweep, true, a.At(a.Start+a.Sweep)), style)
	case drawing.Polyline:
		if g.Widths != nil {
			svgPicture(b, g.Picture(), id, style, fillColor(e, layerColor), stroke)
			return nil
		}
		var d strings.Builder
		if len(g.V) > 0 {
			d.WriteString("M " + pt(g.V[0].P))
		}
		for _, s := range g.Pieces() {
			switch p := s.Prim().(type) {
			case geom.Segment:
				d.WriteString(" L " + pt(p.B))
			case geom.Arc:
				d.WriteString(" " + svgArcTo(p.R, p.R, 0, p.Sweep, !p.Reversed, s.B))
			}
		}
		if g.Closed {
			d.WriteString(" Z")
		}
		fmt.Fprintf(b, `<path%s d="%s"%s/>`+"\n", id, d.String(), style)
	case drawing.Text:
		fill := aciRGB(layerColor)
		if e.Color != 256 {
			fill = aciRGB(e.Color)
		}
		svgText(b, id, g, fill)
	case drawing.Ellipse:
		a := g.Arc()
		rx, ry := g.Major.Len(), g.Major.Len()*g.Ratio
		rot := -geom.Deg(g.Major.Angle())
		if a.Full() {
			fmt.Fprintf(b, `<ellipse%s cx="%s" cy="%s" rx="%s" ry="%s" transform="rotate(%s %s %s)"%s/>`+"\n",
				id, num(g.C.X), num(-g.C.Y), num(rx), num(ry), num(rot), num(g.C.X), num(-g.C.Y), style)
			return nil
		}
		fmt.Fprintf(b, `<path%s d="M %s %s"%s/>`+"\n", id, pt(a.At(a.Start)), svgArcTo(rx, ry, rot, a.Sweep, true, a.At(a.Start+a.Sweep)), style)
	case drawing.Pictured:
		if pic := g.Picture(); !pic.Empty() { // a preserved ACIS body draws nothing
			svgPicture(b, pic, id, style, fillColor(e, layerColor), stroke)
		}
	case drawing.Insert:
		placed, err := dr.budget.PlacedFor(g, e)
		if err != nil {
			return err
		}
		return dr.insert(b, e.Layer, placed, id, style)
	case drawing.XLine:
		if s, ok := g.Clip(dr.view); ok {
			fmt.Fprintf(b, `<line%s x1="%s" y1="%s" x2="%s" y2="%s"%s/>`+"\n", id, num(s.A.X), num(-s.A.Y), num(s.B.X), num(-s.B.Y), style)
		}
	default:
		// A spline, an image's boundary, a preserved entity's outline:
		// the curves it is drawn as (none draws nothing).
		if prims := e.Geom.Prims(); len(prims) > 0 {
			svgPicture(b, drawing.Picture{Strokes: prims}, id, style, fillColor(e, layerColor), stroke)
		}
	}
	return nil
}

// svgArcTo is an SVG arc command to p. A counter-clockwise arc in world
// coordinates runs in SVG's negative-angle direction once y is flipped, so
// its sweep flag is 0.
func svgArcTo(rx, ry, rot, sweep float64, ccw bool, p geom.Vec) string {
	large, flag := 0, 1
	if sweep > math.Pi {
		large = 1
	}
	if ccw {
		flag = 0
	}
	return fmt.Sprintf("A %s %s %s %d %d %s", num(rx), num(ry), num(rot), large, flag, pt(p))
}

// aciRGB is the hex RGB colour of an AutoCAD Color Index (see
// drawing.ACIRGB).
func aciRGB(c int32) string {
	r, g, b := drawing.ACIRGB(c)
	return fmt.Sprintf("#%02x%02x%02x", r, g, b)
}

// entityAttrs are the attributes that name an entity's element: id
// "e<handle>", and data-handle, data-layer and data-type (the entity type's
// wire name), for pages and scripts that look entities up in the drawing;
// a constrained entity's also data-constraints, the ids of the constraints
// that name it (cons, see constraintIDs), so that the viewer marks it from
// the same export as its geometry.
func entityAttrs(e *drawing.Entity, cons map[uint64]string) string {
	s := fmt.Sprintf(`id="e%s" %s`, drawing.FormatHandle(e.Handle), entityData(e))
	if ids, ok := cons[e.Handle]; ok {
		s += ` data-constraints="` + ids + `"`
	}
	return s
}

// namer is entityAttrs over d's constraints.
func namer(d *drawing.Document) func(*drawing.Entity) string {
	cons := constraintIDs(d)
	return func(e *drawing.Entity) string { return entityAttrs(e, cons) }
}

// entityData are entityAttrs without the id and the constraints: for an
// entity drawn more than once (model space in each viewport of a layout).
func entityData(e *drawing.Entity) string {
	return fmt.Sprintf(`data-handle="%s" data-layer="%s" data-type="%s"`, drawing.FormatHandle(e.Handle), attr(e.Layer), e.Geom.Kind().WireName())
}

// constraintIDs maps each entity that constraints name (a ref, or the
// dimension that shows one, as drawing.Constraint.Names) to their ids,
// ascending and space-separated ("1 4 7"); nil for a document without
// constraints. One pass over the table.
func constraintIDs(d *drawing.Document) map[uint64]string {
	t := d.Constraints()
	if t.Len() == 0 {
		return nil
	}
	out := map[uint64]string{}
	for i := range t.List {
		c := &t.List[i]
		id := strconv.FormatInt(c.ID, 10)
		seen := make([]uint64, 0, len(c.Refs)+1)
		for _, r := range c.Refs {
			seen = appendOnce(seen, r.Handle)
		}
		if c.Dimension != 0 {
			seen = appendOnce(seen, c.Dimension)
		}
		for _, h := range seen {
			if ids, ok := out[h]; ok {
				out[h] = ids + " " + id
			} else {
				out[h] = id
			}
		}
	}
	return out
}

// appendOnce appends h to hs unless hs has it.
func appendOnce(hs []uint64, h uint64) []uint64 {
	if slices.Contains(hs, h) {
		return hs
	}
	return append(hs, h)
}
