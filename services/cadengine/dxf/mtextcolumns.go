package dxf

import (
	"slices"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// MTEXT columns, read and written.
//
// R2018 writes an MTEXT's columns after "101 Embedded Object": 71 the
// type (1 static, 2 dynamic), 72 the count (0 for dynamic columns of
// automatic height), 44 the columns' width, 45 the gutter, 41 the
// height of static and automatic-height columns, 73 automatic height,
// 74 reversed flow, 46 each column's height (manual heights). Before
// R2018 the same is in the extended data of ACAD: between
// ACAD_MTEXT_COLUMN_INFO_BEGIN and _END pairs of a 1070 code (75 type,
// 79 auto height, 76 count, 78 reversed, 48 width, 49 gutter, 50 the
// heights' count followed by that many 1040s) and its value; the
// height in ACAD_MTEXT_DEFINED_HEIGHT (or 46); each further column an
// MTEXT of its own, its handle in ACAD_MTEXT_COLUMNS; and the columns'
// frames, for programs that do not know columns, LWPOLYLINEs named in
// ACAD_MTEXT_TEXT_BORDERS. The reader joins the further columns' text
// to the first's and leaves them and the frames out (the MTEXT draws
// its columns and their frames itself), as ezdxf does.

// mtextColumns are the columns an MTEXT record gives, nil when none.
func (r dxfRecord) mtextColumns() *drawing.Columns {
	if i := slices.IndexFunc(r.pairs, func(p dxfPair) bool { return p.code == 101 }); i >= 0 {
		return embeddedColumns(r.pairs[i+1:])
	}
	info := acadXdata(r.pairs, "ACAD_MTEXT_COLUMN_INFO")
	if info == nil {
		return nil
	}
	c := &drawing.Columns{}
	var heights int
	for i := 0; i+1 < len(info); i += 2 {
		code, err := info[i].int()
		if err != nil {
			return nil
		}
		v := info[i+1]
		f, _ := v.float()
		switch code {
		case 75:
			c.Dynamic = int(f) == 2
		case 79:
			c.AutoHeight = f != 0
		case 76:
			c.Count = int(max(0, min(f, 1<<16)))
		case 78:
			c.Reversed = f != 0
		case 48:
			c.Width = f
		case 49:
			c.Gutter = f
		case 50:
			heights = int(max(0, min(f, float64(len(info)))))
			for j := 0; j < heights && i+2 < len(info); j++ {
				i++
				h, _ := info[i+1].float()
				c.Heights = append(c.Heights, h)
			}
		}
	}
	if h := acadXdata(r.pairs, "ACAD_MTEXT_DEFINED_HEIGHT"); len(h) >= 2 {
		c.Height, _ = h[1].float()
	} else if v, err := r.values(46); err == nil {
		c.Height = v[46]
	}
	return c
}

// embeddedColumns reads the columns of an R2018 embedded object.
func embeddedColumns(pairs []dxfPair) *drawing.Columns {
	c := &drawing.Columns{}
	for _, p := range pairs {
		f, err := p.float()
		if err != nil {
			continue
		}
		switch p.code {
		case 71:
			c.Dynamic = int(f) == 2
		case 72:
			c.Count = int(max(0, min(f, 1<<16)))
		case 73:
			c.AutoHeight = f != 0
		case 74:
			c.Reversed = f != 0
		case 44:
			c.Width = f
		case 45:
			c.Gutter = f
		case 41:
			c.Height = f
		case 46:
			c.Heights = append(c.Heights, f)
		}
	}
	return c
}

// acadXdata is what the extended data of ACAD holds between name_BEGIN
// and name_END (the pairs after 1000 name_BEGIN), nil when it has none.
func acadXdata(pairs []dxfPair, name string) []dxfPair {
	app := ""
	start := -1
	for i, p := range pairs {
		switch {
		case p.code == 1001:
			app = p.word()
		case app != "ACAD" || p.code != 1000:
		case p.word() == name+"_BEGIN":
			start = i + 1
		case p.word() == name+"_END" && start >= 0:
			return pairs[start:i]
		}
	}
	return nil
}

// acadHandles are the handles (1005) between name_BEGIN and name_END.
func acadHandles(pairs []dxfPair, name string) []uint64 {
	var out []uint64
	for _, p := range acadXdata(pairs, name) {
		if p.code == 1005 {
			if h := hexHandle(p.value); h != 0 {
				out = append(out, h)
			}
		}
	}
	return out
}

// joinMTextColumns joins to each MTEXT of columns the text of the MTEXTs
// that hold its further columns (before R2018), and leaves those and its
// frames out of entities, counting them as dropped.
func (f *File) joinMTextColumns(entities []dxfEntity) []dxfEntity {
	at := map[uint64]int{}
	gone := map[uint64]string{}
	for i, fe := range entities {
		if fe.handle != 0 {
			at[fe.handle] = i
		}
		if fe.ref == nil {
			continue
		}
		for _, h := range fe.ref.mtextBorders {
			gone[h] = "a frame of an MTEXT's column (the MTEXT draws it)"
		}
	}
	for i := range entities {
		fe := &entities[i]
		g, ok := fe.geom.(drawing.MText)
		if !ok || fe.ref == nil || len(fe.ref.mtextColumns) == 0 {
			continue
		}
		for _, h := range fe.ref.mtextColumns {
			j, ok := at[h]
			if !ok || entities[j].kind != "MTEXT" || j == i {
				continue
			}
			switch o := entities[j]; {
			case o.ref != nil && o.ref.columnText != "":
				g = joinMText(g, o.ref.columnText, o.ref.columnMarkup)
			default:
				if t, ok := o.geom.(drawing.MText); ok {
					g = joinMText(g, t.Text, t.Markup)
				}
			}
			gone[h] = "a further column of an MTEXT (joined to it)"
		}
		fe.geom = g
	}
	if len(gone) == 0 {
		return entities
	}
	return slices.DeleteFunc(entities, func(fe dxfEntity) bool {
		why, ok := gone[fe.handle]
		if ok && fe.handle != 0 {
			f.rep.drop(fe.kind, why, true)
		}
		return ok && fe.handle != 0
	})
}

// joinMText is g with a further column's text (and its markup, "" for
// none) after its own.
func joinMText(g drawing.MText, text, markup string) drawing.MText {
	if g.Markup != "" || markup != "" {
		g.Markup = g.FullMarkup() + drawing.MText{Text: text, Markup: markup}.FullMarkup()
	}
	g.Text += text
	return g
}

// mtextRefs notes in fe an MTEXT's further columns and frames (before
// R2018), and its text with its column breaks when it has some and no
// columns of its own (it may be a further column).
func (r dxfRecord) mtextRefs(fe *dxfEntity) {
	if cols := acadHandles(r.pairs, "ACAD_MTEXT_COLUMNS"); len(cols) > 0 {
		fe.refs().mtextColumns = cols
	}
	if borders := acadHandles(r.pairs, "ACAD_MTEXT_TEXT_BORDERS"); len(borders) > 0 {
		fe.refs().mtextBorders = borders
	}
	g, ok := fe.geom.(drawing.MText)
	if ok && g.Columns != nil {
		return
	}
	var b strings.Builder
	var last string
	for _, p := range r.pairs {
		switch p.code {
		case 3:
			b.WriteString(p.value)
		case 1:
			last = p.value
		}
	}
	b.WriteString(last)
	if strings.Contains(b.String(), `\N`) {
		fe.refs().columnText, fe.refs().columnMarkup = decodeMText(b.String(), true)
	}
}

// mtextColumns writes an MTEXT's columns as R2018 does, after "101
// Embedded Object" (see the top of this file); none writes nothing.
func (w *dxfWriter) mtextColumns(g drawing.MText) {
	c := g.Columns
	if c == nil {
		return
	}
	n := len(c.Heights)
	if !c.Dynamic || c.AutoHeight {
		n = max(1, c.Count)
	}
	width := c.Width
	if !(width > 0) {
		width = g.Width
	}
	total := float64(n)*width + float64(n-1)*c.Gutter
	height := c.Height
	for _, h := range c.Heights {
		height = max(height, h)
	}
	s, co := geom.SinCosDeg(g.Rotation)
	w.pair(101, "Embedded Object")
	w.int(70, 1)
	w.Point(10, geom.Pt(co, s))
	w.Point(11, g.P)
	w.float(40, g.Width)
	w.float(41, c.Height)
	w.float(42, total)
	w.float(43, height)
	w.int(71, 1+b2i(c.Dynamic))
	count := n
	if c.Dynamic && c.AutoHeight {
		count = 0
	}
	w.int(72, count)
	w.float(44, width)
	w.float(45, c.Gutter)
	w.int(73, b2i(c.AutoHeight))
	w.int(74, b2i(c.Reversed))
	if c.Dynamic && !c.AutoHeight {
		for _, h := range c.Heights {
			w.float(46, h)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
