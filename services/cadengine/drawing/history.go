package drawing

import (
	"cmp"
	"slices"
	"sort"
)

// Diff is what a committed write changed, thing by thing: each entity,
// layer and block it touched, and the current layer, with its state
// before and after. It is what document_undo reverts and document_redo
// applies again. The states are the document's own (immutable) values,
// so a diff costs a few words a thing, not copies.
type Diff struct {
	// created are the entities of a write that only created entities, as
	// they are after it (most writes: a slice, not a map, for the
	// thousands a batch creates); entities the states of the others.
	created  []*Entity
	entities []entityStates // handles ascending, each once
	layers   map[string]*[2]*Layer
	blocks   map[string]*blockDiff
	current  *[2]string
	ltypes   *[2]*Linetypes
	layouts  *[2]*Layouts
	settings *[2]settingsState
	cons     *[2]*Constraints
}

type blockDiff struct {
	handle        uint64 // the handle of whichever state is not nil
	before, after *Block
}

// DiffOf is the diff of changes, the latest changes applied to d: the
// state before is each thing's before its first change, the state after
// its state in d now.
func (d *Document) DiffOf(changes []Change) *Diff {
	df := &Diff{}
	if n := onlyCreates(changes); n > 0 {
		// Each entity's one change made it, and nothing else has changed
		// it (every change of an entity is logged): its state in d is the
		// change's after.
		df.created = make([]*Entity, 0, n)
		for _, c := range changes {
			if c.Kind == ChangeEntity {
				df.created = append(df.created, c.after)
			}
		}
	}
	for _, c := range changes {
		switch c.Kind {
		case ChangeEntity:
			if df.created == nil {
				df.entities = append(df.entities, entityStates{c.Handle, [2]*Entity{c.before, nil}})
			}
		case changeLayer:
			if df.layers == nil {
				df.layers = map[string]*[2]*Layer{}
			}
			if df.layers[c.undo.name] == nil {
				df.layers[c.undo.name] = &[2]*Layer{c.undo.layer, d.layers[c.undo.name]}
			}
		case changeCurrent:
			if df.current == nil {
				df.current = &[2]string{c.undo.name, d.current}
			}
		case ChangeLtypes:
			if df.ltypes == nil {
				df.ltypes = &[2]*Linetypes{c.undo.table, d.ltypes}
			}
		case ChangeLayouts:
			if df.layouts == nil {
				df.layouts = &[2]*Layouts{c.undo.layouts, d.layouts}
			}
		case ChangeSettings:
			if df.settings == nil {
				df.settings = &[2]settingsState{*c.undo.settings, {d.settings, d.Units}}
			}
		case ChangeConstraints:
			if df.cons == nil {
				df.cons = &[2]*Constraints{c.undo.constraints, d.constraints}
			}
		case ChangeBlock:
			if df.blocks == nil {
				df.blocks = map[string]*blockDiff{}
			}
			if df.blocks[c.undo.name] == nil {
				df.blocks[c.undo.name] = &blockDiff{handle: c.Handle, before: c.undo.block, after: d.blocks[c.undo.name]}
			}
		}
	}
	// The state before is the first change's, the state after d's.
	df.entities = firstOfEach(df.entities)
	for i := range df.entities {
		df.entities[i].s[1] = d.Entity(df.entities[i].h)
	}
	return df
}

// firstOfEach sorts states by handle, keeping for each handle the first
// of its states' before and the last one's after. (A stable sort would do
// it in place, but sorting the positions with the faster unstable sort,
// each position breaking its handle's ties, costs less.)
func firstOfEach(states []entityStates) []entityStates {
	at := make([]int32, len(states))
	for i := range at {
		at[i] = int32(i)
	}
	slices.SortFunc(at, func(a, b int32) int {
		return cmp.Or(cmp.Compare(states[a].h, states[b].h), cmp.Compare(a, b))
	})
	out := make([]entityStates, 0, len(states))
	for _, i := range at {
		x := states[i]
		if n := len(out); n > 0 && out[n-1].h == x.h {
			out[n-1].s[1] = x.s[1]
			continue
		}
		out = append(out, x)
	}
	return out
}

