package drawing

import (
	"crypto/sha256"
	"fmt"
	"sort"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Block is a named group of entities defined once and placed by inserts.
// Its entities are in the block's own coordinates, Base being the point
// an insert puts at its position; they have no handles of their own. A
// block is never changed: it is defined, and deleted once no insert uses
// it. It has a handle (from the document's counter, as in DXF, where it
// owns a BLOCK_RECORD), under which it is stored, and a digest in the
// document's content hash.
type Block struct {
	Name     string
	Handle   uint64
	Base     geom.Vec
	Entities []*Entity
	digest   [32]byte

	// What the block expands to, set once when it joins a document
	// (measure): the primitives drawing it makes (see Cost) and the convex
	// hull of everything it draws, in its own coordinates.
	measured bool
	cost     int64
	leaves   int64 // entities that are not inserts
	hull     []geom.Vec
}

// NewBlock makes a block of sealed entities (their handles are dropped).
func NewBlock(name string, base geom.Vec, ents []*Entity) *Block {
	b := &Block{Name: name, Base: base}
	for _, e := range ents {
		c := *e
		c.Handle = 0
		b.Entities = append(b.Entities, c.Seal())
	}
	return b
}

// Encode is the block's canonical encoding, its stored form:
//
//	'B' 0x01, name (string), base x y, n (uvarint), then n × (the
//	entity's canonical encoding, prefixed by its length as a uvarint)
func (b *Block) Encode() []byte {
	w := encoder{}
	w.byte(tagBlock)
	w.byte(encVersion)
	w.string(b.Name)
	w.vec(b.Base)
	w.uvarint(uint64(len(b.Entities)))
	for _, e := range b.Entities {
		enc := e.Encode()
		w.uvarint(uint64(len(enc)))
		w.b = append(w.b, enc...)
	}
	return w.b
}

func (b *Block) seal() *Block {
	b.digest = sha256.Sum256(b.Encode())
	return b
}

// decodeBlock reads a block's canonical encoding; the inserts among its
// entities are resolved later.
func decodeBlock(handle uint64, data []byte) (*Block, error) {
	r := &decoder{b: data}
	if r.byte() != tagBlock || r.byte() != encVersion {
		return nil, fmt.Errorf("block %s: unknown encoding", FormatHandle(handle))
	}
	b := &Block{Handle: handle, Name: r.string(), Base: r.vec()}
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		return nil, fmt.Errorf("block %s: malformed", FormatHandle(handle))
	}
	for i := uint64(0); i < n && r.err == nil; i++ {
		k := r.uvarint()
		if k > uint64(len(r.b)) {
			return nil, fmt.Errorf("block %s: malformed entity", FormatHandle(handle))
		}
		e, err := DecodeEntity(0, r.b[:k])
		if err != nil {
			return nil, fmt.Errorf("block %s: %w", FormatHandle(handle), err)
		}
		r.b = r.b[k:]
		b.Entities = append(b.Entities, e)
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, fmt.Errorf("block %s: truncated or malformed", FormatHandle(handle))
	}
	return b.seal(), nil
}

// Insert is a block reference: the block Name's entities, moved from its
// base point to P, scaled by Scale, mirrored (the block's x axis
// reversed) when Mirror, and turned by Rotation degrees. Def is the block,
// resolved by name when the insert is made or loaded.
//
// An insert scaled unevenly (DXF's x and y scales differing) scales the
// block's y by YScale instead of Scale (0: no differently), before it
// turns it: shapes change (circles become ellipses, see
// Geometry.Affined). Outer, when set, is a map the placement is followed
// by: what an insert inside an unevenly scaled one (or made of one, by
// exploding it) cannot say with its own scales and rotation.
//
// An insert with a grid (DXF's MINSERT) places the block Cols × Rows
// times: the copy in column i and row j is moved by (i·ColSpacing,
// j·RowSpacing) turned by Rotation (the spacing is not scaled or
// mirrored, as in DXF; Outer maps it as it maps the rest). Cols and Rows
// of 0 mean 1.
type Insert struct {
	Name     string
	P        geom.Vec
	Scale    float64
	Rotation float64
	Mirror   bool
	Def      *Block

	YScale float64
	Outer  *geom.Affine

	Cols, Rows             int64
	ColSpacing, RowSpacing float64

	// Attribs are the values of the block's attributes on this insert.
	Attribs []Attrib
}

