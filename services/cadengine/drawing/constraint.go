package drawing

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The constraint kinds of DESIGN §14, as the wire spells them.
const (
	KindCoincident    = "coincident"
	KindHorizontal    = "horizontal"
	KindVertical      = "vertical"
	KindParallel      = "parallel"
	KindPerpendicular = "perpendicular"
	KindTangent       = "tangent"
	KindEqual         = "equal"
	KindConcentric    = "concentric"
	KindFixed         = "fixed"
	KindPointOn       = "point_on"
	KindMidpoint      = "midpoint"
	KindSymmetric     = "symmetric"
	KindDistance      = "distance"
	KindDistanceX     = "distance_x"
	KindDistanceY     = "distance_y"
	KindAngle         = "angle"
	KindRadius        = "radius"
	KindDiameter      = "diameter"
)

// ConstraintKinds are the kinds there are, geometric ones first; Dimensional
// says which of them take a value.
var ConstraintKinds = []string{
	KindCoincident, KindHorizontal, KindVertical, KindParallel, KindPerpendicular,
	KindTangent, KindEqual, KindConcentric, KindFixed, KindPointOn, KindMidpoint,
	KindSymmetric, KindDistance, KindDistanceX, KindDistanceY, KindAngle, KindRadius,
	KindDiameter,
}

// Dimensional reports whether constraints of kind take a value.
func Dimensional(kind string) bool {
	switch kind {
	case KindDistance, KindDistanceX, KindDistanceY, KindAngle, KindRadius, KindDiameter:
		return true
	}
	return false
}

// Ref names what a constraint holds: an entity, or one of its points.
// Point is empty (the entity itself: a line, a circle, an arc, a point
// entity), "start", "end", "center", "mid" or "vertex:N" (a polyline's
// N-th vertex, from 0).
type Ref struct {
	Handle uint64
	Point  string
}

// String is the reference as people read it: "1F" or "1F:end".
func (r Ref) String() string {
	if r.Point == "" {
		return FormatHandle(r.Handle)
	}
	return FormatHandle(r.Handle) + ":" + r.Point
}

// Vertex is the vertex a "vertex:N" reference names, and whether it is
// one.
func (r Ref) Vertex() (int, bool) {
	s, ok := strings.CutPrefix(r.Point, "vertex:")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0
}

// Constraint is one geometric constraint or driving dimension of a
// document (DESIGN §14). Constraints are values: a change replaces the
// table (see Tx.SetConstraints).
type Constraint struct {
	ID   int64  // unique in the document, never reused
	Kind string // one of ConstraintKinds
	Refs []Ref
	// Value is a dimensional constraint's value: a length in document
	// units, an angle in degrees. Zero for the others.
	Value float64
	// Pins are where a fixed constraint holds its refs: each ref's
	// parameters (x, y of a point; a line's four coordinates; a circle's
	// center and radius; an arc's center, radius and ends), in order.
	Pins []float64
	// Dimension is the dimension entity that shows the constraint (a
	// driving dimension), 0 for none.
	Dimension uint64
}

// Names reports whether c refers to the entity h.
func (c *Constraint) Names(h uint64) bool {
	if c.Dimension == h {
		return true
	}
	for _, r := range c.Refs {
		if r.Handle == h {
			return true
		}
	}
	return false
}

// Constraints is a document's table of constraints, ids ascending. Like
// the layout table it is one stored record under its own handle,
// replaced whole by a change (see Tx.SetConstraints); Next is the id the
// next constraint takes (ids are never reused, undo aside).
type Constraints struct {
	Handle uint64
	Next   int64
	List   []Constraint
	digest [32]byte
}

// Index is where the table has the constraint id, or -1. A nil table has
// none.
func (t *Constraints) Index(id int64) int {
	if t == nil {
		return -1
	}
	i, ok := slices.BinarySearchFunc(t.List, id, func(c Constraint, id int64) int {
		switch {
		case c.ID < id:
			return -1
		case c.ID > id:
			return 1
		}
		return 0
	})
	if !ok {
		return -1
	}
	return i
}

// Len is how many constraints the table has (0 for a nil table).
func (t *Constraints) Len() int {
	if t == nil {
		return 0
	}
	return len(t.List)
}

// clone is a copy of the table (under its handle) whose list may be
// changed.
func (t *Constraints) clone() *Constraints {
	out := &Constraints{Next: 1}
	if t != nil {
		out.Handle, out.Next = t.Handle, t.Next
		out.List = append(make([]Constraint, 0, len(t.List)+1), t.List...)
	}
	return out
}

// With is a copy of the table with c added under the next id (c.ID is
// set), or, when c.ID names a constraint of the table, in its place.
func (t *Constraints) With(c Constraint) (*Constraints, int64) {
	out := t.clone()
	if i := t.Index(c.ID); c.ID != 0 && i >= 0 {
		out.List[i] = c
		return out, c.ID
	}
	c.ID = out.Next
	out.Next++
	out.List = append(out.List, c)
	return out, c.ID
}

// Without is a copy of the table without the constraints ids.
func (t *Constraints) Without(ids ...int64) *Constraints {
	out := t.clone()
	out.List = slices.DeleteFunc(out.List, func(c Constraint) bool { return slices.Contains(ids, c.ID) })
	return out
}

