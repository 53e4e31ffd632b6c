package drawing

import "github.com/cadbridge/cadbridge/services/cadengine/geom"

// Picture is what an annotation entity draws, in world coordinates, for
// the renderers (SVG, PNG, PDF, the graphics of a DXF dimension): strokes
// (segments and arcs), filled areas (closed outlines, filled with the
// even-odd rule, or by the non-zero rule when NonZero says so), dots and
// texts. Every renderer draws the same picture, so they agree.
type Picture struct {
	Strokes []any        // geom.Segment and geom.Arc
	Fills   [][]geom.Vec // closed outlines, filled together (even-odd, unless NonZero)
	// NonZero fills the Fills by the non-zero rule: outlines that all run
	// counter-clockwise and overlap stay filled where they overlap (the
	// outlines of a polyline with widths).
	NonZero bool
	Dots    []geom.Vec
	Texts   []Text
}

// Bounds is the picture's extents, texts by their estimated boxes.
func (p Picture) Bounds() geom.Box {
	b := geom.PrimBounds(p.Strokes)
	for _, f := range p.Fills {
		for _, q := range f {
			b.AddPoint(q)
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

// Empty reports whether the picture draws nothing.
func (p Picture) Empty() bool {
	return len(p.Strokes) == 0 && len(p.Fills) == 0 && len(p.Dots) == 0 && len(p.Texts) == 0
}

// Pictured is a geometry drawn as a Picture rather than by its primitives
// alone: multi-line text, dimensions, hatches, solids, leaders,
// polylines (which have widths) and preserved entities (which may fill).
type Pictured interface {
	Geometry
	Picture() Picture
}
