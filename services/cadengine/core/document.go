package core

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// document is one drawing in the engine: its model, the write lane and the
// lock that guard it, and the notes of its recent commits. Writers also
// hold the lane (see run.lock) for as long as their write — a tool call or
// a whole batch — takes.
type document struct {
	*model

	// lane admits one writer at a time. A writer takes the lane first
	// (waiting is cancellable), then mu while it applies and commits; a
	// batch that waits on a client commits what it did and lets go of
	// both, so that others can read and write meanwhile (see run.suspend).
	lane chan struct{}

	// durable is the revision of the last commit, readable without mu
	// (busy and conflict answers must not wait for the lane).
	durable atomic.Int64

	mu          sync.RWMutex // guards model and everything below
	commits     []commitNote // the latest commits, oldest first, see noteCommit
	commitsLost int64        // the highest revision of notes dropped from commits
	// quarantined is set when the document in memory may differ from the
	// stored one (a commit that would have stored a rollback failed);
	// every later call on it is refused quarantined until the engine
	// restarts and reloads it.
	quarantined bool
}

// newDocument puts a drawing in the engine.
func newDocument(m *model) *document {
	d := &document{model: m, lane: make(chan struct{}, 1)}
	d.durable.Store(m.revision)
	return d
}

// acquire takes the write lane, or gives up when ctx ends.
func (d *document) acquire(ctx context.Context) error {
	select {
	case d.lane <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *document) release() { <-d.lane }

// record is the document's row for the store; the caller holds mu.
func recordOf(d *model) store.DocumentRecord {
	ls := d.sortedLayers()
	layers := make([]store.LayerRecord, len(ls))
	for i, l := range ls {
		layers[i] = store.LayerRecord{
			Name: l.name, Color: l.color, Linetype: l.linetype, Lineweight: l.lineweight,
			On: l.on, Frozen: l.frozen, Locked: l.locked,
		}
	}
	return store.DocumentRecord{
		ID:           d.id,
		Name:         d.name,
		Units:        d.units,
		CreatedAt:    d.createdAt,
		Revision:     d.revision,
		NextHandle:   d.nextHandle,
		CurrentLayer: d.currentLayer(),
		Layers:       layers,
		ContentHash:  d.contentHash().String(),
	}
}

// loadDocument rebuilds a document from its stored records and checks the
// stored content hash against the recomputed one.
func loadDocument(rec *store.DocumentRecord, ents []store.EntityRecord) (*document, error) {
	d := emptyModel(rec.ID, rec.Name, rec.Units, rec.CreatedAt)
	d.revision, d.nextHandle = rec.Revision, rec.NextHandle
	for _, l := range rec.Layers {
		d.setLayer(l.Name, &layer{
			name: l.Name, color: l.Color, linetype: l.Linetype, lineweight: l.Lineweight,
			on: l.On, frozen: l.Frozen, locked: l.Locked,
		})
	}
	if d.layer(rec.CurrentLayer) == nil {
		return nil, fmt.Errorf("document %s: current layer %q does not exist", rec.ID, rec.CurrentLayer)
	}
	d.setCurrent(rec.CurrentLayer)
	for _, er := range ents {
		e, err := decodeEntity(er.Handle, er.Data)
		if err != nil {
			return nil, fmt.Errorf("document %s: %w", rec.ID, err)
		}
		if er.Handle >= d.nextHandle {
			return nil, fmt.Errorf("document %s: entity %s is beyond the handle counter", rec.ID, formatHandle(er.Handle))
		}
		d.setEntity(er.Handle, e)
	}
	if got := d.contentHash().String(); got != rec.ContentHash {
		return nil, fmt.Errorf("document %s: content hash is %s, stored %s", rec.ID, got, rec.ContentHash)
	}
	return newDocument(d), nil
}

// commitOf is the store transaction that brings the stored document to the
// document's current state, given the changes since the last commit: the
// document row and, for each entity the changes touched, its current state
// (or its removal).
func commitOf(d *model, changes []change) *store.Commit {
	rec := recordOf(d)
	c := &store.Commit{Document: &rec}
	seen := make(map[uint64]struct{}, len(changes))
	for _, ch := range changes {
		if ch.kind != changeEntity {
			continue
		}
		if _, ok := seen[ch.handle]; ok {
			continue
		}
		seen[ch.handle] = struct{}{}
		if e := d.entity(ch.handle); e != nil {
			c.Put = append(c.Put, store.EntityRecord{Handle: e.handle, Data: e.encode()})
		} else {
			c.Delete = append(c.Delete, ch.handle)
		}
	}
	return c
}

// fullCommit is the store transaction that stores a new document whole:
// its row and every entity.
func fullCommit(d *model) *store.Commit {
	rec := recordOf(d)
	c := &store.Commit{Document: &rec, Put: make([]store.EntityRecord, 0, d.entityCount())}
	d.each(0, func(e *entity) bool {
		c.Put = append(c.Put, store.EntityRecord{Handle: e.handle, Data: e.encode()})
		return true
	})
	return c
}
