package dxf

import (
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
// the engine keeps itself (handle, owner, layer, colour, linetype and its
// scale, space), and what can be derived of it for drawing and extents.

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
	outline, points, texts := derived(r, subs)
	g := drawing.NewForeign(r.kind, pairs, outline, points)
	g.Fills = wideBands(r, subs)
	if g.Fills == nil {
		g.Fills = hatchFills(r)
	}
	if len(texts) > 0 {
		// Proxy graphics with text: their lines and their texts are what
		// the entity draws (its Drawn, which a block of its own replaces).
		g.Drawn = &drawing.Picture{Strokes: g.Prims(), Texts: texts}
	}
	return g
}

// keptPairs are the pairs of a record a preserved entity keeps: all but
// its handle (5), its owner (330), the groups of reactors and extension
// dictionaries (102 {…}) and, in its head (up to its second subclass
// marker, or all of an R12 record, which has none), the codes of every
// entity: subclass AcDbEntity (100), layer (8), linetype (6), colour
// (62), linetype scale (48), paper space (67), layout (410), and owner
// pointers (360). A
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
			case 8, 6, 62, 48, 67, 410, 360:
				continue
			}
		}
		out = append(out, drawing.Pair{Code: int32(p.code), Value: p.value})
	}
	return out
}

// The points of a preserved entity. A code 10–18 (and a MULTILEADER's
// 110) is the x of a point, whose y and z are the codes 10 and 20 above
// it; what the point is to its entity depends on the type, and for some
// types on where in the record it stands (see coordRoles).

// A coordRole is what the x of a point is to its entity.
type coordRole uint8

const (
	// notCoord is not a position in the plan: a direction, a size, a
	// position in the entity's own pixels or units, an elevation. It
	// neither moves with the entity nor bounds it.
	notCoord coordRole = iota
	// movesOnly is a position the entity does not draw through (a
	// dimension's insertion point for its clones, a light, where a
	// MULTILEADER's content attaches): it moves with the entity but
	// bounds nothing.
	movesOnly
	// textCoord is where the entity's text is: it moves with the
	// entity and bounds it with its text.
	textCoord
	// boundsIt is a position the entity draws through.
	boundsIt
)

// vectorCodes are, by type, the codes of 10–18 that are not positions
// in the plan (see notCoord).
var vectorCodes = map[string][]int{
	"XLINE": {11}, "RAY": {11}, "ELLIPSE": {11},
	// The pixel vectors u and v, the size in pixels and the clipping
	// boundary, in pixels.
	"IMAGE": {11, 12, 13, 14}, "WIPEOUT": {11, 12, 13, 14},
	// The clipping boundary, in the underlay's units.
	"PDFUNDERLAY": {11, 12}, "DWFUNDERLAY": {11, 12}, "DGNUNDERLAY": {11, 12},
	"SPLINE": {12, 13}, "HELIX": {12, 13}, "TOLERANCE": {11}, "MTEXT": {11}, "MLINE": {12, 13},
	"ACAD_TABLE": {11},
	// A POLYLINE's own point is its elevation: its VERTEXes are its
	// points.
	"POLYLINE": {10},
}

// movingCodes are, by type, the positions the entity does not draw
// through (see movesOnly).
var movingCodes = map[string][]int{
	// The insertion point of clones (12); an arc length's centre (15);
	// a jogged radius's true centre (10), far from what it draws. (A
	// dimension's other definition points bound it: its block has a
	// point on each, on layer Defpoints.)
	"DIMENSION": {12}, "ARC_DIMENSION": {12, 15}, "LARGE_RADIAL_DIMENSION": {10, 12},
	// A light is not drawn on paper.
	"LIGHT": {10, 11},
}

// textTypes are the preserved types that are text: their points bound
// only their text.
var textTypes = map[string]bool{"TEXT": true, "MTEXT": true, "ATTRIB": true, "ATTDEF": true}

