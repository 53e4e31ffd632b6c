package dxf

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Build puts the file's layers, linetypes and entities into the new
// document d.
func (f *File) Build(d *drawing.Document) error {
	// Layers by folded name: DXF layer names are case-insensitive.
	folded := map[string]*drawing.Layer{}
	for _, l := range d.SortedLayers() {
		folded[foldName(l.Name)] = l
	}
	zero := false // the file's entry for layer 0 was seen
	for _, fl := range f.layers {
		fl.name = f.holdable(fl.name, fl.line)
		if lt := f.fileLinetype(fl.otherLinetype, fl.line, "layers"); lt != "" {
			fl.linetype = lt
		}
		key := foldName(fl.name)
		old := folded[key]
		if old != nil && (old.Name != "0" || zero) {
			continue // a second entry for the same name
		}
		l := &drawing.Layer{Name: fl.name, Color: fl.color, Linetype: fl.linetype, Lineweight: fl.lineweight, On: fl.on, Frozen: fl.frozen, Locked: fl.locked}
		zero = zero || old != nil
		d.SetLayer(l.Name, l) // layer 0 keeps its place
		folded[key] = l
	}
	byName := map[string]*drawing.Layer{} // the layer of each name entities use
	layerOf := func(fe dxfEntity) (string, error) {
		l := byName[fe.layer]
		if l == nil {
			name := f.holdable(fe.layer, fe.line)
			key := foldName(name)
			if l = folded[key]; l == nil {
				l = &drawing.Layer{Name: name, Color: 7, Linetype: "Continuous", Lineweight: -3, On: true}
				d.SetLayer(l.Name, l)
				folded[key] = l
			}
			byName[fe.layer] = l
		}
		return l.Name, nil
	}
	// Blocks first, each after the blocks its inserts name (DXF block
	// names are case-insensitive); an insert of a block the file does not
	// define is not imported, and a block that inserts itself, directly
	// or through others, refuses the file: its drawing would never end.
	byBlock := map[string]*dxfBlock{}
	for i := range f.blocks {
		if k := foldName(f.blocks[i].name); byBlock[k] == nil {
			byBlock[k] = &f.blocks[i]
		}
	}
	visiting := map[string]bool{}
	var path []string // the blocks being defined, outermost first
	var define func(name string) (*drawing.Block, error)
	insert := func(in drawing.Insert) (drawing.Geometry, bool, error) {
		b, err := define(in.Name)
		if err != nil || b == nil {
			return nil, false, err
		}
		in.Name, in.Def = b.Name, b
		return in, true, nil
	}
	// drawn is what the program that wrote a dimension (or a table) drew,
	// from the block it names (its inserts, arrowheads mostly, expanded),
	// or nil when the file lacks the block or it draws too much.
	drawn := func(fe dxfEntity) (*drawing.Picture, error) {
		if fe.ref == nil || fe.ref.block == "" {
			return nil, nil
		}
		at := fe.ref.at
		fb := byBlock[foldName(fe.ref.block)]
		if fb == nil {
			return nil, nil
		}
		var ents []*drawing.Entity
		for _, be := range fb.entities {
			g := be.geom
			if in, ok := g.(drawing.Insert); ok {
				placed, ok, err := insert(in)
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
				g = placed
			}
			if !at.Same(geom.Vec{}) {
				g = g.Transformed(geom.Translate(at))
			}
			ents = append(ents, &drawing.Entity{Layer: be.layer, Geom: g})
		}
		pic, ok := drawing.PictureOf(ents, dimensionPictureLimit)
		if !ok {
			return nil, nil
		}
		return &pic, nil
	}
	resolve := func(fe dxfEntity) (drawing.Geometry, bool, error) {
		switch g := fe.geom.(type) {
		case drawing.Insert:
			return insert(g)
		case drawing.Dimension:
			pic, err := drawn(fe)
			g.Drawn = pic
			return g, err == nil, err
		case drawing.Foreign:
			pic, err := drawn(fe)
			if pic != nil { // else the texts of its proxy graphics, if any
				g.Drawn = pic
			}
			return g, err == nil, err
		case drawing.Table:
			pic, err := drawn(fe)
			g.Drawn = pic
			return g, err == nil, err
		}
		return fe.geom, true, nil
	}
	define = func(name string) (*drawing.Block, error) {
		k := foldName(name)
		fb := byBlock[k]
		if fb == nil {
			return nil, nil
		}
		if visiting[k] {
			return nil, blockCycle(path, fb)
		}
		if b := d.Block(fb.name); b != nil {
			return b, nil
		}
		visiting[k] = true
		path = append(path, fb.name)
		defer func() { delete(visiting, k); path = path[:len(path)-1] }()
		var ents []*drawing.Entity
		for _, fe := range fb.entities {
			g, ok, err := resolve(fe)
			if err != nil {
				return nil, err
			}
			if !ok {
				f.rep.drop(fe.kind, missingBlock+" (in block "+clip(fb.name)+")", false)
				continue
			}
			layer, err := layerOf(fe)
			if err != nil {
				return nil, err
			}
			e := &drawing.Entity{Layer: layer, Color: fe.color, Linetype: fe.linetype, Geom: g}
			e.SetLtScale(fe.ltscale)
			ents = append(ents, e)
		}
		return d.AddBlock(drawing.NewBlock(fb.name, fb.base, ents)), nil
	}
	named := f.namedBlocks()
	for _, fb := range f.blocks {
		if fb.dimension && !named[foldName(fb.name)] {
			continue
		}
		if _, err := define(fb.name); err != nil {
			return err
		}
	}
	f.redrawOrder()
	layouts, byRecord := f.layoutTable()
	byFile := map[uint64]uint64{} // the entities' handles, by the file's
	for _, fe := range f.entities {
		if n, ok := byRecord[fe.owner]; ok && fe.layout != "" {
			fe.layout = n // the layout whose block holds it, as ezdxf reads it
		}
		g, ok, err := resolve(fe)
		if err != nil {
			return err
		}
		if !ok {
			f.rep.drop(fe.kind, missingBlock, true)
			continue
		}
		layer, err := layerOf(fe)
		if err != nil {
			return err
		}
		e := &drawing.Entity{Layer: layer, Color: fe.color, Linetype: fe.linetype, Layout: fe.layout, Geom: g}
		e.SetLtScale(fe.ltscale)
		d.Add(e)
		if fe.handle != 0 && f.constraints != nil {
			byFile[fe.handle] = e.Handle
		}
		if fe.preserved {
			f.rep.preserve(fe.kind, fe.why, fe.line)
		} else {
			f.rep.imported(fe.kind)
		}
	}
	// The linetype table takes its handle after the entities', so that
	// they are numbered as they were before files' linetypes were kept.
	// A linetype the file defines as the standard one of its name is
	// not the document's own: a drawing the engine wrote comes back
	// without a table (and with its content hash) unless it had one.
	var own []drawing.Linetype
	for _, l := range f.ltypes {
		if std, ok := d.Linetype(l.Name); !ok || !slices.Equal(std.Pattern, l.Pattern) {
			own = append(own, l)
		}
	}
	if len(own) > 0 || (f.ltscale != 0 && f.ltscale != 1) {
		d.SetLinetypes(drawing.NewLinetypes(f.ltscale, own))
	}
	if s, ok := f.settings.of(d.Units); ok {
		d.SetSettings(&s)
	}
	d.SetLayouts(f.untabled(layouts, d))
	d.SetCurrent(f.CurrentLayer(d))
	f.buildConstraints(d, byFile)
	return nil
}

