package drawing

import (
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Block attributes: a block defines what may be tagged on each of its
// inserts ([Attdef], DXF's ATTDEF), and each insert carries its values
// ([Attrib], DXF's ATTRIB): a part number on every bolt.

// Attrib is the value of a block attribute on an insert: its tag, and the
// text showing the value, in world coordinates; Invisible ones are kept,
// not drawn.
type Attrib struct {
	Tag       string
	Text      Text
	Invisible bool
}

// Attdef is a block attribute's definition (DXF's ATTDEF), among a
// block's entities: the tag its inserts' values answer to, the prompt a
// program asks with, and Text (its default value, placed where the values
// go). Flags are DXF's: 1 invisible, 2 constant, 4 verify, 8 preset. In a
// block it is not drawn, but for a constant one (whose value is its
// default); elsewhere it is drawn as its tag.
type Attdef struct {
	Text   Text
	Tag    string
	Prompt string
	Flags  int32
}

// Constant reports whether the attribute has one value for every insert
// (its default), which the insert shows.
func (g Attdef) Constant() bool { return g.Flags&2 != 0 }

// Kind implements [Geometry].
func (Attdef) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_ATTDEF }

// Picture implements [Pictured]: its tag, where its text goes.
func (g Attdef) Picture() Picture {
	t := g.Text
	t.Text = g.Tag
	return Picture{Texts: []Text{t}}
}

// Prims implements [Geometry]: none.
func (Attdef) Prims() []any { return nil }

// Bounds implements [Geometry]: the tag's estimated box.
func (g Attdef) Bounds() geom.Box { return g.Picture().Bounds() }

// Finite implements [Geometry].
func (g Attdef) Finite() bool { return g.Text.Finite() }

// Transformed implements [Geometry].
func (g Attdef) Transformed(x geom.Xform) Geometry {
	out := g
	out.Text = g.Text.Transformed(x).(Text)
	return out
}

// encodeTo writes: tag, prompt (strings), flags (4 bytes), then the
// text's encoding (see Text.encodeTo).
func (g Attdef) encodeTo(w *encoder) {
	w.string(g.Tag)
	w.string(g.Prompt)
	w.int32(g.Flags)
	g.Text.encodeTo(w)
}

func decodeAttdef(r *decoder) Attdef {
	g := Attdef{Tag: r.string(), Prompt: r.string(), Flags: r.int32()}
	g.Text = decodeTextEntity(r)
	return g
}

// decodeText reads a line of text's encoding (see Text.encodeLine).
func decodeText(r *decoder) Text {
	t := r.string()
	p := r.vec()
	h := r.float()
	return Text{Text: t, P: p, Height: h, Rotation: r.float()}
}

func (g Attdef) fill(w *wire) {
	g.Text.fill(w)
	w.pb.Tag, w.pb.Prompt, w.pb.AttributeFlags = new(g.Tag), new(g.Prompt), new(g.Flags)
}

// shownAttribs are the texts of an insert's visible attribute values.
func shownAttribs(as []Attrib) []Text {
	var out []Text
	for _, a := range as {
		if !a.Invisible {
			out = append(out, a.Text)
		}
	}
	return out
}

// encodeAttribs writes n (uvarint) and n × (tag, invisible (byte), the
// text's line (see Text.encodeLine)), then, when any is aligned
// otherwise than at the start of its baseline, 'J' and n alignments;
// then fits and styles alike.
func encodeAttribs(w *encoder, as []Attrib) {
	w.uvarint(uint64(len(as)))
	aligned := false
	for _, a := range as {
		w.string(a.Tag)
		w.bool(a.Invisible)
		a.Text.encodeLine(w)
		aligned = aligned || a.Text.Align != (Align{})
	}
	if aligned {
		w.byte(textAlign)
		for _, a := range as {
			w.byte(a.Text.Align.byte())
		}
	}
	// Then, when any is set between two points or in a style, 'F' or 'S'
	// and n × what each text's encodeSet writes after its own tag.
	fit, styled := false, false
	for _, a := range as {
		fit, styled = fit || a.Text.Fit != FitNone, styled || a.Text.Style != (TextStyle{})
	}
	if fit {
		w.byte(textFit)
		for _, a := range as {
			w.byte(a.Text.Fit)
			w.vec(a.Text.End)
		}
	}
	if styled {
		w.byte(textStyle)
		for _, a := range as {
			a.Text.Style.encodeTo(w)
		}
	}
}

func decodeAttribs(r *decoder) []Attrib {
	n := r.uvarint()
	if n == 0 || n > uint64(len(r.b)/36) { // an attribute takes 36 bytes at least
		r.fail("attributes")
		return nil
	}
	as := make([]Attrib, n)
	for i := range as {
		as[i] = Attrib{Tag: r.string(), Invisible: r.byte() == 1}
		as[i].Text = decodeText(r)
	}
	if len(r.b) > 0 && r.b[0] == textAlign {
		r.byte()
		for i := range as {
			as[i].Text.Align = r.align()
		}
	}
	if len(r.b) > 0 && r.b[0] == textFit {
		r.byte()
		for i := range as {
			if as[i].Text.Fit = r.byte(); as[i].Text.Fit > FitWidth {
				r.fail("attribute fit")
			}
			as[i].Text.End = r.vec()
		}
	}
	if len(r.b) > 0 && r.b[0] == textStyle {
		r.byte()
		for i := range as {
			as[i].Text.Style = decodeTextStyle(r)
		}
	}
	return as
}

func pbAttribs(as []Attrib) []*enginev1.Attribute {
	out := make([]*enginev1.Attribute, len(as))
	for i, a := range as {
		out[i] = &enginev1.Attribute{Tag: a.Tag, Text: a.Text.Text, Insertion: pbPoint(a.Text.P), Height: a.Text.Height, Rotation: a.Text.Rotation, Invisible: a.Invisible}
	}
	return out
}

// Affined implements [Geometry]: as Text's.
func (g Attdef) Affined(m geom.Affine) Geometry {
	out := g
	out.Text = g.Text.Affined(m).(Text)
	return out
}
