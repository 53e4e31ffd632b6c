package dxf

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
)

// What the engine takes from the OBJECTS section: the file name of each
// image definition (IMAGEDEF), whether wipeouts show their frames
// (WIPEOUTVARIABLES), the order the model space is drawn in
// (SORTENTSTABLE), and the layouts (LAYOUT, see layoutTable). The section comes after the entities, so what it says
// is given to them once the file is read (resolveObjects, redrawOrder).

// objectKinds are the objects whose codes the reader keeps.
var objectKinds = map[string]bool{"IMAGEDEF": true, "WIPEOUTVARIABLES": true, "SORTENTSTABLE": true, "LAYOUT": true}

// readObjects reads the OBJECTS section, keeping the codes of the
// objects in objectKinds and passing over the rest.
func (f *File) readObjects(sc *dxfScanner) error {
	var obj dxfRecord
	for {
		p, err := sectionPair(sc, "OBJECTS")
		if err != nil {
			return err
		}
		if p.code != 0 {
			if objectKinds[obj.kind] {
				obj.pairs = append(obj.pairs, p)
			}
			continue
		}
		f.object(obj)
		if p.word() == "ENDSEC" {
			return nil
		}
		obj = dxfRecord{kind: p.word(), line: p.line}
	}
}

// object takes what the engine needs from one object.
func (f *File) object(r dxfRecord) {
	switch r.kind {
	case "IMAGEDEF":
		var handle, file string
		for _, p := range r.pairs {
			switch p.code {
			case 5:
				handle = objectHandle(p.value)
			case 1:
				file = p.value
			}
		}
		if handle != "" {
			if f.imageFiles == nil {
				f.imageFiles = map[string]string{}
			}
			f.imageFiles[handle] = file
		}
	case "LAYOUT":
		f.layouts = append(f.layouts, layoutObjectOf(r))
	case "WIPEOUTVARIABLES":
		f.wipeoutFrame = firstInt(r.pairs, 70, 0) != 0
	case "SORTENTSTABLE":
		// The block record it orders (the 330 after its subclass
		// marker), then pairs of an entity (331) and the handle it is
		// drawn as (5).
		var record, entity uint64
		marked := false
		for _, p := range r.pairs {
			switch {
			case p.code == 100:
				marked = true
			case p.code == 330 && marked && record == 0:
				record = hexHandle(p.value)
			case p.code == 331:
				entity = hexHandle(p.value)
			case p.code == 5 && marked && entity != 0 && record != 0:
				if f.sortents == nil {
					f.sortents = map[uint64]map[uint64]uint64{}
				}
				if f.sortents[record] == nil {
					f.sortents[record] = map[uint64]uint64{}
				}
				f.sortents[record][entity] = hexHandle(p.value)
				entity = 0
			}
		}
	}
}

// hexHandle is a handle's number, 0 for none or one that is not hex.
func hexHandle(s string) uint64 {
	h, err := strconv.ParseUint(strings.TrimSpace(s), 16, 64)
	if err != nil {
		return 0
	}
	return h
}

// entityHandles are a record's handle (5) and owner (330, outside the
// reactor and extension dictionary groups), before its first subclass
// marker, where DXF puts them; 0 for none.
func (r dxfRecord) entityHandles() (handle, owner uint64) {
	group := false // in a 102 {…} group
	for _, p := range r.pairs {
		switch p.code {
		case 100:
			return handle, owner
		case 102:
			group = strings.HasPrefix(p.word(), "{")
		case 5:
			if handle == 0 {
				handle = hexHandle(p.value)
			}
		case 330:
			if !group && owner == 0 {
				owner = hexHandle(p.value)
			}
		}
	}
	return handle, owner
}

// redrawOrder puts the model space's entities in the order the file's
// SORTENTSTABLE of it draws them, as ezdxf's drawing add-on does
// (ezdxf.reorder.ascending): by the handle each is drawn as, its own
// when the table does not name it (0, or none: last), equal ones in file
// order. Handles are given in that order when the drawing is built, so
// that what a wipeout hides is what the file's program hid; a file
// without such a table keeps its order.
func (f *File) redrawOrder() {
	var model []int // indexes of the model space's entities
	owner := uint64(0)
	for i, fe := range f.entities {
		if fe.layout == "" {
			model = append(model, i)
			if owner == 0 {
				owner = fe.owner
			}
		}
	}
	table := f.sortents[owner]
	if owner == 0 || len(table) == 0 {
		return
	}
	key := func(fe dxfEntity) uint64 {
		h := fe.handle
		if s, ok := table[h]; ok {
			h = s
		}
		if h == 0 {
			return math.MaxUint64
		}
		return h
	}
	sorted := make([]dxfEntity, len(model))
	for j, i := range model {
		sorted[j] = f.entities[i]
	}
	slices.SortStableFunc(sorted, func(a, b dxfEntity) int { return cmp.Compare(key(a), key(b)) })
	for j, i := range model {
		f.entities[i] = sorted[j]
	}
}

// resolveObjects gives the images their files and the wipeouts the
// file's frame setting, in the drawing and in blocks. An image whose
// definition the file lacks (ezdxf's audit deletes such an image) is kept
// without a file name, with a warning.
func (f *File) resolveObjects() {
	resolve := func(ents []dxfEntity) {
		for i := range ents {
			switch g := ents[i].geom.(type) {
			case drawing.Image:
				def := ents[i].refs().imageDef
				file, ok := f.imageFiles[def]
				if !ok {
					f.rep.warn(ents[i].line, "an IMAGE whose definition (IMAGEDEF %q) the file lacks: kept without a file name", def)
				}
				g.File = file
				ents[i].geom = g
			case drawing.Wipeout:
				g.Frame = f.wipeoutFrame
				ents[i].geom = g
			}
		}
	}
	resolve(f.entities)
	for i := range f.blocks {
		resolve(f.blocks[i].entities)
	}
}
