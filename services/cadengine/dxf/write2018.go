package dxf

import (
	"math"
	"slices"
	"sort"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Handles of the fixed objects of a 2018 file, below the drawing's first
// handle (0x100), as AutoCAD numbers them.
const (
	hLayerTable  = 0x1
	hLtypeTable  = 0x2
	hAppidTable  = 0x3
	hDimstyleTab = 0x4
	hStyleTable  = 0x5
	hUCSTable    = 0x6
	hViewTable   = 0x7
	hVportTable  = 0x8
	hBlockTable  = 0x9
	hRootDict    = 0xA
	hGroupDict   = 0xB
	hLayoutDict  = 0xD
	hModelBR     = 0x17
	hModelLayout = 0x1A
	hPaperBR     = 0x1B
	hPaperLayout = 0x1E
	hVport       = 0x23
	hStyle       = 0x29
	hAppidACAD   = 0x2A
)

// Write2018 writes an AutoCAD 2018 (AC1032) ASCII DXF: HEADER, CLASSES,
// TABLES (VPORT, LTYPE with the definitions of the linetypes in use,
// LAYER with lineweights, STYLE, VIEW, UCS, APPID, DIMSTYLE with the
// engine's styles, BLOCK_RECORD), BLOCKS, ENTITIES and the OBJECTS every
// reader expects (the root dictionary, groups, the two layouts). Polylines
// are LWPOLYLINE, ellipses true ELLIPSE, text UTF-8; dimensions, hatches,
// blocks, inserts and multi-line text are written as themselves. Entities
// keep their handles; the other records get handles above the document's
// counter, and $HANDSEED is past them all.
func Write2018(d *drawing.Document) string {
	ents := d.Entities()
	w := &dxfWriter{buf: make([]byte, 0, bufferSize(ents)), v2018: true, owner: hModelBR, paper: hPaperBR, next: d.NextHandle}
	layerHandles := map[string]uint64{}
	for _, l := range d.SortedLayers() {
		layerHandles[l.Name] = w.handle()
	}
	w.layerHandles = layerHandles
	ltypes := linetypeDefs(d, ents)
	ltypeHandles := map[string]uint64{}
	for _, lt := range ltypes {
		ltypeHandles[lt.Name] = w.handle()
	}
	styles := dimStyles(ents)
	styleHandles := map[string]uint64{}
	for _, s := range styles {
		styleHandles[s] = w.handle()
	}
	blocks := w.plan(d, ents)
	sheets := w.planSheets(d, ents)

	ext := w.header(d, ents, "AC1032")
	w.pair(9, "$INSUNITS")
	w.int(70, insUnitsOf(d.Units))
	w.pair(9, "$MEASUREMENT")
	if d.Units == enginev1.Units_UNITS_IN || d.Units == enginev1.Units_UNITS_FT {
		w.int(70, 0)
	} else {
		w.int(70, 1)
	}
	w.pair(9, "$LWDISPLAY")
	w.int(290, 1)
	// $HANDSEED is past every handle the writer takes; it goes in at the
	// end.
	w.pair(9, "$HANDSEED")
	seedAt := w.placeholder(5)
	w.end()
	w.section("CLASSES")
	w.classes(d, ents)
	w.end()

	w.section("TABLES")
	w.table2018("VPORT", hVportTable, 1)
	w.record("VPORT", hVport, hVportTable, "AcDbViewportTableRecord")
	w.pair(2, "*Active")
	w.int(70, 0)
	c := ext.Min.Mid(ext.Max)
	w.Point(12, c)
	w.float(40, math.Max(ext.Max.Y-ext.Min.Y, 1)*1.1)
	w.float(41, 1.5)
	w.pair(0, "ENDTAB")

	w.table2018("LTYPE", hLtypeTable, 3+len(ltypes))
	for i, lt := range []string{"ByBlock", "ByLayer", "Continuous"} {
		w.ltype(uint64(0x24+i), lt, "", nil)
	}
	for _, lt := range ltypes {
		w.ltype(ltypeHandles[lt.Name], lt.Name, lt.Description, lt.Pattern)
	}
	w.pair(0, "ENDTAB")

	layers := d.SortedLayers()
	w.table2018("LAYER", hLayerTable, len(layers))
	for _, l := range layers {
		w.record("LAYER", layerHandles[l.Name], hLayerTable, "AcDbLayerTableRecord")
		w.pair(2, l.Name)
		flags := 0
		if l.Frozen {
			flags |= 1
		}
		if l.Locked {
			flags |= 4
		}
		w.int(70, flags)
		color := int(l.Color)
		if !l.On {
			color = -color
		}
		w.int(62, color)
		w.pair(6, ltypeName(l.Linetype))
		w.int(370, int(l.Lineweight))
	}
	w.pair(0, "ENDTAB")

	textStyles := textStyleTable(d, ents)
	w.table2018("STYLE", hStyleTable, len(textStyles))
	w.textStyleHandles = map[string]uint64{}
	for i, s := range textStyles {
		h := uint64(hStyle)
		if i > 0 {
			h = w.handle()
		}
		w.textStyleHandles[foldName(s.Name)] = h
		w.record("STYLE", h, hStyleTable, "AcDbTextStyleTableRecord")
		w.textStyle(s)
	}
	w.pair(0, "ENDTAB")
	w.table2018("VIEW", hViewTable, 0)
	w.pair(0, "ENDTAB")
	w.table2018("UCS", hUCSTable, 0)
	w.pair(0, "ENDTAB")
	apps := foreignApps(d)
	w.table2018("APPID", hAppidTable, 1+len(apps))
	w.record("APPID", hAppidACAD, hAppidTable, "AcDbRegAppTableRecord")
	w.pair(2, "ACAD")
	w.int(70, 0)
	for _, app := range apps {
		w.record("APPID", w.handle(), hAppidTable, "AcDbRegAppTableRecord")
		w.pair(2, app)
		w.int(70, 0)
	}
	w.pair(0, "ENDTAB")

	w.table2018("DIMSTYLE", hDimstyleTab, len(styles))
	w.sub("AcDbDimStyleTable")
	for _, s := range styles {
		w.dimstyle(styleHandles[s], s)
	}
	w.pair(0, "ENDTAB")

	w.table2018("BLOCK_RECORD", hBlockTable, 1+len(sheets)+len(blocks))
	w.blockRecord(hModelBR, "*Model_Space", hModelLayout)
	for _, s := range sheets {
		w.blockRecord(s.record, s.block, s.object)
	}
	for _, b := range blocks {
		w.blockRecord(b.record, b.name, 0)
	}
	w.pair(0, "ENDTAB")
	w.end()

	w.blocks(blocks, append([]outBlock{{name: "*Model_Space", record: hModelBR}, {name: "*Paper_Space", record: hPaperBR}}, sheetBlocks(sheets)...)...)
	w.section("ENTITIES")
	w.owner = hModelBR
	for _, e := range ents {
		if e.Layout == "" {
			w.Entity(e)
		}
	}
	w.writeSheet(sheets[0])
	w.end()
	w.objects(d, sheets)
	w.pair(0, "EOF")
	return w.finish(seedAt, drawing.FormatHandle(w.next))
}

// usedLinetypes are the linetypes layers and entities use, besides the
// three every file has, by name.
func usedLinetypes(d *drawing.Document, ents []*drawing.Entity) []string {
	// The few spellings first, each upper-cased once (not once an entity).
	spelled := map[string]bool{}
	for _, l := range d.SortedLayers() {
		spelled[l.Linetype] = true
	}
	for _, e := range ents {
		spelled[e.Linetype] = true
	}
	for _, b := range d.Blocks() {
		for _, e := range b.Entities {
			spelled[e.Linetype] = true
		}
	}
	used := map[string]bool{}
	for lt := range spelled {
		if u := strings.ToUpper(lt); u != "BYLAYER" && u != "BYBLOCK" && u != "CONTINUOUS" {
			used[u] = true
		}
	}
	out := make([]string, 0, len(used))
	for lt := range used {
		out = append(out, lt)
	}
	sort.Strings(out)
	return out
}

// ltypeName spells a linetype as the LTYPE table has it.
func ltypeName(lt string) string {
	switch strings.ToUpper(lt) {
	case "BYLAYER":
		return "ByLayer"
	case "BYBLOCK":
		return "ByBlock"
	case "CONTINUOUS":
		return "Continuous"
	}
	return strings.ToUpper(lt)
}

// dimStyles are the dimension styles to write: Standard, the engine's and
// any other that a dimension names.
func dimStyles(ents []*drawing.Entity) []string {
	names := []string{"Standard"}
	seen := map[string]bool{"standard": true}
	add := func(n string) {
		if !seen[strings.ToLower(n)] {
			seen[strings.ToLower(n)] = true
			names = append(names, n)
		}
	}
	for _, s := range drawing.DimStyles {
		add(s.Name)
	}
	for _, e := range ents {
		switch g := e.Geom.(type) {
		case drawing.Dimension:
			add(dimStyleName(g.Style))
		case drawing.Leader:
			if !g.Multi { // a multileader's is a multileader style
				add(dimStyleName(g.Style))
			}
		case drawing.Tolerance:
			add(dimStyleName(g.Style))
		}
	}
	return names
}

func insUnitsOf(u enginev1.Units) int {
	switch u {
	case enginev1.Units_UNITS_IN:
		return 1
	case enginev1.Units_UNITS_FT:
		return 2
	case enginev1.Units_UNITS_CM:
		return 5
	case enginev1.Units_UNITS_M:
		return 6
	}
	return 4
}

func (w *dxfWriter) table2018(name string, h uint64, n int) {
	w.pair(0, "TABLE")
	w.pair(2, name)
	w.pairHandle(5, h)
	w.pair(330, "0")
	w.pair(100, "AcDbSymbolTable")
	w.int(70, n)
}

func (w *dxfWriter) record(kind string, h, owner uint64, class string) {
	w.pair(0, kind)
	if kind == "DIMSTYLE" {
		w.pairHandle(105, h)
	} else {
		w.pairHandle(5, h)
	}
	w.pairHandle(330, owner)
	w.pair(100, "AcDbSymbolTableRecord")
	w.pair(100, class)
}

func (w *dxfWriter) ltype(h uint64, name, desc string, pattern []float64) {
	w.record("LTYPE", h, hLtypeTable, "AcDbLinetypeTableRecord")
	w.pair(2, name)
	w.int(70, 0)
	w.pair(3, desc)
	w.int(72, 65)
	w.int(73, len(pattern))
	w.float(40, geom.PatternPeriod(pattern))
	for _, p := range pattern {
		w.float(49, p)
		w.int(74, 0)
	}
}

// dimstyle writes a DIMSTYLE record with the sizes and zero suppression
// of the engine's style of that name (ISO-25's for Standard and for names
// it does not know: see drawing.BuiltinDimStyle); a dimension's own style
// is written as its overrides (see dimOverrides).
func (w *dxfWriter) dimstyle(h uint64, name string) {
	st := drawing.BuiltinDimStyle(name)
	if w.v2018 {
		w.record("DIMSTYLE", h, hDimstyleTab, "AcDbDimStyleTableRecord")
	} else {
		w.pair(0, "DIMSTYLE")
	}
	w.pair(2, name)
	w.int(70, 0)
	w.float(40, 1)
	w.float(41, st.ArrowSize)
	w.float(42, st.ExtOffset)
	w.float(44, st.ExtBeyond)
	w.float(140, st.TextHeight)
	w.float(147, st.TextGap)
	w.int(77, 1)
	w.int(78, int(st.Zeros))
	w.int(271, st.Decimals)
	w.int(73, 0)
	w.int(74, 0)
}

func (w *dxfWriter) blockRecord(h uint64, name string, layout uint64) {
	w.record("BLOCK_RECORD", h, hBlockTable, "AcDbBlockTableRecord")
	w.pair(2, name)
	w.pairHandle(340, layout)
	w.int(70, 0)
	w.int(280, 1)
	w.int(281, 0)
}

// classes writes the CLASSES section's records of the types written that
// AutoCAD defines in applications (images and wipeouts, their objects),
// as AutoCAD and ezdxf describe them.
func (w *dxfWriter) classes(d *drawing.Document, ents []*drawing.Entity) {
	images, wipeouts := rasterTypes(d, ents)
	class := func(name, cpp, app string, flags, entity int) {
		w.pair(0, "CLASS")
		w.pair(1, name)
		w.pair(2, cpp)
		w.pair(3, app)
		w.int(90, flags)
		w.int(91, 0)
		w.int(280, 0)
		w.int(281, entity)
	}
	if images {
		class("RASTERVARIABLES", "AcDbRasterVariables", "ISM", 0, 0)
		class("IMAGE", "AcDbRasterImage", "ISM", 2175, 1)
		class("IMAGEDEF", "AcDbRasterImageDef", "ISM", 0, 0)
		class("IMAGEDEF_REACTOR", "AcDbRasterImageDefReactor", "ISM", 1, 0)
	}
	if slices.ContainsFunc(ents, func(e *drawing.Entity) bool { _, ok := e.Geom.(drawing.Table); return ok }) {
		class("ACAD_TABLE", "AcDbTable", "ObjectDBX Classes", 1025, 1)
	}
	if wipeouts {
		class("WIPEOUT", "AcDbWipeout", "WipeOut", 127, 1)
		class("WIPEOUTVARIABLES", "AcDbWipeoutVariables", "WipeOut", 0, 0)
	}
}

// rasterTypes says whether the document has images and wipeouts, in the
// drawing or its blocks.
func rasterTypes(d *drawing.Document, ents []*drawing.Entity) (images, wipeouts bool) {
	see := func(e *drawing.Entity) {
		switch e.Geom.(type) {
		case drawing.Image:
			images = true
		case drawing.Wipeout:
			wipeouts = true
		}
	}
	for _, e := range ents {
		see(e)
	}
	for _, b := range d.Blocks() {
		for _, e := range b.Entities {
			see(e)
		}
	}
	return images, wipeouts
}

// objects writes the OBJECTS section: the root dictionary with the groups
// and the layouts, and the Model layout and the sheets'; the images' and
// wipeouts' objects when they were written; the document's constraints
// (see constraintRecord).
func (w *dxfWriter) objects(d *drawing.Document, sheets []*sheet) {
	w.section("OBJECTS")
	dict := func(h, owner uint64, entries ...any) {
		w.pair(0, "DICTIONARY")
		w.pairHandle(5, h)
		w.pairHandle(330, owner)
		w.pair(100, "AcDbDictionary")
		w.int(281, 1)
		for i := 0; i+1 < len(entries); i += 2 {
			w.pair(3, entries[i].(string))
			w.pairHandle(350, entries[i+1].(uint64))
		}
	}
	root := []any{"ACAD_GROUP", uint64(hGroupDict), "ACAD_LAYOUT", uint64(hLayoutDict)}
	var imageDict, imageVars, wipeoutVars uint64
	if len(w.imageDefs) > 0 {
		imageDict, imageVars = w.handle(), w.handle()
		root = append(root, "ACAD_IMAGE_DICT", imageDict, "ACAD_IMAGE_VARS", imageVars)
	}
	if w.wipeouts {
		wipeoutVars = w.handle()
		root = append(root, "ACAD_WIPEOUT_VARS", wipeoutVars)
	}
	var mleaderDict uint64
	if w.mleaderStyle != 0 {
		mleaderDict = w.handle()
		root = append(root, "ACAD_MLEADERSTYLE", mleaderDict)
	}
	var constraints uint64
	if d.Constraints().Len() > 0 {
		constraints = w.handle()
		root = append(root, constraintsEntry, constraints)
	}
	dict(hRootDict, 0, root...)
	dict(hGroupDict, hRootDict)
	layouts := []any{"Model", uint64(hModelLayout)}
	for _, s := range sheets {
		layouts = append(layouts, s.layout.Name, s.object)
	}
	dict(hLayoutDict, hRootDict, layouts...)
	w.layoutObject(hModelLayout, drawing.Layout{Name: "Model"}, 0, hModelBR)
	for i, s := range sheets {
		w.layoutObject(s.object, s.layout, i+1, s.record)
	}
	if imageDict != 0 {
		w.imageObjects(imageDict, imageVars)
	}
	if wipeoutVars != 0 {
		w.wipeoutVariables(wipeoutVars)
	}
	if mleaderDict != 0 {
		dict(mleaderDict, hRootDict, "Standard", w.mleaderStyle)
		w.mleaderStyleObject(w.mleaderStyle, mleaderDict)
	}
	if constraints != 0 {
		w.constraintRecord(d, constraints, d.Constraints())
	}
	w.end()
}
