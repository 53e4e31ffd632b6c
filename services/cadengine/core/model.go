package core

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// model is a drawing: its entities and layers. Every change goes through
// setEntity, setLayer and setCurrent, which keep the content hash and the
// indexes right. A model is not safe for concurrent use.
type model struct {
	id         string
	createdAt  time.Time
	name       string
	units      enginev1.Units
	revision   int64
	nextHandle uint64
	current    string
	layers     map[string]*layer
	layerSeq   int64
	entities   map[uint64]*entity
	order      handleIndex      // every live handle, ascending
	perLayer   map[string]int64 // entity count by layer
	sum        sum256           // content hash, see sum256
}

// layer is a layer's state. Like entities, a layer in a document is never
// changed in place.
type layer struct {
	name       string
	color      int32
	linetype   string
	lineweight int32
	on         bool
	frozen     bool
	locked     bool
	seq        int64 // creation order, for listing
}

// newModel is an empty drawing with layer "0" (colour 7, Continuous) as
// its current layer.
func newModel(id, name string, units enginev1.Units, now time.Time) *model {
	d := emptyModel(id, name, units, now)
	d.setLayer("0", &layer{name: "0", color: 7, linetype: "Continuous", lineweight: -3, on: true})
	d.setCurrent("0")
	return d
}

// emptyModel is a drawing without layers, for a loader that adds them and
// then sets the current layer.
func emptyModel(id, name string, units enginev1.Units, now time.Time) *model {
	return &model{
		id:         id,
		createdAt:  now,
		name:       name,
		units:      units,
		nextHandle: firstHandle,
		layers:     map[string]*layer{},
		entities:   map[uint64]*entity{},
		perLayer:   map[string]int64{},
	}
}

// ---- the three mutations; everything that changes a document goes
// through them, so the content hash and indexes stay right ----

// setEntity puts e under handle h, or removes h when e is nil.
func (d *model) setEntity(h uint64, e *entity) {
	if old := d.entities[h]; old != nil {
		d.sum.Sub(old.fp)
		d.perLayer[old.layer]--
		if e == nil {
			delete(d.entities, h)
			d.order.remove()
			d.compact()
		}
	} else if e != nil {
		d.order.Add(h)
	}
	if e != nil {
		d.entities[h] = e
		d.sum.Add(e.fp)
		d.perLayer[e.layer]++
	}
}

// setLayer puts l under name, or removes the layer when l is nil. A new
// layer goes last in creation order; one that replaces a layer of the same
// name takes its place.
func (d *model) setLayer(name string, l *layer) {
	old := d.layers[name]
	if old != nil {
		d.sum.Sub(old.digest())
	}
	if l == nil {
		delete(d.layers, name)
		return
	}
	switch {
	case l.seq != 0:
	case old != nil:
		l.seq = old.seq
	default:
		d.layerSeq++
		l.seq = d.layerSeq
	}
	d.layers[name] = l
	d.sum.Add(l.digest())
}

// setCurrent makes name the current layer.
func (d *model) setCurrent(name string) {
	if d.current != "" {
		d.sum.Sub(settingsDigest(d.current))
	}
	d.current = name
	d.sum.Add(settingsDigest(name))
}

func (d *model) compact() {
	if d.order.dead > 1024 && d.order.dead*2 > len(d.order.hs) {
		d.order.compact(func(h uint64) bool { return d.entities[h] != nil })
	}
}

// each calls fn for every entity with handle >= from, in handle order,
// until fn returns false.
func (d *model) each(from uint64, fn func(*entity) bool) {
	i := sort.Search(len(d.order.hs), func(i int) bool { return d.order.hs[i] >= from })
	for ; i < len(d.order.hs); i++ {
		if e := d.entities[d.order.hs[i]]; e != nil && !fn(e) {
			return
		}
	}
}

// layerFold finds a layer whose name equals name ignoring case (DXF layer
// names are case-insensitive, so two such layers cannot coexist).
func (d *model) layerFold(name string) *layer {
	for _, l := range d.layers {
		if strings.EqualFold(l.name, name) {
			return l
		}
	}
	return nil
}

// add gives e the next handle and puts it in the drawing, bypassing the
// rules of a write (see tx): for loaders that build a new drawing.
func (d *model) add(e *entity) *entity {
	e.handle = d.nextHandle
	d.nextHandle++
	d.setEntity(e.handle, e.seal())
	return e
}

// entity is the entity under handle h, or nil.
func (d *model) entity(h uint64) *entity { return d.entities[h] }

