package dxf

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Preserved (foreign) entities: an entity of a type the engine does not
// model, or that it cannot hold as its native type (a 3D line, a
// zero-length one, an insert scaled unevenly), is kept as the file had it
// (drawing.Foreign): its group codes, less those every entity has, which
// the engine keeps itself (handle, owner, layer, colour, linetype, space),
// and what can be derived of it for drawing and extents.

// foreignOf is the preserved entity of record r, with the records that
// follow it as part of it (a POLYLINE's VERTEXes and SEQEND).
func foreignOf(r dxfRecord, subs []dxfRecord) drawing.Foreign {
	pairs := keptPairs(r.pairs, true)
	if len(subs) == 0 {
		// "Entities follow" (66) holds only with the records that follow:
		// an insert's attributes are not kept with it.
		pairs = slices.DeleteFunc(pairs, func(p drawing.Pair) bool { return p.Code == 66 })
	}
	for _, s := range subs {
		pairs = append(pairs, drawing.Pair{Code: 0, Value: s.kind})
		pairs = append(pairs, keptPairs(s.pairs, false)...)
	}
	outline, points := derived(r, subs)
	return drawing.NewForeign(r.kind, pairs, outline, points)
}

// keptPairs are the pairs of a record a preserved entity keeps: all but
// its handle (5), its owner (330), the groups of reactors and extension
// dictionaries (102 {…}) and, in its head (up to its second subclass
// marker, or all of an R12 record, which has none), the codes of every
// entity: subclass AcDbEntity (100), layer (8), linetype (6), colour
// (62), paper space (67), layout (410), and owner pointers (360). A
// sub-record (head false) keeps its layer and style: they are its own.
func keptPairs(ps []dxfPair, head bool) []drawing.Pair {
	out := make([]drawing.Pair, 0, len(ps))
	markers := 0
	inGroup := false
	for _, p := range ps {
		switch {
		case p.code == 102:
			inGroup = strings.HasPrefix(strings.TrimSpace(p.value), "{")
			continue
		case inGroup, p.code == 5, p.code == 330:
			continue
		case p.code == 100:
			markers++
			if head && markers == 1 && p.word() == "AcDbEntity" {
				continue
			}
		}
		if head && markers <= 1 {
			switch p.code {
			case 8, 6, 62, 67, 410, 360:
				continue
			}
		}
		out = append(out, drawing.Pair{Code: int32(p.code), Value: p.value})
	}
	return out
}

// vectorCodes are, by type, the codes of 10–18 that hold directions, not
// points: they bound nothing, and a move leaves them alone.
var vectorCodes = map[string][]int{
	"XLINE": {11}, "RAY": {11},
	"IMAGE": {11, 12, 13}, "WIPEOUT": {11, 12, 13},
	"PDFUNDERLAY": {11, 12}, "DWFUNDERLAY": {11, 12}, "DGNUNDERLAY": {11, 12},
	"SPLINE": {12, 13}, "TOLERANCE": {11}, "MTEXT": {11}, "MLINE": {12, 13},
	"ACAD_TABLE": {11}, "HELIX": {12}, "MULTILEADER": {11},
}

// ocsTypes are the types whose points are in their object coordinate
// system (the rest are in world coordinates).
var ocsTypes = map[string]bool{
	"SOLID": true, "TRACE": true, "CIRCLE": true, "ARC": true, "LWPOLYLINE": true, "POLYLINE": true,
	"TEXT": true, "ATTDEF": true, "ATTRIB": true, "SHAPE": true, "INSERT": true, "HATCH": true, "DIMENSION": true,
}

// isPoint says whether code is the x of a point of the type typ.
func isPoint(typ string, code int) bool {
	if code < 10 || code > 18 {
		return false
	}
	for _, c := range vectorCodes[typ] {
		if c == code {
			return false
		}
	}
	return true
}

