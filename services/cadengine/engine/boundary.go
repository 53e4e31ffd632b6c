package engine

import (
	"errors"
	"strconv"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Boundaries around a point (boundary_trace, and hatch_create with a pick
// point): the lines, circles, arcs and polylines on the layers asked (or
// on every layer that is on and thawed) make a planar arrangement, and
// the smallest region around the point is the boundary (see
// geom.TraceBoundary).

// maxBoundaryCurves bounds the pieces a trace cuts against each other
// (the work grows with their square).
const maxBoundaryCurves = 20000

// traceAround traces the region around p from the curves on layers (all
// visible layers when empty); layersPath is the argument path of layers.
// It returns the boundary and the handles of the entities it lies on.
func (c *call) traceAround(p geom.Vec, layers []string, layersPath string) (geom.Boundary, []uint64, error) {
	only, bad := c.layerSet(layers)
	if bad >= 0 {
		return geom.Boundary{}, nil, invalidArgs(layersPath+"/"+strconv.Itoa(bad), reasonInvalid, "the document has no layer %q", layers[bad])
	}
	var (
		curves []any
		owners []uint64
		err    error
	)
	c.d.Each(0, func(e *drawing.Entity) bool {
		switch e.Geom.Kind() {
		case enginev1.EntityType_ENTITY_TYPE_LINE, enginev1.EntityType_ENTITY_TYPE_CIRCLE,
			enginev1.EntityType_ENTITY_TYPE_ARC, enginev1.EntityType_ENTITY_TYPE_POLYLINE:
		default:
			return true
		}
		if len(only) > 0 && !only[e.Layer] {
			return true
		}
		if l := c.d.Layer(e.Layer); len(only) == 0 && (l == nil || !l.On || l.Frozen) {
			return true
		}
		for _, pr := range e.Geom.Prims() {
			curves = append(curves, pr)
			owners = append(owners, e.Handle)
		}
		if len(curves) > maxBoundaryCurves {
			n, limit := int64(len(curves)), int64(maxBoundaryCurves)
			te := toolErr(enginev1.ErrorKind_ERROR_KIND_TOO_LARGE, "more than %d lines and arcs to trace a boundary among: name the layers that bound the region", maxBoundaryCurves)
			te.pb.Needed, te.pb.Limit = &n, &limit
			err = te
			return false
		}
		return c.ctx.Err() == nil
	})
	if err == nil {
		err = c.ctx.Err()
	}
	if err != nil {
		return geom.Boundary{}, nil, err
	}
	b, err := geom.TraceBoundary(curves, p)
	if errors.Is(err, geom.ErrNoBoundary) {
		return geom.Boundary{}, nil, failed("no closed region around (%g, %g): the lines, arcs, circles and polylines there leave it open; close the outline or pick a point inside one", p.X, p.Y)
	}
	if err != nil {
		return geom.Boundary{}, nil, failed("%v", err)
	}
	var edges []uint64
	for _, s := range b.Sources {
		if h := owners[s]; len(edges) == 0 || edges[len(edges)-1] != h {
			edges = append(edges, h)
		}
	}
	return b, uniqueSorted(edges), nil
}

// uniqueSorted is hs ascending, each once.
func uniqueSorted(hs []uint64) []uint64 {
	seen := map[uint64]bool{}
	out := hs[:0]
	for _, h := range hs {
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// boundaryTrace makes a closed polyline along the region around the point.
func boundaryTrace(c *call, a *enginev1.BoundaryTraceArgs) (*enginev1.BoundaryTraceResult, error) {
	b, edges, err := c.traceAround(geom.Pt(a.X, a.Y), a.Layers, "/layers")
	if err != nil {
		return nil, err
	}
	e, err := c.Create("", style{layer: a.Layer}, drawing.Polyline{Polyline: b.Outline})
	if err != nil {
		return nil, err
	}
	return &enginev1.BoundaryTraceResult{Handle: handleResult(e), Area: b.Outline.Area(), Edges: formatHandles(edges)}, nil
}

// pickedLoops are the hatch loops of the region around a pick point: its
// outline, then its islands.
func (c *call) pickedLoops(x, y float64) ([]drawing.Loop, error) {
	b, _, err := c.traceAround(geom.Pt(x, y), nil, "")
	if err != nil {
		return nil, err
	}
	loops := []drawing.Loop{{Poly: b.Outline}}
	for _, is := range b.Islands {
		loops = append(loops, drawing.Loop{Poly: is})
	}
	return loops, nil
}
