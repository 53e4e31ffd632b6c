package engine

import (
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"strconv"
)

// Undo and redo (document_undo, document_redo) as new revisions.
//
// Every commit of a document's changes (see run.commit) notes what it
// changed, thing by thing (a drawing.Diff), in the document's history:
// the commits of one operation, one after another, make one entry, so a
// batch is undone whole. document_undo reverts the newest entries through
// the undo log like any write, so the undo is an operation of its own: a
// new revision, journaled, with the content hash, fingerprints, lease
// fence and commit events as for any other write, and the history stays
// linear (an operation id that is replayed answers its recorded result
// and changes nothing). The entries undone move to the redo list;
// document_redo applies them again, with the same handles. Any other
// commit empties the redo list: redo works only while nothing else
// changed since the undo.
//
// The history lives in memory with the document: an engine that loads a
// document (at start-up, or under a lease another engine held) starts its
// history empty, and a rollback of work already committed (a batch that
// rolls back after waiting on its client) cuts it, since its diff is not
// one write's. Both are told in the failure's message.

// maxHistory bounds a document's history: the entries kept, and the
// things (entities, layers, blocks) their diffs touch in all.
const (
	maxHistory       = 100
	maxHistoryThings = 1 << 20
)

// history is a document's undo history; the document's mu guards it.
type history struct {
	done   []historyEntry // undoable, oldest first
	undone []historyEntry // taken back by undo, the latest undone last
	things int            // Size of every diff in done and undone
	// why, when done is empty, says why (the history was cut or dropped).
	why string
	// redoLost names the operation that emptied undone, for redo's failure.
	redoLost string
}

// historyEntry is one operation's committed changes.
type historyEntry struct {
	op   string
	diff *drawing.Diff
}

// historyMove is what a committed document_undo or document_redo does to
// the history: move n entries from done to undone (undo) or back (redo).
type historyMove struct {
	redo bool
	n    int
}

// noteHistory records a commit of r's changes in the document's history;
// the caller holds d.mu, and changes were just stored.
func (r *run) noteHistory(changes []drawing.Change, reverted bool) {
	h := &r.d.history
	switch {
	case r.historyMove != nil:
		m := r.historyMove
		r.historyMove = nil
		if m.redo {
			k := len(h.undone) - m.n
			for i := len(h.undone) - 1; i >= k; i-- {
				h.done = append(h.done, h.undone[i])
			}
			h.undone = h.undone[:k]
		} else {
			k := len(h.done) - m.n
			for i := len(h.done) - 1; i >= k; i-- {
				h.undone = append(h.undone, h.done[i])
			}
			h.done = h.done[:k]
		}
		return
	case reverted:
		*h = history{why: "operation " + r.op.key.id + " rolled back work it had already committed, which cannot be undone step by step"}
		return
	}
	diff := r.d.DiffOf(changes)
	if len(h.undone) > 0 {
		h.redoLost = r.op.key.id
		for _, u := range h.undone {
			h.things -= u.diff.Size()
		}
		h.undone = nil
	}
	h.things += diff.Size()
	if n := len(h.done); n > 0 && h.done[n-1].op == r.op.key.id {
		// The operation's earlier commit point (before a wait on its
		// client) is the entry's start: one operation, one entry.
		h.things -= h.done[n-1].diff.Size() + diff.Size()
		diff = h.done[n-1].diff.Then(diff)
		h.things += diff.Size()
		h.done = h.done[:n-1]
	}
	h.done = append(h.done, historyEntry{op: r.op.key.id, diff: diff})
	for len(h.done) > maxHistory || h.things > maxHistoryThings && len(h.done) > 1 {
		h.things -= h.done[0].diff.Size()
		h.done = h.done[1:]
		h.why = "older operations fell off the history (it keeps the latest 100)"
	}
	if h.things > maxHistoryThings {
		h.things, h.done = 0, nil
		h.why = "operation " + r.op.key.id + " changed too much to be kept for undo"
	}
}

func documentUndo(c *call, a *enginev1.DocumentUndoArgs) (*enginev1.DocumentUndoResult, error) {
	return c.moveHistory(false, a.GetSteps())
}

func documentRedo(c *call, a *enginev1.DocumentRedoArgs) (*enginev1.DocumentUndoResult, error) {
	return c.moveHistory(true, a.GetSteps())
}

// moveHistory undoes (or redoes) steps operations of the document's
// history through the call's undo log; the run moves the entries when
// it commits (see noteHistory), so a call that fails or is not stored
// leaves the history as it was.
func (c *call) moveHistory(redo bool, steps int32) (*enginev1.DocumentUndoResult, error) {
	if c.r == nil || c.tx == nil {
		return nil, unsupported("undo_in_call", "undo and redo run as calls of their own")
	}
	n := int(max(steps, 1))
	h := &c.d.history
	from, verb := h.done, "undo"
	if redo {
		from, verb = h.undone, "redo"
	}
	if len(from) < n {
		return nil, failed("%s", nothingTo(h, redo, n, c.d.Revision))
	}
	res := &enginev1.DocumentUndoResult{}
	var restored, removed, changed []uint64
	for i := len(from) - 1; i >= len(from)-n; i-- {
		en := from[i]
		var (
			eff   drawing.DiffEffect
			moved string
			ok    bool
		)
		if redo {
			eff, moved, ok = c.tx.Reapply(en.diff)
		} else {
			eff, moved, ok = c.tx.Revert(en.diff)
		}
		if !ok {
			return nil, failed("cannot %s operation %s: %s is no longer as that operation left it", verb, en.op, moved)
		}
		res.Operations = append(res.Operations, en.op)
		restored = append(restored, eff.Restored...)
		removed = append(removed, eff.Removed...)
		changed = append(changed, eff.Changed...)
	}
	c.r.historyMove = &historyMove{redo: redo, n: n}
	res.Restored, res.Removed = formatHandles(restored), formatHandles(removed)
	seen := map[uint64]bool{}
	for _, l := range [][]uint64{restored, removed, changed} {
		for _, x := range l {
			if !seen[x] {
				seen[x] = true
				res.Handles = append(res.Handles, drawing.FormatHandle(x))
			}
		}
	}
	if redo {
		res.UndoAvailable, res.RedoAvailable = int32(len(h.done)+n), int32(len(h.undone)-n)
	} else {
		res.UndoAvailable, res.RedoAvailable = int32(len(h.done)-n), int32(len(h.undone)+n)
	}
	return res, nil
}

// nothingTo says why there are not n operations to undo (or redo).
func nothingTo(h *history, redo bool, n int, revision int64) string {
	if redo {
		switch {
		case len(h.undone) > 0:
			return "only " + strconv.Itoa(len(h.undone)) + " undone operation(s) can be redone"
		case h.redoLost != "":
			return "nothing to redo: operation " + h.redoLost + " changed the document after the last undo (redo works only while nothing else changed)"
		}
		return "nothing to redo: no operation was undone (document_undo first)"
	}
	switch {
	case len(h.done) > 0:
		return "only " + strconv.Itoa(len(h.done)) + " operation(s) can be undone"
	case revision == 0:
		return "nothing to undo: the document is at revision 0"
	case h.why != "":
		return "nothing to undo: " + h.why
	}
	return "nothing to undo at revision " + strconv.FormatInt(revision, 10) + ": the engine keeps the history of the writes it made since it loaded the document"
}

func formatHandles(hs []uint64) []string {
	if len(hs) == 0 {
		return nil
	}
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = drawing.FormatHandle(h)
	}
	return out
}