// derived is what a preserved entity draws and what bounds it, in world
// coordinates, from its codes: its points (each x 10–18 with its y and z),
// and an outline joining its corners or vertices where its type says how.
// Infinite lines (XLINE, RAY) and ACIS bodies have none.
func derived(r dxfRecord, subs []dxfRecord) ([]geom.Segment, []geom.Vec) {
	typ := r.kind
	if typ == "XLINE" || typ == "RAY" {
		return nil, nil
	}
	toWorld := ocsToWorld(r, typ)
	pts := recordPoints(r, typ, toWorld)
	for _, s := range subs {
		pts = append(pts, recordPoints(s, s.kind, toWorld)...)
	}
	switch typ {
	case "3DFACE":
		return closedOutline(pts), pts
	case "SOLID", "TRACE":
		if len(pts) == 4 { // corners go 1, 2, 4, 3 round the shape
			pts[2], pts[3] = pts[3], pts[2]
		}
		return closedOutline(pts), pts
	case "LINE", "MLINE", "LEADER":
		return openOutline(pts), pts
	case "POLYLINE":
		if flags := r.flags(); flags&(16|64) == 0 { // not a mesh
			pts = pts[min(1, len(pts)):] // the POLYLINE's own 10 is its elevation, not a vertex
			if flags&1 != 0 {
				return closedOutline(pts), pts
			}
			return openOutline(pts), pts
		}
		return nil, pts
	case "CIRCLE", "ARC":
		return circleOutline(r, toWorld)
	case "IMAGE", "WIPEOUT":
		return imageOutline(r)
	}
	return nil, pts
}

// flags is the record's code 70 (0 when absent or not a number).
func (r dxfRecord) flags() int64 {
	for _, p := range r.pairs {
		if p.code == 70 {
			n, _ := p.int()
			return n
		}
	}
	return 0
}

// recordPoints are the finite points of a record: each x of 10–18 that
// is a point of typ, with the y and z that follow it.
func recordPoints(r dxfRecord, typ string, toWorld func(x, y, z float64) geom.Vec) []geom.Vec {
	var out []geom.Vec
	for i, p := range r.pairs {
		if !isPoint(typ, p.code) {
			continue
		}
		x, err := p.float()
		if err != nil {
			continue
		}
		var y, z float64
		if i+1 < len(r.pairs) && r.pairs[i+1].code == p.code+10 {
			y, _ = r.pairs[i+1].float()
			if i+2 < len(r.pairs) && r.pairs[i+2].code == p.code+20 {
				z, _ = r.pairs[i+2].float()
			}
		}
		if q := toWorld(x, y, z); q.Finite() {
			out = append(out, q)
		}
	}
	return out
}

// ocsToWorld maps a point of the record to world x and y: through its
// object coordinate system (DXF's arbitrary axis algorithm on its
// extrusion 210/220/230) for the types that have one, else as it is.
func ocsToWorld(r dxfRecord, typ string) func(x, y, z float64) geom.Vec {
	n := [3]float64{0, 0, 1}
	for _, p := range r.pairs {
		if p.code == 210 || p.code == 220 || p.code == 230 {
			if v, err := p.float(); err == nil {
				n[(p.code-210)/10] = v
			}
		}
	}
	ax, ay, n, ok := arbitraryAxes(n)
	if !ocsTypes[typ] || !ok {
		return func(x, y, _ float64) geom.Vec { return geom.Pt(x, y) }
	}
	return func(x, y, z float64) geom.Vec {
		return geom.Pt(x*ax[0]+y*ay[0]+z*n[0], x*ax[1]+y*ay[1]+z*n[1])
	}
}

