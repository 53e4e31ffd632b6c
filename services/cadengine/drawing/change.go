package drawing

import (
	"slices"
	"sync"
)

// changeKind says what a change touched.
type changeKind uint8

const (
	ChangeEntity      changeKind = iota + 1 // an entity was created, replaced or removed
	changeLayer                             // a layer was created, modified or removed
	changeCurrent                           // the current layer changed
	ChangeBlock                             // a block was defined or removed
	ChangeLtypes                            // the linetype table was replaced
	ChangeLayouts                           // the layout table was replaced
	ChangeSettings                          // the settings were replaced
	ChangeConstraints                       // the constraint table was replaced
)

// Change is one record of the undo log: what a thing was before and after.
// A nil before is a creation, a nil after a removal.
type Change struct {
	Kind          changeKind
	Handle        uint64
	before, after *Entity    // of an entity change
	undo          *undoOther // of any other change: the rare kinds cost a pointer, not room in every change
}

// undoOther is what a layer, current-layer or block change undoes to.
type undoOther struct {
	name        string // the layer's or block's name, or the current layer before
	layer       *Layer
	block       *Block
	table       *Linetypes
	layouts     *Layouts
	settings    *settingsState
	constraints *Constraints
}

// Stored reports whether the change is to a record the store keeps under
// a handle (an entity, a block, the linetype or the layout table, or the
// settings), and which.
func (c Change) Stored() (uint64, bool) {
	switch c.Kind {
	case ChangeEntity, ChangeBlock, ChangeLtypes, ChangeLayouts, ChangeSettings, ChangeConstraints:
		return c.Handle, true
	}
	return c.Handle, false
}

// Tx is a write in progress on one document. Its owner holds the
// document's lane and mu. Every change is applied to the document at once
// (so later reads in the same call see it) and logged, so that:
//
//   - undoTo reverts the document to a mark in O(changes since the mark),
//     which is how a failed tool leaves no trace and how a batch will roll
//     back to a checkpoint;
//   - since lists the changes after a mark, from which the engine's commit
//     writes the current state of each entity they touched and the
//     document row (see commitOf), never the whole document.
//
// Rules every write obeys are enforced here, in one place: entities on a
// locked layer are refused, a missing layer fails, geometry must be finite.
type Tx struct {
	d   *Document
	log []Change
}

// NewTx starts an undo log over d, with room for n changes.
func NewTx(d *Document, n int) *Tx {
	if l, ok := logs.Get().(*[]Change); ok && cap(*l) >= n {
		return &Tx{d: d, log: *l}
	}
	return &Tx{d: d, log: make([]Change, 0, n)}
}

// logs are undo logs that Release gave back, empty, for the next NewTx: a
// batch's log grows as its steps write (a drafting batch writes three
// entities a step), and the garbage of every batch's log was a seventh of
// what such a batch allocates.
var logs sync.Pool

// Release gives the log back for a later Tx to reuse; the Tx must not be
// used again, nor any slice Since returned.
func (t *Tx) Release() {
	clear(t.log) // let go of the entities the changes hold (UndoTo cleared what it dropped)
	l := t.log[:0]
	t.log = nil
	logs.Put(&l)
}

// Grow makes room in the log for n more changes, for a write that knows
// how many it makes (an entity_batch_create of a hundred thousand entities
// would otherwise copy the log as it doubles).
func (t *Tx) Grow(n int) { t.log = slices.Grow(t.log, n) }

// Mark is a point to undo to.
func (t *Tx) Mark() int { return len(t.log) }

// Since is the changes after mark, oldest first.
func (t *Tx) Since(mark int) []Change { return t.log[mark:] }

// writable checks that entities may be written on the named layer.
func (t *Tx) writable(name string) error {
	l := t.d.layers[name]
	if l == nil {
		return ruleFailed("the document has no layer %q", name)
	}
	if l.Locked {
		return ruleRefused("layer %q is locked", name)
	}
	return nil
}

