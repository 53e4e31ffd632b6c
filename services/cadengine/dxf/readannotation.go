package dxf

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Reading what R12 does not have: the BLOCKS section, INSERT, MTEXT,
// DIMENSION and HATCH (see Read for the rules).

// Unmodelled is what the file held that the engine does not model, by
// type: the types preserved as foreign entities, and those dropped, each
// marked so, sorted by type. (The report says more: see Report.)
func (f *File) Unmodelled() []*enginev1.UnmodelledEntities {
	var out []*enginev1.UnmodelledEntities
	for k, c := range f.rep.counts {
		if c.Preserved > 0 {
			out = append(out, &enginev1.UnmodelledEntities{Type: k + " (preserved)", Count: c.Preserved})
		}
	}
	for _, d := range f.rep.dropped {
		out = append(out, &enginev1.UnmodelledEntities{Type: d.Type + " (dropped: " + d.Reason + ")", Count: d.Count})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Type < out[j].Type })
	return out
}

// readBlocks reads the BLOCKS section: BLOCK, its entities, ENDBLK. The
// blocks of model space and of paper-space layouts (*Model_Space,
// *Paper_Space, *Paper_Space0…) hold entities of the drawing, which are
// read as those of the ENTITIES section are; every other block whose name
// the engine can hold is kept, anonymous ones (*D, *U, *X, *T…) included.
func (f *File) readBlocks(sc *dxfScanner) error {
	var buf []dxfPair
	var cur *dxfBlock
	keep := false
	defer func() { f.target, f.inBlock, f.layout = &f.entities, "", "" }()
	for {
		head, err := sectionPair(sc, "BLOCKS")
		if err != nil {
			return err
		}
		if head.code != 0 {
			return dxfErrorf(head.line, "expected a block or an entity (group code 0) in the BLOCKS section, found group code %d", head.code)
		}
		switch head.word() {
		case "ENDSEC":
			return nil
		case "BLOCK":
			r, err := readRecord(sc, head, buf)
			if err != nil {
				return err
			}
			buf = r.pairs
			v, err := r.values(10, 20)
			if err != nil {
				return err
			}
			cur = &dxfBlock{base: geom.Pt(v[10], v[20]), line: r.line}
			for _, p := range r.pairs {
				if p.code == 2 {
					cur.name = strings.TrimSpace(p.value)
				}
			}
			upper := strings.ToUpper(cur.name)
			keep = false
			switch {
			case upper == "*MODEL_SPACE":
				f.target, f.inBlock, f.layout = &f.entities, "", ""
			case strings.HasPrefix(upper, "*PAPER_SPACE"):
				f.target, f.inBlock, f.layout = &f.entities, "", defaultLayout
				if upper != "*PAPER_SPACE" {
					f.layout = cur.name
				}
			default:
				cur.dimension = strings.HasPrefix(upper, "*D")
				keep = cur.name != "" && len(cur.name) <= 255 && drawing.CheckLayerName(strings.TrimPrefix(cur.name, "*")) == nil
				f.target, f.inBlock, f.layout = &cur.entities, cur.name, ""
				if !keep {
					f.rep.warn(r.line, "block %q is not kept: the engine cannot hold its name", clip(cur.name))
				}
			}
		case "ENDBLK":
			r, err := readRecord(sc, head, buf)
			if err != nil {
				return err
			}
			buf = r.pairs
			if cur != nil && keep {
				f.blocks = append(f.blocks, *cur)
			}
			cur, keep = nil, false
			f.target, f.inBlock, f.layout = &f.entities, "", ""
		default:
			if cur != nil && !keep && f.inBlock != "" {
				// A block the engine cannot hold: its entities are read, and
				// dropped with the reason.
				var none []dxfEntity
				f.target = &none
				buf, err = f.readEntity(sc, head, buf)
				for _, fe := range none {
					f.drop(fe.kind, "its block's name cannot be held")
				}
				f.target = &cur.entities
			} else {
				buf, err = f.readEntity(sc, head, buf)
			}
			if err != nil {
				return err
			}
		}
	}
}

