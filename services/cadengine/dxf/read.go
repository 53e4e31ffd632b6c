package dxf

import (
	"io"
	"math"
	"strings"
	"unicode/utf8"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// File is what the engine takes from a DXF file: units, current layer,
// the layer table and the model-space entities it can hold.
type File struct {
	Units    enginev1.Units // UNSPECIFIED when the file does not say
	clayer   string         // $CLAYER; "" when absent
	layers   []dxfLayer     // the LAYER table, in file order
	entities []dxfEntity    // model and paper space, in file order

	version  string // $ACADVER
	writer   string // $LASTSAVEDBY, or the first comment
	codepage string // what the text was read in

	blocks    []dxfBlock         // the BLOCKS section's blocks the engine keeps, in file order
	ltypes    []drawing.Linetype // the LTYPE table's entries but the three every file has, in file order
	ltscale   float64            // $LTSCALE; 0 when absent
	settings  headerSettings     // $LUPREC, $DIMSCALE, $TEXTSIZE
	dimStyles map[string]dimVars // the variables each DIMSTYLE entry sets, by folded name
	dimHeader dimVars            // the HEADER's $DIM* variables
	styles    textStyles         // the STYLE table's text styles
	// styleNames are the STYLE table's names by handle (upper case),
	// which a dimension style's DIMTXSTY names its text style by.
	styleNames map[string]string
	rep        *report           // what became of every entity
	target     *[]dxfEntity      // where put puts entities: f.entities or a block's
	inBlock    string            // the block being read, for drop
	layout     string            // the paper-space layout whose block is being read
	renamed    map[string]string // layer names the engine cannot hold, and what it holds instead
	// unknownLinetypes are the linetypes entities or layers name that
	// neither the standard set nor the file defines, each warned of once.
	unknownLinetypes map[string]bool

	// From the OBJECTS section: the file of each IMAGEDEF, by handle,
	// whether wipeouts show their frames (WIPEOUTVARIABLES), the draw
	// order of the model space.
	imageFiles   map[string]string
	wipeoutFrame bool
	// sortents is each SORTENTSTABLE: by the block record it orders, the
	// handle each entity is drawn as.
	sortents map[uint64]map[uint64]uint64
	// layouts are the LAYOUT objects, in file order.
	layouts []dxfLayout
	// constraints is cadbridge's constraint table (see constraintRecord),
	// nil when the file has none.
	constraints *fileConstraints
}

// dxfBlock is one block definition of the BLOCKS section.
type dxfBlock struct {
	name     string
	base     geom.Vec
	entities []dxfEntity
	line     int
	// dimension: the block holds what a dimension draws (*D…); it is kept
	// only for a preserved entity that names it (the engine draws its
	// own dimensions).
	dimension bool
}

// dxfLayer is one LAYER table entry.
type dxfLayer struct {
	name               string
	color              int32
	linetype           string
	otherLinetype      string // a linetype not of the standard set (see File.fileLinetype)
	lineweight         int32
	on, frozen, locked bool
	line               int
	handle             string // 5, upper case
}

// dxfEntity is one entity the engine can hold, with its style as read
// (layer name as written in the file, canonical linetype).
type dxfEntity struct {
	kind     string // the DXF type
	layer    string
	color    int32
	linetype string
	ltscale  float64 // the entity's linetype scale (48)
	layout   string  // "" in model space
	geom     drawing.Geometry
	line     int
	// preserved: geom is a drawing.Foreign; why says why, for a type the
	// engine models.
	preserved bool
	why       string
	// handle and owner are a drawing entity's own (5, 330), by which a
	// SORTENTSTABLE orders it and the constraints name it; 0 when the
	// file gives none (and in blocks).
	handle, owner uint64
	// ref is what the few entities that refer to more than their codes
	// refer to; nil for the others (a file's list of entities is sized
	// to the file, and cleared when it is made).
	ref *dxfRef
}

// dxfRef is what an entity refers to beyond its own codes: block and at,
// the block a dimension or a table names (what the program that wrote it
// drew) and where that block is placed; imageDef, an image's IMAGEDEF
// handle, whose file name the OBJECTS section says.
type dxfRef struct {
	block    string
	at       geom.Vec
	imageDef string
	// An MTEXT's further columns (before R2018: MTEXTs of their own) and
	// its columns' frames (LWPOLYLINEs), by handle; and, for an MTEXT
	// that may be a further column, its text with its column breaks and
	// its markup (see joinMTextColumns).
	mtextColumns, mtextBorders []uint64
	columnText, columnMarkup   string
}

// refs is fe's ref, made if it has none.
func (fe *dxfEntity) refs() *dxfRef {
	if fe.ref == nil {
		fe.ref = &dxfRef{}
	}
	return fe.ref
}

// Read reads an ASCII DXF file: sections HEADER ($INSUNITS, $CLAYER,
// $ACADVER, $LASTSAVEDBY, the $DIM* defaults), TABLES (the LAYER,
// LTYPE, STYLE and DIMSTYLE tables), BLOCKS, ENTITIES and, of OBJECTS, what images, wipeouts and
// the model space's draw order need (see readObjects); other sections and
// tables are passed over. Every entity of the drawing is accounted for
// (see Report): native when the engine models its type and can hold it,
// preserved (a drawing.Foreign, its codes kept) otherwise, dropped with a
// reason only when neither can be (an insert's attributes, an insert of
// a block the file lacks). What it reads, and the rules it follows:
//
//   - Units are $INSUNITS (1 in, 2 ft, 4 mm, 5 cm, 6 m); a file without
//     it that the engine wrote (R12 has no $INSUNITS) names its units in
//     its first 999 comment, "cadbridge <id> (<units>)".
//   - Layers: name 2 (its \U+XXXX escapes decoded), colour 62 (negative:
//     off; 0 or beyond 255: 7), linetype 6, flags 70 (1 frozen, 4 locked),
//     lineweight 370. Linetypes and lineweights the engine does not know
//     become Continuous and the default. A name the engine cannot hold
//     (xref-dependent "X|Y" names, "*" names) is held with "_" for each
//     character it cannot have, with a warning; a second entry with the
//     name of an earlier one, ignoring case, is passed over.
//   - Entities: layer 8 ("0" when absent), colour 62 (outside 0-256: by
//     layer), linetype 6 (unknown: ByLayer). Entities in paper space
//     (67 = 1, or in a *Paper_Space block) are kept on their layout (410,
//     "Layout1" when they name none, the block's name for another
//     layout's block). An extrusion direction (210/220/230) of -Z (a
//     mirrored object coordinate system) is mapped into world coordinates;
//     any other but +Z makes the entity preserved. So does degenerate
//     geometry the engine cannot hold — a zero-length line, a circle or
//     arc without radius or sweep, a polyline of fewer than two vertices,
//     empty text, an ellipse without a major axis or with a ratio outside
//     (0, 1], numbers that overflow — and a 3D polyline or mesh.
//   - BLOCKS: each block's base point 10/20 and entities, read like the
//     model space's; *Model_Space and *Paper_Space… hold the drawing's
//     entities (above). A dimension's block (*D…) is kept only for a
//     preserved entity that names it (the engine draws its own
//     dimensions). INSERT: block 2, position 10/20, scales 41/42
//     (uniform, or mirrored with one negative; otherwise preserved),
//     rotation 50, MINSERT's grid 70/71/44/45; its ATTRIBs are dropped.
//   - MTEXT: insertion 10/20, height 40, width 41, attachment 71, text 3
//     and 1 with its formatting codes decoded (see decodeMTextValue),
//     rotation 50 (or the direction 11/21), line spacing 44.
//   - DIMENSION: rotated, aligned, radial, diametric and angular (2-line
//     and 3-point) by 70, from their definition points; the text
//     override 1, the style 3, its DIMSCALE and the rest of its style
//     (see File.dimStyleOf: the entity's DSTYLE overrides, else the
//     DIMSTYLE entry, else the HEADER). Others are preserved.
//   - HATCH: pattern 2 (SOLID, a pattern the engine names, or any other
//     with its definition lines 53/43–46/49), scale 41, angle 52, and
//     boundary paths of polylines (bulges included), lines and circular
//     arcs, or one whole ellipse. Others are preserved.
//   - TEXT: insertion 10/20, height 40 (the default when not positive),
//     rotation 50, text 1 with its codes decoded (see decodeDXFText),
//     alignment 72/73 at 11/21 (see aligned; between the two points for
//     72 = 3 and 5, see fitted), style 7 (from the STYLE table: font 3,
//     big font 4, fixed height 40, width factor 41, oblique angle 50)
//     with its own width factor 41, oblique angle 51 and generation
//     flags 71; an MTEXT takes its style's width factor and oblique
//     angle. ELLIPSE: centre 10/20, major axis 11/21, ratio 40, start
//     and end parameters 41/42 in radians, kept as degrees.
//   - WIPEOUT and IMAGE: their pixels' placement and boundary (see
//     raster); an image's file is its IMAGEDEF's (340, in OBJECTS), a
//     wipeout's frame setting the file's WIPEOUTVARIABLES'. The model
//     space is built in its SORTENTSTABLE's order (see redrawOrder).
//   - Repairs, each a warning with its line, as ezdxf's recover mode
//     reads: a HEADER ended early by a stray ENDSEC goes on; an ENDSEC
//     outside any section, and VERTEX or SEQEND records outside a
//     POLYLINE, are passed over; a number written with a decimal comma
//     ("0,5") is read with a point.
//
// Bytes that are not UTF-8 read as U+FFFD (ReadBytes and ReadText decode
// a file's code page first). A file that breaks the format otherwise is
// an *Error naming the line.
func Read(content string) (*File, error) {
	if strings.HasPrefix(content, "AutoCAD Binary DXF") {
		return nil, dxfErrorf(1, "binary DXF is not supported; save the file as ASCII DXF")
	}
	if !utf8.ValidString(content) {
		content = strings.ToValidUTF8(content, "\uFFFD")
	}
	sc := &dxfScanner{s: content}
	f := &File{dimStyles: map[string]dimVars{}, dimHeader: dimVars{}, styles: textStyles{}, styleNames: map[string]string{}, rep: newReport(), codepage: "UTF-8"}
	// Room for the entities up front, at about what a LINE takes in a
	// file: growing the list as it fills copied it over and over.
	f.entities = make([]dxfEntity, 0, len(content)/96)
	f.target = &f.entities
	comments := 0
	commentUnits := enginev1.Units_UNITS_UNSPECIFIED
	done := func() (*File, error) {
		if f.Units == enginev1.Units_UNITS_UNSPECIFIED {
			f.Units = commentUnits
		}
		for _, r := range sc.repairs {
			f.rep.warn(r.line, "%s", r.message)
		}
		f.resolveObjects()
		return f, nil
	}
	for {
		p, err := sc.next()
		if err == io.EOF {
			if sc.line == 0 {
				return nil, dxfErrorf(1, "the file is empty")
			}
			return done() // no EOF marker: taken as the end
		}
		if err != nil {
			return nil, err
		}
		switch {
		case p.code == 999:
			if comments == 0 {
				commentUnits = unitsFromComment(p.value)
				if f.writer == "" {
					f.writer = strings.TrimSpace(p.value)
				}
			}
			comments++
		case p.code == 0 && p.word() == "EOF":
			return done()
		case p.code == 0 && p.word() == "ENDSEC":
			f.rep.warn(p.line, "an ENDSEC outside any section: passed over")
		case p.code == 9:
			// A stray ENDSEC ended the HEADER early (dxflib writes one
			// after $HANDSEED): what follows is still the HEADER.
			f.rep.warn(p.line, "a HEADER variable after the HEADER's end (a stray ENDSEC before it): read as part of the HEADER")
			sc.unread(p)
			if err := f.readHeader(sc); err != nil {
				return nil, err
			}
		case p.code == 0 && p.word() == "SECTION":
			name, err := sc.next()
			if err == io.EOF {
				return nil, dxfErrorf(p.line, "SECTION without a name (the file ends)")
			}
			if err != nil {
				return nil, err
			}
			if name.code != 2 {
				return nil, dxfErrorf(name.line, "SECTION must be followed by its name (group code 2), not group code %d", name.code)
			}
			switch name.word() {
			case "HEADER":
				err = f.readHeader(sc)
			case "TABLES":
				err = f.readTables(sc)
			case "ENTITIES":
				if err = f.readEntities(sc); err == nil {
					f.entities = f.joinMTextColumns(f.entities)
				}
			case "BLOCKS":
				err = f.readBlocks(sc)
			case "OBJECTS":
				err = f.readObjects(sc)
			default:
				err = skipSection(sc, name.word())
			}
			if err != nil {
				return nil, err
			}
		default:
			return nil, dxfErrorf(p.line, "expected a SECTION or EOF, found group code %d %q", p.code, clip(p.value))
		}
	}
}

// ReadBytes reads a DXF file from its bytes: its text decoded as it says
// ($ACADVER and $DWGCODEPAGE; see decodeFile), then read as Read does.
// The report names the code page, and warns of one it does not know.
func ReadBytes(raw []byte) (*File, error) {
	return readDecoded(decodeFile(raw))
}

// readDecoded reads text decoded from a file's bytes as enc says.
func readDecoded(text string, enc fileEncoding) (*File, error) {
	f, err := Read(text)
	if err != nil {
		return nil, err
	}
	f.codepage = enc.codepage
	if enc.warning != "" {
		f.rep.warn(1, "%s", enc.warning)
	}
	return f, nil
}

// ReadText reads a DXF file from its text, as a caller that has only
// text (JSON, a proto string) sends it. Text whose every character is in
// U+0000–U+00FF may be the file's bytes read as Latin-1, as a client that
// does not know the file's code page best sends them: when the file's
// HEADER says its text is not UTF-8 ($DWGCODEPAGE of a file older than
// AutoCAD 2007), or when those bytes are valid UTF-8 of a file that says
// it is UTF-8, the characters are taken as bytes and decoded as the file
// says (see ReadBytes). Otherwise — ASCII, text with characters beyond
// U+00FF, Latin-1 text of a UTF-8 file — the text is read as it is.
func ReadText(content string) (*File, error) {
	raw, ok := latin1Bytes(content)
	if !ok {
		return Read(content)
	}
	text, enc := decodeFile(raw)
	if enc.codepage == "UTF-8" && !utf8.Valid(raw) {
		return Read(content) // Latin-1 text of a UTF-8 file: text already
	}
	return readDecoded(text, enc)
}

// latin1Bytes are the bytes s stands for when it is a file read as
// Latin-1: ok when it has characters beyond ASCII, none beyond U+00FF.
func latin1Bytes(s string) ([]byte, bool) {
	beyond := false
	for _, r := range s[asciiPrefix(s):] {
		switch {
		case r > 0xFF:
			return nil, false
		case r >= 0x80:
			beyond = true
		}
	}
	if !beyond {
		return nil, false
	}
	out := make([]byte, 0, len(s))
	for _, r := range s {
		out = append(out, byte(r))
	}
	return out, true
}

// asciiPrefix is the length of s's leading ASCII, read eight bytes at a
// time (a file's text is most often ASCII to its end).
func asciiPrefix(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&0x8080808080808080 != 0 {
			break
		}
	}
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	return i
}