// Encode is the table's stored form: 'K' 0x01, next(uvarint),
// n(uvarint), then n × (id(uvarint), kind, refs — n × (handle(uvarint),
// point) —, value, pins — n × float —, dimension(uvarint)).
func (t *Constraints) Encode() []byte {
	w := encoder{b: make([]byte, 0, 16+64*len(t.List))} // a constraint of two refs is about 40 bytes
	w.byte(tagConstraints)
	w.byte(encVersion)
	w.uvarint(uint64(t.Next))
	w.uvarint(uint64(len(t.List)))
	for _, c := range t.List {
		w.uvarint(uint64(c.ID))
		w.string(c.Kind)
		w.uvarint(uint64(len(c.Refs)))
		for _, r := range c.Refs {
			w.uvarint(r.Handle)
			w.string(r.Point)
		}
		w.float(c.Value)
		w.uvarint(uint64(len(c.Pins)))
		for _, p := range c.Pins {
			w.float(p)
		}
		w.uvarint(c.Dimension)
	}
	return w.b
}

// decodeConstraints reads a table's stored form back.
func decodeConstraints(handle uint64, data []byte) (*Constraints, error) {
	r := &decoder{b: data}
	if r.byte() != tagConstraints || r.byte() != encVersion {
		return nil, fmt.Errorf("constraints %s: unknown encoding", FormatHandle(handle))
	}
	t := &Constraints{Handle: handle, Next: int64(r.uvarint())}
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		return nil, fmt.Errorf("constraints %s: malformed", FormatHandle(handle))
	}
	for i := uint64(0); i < n && r.err == nil; i++ {
		c := Constraint{ID: int64(r.uvarint()), Kind: r.string()}
		refs := r.uvarint()
		if refs > uint64(len(r.b)) {
			return nil, fmt.Errorf("constraints %s: malformed", FormatHandle(handle))
		}
		for j := uint64(0); j < refs && r.err == nil; j++ {
			c.Refs = append(c.Refs, Ref{Handle: r.uvarint(), Point: r.string()})
		}
		c.Value = r.float()
		pins := r.uvarint()
		if pins > uint64(len(r.b)) {
			return nil, fmt.Errorf("constraints %s: malformed", FormatHandle(handle))
		}
		for j := uint64(0); j < pins && r.err == nil; j++ {
			c.Pins = append(c.Pins, r.float())
		}
		c.Dimension = r.uvarint()
		t.List = append(t.List, c)
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, fmt.Errorf("constraints %s: truncated or malformed", FormatHandle(handle))
	}
	for i, c := range t.List {
		if !slices.Contains(ConstraintKinds, c.Kind) || c.ID <= 0 || c.ID >= t.Next || i > 0 && c.ID <= t.List[i-1].ID {
			return nil, fmt.Errorf("constraints %s: constraint %d (%q) is malformed", FormatHandle(handle), c.ID, c.Kind)
		}
		if math.IsNaN(c.Value) || math.IsInf(c.Value, 0) {
			return nil, fmt.Errorf("constraints %s: constraint %d has no value", FormatHandle(handle), c.ID)
		}
	}
	return t, nil
}

// SetConstraints makes t the document's constraint table (nil for none),
// for loaders and for Tx.SetConstraints; it bypasses the undo log. A
// table without a handle takes the next.
func (d *Document) SetConstraints(t *Constraints) {
	putTable(d, &d.constraints, t)
	d.constrained = nil
	if t == nil {
		return
	}
	if len(t.List) > 0 {
		d.constrained = map[uint64]int{}
		for _, c := range t.List {
			for _, h := range c.handles() {
				d.constrained[h]++
			}
		}
	}
}

// handles are the entities c names, each once.
func (c *Constraint) handles() []uint64 {
	out := make([]uint64, 0, len(c.Refs)+1)
	for _, r := range c.Refs {
		if !slices.Contains(out, r.Handle) {
			out = append(out, r.Handle)
		}
	}
	if c.Dimension != 0 && !slices.Contains(out, c.Dimension) {
		out = append(out, c.Dimension)
	}
	return out
}

// SetConstraints replaces the document's constraint table by t, in the
// undo log: t keeps the handle of the table it replaces, or takes a new
// one when the document had none.
func (tx *Tx) SetConstraints(t *Constraints) {
	old := tx.d.constraints
	inherit(old, t)
	tx.d.SetConstraints(t)
	tx.log = append(tx.log, Change{Kind: ChangeConstraints, Handle: t.Handle, undo: &undoOther{constraints: old}})
}

// Constraints is the document's constraint table, nil when it never had
// one.
func (d *Document) Constraints() *Constraints { return d.constraints }

// Constrained reports whether a constraint names the entity h: O(1).
func (d *Document) Constrained(h uint64) bool { return d.constrained[h] > 0 }

// ConstraintsOf are the ids of the constraints that name the entity h,
// ascending.
func (d *Document) ConstraintsOf(h uint64) []int64 {
	if !d.Constrained(h) {
		return nil
	}
	var out []int64
	for i := range d.constraints.List {
		if d.constraints.List[i].Names(h) {
			out = append(out, d.constraints.List[i].ID)
		}
	}
	return out
}

// formatIDs is ids as a list for a message: "3, 5".
func formatIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ", ")
}
