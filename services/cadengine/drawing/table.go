package drawing

import (
	"errors"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Table is a table (DXF's ACAD_TABLE): a grid of rows, Rows their
// heights top down, and columns, Columns their widths left to right, its
// top-left corner at P, its rows running along Rotation degrees; Cells
// are the cells that have text, each centred in its cell.
//
// Drawn, when set, is what the program that wrote the table drew (its
// anonymous block, read from a file), as Dimension.Drawn: the table is
// drawn as that; it moves, turns and scales with the table, and a
// reflection draws it afresh from its cells.
type Table struct {
	P        geom.Vec
	Rotation float64 // degrees, in [0, 360)
	Rows     []float64
	Columns  []float64
	Cells    []TableCell
	Drawn    *Picture
}

// TableCell is a cell of a table and its text, Height tall; a merged
// cell spans RowSpan rows and ColumnSpan columns from (Row, Column).
type TableCell struct {
	Row, Column         int
	RowSpan, ColumnSpan int // 1 unless merged
	Text                string
	Height              float64
}

// maxTableGrid is the most cells (rows × columns) a table may have.
const maxTableGrid = 1 << 20

// Check says what makes the table unusable: no rows or columns, a size
// that is not positive, a cell outside the grid or overlapping another,
// a text height that is not positive.
func (g Table) Check() error {
	if len(g.Rows) == 0 || len(g.Columns) == 0 || len(g.Rows)*len(g.Columns) > maxTableGrid {
		return errors.New("a table needs at least one row and one column, and at most 2^20 cells")
	}
	for _, s := range append(append([]float64(nil), g.Rows...), g.Columns...) {
		if !(s > 0) || !geom.IsFinite(s) {
			return errors.New("a table's rows' heights and columns' widths must be positive")
		}
	}
	taken := map[[2]int]bool{}
	for _, c := range g.Cells {
		if !g.inGrid(c) {
			return errors.New("a table's cell lies outside its grid")
		}
		if !(c.Height > 0) || !geom.IsFinite(c.Height) {
			return errors.New("a table's cell text height must be positive")
		}
		for r := c.Row; r < c.Row+c.RowSpan; r++ {
			for k := c.Column; k < c.Column+c.ColumnSpan; k++ {
				if taken[[2]int{r, k}] {
					return errors.New("a table's cells overlap")
				}
				taken[[2]int{r, k}] = true
			}
		}
	}
	return nil
}

// Kind implements [Geometry].
func (Table) Kind() enginev1.EntityType { return enginev1.EntityType_ENTITY_TYPE_TABLE }

// edges are the grid's row and column lines' offsets: ys[r] how far the
// r-th row line lies below the top, xs[k] the k-th column line right of
// the left edge.
func (g Table) edges() (xs, ys []float64) {
	xs, ys = make([]float64, len(g.Columns)+1), make([]float64, len(g.Rows)+1)
	for k, w := range g.Columns {
		xs[k+1] = xs[k] + w
	}
	for r, h := range g.Rows {
		ys[r+1] = ys[r] + h
	}
	return xs, ys
}

// frame maps a point of the table's own coordinates (x right of its
// left edge, y below its top) to the world.
func (g Table) frame(x, y float64) geom.Vec {
	s, c := geom.SinCosDeg(g.Rotation)
	return g.P.Add(geom.Pt(c*x+s*y, s*x-c*y))
}

// Prims implements [Geometry]: the grid's lines, each row and column
// line as one segment where it runs unbroken, left out inside merged
// cells.
func (g Table) Prims() []any {
	xs, ys := g.edges()
	nr, nc := len(g.Rows), len(g.Columns)
	// merged[r][k] names the merged cell that covers (r, k), +1; 0 none.
	merged := make([]int, nr*nc)
	for i, c := range g.Cells {
		if c.RowSpan == 1 && c.ColumnSpan == 1 || !g.inGrid(c) {
			continue
		}
		for r := c.Row; r < c.Row+c.RowSpan; r++ {
			for k := c.Column; k < c.Column+c.ColumnSpan; k++ {
				merged[r*nc+k] = i + 1
			}
		}
	}
	inside := func(r1, k1, r2, k2 int) bool { // the two grid cells are one merged cell
		m := merged[r1*nc+k1]
		return m != 0 && m == merged[r2*nc+k2]
	}
	var out []any
	// run starts a line at a when on, or ends the open one there.
	run := func(a geom.Vec, on bool, start *geom.Vec, open *bool) {
		switch {
		case on && !*open:
			*start, *open = a, true
		case !on && *open:
			out = append(out, geom.Segment{A: *start, B: a})
			*open = false
		}
	}
	for r := 0; r <= nr; r++ {
		var start geom.Vec
		open := false
		for k := 0; k < nc; k++ {
			on := r == 0 || r == nr || !inside(r-1, k, r, k)
			run(g.frame(xs[k], ys[r]), on, &start, &open)
		}
		run(g.frame(xs[nc], ys[r]), false, &start, &open)
	}
	for k := 0; k <= nc; k++ {
		var start geom.Vec
		open := false
		for r := 0; r < nr; r++ {
			on := k == 0 || k == nc || !inside(r, k-1, r, k)
			run(g.frame(xs[k], ys[r]), on, &start, &open)
		}
		run(g.frame(xs[k], ys[nr]), false, &start, &open)
	}
	return out
}

// inGrid says whether the cell lies in the grid.
func (g Table) inGrid(c TableCell) bool {
	return c.Row >= 0 && c.Column >= 0 && c.RowSpan >= 1 && c.ColumnSpan >= 1 &&
		c.Row+c.RowSpan <= len(g.Rows) && c.Column+c.ColumnSpan <= len(g.Columns)
}

// CellTexts are the cells' texts as drawn: each centred in its cell
// (merged cells' too), along the table.
func (g Table) CellTexts() []Text {
	xs, ys := g.edges()
	var out []Text
	for _, c := range g.Cells {
		s := strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(c.Text, `\P`, " "), "\n", " "))
		if s == "" || !g.inGrid(c) {
			continue
		}
		x := (xs[c.Column] + xs[c.Column+c.ColumnSpan]) / 2
		y := (ys[c.Row] + ys[c.Row+c.RowSpan]) / 2
		out = append(out, Text{Text: s, P: g.frame(x, y), Height: c.Height, Rotation: g.Rotation, Align: Align{H: AlignCenter, V: AlignMiddle}})
	}
	return out
}