// insert reads an INSERT (with a grid: MINSERT's columns 70, rows 71,
// their spacing 44 and 45); why says what keeps it out.
func (r dxfRecord) insert(c dxfCommon) (drawing.Geometry, string, error) {
	v, err := r.values(10, 20, 41, 42, 43, 44, 45, 50, 70, 71)
	if err != nil {
		return nil, "", err
	}
	name := ""
	sx, sy := 1.0, 1.0
	for _, p := range r.pairs {
		switch p.code {
		case 2:
			name = strings.TrimSpace(p.value)
		case 41:
			sx = v[41]
		case 42:
			sy = v[42]
		}
	}
	mirrored, ok := c.ocs()
	switch {
	case !ok:
		return nil, "3D", nil
	case sx == 0 || sy == 0:
		return nil, "degenerate (a scale of 0)", nil
	}
	g := drawing.Insert{Name: name, P: geom.Pt(v[10], v[20]), Scale: math.Abs(sx), Rotation: v[50], Mirror: (sx < 0) != (sy < 0)}
	if math.Abs(math.Abs(sx)-math.Abs(sy)) > 1e-9*math.Abs(sy) {
		g.YScale = math.Abs(sy) // scaled unevenly
	}
	// A grid of more than 2^31 columns or rows is as good as endless: it
	// is kept at 2^31, which every drawing of it refuses as too large.
	if cols, rows := min(math.Max(1, v[70]), 1<<31), min(math.Max(1, v[71]), 1<<31); cols > 1 || rows > 1 {
		// DXF's grid offsets turn with the rotation as written: the
		// changes of rotation below change their signs.
		g.Cols, g.Rows, g.ColSpacing, g.RowSpacing = int64(cols), int64(rows), v[44], v[45]
	}
	if sy < 0 {
		// (−sx, −sy) is (sx, sy) turned half a turn.
		g.Rotation += 180
		g.ColSpacing, g.RowSpacing = -g.ColSpacing, -g.RowSpacing
	}
	if mirrored {
		g.P.X, g.Rotation, g.Mirror = -g.P.X, 180-g.Rotation, !g.Mirror
		g.RowSpacing = -g.RowSpacing
	}
	g.Rotation = geom.NormDeg(g.Rotation)
	return g, "", nil
}

// mtext reads an MTEXT.
//
// What an R2018 MTEXT writes after "101 Embedded Object" (its columns, in
// codes that repeat 10, 11, 40 and others) is read as its columns only
// (see mtextColumns); its text keeps its column breaks when it has
// columns.
func (r dxfRecord) mtext(c dxfCommon, styles textStyles) (drawing.Geometry, error) {
	columns := r.mtextColumns()
	if i := slices.IndexFunc(r.pairs, func(p dxfPair) bool { return p.code == 101 }); i >= 0 {
		r.pairs = r.pairs[:i]
	}
	v, err := r.values(10, 20, 40, 41, 50, 11, 21, 44, 71)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	var last string
	hasDir := false
	for _, p := range r.pairs {
		switch p.code {
		case 3:
			b.WriteString(p.value)
		case 1:
			last = p.value
		case 11:
			hasDir = true
		}
	}
	b.WriteString(last)
	text, markup := decodeMText(b.String(), columns != nil)
	mirrored, ok := c.ocs()
	if !ok || strings.TrimSpace(text) == "" {
		return nil, nil
	}
	// The insertion point and the direction (11) are in the world; the
	// rotation (50) in the OCS, whose x runs the other way seen from
	// below. With neither, the text runs along the world's x: AutoCAD
	// leaves 11 out when the direction is the world's x, whatever the
	// extrusion (a text mirrored about a horizontal line is written so).
	g := drawing.MText{Text: text, P: geom.Pt(v[10], v[20]), Height: v[40], Width: math.Max(0, v[41]), Rotation: v[50], Attach: uint8(v[71]), Spacing: v[44], Style: styles.of(r, v, false)}
	if mirrored && r.has(50) {
		g.Rotation = 180 - g.Rotation
	}
	if hasDir && (v[11] != 0 || v[21] != 0) {
		g.Rotation = geom.Deg(math.Atan2(v[21], v[11]))
	}
	if !(g.Height > 0) {
		g.Height = drawing.DefaultTextHeight
	}
	if g.Attach < 1 || g.Attach > 9 {
		g.Attach = 1
	}
	if !(g.Spacing >= 0.25 && g.Spacing <= 4) {
		g.Spacing = 1
	}
	if mirrored {
		// Its glyphs run along the direction, mirrored: read the right
		// way, the box runs the other way from the other side.
		g.Rotation += 180
		g.Attach += 2 - 2*((g.Attach-1)%3)
	}
	g.Rotation = geom.NormDeg(g.Rotation)
	g.Background = r.mtextBackground()
	g.Columns = columns
	g.Aligns = mtextAligns(b.String())
	g.Markup = markup
	if mirrored {
		g.Aligns = strings.NewReplacer(string(drawing.ParaLeft), string(drawing.ParaRight), string(drawing.ParaRight), string(drawing.ParaLeft)).Replace(g.Aligns)
	}
	return g, nil
}