// Uneven reports whether the insert changes shapes: its scales differ, or
// an outer map does more than a similarity.
func (g Insert) Uneven() bool {
	return g.YScale != 0 && g.YScale != g.Scale || g.Outer != nil && !g.Outer.Similar()
}

// Placement is the map from the block's coordinates to the world, of the
// first copy of a grid: the block's base point to the origin, its x
// reversed when mirrored, scaled (Scale, and YScale in y when set),
// turned, moved to P, then Outer.
func (g Insert) Placement() geom.Affine {
	var base geom.Vec
	if g.Def != nil {
		base = g.Def.Base
	}
	sx, sy := g.Scale, g.Scale
	if g.YScale != 0 {
		sy = g.YScale
	}
	if g.Mirror {
		sx = -sx
	}
	s, c := geom.SinCosDeg(g.Rotation)
	m := geom.Affine{A: c * sx, B: -s * sy, D: s * sx, E: c * sy}
	m.C, m.F = g.P.X-(m.A*base.X+m.B*base.Y), g.P.Y-(m.D*base.X+m.E*base.Y)
	if g.Outer != nil {
		m = m.Then(*g.Outer)
	}
	return m
}

// Grid reports whether the insert places more than one copy.
func (g Insert) Grid() bool { return g.Cols > 1 || g.Rows > 1 }

// Cells is the number of copies the insert places.
func (g Insert) Cells() int64 { return mulSat(max(1, g.Cols), max(1, g.Rows)) }

// cellOffset is how far the copy in column i and row j is from the first.
func (g Insert) cellOffset(i, j int64) geom.Vec {
	s, c := geom.SinCosDeg(g.Rotation)
	x, y := float64(i)*g.ColSpacing, float64(j)*g.RowSpacing
	d := geom.Pt(c*x-s*y, s*x+c*y)
	if g.Outer != nil {
		d = g.Outer.Linear(d)
	}
	return d
}

// Kind implements [Geometry].
func (Insert) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_INSERT }

// Xform is the transform from the block's coordinates to the world.
func (g Insert) Xform() geom.Xform {
	var base geom.Vec
	if g.Def != nil {
		base = g.Def.Base
	}
	x := geom.Translate(base.Mul(-1))
	if g.Mirror {
		x = x.Then(geom.MirrorAbout(geom.Vec{}, geom.Pt(0, 1)))
	}
	return x.Then(geom.ScaleAbout(geom.Vec{}, g.Scale)).Then(geom.RotateAbout(geom.Vec{}, g.Rotation)).Then(geom.Translate(g.P))
}

// Placed are the block's entities as the insert places them, in world
// coordinates, without handles, on their own layers: every copy of a
// grid, row by row.
func (g Insert) Placed() []*Entity {
	if g.Def == nil {
		return nil
	}
	x, m := g.Xform(), g.Placement()
	uneven := g.Uneven()
	out := make([]*Entity, 0, mulSat(int64(len(g.Def.Entities)), g.Cells()))
	for j := range max(1, g.Rows) {
		for i := range max(1, g.Cols) {
			d := g.cellOffset(i, j)
			cell, mcell := x.Then(geom.Translate(d)), m.Then(geom.Translate(d).Affine())
			for _, e := range g.Def.Entities {
				c := *e
				c.Geom = placedGeom(e.Geom, cell, mcell, uneven)
				out = append(out, &c)
			}
		}
	}
	return out
}

// placedGeom is a block's geometry g placed by its insert: by x, or by
// m when the insert scales unevenly. A text (an attribute definition's
// too) placed by a reflection is reflected with it (see Text.Reflected),
// as CAD programs draw a block inserted at a negative scale.
func placedGeom(g Geometry, x geom.Xform, m geom.Affine, uneven bool) Geometry {
	text := func(t Text) (Text, bool) {
		if uneven {
			x = m.Nearest(t.P)
		}
		if !x.Mirror {
			return t, false
		}
		return t.Reflected(x), true
	}
	switch t := g.(type) {
	case Text:
		if r, ok := text(t); ok {
			return r
		}
	case Attdef:
		if r, ok := text(t.Text); ok {
			t.Text = r
			return t
		}
	}
	if uneven {
		return g.Affined(m)
	}
	return g.Transformed(x)
}

