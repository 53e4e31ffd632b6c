package drawing

import (
	"math"
	"slices"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Picture is what an annotation entity draws, in world coordinates, for
// the renderers (SVG, PNG, PDF, the graphics of a DXF dimension): strokes
// (segments and arcs), filled areas (closed outlines, filled with the
// even-odd rule, or by the non-zero rule when NonZero says so), masked
// areas (filled in the page's colour, hiding what was drawn before), dots
// and texts. Every renderer draws the same picture, so they agree.
type Picture struct {
	Strokes []any        // geom.Segment and geom.Arc
	Fills   [][]geom.Vec // closed outlines, filled together (even-odd, unless NonZero)
	// NonZero fills the Fills by the non-zero rule: outlines that all run
	// counter-clockwise and overlap stay filled where they overlap (the
	// outlines of a polyline with widths).
	NonZero bool
	Masks   [][]geom.Vec // closed outlines, filled in the page's colour first
	Dots    []geom.Vec
	Texts   []Text
	// Backdrops are areas filled in colours of their own before anything
	// else (an MTEXT's background mask).
	Backdrops []Backdrop
	// Shade, when set, paints the Fills with a gradient instead of the
	// entity's colour (a gradient hatch).
	Shade *Shade
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
	for _, d := range p.Backdrops {
		for _, q := range d.Outline {
			b.AddPoint(q)
		}
	}
	for _, t := range p.Texts {
		b.AddBox(t.Bounds())
	}
	return b
}

// Empty reports whether the picture draws nothing.
func (p Picture) Empty() bool { return p.size() == 0 }

// Pictured is a geometry drawn as a Picture rather than by its primitives
// alone: multi-line text, dimensions, hatches, solids, leaders,
// wipeouts, polylines (which have widths) and preserved entities (which
// may fill).
type Pictured interface {
	Geometry
	Picture() Picture
}

// PictureOf is what the entities es draw together, inserts expanded
// (their placed entities drawn in turn), or false when that is more than
// limit pieces (strokes, fills, dots and texts) or inserts nest deeper
// than the document allows. It is how a dimension keeps what the program
// that wrote it drew (its block, see Dimension.Drawn). Points on the
// layer Defpoints mark where a dimension measures and are not drawn, as
// CAD programs do not plot them.
func PictureOf(es []*Entity, limit int) (Picture, bool) {
	var p Picture
	ok := p.drawAll(es, limit, 0)
	return p, ok && p.size() <= limit
}

// maxPictureDepth bounds the nesting of inserts PictureOf expands.
const maxPictureDepth = 16

func (p *Picture) drawAll(es []*Entity, limit, depth int) bool {
	for _, e := range es {
		if p.size() > limit {
			return false
		}
		switch g := e.Geom.(type) {
		case Insert:
			if depth >= maxPictureDepth || Cost(g) > int64(limit) {
				return false
			}
			if !p.drawAll(g.PlacedFor(e), limit, depth+1) {
				return false
			}
		case Point:
			if !strings.EqualFold(e.Layer, "Defpoints") {
				p.Dots = append(p.Dots, g.P)
			}
		default:
			p.draw(g)
		}
	}
	return true
}

// draw appends what g draws: its picture, a text, or its primitives as
// strokes.
func (p *Picture) draw(g Geometry) {
	switch g := g.(type) {
	case Pictured:
		p.add(g.Picture())
	case Text:
		p.Texts = append(p.Texts, g)
	default:
		p.Strokes = appendStrokes(p.Strokes, g.Prims())
	}
}

// add appends what q draws.
func (p *Picture) add(q Picture) {
	p.Strokes = appendStrokes(p.Strokes, q.Strokes)
	p.Fills = append(p.Fills, q.Fills...)
	p.Masks = append(p.Masks, q.Masks...)
	p.Dots = append(p.Dots, q.Dots...)
	p.Texts = append(p.Texts, q.Texts...)
	// Not q's Backdrops: what a writer drew is stored without them (see
	// Picture.encodeTo), and must draw the same before it is stored and
	// after.
}

// cost is the cost of drawing what a writer drew (see Cost): its pieces,
// or 1 without it.
func (p *Picture) cost() int64 {
	if p == nil {
		return 1
	}
	return int64(max(1, p.size()))
}

func (p *Picture) size() int {
	return len(p.Strokes) + len(p.Fills) + len(p.Masks) + len(p.Dots) + len(p.Texts) + len(p.Backdrops)
}

// appendStrokes appends the primitives ps as a picture's strokes:
// segments and arcs as they are, an elliptical arc as chords.
func appendStrokes(dst []any, ps []any) []any {
	for _, s := range ps {
		switch s := s.(type) {
		case geom.Segment, geom.Arc:
			dst = append(dst, s)
		case geom.EllipseArc:
			dst = appendChords(dst, s.At, s.Start, s.Sweep, geom.Pt(0, 0))
		}
	}
	return dst
}

// appendChords appends the chords of the curve at(t) (then moved by d)
// for t from start through sweep radians: one for every 1/64 of a turn.
func appendChords(dst []any, at func(float64) geom.Vec, start, sweep float64, d geom.Vec) []any {
	n := max(4, int(math.Ceil(64*math.Abs(sweep)/(2*math.Pi))))
	prev := at(start).Add(d)
	for i := 1; i <= n; i++ {
		q := at(start + sweep*float64(i)/float64(n)).Add(d)
		dst = append(dst, geom.Segment{A: prev, B: q})
		prev = q
	}
	return dst
}

// affined is the picture mapped by m, which must not reflect: segments,
// fills and dots point by point, arcs as arcs when m is a similarity and
// as chords mapped otherwise, texts at their insertion points as the
// nearest similarity places them.
func (p Picture) affined(m geom.Affine) Picture {
	out := Picture{
		Strokes: make([]any, 0, len(p.Strokes)),
		Fills:   mappedFills(p.Fills, m.Point),
		Masks:   mappedFills(p.Masks, m.Point),
		Dots:    make([]geom.Vec, len(p.Dots)),
		Texts:   make([]Text, len(p.Texts)),
	}
	similar := m.Similar()
	for _, s := range p.Strokes {
		switch s := s.(type) {
		case geom.Segment:
			out.Strokes = append(out.Strokes, geom.Segment{A: m.Point(s.A), B: m.Point(s.B)})
		case geom.Arc:
			if similar {
				turn := m.Linear(geom.Pt(1, 0))
				s.C, s.R, s.Start = m.Point(s.C), s.R*turn.Len(), s.Start+turn.Angle()
				out.Strokes = append(out.Strokes, s)
				continue
			}
			at := func(t float64) geom.Vec { return m.Point(s.At(t)) }
			out.Strokes = appendChords(out.Strokes, at, s.Start, s.Sweep, geom.Vec{})
		}
	}
	for i, q := range p.Dots {
		out.Dots[i] = m.Point(q)
	}
	for i, t := range p.Texts {
		out.Texts[i] = t.Affined(m).(Text)
	}
	return out
}

// placed is what a writer drew (p, perhaps nil) placed with its entity
// by m: nil when there is none, or when m reflects (its text would read
// backwards; the entity is then drawn afresh).
func (p *Picture) placed(m geom.Affine) *Picture {
	if p == nil || m.Det() <= 0 {
		return nil
	}
	return new(p.affined(m))
}

// drawnTag tags what a writer drew at the end of an entity's encoding.
const drawnTag = 'P'

// encodeDrawn appends what a writer drew, tagged, when there is any.
func (p *Picture) encodeDrawn(w *encoder) {
	if p != nil {
		w.byte(drawnTag)
		p.encodeTo(w)
	}
}

// decodeDrawn reads what encodeDrawn wrote, or nil.
func decodeDrawn(r *decoder) *Picture {
	if len(r.b) == 0 || r.b[0] != drawnTag {
		return nil
	}
	r.byte()
	return new(decodePicture(r))
}

// shared is p with every slice's capacity cut to its length, so that a
// caller appending to what a geometry returns cannot write into the
// geometry's own picture.
func (p Picture) shared() Picture {
	return Picture{Strokes: slices.Clip(p.Strokes), Fills: slices.Clip(p.Fills), Masks: slices.Clip(p.Masks), Dots: slices.Clip(p.Dots), Texts: slices.Clip(p.Texts), Backdrops: slices.Clip(p.Backdrops), Shade: p.Shade}
}

// encodeTo appends the picture's encoding: the strokes (each 'S' x1 y1 x2
// y2, or 'A' cx cy r start sweep reversed), the fills and the masks
// (each n points), the dots and the texts (each its line, see Text.encodeLine, and its
// alignment's byte), each list led by its length.
func (p Picture) encodeTo(w *encoder) {
	w.uvarint(uint64(len(p.Strokes)))
	for _, s := range p.Strokes {
		switch s := s.(type) {
		case geom.Segment:
			w.byte('S')
			w.vec(s.A)
			w.vec(s.B)
		case geom.Arc:
			w.byte('A')
			w.vec(s.C)
			w.float(s.R)
			w.float(s.Start)
			w.float(s.Sweep)
			w.bool(s.Reversed)
		}
	}
	for _, areas := range [][][]geom.Vec{p.Fills, p.Masks} {
		w.uvarint(uint64(len(areas)))
		for _, f := range areas {
			w.vecs(f)
		}
	}
	w.vecs(p.Dots)
	w.uvarint(uint64(len(p.Texts)))
	for _, t := range p.Texts {
		t.encodeLine(w)
		w.byte(t.Align.byte())
	}
}

func decodePicture(r *decoder) Picture {
	var p Picture
	count := func(least int) int {
		n := r.uvarint()
		if n > uint64(len(r.b)/least) {
			r.fail("picture")
			return 0
		}
		return int(n)
	}
	for range count(33) {
		switch r.byte() {
		case 'S':
			a := r.vec()
			p.Strokes = append(p.Strokes, geom.Segment{A: a, B: r.vec()})
		case 'A':
			a := geom.Arc{C: r.vec(), R: r.float(), Start: r.float(), Sweep: r.float()}
			a.Reversed = r.byte() == 1
			p.Strokes = append(p.Strokes, a)
		default:
			r.fail("picture stroke")
			return p
		}
	}
	for _, areas := range []*[][]geom.Vec{&p.Fills, &p.Masks} {
		for range count(1) {
			*areas = append(*areas, r.vecs("picture"))
		}
	}
	p.Dots = r.vecs("picture")
	for range count(34) {
		t := decodeText(r)
		t.Align = r.align()
		p.Texts = append(p.Texts, t)
	}
	return p
}

// finite says whether every point and size of the picture is finite.
func (p Picture) finite() bool {
	b := p.Bounds()
	return !b.NonEmpty || b.Min.Finite() && b.Max.Finite()
}
