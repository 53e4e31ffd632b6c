package drawing

import "github.com/cadbridge/cadbridge/services/cadengine/geom"

// Picture is what an annotation entity draws, in world coordinates, for
// the renderers (SVG, PNG, PDF, the graphics of a DXF dimension): strokes
// (segments and arcs), filled areas (closed outlines, filled with the
// even-odd rule), masked areas (filled in the page's colour, hiding what
// was drawn before), dots and texts. Every renderer draws the same
// picture, so they agree.
type Picture struct {
	Strokes []any        // geom.Segment and geom.Arc
	Fills   [][]geom.Vec // closed outlines, filled together (even-odd)
	Masks   [][]geom.Vec // closed outlines, filled in the page's colour first
	Dots    []geom.Vec
	Texts   []Text
}

// Bounds is the picture's extents, texts by their estimated boxes.
func (p Picture) Bounds() geom.Box {
	b := geom.PrimBounds(p.Strokes)
	for _, areas := range [][][]geom.Vec{p.Fills, p.Masks} {
		for _, f := range areas {
			for _, q := range f {
				b.AddPoint(q)
			}
		}
	}
	for _, q := range p.Dots {
		b.AddPoint(q)
	}
	for _, t := range p.Texts {
		b.AddBox(t.Bounds())
	}
	return b
}

// Pictured is a geometry drawn as a Picture rather than by its primitives
// alone: multi-line text, dimensions, hatches, solids, leaders and
// wipeouts.
type Pictured interface {
	Geometry
	Picture() Picture
}