// PlacedFor are the placed entities of the insert e (whose geometry g
// is) as they are drawn and exploded: as in DXF, those on layer 0 take
// e's layer, and colour and linetype by block take e's. The block's
// attribute definitions are left out, but that a constant one shows its
// value as text; the insert's visible attribute values follow, as text on
// its layer (so that exploding keeps them, as AutoCAD's BURST does), in
// every copy of a grid.
func (g Insert) PlacedFor(e *Entity) []*Entity {
	placed := g.Placed()
	out := placed[:0]
	for _, p := range placed {
		if a, ok := p.Geom.(Attdef); ok {
			if !a.Constant() || a.Flags&1 != 0 {
				continue
			}
			p.Geom = a.Text
		}
		out = append(out, p)
	}
	if shown := shownAttribs(g.Attribs); len(shown) > 0 {
		// The values are where the first copy has them; a grid repeats
		// them in every copy, as its block.
		for j := range max(1, g.Rows) {
			for i := range max(1, g.Cols) {
				d := g.cellOffset(i, j)
				for _, t := range shown {
					t.P = t.P.Add(d)
					out = append(out, &Entity{Layer: e.Layer, Color: e.Color, Linetype: e.Linetype, Geom: t})
				}
			}
		}
	}
	for _, p := range out {
		if p.Layer == "0" {
			p.Layer = e.Layer
		}
		if p.Color == 0 {
			p.Color = e.Color
		}
		if p.Linetype == "ByBlock" {
			p.Linetype = e.Linetype
		}
	}
	return out
}

// Prims implements [Geometry]: the placed entities' curves.
func (g Insert) Prims() []any {
	var out []any
	for _, e := range g.Placed() {
		out = append(out, e.Geom.Prims()...)
	}
	return out
}

// Bounds implements [Geometry]: the extents of the block's convex hull
// placed at the grid's corner copies (see [Block]), or the insertion
// point for an empty block. It costs the hull's size, however deep the
// block's inserts nest; curves are bounded by their tangent polygons
// (geom.HullPoints), within 2·10⁻⁵ of their radius.
func (g Insert) Bounds() geom.Box {
	var b geom.Box
	for _, p := range g.hullPoints(nil) {
		b.AddPoint(p)
	}
	return b
}

// Finite implements [Geometry].
func (g Insert) Finite() bool {
	if m := g.Outer; m != nil {
		for _, v := range [...]float64{m.A, m.B, m.C, m.D, m.E, m.F} {
			if !geom.IsFinite(v) {
				return false
			}
		}
	}
	return g.P.Finite() && geom.IsFinite(g.Scale) && geom.IsFinite(g.YScale) && geom.IsFinite(g.Rotation) &&
		geom.IsFinite(g.ColSpacing) && geom.IsFinite(g.RowSpacing)
}

// Transformed implements [Geometry]. A reflection R(a)·Rot(r) is
// Rot(2a − r + 180°) with the block's x axis reversed, so it toggles
// Mirror.
//
// A grid's spacing scales with the insert, and a reflection reverses the
// direction of its columns (whose offsets turn with the new rotation).
//
// An insert with an outer map has it followed by x; an unevenly scaled
// one turns, moves and mirrors as any (its scales, along its own axes,
// commute with the reflection).
func (g Insert) Transformed(x geom.Xform) Geometry {
	if g.Outer != nil {
		return g.Affined(x.Affine())
	}
	out := g
	out.P, out.Scale, out.YScale = x.Point(g.P), g.Scale*x.Scale, g.YScale*x.Scale
	out.ColSpacing, out.RowSpacing = g.ColSpacing*x.Scale, g.RowSpacing*x.Scale
	if g.Attribs != nil {
		out.Attribs = make([]Attrib, len(g.Attribs))
		for i, a := range g.Attribs {
			a.Text = a.Text.Transformed(x).(Text)
			out.Attribs[i] = a
		}
	}
	out.Rotation = x.Direction(g.Rotation)
	if x.Mirror {
		out.Rotation = geom.NormDeg(out.Rotation + 180)
		out.Mirror = !g.Mirror
		out.ColSpacing = -out.ColSpacing
	}
	return out
}

