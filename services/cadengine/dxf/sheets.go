package dxf

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Paper-space layouts in a 2018 file, as AutoCAD and ezdxf keep them:
// each layout is a LAYOUT object in the ACAD_LAYOUT dictionary (its
// paper 44 × 45 mm, its tab order 71) tied to a BLOCK_RECORD; the first
// is *Paper_Space, whose entities are in the ENTITIES section (67 = 1),
// the others *Paper_Space0, *Paper_Space1 …, whose entities are in
// their block. A layout's first VIEWPORT (id 1) is its view of the
// paper itself; the windows on model space follow. The writer makes the
// view of the paper of a layout with windows that has none (one the
// engine made): so the document read back has it, as a file from
// AutoCAD has.

// sheet is a layout as the writer lays it out.
type sheet struct {
	layout drawing.Layout
	block  string // *Paper_Space, *Paper_Space0, …
	record uint64 // its BLOCK_RECORD
	object uint64 // its LAYOUT
	ents   []*drawing.Entity
	paper  *drawing.Entity // its view of the paper (id 1), made when it had none
}

// defaultSheet is the paper of a layout whose entities name it but that
// the document's table lacks, and of the one layout a file without any
// has: ISO A3 landscape.
var defaultSheet = drawing.Layout{Paper: "A3", Width: 420, Height: 297}

// planSheets lays out the document's layouts: the table's, in tab order,
// then any its entities name that the table lacks; "Layout1" when there
// are none (a file needs one). It takes the handles of the records it
// adds.
func (w *dxfWriter) planSheets(d *drawing.Document, ents []*drawing.Entity) []*sheet {
	var out []*sheet
	at := map[string]*sheet{}
	add := func(l drawing.Layout) {
		s := &sheet{layout: l}
		if len(out) == 0 {
			s.block, s.record, s.object = "*Paper_Space", hPaperBR, hPaperLayout
		} else {
			s.block, s.record, s.object = "*Paper_Space"+strconv.Itoa(len(out)-1), w.handle(), w.handle()
		}
		out = append(out, s)
		at[l.Name] = s
	}
	if t := d.Layouts(); t != nil {
		for _, l := range t.List {
			add(l)
		}
	}
	for _, e := range ents {
		if e.Layout == "" {
			continue
		}
		if at[e.Layout] == nil {
			l := defaultSheet
			l.Name = e.Layout
			add(l)
		}
		at[e.Layout].ents = append(at[e.Layout].ents, e)
	}
	if len(out) == 0 {
		l := defaultSheet
		l.Name = "Layout1"
		add(l)
	}
	for _, s := range out {
		// The view of the paper first, as AutoCAD has it; made for a
		// layout with windows that has none (a layout without windows
		// needs none, and keeps its entities as they were).
		i := slices.IndexFunc(s.ents, func(e *drawing.Entity) bool {
			v, ok := e.Geom.(drawing.Viewport)
			return ok && v.Paper()
		})
		if i > 0 {
			s.ents = append(append([]*drawing.Entity{s.ents[i]}, s.ents[:i]...), s.ents[i+1:]...)
		}
		windows := slices.ContainsFunc(s.ents, func(e *drawing.Entity) bool {
			v, ok := e.Geom.(drawing.Viewport)
			return ok && !v.Paper()
		})
		if i < 0 && windows {
			c := geom.Pt(s.layout.Width/2, s.layout.Height/2)
			s.paper = &drawing.Entity{Handle: w.handle(), Layer: "0", Color: 256, Linetype: "ByLayer", Layout: s.layout.Name,
				Geom: drawing.Viewport{C: c, W: s.layout.Width, H: s.layout.Height, View: c, ViewHeight: s.layout.Height, ID: 1, Status: 1}}
		}
	}
	return out
}

// writeSheet writes a layout's entities, its view of the paper first,
// owned by its block record.
func (w *dxfWriter) writeSheet(s *sheet) {
	paper := w.paper
	w.paper = s.record
	if s.paper != nil {
		w.Entity(s.paper)
	}
	for _, e := range s.ents {
		w.Entity(e)
	}
	w.paper = paper
}

// sheetBlocks are the blocks of the layouts after the first, holding
// their entities.
func sheetBlocks(sheets []*sheet) []outBlock {
	var out []outBlock
	for _, s := range sheets[1:] {
		out = append(out, outBlock{name: s.block, record: s.record, body: func(w *dxfWriter) { w.writeSheet(s) }})
	}
	return out
}

// isoMedia is the canonical media name AutoCAD's "none_device" gives a
// paper (ISO sizes by their name, others by their size).
func isoMedia(l drawing.Layout) string {
	w, h := math.Max(l.Width, l.Height), math.Min(l.Width, l.Height)
	size := strconv.FormatFloat(w, 'f', 2, 64) + "_x_" + strconv.FormatFloat(h, 'f', 2, 64) + "_MM"
	switch {
	case strings.HasPrefix(l.Paper, "A"):
		return "ISO_full_bleed_" + l.Paper + "_(" + size + ")"
	case strings.HasPrefix(l.Paper, "ANSI_"):
		return "ANSI_full_bleed_" + strings.TrimPrefix(l.Paper, "ANSI_") + "_(" + size + ")"
	}
	return "USER_(" + size + ")"
}