// mtextAligns reads an MTEXT's paragraph alignments (see
// drawing.MText.Aligns) from its \p codes: a paragraph's is the one in
// force where it ends (\P, \X and ^J end one, as decodeMTextValue reads
// them), set by the code's q option (l left, c centre, r right; j
// justified and d distributed are set left) until another changes it;
// q* returns to the attachment's. "" when no paragraph has one.
func mtextAligns(s string) string {
	cur := byte(drawing.ParaAttached)
	var out []byte
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '^' && i+1 < len(s) && s[i+1] == 'J':
			out = append(out, cur)
			i++
		case s[i] != '\\' || i+1 >= len(s):
		case s[i+1] == 'P' || s[i+1] == 'X':
			out = append(out, cur)
			i++
		case s[i+1] == 'p':
			end := strings.IndexByte(s[i:], ';')
			if end < 0 {
				end = len(s) - i
			}
			for _, opt := range strings.Split(strings.TrimPrefix(s[i+2:i+end], "x"), ",") {
				if len(opt) < 2 || opt[0] != 'q' {
					continue
				}
				switch opt[1] {
				case 'l', 'j', 'd':
					cur = drawing.ParaLeft
				case 'c':
					cur = drawing.ParaCenter
				case 'r':
					cur = drawing.ParaRight
				case '*':
					cur = drawing.ParaAttached
				}
			}
			i += end
		default:
			i++ // an escaped character, or a code's letter
		}
	}
	out = append(out, cur)
	return strings.TrimRight(string(out), string(drawing.ParaAttached))
}

// mtextBackground reads an MTEXT's background mask (90, 63, 421, 45,
// 441; see dxfWriter.mtextBackground): none when 90 asks for neither a
// fill nor a frame.
func (r dxfRecord) mtextBackground() drawing.Background {
	var b drawing.Background
	for _, p := range r.pairs {
		switch p.code {
		case 90:
			if n, err := p.int(); err == nil {
				b.Fill = uint8(n & (drawing.BackgroundColor | drawing.BackgroundWindow | drawing.BackgroundFrame))
			}
		case 63:
			if n, err := p.int(); err == nil && n >= 0 && n <= 256 {
				b.Color = int32(n)
			}
		case 421:
			if n, err := p.int(); err == nil {
				b.True = trueColor(n)
			}
		case 45:
			if v, err := p.float(); err == nil && v >= 1 && v <= 5 {
				b.Scale = v
			}
		case 441:
			if n, err := p.int(); err == nil {
				b.Transparency = int32(n)
			}
		}
	}
	if !b.On() && !b.Framed() {
		return drawing.Background{}
	}
	return b
}