// dimensionPictureLimit bounds what a dimension's block may draw for the
// dimension to be drawn as it: more pieces than this (a block no
// dimension needs) and the engine draws the dimension from its style.
const dimensionPictureLimit = 10_000

// blockRefTypes are the preserved types whose code 2 names a block.
var blockRefTypes = map[string]bool{"DIMENSION": true, "ARC_DIMENSION": true, "LARGE_RADIAL_DIMENSION": true, "INSERT": true, "ACAD_TABLE": true}

// namedBlocks are the blocks preserved entities name, by folded name: a
// dimension's block (*D…) is kept only when a preserved dimension, which
// the engine does not draw itself, names it.
func (f *File) namedBlocks() map[string]bool {
	named := map[string]bool{}
	add := func(fe dxfEntity) {
		if g, ok := fe.geom.(drawing.Foreign); ok && blockRefTypes[g.Type] {
			for _, p := range g.Pairs {
				if p.Code == 2 {
					named[foldName(strings.TrimSpace(p.Value))] = true
					break
				}
			}
		}
	}
	for _, fe := range f.entities {
		add(fe)
	}
	for _, b := range f.blocks {
		for _, fe := range b.entities {
			add(fe)
		}
	}
	return named
}

// blockCycle is the error of a block that inserts itself: path are the
// blocks being defined, outermost first, and b the one inserted again.
func blockCycle(path []string, b *dxfBlock) *Error {
	i := len(path) - 1
	for i > 0 && foldName(path[i]) != foldName(b.name) {
		i--
	}
	cycle := append(slices.Clone(path[i:]), b.name)
	for j, n := range cycle {
		cycle[j] = strconv.Quote(clip(n))
	}
	if len(cycle) == 2 {
		return dxfErrorf(b.line, "block %s inserts itself: its drawing would never end", cycle[0])
	}
	return dxfErrorf(b.line, "blocks insert each other in a cycle (%s): their drawing would never end", strings.Join(cycle, " → "))
}