// arbitraryAxes are the x and y axes of the object coordinate system of
// extrusion n (normalised, as returned), by DXF's arbitrary axis
// algorithm; false for a zero or non-finite extrusion.
func arbitraryAxes(n [3]float64) (ax, ay, unit [3]float64, ok bool) {
	l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
	if !(l > 0) || math.IsInf(l, 0) {
		return ax, ay, unit, false
	}
	unit = [3]float64{n[0] / l, n[1] / l, n[2] / l}
	cross := func(a, b [3]float64) [3]float64 {
		return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
	}
	norm := func(a [3]float64) [3]float64 {
		l := math.Sqrt(a[0]*a[0] + a[1]*a[1] + a[2]*a[2])
		return [3]float64{a[0] / l, a[1] / l, a[2] / l}
	}
	if math.Abs(unit[0]) < 1.0/64 && math.Abs(unit[1]) < 1.0/64 {
		ax = norm(cross([3]float64{0, 1, 0}, unit))
	} else {
		ax = norm(cross([3]float64{0, 0, 1}, unit))
	}
	return ax, norm(cross(unit, ax)), unit, true
}

func openOutline(pts []geom.Vec) []geom.Segment {
	var out []geom.Segment
	for i := 1; i < len(pts); i++ {
		if !pts[i-1].Same(pts[i]) {
			out = append(out, geom.Segment{A: pts[i-1], B: pts[i]})
		}
	}
	return out
}

func closedOutline(pts []geom.Vec) []geom.Segment {
	out := openOutline(pts)
	if n := len(pts); n > 2 && !pts[n-1].Same(pts[0]) {
		out = append(out, geom.Segment{A: pts[n-1], B: pts[0]})
	}
	return out
}

// circleOutline is a circle or arc outside the plan (its extrusion not
// ±Z) as 64 pieces a turn in world x and y: an ellipse, seen from above.
func circleOutline(r dxfRecord, toWorld func(x, y, z float64) geom.Vec) ([]geom.Segment, []geom.Vec) {
	v, err := r.values(10, 20, 30, 40, 50, 51)
	if err != nil || !(v[40] > 0) {
		return nil, nil
	}
	start, sweep := 0.0, 360.0
	if r.kind == "ARC" {
		start, sweep = v[50], geom.SweepDeg(v[50], v[51])
	}
	n := max(2, int(math.Ceil(sweep/360*64)))
	pts := make([]geom.Vec, n+1)
	for i := range pts {
		s, c := geom.SinCosDeg(start + sweep*float64(i)/float64(n))
		pts[i] = toWorld(v[10]+v[40]*c, v[20]+v[40]*s, v[30])
	}
	return openOutline(pts), pts
}

// imageOutline is an image's or wipeout's frame: from its insertion point
// (10), along its pixel vectors u (11) and v (12), its size in pixels (13).
func imageOutline(r dxfRecord) ([]geom.Segment, []geom.Vec) {
	v, err := r.values(10, 20, 11, 21, 12, 22, 13, 23)
	if err != nil {
		return nil, nil
	}
	p, u, w := geom.Pt(v[10], v[20]), geom.Pt(v[11], v[21]).Mul(v[13]), geom.Pt(v[12], v[22]).Mul(v[23])
	pts := []geom.Vec{p, p.Add(u), p.Add(u).Add(w), p.Add(w)}
	for _, q := range pts {
		if !q.Finite() {
			return nil, nil
		}
	}
	return closedOutline(pts), pts
}

// foreign writes a preserved entity: its type, handle and style, then its
// kept codes, its points moved where the entity has moved since it was
// read (only a move: a turned, scaled or mirrored one is written inside a
// block of its own, placed by an insert; see foreignBlock). The records
// that follow it (VERTEX, SEQEND) get handles of their own.
func (w *dxfWriter) foreign(h uint64, e *drawing.Entity, g drawing.Foreign) {
	w.common(g.Type, h, e)
	shift := shiftOf(g)
	// A POLYLINE's own 10 is its elevation, not a vertex: only its
	// VERTEXes move.
	fixed := g.Type == "POLYLINE"
	for i := 0; i < len(g.Pairs); i++ {
		p := g.Pairs[i]
		if p.Code == 0 {
			fixed = false
			w.pair(0, p.Value)
			w.pair(5, drawing.FormatHandle(w.handle()))
			if w.v2018 {
				w.pair(330, drawing.FormatHandle(h))
			}
			continue
		}
		if !w.v2018 && !r12Code(p.Code) {
			continue
		}
		if d, ok := shift(int(p.Code)); ok && !fixed && i+1 < len(g.Pairs) && g.Pairs[i+1].Code == p.Code+10 {
			w.pair(int(p.Code), moved(p.Value, d[0]))
			w.pair(int(p.Code)+10, moved(g.Pairs[i+1].Value, d[1]))
			i++
			if i+1 < len(g.Pairs) && g.Pairs[i+1].Code == p.Code+20 {
				w.pair(int(p.Code)+20, moved(g.Pairs[i+1].Value, d[2]))
				i++
			}
			continue
		}
		w.pair(int(p.Code), p.Value)
	}
}

