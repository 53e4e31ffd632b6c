package dxf

import (
	"math"
	"slices"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
)

// A document's constraints (DESIGN §14) travel in a 2018 file as the
// solved geometry, which every program reads, and as cadbridge's own
// application data, which only cadbridge reads back: one XRECORD under
// the entry CADBRIDGE_CONSTRAINTS of the named object dictionary (as
// AutoCAD keeps its own parametric constraints under ACAD_ASSOCNETWORK
// there), whose pairs are, after the marker:
//
//	1 CADBRIDGE_CONSTRAINTS, 90 the format (1), 91 the next id;
//	then a constraint a group: 92 id, 1 kind, 40 value,
//	  330 a ref's entity (a soft pointer: programs that renumber
//	  handles translate it), 3 the ref's point when it names one,
//	  41 a pin of a fixed constraint (each, in order),
//	  331 the dimension that shows it, when it has one, and the points
//	  it is bound to (DXF has no word for that binding): a bind each,
//	  94 slot, 332 entity, 95 snap, 96 index, 333 the second line of
//	  an angle's vertex.
//
// R12 files carry the geometry only. Entities keep their handles in a
// 2018 file (see Write2018), so a ref's pointer is the entity's handle;
// on import the pointers are mapped to the handles the entities took.

// constraintsEntry is the named object dictionary's entry of the table,
// and the XRECORD's first string.
const constraintsEntry = "CADBRIDGE_CONSTRAINTS"

// constraintsFormat is the layout of the XRECORD's pairs.
const constraintsFormat = 1

// constraintRecord writes the XRECORD of the document's constraints t
// under handle h, owned by the named object dictionary; refs to entities
// the file does not hold (which no constraint should have) leave their
// constraint out.
func (w *dxfWriter) constraintRecord(d *drawing.Document, h uint64, t *drawing.Constraints) {
	w.pair(0, "XRECORD")
	w.pairHandle(5, h)
	w.pair(102, "{ACAD_REACTORS")
	w.pairHandle(330, hRootDict)
	w.pair(102, "}")
	w.pairHandle(330, hRootDict)
	w.pair(100, "AcDbXrecord")
	w.int(280, 1)
	w.pair(1, constraintsEntry)
	w.int(90, constraintsFormat)
	w.int(91, int(t.Next))
	held := func(h uint64) bool { return d.Entity(h) != nil }
	for _, c := range t.List {
		if slices.ContainsFunc(c.Refs, func(r drawing.Ref) bool { return !held(r.Handle) }) {
			continue
		}
		w.int(92, int(c.ID))
		w.pair(1, c.Kind)
		w.float(40, c.Value)
		for _, r := range c.Refs {
			w.pairHandle(330, r.Handle)
			if r.Point != "" {
				w.pair(3, r.Point)
			}
		}
		for _, p := range c.Pins {
			w.float(41, p)
		}
		if c.Dimension != 0 && held(c.Dimension) {
			w.pairHandle(331, c.Dimension)
			g, _ := d.Entity(c.Dimension).Geom.(drawing.Dimension)
			for _, b := range g.Binds {
				w.int(94, int(b.Slot))
				w.pairHandle(332, b.Handle)
				w.int(95, int(b.Snap))
				w.int(96, b.Index)
				if b.With != 0 {
					w.pairHandle(333, b.With)
				}
			}
		}
	}
}

// fileConstraints is the constraint table a file holds, its refs the
// file's handles, and the line of its record.
type fileConstraints struct {
	next int64
	list []drawing.Constraint
	// binds are the points each constraint's dimension is bound to, by
	// the constraint's index in list.
	binds map[int][]drawing.Bind
	line  int
}

// readConstraintRecord reads cadbridge's XRECORD of constraints (r, whose
// pairs follow its subclass marker); a record of another format is passed
// over with a warning.
func (f *File) readConstraintRecord(r dxfRecord) {
	data := r.pairs
	for i, p := range data {
		if p.code == 1 {
			data = data[i+1:]
			break
		}
	}
	t := &fileConstraints{line: r.line, binds: map[int][]drawing.Bind{}}
	var c *drawing.Constraint
	bad := func(p dxfPair) {
		f.rep.warn(p.line, "cadbridge's constraints: a %d pair of %q that does not read: the constraints are not imported", p.code, clip(p.value))
	}
	for _, p := range data {
		switch p.code {
		case 90:
			if n, err := p.int(); err != nil || n != constraintsFormat {
				f.rep.warn(p.line, "cadbridge's constraints in format %s, which this engine does not read: not imported", clip(p.word()))
				return
			}
		case 91:
			n, err := p.int()
			if err != nil {
				bad(p)
				return
			}
			t.next = n
		case 92:
			n, err := p.int()
			if err != nil || n <= 0 {
				bad(p)
				return
			}
			t.list = append(t.list, drawing.Constraint{ID: n})
			c = &t.list[len(t.list)-1]
		case 94, 95, 96, 332, 333:
			if c == nil {
				continue
			}
			i := len(t.list) - 1
			if p.code == 94 {
				t.binds[i] = append(t.binds[i], drawing.Bind{})
			}
			if len(t.binds[i]) == 0 {
				continue
			}
			b := &t.binds[i][len(t.binds[i])-1]
			switch p.code {
			case 332:
				b.Handle = hexHandle(p.value)
			case 333:
				b.With = hexHandle(p.value)
			default:
				n, err := p.int()
				if err != nil || n < 0 || n > math.MaxInt32 {
					bad(p)
					return
				}
				switch p.code {
				case 94:
					b.Slot = enginev1.DimensionSlot(n)
				case 95:
					b.Snap = enginev1.SnapKind(n)
				case 96:
					b.Index = int(n)
				}
			}
		case 1, 40, 330, 3, 41, 331:
			if c == nil {
				continue
			}
			switch p.code {
			case 1:
				c.Kind = p.word()
			case 40, 41:
				v, err := p.float()
				if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
					bad(p)
					return
				}
				if p.code == 40 {
					c.Value = v
				} else {
					c.Pins = append(c.Pins, v)
				}
			case 330:
				c.Refs = append(c.Refs, drawing.Ref{Handle: hexHandle(p.value)})
			case 3:
				if len(c.Refs) > 0 {
					c.Refs[len(c.Refs)-1].Point = p.word()
				}
			case 331:
				c.Dimension = hexHandle(p.value)
			}
		}
	}
	f.constraints = t
}

