package dxf

import (
	"math"
	"slices"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
)

// dxfLtype is one LTYPE table entry as read: name 2, description 3 and
// its elements' lengths 49; an element with a 74 other than 0 carries
// text or a shape (a complex linetype), which the engine does not draw.
type dxfLtype struct {
	name, desc string
	pattern    []float64
	complex    bool
	bad        bool // a length that does not read as a finite number
	line       int
}

// set applies one pair of an LTYPE entry. Nothing in it refuses the
// file: a length that does not read makes the linetype continuous (see
// addLinetype), an element type that does not read is passed over.
func (lt *dxfLtype) set(p dxfPair) {
	switch p.code {
	case 2:
		lt.name = decodeName(p.value)
	case 3:
		lt.desc = p.value
	case 49:
		v, err := p.float()
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			lt.bad = true
		}
		lt.pattern = append(lt.pattern, v)
	case 74:
		if n, err := p.int(); err == nil {
			lt.complex = lt.complex || n != 0
		}
	}
}

// addLinetype keeps an LTYPE entry in the file's linetypes: all but
// ByBlock, ByLayer and Continuous, which every file has; a complex
// linetype keeps its dashes, with a warning that its text or shapes are
// not drawn, and one with a length that is not a number draws
// continuous.
func (f *File) addLinetype(lt *dxfLtype) {
	switch strings.ToUpper(lt.name) {
	case "", "BYBLOCK", "BYLAYER", "CONTINUOUS":
		return
	}
	if lt.complex {
		f.rep.warn(lt.line, "linetype %q has text or shapes in its pattern: its dashes are drawn, its text and shapes are not", clip(lt.name))
	}
	if lt.bad {
		f.rep.warn(lt.line, "linetype %q has a length that is not a finite number: drawn continuous", clip(lt.name))
		lt.pattern = nil
	}
	f.ltypes = append(f.ltypes, drawing.Linetype{Name: lt.name, Description: lt.desc, Pattern: lt.pattern})
}

// linetypeDefs are the linetypes an export defines beside the three every
// file has: those layers and entities use, with the patterns the document
// draws them with, and every linetype the document defines itself (so
// that a file's own come back), sorted by name.
func linetypeDefs(d *drawing.Document, ents []*drawing.Entity) []drawing.Linetype {
	names := usedLinetypes(d, ents)
	if t := d.Linetypes(); t != nil {
		for _, l := range t.Defined {
			names = append(names, strings.ToUpper(l.Name))
		}
	}
	out := make([]drawing.Linetype, 0, len(names))
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		l, ok := d.Linetype(n)
		if !ok {
			l = drawing.Linetype{Description: "Solid line"}
		}
		l.Name = n
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b drawing.Linetype) int { return strings.Compare(a.Name, b.Name) })
	return out
}
