package dxf

import (
	"cmp"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// The entities of a DXF file's ENTITIES section: one record per entity (a
// type and its pairs up to the next group code 0), turned into the
// engine's geometry or counted as skipped (see readDXF for the rules).

// dxfRecord is one entity record: its type and pairs (up to the next
// group code 0).
type dxfRecord struct {
	kind  string
	line  int
	pairs []dxfPair
}

// readRecord reads the pairs of the record whose type pair was just read.
func readRecord(sc *dxfScanner, head dxfPair, buf []dxfPair) (dxfRecord, error) {
	r := dxfRecord{kind: head.word(), line: head.line, pairs: buf[:0]}
	for {
		p, err := sc.peek()
		if err == io.EOF {
			return r, dxfErrorf(max(sc.line, 1), "the ENTITIES section has no ENDSEC (the file ends)")
		}
		if err != nil {
			return r, err
		}
		if p.code == 0 {
			return r, nil
		}
		sc.next()
		r.pairs = append(r.pairs, p)
	}
}

func (f *File) readEntities(sc *dxfScanner) error {
	var buf []dxfPair
	for {
		head, err := sectionPair(sc, "ENTITIES")
		if err != nil {
			return err
		}
		if head.code != 0 {
			return dxfErrorf(head.line, "expected an entity (group code 0) in the ENTITIES section, found group code %d", head.code)
		}
		if head.word() == "ENDSEC" {
			return nil
		}
		if buf, err = f.readEntity(sc, head, buf); err != nil {
			return err
		}
	}
}

// readEntity reads the entity whose type pair was just read (and the
// records that follow it) into f.target; buf is reused for its pairs.
func (f *File) readEntity(sc *dxfScanner, head dxfPair, buf []dxfPair) ([]dxfPair, error) {
	r, err := readRecord(sc, head, buf)
	if err != nil {
		return buf, err
	}
	buf = r.pairs
	switch r.kind {
	case "POLYLINE":
		err = f.readPolyline(sc, r)
	case "VERTEX", "SEQEND":
		// Stray records of a polyline or block reference.
		f.rep.warn(r.line, "a %s outside a POLYLINE or INSERT: passed over", r.kind)
	default:
		var subs []dxfRecord
		if r.follows() {
			// An INSERT's ATTRIBs, up to their SEQEND: its records are
			// copied, the scanner's buffer being reused.
			r.pairs = slices.Clone(r.pairs)
			if subs, err = readSequence(sc); err != nil {
				return buf, err
			}
		}
		err = f.add(r, subs)
	}
	return buf, err
}

// drop counts an entity that is not kept, with the reason (and the block
// it is in, if any).
func (f *File) drop(kind, reason string) {
	if f.inBlock != "" {
		reason += " (in block " + clip(f.inBlock) + ")"
	}
	f.rep.drop(kind, reason, f.inBlock == "")
}

// follows says whether the record says sub-entities follow it (66 = 1:
// an INSERT's ATTRIBs up to a SEQEND).
func (r dxfRecord) follows() bool {
	for _, p := range r.pairs {
		if p.code == 66 {
			n, err := p.int()
			return err == nil && n == 1
		}
	}
	return false
}

// readSequence reads the sub-entities of a record up to and including
// their SEQEND (a missing SEQEND ends them at the section's end).
func readSequence(sc *dxfScanner) ([]dxfRecord, error) {
	var out []dxfRecord
	for {
		p, err := sc.peek()
		if err == io.EOF || err == nil && p.code == 0 && (p.word() == "ENDSEC" || p.word() == "ENDBLK") {
			return out, nil // the section's own reader reports a missing ENDSEC
		}
		if err != nil {
			return out, err
		}
		sc.next()
		r, err := readRecord(sc, p, nil)
		if err != nil {
			return out, err
		}
		out = append(out, r)
		if r.kind == "SEQEND" {
			return out, nil
		}
	}
}

// dxfCommon is the style and placement every entity record carries.
type dxfCommon struct {
	layer    string
	color    int32
	linetype string
	// otherLinetype is a linetype the entity names that is not of the
	// standard set (see File.fileLinetype).
	otherLinetype string
	ltscale       float64 // 48, the entity's linetype scale; 1 when absent
	paper         bool
	layout        string // 410, the layout of a paper-space entity
	extrusion     [3]float64
}

// common reads the shared codes of a record.
func (r dxfRecord) common() (dxfCommon, error) {
	c := dxfCommon{layer: "0", color: 256, linetype: "ByLayer", ltscale: 1, extrusion: [3]float64{0, 0, 1}}
	for _, p := range r.pairs {
		switch p.code {
		case 8:
			if name := decodeName(p.value); name != "" {
				c.layer = name
			}
		case 62:
			n, err := p.int()
			if err != nil {
				return c, err
			}
			if n >= 0 && n <= 256 {
				c.color = int32(n)
			}
		case 6:
			if lt, ok := drawing.CanonicalLinetype(strings.TrimSpace(p.value), true); ok {
				c.linetype = lt
			} else {
				c.otherLinetype = strings.TrimSpace(p.value)
			}
		case 48:
			if v, err := p.float(); err == nil && v > 0 && !math.IsInf(v, 1) {
				c.ltscale = v
			}
		case 67:
			n, err := p.int()
			if err != nil {
				return c, err
			}
			c.paper = n == 1
		case 410:
			c.layout = strings.TrimSpace(p.value)
		case 210, 220, 230:
			v, err := p.float()
			if err != nil {
				return c, err
			}
			c.extrusion[(p.code-210)/10] = v
		}
	}
	return c, nil
}

// ocs says how the record's object coordinate system maps to the world:
// mirrored (extrusion -Z: x is negated) or not; ok false for anything but
// ±Z.
func (c dxfCommon) ocs() (mirrored, ok bool) {
	x, y, z := c.extrusion[0], c.extrusion[1], c.extrusion[2]
	if z == 0 || math.Abs(x) > 1e-12*math.Abs(z) || math.Abs(y) > 1e-12*math.Abs(z) {
		return false, false
	}
	return z < 0, true
}

// codeValues holds a record's numbers by group code: the codes read by
// values are all below 75 (points, sizes, angles, flags, a text's
// justification).
type codeValues [75]float64

// values reads the numbers of the given codes (absent ones stay 0). An
// array on the stack, not a map: this runs for every entity read.
func (r dxfRecord) values(codes ...int) (codeValues, error) {
	var out codeValues
	for _, p := range r.pairs {
		for _, c := range codes {
			if p.code == c {
				v, err := p.float()
				if err != nil {
					return out, err
				}
				out[c] = v
			}
		}
	}
	return out, nil
}

// aligned is where a TEXT, ATTRIB or ATTDEF is and how it is aligned
// there, from its codes v: its justification 72 and the code of its
// vertical one (73, or an attribute's 74). An aligned text is at its
// alignment point (11, or 10 without it); one fitted or aligned between
// two points (72 = 3 or 5) is set between them (see fitted), or, without
// a second point, at the first; a middle one (72 = 4) at the centre of
// its capitals.
func (r dxfRecord) aligned(v codeValues, vertical int) (geom.Vec, drawing.Align) {
	h, vert := int(v[72]), int(v[vertical])
	var a drawing.Align
	switch {
	case h == 4:
		a = drawing.Align{H: drawing.AlignCenter, V: drawing.AlignMiddle}
	case h >= 0 && h <= 2 && vert >= 0 && vert <= 3:
		a = drawing.Align{H: uint8(h), V: uint8(vert)}
	}
	if a == (drawing.Align{}) || !r.has(11) {
		return geom.Pt(v[10], v[20]), a
	}
	return geom.Pt(v[11], v[21]), a
}

// Add turns a record into an entity: a native one when the engine models
// its type and can hold this one, else a preserved (foreign) one.
func (f *File) Add(r dxfRecord) error { return f.add(r, nil) }

// add is Add of a record and the records that follow it (an INSERT's
// ATTRIBs and SEQEND), which a native insert takes as its attribute
// values and a preserved entity keeps.
func (f *File) add(r dxfRecord, subs []dxfRecord) error {
	c, err := r.common()
	if err != nil {
		return err
	}
	g, why, err := r.native(c, f)
	if err != nil {
		return err
	}
	if in, ok := g.(drawing.Insert); ok && len(subs) > 0 {
		if in.Attribs, err = attribsOf(subs, c, f.styles); err != nil {
			return err
		}
		g = in
	}
	f.put(r, subs, c, g, why)
	return nil
}

// native is the engine's geometry of a record of a type it models, or
// nil: why then says why this one cannot be held ("" for a type the
// engine does not model).
func (r dxfRecord) native(c dxfCommon, f *File) (drawing.Geometry, string, error) {
	var g drawing.Geometry
	var err error
	switch r.kind {
	case "POINT":
		g, err = r.Point()
	case "LINE":
		g, err = r.lineGeom()
	case "CIRCLE", "ARC":
		g, err = r.circle(c)
	case "LWPOLYLINE":
		g, err = r.lwpolyline(c)
	case "TEXT":
		g, err = r.text(c, f.styles)
	case "ELLIPSE":
		g, err = r.ellipse(c)
	case "MTEXT":
		g, err = r.mtext(c, f.styles)
	case "DIMENSION":
		return r.dimension(c, f)
	case "LEADER":
		return r.leader(f)
	case "MULTILEADER":
		return r.multileader(c)
	case "TOLERANCE":
		return r.tolerance(c, f)
	case "ACAD_TABLE":
		return r.table(c)
	case "VIEWPORT":
		return r.viewport(c, f)
	case "ATTDEF":
		return r.attdef(c, f.styles)
	case "HATCH":
		return r.hatch(c)
	case "INSERT":
		return r.insert(c)
	case "SPLINE":
		return r.spline()
	case "SOLID", "TRACE":
		return r.solid(c)
	case "3DFACE":
		return r.face()
	case "XLINE", "RAY":
		return r.xline()
	case "WIPEOUT":
		return r.wipeout()
	case "IMAGE":
		return r.image()
	default:
		return nil, "", nil
	}
	if err != nil || g != nil {
		return g, "", err
	}
	if _, ok := c.ocs(); !ok {
		return nil, "3D (its extrusion direction is not ±Z)", nil
	}
	return nil, "degenerate (" + degenerate[r.kind] + ")", nil
}

// degenerate says, by type, what a native entity lacks when it cannot be
// held.
var degenerate = map[string]string{
	"LINE":       "zero length",
	"CIRCLE":     "no radius",
	"ARC":        "no radius or no sweep",
	"LWPOLYLINE": "fewer than two vertices",
	"POLYLINE":   "fewer than two vertices",
	"TEXT":       "no text",
	"MTEXT":      "no text",
	"ELLIPSE":    "no major axis, or a ratio outside (0, 1]",
	"POINT":      "no location",
}

// put keeps an entity read from r (and subs, the records that follow it):
// native as g when the engine can hold and export it, else preserved as
// the file had it. In a paper-space layout, it is kept on the layout.
func (f *File) put(r dxfRecord, subs []dxfRecord, c dxfCommon, g drawing.Geometry, why string) {
	if g != nil && !exportable(g) {
		g, why = nil, "its coordinates overflow where the engine computes with them"
	}
	if lt := f.fileLinetype(c.otherLinetype, r.line, "entities"); lt != "" {
		c.linetype = lt
	}
	fe := dxfEntity{kind: r.kind, layer: c.layer, color: c.color, linetype: c.linetype, ltscale: c.ltscale, geom: g, line: r.line, why: why}
	switch g.(type) {
	case nil:
		fg := foreignOf(r, subs)
		if r.kind == "DIMENSION" && why == "ordinate" {
			fg.Drawn = f.ordinatePicture(r, r.dimStyleName()) // a block of its own, if it has one, wins
		}
		fe.geom, fe.preserved = fg, true
	case drawing.Image:
		fe.refs().imageDef = imageDefOf(r)
	}
	if r.kind == "MTEXT" {
		r.mtextRefs(&fe)
	}
	if code, ok := drawnBlockAt[r.kind]; ok {
		fe.refs().block, fe.refs().at = r.namedBlock(code)
	}
	switch {
	case f.inBlock != "":
	case f.layout != "":
		fe.layout = cmp.Or(c.layout, f.layout)
		fe.handle, fe.owner = r.entityHandles() // its layout's block record
	case c.paper:
		fe.layout = cmp.Or(c.layout, defaultLayout)
		fe.handle, fe.owner = r.entityHandles()
	default:
		fe.handle, fe.owner = r.entityHandles()
	}
	*f.target = append(*f.target, fe)
}

// defaultLayout is the layout of a paper-space entity that names none
// (R12 has one paper space), as ezdxf names it.
const defaultLayout = "Layout1"

// exportable says whether geometry is finite everywhere the engine
// computes with it: coordinates, extents, bulge arcs and the flattened
// form of an ellipse.
func exportable(g drawing.Geometry) bool {
	if !g.Finite() {
		return false
	}
	b := g.Bounds()
	if b.NonEmpty && !(b.Min.Finite() && b.Max.Finite()) {
		return false
	}
	switch g := g.(type) {
	case drawing.Polyline:
		for _, s := range g.Pieces() {
			if s.Bulge != 0 {
				a := geom.BulgeArc(s.A, s.B, s.Bulge)
				if !a.C.Finite() || !geom.IsFinite(a.R) {
					return false
				}
			}
		}
	case drawing.Ellipse:
		for _, v := range flattenEllipse(g) {
			if !v.P.Finite() {
				return false
			}
		}
	}
	return true
}

func (r dxfRecord) Point() (drawing.Geometry, error) {
	v, err := r.values(10, 20)
	if err != nil {
		return nil, err
	}
	return drawing.Point{P: geom.Pt(v[10], v[20])}, nil
}

func (r dxfRecord) lineGeom() (drawing.Geometry, error) {
	v, err := r.values(10, 20, 11, 21)
	if err != nil {
		return nil, err
	}
	a, b := geom.Pt(v[10], v[20]), geom.Pt(v[11], v[21])
	if a.Same(b) {
		return nil, nil
	}
	return drawing.Line{A: a, B: b}, nil
}

// circle reads a CIRCLE or an ARC (angles 50/51 in degrees).
func (r dxfRecord) circle(c dxfCommon) (drawing.Geometry, error) {
	v, err := r.values(10, 20, 40, 50, 51)
	if err != nil {
		return nil, err
	}
	mirrored, ok := c.ocs()
	if !ok || !(v[40] > 0) {
		return nil, nil
	}
	center := geom.Pt(v[10], v[20])
	start, end := v[50], v[51]
	if mirrored {
		// x → -x: the angle θ becomes 180°-θ, which reverses the sweep.
		center.X = -center.X
		start, end = 180-end, 180-start
	}
	if r.kind == "CIRCLE" {
		return drawing.Circle{C: center, R: v[40]}, nil
	}
	g, err := drawing.NewArc(center, v[40], start, end)
	if err != nil {
		return nil, nil
	}
	return g, nil
}

func (r dxfRecord) lwpolyline(c dxfCommon) (drawing.Geometry, error) {
	mirrored, ok := c.ocs()
	var vs []geom.Vertex
	var ws []geom.Width // each vertex's (40, 41 after its 10)
	closed, constant := false, 0.0
	for _, p := range r.pairs {
		switch p.code {
		case 10, 20, 42:
			var err error
			if vs, err = addVertexPair(vs, p); err != nil {
				return nil, err
			}
			if p.code == 10 {
				ws = append(ws, geom.Width{})
			}
		case 40, 41, 43:
			x, err := p.float()
			if err != nil {
				return nil, err
			}
			switch {
			case p.code == 43:
				constant = x
			case len(ws) == 0:
			case p.code == 40:
				ws[len(ws)-1].Start = x
			default:
				ws[len(ws)-1].End = x
			}
		case 70:
			n, err := p.int()
			if err != nil {
				return nil, err
			}
			closed = n&1 != 0
		}
	}
	if !ok {
		return nil, nil
	}
	if constant != 0 {
		// A constant width overrides the vertices' own, as AutoCAD (and
		// ezdxf) have it.
		for i := range ws {
			ws[i] = geom.Width{Start: constant, End: constant}
		}
	}
	return polylineFrom(vs, ws, closed, mirrored), nil
}

// polylineFrom makes a polyline of vertices read in an object coordinate
// system, with their widths (nil for none); nil for fewer than two
// vertices. A negative width is drawn as wide as its size.
func polylineFrom(vs []geom.Vertex, ws []geom.Width, closed, mirrored bool) drawing.Geometry {
	if len(vs) < 2 {
		return nil
	}
	if mirrored {
		for i := range vs {
			vs[i].P.X, vs[i].Bulge = -vs[i].P.X, -vs[i].Bulge
		}
	}
	for i := range vs {
		if vs[i].Bulge == 0 {
			vs[i].Bulge = 0 // no -0
		}
	}
	for i, w := range ws {
		ws[i] = geom.Width{Start: math.Abs(w.Start), End: math.Abs(w.End)}
	}
	return drawing.NewPolyline(vs, closed).WithWidths(ws)
}

// readPolyline reads a POLYLINE record and its VERTEX records up to the
// SEQEND (a missing SEQEND ends the polyline at the next other entity).
// A 2D polyline is native (spline frame control points, vertex flag 16,
// are passed over); 3D polylines and meshes (flags 8, 16, 64) are
// preserved with their vertices.
func (f *File) readPolyline(sc *dxfScanner, r dxfRecord) error {
	c, err := r.common()
	if err != nil {
		return err
	}
	flags := r.flags()
	defaults, err := r.values(40, 41)
	if err != nil {
		return err
	}
	var vs []geom.Vertex
	var ws []geom.Width
	var subs []dxfRecord
	for {
		p, err := sc.peek()
		if err == io.EOF {
			break // the section's reader reports the missing ENDSEC
		}
		if err != nil {
			return err
		}
		if p.code != 0 || p.word() != "VERTEX" && p.word() != "SEQEND" {
			break
		}
		sc.next()
		vr, err := readRecord(sc, p, nil)
		if err != nil {
			return err
		}
		subs = append(subs, vr)
		if vr.kind == "SEQEND" {
			break
		}
		v, err := vr.values(10, 20, 40, 41, 42, 70)
		if err != nil {
			return err
		}
		if int64(v[70])&16 != 0 {
			continue
		}
		vs = append(vs, geom.Vertex{P: geom.Pt(v[10], v[20]), Bulge: v[42]})
		// A vertex without its own widths has the polyline's.
		w := geom.Width{Start: defaults[40], End: defaults[41]}
		if vr.has(40) {
			w.Start = v[40]
		}
		if vr.has(41) {
			w.End = v[41]
		}
		ws = append(ws, w)
	}
	mirrored, ok := c.ocs()
	switch {
	case !ok:
		f.put(r, subs, c, nil, "3D (its extrusion direction is not ±Z)")
	case flags&(16|64) != 0:
		f.put(r, subs, c, nil, "a polygon or polyface mesh")
	case flags&8 != 0:
		f.put(r, subs, c, nil, "a 3D polyline")
	default:
		g := polylineFrom(vs, ws, flags&1 != 0, mirrored)
		why := ""
		if g == nil {
			why = "degenerate (" + degenerate["POLYLINE"] + ")"
		}
		f.put(r, subs, c, g, why)
	}
	return nil
}

func (r dxfRecord) text(c dxfCommon, styles textStyles) (drawing.Geometry, error) {
	g, ok, err := r.textLine(c, 73, styles)
	if err != nil || !ok || g.Text == "" {
		return nil, err
	}
	return g, nil
}

// readable is how a text seen from below (extrusion -Z) is drawn so that
// it reads, as CAD programs draw a mirrored text with MIRRTEXT 0: its
// glyphs run along the plan's image of its OCS rotation r, 180 - r,
// mirrored; the same box read the right way runs the other way, -r, from
// the other end (its horizontal alignment swapped) with its top where it
// was.
func readable(r float64, a drawing.Align) (float64, drawing.Align) {
	a.H = drawing.AlignRight - a.H
	return -r, a
}

func (r dxfRecord) ellipse(c dxfCommon) (drawing.Geometry, error) {
	v, err := r.values(10, 20, 11, 21, 40, 41, 42)
	if err != nil {
		return nil, err
	}
	end := 2 * math.Pi
	for _, p := range r.pairs {
		if p.code == 42 {
			end = v[42]
		}
	}
	mirrored, ok := c.ocs()
	major, ratio := geom.Pt(v[11], v[21]), v[40]
	if !ok || major.Len() == 0 || !(ratio > 0 && ratio <= 1) {
		return nil, nil
	}
	start := v[41]
	if mirrored {
		// The minor axis is the major turned clockwise: the parameter t
		// is the engine's -t, so the sweep [s, e] is [-e, -s].
		start, end = -end, -start
	}
	// Equal parameters, or parameters a turn apart within Tolerance along
	// the curve, make a full ellipse.
	sw, tol := geom.NormRad(end-start), geom.TolAt(major.Len())/major.Len()
	full := math.Abs(end-start) >= 2*math.Pi || sw <= tol || 2*math.Pi-sw <= tol
	if full {
		start, end = 0, 360
	} else {
		start, end = degFromRad(start), degFromRad(end)
	}
	g, err := drawing.NewEllipse(geom.Pt(v[10], v[20]), major, ratio, start, end)
	if err != nil {
		return nil, nil
	}
	return g, nil
}

// degFromRad converts radians read from a file to degrees: a round number
// of nanodegrees when its radians are the value read (as a person or the
// engine wrote), or else the least of the degrees whose radians are those
// of Deg(r) — one value for all the degrees a written number of radians
// stands for, so that a file's angles survive the engine's export and
// import again unchanged.
func degFromRad(r float64) float64 {
	d := geom.Deg(r)
	if c := math.Round(d*1e9) / 1e9; geom.Rad(c) == r {
		return c
	}
	target := geom.Rad(d)
	for range 64 { // Rad is monotonic: the degrees of one radian value are a run
		prev := math.Nextafter(d, math.Inf(-1))
		if geom.Rad(prev) != target {
			break
		}
		d = prev
	}
	return d
}

// addVertexPair applies one pair of a list of vertices (10 starts a
// vertex, 20 is its y, 42 its bulge; a y or bulge before any vertex has
// nothing to apply to).
func addVertexPair(vs []geom.Vertex, p dxfPair) ([]geom.Vertex, error) {
	x, err := p.float()
	if err != nil {
		return vs, err
	}
	switch {
	case p.code == 10:
		vs = append(vs, geom.Vertex{P: geom.Vec{X: x}})
	case len(vs) == 0:
	case p.code == 20:
		vs[len(vs)-1].P.Y = x
	default:
		vs[len(vs)-1].Bulge = x
	}
	return vs, nil
}