// onlyCreates is how many entity changes there are when they are all
// creations, handles increasing (so each once); 0 otherwise.
func onlyCreates(changes []Change) int {
	var last uint64
	n := 0
	for _, c := range changes {
		if c.Kind != ChangeEntity {
			continue
		}
		if c.before != nil || c.Handle <= last {
			return 0
		}
		last = c.Handle
		n++
	}
	return n
}

// states are the entity states of df, handles ascending.
func (df *Diff) states() []entityStates {
	if df.created == nil {
		return df.entities
	}
	out := make([]entityStates, len(df.created))
	for i, e := range df.created {
		out[i] = entityStates{e.Handle, [2]*Entity{nil, e}}
	}
	return out
}

type entityStates struct {
	h uint64
	s [2]*Entity
}

// Then is df followed by later, a diff of the writes right after df's:
// the states before are df's, the states after later's.
func (df *Diff) Then(later *Diff) *Diff {
	out := &Diff{}
	out.entities = firstOfEach(slices.Concat(df.states(), later.states()))
	if len(df.layers)+len(later.layers) > 0 {
		out.layers = map[string]*[2]*Layer{}
	}
	for n, s := range df.layers {
		out.layers[n] = &[2]*Layer{s[0], s[1]}
	}
	for n, s := range later.layers {
		if o := out.layers[n]; o != nil {
			o[1] = s[1]
		} else {
			out.layers[n] = &[2]*Layer{s[0], s[1]}
		}
	}
	if len(df.blocks)+len(later.blocks) > 0 {
		out.blocks = map[string]*blockDiff{}
	}
	for n, s := range df.blocks {
		c := *s
		out.blocks[n] = &c
	}
	for n, s := range later.blocks {
		if o := out.blocks[n]; o != nil {
			o.after = s.after
			if s.after != nil {
				o.handle = s.after.Handle
			}
		} else {
			c := *s
			out.blocks[n] = &c
		}
	}
	out.ltypes = then(df.ltypes, later.ltypes)
	out.layouts = then(df.layouts, later.layouts)
	out.settings = then(df.settings, later.settings)
	out.current = then(df.current, later.current)
	out.cons = then(df.cons, later.cons)
	return out
}

// Size is how many things the diff touches.
func (df *Diff) Size() int {
	n := len(df.created) + len(df.entities) + len(df.layers) + len(df.blocks)
	if df.current != nil {
		n++
	}
	if df.ltypes != nil {
		n++
	}
	if df.layouts != nil {
		n++
	}
	if df.settings != nil {
		n++
	}
	if df.cons != nil {
		n++
	}
	return n
}

// DiffEffect is what applying a diff did to entities, handles ascending.
type DiffEffect struct {
	Restored []uint64 // entities that were absent and are back
	Removed  []uint64 // entities that went away
	Changed  []uint64 // entities that stayed and changed
}

// Revert brings everything df touched back to its state before df,
// through t (so the revert is a write of its own, logged and undoable
// like any other), after checking that each is still as df left it;
// when one is not, it changes nothing and returns the thing's name and
// false. Rules of ordinary writes (locked layers) do not apply: the
// states are ones the document had.
func (t *Tx) Revert(df *Diff) (DiffEffect, string, bool) { return t.apply(df, 1, 0) }

// Reapply brings everything df touched to its state after df, checking
// first that each is as it was before df (see Revert).
func (t *Tx) Reapply(df *Diff) (DiffEffect, string, bool) { return t.apply(df, 0, 1) }