// Picture implements [Pictured]: what its writer drew (Drawn), or its
// grid and its cells' texts.
func (g Table) Picture() Picture {
	if g.Drawn != nil {
		return g.Drawn.shared()
	}
	return Picture{Strokes: g.Prims(), Texts: g.CellTexts()}
}

// corners are the table's outer corners: top-left, top-right,
// bottom-right, bottom-left.
func (g Table) corners() [4]geom.Vec {
	xs, ys := g.edges()
	w, h := xs[len(xs)-1], ys[len(ys)-1]
	return [4]geom.Vec{g.frame(0, 0), g.frame(w, 0), g.frame(w, h), g.frame(0, h)}
}

// Bounds implements [Geometry]: its grid's corners, and what its writer
// drew.
func (g Table) Bounds() geom.Box {
	c := g.corners()
	out := boxOf(c[:])
	if g.Drawn != nil {
		out.AddBox(g.Drawn.Bounds())
	}
	return out
}

// Finite implements [Geometry].
func (g Table) Finite() bool {
	if !g.P.Finite() || !geom.IsFinite(g.Rotation) {
		return false
	}
	for _, s := range append(append([]float64(nil), g.Rows...), g.Columns...) {
		if !geom.IsFinite(s) {
			return false
		}
	}
	for _, c := range g.Cells {
		if !geom.IsFinite(c.Height) {
			return false
		}
	}
	return g.Drawn == nil || g.Drawn.finite()
}

