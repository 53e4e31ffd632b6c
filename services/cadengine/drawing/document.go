package drawing

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/pages"
)

// Document is a drawing: its entities and layers. Every change goes through
// setEntity, setLayer and setCurrent, which keep the content hash and the
// indexes right. A model is not safe for concurrent use.
type Document struct {
	ID         string
	CreatedAt  time.Time
	Name       string
	Units      enginev1.Units
	Revision   int64
	NextHandle uint64
	current    string
	layers     map[string]*Layer
	layerSeq   int64
	entities   pages.Table[*Entity]
	perLayer   map[string]*int64 // entity count by layer
	sum        Hash              // content hash, see Hash
	// lastCount is perLayer[lastLayer], the count last changed: the
	// entities a batch makes are mostly on one layer.
	lastLayer string
	lastCount *int64

	blocks        map[string]*Block
	blockByHandle map[uint64]*Block
	blockUses     map[string]int                 // inserts of each block, in the drawing and in blocks
	deps          map[uint64]map[uint64]struct{} // handle → entities bound to it (see Bound)
	ltypes        *Linetypes                     // nil: the standard linetypes at scale 1
	layouts       *Layouts                       // nil: no layouts
	settings      *Settings                      // nil: DefaultSettings in Units
	constraints   *Constraints                   // nil: none ever added
	constrained   map[uint64]int                 // handle → constraints that name it (see Constraints)
}

// Layer is a layer's state. Like entities, a layer in a document is never
// changed in place.
type Layer struct {
	Name       string
	Color      int32
	Linetype   string
	Lineweight int32
	On         bool
	Frozen     bool
	Locked     bool
	seq        int64 // creation order, for listing
}

// NewDocument is an empty drawing with layer "0" (colour 7, Continuous) as
// its current layer.
func NewDocument(id, name string, units enginev1.Units, now time.Time) *Document {
	d := EmptyDocument(id, name, units, now)
	d.SetLayer("0", &Layer{Name: "0", Color: 7, Linetype: "Continuous", Lineweight: -3, On: true})
	d.SetCurrent("0")
	return d
}

// EmptyDocument is a drawing without layers, for a loader that adds them and
// then sets the current layer.
func EmptyDocument(id, name string, units enginev1.Units, now time.Time) *Document {
	return &Document{
		ID:         id,
		CreatedAt:  now,
		Name:       name,
		Units:      units,
		NextHandle: firstHandle,
		layers:     map[string]*Layer{},
		perLayer:   map[string]*int64{},

		blocks:        map[string]*Block{},
		blockByHandle: map[uint64]*Block{},
		blockUses:     map[string]int{},
		deps:          map[uint64]map[uint64]struct{}{},
	}
}

// ---- the mutations (these three and SetBlock); everything that changes
// a document goes through them, so the content hash and indexes stay
// right ----

// SetEntity puts e under handle h, or removes h when e is nil.
func (d *Document) SetEntity(h uint64, e *Entity) {
	if old := d.Entity(h); old != nil {
		d.sum.Sub(old.fp)
		*d.layerCount(old.Layer)--
		d.useBlock(old.Geom, -1)
		d.index(old, -1)
		if e == nil {
			d.entities.Delete(h)
		}
	}
	if e != nil {
		d.entities.Put(h, e)
		d.sum.Add(e.fp)
		*d.layerCount(e.Layer)++
		d.useBlock(e.Geom, 1)
		d.index(e, 1)
	}
}