// unitsFromComment reads the units from the engine's own leading comment.
func unitsFromComment(s string) enginev1.Units {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "cadbridge ")
	if !ok {
		return enginev1.Units_UNITS_UNSPECIFIED
	}
	_, unit, ok := strings.Cut(rest, " (")
	unit, ok2 := strings.CutSuffix(unit, ")")
	if !ok || !ok2 {
		return enginev1.Units_UNITS_UNSPECIFIED
	}
	return enginev1.Units(enginev1.Units_value["UNITS_"+strings.ToUpper(unit)])
}

// insUnits maps $INSUNITS to the engine's units.
func insUnits(n int64) enginev1.Units {
	switch n {
	case 1:
		return enginev1.Units_UNITS_IN
	case 2:
		return enginev1.Units_UNITS_FT
	case 4:
		return enginev1.Units_UNITS_MM
	case 5:
		return enginev1.Units_UNITS_CM
	case 6:
		return enginev1.Units_UNITS_M
	}
	return enginev1.Units_UNITS_UNSPECIFIED
}

// sectionPair reads the next pair of a section, which must not end first.
func sectionPair(sc *dxfScanner, section string) (dxfPair, error) {
	p, err := sc.next()
	if err == io.EOF {
		return p, dxfErrorf(max(sc.line, 1), "the %s section has no ENDSEC (the file ends)", section)
	}
	return p, err
}