// trueColor is a DXF true colour (420, 421: 0xRRGGBB, perhaps with flags
// above).
func trueColor(n int64) drawing.TrueColor {
	return drawing.RGBTrue(uint8(n>>16), uint8(n>>8), uint8(n))
}

// gradientOf reads a HATCH's gradient from its codes 450–470 (see
// dxfWriter.gradient), or nil when 450 is not 1. A true colour equal to
// its ACI number's colour is not kept, so that what the engine writes
// reads back the same.
func gradientOf(ps []dxfPair) *drawing.Gradient {
	g := drawing.Gradient{Name: "LINEAR"}
	on := false
	aci := []*int32{&g.Color1, &g.Color2}
	tc := []*drawing.TrueColor{&g.True1, &g.True2}
	for _, p := range ps {
		v, _ := p.float()
		switch p.code {
		case 450:
			on = v == 1
		case 460:
			g.Angle = geom.NormDeg(degFromRad(v))
		case 461:
			g.Shift = v
		case 452:
			g.OneColor = v == 1
		case 462:
			g.Tint = v
		case 63:
			if len(aci) > 0 {
				*aci[0], aci = int32(v), aci[1:]
			}
		case 421:
			if n, err := p.int(); err == nil && len(tc) > 0 {
				*tc[0], tc = trueColor(n), tc[1:]
			}
		case 470:
			if n, ok := drawing.CanonicalGradient(p.value); ok {
				g.Name = n
			}
		}
	}
	if !on || !geom.IsFinite(g.Angle) || !geom.IsFinite(g.Shift) || !geom.IsFinite(g.Tint) {
		return nil
	}
	colors := []struct {
		aci *int32
		tc  *drawing.TrueColor
	}{{&g.Color1, &g.True1}, {&g.Color2, &g.True2}}
	if g.OneColor {
		// Its second colour is its tint's: what a file gives is not kept.
		colors, g.Color2, g.True2 = colors[:1], 0, 0
	}
	for _, c := range colors {
		if *c.aci < 0 || *c.aci > 256 {
			*c.aci = 0
		}
		r, gg, b := drawing.ACIRGB(*c.aci)
		if *c.aci > 0 && *c.tc == drawing.RGBTrue(r, gg, b) {
			*c.tc = 0
		}
		if *c.aci == 0 && !c.tc.Set() {
			*c.aci = 7
		}
	}
	return &g
}

// caret is what DXF's caret notation ^c stands for in MTEXT: ^J a line
// break, ^I a tab (a space here), ^M a carriage return (nothing), "^ " a
// caret; "-" for a c it does not read.
func caret(c byte) string {
	switch c {
	case 'J':
		return "\n"
	case 'I':
		return " "
	case 'M':
		return ""
	case ' ':
		return "^"
	}
	return "-"
}

// decodeMTextValue reads MTEXT's text (see decodeMText): its plain
// text, column breaks left out.
func decodeMTextValue(s string) string {
	text, _ := decodeMText(s, false)
	return text
}

// decodeMText reads MTEXT's content s: its plain text (see
// drawing.MarkupText: \P and ^J break a line; \\, \{, \} and \~ are a
// backslash, braces and a space; \U+XXXX a character; %%c, %%d and %%p
// their symbols, as in TEXT (AutoCAD and ezdxf read them in MTEXT too);
// a stack \Sa^b; reads a/b; formatting codes and grouping braces are
// left out), and its markup (see drawing.MText.Markup), "" when it has
// no formatting. A column break (\N) is one in text with columns
// (drawing.ColumnBreak), else nothing.
func decodeMText(s string, columns bool) (text, markup string) {
	markup = normalMarkup(s, columns)
	text = drawing.MarkupText(markup)
	if markup == drawing.PlainMarkup(text) {
		markup = ""
	}
	return text, markup
}

