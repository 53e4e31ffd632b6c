package drawing

import (
	"fmt"
	"math"
	"strings"
)

// Layout is a paper-space sheet: a name and its paper, Width × Height
// millimetres as it lies (landscape when Width > Height). Paper names the
// standard size it was made from ("A3", "ANSI_B"), empty for a size given
// in millimetres. The entities on it are those whose Layout is its name;
// its viewports are among them.
type Layout struct {
	Name          string
	Paper         string
	Width, Height float64
}

// Layouts is a document's table of layouts, in tab order; names are
// unique ignoring case. Like the linetype table it is one stored record
// under its own handle, replaced whole by a change (see Tx.SetLayouts).
type Layouts struct {
	Handle uint64
	List   []Layout
	digest [32]byte
}

// Index is where the table has the layout named name (ignoring case), or
// -1. A nil table has none.
func (t *Layouts) Index(name string) int {
	if t == nil {
		return -1
	}
	for i, l := range t.List {
		if strings.EqualFold(l.Name, name) {
			return i
		}
	}
	return -1
}

// With is a copy of the table (under its handle) with l in place of the
// layout at i, or appended when i < 0: a new table, for Tx.SetLayouts.
func (t *Layouts) With(i int, l Layout) *Layouts {
	out := &Layouts{}
	if t != nil {
		out.Handle = t.Handle
		out.List = append(out.List, t.List...)
	}
	if i < 0 {
		out.List = append(out.List, l)
	} else {
		out.List[i] = l
	}
	return out
}

// Without is a copy of the table (under its handle) without the layout at
// i.
func (t *Layouts) Without(i int) *Layouts {
	out := &Layouts{Handle: t.Handle}
	out.List = append(out.List, t.List[:i]...)
	out.List = append(out.List, t.List[i+1:]...)
	return out
}

// Encode is the table's stored form: 'P' 0x01, n(uvarint) then n × (name,
// paper, width, height).
func (t *Layouts) Encode() []byte {
	w := encoder{}
	w.byte(tagLayouts)
	w.byte(encVersion)
	w.uvarint(uint64(len(t.List)))
	for _, l := range t.List {
		w.string(l.Name)
		w.string(l.Paper)
		w.float(l.Width)
		w.float(l.Height)
	}
	return w.b
}

// decodeLayouts reads a table's stored form back.
func decodeLayouts(handle uint64, data []byte) (*Layouts, error) {
	r := &decoder{b: data}
	if r.byte() != tagLayouts || r.byte() != encVersion {
		return nil, fmt.Errorf("layouts %s: unknown encoding", FormatHandle(handle))
	}
	t := &Layouts{Handle: handle}
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		return nil, fmt.Errorf("layouts %s: malformed", FormatHandle(handle))
	}
	for i := uint64(0); i < n && r.err == nil; i++ {
		t.List = append(t.List, Layout{Name: r.string(), Paper: r.string(), Width: r.float(), Height: r.float()})
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, fmt.Errorf("layouts %s: truncated or malformed", FormatHandle(handle))
	}
	for _, l := range t.List {
		if !(l.Width > 0 && l.Height > 0) || math.IsInf(l.Width+l.Height, 0) {
			return nil, fmt.Errorf("layouts %s: layout %q has no paper", FormatHandle(handle), l.Name)
		}
	}
	return t, nil
}

// SetLayouts makes t the document's layout table (nil for none), for
// loaders and for Tx.SetLayouts; it bypasses the undo log. A table
// without a handle takes the next.
func (d *Document) SetLayouts(t *Layouts) { putTable(d, &d.layouts, t) }

// SetLayouts replaces the document's layout table by t, in the undo log:
// t keeps the handle of the table it replaces, or takes a new one when the
// document had none.
func (tx *Tx) SetLayouts(t *Layouts) {
	old := tx.d.layouts
	inherit(old, t)
	tx.d.SetLayouts(t)
	tx.log = append(tx.log, Change{Kind: ChangeLayouts, Handle: t.Handle, undo: &undoOther{layouts: old}})
}

// Layouts is the document's layout table, nil when it has none.
func (d *Document) Layouts() *Layouts { return d.layouts }

// Layout is the layout named name (ignoring case), and whether the
// document has it.
func (d *Document) Layout(name string) (Layout, bool) {
	if i := d.layouts.Index(name); i >= 0 {
		return d.layouts.List[i], true
	}
	return Layout{}, false
}
