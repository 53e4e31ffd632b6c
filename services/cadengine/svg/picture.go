package svg

import (
	"encoding/xml"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Drawing annotations (multi-line text, dimensions, hatches) from their
// pictures, and inserts from their placed entities.

// fillColor is the colour text and fills of e are drawn in: its own, or
// its layer's.
func fillColor(e *drawing.Entity, layerColor int32) string {
	if e.Color != 256 && e.Color != 0 {
		return aciRGB(e.Color)
	}
	return aciRGB(layerColor)
}

// pageColor is the page's colour: the background, and what masks (a
// wipeout's area) are filled with.
const pageColor = "#ffffff"

// svgPicture draws a picture as one group: masks in the page's colour
// first, then strokes as one path, fills as one path (even-odd, or
// non-zero as the picture says), dots as small circles and texts.
func svgPicture(b *strings.Builder, p drawing.Picture, id, style, fill string, stroke float64) {
	fmt.Fprintf(b, "<g%s%s>\n", id, style)
	for _, d := range p.Backdrops {
		c := pageColor
		if !d.Page {
			c = fmt.Sprintf("#%02x%02x%02x", d.Color[0], d.Color[1], d.Color[2])
		}
		fmt.Fprintf(b, "<path d=\"%s\" fill=\"%s\" stroke=\"none\"/>\n", outlines([][]geom.Vec{d.Outline}), c)
	}
	if len(p.Masks) > 0 {
		fmt.Fprintf(b, "<path d=\"%s\" fill=\"%s\" fill-rule=\"evenodd\" stroke=\"none\"/>\n", outlines(p.Masks), pageColor)
	}
	if len(p.Strokes) > 0 {
		var d strings.Builder
		strokePath(&d, p.Strokes)
		fmt.Fprintf(b, "<path d=\"%s\"/>\n", strings.TrimSpace(d.String()))
	}
	if len(p.Fills) > 0 {
		rule := "evenodd"
		if p.NonZero {
			rule = "nonzero"
		}
		d := outlines(p.Fills)
		paint := fill
		if p.Shade != nil {
			paint = svgShade(b, *p.Shade, d)
		}
		fmt.Fprintf(b, "<path d=\"%s\" fill=\"%s\" fill-rule=\"%s\" stroke=\"none\"/>\n", d, paint, rule)
	}
	for _, q := range p.Dots {
		fmt.Fprintf(b, "<circle cx=\"%s\" cy=\"%s\" r=\"%s\" fill=\"%s\" stroke=\"none\"/>\n", num(q.X), num(-q.Y), num(stroke), fill)
	}
	for _, t := range p.Texts {
		svgText(b, "", t, fill)
	}
	b.WriteString("</g>\n")
}

// svgDashes draws an entity's dashes as one path, each dot a stroke of no
// length, which the round caps draw as a dot as wide as a line.
func svgDashes(b *strings.Builder, p drawing.Picture, id, style string) {
	var d strings.Builder
	strokePath(&d, p.Strokes)
	for _, q := range p.Dots {
		d.WriteString("M " + pt(q) + " l 0 0 ")
	}
	fmt.Fprintf(b, "<path%s d=\"%s\"%s/>\n", id, strings.TrimSpace(d.String()), style)
}

// strokePath writes segments and arcs as the commands of one path (a
// full circle as two half arcs: one SVG arc cannot close on itself).
func strokePath(d *strings.Builder, strokes []any) {
	for _, s := range strokes {
		switch s := s.(type) {
		case geom.Segment:
			d.WriteString("M " + pt(s.A) + " L " + pt(s.B) + " ")
		case geom.Arc:
			if s.Full() {
				d.WriteString("M " + pt(s.At(0)) + " " + svgArcTo(s.R, s.R, 0, s.Sweep/2, true, s.At(s.Sweep/2)) + " " + svgArcTo(s.R, s.R, 0, s.Sweep/2, true, s.At(0)) + " ")
				continue
			}
			d.WriteString("M " + pt(s.At(s.Start)) + " " + svgArcTo(s.R, s.R, 0, s.Sweep, true, s.At(s.Start+s.Sweep)) + " ")
		}
	}
}

// textAnchor is SVG's text-anchor for each horizontal alignment.
var textAnchor = [...]string{drawing.AlignLeft: "", drawing.AlignCenter: ` text-anchor="middle"`, drawing.AlignRight: ` text-anchor="end"`}

// svgText draws a line of text at its insertion point as its alignment
// says, its capitals its height tall; one in a style or set between two
// points as styledText draws it.
func svgText(b *strings.Builder, id string, g drawing.Text, fill string) {
	if st := g.Setting(); !st.Plain() || st.Length > 0 {
		styledText(b, id, st, g.Text, fill)
		return
	}
	// The baseline through p, the text anchored at it by its alignment.
	p := g.P
	if _, above := g.Shift(); above != 0 {
		sin, cos := geom.SinCosDeg(g.Rotation)
		p = p.Add(geom.Pt(-sin, cos).Mul(above))
	}
	fmt.Fprintf(b, `<text%s x="%s" y="%s" font-size="%s" font-family="sans-serif"%s stroke="none" fill="%s"`, id, num(p.X), num(-p.Y), num(g.FontSize()), textAnchor[g.Align.H], fill)
	if g.Rotation != 0 {
		fmt.Fprintf(b, ` transform="rotate(%s %s %s)"`, num(-g.Rotation), num(p.X), num(-p.Y))
	}
	b.WriteString(">")
	xml.EscapeText(b, []byte(g.Text))
	b.WriteString("</text>\n")
}

// insert draws an insert on layer as a group of its placed entities (see
// drawing.Insert.PlacedFor), nested inserts within budget.
func (dr *drawer) insert(b *strings.Builder, layer string, placed []*drawing.Entity, id, style string) error {
	fmt.Fprintf(b, "<g%s%s>\n", id, style)
	for _, p := range placed {
		// The group strokes in the insert's colour; an entity of the
		// block on a layer of its own strokes in that layer's, and on a
		// sheet with that layer's lineweight.
		if p.Color == 256 {
			c := *p
			c.Color = dr.colorOf(p.Layer)
			p = &c
		}
		width := dr.factor > 0 && p.Layer != layer
		if width {
			w := dr.stroke
			if l := dr.doc.Layer(p.Layer); l != nil && l.Lineweight > 0 {
				w = float64(l.Lineweight) / 100 / dr.factor
			}
			fmt.Fprintf(b, "<g stroke-width=\"%s\">\n", num(w))
		}
		if err := dr.entity(b, p, ""); err != nil {
			return err
		}
		if width {
			b.WriteString("</g>\n")
		}
	}
	b.WriteString("</g>\n")
	return nil
}

// outlines is the SVG path of closed outlines.
func outlines(areas [][]geom.Vec) string {
	var d strings.Builder
	for _, f := range areas {
		for i, q := range f {
			if i == 0 {
				d.WriteString("M " + pt(q))
			} else {
				d.WriteString(" L " + pt(q))
			}
		}
		d.WriteString(" Z ")
	}
	return strings.TrimSpace(d.String())
}

// typefaceAttrs are the SVG font attributes of each bundled typeface: the
// generic family a viewer sets it in, and its weight or style.
var typefaceAttrs = [...]string{
	drawing.TypefaceRegular:  `font-family="sans-serif"`,
	drawing.TypefaceMono:     `font-family="monospace"`,
	drawing.TypefaceBold:     `font-family="sans-serif" font-weight="bold"`,
	drawing.TypefaceItalic:   `font-family="sans-serif" font-style="italic"`,
	drawing.TypefaceTrueType: `font-family="sans-serif"`,
}

// styledText draws a line of text set as st says: at the origin of a
// transform that puts its baseline through st.Anchor along st.Rotation,
// scales its glyphs across by st.XScale, slants them by st.Slant and
// mirrors them (SVG's y runs down, so the matrix maps the glyphs' (x, y)
// to (a x + c y + e, b x + d y + f)). A text set between two points is stretched to
// its length by the viewer (textLength), whatever font it sets it in.
func styledText(b *strings.Builder, id string, st drawing.Setting, text, fill string) {
	sx := st.XScale
	if st.Length > 0 {
		sx = 1
	}
	sin, cos := geom.SinCosDeg(st.Rotation)
	mx, my := st.MirrorX, st.MirrorY
	a, bb := mx*sx*cos, -mx*sx*sin
	c, d := my*sin-mx*st.Slant*cos, my*cos+mx*st.Slant*sin
	fmt.Fprintf(b, `<text%s x="0" y="0" font-size="%s" %s%s stroke="none" fill="%s" transform="matrix(%s %s %s %s %s %s)"`,
		id, num(st.FontSize()), typefaceAttrs[st.Typeface], textAnchor[st.H], fill, num(a), num(bb), num(c), num(d), num(st.Anchor.X), num(-st.Anchor.Y))
	if st.Length > 0 {
		fmt.Fprintf(b, ` textLength="%s" lengthAdjust="spacingAndGlyphs"`, num(st.Length))
	}
	b.WriteString(">")
	xml.EscapeText(b, []byte(text))
	b.WriteString("</text>\n")
}

// svgShade writes a gradient's definition, named after what it fills (the
// path d) so that every gradient of a document has its own name, and
// returns the paint that refers to it. Its points are in the drawing's
// coordinates (userSpaceOnUse), y flipped as every point of the export.
func svgShade(b *strings.Builder, s drawing.Shade, d string) string {
	h := fnv.New64a()
	h.Write([]byte(d))
	fmt.Fprintf(h, "%v", s)
	name := fmt.Sprintf("shade-%x", h.Sum64())
	if s.Radial {
		fmt.Fprintf(b, "<defs><radialGradient id=\"%s\" gradientUnits=\"userSpaceOnUse\" cx=\"%s\" cy=\"%s\" r=\"%s\">", name, num(s.From.X), num(-s.From.Y), num(s.To.Sub(s.From).Len()))
	} else {
		fmt.Fprintf(b, "<defs><linearGradient id=\"%s\" gradientUnits=\"userSpaceOnUse\" x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\">", name, num(s.From.X), num(-s.From.Y), num(s.To.X), num(-s.To.Y))
	}
	for _, st := range s.Stops {
		fmt.Fprintf(b, "<stop offset=\"%s\" stop-color=\"#%02x%02x%02x\"/>", num(st.Offset), st.Color[0], st.Color[1], st.Color[2])
	}
	if s.Radial {
		b.WriteString("</radialGradient></defs>\n")
	} else {
		b.WriteString("</linearGradient></defs>\n")
	}
	return "url(#" + name + ")"
}
