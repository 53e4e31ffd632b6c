// Package dxftest makes DXF files for tests: small, hostile drawings that
// describe far more work than their size (nested and gridded inserts,
// dense hatches, huge bulges) or that never end (blocks that insert
// themselves).
package dxftest

import (
	"fmt"
	"strings"
)

// File is a DXF file of the given BLOCKS and ENTITIES sections' contents
// (group code/value lines), without a HEADER: R12's minimum.
func File(blocks, entities string) string {
	return "0\nSECTION\n2\nBLOCKS\n" + blocks + "0\nENDSEC\n" +
		"0\nSECTION\n2\nENTITIES\n" + entities + "0\nENDSEC\n0\nEOF\n"
}

// Block is a BLOCK definition named name, based at the origin, holding
// entities.
func Block(name, entities string) string {
	return "0\nBLOCK\n8\n0\n2\n" + name + "\n70\n0\n10\n0\n20\n0\n" + entities + "0\nENDBLK\n8\n0\n"
}

// Line is a LINE from (x1, y1) to (x2, y2).
func Line(x1, y1, x2, y2 float64) string {
	return fmt.Sprintf("0\nLINE\n8\n0\n10\n%g\n20\n%g\n11\n%g\n21\n%g\n", x1, y1, x2, y2)
}

// Insert is an INSERT of block name at (x, y).
func Insert(name string, x, y float64) string {
	return fmt.Sprintf("0\nINSERT\n8\n0\n2\n%s\n10\n%g\n20\n%g\n", name, x, y)
}

// Minsert is an INSERT of block name at the origin in a grid of cols ×
// rows, dx and dy apart.
func Minsert(name string, cols, rows int, dx, dy float64) string {
	return fmt.Sprintf("0\nINSERT\n8\n0\n2\n%s\n10\n0\n20\n0\n70\n%d\n71\n%d\n44\n%g\n45\n%g\n", name, cols, rows, dx, dy)
}

// NestedBomb is a drawing of depth levels of blocks, each of fan inserts
// of the level below, the lowest a single line, and one insert of the top
// in model space: it draws fan^depth lines from a file of a few
// kilobytes (10 deep of 10 is 10^10 lines in about 2 KB).
func NestedBomb(depth, fan int) string {
	var blocks strings.Builder
	blocks.WriteString(Block("B0", Line(0, 0, 1, 0)))
	for level := 1; level <= depth-1; level++ {
		var ins strings.Builder
		for i := range fan {
			ins.WriteString(Insert(fmt.Sprintf("B%d", level-1), float64(i), float64(level)))
		}
		blocks.WriteString(Block(fmt.Sprintf("B%d", level), ins.String()))
	}
	var top strings.Builder
	for i := range fan {
		top.WriteString(Insert(fmt.Sprintf("B%d", depth-1), float64(i)*10, 0))
	}
	return File(blocks.String(), top.String())
}

// SelfInsert is a block that inserts itself, inserted once.
func SelfInsert() string {
	return File(Block("LOOP", Line(0, 0, 1, 1)+Insert("LOOP", 1, 1)), Insert("LOOP", 0, 0))
}

// Cycle is three blocks that insert each other in a ring, A → B → C → A,
// with A inserted once.
func Cycle() string {
	return File(Block("A", Insert("B", 1, 0))+Block("B", Insert("C", 1, 0))+Block("C", Line(0, 0, 1, 0)+Insert("A", 1, 0)), Insert("A", 0, 0))
}

// Grid is a MINSERT of a one-line block in cols × rows.
func Grid(cols, rows int) string {
	return File(Block("CELL", Line(0, 0, 1, 0)), Minsert("CELL", cols, rows, 2, 2))
}

// Bulge is a closed polyline of two vertices whose arcs have the given
// bulge (1e300: a circle of radius 1e300 times the chord, nearly whole).
func Bulge(b float64) string {
	return File("", fmt.Sprintf("0\nLWPOLYLINE\n8\n0\n90\n2\n70\n1\n10\n0\n20\n0\n42\n%g\n10\n1\n20\n0\n42\n%g\n", b, b))
}

// DenseHatch is a square of side metres hatched with ANSI31 at scale.
func DenseHatch(side, scale float64) string {
	return File("", fmt.Sprintf(`0
HATCH
8
0
10
0
20
0
30
0
2
ANSI31
70
0
71
0
91
1
92
2
72
0
73
1
93
4
10
0
20
0
10
%[1]g
20
0
10
%[1]g
20
%[1]g
10
0
20
%[1]g
97
0
75
0
76
1
52
0
41
%[2]g
77
0
78
1
53
45
43
0
44
0
45
-2.245064
46
2.245064
`, side, scale))
}

// NaNPoint is a POINT whose x is written NaN.
func NaNPoint() string {
	return File("", "0\nPOINT\n8\n0\n10\nNaN\n20\n0\n")
}

// TinyLinetype is a DASHED line length long, drawn at a linetype scale of
// scale: $LTSCALE and the line's own (48) are both scale, so its dashes
// are scale² of the pattern's half inch.
func TinyLinetype(length, scale float64) string {
	return fmt.Sprintf("0\nSECTION\n2\nHEADER\n9\n$LTSCALE\n40\n%[2]g\n0\nENDSEC\n"+
		"0\nSECTION\n2\nTABLES\n0\nTABLE\n2\nLTYPE\n70\n1\n"+
		"0\nLTYPE\n2\nDASHED\n70\n0\n3\nDashed\n72\n65\n73\n2\n40\n0.75\n49\n0.5\n49\n-0.25\n0\nENDTAB\n0\nENDSEC\n", length, scale) +
		File("", fmt.Sprintf("0\nLINE\n8\n0\n6\nDASHED\n48\n%[2]g\n10\n0\n20\n0\n11\n%[1]g\n21\n0\n", length, scale))
}
