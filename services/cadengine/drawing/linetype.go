package drawing

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Linetype is a named dash pattern. Pattern holds its lengths as DXF's
// group code 49 does, in drawing units before any scale: a positive
// length is a dash, a negative one a gap, 0 a dot. A pattern of fewer
// than two lengths, or of no length, is continuous.
type Linetype struct {
	Name        string
	Description string
	Pattern     []float64
}

// Continuous reports whether the linetype draws as a solid line.
func (l Linetype) Continuous() bool {
	if len(l.Pattern) < 2 {
		return true
	}
	for _, e := range l.Pattern {
		if e != 0 {
			return false
		}
	}
	return true
}

// StandardLinetypes are the linetypes every document has, with AutoCAD's
// acad.lin patterns in inches (see Document.Linetype for a metric
// drawing's): Continuous, and DASHED, HIDDEN,
// CENTER, PHANTOM, DOT, DASHDOT, BORDER and DIVIDE, each with its half
// (…2) and double (…X2) sizes.
var StandardLinetypes = standardLinetypes()

func standardLinetypes() []Linetype {
	base := []Linetype{
		{"BORDER", "Border __ __ . __ __ . __ __ .", []float64{0.5, -0.25, 0.5, -0.25, 0, -0.25}},
		{"CENTER", "Center ____ _ ____ _ ____ _", []float64{1.25, -0.25, 0.25, -0.25}},
		{"DASHDOT", "Dash dot __ . __ . __ . __", []float64{0.5, -0.25, 0, -0.25}},
		{"DASHED", "Dashed __ __ __ __ __ __", []float64{0.5, -0.25}},
		{"DIVIDE", "Divide ____ . . ____ . . ____", []float64{0.5, -0.25, 0, -0.25, 0, -0.25}},
		{"DOT", "Dot . . . . . . . . . . . .", []float64{0, -0.25}},
		{"HIDDEN", "Hidden __ __ __ __ __ __", []float64{0.25, -0.125}},
		{"PHANTOM", "Phantom ______  __  __  ______", []float64{1.25, -0.25, 0.25, -0.25, 0.25, -0.25}},
	}
	scaled := func(l Linetype, suffix, size string, f float64) Linetype {
		p := make([]float64, len(l.Pattern))
		for i, e := range l.Pattern {
			p[i] = e * f
		}
		name, rest, _ := strings.Cut(l.Description, " ")
		return Linetype{Name: l.Name + suffix, Description: name + " (" + size + ") " + rest, Pattern: p}
	}
	out := []Linetype{{Name: "Continuous", Description: "Solid line"}}
	for _, l := range base {
		half := scaled(l, "2", ".5x", 0.5)
		if l.Name == "CENTER" {
			half.Pattern[0] = 0.75 // acad.lin's CENTER2 keeps a longer long dash
		}
		out = append(out, l, half, scaled(l, "X2", "2x", 2))
	}
	return out
}

// standardLinetype is the standard linetype named name (ignoring case).
func standardLinetype(name string) (Linetype, bool) {
	for _, l := range StandardLinetypes {
		if strings.EqualFold(l.Name, name) {
			return l, true
		}
	}
	return Linetype{}, false
}

// Linetypes is what a document says of linetypes beyond the standard
// set: the linetypes it defines itself (read from a file's LTYPE table;
// one that has the name of a standard linetype replaces it) and its
// linetype scale ($LTSCALE), by which every pattern is drawn. A document
// that says nothing has none (nil): the standard set at scale 1, so
// nothing is stored or hashed for it. Like a layer, a Linetypes in a
// document is never changed in place.
//
// It is stored under a handle of its own, like a block (tag 'T', see
// Encode).
type Linetypes struct {
	Handle  uint64
	Scale   float64    // > 0
	Defined []Linetype // in the order defined; names unique ignoring case
	digest  [32]byte
	byName  map[string]int // upper-cased name → index in Defined, once in a document
}

// NewLinetypes is a document's linetype table of scale (1 when not
// positive and finite) and the linetypes defined, of which a later one
// replaces an earlier of the same name (ignoring case).
func NewLinetypes(scale float64, defined []Linetype) *Linetypes {
	if !(scale > 0) || math.IsInf(scale, 1) {
		scale = 1
	}
	t := &Linetypes{Scale: scale}
	for _, l := range defined {
		i := t.index(l.Name)
		if i < 0 {
			t.Defined = append(t.Defined, l)
		} else {
			t.Defined[i] = l
		}
	}
	return t
}

// Defines reports whether the table defines name (ignoring case).
func (t *Linetypes) Defines(name string) bool { return t.index(name) >= 0 }

// index is where the table defines name (ignoring case), or -1.
func (t *Linetypes) index(name string) int {
	for i, l := range t.Defined {
		if strings.EqualFold(l.Name, name) {
			return i
		}
	}
	return -1
}

