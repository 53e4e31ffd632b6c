package drawing

import (
	"math"
	"slices"
	"strings"
)

// Columns are an MTEXT's columns (DXF R2018's embedded object, 71–74,
// 44, 45, 41, 46; before R2018 the ACAD_MTEXT_COLUMN_INFO of its
// extended data): the text wraps at Width and flows from column to
// column, Gutter apart, left to right; a column break ("\f" in the
// text, DXF's \N) starts the next column.
//
// Static columns are Count columns, each Height tall (the last takes
// what is left over). Dynamic columns with AutoHeight are as many
// columns of Height as the text needs; without it (manual heights)
// they are one column per entry of Heights, each as tall as its entry,
// where a height of 0 is as tall as the text it holds up to its column
// break (AutoCAD records 0s in R2018 files and draws them so: see
// docs/decisions.md).
type Columns struct {
	Dynamic    bool
	AutoHeight bool
	Reversed   bool // the flow is reversed (DXF 74); kept, drawn left to right
	Count      int
	Width      float64
	Gutter     float64
	Height     float64
	Heights    []float64
}

// ColumnBreak stands for a column break (DXF's \N) in an MText's text.
const ColumnBreak = "\f"

// capacity is how tall column i may be (0: as tall as its text).
func (c *Columns) capacity(i int) float64 {
	if c.Dynamic && !c.AutoHeight {
		if i < len(c.Heights) {
			return max(0, c.Heights[i])
		}
		return 0
	}
	return max(0, c.Height)
}

// fixed is how many columns there always are (static columns, dynamic
// ones with manual heights); more says whether a column may follow
// column i.
func (c *Columns) fixed() int {
	switch {
	case !c.Dynamic:
		return max(1, c.Count)
	case !c.AutoHeight:
		return max(1, len(c.Heights))
	}
	return 1
}

func (c *Columns) more(i int) bool {
	return (c.Dynamic && c.AutoHeight) || i+1 < c.fixed()
}

// width is each column's width: Width, or the text's when it has none.
func (c *Columns) width(text float64) float64 {
	if c.Width > 0 {
		return c.Width
	}
	return text
}

// column is one column of a laid-out MText: its left in the text's box
// (from the box's left), its lines, its box's height, and how far below
// its top a next line's top would be.
type column struct {
	x     float64
	lines []line
	h     float64
	next  float64
}

// columnLayout lays the text out in its columns, lines as wide as width
// measures them: the columns, each column's width, and the whole box's
// width and height (the tallest column's).
func (g MText) columnLayout(width measure) (cols []column, cw, w, h float64) {
	c := g.Columns
	cw = c.width(g.Width)
	one := g
	one.Width, one.Columns = cw, nil
	// A column break in the last of a fixed number of columns is passed
	// over: the text after it goes on in that column (as a file before
	// R2018 holds it, in the last column's MTEXT), and is laid out again.
	parts := columnParts(g.paragraphs())
	for {
		var stuck int
		cols, stuck = g.flow(parts, one, width)
		if stuck == 0 {
			break
		}
		parts = append(parts[:stuck-1:stuck-1], joinParts(parts[stuck-1:]))
	}
	for len(cols) > c.fixed() && len(cols[len(cols)-1].lines) == 0 {
		cols = cols[:len(cols)-1]
	}
	for j := range cols {
		col := &cols[j]
		for n := len(col.lines); n > 0 && strings.TrimSpace(col.lines[n-1].String()) == ""; n-- {
			col.lines = col.lines[:n-1]
		}
		col.x = float64(j) * (cw + c.Gutter)
		if col.h = c.capacity(j); col.h == 0 && len(col.lines) > 0 {
			col.h = g.linesHeight(col.lines)
		}
		h = max(h, col.h)
	}
	if n := len(cols); n > 0 {
		w = float64(n)*cw + float64(n-1)*c.Gutter
	}
	if math.IsNaN(w) {
		w = 0
	}
	return cols, cw, w, h
}

