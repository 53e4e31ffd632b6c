package engine

import (
	"math"
	"slices"
	"strconv"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// The checks of drawing_critique. Each is a method of critic that adds
// to its findings; none is worse than about n log n in the entities it
// looks at: ends are matched through a grid of cells the gap tolerance
// wide, duplicates through a map of shape keys, texts against texts and
// curves through grids of boxes (see geom.Grid).

// critic is one critique: the snapshot it looks at and what it found.
type critic struct {
	c      *call
	layout *string           // the one layout looked at; nil for every space
	ents   []*drawing.Entity // the entities looked at, in handle order
	model  []*drawing.Entity // model space's entities, in handle order
	size   float64           // the larger side of the looked-at extents (at least 1)
	eps    float64           // points nearer are the same point (see newCritic)
	tol    float64           // gaps shorter are reported
	curves *curveIndex       // built on first use
	found  []finding
	n      int // entities looked at so far, for the context's checks
	// budget is spent one for each pair of things compared (an end and
	// an end, a text and a curve…): drawings made to put thousands in
	// one spot end in too_large rather than hold the engine.
	budget *drawing.Budget
	err    error // the budget's failure, which ends the critique
}

// newCritic takes the entities of the space asked for: those of layout
// (which must exist: an entity must be on it, or it must have a paper;
// "" is model space), or of every space when layout is nil. The default gap tolerance is a
// thousandth of the drawing's size.
func newCritic(c *call, layout *string, tol *float64) (*critic, error) {
	k := &critic{c: c, layout: layout, budget: c.budget()}
	var err error
	c.d.Each(0, func(e *drawing.Entity) bool {
		if err = k.tick(); err != nil {
			return false
		}
		if e.Layout == "" {
			k.model = append(k.model, e)
		}
		if layout == nil || e.Layout == *layout {
			k.ents = append(k.ents, e)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if layout != nil && *layout != "" && len(k.ents) == 0 {
		if _, _, ok := k.paperOf(*layout); !ok {
			return nil, failed("the document has no layout named %q (no entity is on it)", *layout)
		}
	}
	var box geom.Box
	for _, e := range k.ents {
		if b := e.Geom.Bounds(); b.NonEmpty && b.Min.Finite() && b.Max.Finite() {
			box.AddBox(b)
		}
	}
	k.size = math.Max(1, boxSide(box))
	k.eps = geom.Tol(k.size, math.Max(box.Min.Mag(), box.Max.Mag()))
	k.tol = k.size / 1000
	if tol != nil {
		k.tol = *tol
	}
	return k, nil
}

// tick checks the call's context every walkEvery entities, and returns
// the budget's failure if it failed.
func (k *critic) tick() error {
	if k.err != nil {
		return k.err
	}
	if k.n++; k.n%walkEvery == 0 {
		return k.c.ctx.Err()
	}
	return nil
}

func (k *critic) add(f finding) { k.found = append(k.found, f) }

// spend takes one comparison from the budget, and reports whether there
// was one (else k.err says why not).
func (k *critic) spend() bool {
	if k.err == nil {
		k.err = k.budget.Spend(1)
	}
	return k.err == nil
}

// paperOf is the size of a layout's paper, in millimetres (the units of
// paper space), and whether the document's layout table has it.
func (k *critic) paperOf(layout string) (w, h float64, ok bool) {
	l, ok := k.c.d.Layout(layout)
	return l.Width, l.Height, ok
}

// ---- geometry ----

// zeroLength finds lines, arcs and polylines of no length and circles
// and arcs of no radius: errors, repaired by deleting them.
func (k *critic) zeroLength() error {
	for _, e := range k.ents {
		if err := k.tick(); err != nil {
			return err
		}
		if k.degenerate(e) {
			_, why := faultOf(e, k.size)
			k.add(finding{code: codeZeroLength, severity: severityError, message: why, handles: []uint64{e.Handle}, fix: k.deleteFix(e.Handle)})
		}
	}
	return nil
}

// degenerate reports whether e is a curve of no length (see faultOf).
func (k *critic) degenerate(e *drawing.Entity) bool {
	kind, _ := faultOf(e, k.size)
	_, arc := e.Geom.(drawing.Arc)
	return kind == findingZeroLength || kind == findingDegenerate && arc
}

// duplicates finds entities drawn on others: the same type, layer, layout
// and geometry (a line or open polyline either way round; colour and
// linetype aside). The later handle is the duplicate, repaired by
// deleting it.
func (k *critic) duplicates() error {
	first := make(map[[32]byte]uint64, len(k.ents))
	for _, e := range k.ents {
		if err := k.tick(); err != nil {
			return err
		}
		if _, ok := e.Geom.(drawing.Viewport); ok {
			continue
		}
		key := e.ShapeKey()
		h, ok := first[key]
		if !ok {
			first[key] = e.Handle
			continue
		}
		k.add(finding{
			code: codeDuplicate, severity: severityError,
			message: "a " + e.Geom.Kind().WireName() + " drawn on " + drawing.FormatHandle(h) + " (the same geometry on layer " + e.Layer + ")",
			handles: []uint64{e.Handle, h}, fix: k.deleteFix(e.Handle),
		})
	}
	return nil
}

// curveEnd is an end of an open curve: entity ents[i]'s start (last
// false) or end.
type curveEnd struct {
	p    geom.Vec
	i    int
	last bool
}

// openEnds are the ends of g when it is an open curve of some length.
func openEnds(g drawing.Geometry) []geom.Vec {
	switch g := g.(type) {
	case drawing.Line:
		return []geom.Vec{g.A, g.B}
	case drawing.Arc:
		a := g.Arc()
		return []geom.Vec{a.First(), a.Last()}
	case drawing.Polyline:
		if !g.Closed && len(g.V) >= 2 {
			return []geom.Vec{g.V[0].P, g.V[len(g.V)-1].P}
		}
	case drawing.Ellipse:
		if !g.Full() {
			a := g.Arc()
			return []geom.Vec{a.At(a.Start), a.At(a.Start + a.Sweep)}
		}
	case drawing.Spline:
		if e := g.Ends(); len(e) == 2 {
			return e
		}
	}
	return nil
}

// gaps finds ends of open curves that almost meet another's end: further
// apart than the same point and nearer than the tolerance, where the end
// meets no other end and lies on no other curve. Repaired by moving the
// end of a line or polyline onto the other (the later handle's, when
// both can move).
func (k *critic) gaps() error {
	var ends []curveEnd
	grid := geom.NewGrid(k.tol)
	for i, e := range k.ents {
		if k.degenerate(e) {
			continue
		}
		for j, p := range openEnds(e.Geom) {
			ends = append(ends, curveEnd{p: p, i: i, last: j == 1})
			grid.Add(geom.Box{Min: p, Max: p, NonEmpty: true})
		}
	}
	seen := map[[2]int]bool{}
	var gaps []gap
	for a, x := range ends {
		if err := k.tick(); err != nil {
			return err
		}
		near, nd, joined := -1, math.Inf(1), false
		grid.Near(pointBox(x.p, k.tol), func(b int) bool {
			if !k.spend() {
				return false
			}
			y := ends[b]
			if b == a || k.ents[y.i].Layout != k.ents[x.i].Layout {
				return true
			}
			d := x.p.Dist(y.p)
			if d <= k.eps {
				joined = true
				return false
			}
			if y.i == x.i && !selfGap(k.ents[x.i].Geom) {
				return true
			}
			if d < k.tol && (d < nd || d == nd && b < near) {
				near, nd = b, d
			}
			return true
		})
		if joined || near < 0 || seen[[2]int{min(a, near), max(a, near)}] || k.onCurve(x.p, x.i) {
			continue
		}
		seen[[2]int{min(a, near), max(a, near)}] = true
		gaps = append(gaps, orient(k, x, ends[near], nd))
	}
	// Every end a fix moves, by entity: the fixes of two gaps at the two
	// ends of one polyline each move both, so that either order of
	// running them, or running one, leaves no end moved back.
	moves := map[int]map[bool]geom.Vec{}
	for _, g := range gaps {
		if movable(k.ents[g.x.i].Geom) {
			if moves[g.x.i] == nil {
				moves[g.x.i] = map[bool]geom.Vec{}
			}
			moves[g.x.i][g.x.last] = g.y.p
		}
	}
	for _, g := range gaps {
		k.add(k.gapFinding(g, moves[g.x.i]))
	}
	return nil
}

// gap is two ends d apart; x is the one to move (see orient).
type gap struct {
	x, y curveEnd
	d    float64
}

// orient is the gap between ends x and y with the end to move first:
// a line's or polyline's, the later handle's when both are.
func orient(k *critic, x, y curveEnd, d float64) gap {
	ex, ey := k.ents[x.i], k.ents[y.i]
	if movable(ey.Geom) && (!movable(ex.Geom) || ey.Handle > ex.Handle) {
		x, y = y, x
	}
	return gap{x: x, y: y, d: d}
}

// selfGap reports whether the two ends of g may almost meet as a gap: a
// polyline of three or more vertices left open at its start.
func selfGap(g drawing.Geometry) bool {
	p, ok := g.(drawing.Polyline)
	return ok && len(p.V) >= 3
}

// gapFinding is the finding of gap g, its fix moving the ends of g.x's
// entity that moves says (ends to their new points).
func (k *critic) gapFinding(g gap, moves map[bool]geom.Vec) finding {
	ex, ey := k.ents[g.x.i], k.ents[g.y.i]
	f := finding{
		code: codeGap, severity: severityWarning,
		message: "the " + endName(g.x.last) + " of " + drawing.FormatHandle(ex.Handle) + " stops " + num(g.d) + " short of the " + endName(g.y.last) + " of " + drawing.FormatHandle(ey.Handle),
		handles: []uint64{ex.Handle, ey.Handle},
	}
	if ex == ey {
		f.handles = f.handles[:1]
	}
	if len(moves) == 0 {
		return f
	}
	args := map[string]any{"handle": drawing.FormatHandle(ex.Handle)}
	switch geo := ex.Geom.(type) {
	case drawing.Line:
		for last, p := range moves {
			args[endName(last)] = map[string]any{"x": p.X, "y": p.Y}
		}
	case drawing.Polyline:
		pts := make([]map[string]any, len(geo.V))
		for i, v := range geo.V {
			pts[i] = map[string]any{"x": v.P.X, "y": v.P.Y}
			if v.Bulge != 0 {
				pts[i]["bulge"] = v.Bulge
			}
		}
		for last, p := range moves {
			n := 0
			if last {
				n = len(pts) - 1
			}
			pts[n]["x"], pts[n]["y"] = p.X, p.Y
		}
		args["points"] = pts
	}
	f.fix = k.fixCall(enginev1.ToolEntityEditGeometry, args)
	return f
}

// movable reports whether a gap's fix can move an end of g.
func movable(g drawing.Geometry) bool {
	switch g := g.(type) {
	case drawing.Line:
		return true
	case drawing.Polyline:
		return g.Widths == nil
	}
	return false
}

func endName(last bool) string {
	if last {
		return "end"
	}
	return "start"
}

// pointBox is the square of half-side r about p.
func pointBox(p geom.Vec, r float64) geom.Box {
	return geom.Box{Min: p.Sub(geom.Pt(r, r)), Max: p.Add(geom.Pt(r, r)), NonEmpty: true}
}

// curveIndex files the pieces of the curves looked at (lines, arcs,
// circles, polylines, ellipses, splines) by their boxes.
type curveIndex struct {
	grid  *geom.Grid
	prims []any
	owner []int // the index in ents of each prim's entity
}

// curveIndex builds the index on first use: cells about four times the
// side of the square each piece would have if they tiled the drawing.
func (k *critic) curveIndex() *curveIndex {
	if k.curves != nil {
		return k.curves
	}
	x := &curveIndex{}
	for i, e := range k.ents {
		switch e.Geom.(type) {
		case drawing.Line, drawing.Arc, drawing.Circle, drawing.Polyline, drawing.Ellipse, drawing.Spline:
			for _, p := range e.Geom.Prims() {
				x.prims = append(x.prims, p)
				x.owner = append(x.owner, i)
			}
		}
	}
	x.grid = geom.NewGrid(math.Max(k.tol, 4*k.size/math.Sqrt(float64(max(1, len(x.prims))))))
	for _, p := range x.prims {
		x.grid.Add(geom.PrimBounds([]any{p}))
	}
	k.curves = x
	return x
}

// onCurve reports whether p lies on a curve of the looked-at entities
// other than ents[skip], in ents[skip]'s space.
func (k *critic) onCurve(p geom.Vec, skip int) bool { return k.onCurveWithin(p, skip, k.eps) }

// onCurveWithin reports whether p lies within r of a curve of the
// looked-at entities other than ents[skip], in ents[skip]'s space.
func (k *critic) onCurveWithin(p geom.Vec, skip int, r float64) bool {
	x := k.curveIndex()
	layout := k.ents[skip].Layout
	on := false
	x.grid.Near(pointBox(p, r), func(id int) bool {
		if !k.spend() {
			return false
		}
		o := x.owner[id]
		if o == skip || k.ents[o].Layout != layout {
			return true
		}
		on = geom.PrimDistance(x.prims[id], p) <= r
		return !on
	})
	return on
}

// hatchBoundaries finds hatches whose profile is open. The model keeps
// every loop of a hatch closed, so a boundary that was open where it came
// from shows as a loop that encloses no area, or as loops that cross
// themselves or each other (errors: the hatch has no inside); and a hatch
// whose outline was drawn and then opened (broken, trimmed, a vertex
// moved) shows as a loop some of whose points lie on the drawn curves and
// some on none (warnings: the profile under the hatch is open there). A
// hatch none of whose boundary is drawn is a free fill, not a mistake.
// No tool repairs them but drawing the profile or the hatch again.
func (k *critic) hatchBoundaries() error {
	for i, e := range k.ents {
		if err := k.tick(); err != nil {
			return err
		}
		g, ok := e.Geom.(drawing.Hatch)
		if !ok {
			continue
		}
		sev, why := severityError, ""
		for j, l := range g.Loops {
			if !(math.Abs(l.Area()) > k.eps*math.Max(k.eps, boxSide(l.Bounds()))) {
				why = "boundary " + strconv.Itoa(j) + " of the hatch encloses no area: it does not close around anything"
				break
			}
		}
		if why == "" {
			if err := drawing.CheckLoops(g.Loops); err != nil {
				why = "the hatch's " + err.Error() + ": its inside is not closed off"
			}
		}
		if why == "" {
			sev, why = severityWarning, k.openProfile(g, i)
		}
		if why != "" {
			k.add(finding{code: codeOpenHatch, severity: sev, message: why, handles: []uint64{e.Handle}})
		}
	}
	return nil
}

// openProfile says where the curves drawn along hatch g's boundary leave
// it open: the first of the points along its loops (each piece's ends,
// quarters and middle) that lies on no curve, when others do; "" when
// every point lies on a curve, or none does.
func (k *critic) openProfile(g drawing.Hatch, self int) string {
	r := math.Max(k.eps, 1e-6*k.size)
	on, off := 0, []geom.Vec(nil)
	for _, l := range g.Loops {
		for _, p := range l.Prims() {
			for _, t := range []float64{0, 0.25, 0.5, 0.75} {
				q, ok := primPoint(p, t)
				if !ok {
					continue
				}
				if k.onCurveWithin(q, self, r) {
					on++
				} else {
					off = append(off, q)
				}
			}
		}
	}
	if on == 0 || len(off) == 0 {
		return ""
	}
	return "the profile under the hatch is open: no curve draws its boundary at (" + num(off[0].X) + ", " + num(off[0].Y) + ")"
}

// primPoint is the point a share t along a segment, arc or elliptical arc.
func primPoint(p any, t float64) (geom.Vec, bool) {
	switch p := p.(type) {
	case geom.Segment:
		return p.A.Add(p.B.Sub(p.A).Mul(t)), true
	case geom.Arc:
		return p.At(p.Start + p.Sweep*t), true
	case geom.EllipseArc:
		return p.At(p.Start + p.Sweep*t), true
	}
	return geom.Vec{}, false
}

func boxSide(b geom.Box) float64 { return math.Max(b.Max.X-b.Min.X, b.Max.Y-b.Min.Y) }

// ---- annotation ----

// dimensions finds dimensions that measure nothing (a zero distance,
// radius or angle: errors, repaired by deleting them), dimensions bound
// to entities the drawing no longer has (errors), and model-space linear,
// radial and diametric dimensions bound to nothing whose measured points
// lie on no curve and at no curve's end (warnings: they measure nothing
// drawn, and will not follow the geometry).
func (k *critic) dimensions() error {
	for i, e := range k.ents {
		if err := k.tick(); err != nil {
			return err
		}
		g, ok := e.Geom.(drawing.Dimension)
		if !ok {
			continue
		}
		m := g.Measurement()
		if g.Type == enginev1.DimensionKind_DIMENSION_KIND_ANGULAR {
			m = math.Min(m, 360-m) * math.Pi / 180 * math.Max(g.P1.Dist(g.Center), g.P2.Dist(g.Center))
		}
		if !(m > k.eps) {
			k.add(finding{code: codeDimensionZero, severity: severityError, message: "the " + dimensionName(g) + " dimension measures " + num(g.Measurement()) + ": nothing", handles: []uint64{e.Handle}, fix: k.deleteFix(e.Handle)})
			continue
		}
		var gone []uint64
		for _, r := range g.Refs() {
			if k.c.d.Entity(r) == nil {
				gone = append(gone, r)
			}
		}
		if len(gone) > 0 {
			k.add(finding{code: codeDimensionUnbound, severity: severityError, message: "the dimension is bound to " + handlesText(gone) + ", which the drawing no longer has", handles: []uint64{e.Handle}})
			continue
		}
		if len(g.Binds) > 0 || e.Layout != "" {
			continue
		}
		var pts []geom.Vec
		switch g.Type {
		case enginev1.DimensionKind_DIMENSION_KIND_ALIGNED, enginev1.DimensionKind_DIMENSION_KIND_ROTATED:
			pts = []geom.Vec{g.P1, g.P2}
		case enginev1.DimensionKind_DIMENSION_KIND_RADIAL, enginev1.DimensionKind_DIMENSION_KIND_DIAMETRIC:
			s, c := geom.SinCosDeg(g.Angle)
			pts = []geom.Vec{g.Center.Add(geom.Pt(c, s).Mul(g.Radius))}
		}
		if len(pts) > 0 && !slices.ContainsFunc(pts, func(p geom.Vec) bool { return k.onCurve(p, i) }) {
			k.add(finding{code: codeDimensionUnbound, severity: severityWarning, message: "the " + dimensionName(g) + " dimension is bound to nothing and its points lie on no geometry", handles: []uint64{e.Handle}})
		}
	}
	return nil
}

func dimensionName(g drawing.Dimension) string {
	return strings.TrimPrefix(strings.ToLower(g.Type.String()), "dimension_kind_")
}

// textBox is a text's box as a convex polygon, and the height of its
// letters.
type textBox struct {
	i      int // in ents
	poly   geom.Polygon
	height float64
}

// textBoxes are the boxes of the looked-at texts, multi-line texts and
// attribute definitions outside blocks.
func (k *critic) textBoxes() []textBox {
	var out []textBox
	for i, e := range k.ents {
		switch g := e.Geom.(type) {
		case drawing.Text:
			out = append(out, textBox{i, g.Box(), g.Height})
		case drawing.Attdef:
			out = append(out, textBox{i, g.Text.Box(), g.Text.Height})
		case drawing.MText:
			b := g.Bounds()
			out = append(out, textBox{i, geom.Polygon{b.Min, geom.Pt(b.Max.X, b.Min.Y), b.Max, geom.Pt(b.Min.X, b.Max.Y)}, g.Height})
		}
	}
	return slices.DeleteFunc(out, func(t textBox) bool { return !(t.height > 0) || !t.poly.Bounds().NonEmpty })
}

// textOverlaps finds texts over texts (their boxes overlapping by more
// than a tenth of the smaller height: one finding for each text that
// lies over earlier ones, the later text, to move, first) and
// texts that curves run through (a line, arc, circle, polyline, ellipse or
// spline within the text's box shrunk by a fifth of its height all
// round, so one that only grazes it does not count). Warnings; where to
// move a text is the draughtsman's call.
func (k *critic) textOverlaps() error {
	texts := k.textBoxes()
	if len(texts) == 0 {
		return nil
	}
	cell := 0.0
	for _, t := range texts {
		cell += boxSide(t.poly.Bounds())
	}
	grid := geom.NewGrid(2 * cell / float64(len(texts)))
	for _, t := range texts {
		grid.Add(t.poly.Bounds())
	}
	curves := k.curveIndex()
	for a, t := range texts {
		if err := k.tick(); err != nil {
			return err
		}
		et := k.ents[t.i]
		var under []uint64 // the earlier texts it lies over
		grid.Near(t.poly.Bounds(), func(b int) bool {
			if !k.spend() {
				return false
			}
			u := texts[b]
			if b < a && k.ents[u.i].Layout == et.Layout && geom.ConvexOverlap(t.poly, u.poly, 0.1*math.Min(t.height, u.height)) {
				under = append(under, k.ents[u.i].Handle)
			}
			return true
		})
		if len(under) > 0 {
			slices.Sort(under)
			k.add(finding{code: codeTextOverlap, severity: severityWarning, message: "text " + drawing.FormatHandle(et.Handle) + " lies over text " + handlesText(under), handles: append([]uint64{et.Handle}, capHandles(under)...)})
		}
		inner := shrink(t.poly, 0.2*t.height)
		if inner == nil {
			continue
		}
		var through []uint64
		curves.grid.Near(inner.Bounds(), func(id int) bool {
			if !k.spend() {
				return false
			}
			e := k.ents[curves.owner[id]]
			if e.Layout == et.Layout && !slices.Contains(through, e.Handle) && inner.Touches(curves.prims[id]) {
				through = append(through, e.Handle)
			}
			return true
		})
		if len(through) > 0 {
			slices.Sort(through)
			k.add(finding{code: codeTextOverlap, severity: severityWarning, message: "text " + drawing.FormatHandle(et.Handle) + " is crossed by " + handlesText(through) + ", which make it hard to read", handles: append([]uint64{et.Handle}, capHandles(through)...)})
		}
	}
	return nil
}

// maxOthers is the most handles a finding lists beside the one it is
// about (its message counts them all).
const maxOthers = 20

// capHandles is the first maxOthers of hs.
func capHandles(hs []uint64) []uint64 { return hs[:min(len(hs), maxOthers)] }

// shrink is the rectangle p (its corners counter-clockwise from the
// start of its bottom edge) moved in by d on every side; nil when that
// leaves nothing.
func shrink(p geom.Polygon, d float64) geom.Polygon {
	if len(p) != 4 {
		return nil
	}
	u, v := p[1].Sub(p[0]), p[3].Sub(p[0])
	if u.Len() <= 2*d || v.Len() <= 2*d {
		return nil
	}
	du, dv := u.Unit().Mul(d), v.Unit().Mul(d)
	return geom.Polygon{p[0].Add(du).Add(dv), p[1].Sub(du).Add(dv), p[2].Sub(du).Sub(dv), p[3].Add(du).Sub(dv)}
}

// ---- sheet ----

// windows are the viewports looked at that show model space (not a
// layout's own view, not off), with the model-space box each shows.
func (k *critic) windows() (vps []*drawing.Entity, shows []geom.Box) {
	for _, e := range k.c.d.Entities() {
		g, ok := e.Geom.(drawing.Viewport)
		if !ok || g.Paper() || g.Status < 1 || k.layout != nil && e.Layout != *k.layout || !(g.ViewHeight > 0 && g.H > 0) {
			continue
		}
		hw, hh := g.ViewHeight*g.W/g.H/2, g.ViewHeight/2
		vps = append(vps, e)
		shows = append(shows, geom.Box{Min: g.View.Sub(geom.Pt(hw, hh)), Max: g.View.Add(geom.Pt(hw, hh)), NonEmpty: true})
	}
	return vps, shows
}

// outsideSheet finds paper-space entities off their layout's paper (each
// an error), and, when some layout has viewports, the model-space entities
// on visible layers that no viewport shows (one warning listing them: no
// sheet prints them).
func (k *critic) outsideSheet() error {
	for _, e := range k.ents {
		if err := k.tick(); err != nil {
			return err
		}
		if e.Layout == "" {
			continue
		}
		w, h, ok := k.paperOf(e.Layout)
		if !ok {
			continue
		}
		if v, isVP := e.Geom.(drawing.Viewport); isVP && v.Paper() {
			continue
		}
		paper := geom.Box{Max: geom.Pt(w, h), NonEmpty: true}
		if b := e.Geom.Bounds(); b.NonEmpty && !b.Inside(paper) {
			k.add(finding{code: codeOutsideSheet, severity: severityError, message: "it lies off the paper of layout " + e.Layout, handles: []uint64{e.Handle}})
		}
	}
	_, shows := k.windows()
	if len(shows) == 0 {
		return nil
	}
	var off []uint64
	for _, e := range k.model {
		if err := k.tick(); err != nil {
			return err
		}
		l := k.c.d.Layer(e.Layer)
		b := e.Geom.Bounds()
		if l == nil || !l.On || l.Frozen || !b.NonEmpty || !(boxSide(b) < 1e100) {
			continue
		}
		if !slices.ContainsFunc(shows, b.Overlaps) {
			off = append(off, e.Handle)
		}
	}
	if len(off) > 0 {
		where := "any layout"
		if k.layout != nil {
			where = "layout " + *k.layout
		}
		k.add(finding{code: codeOutsideSheet, severity: severityWarning, message: strconv.Itoa(len(off)) + " model-space entities lie outside every viewport of " + where + ": no sheet shows them", handles: off})
	}
	return nil
}

// The standard scales a viewport may have, as paper length per model
// length: ISO 5455's (1:1 to 1:10000, 2:1 to 50:1), and the imperial
// ones: architectural (3" to 1/32" to the foot: 1:4 to 1:384) and
// engineering (1" to 10' … 100': 1:120 to 1:1200).
var (
	isoScales      = ratios([]float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000}, []float64{2, 5, 10, 20, 50})
	imperialScales = ratios([]float64{1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 384, 120, 240, 360, 480, 600, 720, 1200}, []float64{2, 4})
)

// ratios are 1:n for each of down and n:1 for each of up.
func ratios(down, up []float64) []float64 {
	var out []float64
	for _, n := range down {
		out = append(out, 1/n)
	}
	return append(out, up...)
}

// standardScale reports whether r is a standard scale (of either series,
// within a millionth), and the one of the drawing's series (imperial for
// a drawing in inches or feet, else ISO) nearest it by ratio.
func standardScale(r float64, imperial bool) (nearest float64, ok bool) {
	for _, s := range slices.Concat(isoScales, imperialScales) {
		ok = ok || math.Abs(r/s-1) <= 1e-6
	}
	series := isoScales
	if imperial {
		series = imperialScales
	}
	nearest = series[0]
	for _, s := range series {
		if math.Abs(math.Log(r/s)) < math.Abs(math.Log(r/nearest)) {
			nearest = s
		}
	}
	return nearest, ok
}

// viewportScales finds viewports at a scale that is not standard (see
// standardScale): the paper millimetres per model millimetre (the
// document's units converted). Warnings, repaired by viewport_set_scale
// to the nearest standard scale of the drawing's series.
func (k *critic) viewportScales() error {
	vps, _ := k.windows()
	mm := drawing.UnitMM(k.c.d.Units)
	imperial := k.c.d.Units == enginev1.Units_UNITS_IN || k.c.d.Units == enginev1.Units_UNITS_FT
	for _, e := range vps {
		s := e.Geom.(drawing.Viewport).Scale()
		r := s / mm
		best, ok := standardScale(r, imperial)
		if ok {
			continue
		}
		var scale any = scaleName(best)
		if mm != 1 {
			scale = best * mm // the viewport's own paper units per model unit
		}
		k.add(finding{
			code: codeViewportScale, severity: severityWarning,
			message: "viewport at " + scaleName(r) + ", not a standard scale (the nearest is " + scaleName(best) + ")",
			handles: []uint64{e.Handle},
			fix:     k.fixCall(enginev1.ToolViewportSetScale, map[string]any{"handle": drawing.FormatHandle(e.Handle), "scale": scale}),
		})
	}
	return nil
}

// titleFields are the attributes of a title block that must be filled.
var titleFields = []string{"TITLE", "DRAWING_NUMBER", "DATE", "DRAWN_BY", "SCALE"}

// titleBlocks finds inserts of blocks named TITLEBLOCK_… (any case)
// whose TITLE, DRAWING_NUMBER, DATE, DRAWN_BY or SCALE attribute is empty
// (blank, or the block defines it and the insert lacks it). Warnings: the
// values are the author's to give (block_attributes_set).
func (k *critic) titleBlocks() error {
	for _, e := range k.ents {
		g, ok := e.Geom.(drawing.Insert)
		if !ok || !strings.HasPrefix(strings.ToUpper(g.Name), "TITLEBLOCK_") {
			continue
		}
		filled, defined := map[string]bool{}, map[string]bool{}
		for _, a := range g.Attribs {
			tag := strings.ToUpper(a.Tag)
			defined[tag] = true
			filled[tag] = filled[tag] || strings.TrimSpace(a.Text.Text) != ""
		}
		if g.Def != nil {
			for _, be := range g.Def.Entities {
				if d, ok := be.Geom.(drawing.Attdef); ok {
					defined[strings.ToUpper(d.Tag)] = true
				}
			}
		}
		var empty []string
		for _, f := range titleFields {
			if defined[f] && !filled[f] {
				empty = append(empty, f)
			}
		}
		if len(empty) > 0 {
			k.add(finding{code: codeTitleblockEmpty, severity: severityWarning, message: "title block " + g.Name + " has empty fields: " + strings.Join(empty, ", "), handles: []uint64{e.Handle}})
		}
	}
	return nil
}