// entityCount is how many entities the drawing has.
func (d *model) entityCount() int { return len(d.entities) }

// layer is the layer named name (exactly), or nil.
func (d *model) layer(name string) *layer { return d.layers[name] }

// layerEntityCount is how many entities are on the layer named name.
func (d *model) layerEntityCount(name string) int64 { return d.perLayer[name] }

// currentLayer is the name of the current layer.
func (d *model) currentLayer() string { return d.current }

// contentHash is the drawing's content hash.
func (d *model) contentHash() sum256 { return d.sum }

func (d *model) sortedLayers() []*layer {
	out := make([]*layer, 0, len(d.layers))
	for _, l := range d.layers {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

func (l *layer) proto(count int64) *enginev1.Layer {
	return &enginev1.Layer{
		Name: l.name, Color: l.color, Linetype: l.linetype, Lineweight: l.lineweight,
		On: l.on, Frozen: l.frozen, Locked: l.locked, EntityCount: count,
	}
}

func (d *model) layerProtos() []*enginev1.Layer {
	ls := d.sortedLayers()
	out := make([]*enginev1.Layer, len(ls))
	for i, l := range ls {
		out[i] = l.proto(d.perLayer[l.name])
	}
	return out
}

// info describes the document; the caller holds mu.
func (d *model) info() *enginev1.DocumentInfo {
	return &enginev1.DocumentInfo{
		DocumentId:   d.id,
		Name:         d.name,
		Units:        d.units,
		Revision:     d.revision,
		ContentHash:  d.sum.String(),
		EntityCount:  int64(len(d.entities)),
		CurrentLayer: d.current,
		Layers:       d.layerProtos(),
	}
}

// ---- content hash ----

// sum256 is the document's order-independent content hash: the sum, lane
// by lane modulo 2^64, of 256-bit digests read as four little-endian
// uint64s — one digest per entity (its fingerprint), per layer (its
// state) and one for the document's settings (the current layer). Adding
// and removing a digest is O(1), and equal multisets of digests give equal
// sums whatever the order of changes, so undoing a change restores the
// hash exactly.
type sum256 [4]uint64

func (s *sum256) Add(d [32]byte) {
	for i := range s {
		s[i] += binary.LittleEndian.Uint64(d[i*8:])
	}
}

func (s *sum256) Sub(d [32]byte) {
	for i := range s {
		s[i] -= binary.LittleEndian.Uint64(d[i*8:])
	}
}

// String is the hash as 64 hex digits.
func (s sum256) String() string {
	return fmt.Sprintf("%016x%016x%016x%016x", s[0], s[1], s[2], s[3])
}

// digest is SHA-256 of the layer's canonical encoding: 'L' 0x01, name,
// colour, linetype, lineweight, on, frozen, locked (see encoder).
func (l *layer) digest() [32]byte {
	w := encoder{}
	w.byte(tagLayer)
	w.byte(encVersion)
	w.string(l.name)
	w.int32(l.color)
	w.string(l.linetype)
	w.int32(l.lineweight)
	w.bool(l.on)
	w.bool(l.frozen)
	w.bool(l.locked)
	return sha256.Sum256(w.b)
}

// settingsDigest is SHA-256 of 'S' 0x01 and the current layer's name.
func settingsDigest(current string) [32]byte {
	w := encoder{}
	w.byte(tagSettings)
	w.byte(encVersion)
	w.string(current)
	return sha256.Sum256(w.b)
}

// ---- handle index ----

// handleIndex keeps handles in ascending order for paging. Handles only
// grow, so a new one is appended; a removed one stays as a dead slot (the
// entity map says which are live) until dead slots are the majority, when
// the index is compacted. Undoing a removal may re-add an older handle,
// which is then inserted in place.
type handleIndex struct {
	hs   []uint64
	dead int
}

func (x *handleIndex) Add(h uint64) {
	n := len(x.hs)
	if n == 0 || h > x.hs[n-1] {
		x.hs = append(x.hs, h)
		return
	}
	i := sort.Search(n, func(i int) bool { return x.hs[i] >= h })
	if i < n && x.hs[i] == h {
		x.dead-- // a dead slot comes back to life
		return
	}
	x.hs = append(x.hs, 0)
	copy(x.hs[i+1:], x.hs[i:])
	x.hs[i] = h
}

func (x *handleIndex) remove() { x.dead++ }

func (x *handleIndex) compact(live func(uint64) bool) {
	out := x.hs[:0]
	for _, h := range x.hs {
		if live(h) {
			out = append(out, h)
		}
	}
	x.hs, x.dead = out, 0
}