// dimensionTypes are the types whose point 11 is where their text is.
var dimensionTypes = map[string]bool{"DIMENSION": true, "ARC_DIMENSION": true, "LARGE_RADIAL_DIMENSION": true}

// ocsTypes are the types whose points are in their object coordinate
// system (the rest are in world coordinates).
var ocsTypes = map[string]bool{
	"SOLID": true, "TRACE": true, "CIRCLE": true, "ARC": true, "LWPOLYLINE": true, "POLYLINE": true,
	"TEXT": true, "ATTDEF": true, "ATTRIB": true, "SHAPE": true, "INSERT": true, "HATCH": true, "DIMENSION": true,
}

// coordRoles are the roles of the pairs of a record of type typ (see
// coordRole), notCoord for a pair that is not the x of a point.
func coordRoles(typ string, ps []dxfPair) []coordRole {
	out := make([]coordRole, len(ps))
	switch typ {
	case "MULTILEADER":
		multileaderRoles(ps, out)
		return out
	case "HATCH":
		walkHatch(ps, out, nil)
		return out
	}
	moving := movingCodes[typ]
	switch typ {
	case "ARC_DIMENSION":
		if firstInt(ps, 71, 0) == 0 {
			moving = []int{12, 15, 16, 17} // its leader's points, without a leader
		}
	case "VERTEX":
		if f := firstInt(ps, 70, 0); f&128 != 0 && f&64 == 0 {
			return out // a polyface mesh's face: its point is nothing
		}
	}
	for i, p := range ps {
		if p.code < 10 || p.code > 18 || slices.Contains(vectorCodes[typ], p.code) {
			continue
		}
		switch {
		case slices.Contains(moving, p.code):
			out[i] = movesOnly
		case textTypes[typ] || p.code == 11 && dimensionTypes[typ]:
			out[i] = textCoord
		default:
			out[i] = boundsIt
		}
	}
	return out
}

// multileaderRoles sets the roles of a MULTILEADER's points, which
// depend on the part of the record they are in (ezdxf's mleader.py):
// its context (CONTEXT_DATA{ 300 … 301) has the content's base point
// (10), the text's insertion point (12) and the block's (15), the plane's
// origin (110), and directions (11, 13, 14, 111, 112) and the block's
// scale (16); each of its leaders (LEADER{ 302 … 303) its last point
// (10), breaks (12, 13) and the dogleg's direction (11); each leader
// line (LEADER_LINE{ 304 … 305) its vertices (10) and breaks (11, 12).
// Out of the context, 10 is the block's scale.
func multileaderRoles(ps []dxfPair, out []coordRole) {
	const top, context, leader, line = 0, 1, 2, 3
	part := top
	for i, p := range ps {
		switch p.code {
		case 300:
			part = context
		case 301:
			part = top
		case 302:
			part = leader
		case 303:
			part = context
		case 304:
			if p.word() == "LEADER_LINE{" { // else the text
				part = line
			}
		case 305:
			part = leader
		}
		switch {
		case part == context && (p.code == 10 || p.code == 110):
			out[i] = movesOnly
		case part == context && p.code == 12:
			out[i] = textCoord
		case part == context && p.code == 15,
			part == leader && (p.code == 10 || p.code == 12 || p.code == 13),
			part == line && p.code >= 10 && p.code <= 12:
			out[i] = boundsIt
		}
	}
}

// firstInt is the value of the first pair of code c, or def when there
// is none or it is not a number.
func firstInt(ps []dxfPair, c int, def int64) int64 {
	for _, p := range ps {
		if p.code == c {
			if n, err := p.int(); err == nil {
				return n
			}
			return def
		}
	}
	return def
}

// firstFloat is the value of the first pair of code c, or def.
func firstFloat(ps []dxfPair, c int, def float64) float64 {
	for _, p := range ps {
		if p.code == c {
			if v, err := p.float(); err == nil && geom.IsFinite(v) {
				return v
			}
			return def
		}
	}
	return def
}

