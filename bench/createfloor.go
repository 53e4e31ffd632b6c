package bench

import (
	"context"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// createFloor makes the n lines of lineArgs the least way any path can:
// each made in the drawing model (handle, fingerprint, the document's map,
// the undo log) of a new document, then all committed to st (each entity's
// encoding; on a new memory store, its map), with no call around them. It is the floor of
// BenchmarkHundredThousandLines (services/cadengine/engine) through the
// exported API: the engine's commit of the changes (its commitOf and
// recordOf, unexported) is copied in floorCommit, which must keep doing
// what they do.
func createFloor(ctx context.Context, st store.Store, n int) error {
	d := drawing.NewDocument("doc-0123456789abcdef", "", enginev1.Units_UNITS_MM, time.Now())
	tx := drawing.NewTx(d, n)
	for i := range n {
		x, y := float64(i%1000), float64(i/1000) // lineArgs(i), without the map
		e := &drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: drawing.Line{A: geom.Pt(x, y), B: geom.Pt(x+0.5, y+0.5)}}
		if _, err := tx.Create(e); err != nil {
			return err
		}
	}
	return st.Commit(ctx, floorCommit(d, tx.Since(0)))
}

// floorCommit is the store transaction of changes to d, as the engine's
// commitOf makes it: the document's row and the current encoding of every
// entity or block the changes touched, the encodings cut from one buffer.
func floorCommit(d *drawing.Document, changes []drawing.Change) *store.Commit {
	rec := floorRecord(d)
	c := &store.Commit{Document: &rec, Put: make([]store.EntityRecord, 0, len(changes))}
	slab := make([]byte, 0, 64*len(changes))
	var seen map[uint64]struct{} // only when a handle may repeat
	var last uint64
	for _, ch := range changes {
		if h, ok := ch.Stored(); ok {
			if h <= last {
				seen = make(map[uint64]struct{}, len(changes))
				break
			}
			last = h
		}
	}
	for _, ch := range changes {
		h, ok := ch.Stored()
		if !ok {
			continue
		}
		if seen != nil {
			if _, ok := seen[h]; ok {
				continue
			}
			seen[h] = struct{}{}
		}
		start := len(slab)
		if next, ok := d.AppendEncoded(slab, h); ok {
			slab = next
			c.Put = append(c.Put, store.EntityRecord{Handle: h, Data: slab[start:len(slab):len(slab)]})
		} else {
			c.Delete = append(c.Delete, h)
		}
	}
	return c
}

// floorRecord is d's row, as the engine's recordOf makes it.
func floorRecord(d *drawing.Document) store.DocumentRecord {
	ls := d.SortedLayers()
	layers := make([]store.LayerRecord, len(ls))
	for i, l := range ls {
		layers[i] = store.LayerRecord{
			Name: l.Name, Color: l.Color, Linetype: l.Linetype, Lineweight: l.Lineweight,
			On: l.On, Frozen: l.Frozen, Locked: l.Locked, Entities: new(d.LayerEntityCount(l.Name)),
		}
	}
	return store.DocumentRecord{
		ID: d.ID, Name: d.Name, Units: d.Units, CreatedAt: d.CreatedAt, Revision: d.Revision,
		NextHandle: d.NextHandle, CurrentLayer: d.CurrentLayer(), Layers: layers, ContentHash: d.ContentHash().String(),
	}
}