// holdable is a layer name the engine can hold for the file's name (read
// at line): the name itself, or, with a warning the first time, the name
// with each character a layer name cannot have (<>/\":;?*|=` and control
// characters, as in xref-dependent "X|Y" names) made "_", cut to 255
// bytes, "0" for an empty one.
func (f *File) holdable(name string, line int) string {
	if len(name) <= 255 && drawing.CheckLayerName(name) == nil {
		return name
	}
	if f.renamed == nil {
		f.renamed = map[string]string{}
	}
	if h, ok := f.renamed[name]; ok {
		return h
	}
	h := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || strings.ContainsRune("<>/\\\":;?*|=`", r) {
			return '_'
		}
		return r
	}, strings.TrimSpace(name))
	for len(h) > 255 {
		_, size := utf8.DecodeLastRuneInString(h)
		h = h[:len(h)-size]
	}
	if h == "" {
		h = "0"
	}
	f.renamed[name] = h
	f.rep.warn(line, "layer %q renamed %q: a layer name cannot have those characters", clip(name), clip(h))
	return h
}

// foldName is a key under which names equal ignoring case (as
// strings.EqualFold has it) are equal: each character replaced by the
// smallest of its case-folding orbit.
func foldName(s string) string {
	var b strings.Builder
	for _, r := range s {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		b.WriteRune(m)
	}
	return b.String()
}

// CurrentLayer is $CLAYER when the document has it and it is not frozen,
// else layer 0, else the first layer that is not frozen. When every layer
// is frozen, layer 0 is thawed: the current layer is never frozen.
func (f *File) CurrentLayer(d *drawing.Document) string {
	if l := d.LayerFold(f.clayer); l != nil && !l.Frozen {
		return l.Name
	}
	for _, l := range d.SortedLayers() {
		if !l.Frozen {
			return l.Name
		}
	}
	l := *d.Layer("0")
	l.Frozen = false
	d.SetLayer("0", &l)
	return "0"
}

// missingBlock is why an insert of a block the file does not define (or
// whose name the engine cannot hold) is dropped.
const missingBlock = "its block is not in the file, or its name cannot be held"

// Counts are how many entities of the drawing (model and paper space)
// Build kept, native or preserved, and how many it dropped (see Report).
func (f *File) Counts() (kept, dropped int64) {
	for _, c := range f.rep.counts {
		kept += c.Imported + c.Preserved
		dropped += c.Dropped
	}
	return kept, dropped
}

// fileLinetype is how the file's LTYPE table spells name, a linetype
// not of the standard set that its entities or layers (what) name: they
// keep it, drawn and written back with the file's pattern of it. A name
// the table does not define is "", with a warning (once for each name)
// that they follow their layer (entities) or are continuous (layers).
// "" for "".
func (f *File) fileLinetype(name string, line int, what string) string {
	if name == "" {
		return ""
	}
	if i := slices.IndexFunc(f.ltypes, func(l drawing.Linetype) bool { return foldName(l.Name) == foldName(name) }); i >= 0 {
		return f.ltypes[i].Name
	}
	if f.unknownLinetypes[foldName(name)] {
		return ""
	}
	if f.unknownLinetypes == nil {
		f.unknownLinetypes = map[string]bool{}
	}
	f.unknownLinetypes[foldName(name)] = true
	how := "ByLayer"
	if what == "layers" {
		how = "Continuous"
	}
	f.rep.warn(line, "%s on linetype %q, which the file does not define, read as %s", what, clip(name), how)
	return ""
}