// Affined implements [Geometry]: the map follows its placement (Outer),
// its attribute values as Text's.
func (g Insert) Affined(m geom.Affine) Geometry {
	out := g
	if g.Outer != nil {
		m = g.Outer.Then(m)
	}
	out.Outer = &m
	if g.Attribs != nil {
		out.Attribs = make([]Attrib, len(g.Attribs))
		for i, a := range g.Attribs {
			a.Text = a.Text.Affined(m).(Text)
			out.Attribs[i] = a
		}
	}
	return out
}

func (g Insert) encodeTo(w *encoder) {
	w.string(g.Name)
	w.vec(g.P)
	w.float(g.Scale)
	w.float(g.Rotation)
	w.bool(g.Mirror)
	if g.Grid() {
		w.byte(insertGrid)
		w.uvarint(uint64(max(1, g.Cols)))
		w.uvarint(uint64(max(1, g.Rows)))
		w.float(g.ColSpacing)
		w.float(g.RowSpacing)
	}
	if g.YScale != 0 {
		w.byte(insertYScale)
		w.float(g.YScale)
	}
	if m := g.Outer; m != nil {
		w.byte(insertOuter)
		for _, v := range [...]float64{m.A, m.B, m.C, m.D, m.E, m.F} {
			w.float(v)
		}
	}
	if len(g.Attribs) > 0 {
		w.byte(insertAttribs)
		encodeAttribs(w, g.Attribs)
	}
}

// These tag what may follow an insert's encoding, in this order, each
// only when it has it (an insert with none encodes as it always did): its
// grid (cols, rows, spacings), its y scale, its outer map (a b c d e f),
// its attribute values.
const (
	insertGrid    = 'G'
	insertYScale  = 'Y'
	insertOuter   = 'M'
	insertAttribs = 'A'
)

func decodeInsert(r *decoder) Insert {
	n := r.string()
	p := r.vec()
	s := r.float()
	rot := r.float()
	g := Insert{Name: n, P: p, Scale: s, Rotation: rot, Mirror: r.byte() == 1}
	if len(r.b) > 0 && r.b[0] == insertGrid {
		r.byte()
		g.Cols, g.Rows = int64(r.uvarint()), int64(r.uvarint())
		g.ColSpacing, g.RowSpacing = r.float(), r.float()
		if g.Cols < 1 || g.Rows < 1 {
			r.fail("grid")
		}
	}
	if len(r.b) > 0 && r.b[0] == insertYScale {
		r.byte()
		g.YScale = r.float()
	}
	if len(r.b) > 0 && r.b[0] == insertOuter {
		r.byte()
		g.Outer = &geom.Affine{A: r.float(), B: r.float(), C: r.float(), D: r.float(), E: r.float(), F: r.float()}
	}
	if len(r.b) > 0 && r.b[0] == insertAttribs {
		r.byte()
		g.Attribs = decodeAttribs(r)
	}
	return g
}

func (g Insert) fill(w *wire) {
	pb := &w.pb
	pb.Block, pb.Insertion, pb.Scale, pb.Rotation = new(g.Name), w.point(g.P), w.num(g.Scale), w.num(g.Rotation)
	pb.Mirrored = new(g.Mirror)
	if g.Grid() {
		pb.Grid = &enginev1.InsertGrid{Columns: max(1, g.Cols), Rows: max(1, g.Rows), ColumnSpacing: g.ColSpacing, RowSpacing: g.RowSpacing}
	}
	if len(g.Attribs) > 0 {
		pb.Attributes = pbAttribs(g.Attribs)
	}
	if g.YScale != 0 {
		pb.YScale = w.num(g.YScale)
	}
	if g.Outer != nil {
		m := g.Placement()
		pb.Transform = &enginev1.Transform{A: m.A, B: m.B, C: m.C, D: m.D, E: m.E, F: m.F}
	}
}

// ---- blocks in a document ----