// columnParts splits paragraphs at their column breaks: the paragraphs
// of each part, the text between two breaks.
func columnParts(paras []paragraph) [][]paragraph {
	out := [][]paragraph{nil}
	for _, p := range paras {
		out[len(out)-1] = append(out[len(out)-1], p)
		if p.column {
			out = append(out, nil)
		}
	}
	return out
}

// joinParts joins parts as if the column breaks between them were not
// there: the last paragraph of each part runs on into the first of the
// next.
func joinParts(parts [][]paragraph) []paragraph {
	var out []paragraph
	for _, part := range parts {
		if n := len(out); n > 0 && len(part) > 0 {
			out[n-1].runs = append(slices.Clip(out[n-1].runs), part[0].runs...)
			out[n-1].end, out[n-1].column = part[0].end, part[0].column
			part = part[1:]
		}
		out = append(out, part...)
	}
	if n := len(out); n > 0 {
		out[n-1].column = false
	}
	return out
}

// flow puts the lines of the parts (the paragraphs between column
// breaks), wrapped as one wraps them, into columns: a part starts a
// column, and a line that would pass its column's height starts the
// next. stuck is the first part whose column break found no column to
// start (0: none).
func (g MText) flow(parts [][]paragraph, one MText, width measure) (cols []column, stuck int) {
	c := g.Columns
	cols = make([]column, c.fixed())
	i := 0
	for k, part := range parts {
		if k > 0 {
			if !c.more(i) {
				return cols, k
			}
			i++
		}
		var lines []line
		if len(part) > 1 || len(part) == 1 && len(part[0].runs) > 0 {
			lines = one.wrap(part, width)
		}
		for _, l := range lines {
			if len(cols[i].lines) > 0 && c.capacity(i) > 0 && cols[i].next+l.height > c.capacity(i)*(1+1e-9) && c.more(i) {
				i++
			}
			for i >= len(cols) {
				cols = append(cols, column{})
			}
			cols[i].lines = append(cols[i].lines, l)
			cols[i].next += g.lead(l)
		}
		for i >= len(cols) {
			cols = append(cols, column{})
		}
	}
	return cols, 0
}

// encodeTo writes the flags (1 byte: dynamic 1, auto height 2,
// reversed 4), count (uvarint), width, gutter, height, the heights'
// count (uvarint) and heights.
func (c *Columns) encodeTo(w *encoder) {
	var flags byte
	if c.Dynamic {
		flags |= 1
	}
	if c.AutoHeight {
		flags |= 2
	}
	if c.Reversed {
		flags |= 4
	}
	w.byte(flags)
	w.uvarint(uint64(max(0, c.Count)))
	w.float(c.Width)
	w.float(c.Gutter)
	w.float(c.Height)
	w.uvarint(uint64(len(c.Heights)))
	for _, v := range c.Heights {
		w.float(v)
	}
}

func decodeColumns(r *decoder) *Columns {
	flags := r.byte()
	c := &Columns{Dynamic: flags&1 != 0, AutoHeight: flags&2 != 0, Reversed: flags&4 != 0}
	c.Count = int(min(r.uvarint(), 1<<16))
	c.Width, c.Gutter, c.Height = r.float(), r.float(), r.float()
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail("mtext columns")
		return c
	}
	for range n {
		c.Heights = append(c.Heights, r.float())
	}
	if flags > 7 {
		r.fail("mtext columns")
	}
	return c
}

// mtextColumns tags an MTEXT's columns at the end of its encoding
// (after its background), so that one without encodes as it always did.
const mtextColumns = 'C'

// scaled is c with its lengths times s.
func (c *Columns) scaled(s float64) *Columns {
	if c == nil {
		return nil
	}
	out := *c
	out.Width, out.Gutter, out.Height = c.Width*s, c.Gutter*s, c.Height*s
	out.Heights = make([]float64, len(c.Heights))
	for i, v := range c.Heights {
		out.Heights[i] = v * s
	}
	if len(c.Heights) == 0 {
		out.Heights = nil
	}
	return &out
}
