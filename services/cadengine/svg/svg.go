// Package svg draws a drawing as SVG, for people to look at.
package svg

import (
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Write draws the document for people: one group per visible layer
// (layers that are off or frozen are left out), thin strokes in the ACI
// colours (7 drawn black on white), y flipped so that +Y is up, and a
// viewBox of the extents with a 2% margin. Linetypes are not drawn. Each
// entity's element carries its handle, layer and type (entityAttrs).
func Write(d *drawing.Document) string {
	ents := d.Entities()
	visible := func(e *drawing.Entity) bool {
		l := d.Layer(e.Layer)
		return l != nil && l.On && !l.Frozen
	}
	var ext geom.Box
	for _, e := range ents {
		if visible(e) {
			ext.AddBox(e.Geom.Bounds())
		}
	}
	if !ext.NonEmpty {
		ext = geom.Box{Min: geom.Pt(0, 0), Max: geom.Pt(100, 100), NonEmpty: true}
	}
	w, h := ext.Max.X-ext.Min.X, ext.Max.Y-ext.Min.Y
	margin := math.Max(math.Max(w, h)*0.02, 1e-6*math.Max(1, ext.Max.Mag()))
	if w == 0 && h == 0 {
		margin = 1
	}
	vx, vy := ext.Min.X-margin, -(ext.Max.Y + margin)
	vw, vh := w+2*margin, h+2*margin

	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="%s %s %s %s"`, num(vx), num(vy), num(vw), num(vh))
	if uw, ok := svgLength(vw, d.Units); ok {
		uh, _ := svgLength(vh, d.Units)
		fmt.Fprintf(&b, ` width="%s" height="%s"`, uw, uh)
	}
	b.WriteString(">\n")
	b.WriteString("<title>")
	xml.EscapeText(&b, []byte(d.Name))
	b.WriteString("</title>\n")
	fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" fill="#ffffff"/>`+"\n", num(vx), num(vy), num(vw), num(vh))
	// Strokes are 0.2% of the larger side: about 2 px when the drawing is
	// shown 1000 px wide, whatever its units.
	stroke := math.Max(vw, vh) / 500
	fmt.Fprintf(&b, `<g fill="none" stroke-width="%s" stroke-linecap="round" stroke-linejoin="round">`+"\n", num(stroke))
	byLayer := map[string][]*drawing.Entity{}
	for _, e := range ents {
		if visible(e) {
			byLayer[e.Layer] = append(byLayer[e.Layer], e)
		}
	}
	for i, l := range d.SortedLayers() {
		es := byLayer[l.Name]
		if len(es) == 0 {
			continue
		}
		fmt.Fprintf(&b, `<g id="layer-%d" data-layer="%s" stroke="%s">`+"\n", i, attr(l.Name), aciRGB(l.Color))
		for _, e := range es {
			svgEntity(&b, e, l.Color, stroke)
		}
		b.WriteString("</g>\n")
	}
	b.WriteString("</g>\n</svg>\n")
	return b.String()
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

// svgEntity draws one entity; layerColor is its layer's colour, which text
// needs for its fill.
func svgEntity(b *strings.Builder, e *drawing.Entity, layerColor int32, stroke float64) {
	style := ""
	if e.Color != 256 {
		style = fmt.Sprintf(` stroke="%s"`, aciRGB(e.Color))
	}
	attrs := entityAttrs(e)
	switch g := e.Geom.(type) {
	case drawing.Point:
		fmt.Fprintf(b, `<path %s d="M %s l 0 0"%s stroke-width="%s"/>`+"\n", attrs, pt(g.P), style, num(3*stroke))
	case drawing.Line:
		fmt.Fprintf(b, `<line %s x1="%s" y1="%s" x2="%s" y2="%s"%s/>`+"\n", attrs, num(g.A.X), num(-g.A.Y), num(g.B.X), num(-g.B.Y), style)
	case drawing.Circle:
		fmt.Fprintf(b, `<circle %s cx="%s" cy="%s" r="%s"%s/>`+"\n", attrs, num(g.C.X), num(-g.C.Y), num(g.R), style)
	case drawing.Arc:
		a := g.Arc()
		fmt.Fprintf(b, `<path %s d="M %s %s"%s/>`+"\n", attrs, pt(a.At(a.Start)), svgArcTo(a.R, a.R, 0, a.Sweep, true, a.At(a.Start+a.Sweep)), style)
	case drawing.Polyline:
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
		fmt.Fprintf(b, `<path %s d="%s"%s/>`+"\n", attrs, d.String(), style)
	case drawing.Text:
		fill := aciRGB(layerColor)
		if e.Color != 256 {
			fill = aciRGB(e.Color)
		}
		fmt.Fprintf(b, `<text %s x="%s" y="%s" font-size="%s" font-family="sans-serif" stroke="none" fill="%s"`, attrs, num(g.P.X), num(-g.P.Y), num(g.Height), fill)
		if g.Rotation != 0 {
			fmt.Fprintf(b, ` transform="rotate(%s %s %s)"`, num(-g.Rotation), num(g.P.X), num(-g.P.Y))
		}
		b.WriteString(">")
		xml.EscapeText(b, []byte(g.Text))
		b.WriteString("</text>\n")
	case drawing.Ellipse:
		a := g.Arc()
		rx, ry := g.Major.Len(), g.Major.Len()*g.Ratio
		rot := -geom.Deg(g.Major.Angle())
		if a.Full() {
			fmt.Fprintf(b, `<ellipse %s cx="%s" cy="%s" rx="%s" ry="%s" transform="rotate(%s %s %s)"%s/>`+"\n",
				attrs, num(g.C.X), num(-g.C.Y), num(rx), num(ry), num(rot), num(g.C.X), num(-g.C.Y), style)
			return
		}
		fmt.Fprintf(b, `<path %s d="M %s %s"%s/>`+"\n", attrs, pt(a.At(a.Start)), svgArcTo(rx, ry, rot, a.Sweep, true, a.At(a.Start+a.Sweep)), style)
	}
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

// aciRGB is an approximate RGB colour of an AutoCAD Color Index: the nine
// standard colours exactly (7 as black, for a white page), 10–249 from
// the ACI hue wheel, 250–255 greys. 0 (by block) is drawn black.
func aciRGB(c int32) string {
	switch c {
	case 1:
		return "#ff0000"
	case 2:
		return "#ffff00"
	case 3:
		return "#00ff00"
	case 4:
		return "#00ffff"
	case 5:
		return "#0000ff"
	case 6:
		return "#ff00ff"
	case 8:
		return "#808080"
	case 9:
		return "#c0c0c0"
	case 250, 251, 252, 253, 254, 255:
		g := []int{0x33, 0x50, 0x69, 0x82, 0xbe, 0xff}[c-250]
		return fmt.Sprintf("#%02x%02x%02x", g, g, g)
	}
	if c < 10 || c > 249 {
		return "#000000"
	}
	hue := float64(c/10-1) * 15
	value := []float64{1, 0.8, 0.6, 0.5, 0.3}[(c%10)/2]
	sat := 1.0
	if c%2 == 1 {
		sat = 0.5
	}
	r, g, bl := hsv(hue, sat, value)
	return fmt.Sprintf("#%02x%02x%02x", r, g, bl)
}

func hsv(h, s, v float64) (int, int, int) {
	c := v * s
	x := c * (1 - math.Abs(math.Mod(h/60, 2)-1))
	m := v - c
	var r, g, b float64
	switch {
	case h < 60:
		r, g, b = c, x, 0
	case h < 120:
		r, g, b = x, c, 0
	case h < 180:
		r, g, b = 0, c, x
	case h < 240:
		r, g, b = 0, x, c
	case h < 300:
		r, g, b = x, 0, c
	default:
		r, g, b = c, 0, x
	}
	to := func(f float64) int { return int(math.Round((f + m) * 255)) }
	return to(r), to(g), to(b)
}

// entityAttrs are the attributes that name an entity's element: id
// "e<handle>", and data-handle, data-layer and data-type (the entity type's
// wire name), for pages and scripts that look entities up in the drawing.
func entityAttrs(e *drawing.Entity) string {
	h := drawing.FormatHandle(e.Handle)
	return fmt.Sprintf(`id="e%s" data-handle="%s" data-layer="%s" data-type="%s"`, h, h, attr(e.Layer), drawing.TypeName(e.Geom.Kind()))
}