// normalMarkup is MTEXT's content s as drawing.MText.Markup holds it:
// what is DXF's encoding read (\U+XXXX, %%c, %%d, %%p and caret
// notation as the characters they stand for, \X as \P, control
// characters as spaces; see caret), empty groups ("{}", which keep
// %%c from being read) and, without columns, column breaks left out.
func normalMarkup(s string, columns bool) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{' && i+1 < len(s) && s[i+1] == '}':
			i += 2
		case c == '%' && i+2 < len(s) && s[i+1] == '%' && percentSymbol(s[i+2]) != "":
			b.WriteString(percentSymbol(s[i+2]))
			i += 3
		case c == '^' && i+1 < len(s) && caret(s[i+1]) != "-":
			b.WriteString(drawing.PlainMarkup(caret(s[i+1])))
			i += 2
		case c == '\\' && i+1 < len(s) && s[i+1] < utf8.RuneSelf:
			i += 2
			switch code := s[i-1]; {
			case code == 'U' && len(s) >= i+5 && s[i] == '+' && isHex4(s[i+1:i+5]):
				n, _ := strconv.ParseUint(s[i+1:i+5], 16, 32)
				writeMarkupRune(&b, rune(n))
				i += 5
			case code == 'X':
				b.WriteString(`\P`)
			case code == 'N' && !columns:
			default:
				b.WriteString(s[i-2 : i])
			}
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == '\\' || r == '{' || r == '}' {
				b.WriteRune(r)
			} else {
				writeMarkupRune(&b, r)
			}
			i += n
		}
	}
	return b.String()
}

// writeMarkupRune writes r to markup as the character it is: a
// backslash or brace escaped, a control character as a space (see
// writeTextRune), as drawing.PlainMarkup writes it.
func writeMarkupRune(b *strings.Builder, r rune) {
	if r == '\\' || r == '{' || r == '}' {
		b.WriteByte('\\')
	}
	writeTextRune(b, r)
}

// dimension reads a DIMENSION; why says what keeps it out. Its scale is
// its DIMSCALE, and what it is drawn in without a block of its own its
// style's with its overrides (see File.dimStyleOf).
func (r dxfRecord) dimension(c dxfCommon, f *File) (drawing.Geometry, string, error) {
	v, err := r.values(10, 20, 13, 23, 14, 24, 15, 25, 16, 26, 40, 50, 70)
	if err != nil {
		return nil, "", err
	}
	if _, ok := c.ocs(); !ok {
		return nil, "3D", nil
	}
	g := drawing.Dimension{Style: "Standard", Scale: 1}
	style := ""
	for _, p := range r.pairs {
		switch p.code {
		case 1:
			g.Text = decodeDXFText(p.value)
		case 3:
			style = strings.TrimSpace(p.value)
		}
	}
	if style != "" {
		g.Style = style
	}
	over := r.dstyle()
	f.dimLayers(g.Style, over).size(dimScale, &g.Scale)
	g.Own = f.dimStyleOf(g.Style, over)
	if g.Text == "<>" {
		g.Text = ""
	}
	pt := func(code int) geom.Vec { return geom.Pt(v[code], v[code+10]) }
	def := pt(10)
	switch int(v[70]) & 7 {
	case 0, 1:
		g.Type = enginev1.DimensionKind_DIMENSION_KIND_ALIGNED
		g.P1, g.P2 = pt(13), pt(14)
		u := g.P2.Sub(g.P1).Unit()
		if int(v[70])&7 == 0 {
			g.Type, g.Angle = enginev1.DimensionKind_DIMENSION_KIND_ROTATED, geom.NormDeg(v[50])
			s, cs := geom.SinCosDeg(g.Angle)
			u = geom.Pt(cs, s)
		}
		if g.P1.Same(g.P2) {
			return nil, "degenerate", nil
		}
		g.Offset = def.Sub(g.P1).Dot(u.Perp())
	case 3:
		g.Type = enginev1.DimensionKind_DIMENSION_KIND_DIAMETRIC
		far := pt(15)
		g.Center, g.Radius = def.Mid(far), def.Dist(far)/2
		g.Angle = geom.NormDeg(geom.Deg(far.Sub(g.Center).Angle()))
	case 4:
		g.Type = enginev1.DimensionKind_DIMENSION_KIND_RADIAL
		g.Center = def
		g.Radius = pt(15).Dist(def)
		g.Angle = geom.NormDeg(geom.Deg(pt(15).Sub(def).Angle()))
	case 5:
		g.Type = enginev1.DimensionKind_DIMENSION_KIND_ANGULAR
		g.P1, g.P2, g.Center = pt(13), pt(14), pt(15)
		g.Offset = def.Dist(g.Center)
	case 2:
		g.Type = enginev1.DimensionKind_DIMENSION_KIND_ANGULAR
		l1 := drawing.Line{A: pt(13), B: pt(14)}
		l2 := drawing.Line{A: pt(15), B: def}
		x, ok := drawing.LineCrossing(l1, l2)
		if !ok {
			return nil, "degenerate", nil
		}
		far := func(l drawing.Line) geom.Vec {
			if l.B.Dist(x) > l.A.Dist(x) {
				return l.B
			}
			return l.A
		}
		g.Center, g.P1, g.P2 = x, far(l1), far(l2)
		g.Offset = pt(16).Dist(x)
		// The sector holds the arc's point: from the ray before it to the
		// one after it, counter-clockwise.
		a := geom.Deg(pt(16).Sub(x).Angle())
		a1, a2 := geom.Deg(g.P1.Sub(x).Angle()), geom.Deg(g.P2.Sub(x).Angle())
		if geom.SweepDeg(a1, a) > geom.SweepDeg(a1, a2) {
			g.P1, g.P2 = g.P2, g.P1
		}
	default:
		return nil, "ordinate", nil
	}
	if (g.Type == enginev1.DimensionKind_DIMENSION_KIND_RADIAL || g.Type == enginev1.DimensionKind_DIMENSION_KIND_DIAMETRIC) && !(g.Radius > 0) {
		return nil, "degenerate", nil
	}
	if g.Type == enginev1.DimensionKind_DIMENSION_KIND_ANGULAR && (g.P1.Same(g.Center) || g.P2.Same(g.Center)) {
		return nil, "degenerate", nil
	}
	return g, "", nil
}