// SetLayer puts l under name, or removes the layer when l is nil. A new
// layer goes last in creation order; one that replaces a layer of the same
// name takes its place.
func (d *Document) SetLayer(name string, l *Layer) {
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

// SetCurrent makes name the current layer.
func (d *Document) SetCurrent(name string) {
	if d.current != "" {
		d.sum.Sub(settingsDigest(d.current))
	}
	d.current = name
	d.sum.Add(settingsDigest(name))
}

// Entities is every entity, in handle order.
func (d *Document) Entities() []*Entity {
	out := make([]*Entity, 0, d.entities.Len())
	d.Each(0, func(e *Entity) bool {
		out = append(out, e)
		return true
	})
	return out
}

// Each calls fn for every entity with handle >= from, in handle order,
// until fn returns false; fn must not change the document (collect, then
// change).
func (d *Document) Each(from uint64, fn func(*Entity) bool) {
	d.entities.Each(from, func(_ uint64, e *Entity) bool { return fn(e) })
}

// LayerFold finds a layer whose name equals name ignoring case (DXF layer
// names are case-insensitive, so two such layers cannot coexist).
func (d *Document) LayerFold(name string) *Layer {
	for _, l := range d.layers {
		if strings.EqualFold(l.Name, name) {
			return l
		}
	}
	return nil
}

// Add gives e the next handle and puts it in the drawing, bypassing the
// rules of a write (see tx): for loaders that build a new drawing.
func (d *Document) Add(e *Entity) *Entity {
	e.Handle = d.NextHandle
	d.NextHandle++
	d.SetEntity(e.Handle, e.Seal())
	return e
}

// Entity is the entity under handle h, or nil.
func (d *Document) Entity(h uint64) *Entity {
	e, _ := d.entities.Get(h)
	return e
}

// EntityCount is how many entities the drawing has.
func (d *Document) EntityCount() int { return d.entities.Len() }

// Layer is the layer named name (exactly), or nil.
func (d *Document) Layer(name string) *Layer { return d.layers[name] }

// LayerEntityCount is how many entities are on the layer named name.
func (d *Document) LayerEntityCount(name string) int64 {
	if c := d.perLayer[name]; c != nil {
		return *c
	}
	return 0
}

// layerCount is the entity count of the layer named name, made if there
// is none yet.
func (d *Document) layerCount(name string) *int64 {
	if d.lastCount != nil && d.lastLayer == name {
		return d.lastCount
	}
	c := d.perLayer[name]
	if c == nil {
		c = new(int64)
		d.perLayer[name] = c
	}
	d.lastLayer, d.lastCount = name, c
	return c
}

// CurrentLayer is the name of the current layer.
func (d *Document) CurrentLayer() string { return d.current }

// ContentHash is the drawing's content hash.
func (d *Document) ContentHash() Hash { return d.sum }

// SortedLayers is every layer, in creation order.
func (d *Document) SortedLayers() []*Layer {
	out := make([]*Layer, 0, len(d.layers))
	for _, l := range d.layers {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// Proto is the layer as the wire has it, with count entities on it.
func (l *Layer) Proto(count int64) *enginev1.Layer {
	return &enginev1.Layer{
		Name: l.Name, Color: l.Color, Linetype: l.Linetype, Lineweight: l.Lineweight,
		On: l.On, Frozen: l.Frozen, Locked: l.Locked, EntityCount: count,
	}
}

// LayerProtos is every layer as the wire has it, in creation order.
func (d *Document) LayerProtos() []*enginev1.Layer {
	ls := d.SortedLayers()
	out := make([]*enginev1.Layer, len(ls))
	for i, l := range ls {
		out[i] = l.Proto(d.LayerEntityCount(l.Name))
	}
	return out
}

// Info describes the document; the caller holds mu.
func (d *Document) Info() *enginev1.DocumentInfo {
	return &enginev1.DocumentInfo{
		DocumentId:   d.ID,
		Name:         d.Name,
		Units:        d.Units,
		Revision:     d.Revision,
		ContentHash:  d.sum.String(),
		EntityCount:  int64(d.entities.Len()),
		CurrentLayer: d.current,
		Layers:       d.LayerProtos(),
	}
}

// ---- content hash ----

// Hash is the document's order-independent content hash: the sum, lane
// by lane modulo 2^64, of 256-bit digests read as four little-endian
// uint64s — one digest per entity (its fingerprint), per layer (its
// state) and one for the document's settings (the current layer). Adding
// and removing a digest is O(1), and equal multisets of digests give equal
// sums whatever the order of changes, so undoing a change restores the
// hash exactly.
type Hash [4]uint64

// Add adds a digest to the sum.
func (s *Hash) Add(d [32]byte) {
	for i := range s {
		s[i] += binary.LittleEndian.Uint64(d[i*8:])
	}
}

// Sub takes a digest out of the sum.
func (s *Hash) Sub(d [32]byte) {
	for i := range s {
		s[i] -= binary.LittleEndian.Uint64(d[i*8:])
	}
}

// String is the hash as 64 hex digits.
func (s Hash) String() string {
	return fmt.Sprintf("%016x%016x%016x%016x", s[0], s[1], s[2], s[3])
}

// digest is SHA-256 of the layer's canonical encoding: 'L' 0x01, name,
// colour, linetype, lineweight, on, frozen, locked (see encoder).
func (l *Layer) digest() [32]byte {
	w := encoder{}
	w.byte(tagLayer)
	w.byte(encVersion)
	w.string(l.Name)
	w.int32(l.Color)
	w.string(l.Linetype)
	w.int32(l.Lineweight)
	w.bool(l.On)
	w.bool(l.Frozen)
	w.bool(l.Locked)
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