// Encode is the table's stored form: 'T' 0x01, scale, n(uvarint) then n
// × (name, description, m(uvarint) and m lengths).
func (t *Linetypes) Encode() []byte {
	w := encoder{}
	w.byte(tagLinetypes)
	w.byte(encVersion)
	w.float(t.Scale)
	w.uvarint(uint64(len(t.Defined)))
	for _, l := range t.Defined {
		w.string(l.Name)
		w.string(l.Description)
		w.uvarint(uint64(len(l.Pattern)))
		for _, e := range l.Pattern {
			w.float(e)
		}
	}
	return w.b
}

// decodeLinetypes reads a table's stored form back.
func decodeLinetypes(handle uint64, data []byte) (*Linetypes, error) {
	r := &decoder{b: data}
	if r.byte() != tagLinetypes || r.byte() != encVersion {
		return nil, fmt.Errorf("linetypes %s: unknown encoding", FormatHandle(handle))
	}
	t := &Linetypes{Handle: handle, Scale: r.float()}
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		return nil, fmt.Errorf("linetypes %s: malformed", FormatHandle(handle))
	}
	for i := uint64(0); i < n && r.err == nil; i++ {
		l := Linetype{Name: r.string(), Description: r.string()}
		m := r.uvarint()
		if m > uint64(len(r.b)) {
			return nil, fmt.Errorf("linetypes %s: malformed", FormatHandle(handle))
		}
		for j := uint64(0); j < m; j++ {
			l.Pattern = append(l.Pattern, r.float())
		}
		t.Defined = append(t.Defined, l)
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, fmt.Errorf("linetypes %s: truncated or malformed", FormatHandle(handle))
	}
	return t, nil
}

// SetLinetypes makes t the document's linetype table, or the standard
// set at scale 1 for nil: for loaders that build a new drawing, which it
// bypasses the undo log for. A table without a handle takes the next.
func (d *Document) SetLinetypes(t *Linetypes) {
	putTable(d, &d.ltypes, t)
	if t == nil {
		return
	}
	t.byName = make(map[string]int, len(t.Defined))
	for i, l := range t.Defined {
		t.byName[strings.ToUpper(l.Name)] = i
	}
}

// Without is the table without the linetypes named (ignoring case),
// under the same handle: a new table, for Tx.SetLinetypes.
func (t *Linetypes) Without(names []string) *Linetypes {
	out := &Linetypes{Handle: t.Handle, Scale: t.Scale}
	for _, l := range t.Defined {
		drop := false
		for _, n := range names {
			drop = drop || strings.EqualFold(n, l.Name)
		}
		if !drop {
			out.Defined = append(out.Defined, l)
		}
	}
	return out
}

// SetLinetypes replaces the document's linetype table by t, in the undo
// log: under the same handle, or a new one when the document had none.
func (tx *Tx) SetLinetypes(t *Linetypes) {
	old := tx.d.ltypes
	inherit(old, t)
	tx.d.SetLinetypes(t)
	tx.log = append(tx.log, Change{Kind: ChangeLtypes, Handle: t.Handle, undo: &undoOther{table: old}})
}

// WithLinetype is the table with l defined (replacing one of its name,
// ignoring case), under the same handle: a new table, for
// Tx.SetLinetypes.
func (t *Linetypes) WithLinetype(l Linetype) *Linetypes {
	out := NewLinetypes(t.Scale, append(slices.Clone(t.Defined), l))
	out.Handle = t.Handle
	return out
}

// WithScale is the table at linetype scale s, under the same handle: a
// new table, for Tx.SetLinetypes.
func (t *Linetypes) WithScale(s float64) *Linetypes {
	out := NewLinetypes(s, t.Defined)
	out.Handle = t.Handle
	return out
}

// Linetypes is the document's linetype table, nil when it has none of its
// own (the standard set at scale 1).
func (d *Document) Linetypes() *Linetypes { return d.ltypes }

// LinetypeScale is the document's linetype scale ($LTSCALE), 1 by
// default.
func (d *Document) LinetypeScale() float64 {
	if d.ltypes == nil {
		return 1
	}
	return d.ltypes.Scale
}

// Linetype is the linetype named name (ignoring case): the document's
// own, else a standard one in the document's units (acad.lin's inches
// for a drawing in inches or feet, acadiso.lin's millimetres, 25.4 times
// as long, for any other, as AutoCAD's MEASUREMENT chooses); false for a
// name neither has.
func (d *Document) Linetype(name string) (Linetype, bool) {
	if d.ltypes != nil {
		// Upper-casing a name that is (as the engine spells the
		// standard ones) costs no allocation.
		if i, ok := d.ltypes.byName[strings.ToUpper(name)]; ok {
			return d.ltypes.Defined[i], true
		}
	}
	l, ok := standardLinetype(name)
	if !ok || d.Units == enginev1.Units_UNITS_IN || d.Units == enginev1.Units_UNITS_FT {
		return l, ok
	}
	p := make([]float64, len(l.Pattern))
	for i, e := range l.Pattern {
		p[i] = e * 25.4
	}
	l.Pattern = p
	return l, true
}