func (t *Tx) logEntity(h uint64, before, after *Entity) {
	t.log = append(t.log, Change{Kind: ChangeEntity, Handle: h, before: before, after: after})
	t.d.SetEntity(h, after)
}

// Create adds e under a new handle; e must not be sealed yet.
func (t *Tx) Create(e *Entity) (*Entity, error) {
	if err := t.writable(e.Layer); err != nil {
		return nil, err
	}
	if !e.Geom.Finite() {
		return nil, ruleFailed("the %s's coordinates overflow", e.Geom.Kind().WireName())
	}
	e.Handle = t.d.NextHandle
	t.d.NextHandle++ // never given back, even by undo: handles are not reused
	e.Seal()
	t.logEntity(e.Handle, nil, e)
	return e, nil
}

// Replace swaps old, which is in the document, for next (same handle).
func (t *Tx) Replace(old, next *Entity) error {
	if err := t.writable(old.Layer); err != nil {
		return err
	}
	if next.Layer != old.Layer {
		if err := t.writable(next.Layer); err != nil {
			return err
		}
	}
	if !next.Geom.Finite() {
		return ruleFailed("the %s's coordinates overflow", next.Geom.Kind().WireName())
	}
	next.Handle = old.Handle
	t.logEntity(old.Handle, old, t.rebound(next))
	t.follow(old.Handle)
	return nil
}

// Remove deletes e, which is in the document. An entity that
// constraints name is refused: they must be deleted first (see
// docs/decisions.md, "Constraints").
func (t *Tx) Remove(e *Entity) error {
	if err := t.writable(e.Layer); err != nil {
		return err
	}
	if ids := t.d.ConstraintsOf(e.Handle); len(ids) > 0 {
		return ruleRefused("the %s %s is held by constraint(s) %s: delete them first with constraint_delete", e.Geom.Kind().WireName(), FormatHandle(e.Handle), formatIDs(ids))
	}
	t.logEntity(e.Handle, e, nil)
	t.follow(e.Handle)
	return nil
}

// PutLayer creates or replaces a layer.
func (t *Tx) PutLayer(l *Layer) {
	before := t.d.layers[l.Name]
	t.log = append(t.log, Change{Kind: changeLayer, undo: &undoOther{name: l.Name, layer: before}})
	t.d.SetLayer(l.Name, l)
}

// RemoveLayer deletes a layer (its entities must be gone).
func (t *Tx) RemoveLayer(name string) {
	t.log = append(t.log, Change{Kind: changeLayer, undo: &undoOther{name: name, layer: t.d.layers[name]}})
	t.d.SetLayer(name, nil)
}

// SetCurrent makes a layer current.
func (t *Tx) SetCurrent(name string) {
	t.log = append(t.log, Change{Kind: changeCurrent, undo: &undoOther{name: t.d.current}})
	t.d.SetCurrent(name)
}

// UndoTo reverts every change after mark, newest first, and returns them
// (oldest first) so the caller can commit the reverted state if some were
// already in the store.
func (t *Tx) UndoTo(mark int) []Change {
	undone := append([]Change(nil), t.log[mark:]...)
	for i := len(t.log) - 1; i >= mark; i-- {
		c := t.log[i]
		switch c.Kind {
		case ChangeEntity:
			t.d.SetEntity(c.Handle, c.before)
		case changeLayer:
			t.d.SetLayer(c.undo.name, c.undo.layer)
		case changeCurrent:
			t.d.SetCurrent(c.undo.name)
		case ChangeBlock:
			t.d.SetBlock(c.undo.name, c.undo.block)
		case ChangeLtypes:
			t.d.SetLinetypes(c.undo.table)
		case ChangeLayouts:
			t.d.SetLayouts(c.undo.layouts)
		case ChangeSettings:
			t.d.setSettings(*c.undo.settings)
		case ChangeConstraints:
			t.d.SetConstraints(c.undo.constraints)
		}
	}
	clear(t.log[mark:]) // what Release need not clear
	t.log = t.log[:mark]
	return undone
}