// r12Types are the preserved types an R12 file can hold; the writer of
// R12 leaves the others out (they came from a newer file).
var r12Types = map[string]bool{
	"3DFACE": true, "SOLID": true, "TRACE": true, "POLYLINE": true, "SHAPE": true, "ATTDEF": true,
	"LINE": true, "CIRCLE": true, "ARC": true, "TEXT": true, "POINT": true, "INSERT": true, "DIMENSION": true,
}

// writes says whether the writer can write the preserved entity g.
func (w *dxfWriter) writes(g drawing.Foreign) bool { return w.v2018 || r12Types[g.Type] }

// r12Code says whether R12 has the group code: the codes below 100, the
// extrusion (210–239) and extended data (1000 on).
func r12Code(code int32) bool { return code < 100 || code >= 210 && code <= 239 || code >= 1000 }

// foreignApps are the applications whose extended data (1001) the
// preserved entities carry, besides ACAD, sorted: the APPID table must
// name them.
func foreignApps(d *drawing.Document) []string {
	seen := map[string]bool{"ACAD": true}
	var out []string
	add := func(e *drawing.Entity) {
		if g, ok := e.Geom.(drawing.Foreign); ok {
			for _, p := range g.Pairs {
				if name := strings.TrimSpace(p.Value); p.Code == 1001 && !seen[strings.ToUpper(name)] {
					seen[strings.ToUpper(name)] = true
					out = append(out, name)
				}
			}
		}
	}
	d.Each(0, func(e *drawing.Entity) bool { add(e); return true })
	for _, b := range d.Blocks() {
		for _, e := range b.Entities {
			add(e)
		}
	}
	sort.Strings(out)
	return out
}

// shiftOf is how a preserved entity's points move when it is written: by
// the move of its Place (which is only a move when it is written as
// itself), in its own coordinate system. ok is false for a code that is
// not the x of a point.
func shiftOf(g drawing.Foreign) func(code int) ([3]float64, bool) {
	d := g.Place.Move()
	if d == (geom.Vec{}) {
		return func(int) ([3]float64, bool) { return [3]float64{}, false }
	}
	delta := [3]float64{d.X, d.Y, 0}
	if ocsTypes[g.Type] {
		n := [3]float64{0, 0, 1}
		for _, p := range g.Pairs {
			if p.Code == 210 || p.Code == 220 || p.Code == 230 {
				if v, err := strconv.ParseFloat(strings.TrimSpace(p.Value), 64); err == nil {
					n[(p.Code-210)/10] = v
				}
			}
		}
		if ax, ay, un, ok := arbitraryAxes(n); ok {
			dot := func(a [3]float64) float64 { return a[0]*d.X + a[1]*d.Y }
			delta = [3]float64{dot(ax), dot(ay), dot(un)}
		}
	}
	return func(code int) ([3]float64, bool) { return delta, isPoint(g.Type, code) }
}

// moved is a coordinate moved by d, as the file would write it.
func moved(v string, d float64) string {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || d == 0 {
		return v
	}
	return strconv.FormatFloat(f+d, 'f', -1, 64)
}