// buildConstraints gives the document d the file's constraints, their
// refs mapped from the file's handles to the handles the entities took
// (byFile). A constraint of a kind the engine does not know, or one
// naming an entity the file no longer has (another program deleted it),
// is dropped with a warning; a driving dimension whose dimension is gone
// is kept as a plain constraint, with a warning.
func (f *File) buildConstraints(d *drawing.Document, byFile map[uint64]uint64) {
	fc := f.constraints
	if fc == nil || len(fc.list) == 0 {
		return
	}
	t := &drawing.Constraints{Next: 1}
	for i, c := range fc.list {
		if !slices.Contains(drawing.ConstraintKinds, c.Kind) {
			f.rep.warn(fc.line, "constraint %d is of kind %q, which this engine does not know: dropped", c.ID, clip(c.Kind))
			continue
		}
		if len(t.List) > 0 && c.ID <= t.List[len(t.List)-1].ID {
			f.rep.warn(fc.line, "constraint %d comes after constraint %d: dropped (ids ascend)", c.ID, t.List[len(t.List)-1].ID)
			continue
		}
		var missing []string
		for i, r := range c.Refs {
			h, ok := byFile[r.Handle]
			if !ok {
				missing = append(missing, drawing.FormatHandle(r.Handle))
				continue
			}
			c.Refs[i].Handle = h
		}
		if len(missing) > 0 || len(c.Refs) == 0 {
			f.rep.warn(fc.line, "constraint %d (%s) names %s, which the file does not hold: dropped", c.ID, c.Kind, entityWords(missing))
			continue
		}
		if c.Dimension != 0 {
			h, ok := byFile[c.Dimension]
			if ok {
				_, ok = d.Entity(h).Geom.(drawing.Dimension)
			}
			if !ok {
				f.rep.warn(fc.line, "constraint %d (%s) was shown by the dimension %s, which the file does not hold: kept as a constraint", c.ID, c.Kind, drawing.FormatHandle(c.Dimension))
				h = 0
			}
			c.Dimension = h
			if ok {
				f.rebind(d, h, fc.binds[i], byFile)
			}
		}
		t.List = append(t.List, c)
		t.Next = max(t.Next, c.ID+1)
	}
	t.Next = max(t.Next, fc.next)
	if len(t.List) > 0 {
		d.SetConstraints(t)
	}
}

// rebind binds the imported dimension h to the points binds name (in the
// file's handles), as it was bound when it was written, so that it follows
// its entities again. It is left unbound when one of them is gone, or is
// not older than the dimension (entities bind only to older ones).
func (f *File) rebind(d *drawing.Document, h uint64, binds []drawing.Bind, byFile map[uint64]uint64) {
	e := d.Entity(h)
	g, ok := e.Geom.(drawing.Dimension)
	if !ok || len(binds) == 0 || len(g.Binds) > 0 {
		return
	}
	mapped := make([]drawing.Bind, len(binds))
	for i, b := range binds {
		b.Handle, ok = byFile[b.Handle]
		if !ok || b.Handle >= h {
			return
		}
		if b.With != 0 {
			if b.With, ok = byFile[b.With]; !ok || b.With >= h {
				return
			}
		}
		mapped[i] = b
	}
	g.Binds = mapped
	d.SetEntity(h, e.With(g))
}

// entityWords is "the entity 1F" or "the entities 1F, 20".
func entityWords(handles []string) string {
	switch len(handles) {
	case 0:
		return "no entity"
	case 1:
		return "the entity " + handles[0]
	}
	return "the entities " + strings.Join(handles, ", ")
}

// DropConstraint removes the constraint id from the document d's table
// (one an import read but the engine cannot solve), with a warning saying
// why.
func (f *File) DropConstraint(d *drawing.Document, id int64, why string) {
	line := 0
	if f.constraints != nil {
		line = f.constraints.line
	}
	f.rep.warn(line, "constraint %d: %s: dropped", id, why)
	t := d.Constraints().Without(id)
	if t.Len() == 0 {
		t = nil
	}
	d.SetConstraints(t)
}