// layoutObject writes a LAYOUT object: its paper (in millimetres, no
// margins, not rotated: width × height as the layout lies), its limits
// the paper, its tab order and its block record.
func (w *dxfWriter) layoutObject(h uint64, l drawing.Layout, order int, br uint64) {
	width, height := l.Width, l.Height
	if order == 0 { // model space
		width, height = defaultSheet.Width, defaultSheet.Height
	}
	w.pair(0, "LAYOUT")
	w.pairHandle(5, h)
	w.pairHandle(330, hLayoutDict)
	w.pair(100, "AcDbPlotSettings")
	w.pair(1, "")
	w.pair(2, "none_device")
	w.pair(4, isoMedia(drawing.Layout{Paper: l.Paper, Width: width, Height: height}))
	w.pair(6, "")
	for _, c := range []struct {
		code int
		v    float64
	}{{40, 0}, {41, 0}, {42, 0}, {43, 0}, {44, width}, {45, height}, {46, 0}, {47, 0}, {48, 0}, {49, 0}, {140, 0}, {141, 0}, {142, 1}, {143, 1}} {
		w.float(c.code, c.v)
	}
	w.int(70, 688)
	w.int(72, 1) // millimetres
	w.int(73, 0) // not rotated
	w.int(74, 5) // the layout
	w.pair(7, "")
	w.int(75, 16) // 1:1
	w.int(76, 0)
	w.int(77, 2)
	w.int(78, 300)
	w.float(147, 1)
	w.float(148, 0)
	w.float(149, 0)
	w.pair(100, "AcDbLayout")
	w.pair(1, l.Name)
	w.int(70, 1)
	w.int(71, order)
	w.float(10, 0)
	w.float(20, 0)
	w.float(11, width)
	w.float(21, height)
	w.Point(12, geom.Vec{})
	w.Point(14, geom.Pt(1e20, 1e20))
	w.Point(15, geom.Pt(-1e20, -1e20))
	w.float(146, 0)
	w.Point(13, geom.Vec{})
	w.Point(16, geom.Pt(1, 0))
	w.Point(17, geom.Pt(0, 1))
	w.int(76, 1)
	w.pairHandle(330, br)
}

// dxfLayout is a LAYOUT object as read: its name (AcDbLayout's 1), tab
// order (71), paper (AcDbPlotSettings' 44 × 45 mm, turned by 73) and
// block record (AcDbLayout's 330).
type dxfLayout struct {
	name          string
	order         int
	width, height float64
	turn          int
	record        uint64
}

// layoutObjectOf reads a LAYOUT object's pairs.
func layoutObjectOf(r dxfRecord) dxfLayout {
	var l dxfLayout
	sub := ""
	for _, p := range r.pairs {
		if p.code == 100 {
			sub = strings.TrimSpace(p.value)
			continue
		}
		v, _ := strconv.ParseFloat(strings.TrimSpace(p.value), 64)
		switch sub {
		case "AcDbPlotSettings":
			switch p.code {
			case 44:
				l.width = v
			case 45:
				l.height = v
			case 73:
				l.turn = int(v)
			}
		case "AcDbLayout":
			switch p.code {
			case 1:
				l.name = strings.TrimSpace(p.value)
			case 71:
				l.order = int(v)
			case 330:
				l.record = hexHandle(p.value)
			}
		}
	}
	return l
}

// layoutTable is the document's layout table from the file's LAYOUT
// objects but model space's, in tab order, and the name of the layout of
// each block record. A layout's paper is its plot settings' (44 × 45,
// always millimetres, a quarter turn (73) swapping the sides), else A3
// (its limits, AutoCAD's 12 × 9 or 420 × 297 in whatever units the
// drawing has, say nothing of a paper); a standard size is named.
func (f *File) layoutTable() ([]drawing.Layout, map[uint64]string) {
	objs := slices.Clone(f.layouts)
	slices.SortStableFunc(objs, func(a, b dxfLayout) int { return a.order - b.order })
	var out []drawing.Layout
	byRecord := map[uint64]string{}
	seen := map[string]bool{}
	for _, o := range objs {
		key := strings.ToUpper(o.name)
		if o.name == "" || key == "MODEL" || seen[key] || len(o.name) > 255 {
			continue
		}
		seen[key] = true
		w, h := o.width, o.height // millimetres, whatever 72 says it shows them in
		if o.turn == 1 || o.turn == 3 {
			w, h = h, w
		}
		if !(w > 0 && h > 0) || math.IsInf(w+h, 0) {
			w, h = defaultSheet.Width, defaultSheet.Height
		}
		out = append(out, drawing.Layout{Name: o.name, Paper: drawing.PaperOfSize(w, h), Width: w, Height: h})
		if o.record != 0 {
			byRecord[o.record] = o.name
		}
	}
	return out, byRecord
}

// untabled is the layout table with the layouts the document's entities
// name that it lacks (an R12 file's one paper space, a layout without its
// LAYOUT object) added on A3, each with a warning; nil when there are
// none at all. A file's only layout, when it is an empty "Layout1", is
// the one every 2018 file must have (the engine writes it for a document
// without layouts, as AutoCAD and ezdxf make it for a new drawing), not a
// sheet: the document has none.
func (f *File) untabled(list []drawing.Layout, d *drawing.Document) *drawing.Layouts {
	t := &drawing.Layouts{List: list}
	used := false
	for _, e := range d.Entities() {
		if e.Layout == "" {
			continue
		}
		used = true
		if t.Index(e.Layout) < 0 {
			l := defaultSheet
			l.Name = e.Layout
			t.List = append(t.List, l)
			f.rep.warn(0, "layout %q has no paper in the file: taken as A3 landscape", clip(e.Layout))
		}
	}
	if len(t.List) == 0 || !used && len(t.List) == 1 && strings.EqualFold(t.List[0].Name, "Layout1") {
		return nil
	}
	return t
}
