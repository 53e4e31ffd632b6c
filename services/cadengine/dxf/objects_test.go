package dxf

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
)

// TestRedrawOrder: a model space with a SORTENTSTABLE is built in the
// order it draws — by the handle each entity is drawn as, its own when
// the table does not name it — as ezdxf's drawing add-on draws it; one
// without keeps the file's order.
func TestRedrawOrder(t *testing.T) {
	line := func(h string, x float64) string {
		return "0\nLINE\n5\n" + h + "\n330\n1F\n100\nAcDbEntity\n8\n0\n100\nAcDbLine\n10\n" + num(x) + "\n20\n0\n11\n" + num(x) + "\n21\n1\n"
	}
	entities := "0\nSECTION\n2\nENTITIES\n" + line("A0", 0) + line("A1", 1) + line("A2", 2) + line("A3", 3) + "0\nENDSEC\n"
	// A0 is drawn as if it were AF (last), A2 as 9F (first).
	table := "0\nSECTION\n2\nOBJECTS\n0\nSORTENTSTABLE\n5\n2C0\n102\n{ACAD_REACTORS\n330\n15D\n102\n}\n330\n15D\n100\nAcDbSortentsTable\n330\n1F\n" +
		"331\nA0\n5\nAF\n331\nA2\n5\n9F\n0\nENDSEC\n"
	for _, tc := range []struct {
		name, content string
		want          []float64
	}{
		{"sorted", entities + table + "0\nEOF\n", []float64{2, 1, 3, 0}},
		{"a table of another block", entities + strings.Replace(table, "330\n1F\n331", "330\n2F\n331", 1) + "0\nEOF\n", []float64{0, 1, 2, 3}},
		{"no table", entities + "0\nEOF\n", []float64{0, 1, 2, 3}},
	} {
		d, err := importText(tc.content)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []float64
		for _, e := range d.Entities() {
			got = append(got, e.Geom.(drawing.Line).A.X)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: lines drawn at x = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