// drawnBlockAt are the types drawn as a block they name (what the program
// that wrote them drew), by the code of the point the block is placed at,
// as ezdxf places it: a dimension's 12 (usually absent: the origin), a
// table's insertion point 10.
var drawnBlockAt = map[string]int{"DIMENSION": 12, "ARC_DIMENSION": 12, "LARGE_RADIAL_DIMENSION": 12, "ACAD_TABLE": 10}

// namedBlock is the first block name (2) of the record and the first
// point of the code at (and at+10) after it.
func (r dxfRecord) namedBlock(at int) (string, geom.Vec) {
	name, i := "", 0
	for ; i < len(r.pairs) && name == ""; i++ {
		if r.pairs[i].code == 2 {
			name = strings.TrimSpace(r.pairs[i].value)
		}
	}
	var p geom.Vec
	var x, y bool
	for ; i < len(r.pairs) && !(x && y); i++ {
		v, err := r.pairs[i].float()
		switch {
		case err != nil:
		case r.pairs[i].code == at && !x:
			p.X, x = v, true
		case r.pairs[i].code == at+10 && !y:
			p.Y, y = v, true
		}
	}
	return name, p
}

// hatch reads a HATCH; why says what keeps it out.
func (r dxfRecord) hatch(c dxfCommon) (drawing.Geometry, string, error) {
	if _, ok := c.ocs(); !ok {
		return nil, "3D", nil
	}
	g := drawing.Hatch{Scale: 1}
	ps := r.pairs
	i := 0
	num := func() (float64, error) { return ps[i].float() }
	var lines []drawing.PatternLine // as the file has them: scaled and turned
	inLines := false
	for ; i < len(ps); i++ {
		if c := ps[i].code; inLines && (c == 53 || c >= 43 && c <= 46 || c == 49) {
			v, err := num()
			if err != nil {
				return nil, "", err
			}
			if c == 53 {
				lines = append(lines, drawing.PatternLine{Angle: v})
				continue
			}
			if len(lines) == 0 {
				continue
			}
			l := &lines[len(lines)-1]
			switch c {
			case 43:
				l.Origin.X = v
			case 44:
				l.Origin.Y = v
			case 45:
				l.Delta.X = v
			case 46:
				l.Delta.Y = v
			case 49:
				l.Dashes = append(l.Dashes, v)
			}
			continue
		}
		switch ps[i].code {
		case 78:
			inLines = true
		case 2:
			g.Pattern = strings.ToUpper(strings.TrimSpace(ps[i].value))
		case 70:
			n, err := ps[i].int()
			if err != nil {
				return nil, "", err
			}
			if n&1 != 0 {
				g.Pattern = "SOLID"
			}
		case 91:
			i++
			loops, why, err := readPaths(ps, &i)
			if err != nil || why != "" {
				return nil, why, err
			}
			g.Loops = loops
			i--
		case 41:
			s, err := num()
			if err != nil {
				return nil, "", err
			}
			if s > 0 {
				g.Scale = s
			}
		case 52:
			a, err := num()
			if err != nil {
				return nil, "", err
			}
			g.Angle = geom.NormDeg(a)
		}
	}
	if p, ok := drawing.CanonicalPattern(g.Pattern); ok {
		g.Pattern = p
	} else {
		if len(lines) == 0 || g.Pattern == "" {
			return nil, "pattern " + g.Pattern, nil
		}
		g.Lines = patternOf(lines, g.Scale, g.Angle)
		if g.CheckDensity() != nil {
			return nil, "pattern " + g.Pattern, nil
		}
	}
	if len(g.Loops) == 0 {
		return nil, "degenerate", nil
	}
	if g.Gradient = gradientOf(ps); g.Gradient != nil {
		g.Pattern, g.Lines = "SOLID", nil
	}
	return g, "", nil
}

