package dxf

import (
	"cmp"
	"math"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// ACAD_TABLE, read into a native drawing.Table (its grid and its text
// cells; what its writer drew, its anonymous *T block, kept as Drawn by
// the block pass, as a dimension's) and written back as one, with a *T
// block of what it draws. R12, which has none, gets what it draws.

// table reads an ACAD_TABLE's AcDbTable data as AutoCAD writes it:
// insertion 10 (the top-left corner), direction 11, then after the
// subclass marker 90 flags, 91 rows, 92 columns, 141 each row's height,
// 142 each column's width, then each cell row by row from its 171 (cell
// type: 1 text, 2 block): 173 merged into another (1), 175 and 176 the
// columns and rows it spans, 140 its text height, and its text (R2007+:
// 1 in its CELL_VALUE, else 302; R2000: 1, longer texts in 2 or 3
// chunks before it). A cell without a text height gets half its first
// row's height (as entity_create_table's default). why says what keeps
// it preserved.
func (r dxfRecord) table(c dxfCommon) (drawing.Geometry, string, error) {
	if _, ok := c.ocs(); !ok {
		return nil, "3D (its extrusion direction is not ±Z)", nil
	}
	start := -1
	for i, p := range r.pairs {
		if p.code == 100 && p.word() == "AcDbTable" {
			start = i
		}
	}
	if start < 0 {
		return nil, "no AcDbTable data (the engine reads tables as AutoCAD writes them)", nil
	}
	v, err := r.values(10, 20, 11, 21)
	if err != nil {
		return nil, "", err
	}
	g := drawing.Table{P: geom.Pt(v[10], v[20])}
	if v[11] != 0 || v[21] != 0 {
		g.Rotation = geom.NormDeg(geom.Deg(math.Atan2(v[21], v[11])))
	}
	ps := r.pairs[start+1:]
	rows, cols, i := -1, -1, 0
	for ; i < len(ps) && ps[i].code != 171; i++ {
		p := ps[i]
		switch p.code {
		case 91, 92:
			n, err := p.int()
			if err != nil {
				return nil, "", err
			}
			if p.code == 91 && rows < 0 {
				rows = int(n)
			} else if p.code == 92 && cols < 0 {
				cols = int(n)
			}
		case 141, 142:
			x, err := p.float()
			if err != nil {
				return nil, "", err
			}
			if p.code == 141 {
				g.Rows = append(g.Rows, x)
			} else {
				g.Columns = append(g.Columns, x)
			}
		}
	}
	if rows <= 0 || cols <= 0 || len(g.Rows) != rows || len(g.Columns) != cols || rows*cols > 1<<20 {
		return nil, "its rows' and columns' sizes are not as AutoCAD writes them", nil
	}
	var cur *tableCell
	var cells []tableCell
	for ; i < len(ps); i++ {
		p := ps[i]
		if p.code == 1001 || p.code == 100 {
			break // extended data, or a further subclass
		}
		if p.code == 171 {
			cells = append(cells, tableCell{kind: p.word(), span: [2]int{1, 1}})
			cur = &cells[len(cells)-1]
			continue
		}
		cur.set(p)
	}
	if len(cells) != rows*cols {
		return nil, "its cells are not as AutoCAD writes them (one per row and column)", nil
	}
	for n, tc := range cells {
		if tc.kind == "2" {
			return nil, "a cell holds a block (the engine keeps text cells only)", nil
		}
		if tc.merged || tc.text() == "" {
			continue
		}
		row, col := n/cols, n%cols
		h := tc.height
		if !(h > 0) {
			h = g.Rows[row] / 2
		}
		g.Cells = append(g.Cells, drawing.TableCell{
			Row: row, Column: col, Text: tc.text(), Height: h,
			RowSpan: min(max(1, tc.span[0]), rows-row), ColumnSpan: min(max(1, tc.span[1]), cols-col),
		})
	}
	if err := g.Check(); err != nil {
		return nil, "unusable: " + err.Error(), nil
	}
	return g, "", nil
}

// tableCell is one cell of an ACAD_TABLE as read.
type tableCell struct {
	kind          string // 171: 1 text, 2 block
	merged        bool   // 173: covered by another cell's span
	span          [2]int // 176 rows, 175 columns
	height        float64
	value, chunks string // 1, and 2 or 3 before it
	formatted     string // 302
	value1        bool   // value is read
}

// set applies one pair of the cell's data.
func (c *tableCell) set(p dxfPair) {
	switch p.code {
	case 173:
		c.merged = p.word() == "1"
	case 175, 176:
		if n, err := p.int(); err == nil && n > 0 && n < 1<<20 {
			c.span[176-p.code] = int(n)
		}
	case 140:
		if x, err := p.float(); err == nil {
			c.height = x
		}
	case 2, 3:
		c.chunks += p.value
	case 1:
		if !c.value1 {
			c.value, c.value1 = c.chunks+p.value, true
		}
	case 302:
		c.formatted += p.value
	}
}

// text is the cell's text: its value, else its formatted string.
func (c tableCell) text() string {
	return strings.TrimSpace(cmp.Or(c.value, c.formatted))
}

// tableEntity writes an ACAD_TABLE (2018): its anonymous *T block (see plan)
// holding what it draws, its insertion and direction, its rows' heights
// and columns' widths, and each cell (text cells, merged ones spanning),
// as AutoCAD writes R2007+ tables. R12 gets what it draws.
func (w *dxfWriter) tableEntity(e *drawing.Entity, g drawing.Table) {
	if !w.v2018 {
		w.pictureAs(g.Picture(), e)
		return
	}
	w.common("ACAD_TABLE", e.Handle, e)
	w.sub("AcDbBlockReference")
	w.pair(2, w.anon[e.Handle])
	w.Point(10, g.P)
	w.sub("AcDbTable")
	w.int(280, 0)
	s, c := geom.SinCosDeg(g.Rotation)
	w.Point(11, geom.Pt(c, s))
	w.int(90, 22)
	w.int(91, len(g.Rows))
	w.int(92, len(g.Columns))
	for code := 93; code <= 96; code++ {
		w.int(code, 0)
	}
	for _, h := range g.Rows {
		w.float(141, h)
	}
	for _, x := range g.Columns {
		w.float(142, x)
	}
	nc := len(g.Columns)
	at := map[int]drawing.TableCell{}
	covered := map[int]bool{}
	for _, tc := range g.Cells {
		at[tc.Row*nc+tc.Column] = tc
		for r := tc.Row; r < tc.Row+tc.RowSpan; r++ {
			for k := tc.Column; k < tc.Column+tc.ColumnSpan; k++ {
				covered[r*nc+k] = r != tc.Row || k != tc.Column
			}
		}
	}
	for n := 0; n < len(g.Rows)*nc; n++ {
		tc, ok := at[n]
		if !ok {
			tc = drawing.TableCell{RowSpan: 1, ColumnSpan: 1}
		}
		w.int(171, 1)
		w.int(172, 0)
		merged := 0
		if covered[n] {
			merged = 1
		}
		w.int(173, merged)
		w.int(174, 0)
		w.int(175, tc.ColumnSpan)
		w.int(176, tc.RowSpan)
		flags := 0
		if ok {
			flags = 1 << 3 // the text height is the cell's own
		}
		w.int(91, flags)
		w.int(178, 0)
		w.float(145, 0)
		if ok {
			w.float(140, tc.Height)
		}
		w.int(92, 0)
		w.pair(301, "CELL_VALUE")
		if ok {
			w.int(93, 2)
			w.int(90, 4)
			w.pair(1, tc.Text)
			w.int(94, 0)
			w.pair(300, "")
			w.pair(302, tc.Text)
		} else {
			w.int(93, 3)
			w.int(90, 0)
			w.int(91, 0)
			w.int(94, 0)
			w.pair(300, "")
			w.pair(302, "")
		}
		w.pair(304, "ACVALUE_END")
	}
}