// firstPoint is the point whose x has code c (the first), and whether the
// record has it.
func firstPoint(ps []dxfPair, c int) ([3]float64, bool) {
	for i, p := range ps {
		if p.code == c {
			return pairPoint(ps, i), true
		}
	}
	return [3]float64{}, false
}

// pairPoint is the point whose x is pair i: with the y and z that follow it.
func pairPoint(ps []dxfPair, i int) [3]float64 {
	var v [3]float64
	v[0], _ = ps[i].float()
	for j := i + 1; j < len(ps) && j <= i+2; j++ {
		switch ps[j].code {
		case ps[i].code + 10:
			v[1], _ = ps[j].float()
		case ps[i].code + 20:
			v[2], _ = ps[j].float()
		default:
			return v
		}
	}
	return v
}

// derived is what a preserved entity draws and what bounds it, with its
// text (see derive), and the texts its proxy graphics draw, when it is
// drawn from them.
func derived(r dxfRecord, subs []dxfRecord) ([]geom.Segment, []geom.Vec, []drawing.Text) {
	if typ := r.kind; !ownPicture[typ] && typ != "XLINE" && typ != "RAY" {
		if pic, ok := proxyPicture(proxyGraphics(r.pairs), true); ok {
			return pic.outline, pic.points, pic.texts
		}
	}
	outline, points := derive(r, subs, true)
	return outline, points, nil
}

// ownPicture are the types whose codes say what they draw. A preserved
// entity of another type is drawn as its proxy graphics (AutoCAD's
// picture of it, which ezdxf draws too) when it has them, and else
// through its points.
var ownPicture = map[string]bool{
	"LINE": true, "3DLINE": true, "POINT": true, "CIRCLE": true, "ARC": true, "ELLIPSE": true, "SPLINE": true,
	"HELIX": true, "LWPOLYLINE": true, "POLYLINE": true, "SOLID": true, "TRACE": true, "3DFACE": true, "MESH": true,
	"TEXT": true, "ATTRIB": true, "ATTDEF": true, "MTEXT": true, "HATCH": true, "IMAGE": true, "WIPEOUT": true,
	"INSERT": true, "SHAPE": true, "TOLERANCE": true, "LEADER": true, "MLINE": true, "LIGHT": true, "DIMENSION": true,
	"XLINE": true, "RAY": true, "3DSOLID": true, "REGION": true, "BODY": true, "VIEWPORT": true,
	"PDFUNDERLAY": true, "DWFUNDERLAY": true, "DGNUNDERLAY": true,
}

// derive is what a preserved entity draws and what bounds it, in world
// coordinates, from its codes (and those of the records that follow it):
// its outline, where its type or its proxy graphics say how it is drawn,
// and the points that bound it, as ezdxf draws it (ezdxf.disassemble and
// the entities' virtual_entities). Without text, the text it is or has
// (see textCoord) is left out. Infinite lines (XLINE, RAY) and ACIS
// bodies have none.
func derive(r dxfRecord, subs []dxfRecord, text bool) ([]geom.Segment, []geom.Vec) {
	typ := r.kind
	if typ == "XLINE" || typ == "RAY" {
		return nil, nil
	}
	if !ownPicture[typ] {
		if pic, ok := proxyPicture(proxyGraphics(r.pairs), text); ok {
			return pic.outline, pic.points
		}
	}
	toWorld := ocsToWorld(r, typ)
	switch typ {
	case "TEXT", "ATTRIB", "ATTDEF":
		if !text {
			return nil, nil
		}
		return textOutline(r, toWorld)
	case "MTEXT":
		if !text {
			return nil, nil
		}
		return mtextOutline(r)
	case "HATCH":
		return hatchOutline(r, toWorld)
	case "LWPOLYLINE":
		return lwpolylineOutline(r, toWorld)
	case "POLYLINE":
		return polylineOutline(r, subs, toWorld)
	case "CIRCLE", "ARC":
		return circleOutline(r, toWorld)
	case "ELLIPSE":
		return ellipseOutline(r)
	case "IMAGE", "WIPEOUT":
		return imageOutline(r)
	case "ACAD_TABLE":
		return tableOutline(r)
	case "MLINE":
		return mlineOutline(r)
	}
	pts := recordPoints(r, typ, toWorld, text)
	for _, s := range subs {
		pts = append(pts, recordPoints(s, s.kind, toWorld, text)...)
	}
	switch typ {
	case "3DFACE":
		return closedOutline(pts), pts
	case "MESH":
		return subdMeshOutline(r), pts
	case "SOLID", "TRACE":
		if len(pts) == 4 { // corners go 1, 2, 4, 3 round the shape
			pts[2], pts[3] = pts[3], pts[2]
		}
		return closedOutline(pts), pts
	case "LINE", "3DLINE", "LEADER":
		return openOutline(pts), pts
	}
	return nil, pts
}

