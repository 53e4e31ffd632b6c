package engine

import (
	"cmp"
	"math"
	"slices"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Measuring many entities at once (DESIGN §11): the area of a polygon or
// of closed entities (analysis_measure_area), and what model space holds,
// by type and layer (analysis_entity_stats, analysis_layer_stats). One
// entity's measures are analysis_measure_entity's.

// curveLength is the length of a curve entity, a closed one's perimeter
// (a circle's circumference): lines, arcs, polylines, circles, ellipses
// and splines. Other entities (points, text, inserts, hatches…) have none.
func curveLength(g drawing.Geometry) (float64, bool) {
	switch g := g.(type) {
	case drawing.Line:
		return g.A.Dist(g.B), true
	case drawing.Arc:
		return g.Arc().Length(), true
	case drawing.Circle:
		return 2 * math.Pi * g.R, true
	case drawing.Polyline:
		return g.Length(), true
	case drawing.Ellipse:
		return g.Arc().Length(), true
	case drawing.Spline:
		return g.Length(), true
	}
	return 0, false
}

// closedArea is the area and perimeter of a closed entity, as
// analysis_measure_entity measures them: circles, closed polylines
// (bulges exact; one that crosses itself by the area it winds around),
// full ellipses, closed splines (by their polyline, within a millionth of
// their size) and hatches (islands out, every boundary in the perimeter).
func closedArea(g drawing.Geometry) (area, perimeter float64, ok bool) {
	switch g := g.(type) {
	case drawing.Circle:
		return math.Pi * g.R * g.R, 2 * math.Pi * g.R, true
	case drawing.Polyline:
		if g.Closed {
			return g.Area(), g.Length(), true
		}
	case drawing.Ellipse:
		if g.Full() {
			a := g.Major.Len()
			return math.Pi * a * a * g.Ratio, g.Arc().Length(), true
		}
	case drawing.Spline:
		if g.Closed {
			return polygonArea(g.Polyline()), g.Length(), true
		}
	case drawing.Hatch:
		for _, l := range g.Loops {
			for _, p := range l.Prims() {
				perimeter += primLength(p)
			}
		}
		return g.Area(), perimeter, true
	}
	return 0, 0, false
}

// measureArea measures the polygon through the points given, or adds up
// the closed entities given (each once, listed in the order given).
func measureArea(c *call, a *enginev1.AnalysisMeasureAreaArgs) (*enginev1.AnalysisMeasureAreaResult, error) {
	switch {
	case len(a.Points) > 0 && len(a.Handles) > 0:
		return nil, invalidArgs("/handles", reasonInvalid, "give points or handles, not both")
	case len(a.Points) > 0:
		if len(a.Points) < 3 {
			return nil, invalidArgs("/points", reasonOutOfRange, "a polygon needs at least 3 points")
		}
		p := geom.Polygon(vecs(a.Points))
		return &enginev1.AnalysisMeasureAreaResult{Area: p.Area(), Perimeter: p.Perimeter(), Items: []*enginev1.MeasuredArea{}}, nil
	case len(a.Handles) == 0:
		return nil, invalidArgs("", reasonMissing, "give the corners of a polygon (points) or closed entities (handles)")
	}
	res := &enginev1.AnalysisMeasureAreaResult{Items: []*enginev1.MeasuredArea{}}
	seen := map[uint64]bool{}
	for i, h := range a.Handles {
		e, err := c.Entity("/handles/"+string(appendInt(nil, i)), h)
		if err != nil {
			return nil, err
		}
		if seen[e.Handle] {
			continue
		}
		seen[e.Handle] = true
		area, per, ok := closedArea(e.Geom)
		if !ok {
			return nil, failed("entity %s is %s: it encloses no area (give closed polylines, circles, full ellipses, closed splines or hatches)", handleResult(e), openKind(e.Geom))
		}
		res.Area += area
		res.Perimeter += per
		res.Items = append(res.Items, &enginev1.MeasuredArea{Handle: handleResult(e), Area: area, Perimeter: per})
	}
	return res, nil
}

// openKind names what an entity without an area is.
func openKind(g drawing.Geometry) string {
	switch g := g.(type) {
	case drawing.Polyline:
		return "an open polyline"
	case drawing.Ellipse:
		return "an elliptical arc"
	case drawing.Spline:
		return "an open spline"
	default:
		return "a " + g.Kind().WireName()
	}
}

// tally counts entities by type.
type tally map[enginev1.EntityType]int64

// counts are the tally's, most first, ties by type.
func (t tally) counts() []*enginev1.EntityTypeCount {
	out := make([]*enginev1.EntityTypeCount, 0, len(t))
	for k, n := range t {
		out = append(out, &enginev1.EntityTypeCount{Type: k, Count: n})
	}
	slices.SortFunc(out, func(a, b *enginev1.EntityTypeCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Type, b.Type))
	})
	return out
}

// entityStats counts model space's entities by type and layer and adds
// up the length of its curves.
func entityStats(c *call, _ *enginev1.AnalysisEntityStatsArgs) (*enginev1.AnalysisEntityStatsResult, error) {
	res := &enginev1.AnalysisEntityStatsResult{}
	types, layers := tally{}, map[string]int64{}
	err := c.walk(false, func(e *drawing.Entity) error {
		res.Count++
		types[e.Geom.Kind()]++
		layers[e.Layer]++
		if l, ok := curveLength(e.Geom); ok {
			res.TotalLength += l
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.ByType = types.counts()
	res.ByLayer = make([]*enginev1.EntityLayerCount, 0, len(layers))
	for name, n := range layers {
		res.ByLayer = append(res.ByLayer, &enginev1.EntityLayerCount{Layer: name, Count: n})
	}
	slices.SortFunc(res.ByLayer, func(a, b *enginev1.EntityLayerCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Layer, b.Layer))
	})
	return res, nil
}

// layerStats describes every layer's model-space entities: how many, by
// type, their curves' length and their extents (text by its estimated
// box).
func layerStats(c *call, _ *enginev1.AnalysisLayerStatsArgs) (*enginev1.AnalysisLayerStatsResult, error) {
	type stats struct {
		pb    *enginev1.LayerStatsEntry
		types tally
		box   geom.Box
	}
	by := map[string]*stats{}
	res := &enginev1.AnalysisLayerStatsResult{}
	for _, l := range c.d.SortedLayers() {
		s := &stats{pb: &enginev1.LayerStatsEntry{Name: l.Name}, types: tally{}}
		by[l.Name] = s
		res.Layers = append(res.Layers, s.pb)
	}
	err := c.walk(false, func(e *drawing.Entity) error {
		s := by[e.Layer]
		if s == nil { // cannot happen: an entity's layer exists
			return nil
		}
		s.pb.Count++
		s.types[e.Geom.Kind()]++
		s.box.AddBox(e.Geom.Bounds())
		if l, ok := curveLength(e.Geom); ok {
			s.pb.Length += l
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, s := range by {
		s.pb.ByType = s.types.counts()
		if s.box.NonEmpty {
			s.pb.Extents = &enginev1.Window{MinX: s.box.Min.X, MinY: s.box.Min.Y, MaxX: s.box.Max.X, MaxY: s.box.Max.Y}
		}
	}
	slices.SortFunc(res.Layers, func(a, b *enginev1.LayerStatsEntry) int { return cmp.Compare(a.Name, b.Name) })
	return res, nil
}