// readPaths reads HATCH boundary paths from *i on (just after 91) up to
// the hatch style (75).
func readPaths(ps []dxfPair, i *int) ([]drawing.Loop, string, error) {
	var loops []drawing.Loop
	for *i < len(ps) && ps[*i].code != 75 {
		if ps[*i].code != 92 {
			*i++
			continue
		}
		flags, err := ps[*i].int()
		if err != nil {
			return nil, "", err
		}
		*i++
		var l drawing.Loop
		var why string
		if flags&2 != 0 {
			l, err = readPolylinePath(ps, i)
		} else {
			l, why, err = readEdgePath(ps, i)
		}
		if err != nil || why != "" {
			return nil, why, err
		}
		loops = append(loops, l)
	}
	return loops, "", nil
}

// readPolylinePath reads a polyline boundary path (72 bulges, 73 closed,
// 93 count, then 10/20/42).
func readPolylinePath(ps []dxfPair, i *int) (drawing.Loop, error) {
	var vs []geom.Vertex
	for ; *i < len(ps); *i++ {
		p := ps[*i]
		switch p.code {
		case 10, 20, 42:
			var err error
			if vs, err = addVertexPair(vs, p); err != nil {
				return drawing.Loop{}, err
			}
		case 72, 73, 93:
		default:
			return drawing.Loop{Poly: geom.Polyline{V: vs, Closed: true}}, nil
		}
	}
	return drawing.Loop{Poly: geom.Polyline{V: vs, Closed: true}}, nil
}

