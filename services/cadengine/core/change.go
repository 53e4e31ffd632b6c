package core

// changeKind says what a change touched.
type changeKind uint8

const (
	changeEntity  changeKind = iota + 1 // an entity was created, replaced or removed
	changeLayer                         // a layer was created, modified or removed
	changeCurrent                       // the current layer changed
)

// change is one record of the undo log: what a thing was before and after.
// A nil before is a creation, a nil after a removal.
type change struct {
	kind                        changeKind
	handle                      uint64
	before, after               *entity
	layer                       string
	layerBefore, layerAfter     *layer
	currentBefore, currentAfter string
}

// tx is a write in progress on one document. Its owner holds the
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
type tx struct {
	d   *model
	log []change
}

func newTx(d *model) *tx { return &tx{d: d} }

// mark is a point to undo to.
func (t *tx) mark() int { return len(t.log) }

// since is the changes after mark, oldest first.
func (t *tx) since(mark int) []change { return t.log[mark:] }

// writable checks that entities may be written on the named layer.
func (t *tx) writable(name string) error {
	l := t.d.layers[name]
	if l == nil {
		return ruleFailed("the document has no layer %q", name)
	}
	if l.locked {
		return ruleRefused("layer %q is locked", name)
	}
	return nil
}

func (t *tx) logEntity(h uint64, before, after *entity) {
	t.log = append(t.log, change{kind: changeEntity, handle: h, before: before, after: after})
	t.d.setEntity(h, after)
}

// create adds e under a new handle; e must not be sealed yet.
func (t *tx) create(e *entity) (*entity, error) {
	if err := t.writable(e.layer); err != nil {
		return nil, err
	}
	if !e.geom.Finite() {
		return nil, ruleFailed("the %s's coordinates overflow", typeName(e.geom.kind()))
	}
	e.handle = t.d.nextHandle
	t.d.nextHandle++ // never given back, even by undo: handles are not reused
	e.seal()
	t.logEntity(e.handle, nil, e)
	return e, nil
}

// replace swaps old, which is in the document, for next (same handle).
func (t *tx) replace(old, next *entity) error {
	if err := t.writable(old.layer); err != nil {
		return err
	}
	if next.layer != old.layer {
		if err := t.writable(next.layer); err != nil {
			return err
		}
	}
	if !next.geom.Finite() {
		return ruleFailed("the %s's coordinates overflow", typeName(next.geom.kind()))
	}
	next.handle = old.handle
	t.logEntity(old.handle, old, next)
	return nil
}

// remove deletes e, which is in the document.
func (t *tx) remove(e *entity) error {
	if err := t.writable(e.layer); err != nil {
		return err
	}
	t.logEntity(e.handle, e, nil)
	return nil
}

// putLayer creates or replaces a layer.
func (t *tx) putLayer(l *layer) {
	before := t.d.layers[l.name]
	t.log = append(t.log, change{kind: changeLayer, layer: l.name, layerBefore: before, layerAfter: l})
	t.d.setLayer(l.name, l)
}

// removeLayer deletes a layer (its entities must be gone).
func (t *tx) removeLayer(name string) {
	t.log = append(t.log, change{kind: changeLayer, layer: name, layerBefore: t.d.layers[name]})
	t.d.setLayer(name, nil)
}

// setCurrent makes a layer current.
func (t *tx) setCurrent(name string) {
	t.log = append(t.log, change{kind: changeCurrent, currentBefore: t.d.current, currentAfter: name})
	t.d.setCurrent(name)
}

// undoTo reverts every change after mark, newest first, and returns them
// (oldest first) so the caller can commit the reverted state if some were
// already in the store.
func (t *tx) undoTo(mark int) []change {
	undone := append([]change(nil), t.log[mark:]...)
	for i := len(t.log) - 1; i >= mark; i-- {
		c := t.log[i]
		switch c.kind {
		case changeEntity:
			t.d.setEntity(c.handle, c.before)
		case changeLayer:
			t.d.setLayer(c.layer, c.layerBefore)
		case changeCurrent:
			t.d.setCurrent(c.currentBefore)
		}
	}
	t.log = t.log[:mark]
	return undone
}