// apply moves every thing df touched from its state at index from to its
// state at index to.
func (t *Tx) apply(df *Diff, from, to int) (DiffEffect, string, bool) {
	d := t.d
	ents := df.states()
	for _, x := range ents {
		if !sameEntity(d.Entity(x.h), x.s[from]) {
			return DiffEffect{}, "entity " + FormatHandle(x.h), false
		}
	}
	for n, s := range df.layers {
		if !sameLayer(d.layers[n], s[from]) {
			return DiffEffect{}, "layer " + n, false
		}
	}
	for n, s := range df.blocks {
		states := [2]*Block{s.before, s.after}
		if !sameBlock(d.blocks[n], states[from]) {
			return DiffEffect{}, "block " + n, false
		}
	}
	if df.current != nil && d.current != df.current[from] {
		return DiffEffect{}, "the current layer", false
	}
	if df.ltypes != nil && d.ltypes != df.ltypes[from] {
		return DiffEffect{}, "the linetype table", false
	}
	if df.layouts != nil && d.layouts != df.layouts[from] {
		return DiffEffect{}, "the layout table", false
	}
	if df.settings != nil && d.settings != df.settings[from].settings {
		return DiffEffect{}, "the drawing settings", false
	}
	if df.cons != nil && d.constraints != df.cons[from] {
		return DiffEffect{}, "the constraints", false
	}
	if df.layouts != nil {
		cur, next := d.layouts, df.layouts[to]
		t.log = append(t.log, Change{Kind: ChangeLayouts, Handle: handleOf(cur, next), undo: &undoOther{layouts: cur}})
		d.SetLayouts(next)
	}
	if df.ltypes != nil {
		// The states are tables under one handle, or none (see
		// Tx.SetLinetypes).
		cur, next := d.ltypes, df.ltypes[to]
		t.log = append(t.log, Change{Kind: ChangeLtypes, Handle: handleOf(cur, next), undo: &undoOther{table: cur}})
		d.SetLinetypes(next)
	}
	if df.settings != nil {
		cur, next := d.settings, df.settings[to]
		t.log = append(t.log, Change{Kind: ChangeSettings, Handle: handleOf(cur, next.settings), undo: &undoOther{settings: &settingsState{cur, d.Units}}})
		d.setSettings(next)
	}

	// Layers and blocks first, so that the entities land where they exist.
	names := make([]string, 0, len(df.layers))
	for n := range df.layers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		cur, next := d.layers[n], df.layers[n][to]
		t.log = append(t.log, Change{Kind: changeLayer, undo: &undoOther{name: n, layer: cur}})
		d.SetLayer(n, next)
	}
	names = names[:0]
	for n := range df.blocks {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := df.blocks[n]
		cur, next := d.blocks[n], [2]*Block{s.before, s.after}[to]
		h := s.handle
		if next != nil {
			h = next.Handle
		}
		t.log = append(t.log, Change{Kind: ChangeBlock, Handle: h, undo: &undoOther{name: n, block: cur}})
		d.SetBlock(n, next)
	}
	if df.current != nil {
		t.log = append(t.log, Change{Kind: changeCurrent, undo: &undoOther{name: d.current}})
		d.SetCurrent(df.current[to])
	}
	var eff DiffEffect
	for _, x := range ents {
		h := x.h
		cur, next := d.Entity(h), x.s[to]
		switch {
		case cur == nil && next != nil:
			eff.Restored = append(eff.Restored, h)
		case cur != nil && next == nil:
			eff.Removed = append(eff.Removed, h)
		case cur != nil:
			eff.Changed = append(eff.Changed, h)
		default:
			continue // created and removed by the same write
		}
		t.logEntity(h, cur, next)
	}
	if df.cons != nil {
		cur, next := d.constraints, df.cons[to]
		t.log = append(t.log, Change{Kind: ChangeConstraints, Handle: handleOf(cur, next), undo: &undoOther{constraints: cur}})
		d.SetConstraints(next)
	}
	return eff, "", true
}

func sameEntity(a, b *Entity) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a == b || a.fp == b.fp && a.Layer == b.Layer
}

func sameLayer(a, b *Layer) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a == b || a.digest() == b.digest()
}

func sameBlock(a, b *Block) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a == b || a.Handle == b.Handle && a.digest == b.digest
}

// then is the states of a table across two diffs, either of which may
// not have touched it: before from the first that did, after from the
// last that did.
func then[T any](first, later *[2]T) *[2]T {
	if first == nil && later == nil {
		return nil
	}
	return &[2]T{cmp.Or(first, later)[0], cmp.Or(later, first)[1]}
}