// Transformed implements [Geometry]: the corner mapped, sizes and text
// heights scaled, turned with the map. A reflection keeps it readable:
// its top-left corner is then where the top-right one goes, its columns
// in reverse order (each cell where it was), drawn afresh.
func (g Table) Transformed(x geom.Xform) Geometry {
	out := g
	out.Drawn = g.Drawn.placed(x.Affine())
	out.Rows, out.Columns = scaled(g.Rows, x.Scale), scaled(g.Columns, x.Scale)
	out.Cells = append([]TableCell(nil), g.Cells...)
	for i := range out.Cells {
		out.Cells[i].Height *= x.Scale
	}
	out.P, out.Rotation = x.Point(g.P), x.Direction(g.Rotation)
	if x.Mirror {
		c := g.corners()
		out.P, out.Rotation = x.Point(c[1]), geom.NormDeg(out.Rotation+180)
		n := len(g.Columns)
		for i, w := range scaled(g.Columns, x.Scale) {
			out.Columns[n-1-i] = w
		}
		for i, c := range out.Cells {
			out.Cells[i].Column = n - c.Column - c.ColumnSpan
		}
	}
	return out
}

// scaled is s with every value times k.
func scaled(s []float64, k float64) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = v * k
	}
	return out
}

// Affined implements [Geometry]: the nearest similarity at its corner,
// as Text's; what its writer drew (Drawn) mapped by m.
func (g Table) Affined(m geom.Affine) Geometry {
	out := g.Transformed(m.Nearest(g.P)).(Table)
	out.Drawn = g.Drawn.placed(m)
	return out
}

// encodeTo writes: p, rotation, the rows' heights and the columns'
// widths (each a count, then the values), the cells (a count, then each
// row, column, row span, column span, text, height), what its writer
// drew.
func (g Table) encodeTo(w *encoder) {
	w.vec(g.P)
	w.float(g.Rotation)
	for _, s := range [][]float64{g.Rows, g.Columns} {
		w.uvarint(uint64(len(s)))
		for _, v := range s {
			w.float(v)
		}
	}
	w.uvarint(uint64(len(g.Cells)))
	for _, c := range g.Cells {
		w.uvarint(uint64(c.Row))
		w.uvarint(uint64(c.Column))
		w.uvarint(uint64(c.RowSpan))
		w.uvarint(uint64(c.ColumnSpan))
		w.string(c.Text)
		w.float(c.Height)
	}
	g.Drawn.encodeDrawn(w)
}

func decodeTable(r *decoder) Table {
	g := Table{P: r.vec(), Rotation: r.float()}
	sizes := func() []float64 {
		n := r.uvarint()
		if n > uint64(len(r.b)/8) {
			r.fail("table sizes")
			return nil
		}
		out := make([]float64, n)
		for i := range out {
			out[i] = r.float()
		}
		return out
	}
	g.Rows = sizes()
	g.Columns = sizes()
	n := r.uvarint()
	if n > uint64(len(r.b)/12) {
		r.fail("table cells")
		return g
	}
	for i := uint64(0); i < n; i++ {
		var n [4]int
		for j := range n {
			v := r.uvarint()
			if v > maxTableGrid {
				r.fail("table cell")
				return g
			}
			n[j] = int(v)
		}
		c := TableCell{Row: n[0], Column: n[1], RowSpan: n[2], ColumnSpan: n[3]}
		c.Text, c.Height = r.string(), r.float()
		g.Cells = append(g.Cells, c)
	}
	g.Drawn = decodeDrawn(r)
	return g
}

func (g Table) fill(w *wire) {
	pb := &w.pb
	pb.Insertion, pb.Rotation = w.point(g.P), w.num(g.Rotation)
	s, c := geom.SinCosDeg(g.Rotation)
	pb.Direction = w.point(geom.Pt(c, s))
	t := &enginev1.Table{RowHeights: g.Rows, ColumnWidths: g.Columns, Cells: []*enginev1.TableCellText{}}
	for _, c := range g.Cells {
		t.Cells = append(t.Cells, &enginev1.TableCellText{Row: int32(c.Row), Column: int32(c.Column), Text: c.Text, TextHeight: c.Height, RowSpan: int32(c.RowSpan), ColumnSpan: int32(c.ColumnSpan)})
	}
	pb.Table = t
}