// Block is the block named name, or nil.
func (d *Document) Block(name string) *Block { return d.blocks[name] }

// Blocks is every block, by name.
func (d *Document) Blocks() []*Block {
	out := make([]*Block, 0, len(d.blocks))
	for _, b := range d.blocks {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// BlockOnLayer is the name of a block with an entity on the layer named
// name, or "".
func (d *Document) BlockOnLayer(name string) string {
	for _, b := range d.Blocks() {
		for _, e := range b.Entities {
			if e.Layer == name {
				return b.Name
			}
		}
	}
	return ""
}

// BlockUses is how many inserts use the block named name, in the drawing
// and in other blocks.
func (d *Document) BlockUses(name string) int { return d.blockUses[name] }

// SetBlock puts b under name, or removes the block when b is nil (the
// fourth mutation, beside SetEntity, SetLayer and SetCurrent).
func (d *Document) SetBlock(name string, b *Block) {
	if old := d.blocks[name]; old != nil {
		d.sum.Sub(old.digest)
		for _, e := range old.Entities {
			d.useBlock(e.Geom, -1)
		}
		delete(d.blockByHandle, old.Handle)
		delete(d.blocks, name)
	}
	if b != nil {
		b.measure()
		d.blocks[name] = b
		d.blockByHandle[b.Handle] = b
		d.sum.Add(b.digest)
		for _, e := range b.Entities {
			d.useBlock(e.Geom, 1)
		}
	}
}

// AddBlock gives b the next handle and puts it in the drawing, bypassing
// the rules of a write: for loaders that build a new drawing.
func (d *Document) AddBlock(b *Block) *Block {
	b.Handle = d.NextHandle
	d.NextHandle++
	d.SetBlock(b.Name, b.seal())
	return b
}

// useBlock counts an insert's use of its block.
func (d *Document) useBlock(g Geometry, delta int) {
	if in, ok := g.(Insert); ok {
		d.blockUses[in.Name] += delta
		if d.blockUses[in.Name] == 0 {
			delete(d.blockUses, in.Name)
		}
	}
}

// Resolve sets an insert's block from the document; false when the
// document has no block of its name.
func (d *Document) Resolve(g Geometry) (Geometry, bool) {
	in, ok := g.(Insert)
	if !ok {
		return g, true
	}
	in.Def = d.blocks[in.Name]
	return in, in.Def != nil
}

// AppendEncoded appends the stored form of what lives under handle h — an
// entity, a block, the linetype table or the settings — to dst, and reports false when nothing does.
func (d *Document) AppendEncoded(dst []byte, h uint64) ([]byte, bool) {
	if e := d.Entity(h); e != nil {
		if out, ok := e.appendSmall(dst); ok {
			return out, true
		}
		w := encoders.Get().(*encoder) // a local one would escape
		scratch := w.b
		w.b = dst
		e.encodeTo(w)
		dst, w.b = w.b, scratch
		putEncoder(w)
		return dst, true
	}
	if b := d.blockByHandle[h]; b != nil {
		return append(dst, b.Encode()...), true
	}
	if t := d.ltypes; t != nil && t.Handle == h {
		return append(dst, t.Encode()...), true
	}
	if t := d.layouts; t != nil && t.Handle == h {
		return append(dst, t.Encode()...), true
	}
	if s := d.settings; s != nil && s.Handle == h {
		return append(dst, s.Encode()...), true
	}
	if t := d.constraints; t != nil && t.Handle == h {
		return append(dst, t.Encode()...), true
	}
	return dst, false
}

// EachStored calls fn with the handle and stored form of every entity and
// block, and of the linetype table and the settings, which go first, then
// blocks.
func (d *Document) EachStored(fn func(h uint64, data []byte)) {
	if t := d.ltypes; t != nil {
		fn(t.Handle, t.Encode())
	}
	if t := d.layouts; t != nil {
		fn(t.Handle, t.Encode())
	}
	if s := d.settings; s != nil {
		fn(s.Handle, s.Encode())
	}
	if t := d.constraints; t != nil {
		fn(t.Handle, t.Encode())
	}
	for _, b := range d.Blocks() {
		fn(b.Handle, b.Encode())
	}
	d.Each(0, func(e *Entity) bool {
		fn(e.Handle, e.Encode())
		return true
	})
}

// Restore puts stored records (entities, blocks, the linetype table and
// the settings, in any order) into a document being loaded: the table, the
// settings and blocks first, blocks in handle order (a block's inserts name blocks
// defined before it), then entities.
func (d *Document) Restore(records map[uint64][]byte) error {
	hs := make([]uint64, 0, len(records))
	for h := range records {
		hs = append(hs, h)
	}
	sort.Slice(hs, func(i, j int) bool { return hs[i] < hs[j] })
	for _, h := range hs {
		data := records[h]
		if restore := tableRestorers[tagOf(data)]; restore != nil {
			if err := restore(d, h, data); err != nil {
				return err
			}
			continue
		}
		if len(data) == 0 || data[0] != tagBlock {
			continue
		}
		b, err := decodeBlock(h, data)
		if err != nil {
			return err
		}
		for i, e := range b.Entities {
			g, ok := d.Resolve(e.Geom)
			if !ok {
				return fmt.Errorf("block %s: insert of unknown block %q", FormatHandle(h), e.Geom.(Insert).Name)
			}
			c := *e
			c.Geom = g
			b.Entities[i] = &c
		}
		d.SetBlock(b.Name, b)
	}
	for _, h := range hs {
		data := records[h]
		if tag := tagOf(data); tag == tagBlock || tableRestorers[tag] != nil {
			continue
		}
		e, err := DecodeEntity(h, data)
		if err != nil {
			return err
		}
		g, ok := d.Resolve(e.Geom)
		if !ok {
			return fmt.Errorf("entity %s: insert of unknown block %q", FormatHandle(h), e.Geom.(Insert).Name)
		}
		e.Geom = g
		d.SetEntity(h, e)
	}
	return nil
}

// ---- blocks in the undo log ----

// DefineBlock adds a block under a new handle; a name in use fails.
func (t *Tx) DefineBlock(b *Block) error {
	if t.d.blocks[b.Name] != nil {
		return ruleFailed("the document already has a block %q", b.Name)
	}
	for _, e := range b.Entities {
		if !e.Geom.Finite() {
			return ruleFailed("the block's %s's coordinates overflow", e.Geom.Kind().WireName())
		}
	}
	b.Handle = t.d.NextHandle
	t.d.NextHandle++
	b.seal()
	t.log = append(t.log, Change{Kind: ChangeBlock, Handle: b.Handle, undo: &undoOther{name: b.Name}})
	t.d.SetBlock(b.Name, b)
	return nil
}

// RemoveBlock deletes a block; one that an insert uses is refused.
func (t *Tx) RemoveBlock(name string) error {
	b := t.d.blocks[name]
	if b == nil {
		return ruleFailed("the document has no block %q", name)
	}
	if n := t.d.blockUses[name]; n > 0 {
		return ruleRefused("block %q is used by %d insert(s)", name, n)
	}
	t.log = append(t.log, Change{Kind: ChangeBlock, Handle: b.Handle, undo: &undoOther{name: name, block: b}})
	t.d.SetBlock(name, nil)
	return nil
}

// tagOf is the tag a stored record starts with (0 for none).
func tagOf(data []byte) byte {
	if len(data) == 0 {
		return 0
	}
	return data[0]
}

// tableRestorers put each kind of table record (see table) into a
// document being loaded, by tag.
var tableRestorers = map[byte]func(d *Document, h uint64, data []byte) error{
	tagLinetypes:   restoreWith(decodeLinetypes, (*Document).SetLinetypes),
	tagLayouts:     restoreWith(decodeLayouts, (*Document).SetLayouts),
	tagHeader:      restoreWith(decodeSettings, (*Document).SetSettings),
	tagConstraints: restoreWith(decodeConstraints, (*Document).SetConstraints),
}

// restoreWith is a table restorer: decode, then set.
func restoreWith[T any](decode func(uint64, []byte) (T, error), set func(*Document, T)) func(*Document, uint64, []byte) error {
	return func(d *Document, h uint64, data []byte) error {
		t, err := decode(h, data)
		if err == nil {
			set(d, t)
		}
		return err
	}
}