func skipSection(sc *dxfScanner, name string) error {
	for {
		p, err := sectionPair(sc, name)
		if err != nil {
			return err
		}
		if p.code == 0 && p.word() == "ENDSEC" {
			return nil
		}
	}
}

func (f *File) readHeader(sc *dxfScanner) error {
	variable := ""
	for {
		p, err := sectionPair(sc, "HEADER")
		if err != nil {
			return err
		}
		switch {
		case p.code == 0 && p.word() == "ENDSEC":
			return nil
		case p.code == 0:
			return dxfErrorf(p.line, "unexpected %q in the HEADER section", clip(p.value))
		case p.code == 9:
			variable = p.word()
		case variable == "$INSUNITS" && p.code == 70:
			n, err := p.int()
			if err != nil {
				return err
			}
			if u := insUnits(n); u != enginev1.Units_UNITS_UNSPECIFIED {
				f.Units = u
			}
		case variable == "$CLAYER" && p.code == 8:
			f.clayer = strings.TrimSpace(p.value)
		case variable == "$ACADVER" && p.code == 1:
			f.version = strings.TrimSpace(p.value)
		case variable == "$LTSCALE" && p.code == 40:
			if v, err := p.float(); err == nil && v > 0 && !math.IsInf(v, 1) {
				f.ltscale = v
			}
		case variable == "$LUPREC" && p.code == 70:
			if n, err := p.int(); err == nil && n >= 0 && n <= 8 {
				f.settings.precision = new(int32(n))
			}
		case variable == "$DIMSCALE" && p.code == 40:
			f.settings.dimScale = positive(p)
			f.dimHeader.set(dimScale, p.value)
		case headerDimCodes[variable] != 0 && p.code != 9:
			f.dimHeader.set(headerDimCodes[variable], p.value)
		case variable == "$TEXTSIZE" && p.code == 40:
			f.settings.textHeight = positive(p)
		case variable == "$LASTSAVEDBY" && p.code == 1:
			if w := strings.TrimSpace(p.value); w != "" {
				f.writer = w
			}
		}
	}
}

