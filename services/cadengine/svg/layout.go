package svg

import (
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// WriteLayout plots the layout named name 1:1 on its paper (see
// drawing.Document.PlotLayout): the SVG's width and height are the
// paper's in millimetres and its viewBox the paper in millimetres (y
// flipped, as Write draws: the paper's lower-left corner is 0 0, its
// upper edge at y −Height), so a length measured in its coordinates is
// millimetres of paper. Each viewport's window on model space is a group
// clipped to its frame (a clipPath "vp-<handle>"), drawn first; the
// layout's own entities are drawn over them. Strokes are the layers'
// lineweights (0.25 mm by default) and linetypes are laid out on paper
// (see drawing.Document.DashedOnPaper). A model entity's elements carry
// its data attributes but no id (a viewport beside another shows it
// again); a paper entity's its id, as Write's.
//
// A layout the document does not have fails with drawing.ErrNoLayout;
// inserts are drawn within budget, as WriteWith draws them.
func WriteLayout(d *drawing.Document, name string, budget *drawing.Budget) (string, error) {
	p, err := d.PlotLayout(name, budget)
	if err != nil {
		return "", err
	}
	w, h := p.Layout.Width, p.Layout.Height
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 %s %s %s" width="%smm" height="%smm" data-layout="%s">`+"\n",
		num(-h), num(w), num(h), num(w), num(h), attr(p.Layout.Name))
	b.WriteString("<title>")
	xml.EscapeText(&b, []byte(d.Name+" — "+p.Layout.Name))
	b.WriteString("</title>\n")
	if len(p.Views) > 0 {
		b.WriteString("<defs>\n")
		for _, v := range p.Views {
			f := v.Frame
			fmt.Fprintf(&b, `<clipPath id="vp-%s"><rect x="%s" y="%s" width="%s" height="%s"/></clipPath>`+"\n",
				drawing.FormatHandle(v.Handle), num(f.Min.X), num(-f.Max.Y), num(f.Max.X-f.Min.X), num(f.Max.Y-f.Min.Y))
		}
		b.WriteString("</defs>\n")
	}
	fmt.Fprintf(&b, `<rect x="0" y="%s" width="%s" height="%s" fill="%s"/>`+"\n", num(-h), num(w), num(h), pageColor)
	fmt.Fprintf(&b, `<g fill="none" stroke-width="%s" stroke-linecap="round" stroke-linejoin="round">`+"\n", num(paperStroke))
	colorOf := func(layer string) int32 {
		if l := d.Layer(layer); l != nil {
			return l.Color
		}
		return 7
	}
	for _, v := range p.Views {
		hv := drawing.FormatHandle(v.Handle)
		fmt.Fprintf(&b, `<g id="viewport-%s" data-viewport="%s" clip-path="url(#vp-%s)">`+"\n", hv, hv, hv)
		dr := &drawer{doc: d, colorOf: colorOf, stroke: paperStroke, budget: budget, view: v.Frame, paper: true, factor: 1}
		if err := dr.layers(&b, v.Entities, "vp-"+hv+"-layer-", 1, entityData); err != nil {
			return "", err
		}
		b.WriteString("</g>\n")
	}
	dr := &drawer{doc: d, colorOf: colorOf, stroke: paperStroke, budget: budget, paper: true, factor: 1,
		view: geom.Box{Min: geom.Pt(0, 0), Max: geom.Pt(w, h), NonEmpty: true}}
	if err := dr.layers(&b, p.Paper, "layer-", 1, namer(d)); err != nil {
		return "", err
	}
	b.WriteString("</g>\n</svg>\n")
	return b.String(), nil
}

// paperStroke is the stroke, in paper millimetres, of a layer of default
// lineweight on a plotted layout.
const paperStroke = 0.25
