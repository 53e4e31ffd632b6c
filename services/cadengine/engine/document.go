package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// document is one drawing in the engine: its model, the write lane and the
// lock that guard it, and the notes of its recent commits. Writers also
// hold the lane (see run.lock) for as long as their write — a tool call or
// a whole batch — takes.
type document struct {
	*drawing.Document

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
	history     history      // what document_undo and document_redo take back and bring back
	// quarantined is set when the document in memory may differ from the
	// stored one (a commit that would have stored a rollback failed);
	// every later call on it is refused quarantined until the engine
	// restarts and reloads it.
	quarantined bool

	// lease is the lease the engine serves this copy of the document
	// under, with Sharing (zero without; see docFor).
	lease leaseState
}

// newDocument puts a drawing in the engine.
func newDocument(m *drawing.Document) *document {
	d := &document{Document: m, lane: make(chan struct{}, 1)}
	d.durable.Store(m.Revision)
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
func recordOf(d *drawing.Document) store.DocumentRecord {
	ls := d.SortedLayers()
	layers := make([]store.LayerRecord, len(ls))
	for i, l := range ls {
		layers[i] = store.LayerRecord{
			Name: l.Name, Color: l.Color, Linetype: l.Linetype, Lineweight: l.Lineweight,
			On: l.On, Frozen: l.Frozen, Locked: l.Locked, Entities: new(d.LayerEntityCount(l.Name)),
		}
	}
	return store.DocumentRecord{
		ID:           d.ID,
		Name:         d.Name,
		Units:        d.Units,
		CreatedAt:    d.CreatedAt,
		Revision:     d.Revision,
		NextHandle:   d.NextHandle,
		CurrentLayer: d.CurrentLayer(),
		Layers:       layers,
		ContentHash:  d.ContentHash().String(),
	}
}

// infoOf describes the document of row rec without loading it, from the
// layers' entity counts (every entity is on one of its layers); false
// when the row has no counts.
func infoOf(rec *store.DocumentRecord) (*enginev1.DocumentInfo, bool) {
	info := &enginev1.DocumentInfo{
		DocumentId: rec.ID, Name: rec.Name, Units: rec.Units, Revision: rec.Revision,
		ContentHash: rec.ContentHash, CurrentLayer: rec.CurrentLayer, Layers: make([]*enginev1.Layer, len(rec.Layers)),
	}
	for i, l := range rec.Layers {
		if l.Entities == nil {
			return nil, false
		}
		info.EntityCount += *l.Entities
		info.Layers[i] = layerOf(l).Proto(*l.Entities)
	}
	return info, true
}

// layerOf is the layer of a stored record.
func layerOf(l store.LayerRecord) *drawing.Layer {
	return &drawing.Layer{
		Name: l.Name, Color: l.Color, Linetype: l.Linetype, Lineweight: l.Lineweight,
		On: l.On, Frozen: l.Frozen, Locked: l.Locked,
	}
}

// loadDocument rebuilds a document from its stored records and checks the
// stored content hash against the recomputed one.
func loadDocument(rec *store.DocumentRecord, ents []store.EntityRecord) (*document, error) {
	d := drawing.EmptyDocument(rec.ID, rec.Name, rec.Units, rec.CreatedAt)
	d.Revision, d.NextHandle = rec.Revision, rec.NextHandle
	for _, l := range rec.Layers {
		d.SetLayer(l.Name, layerOf(l))
	}
	if d.Layer(rec.CurrentLayer) == nil {
		return nil, fmt.Errorf("document %s: current layer %q does not exist", rec.ID, rec.CurrentLayer)
	}
	d.SetCurrent(rec.CurrentLayer)
	records := make(map[uint64][]byte, len(ents))
	for _, er := range ents {
		if er.Handle >= d.NextHandle {
			return nil, fmt.Errorf("document %s: entity %s is beyond the handle counter", rec.ID, drawing.FormatHandle(er.Handle))
		}
		records[er.Handle] = er.Data
	}
	if err := d.Restore(records); err != nil {
		return nil, fmt.Errorf("document %s: %w", rec.ID, err)
	}
	if got := d.ContentHash().String(); got != rec.ContentHash {
		return nil, fmt.Errorf("document %s: content hash is %s, stored %s", rec.ID, got, rec.ContentHash)
	}
	return newDocument(d), nil
}

// commitOf is the store transaction that brings the stored document to the
// document's current state, given the changes since the last commit: the
// document row and, for each entity the changes touched, its current state
// (or its removal); likewise for blocks, stored beside the entities under
// their handles.
func commitOf(d *drawing.Document, changes []drawing.Change) *store.Commit {
	rec := recordOf(d)
	c := &store.Commit{Document: &rec, Put: make([]store.EntityRecord, 0, len(changes))}
	// The encodings share one buffer (a line's is about 60 bytes): a batch
	// that creates 100k entities makes a few allocations for them, not 100k.
	slab := make([]byte, 0, 64*len(changes))
	for _, h := range storedOnce(changes) {
		start := len(slab)
		if next, ok := d.AppendEncoded(slab, h); ok {
			// When the buffer grows the records cut so far keep the old
			// one, which nothing writes to again.
			slab = next
			c.Put = append(c.Put, store.EntityRecord{Handle: h, Data: slab[start:len(slab):len(slab)]})
		} else {
			c.Delete = append(c.Delete, h)
		}
	}
	return c
}

// storedOnce are the handles the changes store (see Change.Stored), each
// once: in the changes' order when that is increasing, as in a batch that
// only creates, else sorted. (A sorted slice, not a set: a drafting batch
// changes some three hundred entities, and a set of them was the largest
// of its allocations.)
func storedOnce(changes []drawing.Change) []uint64 {
	hs := make([]uint64, 0, len(changes))
	for _, ch := range changes {
		if h, ok := ch.Stored(); ok {
			hs = append(hs, h)
		}
	}
	if !slices.IsSorted(hs) {
		slices.Sort(hs)
	}
	return slices.Compact(hs)
}

// fullCommit is the store transaction that stores a new document whole:
// its row, every block and every entity.
func fullCommit(d *drawing.Document) *store.Commit {
	rec := recordOf(d)
	c := &store.Commit{Document: &rec, Put: make([]store.EntityRecord, 0, d.EntityCount())}
	d.EachStored(func(h uint64, data []byte) {
		c.Put = append(c.Put, store.EntityRecord{Handle: h, Data: data})
	})
	return c
}