func (f *File) readTables(sc *dxfScanner) error {
	const (
		inNothing = iota
		inTableHead
		inEntry
	)
	state, table := inNothing, ""
	var l *dxfLayer
	var lt *dxfLtype
	var style *styleEntry
	var dims dimVars // the DIMSTYLE entry's variables
	dimstyle := ""   // and its name
	flush := func() {
		f.addStyle(style)
		style = nil
		if dims != nil && dimstyle != "" {
			f.dimStyles[foldName(dimstyle)] = dims
		}
		dims, dimstyle = nil, ""
		if l != nil && l.name != "" {
			f.layers = append(f.layers, *l)
		}
		l = nil
		if lt != nil {
			f.addLinetype(lt)
		}
		lt = nil
	}
	for {
		p, err := sectionPair(sc, "TABLES")
		if err != nil {
			return err
		}
		if p.code == 0 {
			flush()
			switch w := p.word(); {
			case w == "ENDSEC":
				return nil
			case w == "TABLE":
				state, table = inTableHead, ""
			case w == "ENDTAB":
				state, table = inNothing, ""
			default:
				state = inEntry
				if table == "LAYER" && w == "LAYER" {
					l = &dxfLayer{color: 7, linetype: "Continuous", lineweight: -3, on: true, line: p.line}
				}
				if table == "LTYPE" && w == "LTYPE" {
					lt = &dxfLtype{line: p.line}
				}
				if table == "DIMSTYLE" && w == "DIMSTYLE" {
					dims = dimVars{}
				}
				if table == "STYLE" && w == "STYLE" {
					style = &styleEntry{}
				}
			}
			continue
		}
		if style != nil {
			style.set(p)
			continue
		}
		if dims != nil {
			if p.code == 2 {
				dimstyle = strings.TrimSpace(p.value)
			}
			dims.set(p.code, p.value)
			continue
		}
		if state == inTableHead && p.code == 2 {
			table = p.word()
			continue
		}
		if lt != nil {
			lt.set(p)
			continue
		}
		if l == nil {
			continue
		}
		if err := l.set(p); err != nil {
			return err
		}
	}
}