// flags is the record's code 70 (0 when absent or not a number).
func (r dxfRecord) flags() int64 { return firstInt(r.pairs, 70, 0) }

// foreign writes a preserved entity: its type, handle and style, then its
// kept codes, its points moved where the entity has moved since it was
// read (only a move: a turned, scaled or mirrored one is written inside a
// block of its own, placed by an insert; see foreignBlock), without its
// proxy graphics then. The records that follow it (VERTEX, SEQEND) get
// handles of their own.
func (w *dxfWriter) foreign(h uint64, e *drawing.Entity, g drawing.Foreign) {
	w.common(g.Type, h, e)
	d, shifted := shiftOf(g)
	var moves []bool
	skip, end := 0, 0
	if shifted {
		moves = movingPairs(g)
		// Its proxy graphics would draw it where it was: a reader
		// draws it from its codes instead (ezdxf drops them too when
		// it moves an entity), but for a proxy entity, which is its
		// graphics.
		if head, _ := recordsOf(g); g.Type != "ACAD_PROXY_ENTITY" {
			skip, end = proxySpan(head.pairs)
		}
	}
	for i := 0; i < len(g.Pairs); i++ {
		if i == skip && skip < end {
			i = end - 1
			continue
		}
		p := g.Pairs[i]
		if p.Code == 0 {
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
		if shifted && moves[i] && i+1 < len(g.Pairs) && g.Pairs[i+1].Code == p.Code+10 {
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
// itself), in its own coordinate system; false when it has not moved.
func shiftOf(g drawing.Foreign) ([3]float64, bool) {
	d := g.Place.Move()
	if d == (geom.Vec{}) {
		return [3]float64{}, false
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
	return delta, true
}

// movingPairs says, of each of a preserved entity's pairs, whether it is
// the x of a point that moves with it (see coordRoles).
func movingPairs(g drawing.Foreign) []bool {
	head, subs := recordsOf(g)
	out := make([]bool, 0, len(g.Pairs))
	for k, r := range append([]dxfRecord{head}, subs...) {
		if k > 0 {
			out = append(out, false) // the sub-record's type, 0
		}
		for _, role := range coordRoles(r.kind, r.pairs) {
			out = append(out, role != notCoord)
		}
	}
	return out
}

// recordsOf are the records of a preserved entity again, from its kept
// pairs: its own, and those that follow it, each after its type (0).
func recordsOf(g drawing.Foreign) (dxfRecord, []dxfRecord) {
	recs := []dxfRecord{{kind: g.Type}}
	for _, p := range g.Pairs {
		if p.Code == 0 {
			recs = append(recs, dxfRecord{kind: strings.TrimSpace(p.Value)})
			continue
		}
		last := &recs[len(recs)-1]
		last.pairs = append(last.pairs, dxfPair{code: int(p.Code), value: p.Value})
	}
	return recs[0], recs[1:]
}

// moved is a coordinate moved by d, as the file would write it.
func moved(v string, d float64) string {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || d == 0 {
		return v
	}
	return strconv.FormatFloat(f+d, 'f', -1, 64)
}
