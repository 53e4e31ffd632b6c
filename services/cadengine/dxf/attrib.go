package dxf

import (
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Block attributes: ATTDEF, read into a native drawing.Attdef, and the
// ATTRIBs after an INSERT, its attribute values (drawing.Attrib).

// textLine is the line of text a TEXT, ATTDEF or ATTRIB shows: where it
// is and how it is aligned there (see aligned; vertical is the code of
// its vertical justification, TEXT's 73, an attribute's 74), height 40
// (the default when not positive), rotation 50, value 1 (which may be
// empty), in its object coordinate system, its style 7 with its own width
// factor 41, oblique angle 51 and generation flags 71 (see
// textStyles.of), and, justified between two points, the points (see
// fitted); false for one out of the plan.
func (r dxfRecord) textLine(c dxfCommon, vertical int, styles textStyles) (drawing.Text, bool, error) {
	v, err := r.values(10, 20, 11, 21, 40, 41, 50, 51, 71, 72, 73, 74)
	if err != nil {
		return drawing.Text{}, false, err
	}
	t := drawing.Text{Height: v[40], Rotation: v[50], Style: styles.of(r, v, true)}
	t.P, t.Align = r.aligned(v, vertical)
	fit := r.fitted(v, &t)
	for _, p := range r.pairs {
		if p.code == 1 {
			t.Text = decodeDXFText(p.value)
		}
	}
	if !(t.Height > 0) {
		t.Height = drawing.DefaultTextHeight
	}
	mirrored, ok := c.ocs()
	switch {
	case mirrored && fit:
		t.P.X, t.End.X = -t.P.X, -t.End.X
		t = readableFit(t)
	case mirrored:
		t.P.X = -t.P.X
		t.Rotation, t.Align = readable(t.Rotation, t.Align)
	}
	t.Rotation = geom.NormDeg(t.Rotation)
	return t, ok, nil
}

// tagAndFlags are an ATTDEF's or ATTRIB's tag 2, prompt 3 and flags 70.
func (r dxfRecord) tagAndFlags() (tag, prompt string, flags int32, err error) {
	for _, p := range r.pairs {
		switch p.code {
		case 2:
			tag = strings.TrimSpace(p.value)
		case 3:
			prompt = decodeDXFText(p.value)
		case 70:
			n, err := p.int()
			if err != nil {
				return "", "", 0, err
			}
			flags = int32(n)
		}
	}
	return tag, prompt, flags, nil
}

// attdef reads an ATTDEF.
func (r dxfRecord) attdef(c dxfCommon, styles textStyles) (drawing.Geometry, string, error) {
	t, ok, err := r.textLine(c, 74, styles)
	if err != nil || !ok {
		return nil, "3D (its extrusion direction is not ±Z)", err
	}
	tag, prompt, flags, err := r.tagAndFlags()
	if err != nil {
		return nil, "", err
	}
	if tag == "" {
		return nil, "degenerate (no tag)", nil
	}
	return drawing.Attdef{Text: t, Tag: tag, Prompt: prompt, Flags: flags}, "", nil
}

// attribsOf are the attribute values of an insert, from the records that
// follow it (ATTRIBs up to a SEQEND; any other is passed over), in the
// insert's object coordinate system (c).
func attribsOf(subs []dxfRecord, c dxfCommon, styles textStyles) ([]drawing.Attrib, error) {
	var out []drawing.Attrib
	for _, s := range subs {
		if s.kind != "ATTRIB" {
			continue
		}
		t, _, err := s.textLine(c, 74, styles)
		if err != nil {
			return nil, err
		}
		tag, _, flags, err := s.tagAndFlags()
		if err != nil {
			return nil, err
		}
		out = append(out, drawing.Attrib{Tag: tag, Text: t, Invisible: flags&1 != 0})
	}
	return out, nil
}

// attdef writes an ATTDEF: its text (default value), prompt, tag, flags.
func (w *dxfWriter) attdef(e *drawing.Entity, g drawing.Attdef) {
	w.common("ATTDEF", e.Handle, e)
	w.attribBody(g.Text, g.Tag, g.Flags, "AcDbAttributeDefinition", &g.Prompt)
}

// attribBody writes what follows an ATTDEF's or ATTRIB's common codes:
// its text (subclass AcDbText), then its subclass's version, prompt (an
// ATTDEF's), tag, flags and vertical justification.
func (w *dxfWriter) attribBody(t drawing.Text, tag string, flags int32, class string, prompt *string) {
	w.sub("AcDbText")
	w.textLine(t)
	w.sub(class)
	if w.v2018 {
		w.int(280, 0)
	}
	if prompt != nil {
		w.pair(3, dxfText(*prompt))
	}
	w.pair(2, tag)
	w.int(70, int(flags))
	if t.Align.V != drawing.AlignBaseline {
		w.int(74, int(t.Align.V))
	}
}

// attribs writes an insert's attribute values after it (h is its
// handle): an ATTRIB each, owned by the insert, on its layer, then a
// SEQEND.
func (w *dxfWriter) attribs(h uint64, e *drawing.Entity, as []drawing.Attrib) {
	owner, paper := w.owner, w.paper
	w.owner, w.paper = h, h
	for _, a := range as {
		var flags int32
		if a.Invisible {
			flags = 1
		}
		w.common("ATTRIB", w.handle(), e)
		w.attribBody(a.Text, a.Tag, flags, "AcDbAttribute", nil)
	}
	w.common("SEQEND", w.handle(), e)
	w.owner, w.paper = owner, paper
}
