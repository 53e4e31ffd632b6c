package drawing

import (
	"math"
	"strings"
)

// A StandardPaper is a paper size a layout can be made on, landscape, in
// millimetres.
type StandardPaper struct {
	Name          string
	Width, Height float64
}

// StandardPapers are ISO 216's A0…A4 and ANSI/ASME Y14.1's A…E (their
// inches in millimetres, exactly: A is US Letter, B Tabloid), landscape.
var StandardPapers = []StandardPaper{
	{"A0", 1189, 841}, {"A1", 841, 594}, {"A2", 594, 420}, {"A3", 420, 297}, {"A4", 297, 210},
	{"ANSI_A", 279.4, 215.9}, {"ANSI_B", 431.8, 279.4}, {"ANSI_C", 558.8, 431.8},
	{"ANSI_D", 863.6, 558.8}, {"ANSI_E", 1117.6, 863.6},
}

// PaperNamed is the standard paper named name, in any case ("ANSI A" and
// "ANSI-A" as "ANSI_A").
func PaperNamed(name string) (StandardPaper, bool) {
	n := strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToUpper(strings.TrimSpace(name)))
	for _, p := range StandardPapers {
		if p.Name == n {
			return p, true
		}
	}
	return StandardPaper{}, false
}

// PaperOfSize is the name of the standard paper w × h mm is, either way
// up, within half a millimetre; "" for none.
func PaperOfSize(w, h float64) string {
	long, short := math.Max(w, h), math.Min(w, h)
	for _, p := range StandardPapers {
		if math.Abs(p.Width-long) <= 0.5 && math.Abs(p.Height-short) <= 0.5 {
			return p.Name
		}
	}
	return ""
}