// readEdgePath reads an edge boundary path (93 edges, each 72 type:
// 1 line, 2 circular arc, 3 elliptic arc, 4 spline): lines and arcs
// become a polyline, one whole ellipse an ellipse loop.
func readEdgePath(ps []dxfPair, i *int) (drawing.Loop, string, error) {
	var vs []geom.Vertex
	var ell *geom.EllipseArc
	edges := 0
	for *i < len(ps) {
		p := ps[*i]
		if p.code == 93 {
			*i++
			continue
		}
		if p.code != 72 {
			break
		}
		kind, err := p.int()
		if err != nil {
			return drawing.Loop{}, "", err
		}
		*i++
		vals := map[int]float64{}
		for *i < len(ps) && ps[*i].code != 72 && ps[*i].code != 97 && ps[*i].code != 92 && ps[*i].code != 75 {
			v, err := ps[*i].float()
			if err != nil {
				return drawing.Loop{}, "", err
			}
			if _, seen := vals[ps[*i].code]; !seen {
				vals[ps[*i].code] = v
			}
			*i++
		}
		edges++
		switch kind {
		case 1:
			vs = append(vs, geom.Vertex{P: geom.Pt(vals[10], vals[20])})
		case 2:
			cen, r := geom.Pt(vals[10], vals[20]), vals[40]
			s, e := vals[50], vals[51]
			ccw := vals[73] != 0
			if !ccw {
				s, e = -s, -e
			}
			sweep := geom.SweepDeg(s, e)
			if math.Abs(e-s) >= 360-1e-9 || sweep == 0 {
				// A whole circle: two half-circle bulges.
				vs = append(vs, geom.Vertex{P: cen.Add(geom.Pt(r, 0)), Bulge: 1}, geom.Vertex{P: cen.Sub(geom.Pt(r, 0)), Bulge: 1})
				continue
			}
			b := math.Tan(geom.Rad(sweep) / 4)
			if !ccw {
				sweep = geom.SweepDeg(e, s)
				b = -math.Tan(geom.Rad(sweep) / 4)
			}
			ss, sc := geom.SinCosDeg(s)
			vs = append(vs, geom.Vertex{P: cen.Add(geom.Pt(sc, ss).Mul(r)), Bulge: b})
		case 3:
			e := geom.EllipseArc{C: geom.Pt(vals[10], vals[20]), Major: geom.Pt(vals[11], vals[21]), Ratio: vals[40], Sweep: 2 * math.Pi}
			if math.Abs(vals[51]-vals[50]) < 360-1e-9 {
				return drawing.Loop{}, "elliptic arc boundary", nil
			}
			ell = &e
		default:
			return drawing.Loop{}, "spline boundary", nil
		}
	}
	for *i < len(ps) && ps[*i].code == 97 {
		n, _ := ps[*i].int()
		*i += 1 + int(max(0, n))
	}
	switch {
	case ell != nil && edges == 1:
		if ell.Major.Len() == 0 || !(ell.Ratio > 0 && ell.Ratio <= 1) {
			return drawing.Loop{}, "degenerate", nil
		}
		return drawing.Loop{Ellipse: true, E: *ell}, "", nil
	case ell != nil:
		return drawing.Loop{}, "elliptic arc boundary", nil
	case len(vs) < 2:
		return drawing.Loop{}, "degenerate", nil
	}
	return drawing.Loop{Poly: geom.Polyline{V: vs, Closed: true}}, "", nil
}

// patternOf undoes what a file did to a pattern's lines, which it stores
// scaled and turned with the hatch: lines at scale 1 and angle 0 (see
// dxfWriter.hatch, which does it).
func patternOf(lines []drawing.PatternLine, scale, angle float64) []drawing.PatternLine {
	turn := func(v geom.Vec, deg float64) geom.Vec {
		s, c := geom.SinCosDeg(deg)
		return geom.Pt(c*v.X-s*v.Y, s*v.X+c*v.Y)
	}
	out := make([]drawing.PatternLine, len(lines))
	for i, l := range lines {
		o := drawing.PatternLine{Angle: geom.NormDeg(l.Angle - angle)}
		o.Origin = turn(l.Origin, -angle).Mul(1 / scale)
		o.Delta = turn(l.Delta, -l.Angle).Mul(1 / scale)
		for _, d := range l.Dashes {
			o.Dashes = append(o.Dashes, d/scale)
		}
		out[i] = o
	}
	return out
}