// Pattern is the dash pattern e's curves are drawn with, in world units:
// its linetype's (its layer's when it is ByLayer) times the document's
// linetype scale times its own; nil when it draws continuous (as
// Continuous does, and ByBlock outside an insert, and a name the
// document does not know). An insert's entities are placed with ByBlock
// already made the insert's (see Insert.PlacedFor).
func (d *Document) Pattern(e *Entity) []float64 {
	name := e.Linetype
	if name == "ByLayer" {
		l := d.layers[e.Layer]
		if l == nil {
			return nil
		}
		name = l.Linetype
	}
	if name == "Continuous" || name == "ByBlock" || name == "ByLayer" {
		return nil // the common case, before any lookup
	}
	lt, ok := d.Linetype(name)
	if !ok || lt.Continuous() {
		return nil
	}
	f := d.LinetypeScale() * e.LtScale()
	out := make([]float64, len(lt.Pattern))
	for i, v := range lt.Pattern {
		out[i] = v * f
	}
	return out
}

// LtScale is the entity's own linetype scale (DXF group code 48), 1 by
// default. It is held in single precision (see Entity.LinetypeScale)
// and given back as the shortest decimal that single precision reads as
// it, so that 0.3 read from a file is 0.3 again.
func (e *Entity) LtScale() float64 {
	if e.LinetypeScale == 0 {
		return 1
	}
	return shortFloat32(e.LinetypeScale)
}

// SetLtScale sets the entity's linetype scale; a scale that is not
// positive or does not fit single precision leaves the default, 1.
func (e *Entity) SetLtScale(s float64) {
	f := float32(s)
	if !(s > 0) || s == 1 || f == 0 || math.IsInf(float64(f), 0) {
		e.LinetypeScale = 0
		return
	}
	e.LinetypeScale = f
}

// shortFloat32 is f as the float64 of its shortest decimal spelling.
func shortFloat32(f float32) float64 {
	var buf [32]byte
	v, err := strconv.ParseFloat(string(strconv.AppendFloat(buf[:0], float64(f), 'g', -1, 32)), 64)
	if err != nil {
		return float64(f)
	}
	return v
}

// Dashed is the picture of e's curves drawn with its linetype's pattern
// (see Document.Pattern): the dashes as strokes, the dots as dots. It is
// false when e is drawn as it is: continuous; of a type whose lines are
// not dashed (points, text, filled and annotation types, inserts, which
// dash their own entities, construction lines); with a pattern whose
// repeat is shorter than finest, in world units (finer than the pen
// that draws it: a solid line to the eye); shorter than the pattern's
// first dash (drawn whole as it is); or with a pattern that would
// make more pieces than the budget has left (see geom.DashCount), which
// is drawn continuous rather than refused, so that no scale, however
// small, buys more work than the budget (nil: DefaultExpansionLimit
// pieces an entity). What it draws is spent from the budget; the error is
// the call's context's.
func (d *Document) Dashed(e *Entity, finest float64, budget *Budget) (Picture, bool, error) {
	return d.dashedBy(e, 1, finest, budget)
}

// dashedBy is [Document.Dashed] with e's pattern k times as long.
func (d *Document) dashedBy(e *Entity, k, finest float64, budget *Budget) (Picture, bool, error) {
	switch e.Geom.(type) {
	case Line, Circle, Arc, Polyline, Ellipse, Spline, Face, Foreign:
	default:
		return Picture{}, false, nil
	}
	pattern := d.Pattern(e)
	if k != 1 {
		for i := range pattern {
			pattern[i] *= k
		}
	}
	if pattern == nil || geom.PatternPeriod(pattern) <= finest {
		return Picture{}, false, nil
	}
	prims := e.Geom.Prims()
	if pattern[0] > 0 && pattern[0] >= geom.RunLength(prims) {
		return Picture{}, false, nil // shorter than the first dash: drawn whole
	}
	n := geom.DashCount(prims, pattern)
	limit := budget.Limit()
	if budget == nil { // unlimited for expanding, not for dashing: a pattern is no reason to draw more
		limit = DefaultExpansionLimit
	}
	if n >= float64(limit) {
		return Picture{}, false, budget.Err()
	}
	if err := budget.Afford(int64(n)); err != nil {
		if _, ok := err.(*TooLargeError); ok {
			return Picture{}, false, budget.Err()
		}
		return Picture{}, false, err
	}
	strokes, dots := geom.Dash(prims, pattern)
	if err := budget.Spend(int64(len(strokes) + len(dots))); err != nil {
		return Picture{}, false, err
	}
	return Picture{Strokes: strokes, Dots: dots}, true, nil
}