// set applies one pair of a LAYER entry.
func (l *dxfLayer) set(p dxfPair) error {
	switch p.code {
	case 5:
		l.handle = strings.ToUpper(strings.TrimSpace(p.value))
	case 2:
		l.name = decodeName(p.value)
	case 62:
		n, err := p.int()
		if err != nil {
			return err
		}
		l.on = n >= 0
		if n < 0 {
			n = -n
		}
		if n < 1 || n > 255 {
			n = 7
		}
		l.color = int32(n)
	case 6:
		if lt, ok := drawing.CanonicalLinetype(strings.TrimSpace(p.value), false); ok {
			l.linetype = lt
		} else {
			l.otherLinetype = strings.TrimSpace(p.value)
		}
	case 70:
		n, err := p.int()
		if err != nil {
			return err
		}
		l.frozen, l.locked = n&1 != 0, n&4 != 0
	case 370:
		n, err := p.int()
		if err != nil {
			return err
		}
		if n >= math.MinInt32 && n <= math.MaxInt32 && drawing.ValidLineweight(int32(n)) {
			l.lineweight = int32(n)
		}
	}
	return nil
}

// headerSettings are the HEADER variables the document's settings hold
// (see drawing.Settings), each nil when the file has none that reads.
type headerSettings struct {
	precision            *int32
	dimScale, textHeight *float64
}

// positive is the pair's value when it reads as a positive finite
// number, else nil.
func positive(p dxfPair) *float64 {
	if v, err := p.float(); err == nil && v > 0 && !math.IsInf(v, 1) {
		return &v
	}
	return nil
}

// of are the settings of a document in units u with the file's
// variables, and whether they differ from the defaults (a file the
// engine wrote of a document without settings of its own comes back
// without them, and with its content hash).
func (h headerSettings) of(u enginev1.Units) (drawing.Settings, bool) {
	s := drawing.DefaultSettings(u)
	if h.precision != nil {
		s.Precision = *h.precision
	}
	if h.dimScale != nil {
		s.DimScale = *h.dimScale
	}
	if h.textHeight != nil {
		s.TextHeight = *h.textHeight
	}
	return s, s != drawing.DefaultSettings(u)
}
